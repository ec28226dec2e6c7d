"""One run of the loop as every stage sees it: the workspace, the collaborators, the journal, the guard.

:class:`LoopRun` holds what the stage modules share (:mod:`.stage_profile` .. :mod:`.stage_stop`,
:mod:`.resume`): the run state and its journal writes, progress events, the stage moves of the
transition table (:data:`NEXT_STAGES`), the guard around tooling stages, and the workspace state the
stages read (records, plans, Stage 1 summaries, the task card, roofline bounds).
"""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.harness.roofline import gpu_spec
from kernelopt.loop.baseline import BuiltinBaselineRenderer
from kernelopt.loop.journal import Failure, IterationState, Journal, RunState
from kernelopt.loop.protocols import Ceilings, Collaborators, EventKind, LoopEvent, Stage
from kernelopt.loop.settings import LoopRequest
from kernelopt.loop.stop import RooflineBounds, roofline_bounds
from kernelopt.memory.model import GateResult, IterationRecord, best_version
from kernelopt.oneline import one_line
from kernelopt.planning.plan import Plan
from kernelopt.stages.guard import GuardPoint, ProtectedContent, RunGuard, violation_pitfall
from kernelopt.stages.implement import summary_of
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


class StageOrderError(RuntimeError):
    """A move the transition table does not allow: a bug in the loop, never a user error."""


