"""Stage 1 of the loop (and V0's baseline profile): run the profiler, keep ``profiles/v<N>/summary.json``."""

from __future__ import annotations

import shutil

from kernelopt.evidence.summary import write_summary
from kernelopt.loop.journal import IterationState
from kernelopt.loop.protocols import EventKind, Stage
from kernelopt.loop.run import LoopRun
from kernelopt.stages.allowance import may_write


def profile_stage(run: LoopRun, it: IterationState) -> None:
    """Profile version ``it.version``; a write outside ``profiles/v<N>/`` fails the iteration."""
    run.enter(it)
    held = run.ws.profile_dir(it.version)
    if it.stage is Stage.PROFILE and held.is_dir() and any(held.iterdir()):
        # a Stage 1 run by hand (`kernelopt profile`, or a `plan` that failed after taking it) that no plan or record
        # took: the loop's version takes its number (Workspace.iteration_version, l272) and profiles it again
        shutil.rmtree(held)
        run.emit(
            EventKind.NOTE,
            f"V{it.version}: profiles/v{it.version}/ held a Stage 1 that no plan or record took: profiled again",
        )
    summary = run.profiler.profile(run.ws, it.version)
    if run.state.settings.device != "cpu":  # on the CPU no profiler runs: Stage 1 reads the gate's timing
        run.state.profiles_taken += 1
    violations = run.guarded(it, it.snapshot, may_write(it.stage, it.version), "profiler")
    if violations:
        run.fail(
            it,
            f"Stage 1 wrote outside profiles/v{it.version}/: {', '.join(violations)}",
            error_type="write_violation",
        )
        return
    folder = run.ws.profile_dir(it.version)
    if not (folder / "summary.json").is_file():
        write_summary(folder, summary)
    if not summary.counters_available:
        run.state.timing_only = True
        note = f"timing-only evidence: counters unavailable ({summary.counters_unavailable_reason or 'unknown'})"
        if note not in it.notes:
            it.notes.append(note)
        run.emit(EventKind.WARNING, f"V{it.version}: {note}")
    run.advance(it, Stage.RECORD if it.stage is Stage.BASELINE_PROFILE else Stage.PLAN)
