"""The written kernel's error at the net's largest size, judged beside the original's there and at the entries.

The accuracy rule (:mod:`kernelopt.tuning.accuracy`) reads how fast a candidate's error rises along a size compared
with the original's; at the ``SHAPES`` entries alone a chain twice the original's is not told from noise (v116's
``SPLIT=4``, a lane's fp16 chain twice the original's, kept at 8 x 5000 and 8 x 20000), and one larger size tells it
(refused once 8 x 40000 is beside them: docs/faults.md, leftovers24's l43). The net (:mod:`kernelopt.tuning.net`)
already runs the written kernel at sizes past the entries, and its bench worker already measures the error there:
its check keeps it (:meth:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator.error_at`). Here the original runs once
more, at the net's largest size the written kernel passed (:func:`largest_passed`; the same inputs: a size's are built
by ``get_inputs`` under one seed), and both errors join the entries' in
:func:`~kernelopt.tuning.accuracy.across_entries` (:func:`judged_at_net`). A refusal there is the net's failure: the
next pick, or nothing written, the line naming the size (late35).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kernelopt.tuning.accuracy import EntryError, across_entries, entry_size, entry_values
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.net import CheckAt, NetVerdict, SizeCheck
from kernelopt.tuning.problem import ProblemShape
from kernelopt.tuning.tail_wall import TailWall

#: what the net's bench worker kept of a kernel's check that passed at a size (``rel_err``, ``worst_ratio``,
#: ``roundoff``), else ``None``
#: how many of the net's largest sizes the written kernel passed at are compared (:func:`largest_passed`): a size past
#: the entries separates a growing error from noise best (l43), and a size's own inputs move its error by chance
#: (v116's ``SPLIT=4`` in Triton's interpreter: 3.15e-5 at 8 x 40000, 2.13e-5 at 8 x 85000), so a few together
AT_NET_SIZES = 3

UNMEASURED = "the written kernel's error there was not measured"

ErrorAt = Callable[[str, ProblemShape], Result | None]


@dataclass(frozen=True)
class AtNet:
    """What the comparison at the net's largest sizes found: ``refused`` with the size (``shape``) and the line, or
    kept (``line``: why a size was not compared, else ``None``); the sizes compared (``labels``) and the original's
    runs there (``seconds``)."""

    shape: ProblemShape | None = None
    line: str | None = None
    refused: bool = False
    seconds: float = 0.0
    labels: tuple[str, ...] = ()

    def said(self) -> str | None:
        """The net's clause (:attr:`~kernelopt.tuning.net.NetVerdict.compared`): where the errors were compared and
        the seconds it took, and why a size was not; ``None``: no size past the entries passed."""
        parts = []
        if self.labels and not self.refused:
            at = ", ".join(self.labels)
            parts.append(f"its error no less accurate than the original's at {at} ({self.seconds:.1f} s of runs)")
        if self.line is not None and not self.refused:
            parts.append(self.line)
        return "; ".join(parts) or None


def size_values(shape: ProblemShape, constants: Mapping[str, object]) -> dict[str, int]:
    """A net size's sizes by name (:func:`~kernelopt.tuning.accuracy.entry_values`), its constants over the primary
    entry's (``constants``: those the net builds it with)."""
    return entry_values({**shape.kwargs, **constants, **shape.constants})


def largest_passed(
    net: NetVerdict, entries: Sequence[EntryError], constants: Mapping[str, object], most: int = AT_NET_SIZES
) -> list[tuple[SizeCheck, dict[str, int]]]:
    """The ``most`` sizes of the net the written kernel passed at with the largest products of sizes past every
    entry's (the written code there is its own: a table's sizes above its largest entry, :attr:`SizeCheck.served`,
    run the original's), largest first, each with its sizes by name."""
    least = max((e.size for e in entries), default=0)
    passed = [(c, size_values(c.shape, constants)) for c in net.checks if c.passed and not c.served]
    passed = [(c, values) for c, values in passed if entry_size(values) > least]
    return sorted(passed, key=lambda p: entry_size(p[1]), reverse=True)[:most]


def judged_at_net(
    entries: Sequence[EntryError],
    net: NetVerdict,
    original: str,
    written: str,
    *,
    constants: Mapping[str, object],
    check_at: CheckAt,
    error_at: ErrorAt,
    wall: TailWall | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> AtNet:
    """``written``'s errors at the entries (``entries``) and at the net's largest sizes it passed
    (:func:`largest_passed`), each beside the original's there (the original checked at each by ``check_at``, its
    error and the written kernel's read by ``error_at``), judged together by
    :func:`~kernelopt.tuning.accuracy.across_entries`. Within ``wall`` (the session's stated wall time, at the seconds
    the net's check of each size took): a run it cannot fit, an original that does not pass there, or an error not
    measured leaves that size out, the line saying why; the entries' and the other sizes' errors judge the pick."""
    found = largest_passed(net, entries, constants)
    if not found:
        return AtNet()
    errors, left, seconds, labels = list(entries), [], 0.0, []
    for check, values in found:
        shape, label = check.shape, check.shape.label()
        ours, err = error_at(written, shape), error_at(original, shape)  # the original's: run for an earlier pick
        cut = None
        if wall is not None and err is None:
            cut = wall.cut(f"the original's check at {label}", check.seconds)
        if ours is None or cut is not None:
            left.append(f"{label}: {cut or UNMEASURED}")
            continue
        outcome, reason = Outcome.OK, None
        if err is None:
            t0 = clock()
            outcome, reason = check_at(original, shape)
            seconds += clock() - t0
            err = error_at(original, shape)
        if outcome is not Outcome.OK or err is None or err.rel_err is None:
            said = f"{outcome.value}: {reason}" if outcome is not Outcome.OK else "its error was not measured"
            left.append(f"{label}: the original there: {said}")
            continue
        errors.append(EntryError(label, ours, err.rel_err, values))
        labels.append(label)
    shape = found[0][0].shape
    line = f"not compared with the original's error at {'; '.join(left)}" if left else None
    judged = across_entries(errors) if len(errors) > len(entries) else None
    if judged is None:
        return AtNet(shape, line, seconds=seconds, labels=tuple(labels))
    at, why = judged
    named = {c.shape.label(): c.shape for c, _ in found}
    where = f"at {at}, a size of the net," if at in named else f"on the SHAPES entry {at}, beside the net's sizes,"
    refusal = f"the written kernel is less accurate than the original {where} {why}"
    return AtNet(named.get(at, shape), refusal, True, seconds, tuple(labels))
