"""Rank candidate actions for the rule planner (pure: no I/O).

A candidate is one category, optionally with one knob move (``num_warps 4 -> 8``). Its score adds:

* **evidence**: each Stage 1 finding votes for its ``action_categories`` with its confidence weight
  (high 3, medium 2, low 1), halved for its second category, a third for its third..., and decayed by
  the finding's rank (findings come most important first); a profiler speedup estimate attached to
  the finding adds ``min(pct, 50) / 10``;
* **profiler**: each of the profiler's own rule results (Nsight Compute guided analysis) votes for
  the categories its rule answers, with ``0.5 + min(estimated speedup %, 50) / 10``, unless a Stage 1
  finding already read the same counters (:data:`PROFILER_RULE_COVERED_BY`: no vote counted twice);
* **knowledge**: the best idea of the source being searched for that category (wiki technique records
  matching the symptoms score highest), minus 1 for each matching wiki pitfall record;
* **history**: x0.6 for a category whose earlier iteration failed or regressed; +0.75 for a knob move
  that continues a move that improved the kernel;
* **concreteness**: +1 for a candidate with a concrete knob move (it can be applied exactly and
  undone exactly).

The weights are kernelopt's own choice (no external source); they only order candidates, and
ties are broken by the category's place in :class:`~kernelopt.actions.ActionCategory`, then knob name.
Candidates already tried (same category and parameters in unmasked memory), knob moves as far as or
beyond one that failed or regressed before, illegal knob values, and configurations that cannot fit
the GPU (``fits``) are not actionable and say why. A knob whose last move improved the kernel moves
farther the same way (x4, then x8; :meth:`~kernelopt.planning.history.History.stride`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import BottleneckType, Confidence, KernelEvidence, ProfilerRuleResult
from kernelopt.evidence.symptoms import Symptom
from kernelopt.planning.history import History, Signature, canonical
from kernelopt.planning.knobs import Knob, KnobFamily
from kernelopt.planning.knowledge import Idea, KnowledgeSource

CONFIDENCE_WEIGHT = {Confidence.HIGH: 3.0, Confidence.MEDIUM: 2.0, Confidence.LOW: 1.0}
SPEEDUP_CAP_PCT = 50.0
CONCRETE_BONUS = 1.0
FAVOURED_BONUS = 0.75
FAILED_FACTOR = 0.6
PITFALL_PENALTY = 1.0
SECOND_MOVE_DECAY = 0.15

_A = ActionCategory
#: Categories the profiler's own rules answer. Rule ids are Nsight Compute's (seen in its reports:
#: SOLBottleneck, AchievedOccupancy, CPIStall, ...); their meaning follows the Nsight Compute
#: Profiling Guide's description of each section.
PROFILER_RULE_CATEGORIES: dict[str, tuple[ActionCategory, ...]] = {
    "UncoalescedGlobalAccess": (_A.COALESCING, _A.VECTORIZED_ACCESS),
    "UncoalescedSharedAccess": (_A.SMEM_SWIZZLE_PADDING,),
    "SharedMemoryConflicts": (_A.SMEM_SWIZZLE_PADDING,),
    "MemorySharedBankConflicts": (_A.SMEM_SWIZZLE_PADDING,),
    "MemoryCacheAccessPattern": (_A.COALESCING, _A.VECTORIZED_ACCESS),
    "AchievedOccupancy": (_A.OCCUPANCY, _A.BLOCK_SIZE),
    "TheoreticalOccupancy": (_A.OCCUPANCY, _A.REGISTER_PRESSURE, _A.BLOCK_SIZE),
    "Occupancy": (_A.OCCUPANCY, _A.BLOCK_SIZE),
    "LaunchConfiguration": (_A.BLOCK_SIZE, _A.PERSISTENT_KERNEL),
    "WorkloadImbalance": (_A.BLOCK_SIZE, _A.PERSISTENT_KERNEL),
    "ThreadDivergence": (_A.DIVERGENCE,),
    "FPInstructions": (_A.PRECISION, _A.INSTRUCTION_MIX),
    "HighPipeUtilization": (_A.TENSOR_CORE_USE, _A.INSTRUCTION_MIX),
    "IssueSlotUtilization": (_A.NUM_WARPS, _A.SOFTWARE_PIPELINING),
    "CPIStall": (_A.SOFTWARE_PIPELINING, _A.NUM_WARPS),
}
#: Profiler rules whose diagnosis a Stage 1 finding of these symptoms already makes from the same
#: counters (stall reasons, issue rate, occupancy limits), with the SASS and thresholds added: when such a
#: finding fired, the rule's vote would count the same evidence twice, so it is not counted. Seen on the
#: H200 on 2026-11-29: CPIStall and IssueSlotUtilization (39.7 % each) restated examples/layernorm's
#: latency_bound finding and outvoted its cause, 32-bit loads, sending the planner to num_warps and
#: num_stages, which moved nothing.
PROFILER_RULE_COVERED_BY: dict[str, frozenset[Symptom]] = {
    "CPIStall": frozenset(
        {
            Symptom.LATENCY_BOUND,
            Symptom.LATENCY_BOUND_SHORT_SCOREBOARD,
            Symptom.MIO_THROTTLE,
            Symptom.BARRIER_STALLS,
            Symptom.LOW_ISSUE_EFFICIENCY,
            Symptom.NARROW_GLOBAL_LOADS,  # waits on memory with narrow loads: the loads are the cause named
        }
    ),
    "IssueSlotUtilization": frozenset({Symptom.LATENCY_BOUND, Symptom.LOW_ISSUE_EFFICIENCY}),
    "AchievedOccupancy": frozenset({Symptom.ACHIEVED_OCCUPANCY_GAP}),
    "TheoreticalOccupancy": frozenset(
        {
            Symptom.OCCUPANCY_LIMITED_REGISTERS,
            Symptom.OCCUPANCY_LIMITED_SHARED_MEMORY,
            Symptom.OCCUPANCY_LIMITED_BLOCKS,
            Symptom.OCCUPANCY_LIMITED_WARPS,
        }
    ),
}
#: Phrases of a rule message that point at a category when the rule id is not in the table above.
_RULE_MESSAGE_HINTS: tuple[tuple[str, ActionCategory], ...] = (
    ("spill", _A.REGISTER_PRESSURE),
    ("local memory", _A.REGISTER_PRESSURE),
    ("tail effect", _A.BLOCK_SIZE),
    ("partial wave", _A.BLOCK_SIZE),
    ("bank conflict", _A.SMEM_SWIZZLE_PADDING),
    ("uncoalesced", _A.COALESCING),
    ("long scoreboard", _A.SOFTWARE_PIPELINING),
    ("occupancy", _A.OCCUPANCY),
    ("tensor", _A.TENSOR_CORE_USE),
    ("divergen", _A.DIVERGENCE),
    ("grid is too small", _A.BLOCK_SIZE),
)
#: Categories admissible for a bottleneck class even when no finding names them (Nsight Compute
#: Profiling Guide, "Speed Of Light" and "Memory/Compute Workload Analysis"; CUDA C++ Best Practices
#: Guide, "Memory Optimizations" and "Execution Configuration Optimizations").
BOTTLENECK_CATEGORIES: dict[BottleneckType, tuple[ActionCategory, ...]] = {
    BottleneckType.MEMORY_BOUND: (
        _A.COALESCING,
        _A.VECTORIZED_ACCESS,
        _A.REDUCE_BYTES,
        _A.FUSION,
        _A.BLOCK_SIZE,
        _A.L2_RASTERIZATION,
        _A.TMA_ASYNC_COPY,
        _A.NUM_WARPS,
    ),
    BottleneckType.COMPUTE_BOUND: (
        _A.TENSOR_CORE_USE,
        _A.MFMA_USE,
        _A.TILING,
        _A.PRECISION,
        _A.INSTRUCTION_MIX,
        _A.SOFTWARE_PIPELINING,
        _A.WARP_SPECIALIZATION,
    ),
    BottleneckType.LATENCY_BOUND: (
        _A.NUM_WARPS,
        _A.SOFTWARE_PIPELINING,
        _A.OCCUPANCY,
        _A.BLOCK_SIZE,
        _A.REGISTER_PRESSURE,
        _A.WAVE_OCCUPANCY,
    ),
    BottleneckType.LAUNCH_OCCUPANCY_BOUND: (
        _A.BLOCK_SIZE,
        _A.PERSISTENT_KERNEL,
        _A.SPLIT_K,
        _A.OCCUPANCY,
        _A.LAUNCH_OVERHEAD,
        _A.NUM_WARPS,
    ),
    BottleneckType.UNKNOWN: (_A.BLOCK_SIZE, _A.NUM_WARPS, _A.SOFTWARE_PIPELINING),
}

_S = Symptom
# Symptoms that call for smaller blocks/tiles (more CTAs, fewer registers or less shared memory each).
SHRINK_SYMPTOMS = frozenset(
    {
        _S.SMALL_GRID,
        _S.TAIL_EFFECT,
        _S.REGISTER_SPILLS,
        _S.SCRATCH_SPILLS,
        _S.OCCUPANCY_LIMITED_REGISTERS,
        _S.OCCUPANCY_LIMITED_SHARED_MEMORY,
        _S.OCCUPANCY_LIMITED_VGPRS,
        _S.OCCUPANCY_LIMITED_LDS,
    }
)
SPILL_SYMPTOMS = frozenset({_S.REGISTER_SPILLS, _S.SCRATCH_SPILLS})
SMEM_LIMITED_SYMPTOMS = frozenset({_S.OCCUPANCY_LIMITED_SHARED_MEMORY, _S.OCCUPANCY_LIMITED_LDS})
_REG_LIMITED = frozenset(
    {_S.REGISTER_SPILLS, _S.SCRATCH_SPILLS, _S.OCCUPANCY_LIMITED_REGISTERS, _S.OCCUPANCY_LIMITED_VGPRS}
)
_F = KnobFamily
#: Knob categories that can still be planned as a code change once every knob move was spent (they
#: have code-level forms: fewer live values, smaller per-thread fragments, manual prefetching, wider
#: accesses through pointer hints). Pure launch knobs (num_warps, GROUP_SIZE_M, SPLIT_K) have none.
CODE_AFTER_KNOBS = frozenset(
    {_A.REGISTER_PRESSURE, _A.OCCUPANCY, _A.TILING, _A.VECTORIZED_ACCESS, _A.SOFTWARE_PIPELINING}
)
_TILE_DIMS = (_F.TILE_M, _F.TILE_N, _F.TILE_K)
#: Categories :func:`knob_moves` knows how to carry out with knob moves (which knobs may serve each is
#: the tunables' decision, :meth:`Knob.serves`). Other categories are code changes.
KNOB_MOVE_CATEGORIES = frozenset(
    {
        _A.NUM_WARPS,
        _A.BLOCK_SIZE,
        _A.TILING,
        _A.SOFTWARE_PIPELINING,
        _A.REGISTER_PRESSURE,
        _A.OCCUPANCY,
        _A.WAVE_OCCUPANCY,
        _A.L2_RASTERIZATION,
        _A.SPLIT_K,
        _A.VECTORIZED_ACCESS,
    }
)


@dataclass(frozen=True)
class Candidate:
    """One possible action.

    Attributes:
        category: the action category.
        knob: the knob it moves, for knob-level actions.
        new_value: the knob's new value.
        score: ranking score (higher first).
        refs: the knowledge behind it (wiki record ids, ``path:line``, URLs).
        reasons: short notes on what raised or lowered the score.
    """

    category: ActionCategory
    knob: Knob | None = None
    new_value: int | None = None
    score: float = 0.0
    refs: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    @property
    def parameters(self) -> dict[str, int]:
        return {self.knob.name: self.new_value} if self.knob is not None and self.new_value is not None else {}

    @property
    def direction(self) -> int:
        if self.knob is None or self.new_value is None:
            return 0
        return 1 if self.new_value > self.knob.value else -1

    def signature(self) -> Signature:
        return canonical((self.category.value, tuple((k, str(v)) for k, v in self.parameters.items())))

    def describe(self) -> str:
        """``num_warps: num_warps 4 -> 8`` or ``coalescing`` (code change)."""
        if self.knob is not None:
            return f"{self.category.value}: {self.knob.name} {self.knob.value} -> {self.new_value}"
        return f"{self.category.value} (code change)"


def symptoms_of(kernel: KernelEvidence) -> list[str]:
    """Symptom ids of the kernel's findings, most important first, without repeats."""
    return list(dict.fromkeys(f.symptom for f in kernel.findings))


