"""The candidate set of a measured search inside one category (pure: no I/O).

Stage 2 of the rules backend names one category and a small set of configurations of that category's
knobs; Stage 3 times each and keeps the fastest correct one (DESIGN.md, "Search inside one category").
This module builds the set:

* **which knobs**: the knobs of the kernel that a plan of the category may move (the tunables' table,
  :meth:`~kernelopt.planning.knobs.Knob.serves`), of the families the category acts on. Knobs that
  interact are searched jointly: a tile's M/N/K with its ``num_warps`` and ``num_stages`` (tiling), a
  1-D block with its warps (vectorized access: elements per thread), ...;
* **which way**: from the Stage 1 symptoms, as :func:`kernelopt.planning.ranking.knob_moves` reads them
  (spills, small grid, register- or shared-memory-limited occupancy: smaller blocks and tiles; too little
  on-chip reuse, block-limited occupancy: larger ones; narrow loads: fewer warps). Where no evidence
  decides, both ways. Evidence that says "grow" never yields a set whose only candidates are smaller;
* **which values**: the neighbours of the current configuration, one legal step (x2, /2; +1/-1 for
  linear knobs) per knob jointly, and longer steps of one knob alone (x4, x8 for a knob searched alone),
  ordered nearest first (total steps, then knobs changed, then agreement with the evidence); when the
  tile area changes, a variant whose ``num_warps`` follows it (the same work per thread) is as near as
  the tile move itself;
* **what fits**: configurations the tunables' fit check refuses (shared memory, registers, threads, legal
  values) are pruned before any timing, with their reason; the set is then cut to the budget.

The step pattern is a compass search with expansion (Kolda, Lewis and Torczon, "Optimization by direct
search", SIAM Review 45(3), 2003): each iteration times the neighbourhood and moves to its best point.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import BottleneckType
from kernelopt.evidence.symptoms import Symptom
from kernelopt.planning.knobs import LINEAR_FAMILIES, Knob, KnobFamily
from kernelopt.planning.ranking import SHRINK_SYMPTOMS, SMEM_LIMITED_SYMPTOMS, SPILL_SYMPTOMS

_A = ActionCategory
_F = KnobFamily
_S = Symptom

#: Why a configuration (knob name -> value, every knob) cannot fit; empty when it fits.
Fits = Callable[[dict[str, int]], list[str]]

_BLOCKS = (_F.BLOCK, _F.THREADS, _F.TILE_M, _F.TILE_N, _F.TILE_K)
_TILES = (_F.TILE_M, _F.TILE_N, _F.TILE_K)
#: Knob families each category searches, jointly.
CATEGORY_FAMILIES: dict[ActionCategory, tuple[KnobFamily, ...]] = {
    _A.NUM_WARPS: (_F.NUM_WARPS,),
    _A.BLOCK_SIZE: (_F.BLOCK, _F.THREADS, _F.TILE_M, _F.TILE_N),
    _A.TILING: (_F.TILE_M, _F.TILE_N, _F.TILE_K, _F.BLOCK, _F.NUM_WARPS, _F.NUM_STAGES),
    _A.SOFTWARE_PIPELINING: (_F.NUM_STAGES,),
    _A.REGISTER_PRESSURE: (_F.BLOCK, _F.TILE_M, _F.TILE_N, _F.TILE_K, _F.NUM_STAGES, _F.NUM_WARPS),
    _A.OCCUPANCY: (_F.BLOCK, _F.THREADS, _F.TILE_M, _F.TILE_N, _F.NUM_WARPS, _F.NUM_STAGES),
    _A.WAVE_OCCUPANCY: (_F.WAVES_PER_EU, _F.NUM_WARPS),
    _A.L2_RASTERIZATION: (_F.GROUP,),
    _A.SPLIT_K: (_F.SPLIT_K,),
    _A.VECTORIZED_ACCESS: (_F.BLOCK, _F.NUM_WARPS),
}
SHRINK = SHRINK_SYMPTOMS  # the ranking's table: one place for which symptoms shrink blocks and tiles
GROW = frozenset({_S.ONCHIP_BANDWIDTH_BOUND, _S.OCCUPANCY_LIMITED_BLOCKS})
#: Steps of a knob searched alone (x8 = three doublings) and of a knob searched with others (x4 alone).
ALONE_STEPS = 3
AXIS_STEPS = 2


@dataclass(frozen=True)
class Direction:
    """The ways a knob may move (+1 up, -1 down) and why."""

    ways: tuple[int, ...]
    why: str


@dataclass(frozen=True)
class SetCandidate:
    """One configuration: every searched knob's value, and why it is in the set."""

    parameters: dict[str, int]
    evidence: str
    steps: int

    def key(self) -> tuple[tuple[str, int], ...]:
        return tuple(sorted(self.parameters.items()))


