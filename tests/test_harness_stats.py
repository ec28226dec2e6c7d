"""Timing statistics: quantiles, the distribution-free CI of the median, ABBA ratios and the verdict."""

from __future__ import annotations

import math

import pytest

from kernelopt.harness.stats import (
    Verdict,
    abba_ratios,
    estimate_speedup,
    median_ci_ranks,
    quantile,
    summarize,
    verdict_for,
)


def test_quantile_interpolates_like_numpy_linear() -> None:
    xs = [1.0, 2.0, 3.0, 4.0]
    assert quantile(xs, 0.5) == 2.5
    assert quantile(xs, 0.25) == pytest.approx(1.75)
    assert quantile(xs, 0.75) == pytest.approx(3.25)
    assert quantile([7.0], 0.3) == 7.0
    with pytest.raises(ValueError):
        quantile([], 0.5)


@pytest.mark.parametrize(
    ("n", "lo", "hi", "coverage"),
    [
        # exact binomial coverage 1 - 2 P(B <= l-1), B ~ Bin(n, 1/2), largest l with coverage >= 0.95
        (6, 1, 6, 1 - 2 / 64),
        (10, 2, 9, 1 - 2 * 11 / 1024),
        (20, 6, 15, 1 - 2 * sum(math.comb(20, i) for i in range(6)) / 2**20),
    ],
)
def test_median_ci_ranks_exact(n: int, lo: int, hi: int, coverage: float) -> None:
    got = median_ci_ranks(n)
    assert got[:2] == (lo, hi)
    assert got[2] == pytest.approx(coverage)
    assert got[2] >= 0.95


def test_median_ci_small_n_is_min_max_with_lower_coverage() -> None:
    lo, hi, cov = median_ci_ranks(5)
    assert (lo, hi) == (1, 5) and cov == pytest.approx(1 - 2 / 32)
    s = summarize([3.0, 1.0, 2.0, 5.0, 4.0])
    assert (s.ci_low, s.ci_high, s.median) == (1.0, 5.0, 3.0)
    assert any("only 5 samples" in w for w in s.warnings)


def test_summarize_tight_samples_are_not_noisy() -> None:
    samples = [10.0 + 0.01 * (i % 7) for i in range(40)]
    s = summarize(samples)
    assert s.n == 40 and not s.noisy and s.warnings == []
    assert s.q1 <= s.median <= s.q3 and s.ci_low <= s.median <= s.ci_high
    assert s.rel_iqr_pct is not None and s.rel_iqr_pct < 1.0


def test_summarize_flags_large_spread() -> None:
    samples = [10.0, 10.0, 30.0, 10.0, 25.0, 11.0, 40.0, 10.0, 12.0, 35.0] * 3
    s = summarize(samples)
    assert s.noisy
    assert any("interquartile range" in w for w in s.warnings)


def test_summarize_rejects_non_finite() -> None:
    with pytest.raises(ValueError):
        summarize([1.0, float("nan")])


def test_abba_ratios_pair_within_blocks() -> None:
    # blocks: A1 B1 B2 A2 -> (A1 + A2) / (B1 + B2)
    a = [10.0, 12.0, 20.0, 22.0]
    b = [5.0, 6.0, 10.0, 11.0]
    assert abba_ratios(a, b) == [pytest.approx(2.0), pytest.approx(2.0)]
    with pytest.raises(ValueError):
        abba_ratios([1.0], [1.0])


def test_drift_cancels_in_abba() -> None:
    # a linear drift over time hits A and B equally inside each ABBA block
    a, b = [], []
    t = 0
    for _ in range(20):
        for who in "ABBA":
            val = 10.0 * (1 + 0.01 * t)
            (a if who == "A" else b).append(val)
            t += 1
    est = estimate_speedup(abba_ratios(a, b), 2.0)
    assert est.speedup == pytest.approx(1.0, abs=1e-9)
    assert est.verdict is Verdict.NO_CHANGE


@pytest.mark.parametrize(
    ("lo", "hi", "verdict"),
    [
        (1.03, 1.10, Verdict.IMPROVEMENT),
        (1.01, 1.10, Verdict.NO_CHANGE),  # interval reaches below 1.02
        (0.90, 0.97, Verdict.REGRESSION),
        (0.90, 0.985, Verdict.NO_CHANGE),  # 0.985 > 1/1.02
        (0.97, 1.03, Verdict.NO_CHANGE),
    ],
)
def test_verdict_needs_the_whole_interval_beyond_the_margin(lo: float, hi: float, verdict: Verdict) -> None:
    assert verdict_for(lo, hi, 2.0) is verdict


def test_estimate_speedup_of_a_clear_gain() -> None:
    ratios = [1.10 + 0.001 * (i % 5) for i in range(30)]
    est = estimate_speedup(ratios, 2.0)
    assert est.verdict is Verdict.IMPROVEMENT and est.n_blocks == 30
    assert est.ci_low <= est.speedup <= est.ci_high