#: Achieved occupancy (% of the SM's warp slots) at or above which more warps cannot be the answer to a
#: low issue rate: Nsight Compute's IssueSlotUtilization rule then says to reduce the stalls of the warps
#: already there (its message: "To increase the number of eligible warps, reduce the time the active
#: warps are stalled"); 80 % is its TheoreticalOccupancy rule's "low" line (TheoreticalOccupancy.py).
HIGH_OCCUPANCY_PCT = 80.0


def rule_categories(rule: ProfilerRuleResult, kernel: KernelEvidence | None = None) -> tuple[ActionCategory, ...]:
    """The categories a profiler rule result answers (by rule id, else by its message).

    With ``kernel``: a low issue rate (IssueSlotUtilization) at high achieved occupancy does not ask for
    more warps (:data:`HIGH_OCCUPANCY_PCT`).
    """
    if rule.rule_id in PROFILER_RULE_CATEGORIES:
        cats = PROFILER_RULE_CATEGORIES[rule.rule_id]
        occupancy = kernel.metric("achieved_occupancy_pct") if kernel is not None else None
        if rule.rule_id == "IssueSlotUtilization" and occupancy is not None and occupancy >= HIGH_OCCUPANCY_PCT:
            cats = tuple(c for c in cats if c is not _A.NUM_WARPS)
        return cats
    low = rule.message.lower()
    return tuple(dict.fromkeys(cat for phrase, cat in _RULE_MESSAGE_HINTS if phrase in low))


