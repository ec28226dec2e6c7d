"""A ``SHAPES`` entry the kernel as the user wrote it (V0) cannot run: the problem's entry, never a version's fault.

On the H100 (2026-12-06) Inductor's persistent reduction did not compile at ``N = 1``: Triton's JIT makes an int
argument equal to 1 a constexpr, and the kernel's ``rnumel.to(tl.float32)`` has none. A V0 gated with such an entry in
``SHAPES`` was the kernel's FAIL ("the baseline kernel does not pass the gate: ... the kernel raised
CompilationError"), though no version can be blamed for a size the original never ran, and the fix is the entry's (or
a path for that size in kernel.py) (docs/faults.md refblame14 r11). So where V0 raises (a compile failure, an
``assert`` in ``run``, a grid the device refuses) at one entry and runs another, the failure is the problem's
(:attr:`~kernelopt.harness.model.Culprit.PROBLEM`, :data:`~kernelopt.harness.model.ENTRY_UNRUNNABLE`: exit 2, as
``tune`` refuses bad input), its line naming the entry and the error V0 raised there.
A V0 that raises at every entry it can be run at, or that returns a wrong result, stays the kernel's. Only the
loop's V0 (``optimize``, its ``batch --optimize`` rows) is read so: a kernel being judged (``validate``, ``batch``'s
rows) that raises at an entry fails there, its own FAIL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kernelopt.harness.hints import FailureClass, failure_class
from kernelopt.harness.model import ENTRY_UNRUNNABLE, CaseCheck, CorrectnessReport, Culprit


def failed_case(report: CorrectnessReport) -> CaseCheck | None:
    """The case the check stopped at (the last one checked, failed), ``None`` when none failed."""
    last = report.cases[-1] if report.cases else None
    return last if last is not None and not last.passed else None


CANNOT_RUN = "is a size kernel.py as written (V0) cannot run"
"""The words every :func:`entry_line` holds (how a record's reason, which keeps no error class, is told apart)."""


def entry_line(failed: CaseCheck, message: str, runs: str) -> str:
    """The one line of an entry V0 cannot run (``message``: the check's failure there; ``runs``: an entry it runs)."""
    return (
        f"the SHAPES entry {failed.label} {CANNOT_RUN}, while it runs {runs} "
        f"({message}): the entry is the problem's, not a fault of any version; drop it from SHAPES, or give kernel.py "
        "a path for that size first"
    )


def unrunnable_entry(
    report: CorrectnessReport, others: Sequence[int], recheck: Callable[[list[int]], CorrectnessReport]
) -> CorrectnessReport:
    """V0's correctness ``report`` with a raise at one ``SHAPES`` entry made the problem's when V0 runs another entry:
    one checked before it, else one of ``others`` (the entries the check did not reach), checked with ``recheck``
    (called only then). Any other report is returned as it is."""
    failed = failed_case(report)
    if (
        report.passed
        or failed is None
        or report.culprit is not Culprit.KERNEL
        or failure_class(report.error_class, report.culprit) is not FailureClass.RAISED
    ):
        return report
    ran = next((c for c in report.cases if c.passed), None)
    if ran is None:
        rest = [i for i in others if i not in {c.index for c in report.cases}]
        if not rest:
            return report
        again = recheck(rest)
        ran = next((c for c in again.cases if c.passed), None)
        if ran is None:
            return report
    return report.model_copy(
        update={
            "culprit": Culprit.PROBLEM,
            "error_class": ENTRY_UNRUNNABLE,
            "message": entry_line(failed, report.message, ran.label),
        }
    )