@dataclass
class CandidateSet:
    """The set for one category.

    Attributes:
        category: the category searched.
        knobs: the knobs searched, with their current values.
        directions: knob name -> the ways it may move.
        candidates: the configurations to time, nearest first, at most ``budget``.
        pruned: configurations left out before timing, one line each (cannot fit, over budget).
        budget: the most candidates timed.
        why_empty: why there is no candidate, when there is none.
    """

    category: ActionCategory
    knobs: list[Knob]
    directions: dict[str, Direction]
    candidates: list[SetCandidate] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    budget: int = 16
    why_empty: str | None = None


def _sym_names(symptoms: Iterable[str]) -> set[str]:
    return {str(s) for s in symptoms}


def direction(
    category: ActionCategory, knob: Knob, symptoms: Iterable[str], bottleneck: BottleneckType, *, no_dot: bool = False
) -> Direction | None:
    """The ways ``knob`` moves in a search of ``category`` (``None``: it is not searched here)."""
    sym = _sym_names(symptoms)
    fam = knob.family
    if fam in _BLOCKS:
        shrink = sorted(sym & {s.value for s in SHRINK})
        if bottleneck is BottleneckType.LAUNCH_OCCUPANCY_BOUND:
            shrink.append("launch_occupancy_bound")
        grow = sorted(sym & {s.value for s in GROW})
        if _S.NARROW_GLOBAL_LOADS.value in sym and fam is _F.BLOCK:
            grow.append(_S.NARROW_GLOBAL_LOADS.value)
        if _S.ONCHIP_BANDWIDTH_BOUND.value in grow and sym & {s.value for s in SPILL_SYMPTOMS}:
            grow.remove(_S.ONCHIP_BANDWIDTH_BOUND.value)  # larger tiles spill more
        if category is _A.REGISTER_PRESSURE or (
            category is _A.OCCUPANCY and sym & {s.value for s in SMEM_LIMITED_SYMPTOMS | SPILL_SYMPTOMS}
        ):
            return Direction((-1,), f"{category.value}: smaller {knob.name}")
        if _S.ONCHIP_BANDWIDTH_BOUND.value in grow:
            # too little reuse per byte loaded: only larger tiles answer it (spills excluded above);
            # register-limited occupancy without spills does not make smaller tiles faster
            return Direction((1,), f"onchip_bandwidth_bound (low data reuse) says grow {knob.name}")
        if grow and not shrink:
            return Direction((1,), f"{', '.join(grow)} says grow {knob.name}")
        if shrink and not grow:
            return Direction((-1,), f"{', '.join(shrink)} says shrink {knob.name}")
        if grow and shrink:
            return Direction((1, -1), f"{', '.join(grow)} and {', '.join(shrink)} disagree: both ways for {knob.name}")
        return Direction((1, -1), f"no evidence decides the way of {knob.name}: both ways")
    if fam is _F.NUM_WARPS:
        if _S.NARROW_GLOBAL_LOADS.value in sym:
            return Direction((-1,), "narrow_global_loads: more warps would narrow each thread's loads further")
        return Direction((1, -1), "both ways for num_warps (latency hiding against per-thread work)")
    if fam is _F.NUM_STAGES:
        if no_dot:
            return None
        if sym & {s.value for s in SMEM_LIMITED_SYMPTOMS}:
            return Direction((-1,), "shared memory limits occupancy: fewer stages")
        return Direction((1, -1), "both ways for num_stages (latency hiding against shared memory)")
    if fam in (_F.GROUP, _F.SPLIT_K, _F.WAVES_PER_EU):
        return Direction((1, -1), f"both ways for {knob.name}")
    return None