def evidence_scores(kernel: KernelEvidence) -> dict[ActionCategory, float]:
    """Votes of the Stage 1 findings (see the module docstring)."""
    out: dict[ActionCategory, float] = defaultdict(float)
    for i, f in enumerate(kernel.findings):
        weight = CONFIDENCE_WEIGHT[f.confidence] / (1 + 0.25 * i)
        bonus = min(f.estimated_speedup_pct or 0.0, SPEEDUP_CAP_PCT) / 10
        for j, cat in enumerate(f.action_categories):
            out[cat] += (weight + bonus) / (1 + j)
    return dict(out)


def profiler_scores(kernel: KernelEvidence) -> dict[ActionCategory, float]:
    """Votes of the profiler's own rules that carry an estimate or are optimization advice."""
    out: dict[ActionCategory, float] = defaultdict(float)
    fired = {f.symptom for f in kernel.findings}
    for r in kernel.profiler_rules:
        if fired & PROFILER_RULE_COVERED_BY.get(r.rule_id, frozenset()):
            continue
        est = r.estimated_speedup_pct
        if (est is None or est <= 0) and (r.kind or "").upper() not in ("OPT", "OPTIMIZATION", "WARNING", "WRN"):
            continue
        for j, cat in enumerate(rule_categories(r, kernel)):
            out[cat] += (0.5 + min(est or 0.0, SPEEDUP_CAP_PCT) / 10) / (1 + j)
    return dict(out)


