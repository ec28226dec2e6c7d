"""The configurations a session tries first: the current one, and those Stage 1's evidence favours (pure).

The evidence's directions are the rule planner's, read from its tables rather than copied
(:mod:`kernelopt.planning.ranking`): the categories the findings, the profiler's rules and the bottleneck
class support, ranked by their votes (:func:`~kernelopt.planning.ranking.evidence_scores`,
:func:`~kernelopt.planning.ranking.profiler_scores`), and for each the knob moves
:func:`~kernelopt.planning.ranking.knob_moves` gives from the symptoms: more warps when latency-bound or
occupancy is low; larger tiles on a tensor-core GEMM or when on-chip bandwidth binds with no spills;
smaller tiles and fewer stages on spills or shared-memory-limited occupancy (``SHRINK_SYMPTOMS``,
``SPILL_SYMPTOMS``, ``SMEM_LIMITED_SYMPTOMS``).

A category's best move gives two seeds: one step and two steps that way (the best configuration of a GEMM
lies 5-13 steps from a naive one, issue 22). A last seed takes every category's best move at once. Every
seed fits the space; repeats are dropped.
"""

from __future__ import annotations

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import KernelEvidence
from kernelopt.planning.knobs import Knob as PlanKnob
from kernelopt.planning.ranking import (
    KNOB_MOVE_CATEGORIES,
    admissible,
    evidence_scores,
    knob_moves,
    profiler_scores,
    symptoms_of,
)
from kernelopt.tuning.candidate import Config, Value
from kernelopt.tuning.space import Space

#: Most evidence seeds a session gets (a sixth of the smallest default budget, 24).
SEED_LIMIT = 4
#: Categories whose best move seeds a session, at most.
CATEGORY_LIMIT = 3


def seeds(space: Space, evidence: KernelEvidence | None = None, *, limit: int = SEED_LIMIT) -> list[Config]:
    """The current configuration (when known), then up to ``limit`` seeds from ``evidence``."""
    current = space.current()
    out = [current] if current is not None else []
    if evidence is not None:
        out += evidence_seeds(space, evidence, limit=limit)
    return list(dict.fromkeys(out))


def evidence_seeds(space: Space, evidence: KernelEvidence, *, limit: int = SEED_LIMIT) -> list[Config]:
    """Configurations the evidence favours, best supported first (see the module docstring)."""
    base = space.current() or space.default()
    knobs = _plan_knobs(space, base)
    symptoms = symptoms_of(evidence)
    out: list[Config] = []
    combined: dict[str, Value] = {}
    for category in favoured_categories(evidence)[:CATEGORY_LIMIT]:
        moves = knob_moves(category, knobs, symptoms, evidence.bottleneck)
        if not moves:
            continue
        knob, one_step = moves[0]
        direction = 1 if one_step > knob.value else -1
        combined.setdefault(knob.name, one_step)
        out += [base.with_values({knob.name: one_step})]
        two_steps = knob.move(direction, ratio=4)
        if two_steps is not None:
            out.append(base.with_values({knob.name: two_steps}))
    if len(combined) > 1:
        out.append(base.with_values(combined))
    fitting = [c for c in dict.fromkeys(out) if c != base and not space.problems(c)]
    return fitting[:limit]


def favoured_categories(evidence: KernelEvidence) -> list[ActionCategory]:
    """The knob-move categories the evidence supports, by their votes (findings plus profiler rules),
    highest first; ties in the categories' order."""
    votes = evidence_scores(evidence)
    for cat, score in profiler_scores(evidence).items():
        votes[cat] = votes.get(cat, 0.0) + score
    order = list(ActionCategory)
    cats = [c for c in admissible(evidence) if c in KNOB_MOVE_CATEGORIES]
    return sorted(cats, key=lambda c: (-votes.get(c, 0.0), order.index(c)))


def _plan_knobs(space: Space, base: Config) -> list[PlanKnob]:
    """The space's integer knobs as the planner's knobs (legal values: the space's)."""
    out = []
    for k in space.knobs:
        value = base[k.name]
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        origin = space.origins.get(k.name)
        cats = tuple(ActionCategory(c) for c in origin.categories) if origin and origin.categories else None
        allowed = tuple(v for v in k.values if isinstance(v, int))
        out.append(PlanKnob(name=k.name, value=value, allowed=allowed, categories=cats))
    return out
