"""The stage machine of ``kernelopt optimize``: V0 baseline, then Stage 1..6 per version, resumable.

Stage order is a transition table (:data:`NEXT_STAGES`): every move goes through :meth:`_advance`,
which refuses a move the table does not hold, so no stage is skipped. V0 runs
``baseline_gate -> baseline_profile -> record -> stop``; V<N> runs
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

Every step writes the journal (:mod:`kernelopt.loop.journal`) before its side effects. After Ctrl-C the
in-flight stage is rolled back at once (``kernel.py`` back to the last good version); after ``kill -9``
the next run rolls it back before running it again under the same version number. The record stage is
idempotent: it inspects HEAD to see whether the commit and the amend happened.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kernelopt.errors import KerneloptError, RecordError, WorkspaceError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import write_summary
from kernelopt.fileio import atomic_write_text
from kernelopt.harness.gate import GateReport
from kernelopt.harness.model import CorrectnessReport
from kernelopt.harness.roofline import gpu_spec
from kernelopt.loop import candidate, commits, ending
from kernelopt.loop.baseline import BuiltinBaselineRenderer
from kernelopt.loop.journal import (
    Failure,
    GateNote,
    ImplementNote,
    IterationState,
    Journal,
    RunState,
    RunStatus,
    VersionOutcome,
)
from kernelopt.loop.opening import baseline_commit, changed_truth
from kernelopt.loop.protocols import Ceilings, Collaborators, EventKind, LoopEvent, Stage
from kernelopt.loop.record import finalize_record, stage3_record
from kernelopt.loop.settings import LoopRequest, resolve_settings
from kernelopt.loop.stop import RooflineBounds, StopDecision, StopReason, decide, roofline_bounds
from kernelopt.loop.summary import LoopSummary, build_summary
from kernelopt.memory.model import GateResult, IterationRecord, PitfallAndFix, best_version, version_label
from kernelopt.oneline import one_line
from kernelopt.planning.plan import Plan
from kernelopt.redact import redact
from kernelopt.stages import guard
from kernelopt.stages.allowance import aux_files_of, may_write
from kernelopt.stages.guard import GuardPoint, ProtectedContent, RunGuard, violation_pitfall
from kernelopt.stages.implement import NO_GAIN, run_implement, summary_of
from kernelopt.stages.plan import PlanVerdict, run_plan
from kernelopt.taskcard import StopConditions, TaskCard
from kernelopt.workspace import Workspace

NEXT_STAGES: dict[Stage, frozenset[Stage]] = {
    Stage.BASELINE_GATE: frozenset({Stage.BASELINE_PROFILE, Stage.STOP}),  # STOP: the baseline failed
    Stage.BASELINE_PROFILE: frozenset({Stage.RECORD, Stage.STOP}),  # STOP: Stage 1 broke its allowance
    Stage.PROFILE: frozenset({Stage.PLAN, Stage.RECORD}),
    Stage.PLAN: frozenset({Stage.IMPLEMENT, Stage.RECORD, Stage.STOP}),  # STOP: no new actionable plan
    Stage.IMPLEMENT: frozenset({Stage.GATE, Stage.RECORD}),
    Stage.GATE: frozenset({Stage.RECORD}),
    Stage.RECORD: frozenset({Stage.STOP}),
    Stage.STOP: frozenset(),
}
"""Allowed moves; RECORD after PROFILE/PLAN/IMPLEMENT is the failure path (revert marker)."""

VERSION_REF = "refs/kernelopt/v{n}"
"""Keeps the pre-amend commit named in each record's ``git_commit_hash`` reachable (git gc never drops it)."""


class StageOrderError(RuntimeError):
    """A move the transition table does not allow: a bug in the loop, never a user error."""


class CheckWroteError(KerneloptError):
    """The Stage 3 correctness check wrote into the workspace (reverted); the iteration fails."""


