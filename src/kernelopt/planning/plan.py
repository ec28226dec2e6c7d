"""The typed plan of one iteration (``plans/v<N>_plan.md``): exactly one optimization action.

This module holds the model; rendering to and parsing from Markdown, and validation against the
workspace (evidence cites ``profiles/v<N>/``, action not already tried), live beside it in the
planning package.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import LAUNCH_CONFIGURATION, ActionCategory
from kernelopt.errors import KerneloptError
from kernelopt.memory.model import SearchLogEntry


class PlanError(KerneloptError):
    """A plan file is malformed, or a plan breaks a Stage 2 rule (one action, cited evidence, new action).

    The message is one line naming what is wrong (the section, the line, the field).
    """

    exit_code = 2


class RiskLevel(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


PLAN_CHARS = 1_000_000
"""The longest plan text any planner's reply may be (a plan is a page of Markdown): ``submit_plan``'s bound, and the
agent-cli planner's, whose agent wrote a plan file of any size and had it read and parsed whole (agents19, a8)."""


class Plan(BaseModel):
    """One iteration's plan.

    Attributes:
        version: the iteration number N this plan is for.
        bottleneck_type: the Stage 1 bottleneck class it answers (``memory_bound``, ...).
        action_category: the one category of change (controlled vocabulary).
        targets: the knobs or code regions the action touches (``BLOCK_SIZE``, ``num_warps``,
            ``kernel.py:42``).
        parameters: the concrete change per target, e.g. ``{"num_warps": 8}`` or ``{"BLOCK_M": "x2"}``.
        action: the action in one or two sentences.
        evidence: ``evidence -> inference -> action`` lines citing metric values and artifacts.
        search_log: where knowledge was looked up and what was found (gpu-wiki first).
        expected_impact: what should improve, and by roughly how much.
        risk_level: how likely the change is to fail or regress.
        risks_and_rollback: what can go wrong and how to undo it.
        enabling_step: True when a regression is expected and accepted because it enables later steps.
        counters_available: False when the plan was made from timing-only evidence.
        planner: name of the backend that wrote it.
        current_values: for knob plans, the value each target holds now (``{"num_warps": 4}``), so
            that ``parameters`` reads as a move ``4 -> 8`` and its direction can be learned from.
        expected_speedup_pct: the expected latency gain in percent, when a source gives one (the
            profiler's own estimate); ``None`` when not estimated.
        references: the knowledge the plan relies on: gpu-wiki record ids, ``path:line`` in the
            reference project, URLs.
        base_kernel_sha256: sha256 of the ``kernel.py`` a tuning session was planned against: the same
            session after another action changed the kernel is a new action (issue 13).
        excluding: the versions whose tuning session of the same kernel.py wrote a winner the gate rejected:
            this session tunes again outside their regions (issue 32, item 4), so it is a new action.
        retrying: the versions whose tuning session of the same kernel.py was too noisy to rank its candidates
            (:data:`~kernelopt.actions.SEARCH_TOO_NOISY`), or whose every candidate ran past its time limit
            (:data:`~kernelopt.actions.SEARCH_LIMIT_SHORT`): this session times them again, so it is a new action.
        launch: the launch a tuning session tunes, by its identity (``launch _ln_bwd_dwdb in run()``: no line
            number, the same after a version moves lines; :mod:`kernelopt.tunables.launches`), as ``kernelopt tune
            --kernel`` takes it: a kernel.py of several launches gets one session a launch (issue 32, case h11);
            ``None``: the engine's default. An older plan holds the label with its line.
        untuned_launches: the other launches of this kernel.py with a knob still to tune (no session since another
            launch changed the kernel, or a kept change no session confirmed): a session of ``launch`` that keeps
            nothing does not end the loop "converged" while one is left (the next version tunes it). Not part of
            the signature.

    An older plan file's candidate set (``candidates``, ``candidate_budget``, ``pruned``: the rules planner
    before one tuning session replaced it) is read and dropped by the parser; such a plan, with no
    parameters and its ``base_kernel_sha256``, is a tuning session of its targets
    (:meth:`is_tuning_session`).
    """

    model_config = ConfigDict(extra="forbid")

    version: int = Field(ge=0)
    bottleneck_type: str
    action_category: ActionCategory
    targets: list[str] = Field(default_factory=list)
    parameters: dict[str, str | int | float | bool] = Field(default_factory=dict)
    action: str
    evidence: list[str] = Field(default_factory=list)
    search_log: list[SearchLogEntry] = Field(default_factory=list)
    expected_impact: str
    risk_level: RiskLevel = RiskLevel.MEDIUM
    risks_and_rollback: str
    enabling_step: bool = False
    counters_available: bool = True
    planner: str | None = None
    current_values: dict[str, str | int | float | bool] = Field(default_factory=dict)
    expected_speedup_pct: float | None = None
    references: list[str] = Field(default_factory=list)
    base_kernel_sha256: str | None = None
    excluding: list[str] = Field(default_factory=list)
    retrying: list[str] = Field(default_factory=list)
    launch: str | None = None
    untuned_launches: list[str] = Field(default_factory=list)

    def signature(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """(category, sorted target=value pairs): two plans with equal signatures are the same action.

        A tuning session is the same action as another only against the same kernel.py
        (``base_kernel_sha256``): once the kernel changed, the same session is a new action.
        """
        pairs = sorted((k, str(v)) for k, v in self.parameters.items())
        if self.base_kernel_sha256:  # a tuning session: a new kernel.py makes it a new action
            pairs.append(("base_kernel", self.base_kernel_sha256[:16]))
        if self.launch:  # a tuning session of one launch of a kernel.py of several (issue 32, case h11)
            pairs.append(("launch", self.launch))
        if self.excluding:  # the same session again, outside the regions of the winners the gate rejected
            pairs.append(("excluding", ",".join(self.excluding)))
        if self.retrying:  # the same session again after one too noisy to rank
            pairs.append(("retrying", ",".join(self.retrying)))
        return self.action_category.value, tuple(sorted(pairs))

    def is_tuning_session(self) -> bool:
        """True when the plan asks for one tuning session of its targets rather than one change: the launch
        configuration (what the rules planner plans), or no parameters against a named kernel.py (an older
        plan's candidate set inside its category)."""
        return self.action_category is LAUNCH_CONFIGURATION or (
            not self.parameters and self.base_kernel_sha256 is not None
        )