def admissible(kernel: KernelEvidence) -> set[ActionCategory]:
    """Categories the evidence supports: the findings', the profiler rules', the bottleneck class's."""
    cats = {c for f in kernel.findings for c in f.action_categories}
    cats |= {c for r in kernel.profiler_rules for c in rule_categories(r, kernel)}
    cats |= set(BOTTLENECK_CATEGORIES[kernel.bottleneck])
    return cats


def idea_scores(
    ideas: list[Idea], symptoms: list[str], allowed: set[ActionCategory]
) -> tuple[dict[ActionCategory, float], dict[ActionCategory, list[str]], dict[ActionCategory, float]]:
    """(category -> idea score, category -> refs, category -> pitfall penalty) of one source's ideas.

    Wiki technique records count when they answer one of the kernel's symptoms or their category is
    admissible; other sources' ideas count only for admissible categories (they say how, the evidence
    says what).
    """
    best: dict[ActionCategory, float] = {}
    refs: dict[ActionCategory, list[str]] = defaultdict(list)
    penalty: dict[ActionCategory, float] = defaultdict(float)
    top = max((i.score for i in ideas if i.score > 0), default=1.0)
    sym = set(symptoms)
    for idea in ideas:
        if idea.category is None:
            continue
        matched = sym & set(idea.matched_symptoms)
        if idea.kind == "pitfall":
            if matched or idea.category in allowed:
                penalty[idea.category] += PITFALL_PENALTY
                refs[idea.category].append(idea.ref)
            continue
        if idea.source is KnowledgeSource.GPU_WIKI:
            if not matched and idea.category not in allowed:
                continue
            value = 1.0 + max(idea.score, 0.0) / top + 0.5 * len(matched)
            value *= 0.8 if idea.neutral else 1.0
        else:
            if idea.category not in allowed:
                continue
            value = 1.0
        best[idea.category] = max(best.get(idea.category, 0.0), value)
        refs[idea.category].append(idea.ref)
    return best, dict(refs), dict(penalty)