class OptimizeLoop:
    """Runs ``kernelopt optimize`` on one workspace.

    Args:
        workspace: the workspace (see :func:`kernelopt.loop.opening.open_or_create`).
        collaborators: the stage implementations (real ones from :mod:`kernelopt.loop.wiring`).
        request: the user's flags.
    """

    def __init__(self, workspace: Workspace, collaborators: Collaborators, request: LoopRequest | None = None) -> None:
        self.ws = workspace
        self.profiler = collaborators.profiler
        self.planner = collaborators.planner
        self.plan_reader = collaborators.plan_reader
        self.implementer = collaborators.implementer
        self.gate = collaborators.gate
        self.ceilings_source = collaborators.ceilings
        self.progress = collaborators.progress
        self.clock = collaborators.clock
        self.request = request or LoopRequest()
        self.journal = Journal(workspace.state_dir)
        self.renderer = collaborators.baseline_renderer or BuiltinBaselineRenderer()
        self.state = RunState()
        self.guard: RunGuard | None = None
        self._t0 = 0.0
        self._elapsed0 = 0.0
        self._best: tuple[float | None, float | None] = (None, None)
        self._card_cache: tuple[tuple[int, int] | None, TaskCard] | None = None
        self._ceilings_cache: dict[str | None, Ceilings | None] = {}
        self._handlers: dict[Stage, Callable[[IterationState], None]] = {
            Stage.BASELINE_GATE: self._stage_baseline_gate,
            Stage.BASELINE_PROFILE: self._stage_profile,
            Stage.PROFILE: self._stage_profile,
            Stage.PLAN: self._stage_plan,
            Stage.IMPLEMENT: self._stage_implement,
            Stage.GATE: self._stage_gate,
            Stage.RECORD: self._stage_record,
            Stage.STOP: self._stage_stop,
        }

    # == driver ==================================================================================

    def run(self) -> LoopSummary:
        """Run until a stop condition holds; returns the summary.

        Raises:
            UsageError: ``--resume`` with nothing to resume, another loop holds the workspace, or a
                stop-condition flag is invalid.
            WorkspaceError: kernel.py has uncommitted changes at the start of a new run.
            KerneloptError: a tooling stage met a broken environment (the run stays resumable).
            KeyboardInterrupt: Ctrl-C (the in-flight stage is rolled back; the run stays resumable).
        """
        self.journal.acquire()
        try:
            self._start()
            try:
                self._drive()
            except BaseException:
                self._park()
                raise
            return self.summary()
        finally:
            self.journal.release()

    def _start(self) -> None:
        settings, previous = resolve_settings(self.ws, self.request)
        changed = changed_truth(self.ws, new_run=previous is None)
        if changed is not None:
            raise changed
        self._t0 = self.clock()
        self._refresh_best()
        if previous is not None:
            self.state = previous
            self.state.settings = settings
            self.state.sessions += 1
            self._elapsed0 = previous.elapsed_s
            it = self.state.current
            where = f"V{it.version} at stage {it.stage.value}" if it else "between iterations"
            self._emit(EventKind.NOTE, f"resuming the interrupted run ({where})")
            if it is not None:
                self._prepare_resume(it)
        else:
            if not self.ws.is_clean(paths=["kernel.py"]):
                raise WorkspaceError(
                    f"{self.ws.kernel_py} has uncommitted changes",
                    hint="commit them (git commit kernel.py) or discard them (git checkout kernel.py) first",
                )
            self.state = RunState(settings=settings)
            self._elapsed0 = 0.0
        self._open_guard()
        self._save()

    def _open_guard(self) -> None:
        """The run's guard, with the protected files' content as the run's first session recorded it."""
        protected = ProtectedContent(self.ws, self.state.protected or None)
        self.state.protected = dict(protected.digests)
        self.guard = RunGuard(self.ws, protected)

    def _run_guard(self) -> RunGuard:
        if self.guard is None:
            self._open_guard()
        assert self.guard is not None
        return self.guard

    def _drive(self) -> None:
        while self.state.status is RunStatus.RUNNING:
            it = self.state.current
            if it is None:
                self._begin_next()
                continue
            stage, t0 = it.stage, self.clock()
            self._handlers[stage](it)
            spent = self.clock() - t0
            self.state.stage_seconds[stage.value] = self.state.stage_seconds.get(stage.value, 0.0) + spent
            self._save()

    def _accept_card_edit(self) -> None:
        """A task-card edit made between iterations is the user's: accept it and record its content again."""
        if self._run_guard().protected.accept("README.md"):
            self.state.protected = dict(self._run_guard().protected.digests)
            self._card_cache = None
            self._emit(EventKind.NOTE, "README.md (the task card) was edited: accepted for the next iterations")

    def _begin_next(self) -> None:
        """Start V0 when there is no baseline commit; else check Stage 6 and start the next version."""
        if baseline_commit(self.ws) is None:
            self._new_iteration(0, Stage.BASELINE_GATE, good=None)
            return
        decision = self._decide(last_failed=False)
        if decision is not None:
            self._finish(decision)
            return
        self._new_iteration(self.ws.next_version(), Stage.PROFILE, good=self._last_good_version())

    def _new_iteration(self, version: int, stage: Stage, *, good: int | None) -> None:
        self._accept_card_edit()
        self.state.current = IterationState(
            version=version,
            stage=stage,
            base_commit=self.ws.head(),
            good_version=good,
            snapshot=guard.snapshot(self.ws.root),
        )
        self._save()

    # == bookkeeping ================================================================================

    def _elapsed(self) -> float:
        return self._elapsed0 + (self.clock() - self._t0)

    def _save(self) -> None:
        self.state.elapsed_s = self._elapsed()
        self.journal.save(self.state)

    def _best_record(self) -> IterationRecord | None:
        """The fastest unmasked passing version of the workspace (:func:`best_version`)."""
        return best_version(self._records())

    def _refresh_best(self) -> None:
        best = self._best_record()
        if best is None:
            self._best = (None, None)
        else:
            self._best = (best.performance.latency_us, self._roofline(best).stop_figure()[0])

    def _emit(self, kind: EventKind, message: str, *, stage: Stage | None = None) -> None:
        it = self.state.current
        best_lat, best_pct = self._best
        self.progress.event(
            LoopEvent(
                kind=kind,
                version=it.version if it else None,
                stage=stage or (it.stage if it else None),
                message=message,
                elapsed_s=self._elapsed(),
                best_latency_us=best_lat,
                best_roofline_pct=best_pct,
            )
        )

    def _enter(self, it: IterationState) -> None:
        """Stage entry: the workspace snapshot is in the journal before anything runs (taken by the
        transition that led here, or now after a resume)."""
        if not it.snapshot:
            it.snapshot = guard.snapshot(self.ws.root)
            self._save()
        self._emit(EventKind.STAGE_START, f"V{it.version}: {it.stage.value}")

    def _advance(self, it: IterationState, to: Stage) -> None:
        if to not in NEXT_STAGES[it.stage]:
            raise StageOrderError(f"V{it.version}: {it.stage.value} -> {to.value} is not a stage transition")
        self._emit(EventKind.STAGE_END, f"V{it.version}: {it.stage.value} done", stage=it.stage)
        it.stage = to
        # One journal write holds the move and the snapshot the next stage is rolled back to.
        it.snapshot = guard.snapshot(self.ws.root) if to not in (Stage.RECORD, Stage.STOP) else {}
        self._save()

    def _fail(self, it: IterationState, reason: str, *, error_type: str, result: GateResult = GateResult.FAIL) -> None:
        """The iteration failed in the current stage: go to the record stage (revert marker)."""
        it.failure = Failure(result=result, stage=it.stage, reason=one_line(reason, 500), error_type=error_type)
        self._emit(EventKind.WARNING, f"V{it.version} {result.value} at {it.stage.value}: {it.failure.reason}")
        self._advance(it, Stage.STOP if it.version == 0 else Stage.RECORD)

    def _guarded(self, it: IterationState, before: dict[str, str], allowed: list[str], who: str) -> list[str]:
        """Undo what a tooling stage did outside ``allowed`` since ``before``; record it; return it."""
        point = GuardPoint(snapshot=before, git=None, kept={})
        violations = self._run_guard().check(point, allowed, secrets=False)
        self._record_violations(it, violations, allowed, who)
        return violations

    def _record_violations(self, it: IterationState, violations: list[str], allowed: list[str], who: str) -> None:
        if violations:
            it.pitfalls.append(violation_pitfall(violations, stage=it.stage, who=who, allowed_patterns=allowed))
            self._save()

    def _note_tokens(self, it: IterationState, who: str, tokens: dict[str, int]) -> None:
        if tokens:
            it.notes.append(f"tokens ({who}): " + ", ".join(f"{k}={v}" for k, v in sorted(tokens.items())))

    # == reading workspace state =====================================================================

    def _summary_of(self, version: int) -> ProfileSummary | None:
        return summary_of(self.ws, version)

    def _plan_of(self, version: int) -> Plan | None:
        path = self.ws.plan_path(version)
        if not path.is_file():
            return None
        try:
            return self.plan_reader.parse(path.read_text(encoding="utf-8"))
        except (KerneloptError, UnicodeDecodeError):
            return None

    def _records(self, *, include_masked: bool = False) -> list[IterationRecord]:
        return list(self.ws.memory.records(include_masked=include_masked))

    def _last_good_version(self) -> int | None:
        """The newest version that passed the gate (its kernel.py is HEAD's); masked ones count too."""
        good = [r.number for r in self._records(include_masked=True) if r.quality_gate.result is GateResult.PASS]
        return max(good) if good else None

    def _card(self) -> TaskCard:
        """README.md's task card, re-read when the file changes (users may edit it between iterations)."""
        try:
            st = self.ws.readme.stat()
            key: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if self._card_cache is None or self._card_cache[0] != key:
            self._card_cache = (key, self.ws.task_card())
        return self._card_cache[1]

    def _conditions(self) -> StopConditions:
        card = self._card()
        return StopConditions.model_validate(
            {**card.stop_conditions.model_dump(), **self.state.settings.stop_overrides}
        )

    def _ceilings(self, gpu_name: str | None) -> Ceilings | None:
        """Measured ceilings by GPU name, asked once per run (the lookup may query the driver)."""
        if gpu_name not in self._ceilings_cache:
            self._ceilings_cache[gpu_name] = self.ceilings_source.ceilings(gpu_name)
        return self._ceilings_cache[gpu_name]

    def _roofline(self, record: IterationRecord) -> RooflineBounds:
        """Both bounds of a measured version, as the gate stored them (``performance.roofline``); for a
        record without them (written by an older gate), computed the gate's way: the spec sheet of the
        measured device (else the task card's GPU) and the ceilings cached under that device's name."""
        if record.performance.roofline is not None:
            return record.performance.roofline
        if self.state.settings.device == "cpu":
            note = "timed on the CPU (--device cpu): no GPU roofline applies"
            return RooflineBounds(measured_note=note, spec_note=note)
        card = self._card()
        spec, missing = gpu_spec(record.performance.gpu, card.gpu)
        return roofline_bounds(
            record.performance,
            spec=spec,
            spec_missing=missing,
            dtype=card.dtype,
            ceilings=self._ceilings(record.performance.gpu or card.gpu),
        )

    # == resume ====================================================================================

    def _prepare_resume(self, it: IterationState) -> None:
        """Make the interrupted stage safe to run again (after Ctrl-C, a crash or kill -9)."""
        self._keep_user_edits(it)
        if self._run_guard().protected.accept("README.md"):
            # the user edited the task card while the run was stopped: theirs, not the stage's
            if it.snapshot:
                it.snapshot["README.md"] = guard.snapshot(self.ws.root).get("README.md", "")
            self.state.protected = dict(self._run_guard().protected.digests)
            self._card_cache = None
            self._emit(EventKind.NOTE, "README.md (the task card) was edited: accepted for the next iterations")
        if it.stage in (Stage.RECORD, Stage.STOP):
            return  # idempotent: the record stage reads git to see what is done
        undone = candidate.rollback(self.ws, it)
        if undone:
            self._emit(EventKind.NOTE, f"rolled back the interrupted {it.stage.value} stage: {', '.join(undone)}")
        if self.ws.head() != it.base_commit:
            self._emit(
                EventKind.WARNING,
                f"HEAD moved since V{it.version} started ({it.base_commit[:12]} -> {self.ws.head()[:12]}); "
                "abandoning that iteration",
            )
            record = self.ws.memory.path(it.version)
            if record.is_file() and record.relative_to(self.ws.root).as_posix() not in self.ws.repo.git.ls_files():
                record.unlink()  # an uncommitted record of the abandoned iteration is not history
            self.state.current = None
            return
        if it.stage is Stage.GATE and not candidate.restore(self.ws, self.journal.candidate_dir(it.version), it):
            self._emit(EventKind.WARNING, f"V{it.version}: the implemented kernel was lost; implementing again")
            candidate.restore_good_kernel(self.ws, it)
            it.stage = Stage.IMPLEMENT
        elif it.stage is Stage.IMPLEMENT:
            candidate.restore_good_kernel(self.ws, it)
        it.snapshot = {}

    def _keep_user_edits(self, it: IterationState) -> None:
        """Before a resume restores kernel.py, save edits the loop did not make (never lose someone's work).

        kernel.py is the loop's own when it equals HEAD or the kept Stage 3 candidate; anything else was
        written after the interruption (or by a crashed implementer) and is copied to
        ``.kernelopt/backups/`` with a warning before the resume touches it.
        """
        if self.ws.is_clean(paths=["kernel.py"]) or not self.ws.kernel_py.is_file():
            return
        digest = candidate.sha256(self.ws.kernel_py)
        if digest in set(it.candidate.values()):
            return
        backups = self.ws.state_dir / "backups"
        backups.mkdir(parents=True, exist_ok=True)
        target = backups / f"kernel.py.v{it.version}.{int(self.clock() * 1000)}"
        shutil.copyfile(self.ws.kernel_py, target)
        self._emit(
            EventKind.WARNING,
            f"kernel.py had changes the loop did not make; saved them to {target} before resuming",
        )

    def _park(self) -> None:
        """On Ctrl-C or an error: roll back the in-flight stage and leave kernel.py at the last good version."""
        it = self.state.current
        if it is not None and it.stage not in (Stage.RECORD, Stage.STOP):
            candidate.rollback(self.ws, it)
            if it.stage is Stage.GATE:
                # The gate may have half-written the (untracked) record: put back the Stage 3 record,
                # which the resumed gate rewrites anyway.
                plan = self._plan_of(it.version)
                if plan is not None:
                    self._write_stage3_record(it, plan)
            if it.stage in (Stage.IMPLEMENT, Stage.GATE):
                candidate.restore_good_kernel(self.ws, it)
            self._mask_in_flight_record(it)
            it.snapshot = {}
        elif it is not None and it.stage is Stage.RECORD and it.version > 0 and not self._committed(it):
            candidate.restore_good_kernel(self.ws, it)  # the candidate waits in .kernelopt/candidates/ for the resume
        self._save()

    def _mask_in_flight_record(self, it: IterationState) -> None:
        """Mask the uncommitted record of an interrupted iteration: it is not history until the iteration
        is resumed and recorded (readers of unmasked memory, planners included, must not take it as data)."""
        path = self.ws.memory.path(it.version)
        if not path.is_file() or path.relative_to(self.ws.root).as_posix() in self.ws.repo.git.ls_files():
            return
        try:
            self.ws.memory.set_masked(it.version, True)
        except RecordError:
            path.unlink(missing_ok=True)  # unreadable and uncommitted: nothing worth keeping

    # == V0 =======================================================================================

    def _keep_gate_record(self, version: int, report: GateReport) -> None:
        """The record the gate returns is the one it wrote; write it when the file lacks its figures."""
        record = report.record
        if record.number != version:
            return
        try:
            on_disk = self.ws.memory.read(version) if self.ws.memory.exists(version) else None
        except RecordError:
            on_disk = None
        if on_disk is None or (on_disk.performance.latency_us is None and record.performance.latency_us is not None):
            self.ws.memory.write(record)

    def _gate_note(self, report: GateReport) -> GateNote:
        return GateNote(
            result=report.result,
            failure_reason=report.failure_reason,
            latency_us=report.latency_us,
            roofline_utilization_pct=report.roofline_utilization_pct,
            speedup_vs_previous=report.speedup_vs_previous,
            reference_latency_us=report.reference_latency_us,
        )

    def _stage_baseline_gate(self, it: IterationState) -> None:
        self._enter(it)
        report = self.gate.validate(self.ws, 0, previous=None, plan=None)
        violations = self._guarded(it, it.snapshot, may_write(it.stage, 0), "gate")
        self._keep_gate_record(0, report)
        it.gate = self._gate_note(report)
        self.state.reference_latency_us = it.gate.reference_latency_us
        if violations:
            self._fail(
                it, f"the gate wrote outside its allowance: {', '.join(violations)}", error_type="write_violation"
            )
        elif it.gate.result is not GateResult.PASS:
            self._fail(
                it,
                f"the baseline kernel does not pass the gate: {it.gate.failure_reason or it.gate.result.value}",
                error_type="baseline_failed",
                result=it.gate.result,
            )
        else:
            self._advance(it, Stage.BASELINE_PROFILE)

    # == Stage 1 =====================================================================================

    def _stage_profile(self, it: IterationState) -> None:
        self._enter(it)
        summary = self.profiler.profile(self.ws, it.version)
        if self.state.settings.device != "cpu":  # on the CPU no profiler runs: Stage 1 reads the gate's timing
            self.state.profiles_taken += 1
        violations = self._guarded(it, it.snapshot, may_write(it.stage, it.version), "profiler")
        if violations:
            self._fail(
                it,
                f"Stage 1 wrote outside profiles/v{it.version}/: {', '.join(violations)}",
                error_type="write_violation",
            )
            return
        folder = self.ws.profile_dir(it.version)
        if not (folder / "summary.json").is_file():
            write_summary(folder, summary)
        if not summary.counters_available:
            self.state.timing_only = True
            note = f"timing-only evidence: counters unavailable ({summary.counters_unavailable_reason or 'unknown'})"
            if note not in it.notes:
                it.notes.append(note)
            self._emit(EventKind.WARNING, f"V{it.version}: {note}")
        self._advance(it, Stage.RECORD if it.stage is Stage.BASELINE_PROFILE else Stage.PLAN)

    # == Stage 2 =====================================================================================

    def _stage_plan(self, it: IterationState) -> None:
        self._enter(it)
        n = it.version
        result = run_plan(
            self.ws,
            n,
            self.planner,
            guard=self._run_guard(),
            reader=self.plan_reader,
            summary=self._summary_of(n),
            history=self._records(),
        )
        it.pitfalls += result.pitfalls
        self._note_tokens(it, "plan", result.tokens)
        for note in result.notes:
            self._emit(EventKind.WARNING, note)
        if result.verdict is PlanVerdict.NO_PLAN:
            it.no_plan_reason = result.reason
            self._advance(it, Stage.STOP)
            return
        if result.verdict is PlanVerdict.FAILED or result.plan is None:
            self._fail(it, result.reason or "the planner failed", error_type=result.error_type or "planner_error")
            return
        plan = result.plan
        it.aux_files = aux_files_of(plan)
        self._emit(EventKind.NOTE, f"V{n} plan: {plan.action_category.value}: {one_line(plan.action, 100)}")
        self._advance(it, Stage.IMPLEMENT)

    # == Stage 3 =====================================================================================

    def _stage_implement(self, it: IterationState) -> None:
        self._enter(it)
        n = it.version
        plan = self._plan_of(n)
        if plan is None:
            self._fail(it, f"{self.ws.plan_path(n).name} is missing or unreadable", error_type="invalid_plan")
            return

        def failed_attempt(pitfall: PitfallAndFix, message: str, last: bool) -> None:
            it.pitfalls.append(pitfall)
            self._save()
            self._emit(EventKind.WARNING, f"V{n}: {message}" + ("" if last else "; repairing"))

        try:
            result = run_implement(
                self.ws,
                n,
                plan,
                self.implementer,
                guard=self._run_guard(),
                check=self._checked_correctness(it),
                summary=self._summary_of(n),
                history=self._records(),
                repair_attempts=self.state.settings.repair_attempts,
                on_failed_attempt=failed_attempt,
            )
        except CheckWroteError as exc:
            self._fail(it, exc.message, error_type="write_violation")
            return
        for who, tokens in result.tokens:
            self._note_tokens(it, who, tokens)
        if not result.ok:
            if result.outcome is not None and result.outcome.candidates:
                # a measured search: its results are the record's, even when nothing won
                it.implement = ImplementNote(
                    description=result.outcome.error or result.reason or "",
                    candidates=list(result.outcome.candidates),
                )
            self._fail(
                it,
                result.reason or "the implementer failed",
                error_type=result.error_type or "implementer_error",
                result=result.result or GateResult.FAIL,
            )
            return
        outcome = result.outcome
        it.implement = ImplementNote(
            description=outcome.description if outcome else "",
            knob_changes={
                k: [_plain(v) for v in pair] for k, pair in (outcome.knob_changes if outcome else {}).items()
            },
            knob_overrides=dict(outcome.knob_overrides) if outcome else {},
            attempts=result.attempts,
            rel_err=result.rel_err,
            candidates=list(outcome.candidates) if outcome else [],
        )
        candidate.keep(self.ws, self.journal.candidate_dir(it.version), it)
        self._write_stage3_record(it, plan)
        self._advance(it, Stage.GATE)

    def _checked_correctness(self, it: IterationState) -> Callable[[Workspace], CorrectnessReport]:
        """The gate's correctness check, itself guarded: it may write nothing in the workspace."""

        def check(ws: Workspace) -> CorrectnessReport:
            before = guard.snapshot(ws.root)
            report = self.gate.check_correctness(ws)
            violations = self._guarded(it, before, [], "correctness check")
            if violations:
                raise CheckWroteError(f"the correctness check wrote into the workspace: {', '.join(violations)}")
            return report

        return check

    def _write_stage3_record(self, it: IterationState, plan: Plan) -> None:
        self.ws.memory.write(stage3_record(it, plan))

    # == Stage 4 =====================================================================================

    def _stage_gate(self, it: IterationState) -> None:
        plan = self._plan_of(it.version)
        if plan is None:
            self._enter(it)
            self._fail(it, f"{self.ws.plan_path(it.version).name} is missing or unreadable", error_type="invalid_plan")
            return
        # Rewritten at every entry, so that a gate interrupted half-way never leaves its partial record.
        self._write_stage3_record(it, plan)
        it.snapshot = {}
        self._enter(it)
        previous = ending.gate_previous(self._records(), it.version, it.good_version)  # the best so far
        report = self.gate.validate(self.ws, it.version, previous=previous, plan=plan)
        violations = self._guarded(it, it.snapshot, may_write(Stage.GATE, it.version), "gate")
        self._keep_gate_record(it.version, report)
        it.gate = self._gate_note(report)
        if violations:
            self._fail(
                it,
                f"the gate wrote outside memory/v{it.version}.json: {', '.join(violations)}",
                error_type="write_violation",
            )
        elif it.gate.result is GateResult.PASS:
            self._advance(it, Stage.RECORD)
        else:
            self._fail(
                it,
                it.gate.failure_reason or f"quality gate {it.gate.result.value}",
                error_type="quality_gate",
                result=it.gate.result,
            )

    # == Stage 5 =====================================================================================

    def _finalize(self, it: IterationState, *, result: GateResult, failure_reason: str | None) -> IterationRecord:
        """The record as the gate wrote it (or a fresh one), completed by :func:`finalize_record`."""
        n = it.version
        try:
            record = self.ws.memory.read(n) if self.ws.memory.exists(n) else IterationRecord(version=version_label(n))
        except RecordError:
            record = IterationRecord(version=version_label(n))
        lines = (
            self._roofline(record).lines()
            if result is GateResult.PASS and record.performance.latency_us is not None
            else []
        )
        return finalize_record(
            record,
            it=it,
            plan=self._plan_of(n),
            summary=self._summary_of(n),
            result=result,
            failure_reason=failure_reason,
            roofline_lines=lines,
        )

    def _committed(self, it: IterationState) -> bool:
        if it.commit_message is None or self.ws.head() == it.base_commit:
            return False
        subject = self.ws.log(max_count=1)[0][1]
        return subject == it.commit_message.splitlines()[0]

    def _commit(self, it: IterationState, paths: list[str], message: str) -> str:
        """Commit, write the commit's hash into the record, amend (resumable at every step)."""
        n = it.version
        message = redact(message)  # as the commit message file holds it (kernelopt.fileio)
        fresh = not self._committed(it)
        if fresh:
            it.commit_message = message
            self._save()
            self.ws.commit(list[str | Path](paths), message)
        rel = f"memory/v{n}.json"
        in_head = IterationRecord.model_validate_json(self.ws.file_at("HEAD", rel))
        if in_head.git_commit_hash is None:
            first = self.ws.head()
            record = self.ws.memory.read(n)
            record.git_commit_hash = first
            self.ws.memory.write(record)
            self.ws.repo.git.update_ref(VERSION_REF.format(n=n), first)
            self.ws.amend([rel])
        if fresh:  # the hash that git log shows (after the amend)
            self._emit(EventKind.COMMITTED, f"V{n}: committed {self.ws.head()[:12]}")
        return self.ws.head()

    def _stage_record(self, it: IterationState) -> None:
        self._emit(EventKind.STAGE_START, f"V{it.version}: record")
        self._save()
        n = it.version
        summary = self._summary_of(n)
        if it.failure is not None:
            result, reason = it.failure.result, it.failure.reason
            if not self._committed(it):
                candidate.restore_good_kernel(self.ws, it)
                self.ws.memory.write(self._finalize(it, result=result, failure_reason=reason))
            paths = [f"memory/v{n}.json"] + ([f"plans/v{n}_plan.md"] if self.ws.plan_path(n).is_file() else [])
            paths += ending.profile_paths(self.ws, n)
            commit = self._commit(it, paths, it.commit_message or commits.revert_message(n, reason))
        elif n == 0:
            result, reason = GateResult.PASS, None
            if not self._committed(it):
                record = self._finalize(it, result=result, failure_reason=None)
                self.ws.memory.write(record)
                text = self.renderer.render(
                    workspace=self.ws, record=record, summary=summary, roofline_lines=self._roofline(record).lines()
                )
                atomic_write_text(self.ws.baseline_report, text)
                it.commit_message = commits.baseline_message(record.performance, commits.bottleneck_evidence(summary))
            paths = [f"memory/v{n}.json", "baseline_report.md", *ending.profile_paths(self.ws, n)]
            commit = self._commit(it, paths, it.commit_message or "V0: baseline")
        else:
            result, reason = GateResult.PASS, None
            plan = self._plan_of(n)
            if not self._committed(it):
                if not candidate.restore(self.ws, self.journal.candidate_dir(it.version), it) and it.candidate:
                    raise WorkspaceError(f"V{n}: the implemented kernel.py was lost before its commit")
                record = self._finalize(it, result=result, failure_reason=None)
                self.ws.memory.write(record)
                knobs = it.implement.knob_changes if it.implement else {}
                if plan is not None:
                    what = commits.change_summary(plan.action_category.value, plan.parameters, knobs, plan.action)
                else:
                    what = it.implement.description if it.implement else "change"
                it.commit_message = commits.pass_message(
                    n,
                    record.performance,
                    what,
                    commits.bottleneck_evidence(summary, plan.action_category if plan is not None else None),
                )
            paths = [
                "kernel.py",
                *sorted(set(it.candidate) - {"kernel.py"}),
                f"memory/v{n}.json",
                f"plans/v{n}_plan.md",
                *ending.profile_paths(self.ws, n),
            ]
            commit = self._commit(it, paths, it.commit_message or f"V{n}")
        final = self.ws.memory.read(n)
        roof = self._roofline(final) if result is GateResult.PASS else None
        self.state.outcomes = [o for o in self.state.outcomes if o.version != n]
        self.state.outcomes.append(
            VersionOutcome(
                version=n,
                result=result,
                latency_us=final.performance.latency_us,
                tflops=final.performance.tflops,
                bandwidth_gbps=final.performance.bandwidth_gbps,
                roofline=roof,
                action=final.optimization.action_description,
                failure_reason=reason,
                commit=commit,
                timing_only=summary is not None and not summary.counters_available,
            )
        )
        if n > 0:
            self.state.iterations_done += 1
            if result is GateResult.PASS:
                self.state.consecutive_failures = 0
            else:
                # a search that found the current configuration fastest is a measurement, not a failure
                # streak: the planner turns it into a waiting category (and convergence)
                if it.failure is None or it.failure.error_type != NO_GAIN:
                    self.state.consecutive_failures += 1
                self.state.failures += 1
        shutil.rmtree(self.journal.candidate_dir(n), ignore_errors=True)
        self._refresh_best()
        lat = final.performance.latency_us
        self._emit(
            EventKind.ITERATION_END,
            f"V{n} {result.value}"
            + (f": {lat:.4g} us" if lat is not None and result is GateResult.PASS else "")
            + (f" ({reason})" if reason else ""),
        )
        self._advance(it, Stage.STOP)

    # == Stage 6 =====================================================================================

    def _decide(self, *, last_failed: bool, converged_session: str | None = None) -> StopDecision | None:
        good_n = self._last_good_version()
        good = self.ws.memory.read(good_n) if good_n is not None else None
        v0 = self.ws.memory.read(0) if self.ws.memory.exists(0) else None
        return decide(
            conditions=self._conditions(),
            current=good.performance if good else None,
            roofline=self._roofline(good) if good else None,
            baseline_latency_us=v0.performance.latency_us if v0 else None,
            iterations_done=self.state.iterations_done,
            consecutive_failures=self.state.consecutive_failures,
            last_failed=last_failed,
            stop_on_failure=self.state.settings.stop_on_failure,
            elapsed_s=self._elapsed(),
            converged_session=converged_session,
        )

    def _stage_stop(self, it: IterationState) -> None:
        self._emit(EventKind.STAGE_START, f"V{it.version}: stop check")
        if it.version == 0 and it.failure is not None:
            self._keep_failed_baseline(it.failure.reason)
            self._finish(StopDecision(reason=StopReason.BASELINE_FAILED, detail=it.failure.reason))
            return
        if it.no_plan_reason is not None:
            self._finish(StopDecision(reason=StopReason.NO_NEW_PLAN, detail=it.no_plan_reason))
            return
        no_gain = it.failure is not None and it.failure.error_type == NO_GAIN
        decision = self._decide(
            last_failed=it.failure is not None, converged_session=it.failure.reason if it.failure and no_gain else None
        )
        if decision is not None:
            self._finish(decision)
            return
        self._emit(EventKind.STAGE_END, f"V{it.version}: continue", stage=Stage.STOP)
        self._new_iteration(self.ws.next_version(), Stage.PROFILE, good=self._last_good_version())

    def _keep_failed_baseline(self, reason: str) -> None:
        """Commit the gate's record of a baseline that failed, so the workspace is left clean and the
        evidence in its history (idempotent: nothing to commit after a resume). Its subject is not a
        ``V0:`` one: the next run gates the baseline again, and that commit is V0."""
        rel = "memory/v0.json"
        if self.ws.memory.exists(0) and self.ws.repo.git.status("--porcelain", "--", rel).strip():
            self.ws.commit([rel], f"baseline check failed: {one_line(reason, 160)}")

    def _finish(self, decision: StopDecision) -> None:
        ended = ending.end_on_best(self.ws, self._records())
        if ended is not None:
            self._emit(EventKind.COMMITTED, f"{self.ws.log(max_count=1)[0][1]} ({ended[:12]})")
        self.state.stop = decision
        self.state.status = RunStatus.FINISHED
        self.state.current = None
        self._save()
        self._emit(EventKind.STOPPED, f"stopped: {decision.line()}")

    # == summary ===================================================================================

    def summary(self) -> LoopSummary:
        """The summary of the run as it stands (finished or interrupted)."""
        records = self._records(include_masked=True)
        best = self._best_record()
        return build_summary(
            workspace=str(self.ws.root),
            state=self.state,
            records=records,
            best_roofline=self._roofline(best) if best is not None else None,
            git_log=[f"{h} {s}" for h, s in self.ws.log(max_count=200)],
            bounds={
                r.version: self._roofline(r)
                for r in records
                if r.quality_gate.result is GateResult.PASS and r.performance.latency_us is not None
            },
        )


def _plain(value: Any) -> str | int | float | None:
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)
