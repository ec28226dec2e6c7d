"""The typed plan of one iteration (``plans/v<N>_plan.md``): exactly one optimization action.

This module holds the model; rendering to and parsing from Markdown, and validation against the
workspace (evidence cites ``profiles/v<N>/``, action not already tried), live beside it in the
planning package.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import ActionCategory
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


class PlanCandidate(BaseModel):
    """One configuration of the plan's candidate set (every knob of the category it sets).

    Attributes:
        parameters: knob -> value after the edit, e.g. ``{"BLOCK_M": 64, "BLOCK_N": 128, "num_warps": 4}``.
        evidence: why it is in the set (the evidence line or the search rule behind it), one line.
    """

    model_config = ConfigDict(extra="forbid")

    parameters: dict[str, int | float | str | bool]
    evidence: str = ""

    def key(self) -> tuple[tuple[str, str], ...]:
        """Sorted ``(knob, value)`` pairs: two candidates with equal keys are the same configuration."""
        return tuple(sorted((k, str(v)) for k, v in self.parameters.items()))


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
        candidates: the candidate set of a measured search inside the category (rules backend): Stage 3
            times each and applies the fastest correct one; empty for a plan of one fixed change.
        candidate_budget: the most candidates Stage 3 may time this iteration (``None`` without a set).
        pruned: candidates left out before timing and why (cannot fit, illegal), one line each.
        base_kernel_sha256: sha256 of the ``kernel.py`` a candidate set was planned against: the same set
            searched again after another category changed the kernel is a new action (issue 13).
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
    candidates: list[PlanCandidate] = Field(default_factory=list)
    candidate_budget: int | None = Field(default=None, ge=1)
    pruned: list[str] = Field(default_factory=list)
    base_kernel_sha256: str | None = None

    def signature(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        """(category, sorted target=value pairs): two plans with equal signatures are the same action.

        A tuning session (or an older plan's candidate set) is the same action as another only against the
        same kernel.py (``base_kernel_sha256``): once the kernel changed, the same session is a new action.
        """
        pairs = sorted((k, str(v)) for k, v in self.parameters.items())
        if self.candidates:
            sets = sorted(";".join(f"{k}={v}" for k, v in c.key()) for c in self.candidates)
            pairs.append(("candidates", " | ".join(sets)))
        if self.base_kernel_sha256:  # a tuning session or a candidate set: a new kernel.py makes it a new action
            pairs.append(("base_kernel", self.base_kernel_sha256[:16]))
        return self.action_category.value, tuple(sorted(pairs))