def _present(knobs: list[Knob], families: tuple[KnobFamily, ...]) -> list[Knob]:
    """Knobs of the given families, in the order of ``families`` then knob name."""
    out = []
    for fam in families:
        out += sorted((k for k in knobs if k.family is fam and k.numeric), key=lambda k: k.name)
    return out


def knob_moves(
    category: ActionCategory, knobs: list[Knob], symptoms: list[str], bottleneck: BottleneckType
) -> list[tuple[Knob, int]]:
    """Knob moves that implement ``category`` here, best first (direction chosen from the symptoms).

    Directions: a shrink symptom (small grid, tail effect, spills, register/shared-memory limited
    occupancy) or a launch/occupancy-bound kernel asks for smaller blocks and tiles, unless the kernel
    is bound by on-chip bandwidth with no spills (too little reuse: tiling and block moves then grow); otherwise blocks
    and tiles grow (more work per program, fewer programs, wider accesses); block sizes move only in
    the direction the evidence gives. ``num_warps`` tries up, then down (never up when global loads are
    already narrow: more warps share the same block). Pipelining deepens unless
    shared memory limits occupancy. Register pressure shrinks tiles and stages and spreads the tile over
    more warps. Within one move the largest knob shrinks first and the smallest grows first.
    """
    sym = set(symptoms)
    shrink = bool(sym & SHRINK_SYMPTOMS) or bottleneck is BottleneckType.LAUNCH_OCCUPANCY_BOUND
    grow = -1 if shrink else 1
    if category in (_A.TILING, _A.BLOCK_SIZE) and Symptom.ONCHIP_BANDWIDTH_BOUND in sym and not sym & SPILL_SYMPTOMS:
        # too little reuse per byte loaded: only larger tiles answer it, unless registers spill (spill
        # traffic is local memory served by L1, and larger tiles spill more)
        grow = 1
    plan: list[tuple[tuple[KnobFamily, ...], int]]
    if category is _A.NUM_WARPS:
        plan = [((_F.NUM_WARPS,), 1), ((_F.NUM_WARPS,), -1)]
    elif category is _A.BLOCK_SIZE:
        plan = [((_F.BLOCK, _F.THREADS, _F.TILE_M, _F.TILE_N), grow)]
    elif category is _A.TILING:
        plan = [((_F.TILE_M, _F.TILE_N), grow), ((_F.TILE_K,), grow), ((_F.BLOCK,), grow)]
    elif category is _A.SOFTWARE_PIPELINING:
        plan = [((_F.NUM_STAGES,), -1 if sym & SMEM_LIMITED_SYMPTOMS else 1)]
    elif category is _A.REGISTER_PRESSURE:
        plan = [((_F.BLOCK, _F.TILE_M, _F.TILE_N, _F.TILE_K), -1), ((_F.NUM_STAGES,), -1), ((_F.NUM_WARPS,), 1)]
    elif category is _A.OCCUPANCY:
        if sym & SMEM_LIMITED_SYMPTOMS:
            plan = [((_F.NUM_STAGES,), -1), ((_F.BLOCK, _F.TILE_M, _F.TILE_N), -1)]
        elif sym & _REG_LIMITED:
            plan = [((_F.BLOCK, _F.TILE_M, _F.TILE_N), -1), ((_F.NUM_WARPS,), 1)]
        elif Symptom.OCCUPANCY_LIMITED_BLOCKS in sym:
            plan = [((_F.BLOCK, _F.THREADS), 1), ((_F.NUM_WARPS,), 1)]
        else:
            plan = [((_F.BLOCK, _F.THREADS, _F.TILE_M, _F.TILE_N), -1), ((_F.NUM_WARPS,), 1)]
    elif category is _A.WAVE_OCCUPANCY:
        plan = [((_F.WAVES_PER_EU,), 1), ((_F.NUM_WARPS,), -1)]
    elif category is _A.L2_RASTERIZATION:
        plan = [((_F.GROUP,), 1)]
    elif category is _A.SPLIT_K:
        plan = [((_F.SPLIT_K,), 1)]
    elif category is _A.VECTORIZED_ACCESS:
        plan = [((_F.BLOCK,), 1), ((_F.NUM_WARPS,), -1)]
    else:
        return []
    if Symptom.NARROW_GLOBAL_LOADS in sym:
        # a program's block is spread over 32 * num_warps threads: more warps narrow each thread's
        # contiguous slice, and so its loads, further (Triton language docs, "Layouts")
        plan = [(fams, d) for fams, d in plan if not (fams == (_F.NUM_WARPS,) and d > 0)]
    out: list[tuple[Knob, int]] = []
    seen: set[tuple[str, int]] = set()
    for families, direction in plan:
        # Shrink the largest knob first; grow the smallest first (squarer tiles, balanced blocks).
        group = sorted(_present(knobs, families), key=lambda k: -k.value if direction < 0 else k.value)
        for knob in group:
            if not knob.serves(category):
                continue
            new = knob.move(direction)
            if new is not None and (knob.name, new) not in seen:
                seen.add((knob.name, new))
                out.append((knob, new))
    return out


