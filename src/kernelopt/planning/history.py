"""What was tried before: action signatures and learned knob directions from unmasked memory.

An action is *tried* when an unmasked record (``memory/v<N>.json``) holds it: its
``optimization.action_category`` with the knob values Stage 3 applied (``optimization.knob_changes``:
name -> [before, after]), or the plan of that version (``plans/v<N>_plan.md``) with its parameters.
Masked records never count: their actions may be proposed again (spec: masked records are not active
data). Nor does a version whose action was never judged (:func:`never_judged`): the agent meant to plan or
implement it was unavailable, or its implementation failed its own correctness check at Stage 3 (kernel.py put
back, nothing gated or timed): a wrong edit is the implementation's failure, not the action's, and the same action
may be planned again with a right one. Its record still says what happened (its failure, its pitfalls), and a knob
move it planned still counts as failed, so the rules planner does not re-plan its own edit that failed.

A category searched by the rules backend (a record with ``candidates``) whose sweep gained nothing (its
best candidate was the current configuration, or the chosen one failed the gate) *waits*: it is not
planned again until another category has changed the kernel (a later passing version that the gate
found faster, or that has no comparison). A category is never banned for good.

A knob move that made the kernel slower, failed the gate or timed out teaches a *banned direction*:
from the value it started at (or beyond it in the same direction) the knob is not moved that way
again. A move that made it faster teaches a *favoured direction* (keep going while it pays), and
moving the knob straight back is not proposed (the old value is known to be slower). Two moves in a row
of the same knob in the same direction that both made no significant change end that direction too:
the knob is not what limits the kernel there (seen on the H200 on 2026-11-29: examples/softmax took
num_stages 1 -> 2 -> 3 -> 4 -> 5 with no change while BLOCK_SIZE, the knob that mattered, waited).

Step sizes follow a pattern search with expansion and contraction (Hooke and Jeeves, "Direct search
solution of numerical and statistical problems", J. ACM 8(2), 1961; the compass search of Kolda, Lewis
and Torczon, SIAM Review 45(3), 2003): a power-of-two knob whose last move improved the kernel moves
twice as far next time in that direction (x2, then x4, then x8, :data:`MAX_STRIDE`), and a move that
hurt bans only the values at or beyond the one it reached, so a shorter step from the same place may
still be tried.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from kernelopt.actions import ActionCategory
from kernelopt.digits import sig
from kernelopt.memory.model import GateResult, IterationRecord
from kernelopt.planning.knobs import KnobFamily, family
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.plan import Plan, PlanError
from kernelopt.stagenames import Stage
from kernelopt.workspace import Workspace

Signature = tuple[str, tuple[tuple[str, str], ...]]

# A latency change within this band counts as "no significant change" when the record carries no
# verdict of its own. Source: kernelopt's gate reports a difference as significant only outside the
# run-to-run noise; 2 % is the usual spread of repeated CUDA-event timings of a us-scale kernel.
NOISE_BAND_PCT = 2.0
#: Largest ratio of one expanded power-of-two knob move (three doublings at once). kernelopt's choice:
#: it bounds the overshoot of one move to what one contraction step can walk back.
MAX_STRIDE = 8


def _canon(value: object) -> str:
    """Text form used in signatures: ``8``, ``8.0`` and ``"8"`` are the same value."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        text = value.strip()
        try:
            num = float(text)
        except ValueError:
            return text
        return str(int(num)) if num.is_integer() else str(num)
    return str(value)


def canonical(signature: Signature) -> Signature:
    """``signature`` with values in canonical text form (see :func:`_canon`), pairs sorted."""
    category, pairs = signature
    return category, tuple(sorted((k, _canon(v)) for k, v in pairs))


def plan_signature(plan: Plan) -> Signature:
    """:meth:`Plan.signature` in canonical form."""
    return canonical(plan.signature())


def record_signature(record: IterationRecord) -> Signature | None:
    """(category, knob=after pairs) of what a record says was applied; ``None`` without a category."""
    opt = record.optimization
    if opt.action_category is None:
        return None
    pairs = tuple((k, _canon(v[-1])) for k, v in opt.knob_changes.items() if v)
    return canonical((opt.action_category.value, pairs))


