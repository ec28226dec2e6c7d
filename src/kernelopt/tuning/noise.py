"""Ranking candidates whose timings are noisy (issue 32, item 7; pure).

On a loaded machine one candidate's samples can spread 100x, and the median of 20 of them can rank a slow
configuration first. Three rules, one place:

- **more samples when the spread is high**: a candidate whose samples' interquartile range is over
  :data:`~kernelopt.harness.stats.NOISY_REL_IQR_PCT` of their median (torch.utils.benchmark's warning
  threshold) is timed again, up to ``BenchPlan.extra_rounds`` more rounds (:func:`needs_more`);
- **the re-time ranks by paired ratios**: the top few are re-timed interleaved (ABBA rounds, every candidate
  sampled once a round), and :func:`pick` ranks them by the median over the rounds of each candidate's sample
  divided by the fastest-by-median's sample of the same round. Load that comes and goes hits the samples of one
  round alike, so it cancels in the ratio, where a median of each candidate's own samples keeps it;
- **a session too noisy to rank says so**: when the pick's re-timed samples spread more than
  :data:`TOO_NOISY_REL_IQR_PCT` of their median, or its paired ratio against the runner-up cannot tell them
  apart, :func:`too_noisy` gives the one line that replaces a pick (nothing is written); a pick the wall time
  left no re-time for is judged on its first samples alike (:func:`too_noisy_unretimed`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from kernelopt.harness.stats import NOISY_REL_IQR_PCT
from kernelopt.tuning.candidate import Config, Result

TOO_NOISY_REL_IQR_PCT = 50.0
"""Our choice: re-timed samples whose interquartile range is over half their median cannot rank configurations
a few percent apart; the session says it is too noisy instead of writing a pick."""
MIN_PAIRS = 8
"""Our choice: paired ratios rank the re-timed candidates from 8 rounds' samples on (a default re-time takes 20);
four noisy samples can put a 2x slower candidate first (2026-12-05, two busy processes on 2 cores)."""
RETIME_MAX = 8
"""At most this many candidates are re-timed together (the top few, the current one, and those whose fastest
quarter of samples reaches the best's median: possibly as fast)."""


def rel_iqr_pct(samples: Sequence[float]) -> float | None:
    """The interquartile range of ``samples`` as a percentage of their median (``None`` for fewer than 4 or a
    median of 0)."""
    if len(samples) < 4:
        return None
    q1, med, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return 100.0 * (q3 - q1) / med if med > 0 else None


def needs_more(samples: Sequence[float]) -> bool:
    """True when ``samples`` spread more than :data:`~kernelopt.harness.stats.NOISY_REL_IQR_PCT` of their
    median: the candidate is timed again."""
    spread = rel_iqr_pct(samples)
    return spread is not None and spread > NOISY_REL_IQR_PCT


def lower_quartile(samples: Sequence[float]) -> float | None:
    if len(samples) < 4:
        return min(samples) if samples else None
    return statistics.quantiles(samples, n=4, method="inclusive")[0]


def contenders(ok: Sequence[Result], top: int) -> list[Config]:
    """What the re-time takes: the ``top`` fastest by first latency, then (up to :data:`RETIME_MAX`) every
    other candidate whose lower quartile of samples reaches the best's latency: on noisy samples it may be
    as fast (issue 32: the best had been timed but was not among the three re-timed)."""
    ranked = sorted(ok, key=lambda r: r.latency_us or 0.0)
    picks = [Config.of(r.config) for r in ranked[:top]]
    if not ranked or top <= 0:
        return picks
    best = ranked[0].latency_us or 0.0
    for r in ranked[top:]:
        if len(picks) >= RETIME_MAX:
            break
        low = lower_quartile(r.samples_us)
        if low is not None and low <= best and Config.of(r.config) not in picks:
            picks.append(Config.of(r.config))
    return picks


def paired_ratios(samples: Sequence[float], anchor: Sequence[float]) -> list[float]:
    """``samples[k] / anchor[k]`` for the rounds both have (a re-time samples each candidate once a round)."""
    return [a / b for a, b in zip(samples, anchor, strict=False) if b > 0]


def pick(timed: Sequence[Result], first: Mapping[Config, Sequence[float]] | None = None) -> Result | None:
    """The fastest of re-timed results by the median paired ratio against the fastest-by-median (see the module
    docstring), given at least :data:`MIN_PAIRS` rounds; with fewer, by the lower quartile of all of a
    candidate's samples (``first``: its first measurement's, and the re-time's): load only adds time, so the
    fastest quarter is what a few loaded samples cannot move. By latency when the samples cannot be compared
    (several shapes: the latency is the sum of their medians)."""
    if not timed:
        return None
    by_median = min(timed, key=lambda r: r.latency_us or 0.0)
    anchor = by_median.samples_us
    if any(r.latency_us_by_shape for r in timed):
        return by_median
    pairable = all(len(r.samples_us) == len(anchor) >= MIN_PAIRS for r in timed)
    if not pairable:

        def low(r: Result) -> float:
            samples = [*r.samples_us, *(first or {}).get(Config.of(r.config), ())]
            q = lower_quartile(samples)
            return q if q is not None else (r.latency_us or 0.0)

        return min(timed, key=low)

    def score(r: Result) -> float:
        return 1.0 if r is by_median else statistics.median(paired_ratios(r.samples_us, anchor))

    return min(timed, key=score)


def too_noisy(best: Result, timed: Sequence[Result]) -> str | None:
    """Why the re-time cannot rank (one line), or ``None``: the pick's samples spread more than
    :data:`TOO_NOISY_REL_IQR_PCT` of their median, and the runner-up's paired ratios to it fall on both sides
    of 1 in at least a third of the rounds each."""
    spread = rel_iqr_pct(best.samples_us)
    if spread is None or spread <= TOO_NOISY_REL_IQR_PCT or len(best.samples_us) < MIN_PAIRS:
        return None  # too few rounds to call it: the pick came from every sample's lower quartile
    others = [r for r in timed if r is not best and len(r.samples_us) == len(best.samples_us)]
    if not others:
        return None
    runner = min(others, key=lambda r: statistics.median(paired_ratios(r.samples_us, best.samples_us)))
    ratios = paired_ratios(runner.samples_us, best.samples_us)
    faster = sum(x < 1 for x in ratios)
    if min(faster, len(ratios) - faster) * 3 < len(ratios):
        return None  # noisy, but one is faster in most rounds: the ranking holds
    return (
        f"too noisy to rank: the re-timed samples of the best spread {spread:.0f} % of their median (over "
        f"{TOO_NOISY_REL_IQR_PCT:g} %) and the runner-up was faster in {faster} of {len(ratios)} rounds; "
        "time again on a quieter machine"
    )


SIGN_TEST_P = 0.01
"""The one-sided level of the sign test by which a pick beats the current configuration (:func:`beats_current`)."""


def sign_test_wins(rounds: int, p: float = SIGN_TEST_P) -> int:
    """The fewest wins in ``rounds`` paired rounds that a fair coin reaches with probability at most ``p``: 8 of 8,
    13 of 15, 16 of 20 at 1 %."""
    tail = 0
    for wins in range(rounds, -1, -1):
        tail += math.comb(rounds, wins)
        if tail / 2**rounds > p:
            return wins + 1
    return 0


def beats_current(best: Result, current: Result, min_gain_pct: float) -> tuple[int, int] | None:
    """(wins, rounds) when ``best`` beat ``current`` by at least ``min_gain_pct`` in enough of their paired re-timed
    rounds (at least :data:`MIN_PAIRS`) that a fair coin would not (:func:`sign_test_wins`), its median paired gain
    at least ``min_gain_pct`` too; else ``None``.

    A re-time too noisy to rank the fastest few among themselves (:func:`too_noisy`) can still say that the pick
    beats the kernel as written: then any of the few would, and keeping the current configuration threw the gain
    away (a session kept a configuration 100x slower than every candidate it had re-timed, 2026-12-05). Every round
    was asked first; at load 7-16 on two cores one round in twenty lost to a context switch, and a block seven times
    the current's, 2-3x faster, was kept out (the README's CPU walk-through, 2026-12-06)."""
    ratios = paired_ratios(current.samples_us, best.samples_us)
    if len(ratios) < MIN_PAIRS or statistics.median(ratios) < 1 + min_gain_pct / 100:
        return None
    wins = sum(r >= 1 + min_gain_pct / 100 for r in ratios)
    return (wins, len(ratios)) if wins >= sign_test_wins(len(ratios)) else None


def too_noisy_unretimed(best: Result, ok: Sequence[Result]) -> str | None:
    """Why a pick that no re-time checked (the wall time left could not fit one) cannot be trusted, or ``None``:
    its first samples spread more than :data:`TOO_NOISY_REL_IQR_PCT` of their median and another candidate's
    fastest quarter of samples reaches that median (on such samples it may be as fast)."""
    spread = rel_iqr_pct(best.samples_us)
    if spread is None or spread <= TOO_NOISY_REL_IQR_PCT or best.latency_us is None:
        return None
    rivals = [r for r in ok if r is not best and Config.of(r.config) != Config.of(best.config)]
    close = [r for r in rivals if (low := lower_quartile(r.samples_us)) is not None and low <= best.latency_us]
    if not close:
        return None
    return (
        f"too noisy to rank without a re-time: the samples of the fastest spread {spread:.0f} % of their median "
        f"(over {TOO_NOISY_REL_IQR_PCT:g} %) and {len(close)} other candidate(s) may be as fast; time again with "
        "more wall time or on a quieter machine"
    )
