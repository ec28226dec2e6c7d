"""The one shape of every planning and implementing backend.

A planner turns Stage 1 evidence and history into a :class:`~kernelopt.planning.plan.Plan` (Stage 2);
an implementer turns a plan and ``kernel.py`` into an edited ``kernel.py`` (Stage 3). Backends are
never trusted: the stage runner (:mod:`kernelopt.stages`) guards every call (writes outside the
stage's allowance, protected files, git state, secrets); a backend only does its stage and reports.

:func:`transcript_path` and :func:`read_plan_reply` are the two helpers every built-in backend shares.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.memory.model import CandidateResult, IterationRecord
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.plan import PLAN_CHARS, Plan
from kernelopt.stagenames import Stage
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
        options: backend settings given per call (typed per backend; see each backend); the stage
            runner passes the same options for the loop and the commands.
        aux_files: auxiliary files the plan names that Stage 3 may edit besides ``kernel.py`` (set by
            the stage runner from its allowance table).
        knowledge: knowledge-search hits the orchestrator gathered for this iteration (gpu-wiki first,
            then the reference project, then the web), one line each with its source; shown to
            agents that cannot search themselves.
        wall_left_s: seconds left of the run's wall-time limit when Stage 3 starts (``None``: no limit); a
            backend whose work can end early with the best so far (the tuning session) keeps within it.
        note: where a backend's long work reports its progress, one line for people (the loop prints it;
            ``None``: nobody listens).
    """

    workspace: Workspace
    version: int
    summary: ProfileSummary | None
    history: list[IterationRecord] = field(default_factory=list)
    plan: Plan | None = None
    attempt: int = 0
    failure: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    aux_files: list[str] = field(default_factory=list)
    knowledge: list[str] = field(default_factory=list)
    wall_left_s: float | None = None
    note: Callable[[str], None] | None = None


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
        candidates: every candidate of the tuning session as Stage 3 measured it (rules backend), the
            chosen one marked; kept in ``memory/v<N>.json``.
        no_gain: the tuning session found nothing faster than the current configuration (``changed`` False):
            a measured result, not a failure of the implementer.
        noisy: the tuning session ran but its timing was too noisy to rank its candidates (``changed`` False):
            nothing converged, nothing failed to apply; a later version may tune again.
        limit_short: the tuning session timed nothing because the kernel as written ran past a candidate's time limit
            too (``changed`` False): the limit is the machine's, no verdict on the action; a later version may tune
            again with more time (:data:`~kernelopt.actions.SEARCH_LIMIT_SHORT`).
        checked: the implementer checked the kernel.py it wrote on the full problem already (the tuning
            engine's winner): Stage 3 does not check it again, the gate checks it once.
        unavailable: the implementer's own infrastructure failed (an agent that could not start, ran past
            its limit, is not logged in, met an API error): ``error`` says what; the action was never tried.
        unfinished: the agent answered, calling tools, but did not finish in its time or turn limit: the action was
            tried and not done (``AGENT_UNFINISHED``), no problem of the agent's setup.
        final: no repair attempt follows a failed check of this one: the implementer has none left (an MCP agent,
            which repairs across its calls, past its repairs: Stage 3 called again would only check the same edit
            again, and the record would count repairs never made; fresh28 f65).
        attempts_before: attempts of this Stage 3 the implementer made in earlier calls (an MCP agent repairs across
            its ``validate`` calls, each one Stage 3 call: its second call's attempt is "2 of 3", late57 l271).
    """

    changed: bool
    description: str = ""
    knob_changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    knob_overrides: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    transcript: Path | None = None
    tokens: dict[str, int] = field(default_factory=dict)
    candidates: list[CandidateResult] = field(default_factory=list)
    no_gain: bool = False
    noisy: bool = False
    limit_short: bool = False
    checked: bool = False
    unavailable: bool = False
    unfinished: bool = False
    final: bool = False
    attempts_before: int = 0


class BackendFailure(KerneloptError):
    """A backend could not do its stage; the iteration fails with this one-line reason.

    Attributes:
        transcript: the backend's transcript file, when there is one.
        tokens: token usage spent before the failure.
        unavailable: the backend's own infrastructure failed (see :attr:`ImplementOutcome.unavailable`).
        unfinished: the agent answered but did not finish (see :attr:`ImplementOutcome.unfinished`).
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        transcript: Path | None = None,
        tokens: dict[str, int] | None = None,
        unavailable: bool = False,
        unfinished: bool = False,
    ) -> None:
        super().__init__(message)
        self.transcript = transcript
        self.tokens = dict(tokens or {})
        self.unavailable = unavailable
        self.unfinished = unfinished


@runtime_checkable
class Planner(Protocol):
    name: str

    def plan(self, ctx: StageContext) -> PlanOutcome: ...


@runtime_checkable
class Implementer(Protocol):
    name: str

    def implement(self, ctx: StageContext) -> ImplementOutcome: ...


AGENT_UNAVAILABLE = "agent_unavailable"
"""The ``error_type`` of a stage whose backend's own infrastructure failed (:attr:`BackendFailure.unavailable`,
:attr:`ImplementOutcome.unavailable`): the action was never tried, so it teaches nothing about the action."""

AGENT_UNFINISHED = "agent_unfinished"
"""The ``error_type`` of a stage whose agent answered but did not finish (:attr:`BackendFailure.unfinished`,
:attr:`ImplementOutcome.unfinished`): a FAIL of the action's attempt, the loop going on, not ``AGENT_UNAVAILABLE``
(a model calling tools until its limit is working: its setup needs no fix; discovery23 d33)."""

NO_NEW_ACTION = "NO_NEW_ACTION:"
"""How an agent or a model says that no new actionable plan is left: ``NO_NEW_ACTION: <reason>``."""


def no_new_action(line: str) -> str | None:
    """The reason of a ``NO_NEW_ACTION: <reason>`` line ("" when it gives none); None for any other line."""
    line = line.strip()
    return line[len(NO_NEW_ACTION) :].strip() if line.startswith(NO_NEW_ACTION) else None


def transcript_path(ws: Workspace, version: int, stage: Stage, *, kind: str = "agent") -> Path:
    """``profiles/v<N>/<kind>_<stage>.log``: where a backend's transcript of a stage is saved."""
    return ws.profile_dir(version) / f"{kind}_{stage.value}.log"


def read_plan_reply(
    text: str,
    *,
    version: int,
    planner: str,
    fail: Callable[[str], Exception],
    what: str,
    parser: Callable[[str], Plan] = parse_plan,
) -> Plan:
    """Parse a backend's plan text and check it is for ``version``; name ``planner`` when it names none.

    Args:
        text: the plan Markdown the agent wrote or the model replied.
        version: the iteration being planned.
        planner: the backend's name, recorded in the plan when the text names no planner.
        fail: builds the exception raised for a failure (the backend's own failure with its transcript).
        what: how the messages name the text ("the agent's plans/v3_plan.md", "the reply").
        parser: the plan parser (tests inject a stand-in).

    Raises:
        The exception ``fail`` builds: an unparsable plan, or a plan for another version.
    """
    if len(text) > PLAN_CHARS:
        raise fail(f"{what} is not a valid plan: {len(text):,} characters, where a plan is at most {PLAN_CHARS:,}")
    try:
        plan = parser(text)
    except (KerneloptError, ValueError) as exc:
        why = exc.message if isinstance(exc, KerneloptError) else str(exc)
        raise fail(f"{what} is not a valid plan: {why}") from None
    if plan.version != version:
        raise fail(f"{what} is for version {plan.version}, expected {version}")
    if plan.planner is None:
        plan.planner = planner
    return plan