#: error_type and root_cause of the loop's failure pitfall of a version whose implementation failed its own
#: correctness check at Stage 3 (``loop.record.finalize_record`` writes them).
IMPLEMENTATION_CHECK_FAILED = ("correctness", f"failed at stage {Stage.IMPLEMENT.value}")


def implementation_failed(record: IterationRecord) -> bool:
    """True when ``record``'s version failed at Stage 3 on its implementation's own correctness check (or a
    kernel.py that did not parse): kernel.py was put back and nothing reached the gate."""
    return record.quality_gate.result in (GateResult.FAIL, GateResult.TIMEOUT_FAIL) and any(
        (pf.error_type, pf.root_cause) == IMPLEMENTATION_CHECK_FAILED for pf in record.pitfalls_and_fixes
    )


def never_judged(record: IterationRecord) -> bool:
    """True when ``record``'s action was never judged, so it is not *tried* (the one rule of the repeated-plan check
    and the planners): the agent meant to plan or implement it was unavailable, or its implementation failed its own
    check (:func:`implementation_failed`)."""
    return record.quality_gate.result is GateResult.AGENT_UNAVAILABLE or implementation_failed(record)


class Outcome(StrEnum):
    """How an iteration ended, as far as the planner cares."""

    IMPROVED = "improved"
    NEUTRAL = "neutral"
    REGRESSED = "regressed"
    FAILED = "failed"
    UNKNOWN = "unknown"


def outcome(record: IterationRecord) -> Outcome:
    """The outcome of ``record``: gate failure, verdict or latency change against its predecessor."""
    if record.quality_gate.result in (GateResult.FAIL, GateResult.TIMEOUT_FAIL):
        return Outcome.FAILED
    cmp = record.performance.comparison_with_previous
    verdict = (cmp.verdict or "").lower()
    if "regress" in verdict:
        return Outcome.REGRESSED
    if "improv" in verdict:
        return Outcome.IMPROVED
    if "no significant" in verdict:
        return Outcome.NEUTRAL
    if cmp.speedup is not None:
        if cmp.speedup > 1 + NOISE_BAND_PCT / 100:
            return Outcome.IMPROVED
        if cmp.speedup < 1 - NOISE_BAND_PCT / 100:
            return Outcome.REGRESSED
        return Outcome.NEUTRAL
    if cmp.latency_delta is not None:
        if cmp.latency_delta < -NOISE_BAND_PCT:
            return Outcome.IMPROVED
        if cmp.latency_delta > NOISE_BAND_PCT:
            return Outcome.REGRESSED
        return Outcome.NEUTRAL
    return Outcome.UNKNOWN


def _number(value: object) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


@dataclass(frozen=True)
class KnobMove:
    """One knob change that was tried: ``knob`` from ``before`` to ``after``, and how it ended."""

    version: str
    category: ActionCategory | None
    knob: str
    before: float
    after: float
    outcome: Outcome

    @property
    def direction(self) -> int:
        return 1 if self.after > self.before else -1


