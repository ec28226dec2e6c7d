"""The collaborators of the stage machine, as small Protocols, and the event the loop reports progress with.

The loop codes only against these shapes; :mod:`kernelopt.loop.wiring` adapts the real stage
implementations to them, tests pass deterministic fakes built from the real result models. Planners
and implementers use the shared backend protocol (:mod:`kernelopt.backends.protocol`), the plan reader
the stage runner's (:class:`kernelopt.stages.plan.PlanReader`). ``Stage`` is the package's one stage
enum (:mod:`kernelopt.stagenames`), re-exported here for the loop's callers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from kernelopt.backends.protocol import Implementer, Planner
from kernelopt.evidence.model import ProfileSummary
from kernelopt.harness.gate import GateReport
from kernelopt.harness.model import CorrectnessReport
from kernelopt.harness.roofline import Ceilings
from kernelopt.memory.model import IterationRecord
from kernelopt.planning.plan import Plan
from kernelopt.stagenames import Stage
from kernelopt.stages.plan import PlanReader
from kernelopt.workspace import Workspace

__all__ = [
    "BaselineRenderer",
    "Ceilings",
    "CeilingsSource",
    "Collaborators",
    "EventKind",
    "Gate",
    "LoopEvent",
    "NoCeilings",
    "NullProgress",
    "PlanReader",
    "Profiler",
    "ProgressSink",
    "Stage",
]


class Profiler(Protocol):
    """Stage 1: profile the current ``kernel.py`` into ``profiles/v<N>/``.

    Returns the evidence (also written to ``profiles/v<N>/summary.json``). When counters or the
    profiler are unavailable it returns a summary with ``counters_available=False`` instead of raising.
    """

    def profile(self, workspace: Workspace, version: int) -> ProfileSummary: ...


class Gate(Protocol):
    """Stage 3's correctness check and the Stage 4 quality gate (``kernelopt.harness.gate``).

    Both return the harness's own models, so a fake gate is built from them and cannot drift.
    """

    def check_correctness(self, workspace: Workspace) -> CorrectnessReport: ...

    def validate(self, workspace: Workspace, version: int, *, previous: int | None, plan: Plan | None) -> GateReport:
        """Gate ``kernel.py`` as version ``version`` against ``previous``; writes memory/v<N>.json."""
        ...


class CeilingsSource(Protocol):
    def ceilings(self, gpu_name: str | None) -> Ceilings | None:
        """The cached measured ceilings of ``gpu_name`` (the current GPU when None), or None."""
        ...


class BaselineRenderer(Protocol):
    """Renders ``baseline_report.md`` (Markdown) from the V0 record and evidence."""

    def render(
        self,
        *,
        workspace: Workspace,
        record: IterationRecord,
        summary: ProfileSummary | None,
        roofline_lines: list[str],
    ) -> str: ...


class EventKind(StrEnum):
    STAGE_START = "stage_start"
    STAGE_END = "stage_end"
    NOTE = "note"
    WARNING = "warning"
    COMMITTED = "committed"
    ITERATION_END = "iteration_end"
    STOPPED = "stopped"


@dataclass(frozen=True)
class LoopEvent:
    """One progress report.

    Attributes:
        kind: what happened.
        version: the iteration number N.
        stage: the stage it happened in.
        message: one line for people.
        elapsed_s: wall time of the run so far, seconds (resumed runs included).
        best_latency_us: best latency of a passing version so far, microseconds.
        best_roofline_pct: that version's % of the roofline bound (measured ceilings, else spec peak).
    """

    kind: EventKind
    version: int | None
    stage: Stage | None
    message: str
    elapsed_s: float
    best_latency_us: float | None = None
    best_roofline_pct: float | None = None


class ProgressSink(Protocol):
    def event(self, event: LoopEvent) -> None: ...


class NullProgress:
    """A sink that drops every event."""

    def event(self, event: LoopEvent) -> None:
        return None


class NoCeilings:
    """A ceilings source that knows none (the spec-peak bound is used alone)."""

    def ceilings(self, gpu_name: str | None) -> Ceilings | None:
        return None


@dataclass
class Collaborators:
    """Everything the loop does not do itself.

    Attributes:
        profiler: Stage 1.
        planner: Stage 2 backend (writes plans/v<N>_plan.md).
        plan_reader: parses and validates the written plan.
        implementer: Stage 3 backend (edits kernel.py).
        gate: Stage 3 correctness check and Stage 4 gate.
        baseline_renderer: baseline_report.md; None uses the built-in renderer.
        ceilings: measured ceilings for the stop condition.
        progress: where progress events go.
        clock: monotonic seconds (injected so tests control wall time).
    """

    profiler: Profiler
    planner: Planner
    plan_reader: PlanReader
    implementer: Implementer
    gate: Gate
    baseline_renderer: BaselineRenderer | None = None
    ceilings: CeilingsSource = field(default_factory=NoCeilings)
    progress: ProgressSink = field(default_factory=NullProgress)
    clock: Callable[[], float] = time.monotonic