STAGES_WITHOUT_DOT = (
    "Triton pipelines the loads that feed tl.dot ('num_stages ... mostly useful for matrix multiplication "
    "workloads', triton.Config docs) and this kernel's SASS has no tensor-core instruction"
)


def stages_without_dot(kernel: KernelEvidence) -> bool:
    """True when the SASS is known and has no tensor-core instruction (a Triton ``num_stages`` move has
    nothing to pipeline; seen on the H200 on 2026-11-29: softmax and layernorm flat over num_stages 1-4
    in their exhaustive sweeps, and four flat num_stages versions in the loop)."""
    return kernel.isa is not None and kernel.isa.tensor_instructions == 0


#: Why a configuration (knob name -> value) cannot fit the GPU; empty when it fits.
Fits = Callable[[dict[str, int]], list[str]]


def _longest_move(
    category: ActionCategory,
    knob: Knob,
    one_step: int,
    direction: int,
    knobs: list[Knob],
    history: History,
    fits: Fits | None,
) -> tuple[int | None, str | None]:
    """The farthest actionable move of ``knob`` in ``direction``: (new value, None) or (None, why not).

    Tries the stride history allows (:meth:`History.stride`: longer after a move that improved), then
    shorter ones down to ``one_step``. A move is not actionable when the same setting was tried, a
    move as far or farther that way hurt (:meth:`History.banned`), it undoes an improvement, or the
    configuration cannot fit (``fits``). The reason given is the one-step move's.
    """
    ratio = history.stride(knob.name, knob.value, direction)
    tries: list[int] = []
    while ratio > 2:
        value = knob.move(direction, ratio)
        if value is not None and value not in tries and value != one_step:
            tries.append(value)
        ratio //= 2
    tries.append(one_step)
    why: str | None = None
    for new in tries:
        why = _why_not(category, knob, new, direction, knobs, history, fits)
        if why is None:
            return new, None
    return None, why


