"""The stage machine of ``kernelopt optimize``: V0 baseline, then Stage 1..6 per version, resumable.

Stage order is a transition table (:data:`NEXT_STAGES`): every move goes through
:meth:`~kernelopt.loop.run.LoopRun.advance`, which refuses a move the table does not hold, so no stage is skipped.
V0 runs ``baseline_gate -> baseline_profile -> record -> stop``; V<N> runs
``profile -> plan -> implement -> gate -> record -> stop``, where a failing plan, implementation or gate
goes on to ``record`` (revert marker) and "no new actionable plan" goes to ``stop``.

Stage 2 and Stage 3 are the stage runner's (:func:`kernelopt.stages.plan.run_plan`,
:func:`kernelopt.stages.implement.run_implement`), the same code ``kernelopt plan`` and ``kernelopt
implement`` run; this module only journals their results. What each stage may write is the stage
runner's one allowance table (:func:`kernelopt.stages.allowance.may_write`), enforced around every
collaborator call by :class:`kernelopt.stages.guard.RunGuard`: a write outside the allowance, a change
to a protected file (checked against its content at run start) or to the git state is undone,
recorded in ``pitfalls_and_fixes``, and fails the iteration. A user's task-card edit made between
iterations is accepted and recorded again.

Each stage's code sits in its own module: :mod:`.stage_profile` (Stage 1), :mod:`.stage_plan` (2),
:mod:`.stage_implement` (3), :mod:`.stage_gate` (4 and V0's gate), :mod:`.stage_record` (5),
:mod:`.stage_stop` (6); what they share (the journal, the events, the guard, the workspace state) is
:class:`~.run.LoopRun`, and interruption and resume are :mod:`.resume`. This module drives them.

Every step writes the journal (:mod:`kernelopt.loop.journal`) before its side effects. After Ctrl-C the
in-flight stage is rolled back at once (``kernel.py`` back to the last good version); after ``kill -9``
the next run rolls it back before running it again under the same version number. The record stage is
idempotent: it inspects HEAD to see whether the commit and the amend happened.
"""

from __future__ import annotations

from collections.abc import Callable

from kernelopt.errors import WorkspaceError
from kernelopt.loop.journal import IterationState, RunState, RunStatus
from kernelopt.loop.opening import baseline_commit, changed_truth
from kernelopt.loop.protocols import Collaborators, EventKind, Stage
from kernelopt.loop.resume import park, prepare_resume
from kernelopt.loop.run import NEXT_STAGES, LoopRun, StageOrderError
from kernelopt.loop.settings import LoopRequest, resolve_settings
from kernelopt.loop.stage_gate import baseline_gate_stage, gate_stage
from kernelopt.loop.stage_implement import CheckWroteError, implement_stage
from kernelopt.loop.stage_plan import plan_stage
from kernelopt.loop.stage_profile import profile_stage
from kernelopt.loop.stage_record import VERSION_REF, record_stage
from kernelopt.loop.stage_stop import decide_stop, finish, stop_stage
from kernelopt.loop.summary import LoopSummary, build_summary
from kernelopt.memory.model import GateResult
from kernelopt.oneline import shell_word
from kernelopt.workspace import Workspace

__all__ = ["NEXT_STAGES", "VERSION_REF", "CheckWroteError", "OptimizeLoop", "StageOrderError"]

Pause = Callable[[IterationState | None], bool]
"""Asked before each stage (with the iteration in flight, ``None`` between iterations): stop here?"""

HANDLERS: dict[Stage, Callable[[LoopRun, IterationState], None]] = {
    Stage.BASELINE_GATE: baseline_gate_stage,
    Stage.BASELINE_PROFILE: profile_stage,
    Stage.PROFILE: profile_stage,
    Stage.PLAN: plan_stage,
    Stage.IMPLEMENT: implement_stage,
    Stage.GATE: gate_stage,
    Stage.RECORD: record_stage,
    Stage.STOP: stop_stage,
}
"""The code of each stage."""