def searched_knobs(category: ActionCategory, knobs: list[Knob]) -> list[Knob]:
    """The knobs a search of ``category`` moves, in the order of :data:`CATEGORY_FAMILIES`."""
    out: list[Knob] = []
    for fam in CATEGORY_FAMILIES.get(category, ()):
        out += sorted((k for k in knobs if k.family is fam and k.serves(category)), key=lambda k: k.name)
    return out


def _values(knob: Knob, ways: tuple[int, ...], steps: int) -> list[tuple[int, int]]:
    """(signed step count, value) of ``knob`` up to ``steps`` steps each allowed way (legal values only)."""
    out: list[tuple[int, int]] = []
    for way in ways:
        for n in range(1, steps + 1):
            if knob.family in LINEAR_FAMILIES:
                value = knob.value
                ok = True
                for _ in range(n):
                    nxt = Knob(knob.name, value, knob.location, knob.allowed, knob.categories).move(way)
                    if nxt is None:
                        ok = False
                        break
                    value = nxt
                new = value if ok else None
            else:
                new = knob.move(way, 2**n)
                if new is not None and abs(math.log2(new / knob.value)) < n - 1e-9:
                    new = None  # clipped at the edge of the legal range: that value is a shorter step
            if new is not None:
                out.append((way * n, new))
    return out


def _area_steps(knobs: list[Knob], config: dict[str, int]) -> int:
    """log2 of the tile-area ratio of ``config`` against the current tile (0 when no tile knob moved)."""
    total = 0.0
    for k in knobs:
        if k.family in (_F.TILE_M, _F.TILE_N, _F.BLOCK) and config[k.name] != k.value and k.value > 0:
            total += math.log2(config[k.name] / k.value)
    return round(total)