def _why_not(
    category: ActionCategory,
    knob: Knob,
    new: int,
    direction: int,
    knobs: list[Knob],
    history: History,
    fits: Fits | None,
) -> str | None:
    """Why moving ``knob`` to ``new`` is not actionable, or ``None`` when it is."""
    cand = Candidate(category, knob, new)
    same = history.setting_tried(cand.signature())
    if same is not None:
        return f"{knob.name} {knob.value} -> {new} tried in {', '.join(history.tried_by.get(same, []))}"
    bad = history.banned(knob.name, knob.value, direction, new)
    if bad is not None:
        return (
            f"{knob.name} {'up' if direction > 0 else 'down'} {bad.outcome.value} in {bad.version} "
            f"({bad.before:g} -> {bad.after:g})"
        )
    undo = history.reverses_improvement(knob.name, knob.value, new)
    if undo is not None:
        return (
            f"{knob.name} {knob.value} -> {new} undoes the improvement of {undo.version} "
            f"({undo.before:g} -> {undo.after:g})"
        )
    if fits is not None:
        problems = fits({**{k.name: k.value for k in knobs}, knob.name: new})
        if problems:
            return f"{knob.name} {knob.value} -> {new} cannot fit: {'; '.join(problems)}"
    return None


@dataclass
class _Moves:
    """The knob moves of one ranking: what the kernel's knobs allow, given its evidence and history."""

    kernel: KernelEvidence
    symptoms: list[str]
    knobs: list[Knob] | None
    history: History
    fits: Fits | None
    triton: bool

    def of(
        self, cat: ActionCategory, base: float, reasons: list[str], refs: tuple[str, ...]
    ) -> tuple[list[Candidate], list[str]]:
        """The actionable moves of ``cat``'s knobs, scored (a second knob less than the first, a longer move
        or one that continues an improvement more), and why each other move is not actionable."""
        found: list[Candidate] = []
        rejected: list[str] = []
        if cat not in KNOB_MOVE_CATEGORIES or self.knobs is None:
            return found, rejected
        knobs, history = self.knobs, self.history
        for k, (knob, one_step) in enumerate(knob_moves(cat, knobs, self.symptoms, self.kernel.bottleneck)):
            direction = 1 if one_step > knob.value else -1
            if self.triton and knob.family is KnobFamily.NUM_STAGES and stages_without_dot(self.kernel):
                rejected.append(f"{knob.name}: {STAGES_WITHOUT_DOT}")
                continue
            new, why_not = _longest_move(cat, knob, one_step, direction, knobs, history, self.fits)
            if new is None:
                rejected.append(why_not or f"{knob.name} {knob.value} -> {one_step} not actionable")
                continue
            score = base * (1 - SECOND_MOVE_DECAY * k) + CONCRETE_BONUS
            why = [*reasons, "knob move"]
            if new != one_step:
                why.append(f"longer move ({knob.value} -> {new}): the last move of {knob.name} this way improved")
            if history.favoured(knob.name, knob.value) == direction:
                score += FAVOURED_BONUS
                why.append("continues a move that improved")
            found.append(Candidate(cat, knob, new, round(score, 9), refs, tuple(why)))
        return found, rejected


@dataclass
class Ranking:
    """Actionable candidates, best first; why categories are not actionable; moves skipped per category."""

    candidates: list[Candidate]
    notes: dict[ActionCategory, str]
    skipped: dict[ActionCategory, list[str]]