class LoopRun:
    """The shared state of one ``kernelopt optimize`` run.

    Args:
        workspace: the workspace.
        collaborators: the stage implementations.
        request: the user's flags.
    """

    def __init__(self, workspace: Workspace, collaborators: Collaborators, request: LoopRequest) -> None:
        self.ws = workspace
        self.profiler = collaborators.profiler
        self.planner = collaborators.planner
        self.plan_reader = collaborators.plan_reader
        self.implementer = collaborators.implementer
        self.gate = collaborators.gate
        self.ceilings_source = collaborators.ceilings
        self.progress = collaborators.progress
        self.clock = collaborators.clock
        self.request = request
        self.journal = Journal(workspace.state_dir)
        self.renderer = collaborators.baseline_renderer or BuiltinBaselineRenderer()
        self.state = RunState()
        self._guard: RunGuard | None = None
        self.t0 = 0.0
        self.elapsed0 = 0.0
        self._best: tuple[float | None, float | None] = (None, None)
        self._card_cache: tuple[tuple[int, int] | None, TaskCard] | None = None
        self._ceilings_cache: dict[str | None, Ceilings | None] = {}

    # == the journal and the events =================================================================

    def elapsed(self) -> float:
        return self.elapsed0 + (self.clock() - self.t0)

    def save(self) -> None:
        self.state.elapsed_s = self.elapsed()
        self.journal.save(self.state)

    def emit(self, kind: EventKind, message: str, *, stage: Stage | None = None) -> None:
        it = self.state.current
        best_lat, best_pct = self._best
        self.progress.event(
            LoopEvent(
                kind=kind,
                version=it.version if it else None,
                stage=stage or (it.stage if it else None),
                message=message,
                elapsed_s=self.elapsed(),
                best_latency_us=best_lat,
                best_roofline_pct=best_pct,
            )
        )

    def refresh_best(self) -> None:
        """The best version's latency and roofline % for the progress events."""
        best = self.best_record()
        if best is None:
            self._best = (None, None)
        else:
            self._best = (best.performance.latency_us, self.roofline(best).stop_figure()[0])

    def note_tokens(self, it: IterationState, who: str, tokens: dict[str, int]) -> None:
        if tokens:
            it.notes.append(f"tokens ({who}): " + ", ".join(f"{k}={v}" for k, v in sorted(tokens.items())))

    # == stage moves ================================================================================

    def new_iteration(self, version: int, stage: Stage, *, good: int | None) -> None:
        self.accept_card_edit()
        self.state.current = IterationState(version=version, stage=stage, base_commit=self.ws.head(), good_version=good)
        self.state.current.take_snapshot(self.ws.root)
        self.save()

    def enter(self, it: IterationState) -> None:
        """Stage entry: the workspace snapshot is in the journal before anything runs (taken by the
        transition that led here, or now after a resume)."""
        if not it.snapshot:
            it.take_snapshot(self.ws.root)
            self.save()
        self.emit(EventKind.STAGE_START, f"V{it.version}: {it.stage.value}")

    def advance(self, it: IterationState, to: Stage) -> None:
        if to not in NEXT_STAGES[it.stage]:
            raise StageOrderError(f"V{it.version}: {it.stage.value} -> {to.value} is not a stage transition")
        self.emit(EventKind.STAGE_END, f"V{it.version}: {it.stage.value} done", stage=it.stage)
        it.stage = to
        # One journal write holds the move and the snapshot the next stage is rolled back to.
        it.take_snapshot(self.ws.root if to not in (Stage.RECORD, Stage.STOP) else None)
        self.save()

    def fail(self, it: IterationState, reason: str, *, error_type: str, result: GateResult = GateResult.FAIL) -> None:
        """The iteration failed in the current stage: go to the record stage (revert marker)."""
        it.failure = Failure(result=result, stage=it.stage, reason=one_line(reason, 500), error_type=error_type)
        self.emit(EventKind.WARNING, f"V{it.version} {it.failure.said} at {it.stage.value}: {it.failure.reason}")
        self.advance(it, Stage.STOP if it.version == 0 else Stage.RECORD)

    # == the guard ==================================================================================

    def open_guard(self) -> None:
        """The run's guard, with the protected files' content as the run's first session recorded it."""
        protected = ProtectedContent(self.ws, self.state.protected or None)
        self.state.protected = dict(protected.digests)
        self._guard = RunGuard(self.ws, protected)

    @property
    def guard(self) -> RunGuard:
        if self._guard is None:
            self.open_guard()
        assert self._guard is not None
        return self._guard

    def accept_card_edit(self) -> bool:
        """A task-card edit made between iterations is the user's: accept it and record its content again."""
        if not self.guard.protected.accept("README.md"):
            return False
        self.state.protected = dict(self.guard.protected.digests)
        self._card_cache = None
        self.emit(EventKind.NOTE, "README.md (the task card) was edited: accepted for the next iterations")
        return True

    def guarded(self, it: IterationState, before: dict[str, str], allowed: list[str], who: str) -> list[str]:
        """Undo what a tooling stage did outside ``allowed`` since ``before``; record it; return it. Since the stage's
        own snapshot, the user's links as it began are theirs (read through), not links the stage made."""
        links = {rel: link.target for rel, link in it.links.items()} if before is it.snapshot else {}
        point = GuardPoint(snapshot=before, git=None, kept={}, links=links)
        violations = self.guard.check(point, allowed, secrets=False)
        if violations:
            it.pitfalls.append(violation_pitfall(violations, stage=it.stage, who=who, allowed_patterns=allowed))
            self.save()
        return violations

    # == reading workspace state ====================================================================

    def summary_of(self, version: int) -> ProfileSummary | None:
        return summary_of(self.ws, version)

    def plan_of(self, version: int) -> Plan | None:
        path = self.ws.plan_path(version)
        if not path.is_file():
            return None
        try:
            return self.plan_reader.parse(path.read_text(encoding="utf-8"))
        except (KerneloptError, UnicodeDecodeError):
            return None

    def records(self, *, include_masked: bool = False) -> list[IterationRecord]:
        return list(self.ws.memory.records(include_masked=include_masked))

    def best_record(self) -> IterationRecord | None:
        """The fastest unmasked passing version of the workspace (:func:`best_version`)."""
        return best_version(self.records())

    def last_good_version(self) -> int | None:
        """The newest version that passed the gate (its kernel.py is HEAD's); masked ones count too."""
        good = [r.number for r in self.records(include_masked=True) if r.quality_gate.result is GateResult.PASS]
        return max(good) if good else None

    def committed(self, it: IterationState) -> bool:
        """Whether the iteration's commit is HEAD (the record stage's commit happened)."""
        if it.commit_message is None or self.ws.head() == it.base_commit:
            return False
        subject = self.ws.log(max_count=1)[0][1]
        return subject == it.commit_message.splitlines()[0]

    def tracked(self, path: Path) -> bool:
        return path.relative_to(self.ws.root).as_posix() in self.ws.repo.git.ls_files()

    def card(self) -> TaskCard:
        """README.md's task card, re-read when the file changes (users may edit it between iterations)."""
        try:
            st = self.ws.readme.stat()
            key: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if self._card_cache is None or self._card_cache[0] != key:
            self._card_cache = (key, self.ws.task_card())
        return self._card_cache[1]

    def conditions(self) -> StopConditions:
        card = self.card()
        return StopConditions.model_validate(
            {**card.stop_conditions.model_dump(), **self.state.settings.stop_overrides}
        )

    def wall_left_s(self) -> float | None:
        """Seconds left of the run's wall-time limit (``max_wall_time_min``), ``None`` without one."""
        limit = self.conditions().max_wall_time_min
        return None if limit is None else max(0.0, limit * 60.0 - self.elapsed())

    def ceilings(self, gpu_name: str | None) -> Ceilings | None:
        """Measured ceilings by GPU name, asked once per run (the lookup may query the driver)."""
        if gpu_name not in self._ceilings_cache:
            self._ceilings_cache[gpu_name] = self.ceilings_source.ceilings(gpu_name)
        return self._ceilings_cache[gpu_name]

    def roofline(self, record: IterationRecord) -> RooflineBounds:
        """Both bounds of a measured version, as the gate stored them (``performance.roofline``); for a
        record without them (written by an older gate), computed the gate's way: the spec sheet of the
        measured device (else the task card's GPU) and the ceilings cached under that device's name."""
        if record.performance.roofline is not None:
            return record.performance.roofline
        if self.state.settings.device == "cpu":
            note = "timed on the CPU (--device cpu): no GPU roofline applies"
            return RooflineBounds(measured_note=note, spec_note=note)
        card = self.card()
        spec, missing = gpu_spec(record.performance.gpu, card.gpu)
        return roofline_bounds(
            record.performance,
            spec=spec,
            spec_missing=missing,
            dtype=card.dtype,
            ceilings=self.ceilings(record.performance.gpu or card.gpu),
        )
