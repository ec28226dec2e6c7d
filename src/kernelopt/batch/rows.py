"""How every problem of a batch is run (:class:`BatchOptions`) and how a row is made of what it left.

Shared by both ways of running a problem (:mod:`.cold`: a ``kernelopt`` process; :mod:`.warm`: the gate
in this process, its workers from the pool), so a row means the same whichever made it.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.batch.changes import changed_text
from kernelopt.batch.model import DEFAULT_PROBLEM_TIMEOUT_S, BatchMode, ProblemRow, ProblemStatus
from kernelopt.batch.problems import BatchItem
from kernelopt.batch.work import Killed
from kernelopt.errors import WorkspaceError
from kernelopt.harness.gate import GateReport
from kernelopt.harness.model import Culprit
from kernelopt.harness.settings import ENV_COMPILE_REFERENCE, ENV_DEVICE, ENV_SIZE_SCALE
from kernelopt.harness.sizes import chosen_plan
from kernelopt.harness.unrunnable import CANNOT_RUN
from kernelopt.loop.journal import Journal, RunState
from kernelopt.loop.stop import StopReason
from kernelopt.memory.model import GateResult, IterationRecord, ReferenceSpeedup, best_version
from kernelopt.planning.rules import discover_knobs
from kernelopt.report.headline import compiled_name, reference_headline, unreliable
from kernelopt.workspace import Workspace

#: The built-in planner's name (kernelopt.backends.registry): it moves knobs only, so no knob means no plan.
RULES = "rules"


class BatchOptions(BaseModel):
    """How every problem of a batch is run.

    Attributes:
        mode: validate (the gate on V0) or optimize (the whole loop).
        out_dir: the batch's output folder.
        device: ``cuda`` / ``cpu``; ``None`` lets each run choose.
        problem_timeout_s: wall-clock limit of one problem, seconds (its processes are killed past it).
        compile_reference: also time ``torch.compile(reference)``; ``None`` leaves it to each task card.
        size_scale: scale each problem's size constants (0 < s <= 1) for a quick run.
        max_iters: with optimize, stop each loop after this many iterations.
        planner: with optimize, the planner backend.
        implementer: with optimize, the implementer backend.
        kernels: KernelBench layout: the runs folder of generated kernels (the batch folder is then a
            level folder).
        level: KernelBench layout: the level, when the level folder's name does not say it.
        cold: validate each problem in its own ``kernelopt validate`` process (as before the pool) instead
            of through the pool of pre-started workers; the figures are the same, only slower to get.
        problems: run only the problems this names (``1-50,97``, names too: :mod:`kernelopt.batch.selection`);
            not a setting of the table, so parts run one after another into one ``--out`` build one table.
    """

    model_config = ConfigDict(extra="forbid")

    mode: BatchMode = BatchMode.VALIDATE
    out_dir: Path
    device: str | None = None
    problem_timeout_s: float = Field(default=DEFAULT_PROBLEM_TIMEOUT_S, ge=1)  # as --problem-timeout-s
    compile_reference: bool | None = None
    size_scale: float | None = Field(default=None, gt=0, le=1)
    max_iters: int | None = Field(default=None, ge=0)
    planner: str | None = None
    implementer: str | None = None
    kernels: Path | None = None
    level: int | None = Field(default=None, ge=0)
    cold: bool = False
    problems: str | None = None

    @property
    def workspace_root(self) -> Path:
        return self.out_dir / "workspaces"

    def batch_limit_reason(self, killed: Killed | None = None) -> str:
        """The reason of a problem killed past ``--problem-timeout-s``; ``killed``: where its run was
        (:func:`kernelopt.batch.work.killed_in`), so the hang is named."""
        at = f" in {killed.where}" if killed else ""
        return f"ran past the batch's limit of {self.problem_timeout_s:g} s per problem (killed{at})"


def child_argv(ws: Workspace, options: BatchOptions) -> list[str]:
    """The ``kernelopt`` command one problem runs in on the cold path (pure)."""
    argv = [sys.executable, "-m", "kernelopt"]
    if options.mode is BatchMode.VALIDATE:
        argv += ["validate", str(ws.root), "--version", "0", "--no-previous", "--json"]
    else:
        argv += ["optimize", str(ws.root), "--json"]
        if options.max_iters is not None:
            argv += ["--max-iters", str(options.max_iters)]
        if options.planner:
            argv += ["--planner", options.planner]
        if options.implementer:
            argv += ["--implementer", options.implementer]
    if options.device:
        argv += ["--device", options.device]
    return argv


def problem_env(base: Mapping[str, str], options: BatchOptions) -> dict[str, str]:
    """The child's environment: ``base`` plus the batch's harness settings (pure)."""
    env = dict(base)
    if options.compile_reference is not None:
        env[ENV_COMPILE_REFERENCE] = "1" if options.compile_reference else "0"
    if options.size_scale is not None:
        env[ENV_SIZE_SCALE] = repr(options.size_scale)
    if options.device:
        env[ENV_DEVICE] = options.device
    return env


def item_row(item: BatchItem, status: ProblemStatus = ProblemStatus.ERROR) -> ProblemRow:
    """The row of ``item`` before anything ran: with its defect ``INVALID`` (``ERROR`` when the defect is the
    problem's own), else ``status``."""
    if item.defect:
        status = ProblemStatus.ERROR if item.problem_fault else ProblemStatus.INVALID
    return ProblemRow(
        problem=item.problem,
        folder=str(item.folder),
        problem_id=item.problem_id,
        sample=item.sample,
        status=status,
        reason=item.defect,
    )


def figures(row: ProblemRow, record: IterationRecord) -> ProblemRow:
    """``row`` with the latency and speedups of ``record``, each with its interval and whether it is a
    significant claim (:func:`kernelopt.harness.stats.claim`)."""
    p = record.performance
    ref = p.speedup_vs_reference
    return row.model_copy(
        update={
            "latency_us": p.latency_us,
            "reference_latency_us": ref.eager_latency_us if ref else None,
            "speedup_vs_eager": ref.eager if ref else None,
            "eager_ci_low": ref.eager_ci_low if ref and ref.eager is not None else None,
            "eager_ci_high": ref.eager_ci_high if ref and ref.eager is not None else None,
            "eager_p_value": ref.eager_p_value if ref and ref.eager is not None else None,
            "eager_verdict": ref.eager_verdict if ref and ref.eager is not None else None,
            "speedup_vs_compile": ref.compiled if ref else None,
            "compile_ci_low": ref.compiled_ci_low if ref and ref.compiled is not None else None,
            "compile_ci_high": ref.compiled_ci_high if ref and ref.compiled is not None else None,
            "compile_verdict": ref.compiled_verdict if ref and ref.compiled is not None else None,
            "compiled_against": compiled_name(ref) if ref and ref.compiled is not None else None,  # late28 z62
            # how each was timed, so a figure is read with its method (break22 b51)
            "timing_method": p.timing_method,
            "reference_timing_method": ref.eager_timing_method if ref else None,
            "compile_s": ref.compile_s if ref else None,
            "best_version": record.version,
            # a figure left out for noise says why (kernelopt.harness.stats.too_wide), not just n/a; one too noisy
            # to be a headline says so by the rule of the summary and the report (kernelopt.report.headline)
            "reason": _noise_reason(ref),
        }
    )


def _noise_reason(ref: ReferenceSpeedup | None) -> str | None:
    """Why the speedup over the reference is no headline figure: withheld by the gate, or not reliable."""
    if ref is None:
        return None
    if ref.withheld:
        return f"the speedup over the reference is withheld: {ref.withheld}"
    if ref.eager is not None and unreliable(ref.eager_ci_low, ref.eager_ci_high):
        return reference_headline(ref)
    return None


def validate_row(row: ProblemRow, report: GateReport) -> ProblemRow:
    """``row`` with the gate's verdict on V0 and its figures (a speedup withheld for noise says so). A problem
    whose reference failed is an ``ERROR`` of the problem, counted apart from the kernels (issue 34); where the
    kernel's check passed before the reference failed (too slow to time within ``TEST_TIMEOUT_SEC``), the row keeps
    that verdict and says whose the time was (late57 l274: it read correct "n/a")."""
    if report.problem_failed:
        reason = report.failure_reason or report.correctness.message
        checked = report.correctness.passed  # the check ran and passed: the reference failed after it, in the timing
        said = f"the problem's reference failed: {reason}"
        if checked:
            said += "; the kernel passed its check: the time that ran out was the reference's, the problem's"
        return row.model_copy(
            update={
                "status": ProblemStatus.ERROR,
                "correct": True if checked else None,
                "reason": said,
                "sizes": report.sizes,
            }
        )
    if report.checker_failed:  # the check could not run here (the device's memory): not the kernel's verdict
        return row.model_copy(
            update={
                "status": ProblemStatus.ERROR,
                "correct": None,
                "reason": report.failure_reason or report.correctness.message,
                "sizes": report.sizes,
            }
        )
    figured = figures(row, report.record)
    return figured.model_copy(
        update={
            "status": ProblemStatus(report.result.value),
            "correct": report.correctness.passed,
            "reason": report.failure_reason or figured.reason or row.reason,
            "sizes": report.sizes,
        }
    )


def optimize_row(row: ProblemRow, ws: Workspace) -> ProblemRow:
    """``row`` with the best version the loop reached (or why none passed), what the loop changed
    (:func:`~kernelopt.batch.changes.changed_text`) and its stop line."""
    records = [ws.memory.read(n) for n in ws.memory.versions()]
    state = loop_state(ws)
    stop = state.stop if state is not None else None
    # "no knob" explains a missing plan only for the rules planner, which moves knobs and nothing else
    knobless = (
        state is not None
        and state.settings.planner == RULES
        and stop is not None
        and stop.reason is StopReason.NO_NEW_PLAN
        and has_no_knob(ws, state.settings.device)
    )
    row = row.model_copy(
        update={
            "changed": changed_text(records, stop, knobless=knobless),
            "stop": stop.line() if stop else None,
            "sizes": chosen_plan(ws.state_dir, None),  # the sizes the loop's gates ran at, when scaled
        }
    )
    best = best_version(records)
    v0 = next((r for r in records if r.number == 0), None)
    if best is None:
        reason = (v0.quality_gate.failure_reason if v0 else None) or "no version passed the gate"
        if v0 is not None and v0.quality_gate.culprit == Culprit.PROBLEM.value:  # the reference failed, not the kernel
            whose = "SHAPES entry fails" if CANNOT_RUN in reason else "reference failed"  # an entry V0 cannot run
            return row.model_copy(update={"status": ProblemStatus.ERROR, "reason": f"the problem's {whose}: {reason}"})
        if v0 is not None and v0.quality_gate.culprit == Culprit.CHECKER.value:  # the check could not run here
            return row.model_copy(update={"status": ProblemStatus.ERROR, "reason": reason})
        result = v0.quality_gate.result if v0 and v0.quality_gate.result else GateResult.FAIL
        status = ProblemStatus(result.value) if result is not GateResult.PASS else ProblemStatus.FAIL
        correct = None if v0 is None else v0.correctness.status.value == "PASS"
        return row.model_copy(update={"status": status, "reason": reason, "correct": correct})
    return figures(row, best).model_copy(update={"status": ProblemStatus.PASS, "correct": True})


def loop_state(ws: Workspace) -> RunState | None:
    """The workspace's loop journal (its settings, and why it stopped); ``None`` when it left none or an
    unreadable one."""
    try:
        return Journal(ws.state_dir).load()
    except WorkspaceError:
        return None


def has_no_knob(ws: Workspace, device: str | None = None) -> bool:
    """kernel.py has no tunable knob, by the rules planner's own discovery on the loop's ``device`` (False
    when discovery fails)."""
    knobs, _ = discover_knobs(ws.kernel_py, device=device)
    return knobs is not None and not knobs