def rank(
    kernel: KernelEvidence,
    ideas: list[Idea] | None,
    knobs: list[Knob] | None,
    history: History,
    *,
    knob_only: bool = False,
    fits: Fits | None = None,
    triton: bool = False,
) -> Ranking:
    """Rank the actions answering ``kernel``'s evidence that ``ideas`` support.

    Args:
        kernel: the Stage 1 evidence of the kernel being planned.
        ideas: one source's ideas; only their categories are candidates. ``None`` ranks the
            evidence's own candidate categories (the Stage 1 rules' ``action_categories``), used
            when no knowledge source gave a path.
        knobs: the kernel's tunables; ``None`` when discovery is unavailable (then knob categories
            are planned as code changes).
        history: what unmasked memory says was tried, failed, regressed or improved.
        knob_only: only knob moves are actionable (the rule-based implementer can apply nothing else).
        fits: why a configuration (knob name -> value, every knob) cannot fit the GPU (empty when it
            fits), e.g. :func:`kernelopt.tunables.resource_problems` with the GPU's limits; moves
            into a configuration that cannot fit are not actionable. ``None``: no check.
        triton: the kernel is Triton code: ``num_stages`` moves are not actionable when the SASS shows
            no tensor-core instruction (:func:`stages_without_dot`).
    """
    symptoms = symptoms_of(kernel)
    ev = evidence_scores(kernel)
    prof = profiler_scores(kernel)
    if ideas is None:
        support = {c: 0.0 for f in kernel.findings for c in f.action_categories}
        refs: dict[ActionCategory, list[str]] = {}
        penalty: dict[ActionCategory, float] = {}
    else:
        support, refs, penalty = idea_scores(ideas, symptoms, admissible(kernel))
    order = list(ActionCategory)
    candidates: list[Candidate] = []
    notes: dict[ActionCategory, str] = {}
    skipped: dict[ActionCategory, list[str]] = {}
    moves = _Moves(kernel, symptoms, knobs, history, fits, triton)
    for cat in sorted(support, key=order.index):
        if cat in history.waiting:
            notes[cat] = f"waits until another category changes the kernel ({history.waiting[cat]})"
            continue
        base = ev.get(cat, 0.0) + prof.get(cat, 0.0) + support[cat] - penalty.get(cat, 0.0)
        reasons = [f"evidence {ev.get(cat, 0.0):.2f}", f"profiler {prof.get(cat, 0.0):.2f}"]
        reasons.append(f"knowledge {support[cat]:.2f}")
        if penalty.get(cat):
            reasons.append(f"pitfalls -{penalty[cat]:.2f}")
        if cat in history.failed_categories:
            base *= FAILED_FACTOR
            reasons.append(f"failed/regressed before in {', '.join(history.failed_categories[cat])}")
        cat_refs = tuple(dict.fromkeys(refs.get(cat, [])))
        found, rejected = moves.of(cat, base, reasons, cat_refs)
        has_family = cat in KNOB_MOVE_CATEGORIES and knobs is not None and any(k.serves(cat) for k in knobs)
        knobs_spent = has_family and not found
        if knobs_spent and not rejected:
            rejected.append("its knobs are at their legal limits")
        if not has_family or (knobs_spent and cat in CODE_AFTER_KNOBS):
            if knob_only:
                if not has_family:
                    rejected.append("no knob of the kernel implements it (knob-only planning)")
            else:
                notes_code = [*reasons, "code change after its knob moves were spent"] if has_family else reasons
                cand = Candidate(cat, None, None, round(base, 9), cat_refs, tuple(notes_code))
                if history.was_tried(cand.signature()):
                    rejected.append(f"code change tried in {', '.join(history.tried_by.get(cand.signature(), []))}")
                else:
                    found.append(cand)
        candidates += found
        if rejected:
            skipped[cat] = rejected
            if not found:
                notes[cat] = "; ".join(rejected)
    candidates.sort(key=lambda c: (-c.score, order.index(c.category), c.knob.name if c.knob else "", c.new_value or 0))
    return Ranking(candidates, notes, skipped)