def candidate_set(
    category: ActionCategory,
    knobs: list[Knob],
    symptoms: Iterable[str],
    bottleneck: BottleneckType,
    *,
    budget: int,
    fits: Fits | None = None,
    no_dot: bool = False,
    exclude: Iterable[tuple[tuple[str, int], ...]] = (),
) -> CandidateSet:
    """The candidate set of a search of ``category`` around the current knob values (see the module docstring).

    Args:
        category: the category.
        knobs: every knob of the kernel (current values); those the category moves are searched.
        symptoms: the Stage 1 symptom ids, most important first.
        bottleneck: the Stage 1 bottleneck class.
        budget: the most candidates (>= 1).
        fits: why a whole configuration (every knob) cannot fit; ``None``: no check.
        no_dot: the kernel has no tensor-core instruction (Triton pipelines only ``tl.dot`` loads, so
            ``num_stages`` is not searched).
        exclude: configurations (sorted ``(knob, value)`` pairs of the searched knobs) not to propose.
    """
    mine = searched_knobs(category, knobs)
    dirs: dict[str, Direction] = {}
    for k in mine:
        d = direction(category, k, symptoms, bottleneck, no_dot=no_dot)
        if d is not None:
            dirs[k.name] = d
    mine = [k for k in mine if k.name in dirs]
    out = CandidateSet(category=category, knobs=mine, directions=dirs, budget=budget)
    if not mine:
        out.why_empty = f"kernel.py has no knob that a {category.value} search moves"
        return out
    current = {k.name: k.value for k in knobs}
    alone = len(mine) == 1
    options: dict[str, list[tuple[int, int]]] = {}
    for k in mine:
        options[k.name] = [(0, k.value)] + [sv for sv in _values(k, dirs[k.name].ways, 1)]
    skip: set[tuple[tuple[str, int], ...]] = {tuple(sorted((k.name, k.value) for k in mine))}
    skip |= set(exclude)
    entries: dict[tuple[tuple[str, int], ...], tuple[float, int, int, dict[str, int], list[str], int]] = {}

    def add(config: dict[str, int], steps: list[tuple[str, int]], moved: list[str], free: str | None = None) -> None:
        """Add ``config``; a step in the way the evidence gives costs half a step of an undecided knob,
        and ``free`` (warps following the tile) costs nothing."""
        key = tuple(sorted(config.items()))
        if key in skip:
            return
        cost = sum(abs(s) * (0.5 if len(dirs[n].ways) == 1 else 1.0) for n, s in steps if n != free)
        agree = sum(1 for n, s in steps if s and len(dirs[n].ways) == 1)
        total = sum(abs(s) for _, s in steps)
        old = entries.get(key)
        if old is None or cost < old[0]:
            entries[key] = (cost, len(moved), -agree, config, moved, total)

    names = [k.name for k in mine]
    for combo in itertools.product(*(options[n] for n in names)):
        config = {n: v for n, (_, v) in zip(names, combo, strict=True)}
        steps = [(n, s) for n, (s, _) in zip(names, combo, strict=True) if s]
        if steps:
            add(config, steps, [n for n, _ in steps])
    for k in mine:  # longer steps of one knob alone
        for s, v in _values(k, dirs[k.name].ways, ALONE_STEPS if alone else AXIS_STEPS):
            if abs(s) > 1:
                add({**{m.name: m.value for m in mine}, k.name: v}, [(k.name, s)], [k.name])
    warps = next((k for k in mine if k.family is _F.NUM_WARPS), None)
    if warps is not None and category is _A.TILING:  # warps follow the tile area: same work per thread
        for _, _, _, config, moved, _ in list(entries.values()):
            if warps.name in moved:
                continue
            area = _area_steps(mine, config)
            way = 1 if area > 0 else -1
            new = warps.move(way) if area else None
            if new is not None and way in dirs[warps.name].ways:
                tile_steps = [(k.name, _log_steps(k, config[k.name])) for k in mine if k.name in moved]
                add({**config, warps.name: new}, [*tile_steps, (warps.name, way)], [*moved, warps.name], warps.name)
    ranked = sorted(entries.values(), key=lambda r: (r[0], r[1], r[2], r[5]))
    for _, _, _, config, moved, total in ranked:
        whole = {**current, **config}
        if fits is not None:
            problems = fits(whole)
            if problems:
                out.pruned.append(f"{_text(config, mine)}: cannot fit: {'; '.join(problems)[:200]}")
                continue
        if len(out.candidates) >= budget:
            out.pruned.append(f"{_text(config, mine)}: over the budget of {budget}")
            continue
        why = "; ".join(f"{n} {current[n]} -> {config[n]} ({dirs[n].why})" for n in moved)
        out.candidates.append(SetCandidate(parameters=dict(config), evidence=why, steps=total))
    if not out.candidates:
        what = ", ".join(f"{k.name}={k.value}" for k in mine)
        if out.pruned:
            out.why_empty = f"every {category.value} configuration around {what} was pruned: {out.pruned[0]}"
        else:
            out.why_empty = f"{what}: no legal neighbour in the ways the evidence allows ({_ways(dirs)})"
    return out


def _log_steps(knob: Knob, value: int) -> int:
    """Signed steps from ``knob``'s value to ``value`` (log2 for powers of two, difference for linear knobs)."""
    if knob.family in LINEAR_FAMILIES or knob.value <= 0 or value <= 0:
        return value - knob.value
    return round(math.log2(value / knob.value))


def _text(config: dict[str, int], knobs: list[Knob]) -> str:
    return ", ".join(f"{k.name}={config[k.name]}" for k in knobs)


def _ways(dirs: dict[str, Direction]) -> str:
    return "; ".join(d.why for d in dirs.values())