class OptimizeLoop:
    """Runs ``kernelopt optimize`` on one workspace.

    Args:
        workspace: the workspace (see :func:`kernelopt.loop.opening.open_or_create`).
        collaborators: the stage implementations (real ones from :mod:`kernelopt.loop.wiring`).
        request: the user's flags.
    """

    def __init__(self, workspace: Workspace, collaborators: Collaborators, request: LoopRequest | None = None) -> None:
        self.context = LoopRun(workspace, collaborators, request or LoopRequest())
        self._truth_deferred = False

    @property
    def ws(self) -> Workspace:
        return self.context.ws

    def run(self, *, pause: Pause | None = None, prepare: Callable[[LoopRun], None] | None = None) -> LoopSummary:
        """Run until a stop condition holds; returns the summary.

        With ``pause``, the run also stops before a stage when ``pause(current iteration)`` (``None``
        between iterations) holds, and stays open (``RunState.paused``): the next ``run`` continues it
        there with no roll-back. The MCP server runs its stages so, one tool call each. ``prepare`` runs
        once the run is open (lock held, guard open), before the first stage: the caller's own step (the
        MCP server takes the agent's edits of Stage 3 there).

        Raises:
            UsageError: ``--resume`` with nothing to resume, another loop holds the workspace, or a
                stop-condition flag is invalid.
            WorkspaceError: kernel.py has uncommitted changes at the start of a new run.
            KerneloptError: a tooling stage met a broken environment (the run stays resumable).
            KeyboardInterrupt: Ctrl-C (the in-flight stage is rolled back; the run stays resumable).
        """
        run = self.context
        run.journal.acquire()
        try:
            self._start()
            try:
                if prepare is not None:
                    prepare(run)
                    run.save()
                changed = changed_truth(run.ws, new_run=False) if self._truth_deferred else None
                if changed is not None:
                    raise changed
                self._drive(pause)
            except BaseException:
                park(run)
                raise
            return self.summary()
        finally:
            run.journal.release()

    def _start(self) -> None:
        run = self.context
        settings, previous = resolve_settings(run.ws, run.request)
        changed = changed_truth(run.ws, new_run=previous is None)
        # A paused run's caller step (``prepare``) comes first: it undoes what the agent wrote outside its
        # allowance, the protected files included; the truth is checked after it (``run``).
        self._truth_deferred = previous is not None and previous.paused
        if changed is not None and not self._truth_deferred:
            raise changed
        run.t0 = run.clock()
        run.refresh_best()
        if previous is not None:
            run.state = previous
            run.state.settings = settings
            run.state.sessions += 1
            run.elapsed0 = previous.elapsed_s
            it = run.state.current
            where = f"V{it.version} at stage {it.stage.value}" if it else "between iterations"
            if run.state.paused:  # stopped between two stages on purpose: nothing to roll back
                run.state.paused = False
            else:
                run.emit(EventKind.NOTE, f"resuming the interrupted run ({where})")
                if it is not None:
                    prepare_resume(run, it)
        else:
            if not run.ws.is_clean(paths=["kernel.py"]):
                raise WorkspaceError(
                    f"{run.ws.kernel_py} has uncommitted changes",
                    hint=f"discard them (git -C {shell_word(run.ws.root)} checkout kernel.py), or start a workspace "
                    f"from them (kernelopt init NEW --kernel {shell_word(run.ws.kernel_py)} --reference "
                    f"{shell_word(run.ws.reference_py)}): a version is one change the loop gated",
                )
            run.state = RunState(settings=settings)
            run.elapsed0 = 0.0
        run.state.parked = False  # a process runs it now
        run.open_guard()
        run.save()

    def _drive(self, pause: Pause | None = None) -> None:
        run = self.context
        while run.state.status is RunStatus.RUNNING:
            it = run.state.current
            if pause is not None and pause(it):
                run.state.paused = True
                run.save()
                return
            if it is None:
                self._begin_next()
                continue
            stage, t0 = it.stage, run.clock()
            HANDLERS[stage](run, it)
            for change in run.guard.kept_aside:  # undone by the guard, kept first: said (a user's edit meanwhile)
                run.emit(
                    EventKind.WARNING,
                    f"V{it.version}: {change.path} changed during the {stage.value} stage, by no write that stage may "
                    f"make; it was put back, and what it held is kept in {change.kept}",
                )
            run.guard.kept_aside.clear()
            spent = run.clock() - t0
            run.state.stage_seconds[stage.value] = run.state.stage_seconds.get(stage.value, 0.0) + spent
            it.stage_seconds[stage.value] = it.stage_seconds.get(stage.value, 0.0) + spent
            run.save()

    def _begin_next(self) -> None:
        """Start V0 when there is no baseline commit; else check Stage 6 and start the next version."""
        run = self.context
        if baseline_commit(run.ws) is None:
            run.new_iteration(0, Stage.BASELINE_GATE, good=None)
            return
        decision = decide_stop(run, last_failed=False)
        if decision is not None:
            finish(run, decision)
            return
        run.new_iteration(run.ws.iteration_version(), Stage.PROFILE, good=run.last_good_version())

    def summary(self) -> LoopSummary:
        """The summary of the run as it stands (finished or interrupted)."""
        run = self.context
        records = run.records(include_masked=True)
        best = run.best_record()
        return build_summary(
            workspace=str(run.ws.root),
            state=run.state,
            records=records,
            best_roofline=run.roofline(best) if best is not None else None,
            git_log=[f"{h} {s}" for h, s in run.ws.log(max_count=200)],
            bounds={
                r.version: run.roofline(r)
                for r in records
                if r.quality_gate.result is GateResult.PASS and r.performance.latency_us is not None
            },
        )
