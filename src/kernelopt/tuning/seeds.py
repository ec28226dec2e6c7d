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
lies 5-13 steps from a naive one, issue 22). A last seed takes every category's best move at once.

A tiled matrix multiply (a launch with BLOCK_M, BLOCK_N and BLOCK_K knobs) also gets the field's known-good
tiles (:data:`GEMM_TILES`, Triton's matmul tutorial configurations for NVIDIA GPUs, in its order), each
moved to the nearest legal value of the space's knobs. A GEMM's best lies many steps from a naive start,
and a session the loop's time left cuts at 20 candidates rarely gets there by descent alone: replayed on
the four recorded GEMM sweeps, 39-81 % of such sessions ended within 3 % of the best without these seeds,
99-100 % with four of them (CPU, 2026-12-04, docs/results.md). Every seed fits the space; repeats are
dropped.
"""

from __future__ import annotations

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import KernelEvidence
from kernelopt.numeric import is_int
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

#: Known-good GEMM tiles: (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages), best first (the configurations
#: of Triton's matmul tutorial for NVIDIA GPUs; GROUP_M 8 where the launch has it).
GEMM_TILES: tuple[tuple[int, int, int, int, int], ...] = (
    (128, 256, 64, 8, 3),
    (64, 256, 32, 4, 4),
    (128, 128, 32, 4, 4),
    (128, 64, 32, 4, 4),
    (64, 128, 32, 4, 4),
    (128, 32, 32, 4, 4),
    (64, 32, 32, 2, 5),
    (32, 64, 32, 2, 5),
)
#: The knob names of a GEMM's roles, as kernels spell them.
GEMM_KNOBS: dict[str, tuple[str, ...]] = {
    "BLOCK_M": ("BLOCK_M", "BLOCK_SIZE_M"),
    "BLOCK_N": ("BLOCK_N", "BLOCK_SIZE_N"),
    "BLOCK_K": ("BLOCK_K", "BLOCK_SIZE_K"),
    "GROUP_M": ("GROUP_M", "GROUP_SIZE_M"),
    "num_warps": ("num_warps",),
    "num_stages": ("num_stages",),
}
#: Known-good tiles a GEMM session gets, at most.
GEMM_SEED_LIMIT = 4


def seeds(space: Space, evidence: KernelEvidence | None = None, *, limit: int = SEED_LIMIT) -> list[Config]:
    """The current configuration (when known and literal: one computed from the problem is timed on its own
    first, :func:`kernelopt.tuning.session.tune`), then up to ``limit`` seeds from ``evidence``, then the
    known-good tiles of a GEMM (:func:`gemm_seeds`)."""
    current = space.current()
    out = [current] if current is not None and space.literal(current) else []
    if evidence is not None:
        out += evidence_seeds(space, evidence, limit=limit)
    out += gemm_seeds(space)
    return list(dict.fromkeys(out))


def gemm_seeds(space: Space, *, limit: int = GEMM_SEED_LIMIT) -> list[Config]:
    """Up to ``limit`` of :data:`GEMM_TILES` as configurations of ``space``, each knob at its nearest legal
    value (other knobs as they are now); none unless the launch has BLOCK_M, BLOCK_N and BLOCK_K knobs."""
    knobs = {k.name: k for k in space.knobs}
    names = {role: next((n for n in spellings if n in knobs), None) for role, spellings in GEMM_KNOBS.items()}
    if not all(names[r] for r in ("BLOCK_M", "BLOCK_N", "BLOCK_K")):
        return []
    base = space.default()  # the current values (a computed knob's on the primary shape)
    out: list[Config] = []
    for bm, bn, bk, warps, stages in GEMM_TILES:
        wanted = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "num_warps": warps, "num_stages": stages}
        changes = {}
        for role, value in wanted.items():
            name = names[role]
            legal = [v for v in knobs[name].values if isinstance(v, int | float)] if name else []
            if name and legal:
                changes[name] = min(legal, key=lambda v: (abs(v - value), v))
        config = base.with_values(changes)
        if config != base and config not in out and space.fits(config):
            out.append(config)
    return out[:limit]


def evidence_seeds(space: Space, evidence: KernelEvidence, *, limit: int = SEED_LIMIT) -> list[Config]:
    """Configurations the evidence favours, best supported first (see the module docstring)."""
    base = space.default()  # the current values (a computed knob's on the primary shape)
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
        if not is_int(value):
            continue
        origin = space.origins.get(k.name)
        cats = tuple(ActionCategory(c) for c in origin.categories) if origin and origin.categories else None
        allowed = tuple(v for v in k.values if isinstance(v, int))
        out.append(PlanKnob(name=k.name, value=value, allowed=allowed, categories=cats))
    return out