@dataclass
class History:
    """What the unmasked history says the planner must not repeat, and what it may learn from.

    Attributes:
        tried: canonical signatures of every tried action.
        tried_by: signature -> the version labels that tried it.
        moves: knob moves with their outcomes, oldest first.
        failed_categories: category -> versions whose iteration failed or regressed with it.
        waiting: category -> why it waits (its last sweep gained nothing and the kernel has not changed
            since).
        waiting_knobs: category -> the knobs its last sweep searched (waiting categories only).
        last_change: the label of the newest passing version V1.. (the kernel as it is now), if any.
    """

    tried: set[Signature] = field(default_factory=set)
    tried_by: dict[Signature, list[str]] = field(default_factory=dict)
    moves: list[KnobMove] = field(default_factory=list)
    failed_categories: dict[ActionCategory, list[str]] = field(default_factory=dict)
    waiting: dict[ActionCategory, str] = field(default_factory=dict)
    waiting_knobs: dict[ActionCategory, frozenset[str]] = field(default_factory=dict)
    last_change: str | None = None

    def add_tried(self, signature: Signature, version: str) -> None:
        sig = canonical(signature)
        self.tried.add(sig)
        versions = self.tried_by.setdefault(sig, [])
        if version not in versions:
            versions.append(version)

    def was_tried(self, signature: Signature) -> bool:
        """True when this exact action (category and parameters) was tried."""
        return canonical(signature) in self.tried

    def setting_tried(self, signature: Signature) -> Signature | None:
        """The tried action that set the same knob values under any category (knob plans only).

        The rule planner never re-proposes a knob setting under another category's name (a
        ``BLOCK_SIZE=2048`` tried as ``block_size`` is the same change as ``vectorized_access``).
        """
        pairs = canonical(signature)[1]
        if not pairs:
            return None
        return next((sig for sig in sorted(self.tried) if sig[1] == pairs), None)

    def banned(self, knob: str, current: float, direction: int, new: float | None = None) -> KnobMove | None:
        """The failed or regressed move that forbids moving ``knob`` from ``current`` to ``new``.

        A move from ``before`` to ``after`` that hurt forbids, from ``before`` or any value beyond it in
        that direction, every move that reaches ``after`` or goes past it (going as far or further the
        same way is not expected to help); a shorter move is still allowed (the contraction step of a
        pattern search). ``new`` of ``None`` asks about the direction as a whole: then any such move
        forbids it. Two no-change moves in a row end the direction too (:meth:`stalled`).
        """
        for m in reversed(self.moves):
            if m.knob != knob or m.direction != direction or m.outcome not in (Outcome.REGRESSED, Outcome.FAILED):
                continue
            if not ((direction == 1 and current >= m.before) or (direction == -1 and current <= m.before)):
                continue
            if new is None or (direction == 1 and new >= m.after) or (direction == -1 and new <= m.after):
                return m
        return self.stalled(knob, current, direction)

    def stride(self, knob: str, current: float, direction: int) -> int:
        """Ratio of the next power-of-two move of ``knob`` from ``current`` in ``direction``.

        Twice the ratio of the knob's latest move when that move improved the kernel, went the same
        way and ended at ``current`` (expansion); else 2 (one step). At most :data:`MAX_STRIDE`.
        """
        if family(knob) is KnobFamily.GROUP:
            return 2  # 1 -> 8 is already the one jump an L2 group makes (knobs.step); no expansion past it
        for m in reversed(self.moves):
            if m.knob != knob:
                continue
            if m.outcome is not Outcome.IMPROVED or m.direction != direction or m.after != current:
                return 2
            if m.before <= 0 or m.after <= 0:
                return 2
            doublings = max(1, round(abs(math.log2(m.after / m.before))))
            return int(min(MAX_STRIDE, 2 ** (doublings + 1)))
        return 2

    def stalled(self, knob: str, current: float, direction: int) -> KnobMove | None:
        """The latest of two consecutive no-change moves of ``knob`` in ``direction`` that ended at or
        beyond ``current`` (then that direction is not pursued further), else ``None``."""
        mine = [m for m in self.moves if m.knob == knob]
        if len(mine) < 2:
            return None
        last, before_last = mine[-1], mine[-2]
        if not (last.direction == before_last.direction == direction):
            return None
        if last.outcome is not Outcome.NEUTRAL or before_last.outcome is not Outcome.NEUTRAL:
            return None
        if (direction == 1 and current >= last.after) or (direction == -1 and current <= last.after):
            return last
        return None

    def reverses_improvement(self, knob: str, current: float, new: float) -> KnobMove | None:
        """The improving move that brought ``knob`` from ``new`` to ``current`` (moving back is known worse)."""
        for m in reversed(self.moves):
            if m.knob == knob and m.outcome is Outcome.IMPROVED and m.after == current and m.before == new:
                return m
        return None

    def favoured(self, knob: str, current: float) -> int | None:
        """The direction of the latest move of ``knob`` that improved the kernel and ended at ``current``."""
        for m in reversed(self.moves):
            if m.knob == knob:
                if m.outcome is Outcome.IMPROVED and m.after == current:
                    return m.direction
                return None
        return None


