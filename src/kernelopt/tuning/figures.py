"""The text of a session's latency and the round it comes from.

A session times each candidate once as it comes (the first round: a screening, each candidate beside whatever ran
before it), then times the fastest few and the current configuration again side by side (the re-time): the pick, the
table and the verdict rest on the re-time. One configuration so has two figures, and said without their source they
read as the tool contradicting itself (fresh25: the progress said "best 5833 us ... (BLOCK=2048)", the table then
6816 us; review26: "best 31550 us (GROUP=8)" while tuning, then "the current configuration is the best found (70 ms)").
Every figure is said here with its source: the progress lines say theirs is the first round's
(:func:`first_round_best`), and the end says the re-time where it changed what the progress lines said
(:func:`retime_note`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernelopt.digits import sig
from kernelopt.tuning.candidate import Config, Result, Value, config_text


def first_best(results: Sequence[Result]) -> Result | None:
    """The first round's fastest: passed, timed and not cut slow (``None`` before one was)."""
    ok = [r for r in results if r.outcome.ok and r.latency_us is not None and not r.cut_slow]
    return min(ok, key=lambda r: r.latency_us or 0.0) if ok else None


def together(shapes: int) -> str:
    """`` for its 2 shapes together`` where a latency sums several ``SHAPES`` entries (n117), else nothing."""
    return f" for its {shapes} shapes together" if shapes > 1 else ""


def first_round_best(latency_us: float, shapes: int, config: Mapping[str, Value] | None = None) -> str:
    """``first-round best 5833 us for its 2 shapes together (BLOCK=2048)``: the progress lines' best, named as the
    first round's (the re-time at the end may give it another figure, or pick another)."""
    text = f"first-round best {sig(latency_us)} us{together(shapes)}"
    return f"{text} ({config_text(config)})" if config is not None else text


def retime_note(
    results: Sequence[Result], retimed: Sequence[Result], best: Mapping[str, Value] | None, best_us: float | None
) -> str | None:
    """``re-timed: BLOCK=2048 6816 us, the first round's 5833 us``: where the pick's figure is its re-time and the
    re-time changed what the progress lines said (the first round's fastest, or its figure); a pick other than the
    first round's fastest names that one's two figures too (``GROUP=8 73380 us, the first round's fastest at
    31550 us``). ``None`` where the progress lines' best is the pick at the same figure, or the pick's figure is its
    first round's (nothing was re-timed, or the current was not)."""
    fastest = first_best(results)
    if best is None or best_us is None or fastest is None or fastest.latency_us is None:
        return None
    again = {Config.of(r.config): r.latency_us for r in retimed if r.outcome.ok and r.latency_us is not None}
    pick, first = Config.of(best), Config.of(fastest.config)
    if again.get(pick) != best_us:
        return None
    if pick == first and sig(best_us) == sig(fastest.latency_us):
        return None
    ran = {Config.of(r.config): r.latency_us for r in results if r.outcome.ok and r.latency_us is not None}
    named = {k: v for k, v in pick.items() if first.get(k) != v} or dict(pick)
    was = f", the first round's {sig(ran[pick])} us" if ran.get(pick) is not None else ", not timed in the first round"
    parts = [f"{config_text(named)} {sig(best_us)} us{was}"]
    if pick != first:
        other = {k: v for k, v in first.items() if pick.get(k) != v} or dict(first)
        now = f"{sig(again[first])} us" if again.get(first) is not None else "not re-timed"
        parts.append(f"{config_text(other)} {now}, the first round's fastest at {sig(fastest.latency_us)} us")
    shapes = len(fastest.latency_us_by_shape)
    sums = f" (each the sum of its {shapes} shapes)" if shapes > 1 else ""
    return f"re-timed{sums}: {'; '.join(parts)}"
