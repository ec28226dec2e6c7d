"""The loop's state journal: ``<workspace>/.kernelopt/loop_state.json`` (untracked, written atomically).

The journal is written BEFORE every side effect of a stage, so that after Ctrl-C, a crash or
``kill -9`` the next run knows which stage of which version was in flight, and the workspace snapshot
taken before it. Resuming rolls the interrupted stage back (nothing it half-wrote survives) and runs it
again under the same version number; a version whose commit exists is never redone. Committed git
history, not the journal, is the authority on what is done: the record stage inspects HEAD.

The workspace's one lock (:class:`kernelopt.workspace.RunLock`, ``flock`` on a file beside the
workspace folder; released by the kernel even on ``kill -9``) keeps two loops off one workspace.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kernelopt.actions import SEARCH_NO_GAIN
from kernelopt.errors import WorkspaceError
from kernelopt.fileio import atomic_write_text
from kernelopt.loop.stop import RooflineBounds, StopDecision
from kernelopt.memory.model import CandidateResult, GateResult, PitfallAndFix
from kernelopt.stagenames import Stage
from kernelopt.stages.guard import Link, gate_state, links_of, snapshot
from kernelopt.workspace import RunLock

JOURNAL_SCHEMA_VERSION = 1
JOURNAL_FILE = "loop_state.json"
CANDIDATES_DIR = "candidates"


class RunStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"


class RunSettings(BaseModel):
    """The settings of a run (kept so that a resumed run behaves like the interrupted one).

    Attributes:
        planner: planner backend name.
        implementer: implementer backend name.
        device: ``cuda`` / ``cpu`` / None (default device).
        repair_attempts: repair attempts after a failed correctness check in Stage 3.
        stop_on_failure: stop at the first failed iteration.
        stop_overrides: stop-condition fields given as flags; they override README.md's front matter.
    """

    planner: str = "rules"
    implementer: str = "rules"
    device: str | None = None
    repair_attempts: int = Field(default=2, ge=0)
    stop_on_failure: bool = False
    stop_overrides: dict[str, float | int] = Field(default_factory=dict)


class Failure(BaseModel):
    """Why an iteration failed: gate result, the stage it failed in, one-line reason."""

    result: GateResult
    stage: Stage
    reason: str
    error_type: str

    @property
    def converged(self) -> bool:
        """A tuning session that kept nothing: recorded FAIL for the stop rule and the planner, but no kernel failed
        (:attr:`kernelopt.memory.model.IterationRecord.converged`, the record's reading of the same)."""
        return self.result is GateResult.FAIL and self.error_type == SEARCH_NO_GAIN

    @property
    def said(self) -> str:
        """How the progress lines and the summary say the outcome: ``converged``, or the gate's result."""
        return "converged" if self.converged else self.result.value


class ImplementNote(BaseModel):
    description: str = ""
    knob_changes: dict[str, list[Any]] = Field(default_factory=dict)
    knob_overrides: dict[str, str] = Field(default_factory=dict)
    attempts: int = 1
    rel_err: float | None = None
    candidates: list[CandidateResult] = Field(default_factory=list)


class GateNote(BaseModel):
    result: GateResult
    failure_reason: str | None = None
    latency_us: float | None = None
    roofline_utilization_pct: float | None = None
    speedup_vs_previous: float | None = None
    reference_latency_us: float | None = None


class IterationState(BaseModel):
    """The iteration in flight.

    Attributes:
        version: N.
        stage: the stage running (or about to run).
        base_commit: HEAD when the iteration started (the last good kernel).
        good_version: the version whose kernel.py is at ``base_commit`` (the gate's previous).
        snapshot: path -> sha256 of the workspace before the current stage (rollback on resume).
        links: each symbolic link of ``snapshot`` as the stage began (:func:`kernelopt.stages.guard.links_of`): where it
            pointed and the bytes it led to. A user's linked kernel.py is read through by a stage the agent's calls
            span (``kernelopt mcp``'s ``validate``), its last good bytes kept here: git holds only where it points.
        aux_files: auxiliary files the plan names (Stage 3 may edit them besides kernel.py).
        gate_state: the gate's own state under ``.kernelopt/`` as Stage 3 began (:func:`kernelopt.stages.guard.
            gate_state`), for a stage the agent's calls span (``kernelopt mcp``'s ``validate``: break21 b44); ``None``
            where not taken (every other stage, a journal written before it was kept).
        candidate: path -> sha256 of the implemented files, copied under .kernelopt/candidates/v<N>/.
        implement: what Stage 3 did.
        gate: what Stage 4 said.
        failure: set when a stage failed; the record stage then writes a revert marker.
        pitfalls: failures met on the way (write violations, failed repair attempts), recorded in Stage 5.
        notes: experience notes for the record (token usage, timing-only, roofline bounds).
        commit_message: the Stage 5 message, fixed before the commit so that a resume recognizes it.
        stage_seconds: wall time of this iteration's stages so far (stage name -> seconds).
    """

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")  # a link's bytes, any encoding

    version: int
    stage: Stage
    base_commit: str
    good_version: int | None
    snapshot: dict[str, str] = Field(default_factory=dict)
    links: dict[str, Link] = Field(default_factory=dict)
    gate_state: dict[str, str] | None = None
    aux_files: list[str] = Field(default_factory=list)
    candidate: dict[str, str] = Field(default_factory=dict)
    implement: ImplementNote | None = None
    gate: GateNote | None = None
    failure: Failure | None = None
    pitfalls: list[PitfallAndFix] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    no_plan_reason: str | None = None
    commit_message: str | None = None
    stage_seconds: dict[str, float] = Field(default_factory=dict)

    def take_snapshot(self, root: Path | None) -> None:
        """The workspace at ``root`` as the stage begins: its digests and its links (``None``: no snapshot, for the
        stages that roll nothing back; the links stay the last stage's, where the record stage's revert puts the user's
        link back over git's file: a failed version left a plain file there, their project's file holding its edit);
        as Stage 3 begins, the gate's own state too (:attr:`gate_state`)."""
        self.gate_state = None
        if root is None:
            self.snapshot = {}
            return
        self.snapshot = snapshot(root)
        self.links = links_of(root, self.snapshot)
        if self.stage is Stage.IMPLEMENT:
            self.gate_state = gate_state(root)


class VersionOutcome(BaseModel):
    """One finished version of this run, for the final summary."""

    version: int
    result: GateResult
    latency_us: float | None = None
    tflops: float | None = None
    bandwidth_gbps: float | None = None
    roofline: RooflineBounds | None = None
    action: str | None = None
    failure_reason: str | None = None
    commit: str | None = None
    timing_only: bool = False
    converged: bool = False


class RunState(BaseModel):
    """The whole journal.

    Attributes (besides the counters):
        protected: sha256 of each protected file (reference.py, test_kernel.py, README.md) as recorded at
            run start (README.md again after a user's edit between iterations); ``None`` for a missing file.
        stage_seconds: wall time spent in each stage over the run (stage name -> seconds; resumed
            sessions included).
        profiles_taken: Stage 1 profiler calls of the run.
        paused: the run stopped between two stages because its caller asked it to (``OptimizeLoop.run(pause=...)``:
            the MCP server's tools run one stage each): the next call continues it where it stands, with no
            roll-back (an interrupted run, by contrast, rolls its in-flight stage back).
        parked: the run's own process rolled its in-flight stage back as it stopped (Ctrl-C, an error, the MCP
            client's cancel: :func:`kernelopt.loop.resume.park`), cleared when a run starts; a run neither paused nor
            parked that no process holds was ended from outside (killed: seen21 u23).
    """

    schema_version: int = JOURNAL_SCHEMA_VERSION
    status: RunStatus = RunStatus.RUNNING
    started_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    elapsed_s: float = 0.0
    sessions: int = 1
    settings: RunSettings = Field(default_factory=RunSettings)
    iterations_done: int = 0
    consecutive_failures: int = 0
    failures: int = 0
    reference_latency_us: float | None = None
    timing_only: bool = False
    protected: dict[str, str | None] = Field(default_factory=dict)
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    profiles_taken: int = 0
    current: IterationState | None = None
    outcomes: list[VersionOutcome] = Field(default_factory=list)
    stop: StopDecision | None = None
    paused: bool = False
    parked: bool = False


class Journal:
    """Load and save the run state of one workspace.

    Args:
        state_dir: the workspace's ``.kernelopt/`` folder.
    """

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.path = state_dir / JOURNAL_FILE
        self._lock = RunLock(state_dir.parent)

    def load(self) -> RunState | None:
        """The saved state, or None when there is none.

        Raises:
            WorkspaceError: the file exists but is corrupt (it is written atomically, so only a hand
                edit or a foreign tool can cause this).
        """
        if not self.path.is_file():
            return None
        try:
            return RunState.model_validate(json.loads(self.path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise WorkspaceError(
                f"{self.path}: unreadable loop state ({type(exc).__name__})",
                hint="delete it to start a new run (committed versions are kept in git)",
            ) from None

    def save(self, state: RunState) -> None:
        state.updated_at = datetime.now(UTC)
        atomic_write_text(self.path, state.model_dump_json(indent=2) + "\n")

    def candidate_dir(self, version: int) -> Path:
        return self.state_dir / CANDIDATES_DIR / f"v{version}"

    # -- lock ---------------------------------------------------------------------------------

    def acquire(self) -> None:
        """Take the workspace's run lock (:class:`kernelopt.workspace.RunLock`; re-entrant in one process).

        Raises:
            UsageError: another ``kernelopt optimize`` holds it.
        """
        self._lock.acquire()

    def release(self) -> None:
        self._lock.release()