def build_history(records: list[IterationRecord], past_plans: dict[str, Plan] | None = None) -> History:
    """Collect tried actions and knob moves from unmasked ``records`` (masked ones are skipped).

    Args:
        records: iteration records, oldest first; masked ones are ignored here even if passed.
        past_plans: version label -> the parsed plan of that version (plans of masked versions are
            ignored too, since they are matched by record).
    """
    past_plans = past_plans or {}
    h = History()
    sweeps: dict[ActionCategory, IterationRecord] = {}
    last_change = 0
    for r in records:
        if r.masked or r.quality_gate.result is GateResult.AGENT_UNAVAILABLE:
            continue  # masked, or never tried: the agent that was to plan or implement it was unavailable
        if (
            r.number > 0
            and r.quality_gate.result is GateResult.PASS
            and outcome(r) in (Outcome.IMPROVED, Outcome.UNKNOWN)
        ):
            # a passing version that the gate found no faster changed the knobs, not what the others
            # would find: it does not wake the waiting categories (no drift between equally fast points)
            last_change = max(last_change, r.number)
            h.last_change = r.version
        if r.candidates and r.optimization.action_category is not None:
            sweeps[r.optimization.action_category] = r
        result = outcome(r)
        sig = record_signature(r)
        plan = past_plans.get(r.version)
        if not never_judged(r):  # a wrong implementation's version did not try its action (its moves still count)
            if sig is not None:
                h.add_tried(sig, r.version)
            if plan is not None:
                h.add_tried(plan.signature(), r.version)
        category = r.optimization.action_category or (plan.action_category if plan else None)
        if category is not None and result in (Outcome.FAILED, Outcome.REGRESSED):
            h.failed_categories.setdefault(category, []).append(r.version)
        applied = {k: v for k, v in r.optimization.knob_changes.items() if len(v) >= 2}
        if not applied and plan is not None:  # nothing recorded as applied: learn from what was planned
            applied = {k: [plan.current_values.get(k), v] for k, v in plan.parameters.items()}
        for knob, values in applied.items():
            before, after = _number(values[0]), _number(values[-1])
            if before is None or after is None or before == after:
                continue
            h.moves.append(KnobMove(r.version, category, knob, before, after, result))
    for cat, r in sweeps.items():
        if r.number > last_change and r.quality_gate.result is not GateResult.PASS:
            h.waiting[cat] = sweep_note(r)
            h.waiting_knobs[cat] = frozenset(k for c in r.candidates for k in c.parameters)
    return h


def sweep_note(record: IterationRecord) -> str:
    """Why the category of ``record``'s sweep waits: what its sweep found, in one line."""
    ok = [c for c in record.candidates if c.latency_us is not None]
    current = next((c for c in record.candidates if c.current), None)
    chosen = next((c for c in record.candidates if c.chosen), None)
    if chosen is not None and not chosen.current:
        what = "its chosen candidate failed the gate"
    elif current is not None and current.latency_us is not None:
        fastest = min((c for c in ok if not c.current), key=lambda c: c.latency_us or 0.0, default=None)
        if fastest is not None and fastest.latency_us is not None and fastest.latency_us < current.latency_us:
            what = (
                f"the fastest candidate ({sig(fastest.latency_us)} us) beat the current configuration "
                f"({sig(current.latency_us)} us) by less than the gain a move needs"
            )
        else:
            what = f"no candidate beat the current configuration ({sig(current.latency_us)} us)"
    else:
        what = "no candidate was correct and timed"
    return f"{record.version} timed {len(ok)} of {len(record.candidates)} candidates: {what}"


def load_past_plans(ws: Workspace, records: list[IterationRecord]) -> tuple[dict[str, Plan], list[str]]:
    """The plans of the unmasked ``records`` (``plans/v<N>_plan.md``), and notes on unreadable ones.

    A historical plan that no longer parses is skipped with a note (its record still names the
    category); it never stops planning.
    """
    plans: dict[str, Plan] = {}
    notes: list[str] = []
    for r in records:
        if r.masked:
            continue
        path = ws.plan_path(r.number)
        if not path.is_file():
            continue
        try:
            plans[r.version] = parse_plan(path.read_text(encoding="utf-8"), origin=f"plans/{path.name}")
        except PlanError as exc:
            notes.append(f"skipped unreadable past plan: {exc.message}")
    return plans, notes
