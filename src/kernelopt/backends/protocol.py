"""The one shape of every planning and implementing backend.

A planner turns Stage 1 evidence and history into a :class:`~kernelopt.planning.plan.Plan` (Stage 2);
an implementer turns a plan and ``kernel.py`` into an edited ``kernel.py`` (Stage 3). Backends are
never trusted: the orchestrator snapshots the workspace around each call and rejects writes outside
the stage's allowance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kernelopt.backends.guard import Change
from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.memory.model import IterationRecord
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace


@dataclass
class StageContext:
    """What a backend receives.

    Attributes:
        workspace: the workspace.
        version: the iteration number N being planned / implemented.
        summary: Stage 1 evidence of the current kernel (``profiles/v<N>/summary.json``).
        history: unmasked iteration records, oldest first (masked ones are never passed).
        plan: the plan to implement (Stage 3 only).
        attempt: 0 for the first implementation try, 1.. for repair attempts.
        failure: the correctness failure of the previous attempt (repair attempts only).
        options: backend settings (typed per backend; see each backend).
        knowledge: knowledge-search hits the orchestrator gathered for this iteration (gpu-wiki first,
            then the reference project, then the web), one line each with its source; shown to
            agents that cannot search themselves.
    """

    workspace: Workspace
    version: int
    summary: ProfileSummary | None
    history: list[IterationRecord] = field(default_factory=list)
    plan: Plan | None = None
    attempt: int = 0
    failure: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    knowledge: list[str] = field(default_factory=list)


@dataclass
class PlanOutcome:
    """Result of a planner call.

    Attributes:
        plan: the plan, or ``None`` when no new actionable path remains.
        reason: why there is no plan (the loop stops with it), or a note.
        transcript: file holding the agent transcript, when there is one.
        tokens: token usage by kind (``prompt``, ``completion``) for API backends.

    A planner that *fails* (its agent crashed, hung, wrote outside its allowance, returned something
    that is not a plan) raises :class:`BackendFailure` instead: ``plan=None`` means only "nothing new".
    """

    plan: Plan | None
    reason: str | None = None
    transcript: Path | None = None
    tokens: dict[str, int] = field(default_factory=dict)


@dataclass
class ImplementOutcome:
    """Result of an implementer call.

    Attributes:
        changed: True when kernel.py was edited.
        description: what was done, in one line.
        knob_changes: knob -> (before, after) for tunable edits.
        knob_overrides: knob -> the computed expression a tunable edit replaced with a literal.
        error: why nothing could be implemented (the iteration fails with it).
        transcript: agent transcript file, when there is one.
        tokens: token usage for API backends.
        violations: writes outside the stage's allowance, already reverted (record them as pitfalls).
    """

    changed: bool
    description: str = ""
    knob_changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    knob_overrides: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    transcript: Path | None = None
    tokens: dict[str, int] = field(default_factory=dict)
    violations: list[Change] = field(default_factory=list)


class BackendFailure(KerneloptError):
    """A backend could not do its stage; the iteration fails with this one-line reason.

    Attributes:
        violations: writes outside the stage's allowance, already reverted (record them as pitfalls).
        transcript: the backend's transcript file, when there is one.
        tokens: token usage spent before the failure.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        violations: list[Change] | None = None,
        transcript: Path | None = None,
        tokens: dict[str, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.violations = list(violations or [])
        self.transcript = transcript
        self.tokens = dict(tokens or {})


@runtime_checkable
class Planner(Protocol):
    name: str

    def plan(self, ctx: StageContext) -> PlanOutcome: ...


@runtime_checkable
class Implementer(Protocol):
    name: str

    def implement(self, ctx: StageContext) -> ImplementOutcome: ...
