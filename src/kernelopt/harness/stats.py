"""Statistics of timing samples: median, IQR, a 95 % confidence interval, and the ABBA speedup verdict.

Pure arithmetic on lists of floats (no I/O, no clock, no random numbers), so results are reproducible.

The speedup claim (one rule for the gate, the batch table and every summary, :func:`claim`): a version is
called faster (or slower) only when three things hold at once:

1. **Significance.** A one-sample t-test on the log ratios of the ABBA blocks (each block pairs two samples of
   each version taken next to each other, so slow drift cancels inside it) gives p < 0.05. Blocks are not
   independent when the machine's load comes and goes over many blocks: the variance is inflated by the
   AR(1) factor ``(1 + rho) / (1 - rho)`` of the blocks' lag-1 autocorrelation ``rho`` (effective sample size
   ``n (1 - rho) / (1 + rho)``, the batch-means correction of simulation output analysis, e.g. Law,
   *Simulation Modeling and Analysis*, 5th ed., section 9.5). Treating correlated samples as independent is
   what made identical kernels "differ" in 11.6 % of rows (issue 34).
2. **Effect size.** Cohen's d of the two versions' per-sample latencies (mean difference over the pooled
   standard deviation) exceeds 0.2, "small" in Cohen's scale: CompileIQ's validate-result rule keeps a result
   only when Welch's p < 0.05 and d > 0.2.
3. **Margin.** The 95 % interval of the speedup, ``exp(mean log ratio +- t * se)``, clears ``1 + min_gain``
   (or ``1 / (1 + min_gain)`` for a regression).

and then a fourth (:func:`confirm_claim`, :func:`compare_retimed`):

4. **Replication.** A claim made by the first three is timed again: a second interleaved timing of the same
   callables in the same worker (the re-time, independent of the first), whose blocks must repeat it: so many
   of its block ratios lie past the margin in the claimed direction that a one-sided sign test gives
   p < 0.10 (:data:`REPLICATION_ALPHA`; 8 of 10 blocks, 25 of 40). CompileIQ's validate-result rule keeps a
   result only when a second, independent measurement repeats it. The first three alone claim on identical
   kernels at about their nominal rate (1 of 200 KernelBench pairs in batchleft's run: level 1 #31 "0.84x" at
   p 0.015, 10 blocks; over 538 identical pairs 1.1 %); with the re-time a false claim needs both, about
   0.01 x 0.1. The sign test, not the t-test and Cohen's d again: a real 2x on a loaded CPU had its re-time's
   t-test undone by two blocks a preemption hit (18.8x and 13.2x among eight near 0.5x, p 0.95) and its d by
   one long sample (d -0.16 with all ten blocks at 0.5x). The cost is one more timing, only for a case that
   claims. Where no re-time could be made (a slow kernel's timing reduced to a few blocks, no room left), a claim
   that the kernel is slower stands only on a first test past :data:`UNREPEATED_ALPHA` (0.001), as rare on
   identical kernels; a claim that it is faster is not made (:func:`unrepeated_verdict`: credit needs a repeat).

The confidence interval of a median is the distribution-free one from order statistics: with ``n``
sorted samples, the interval ``[x_(l), x_(n-l+1)]`` covers the true median with probability
``1 - 2 * P(B < l)`` where ``B ~ Binomial(n, 1/2)`` (any textbook on nonparametric statistics, e.g.
Conover, *Practical Nonparametric Statistics*, 3rd ed., section 3.2). It assumes nothing about the
shape of the timing distribution, which is usually skewed with a long right tail.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel

from kernelopt.digits import sig, times

#: torch.utils.benchmark.Measurement warns when the IQR exceeds 10 % of the median
#: ("Interquartile range is X% of the median measurement. This suggests significant environmental influence").
NOISY_REL_IQR_PCT = 10.0
#: Our choice: a median whose 95 % interval is wider than +-5 % cannot support a 2 % decision.
NOISY_CI_HALF_WIDTH_PCT = 5.0
#: Our choice: a speedup over the reference is withheld, not reported, when its 95 % interval spans more
#: than this factor (high / low) across 1, so it cannot say faster or slower (issue 23 saw one kernel at
#: 3.18x under load and 0.004x on a quiet machine)...
MAX_REPORTED_SPEEDUP_SPREAD = 2.0
#: ...or more than this factor on one side (188x from an interval of 1.7x..892x is no figure). A wider
#: interval than the first, wholly on one side, is reported with the noise warnings: an honest 0.004x
#: against a reference at the timer's resolution is sure to be slower, if not by how much.
MAX_ONE_SIDED_SPEEDUP_SPREAD = 10.0


class Verdict(StrEnum):
    """Outcome of comparing a version with the previous one."""

    IMPROVEMENT = "improvement"
    REGRESSION = "regression"
    NO_CHANGE = "no significant change"


class SampleStats(BaseModel):
    """Summary of timing samples, in the samples' unit (microseconds in the harness).

    Attributes:
        n: number of samples.
        median: the median.
        q1: first quartile (25th percentile, linear interpolation).
        q3: third quartile.
        iqr: ``q3 - q1``.
        ci_low: lower end of the 95 % distribution-free confidence interval of the median.
        ci_high: upper end of it.
        ci_level: the actual coverage of that interval (at least 0.95 when ``n >= 6``).
        mean: arithmetic mean.
        minimum: smallest sample.
        maximum: largest sample.
        rel_iqr_pct: ``100 * iqr / median``.
        noisy: True when the spread is too large to trust small differences.
        warnings: why it is noisy, in words.
    """

    n: int
    median: float
    q1: float
    q3: float
    iqr: float
    ci_low: float
    ci_high: float
    ci_level: float
    mean: float
    minimum: float
    maximum: float
    rel_iqr_pct: float | None
    noisy: bool
    warnings: list[str] = []


#: Two-sided significance level of a speedup claim.
ALPHA = 0.05
#: Cohen's "small" effect: the least effect size a claim needs (CompileIQ's validate-result rule, d > 0.2).
MIN_EFFECT_SIZE_D = 0.2
#: Our choice: the lag-1 autocorrelation taken into account is capped here (10 blocks cannot tell 0.95 from
#: 0.8, and the inflation factor 9 already needs the whole run to agree).
MAX_AUTOCORRELATION = 0.8


class SpeedupEstimate(BaseModel):
    """Speedup of the current version over the previous one (or the reference) from ABBA blocks.

    Attributes:
        speedup: median over blocks of ``(A1 + A2) / (B1 + B2)`` with A the previous version and B the
            current one; above 1 means the current version is faster.
        ci_low: lower end of its 95 % confidence interval (the ratio interval of the module docstring).
        ci_high: upper end.
        n_blocks: number of ABBA blocks.
        min_gain_pct: the margin the interval had to clear.
        verdict: improvement, regression, or no significant change (:func:`claim`).
        p_value: two-sided p of the t-test on the blocks' log ratios, autocorrelation taken into account
            (``None``: fewer than 2 blocks).
        effect_size_d: Cohen's d of the per-sample latencies (``None``: the samples were not given).
        autocorrelation: the blocks' lag-1 autocorrelation used (0 when none or negative).
        confirmed: whether the re-time repeated the first timing's claim (rule 4 of the module docstring):
            ``None`` when the first timing claimed nothing (no re-time), ``False`` when the re-time did not repeat
            it or could not be made (then ``verdict`` is no significant change, unless no re-time could be made and
            the first timing's p is below :data:`UNREPEATED_ALPHA`).
        retime_speedup: the re-time's speedup (``None``: no re-time).
        retime_p_value: its p.
        retime_verdict: what its timing alone claimed.
    """

    speedup: float
    ci_low: float
    ci_high: float
    n_blocks: int
    min_gain_pct: float
    verdict: Verdict
    p_value: float | None = None
    effect_size_d: float | None = None
    autocorrelation: float = 0.0
    confirmed: bool | None = None
    retime_speedup: float | None = None
    retime_p_value: float | None = None
    retime_verdict: Verdict | None = None

    @property
    def significant(self) -> bool:
        """The estimate claims a difference (faster or slower) by :func:`claim`."""
        return self.verdict is not Verdict.NO_CHANGE


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted values, linear interpolation between order statistics.

    Raises:
        ValueError: no values, or ``q`` outside [0, 1].
    """
    if not sorted_values:
        raise ValueError("quantile of no values")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantile {q} outside [0, 1]")
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] * (1.0 - frac) + sorted_values[hi] * frac


def median_ci_ranks(n: int, level: float = 0.95) -> tuple[int, int, float]:
    """1-based ranks ``(l, u)`` of the order statistics bounding the median, and the exact coverage.

    The interval ``[x_(l), x_(u)]`` with ``u = n - l + 1`` and the largest ``l`` whose coverage
    ``1 - 2 * P(Binomial(n, 1/2) <= l - 1)`` is at least ``level``. For ``n < 6`` no interval reaches 95 %
    and ``[min, max]`` is returned with its smaller coverage.

    Raises:
        ValueError: ``n < 1``.
    """
    if n < 1:
        raise ValueError("need at least one sample")
    total = 2.0**n
    best = (1, n, 1.0 - 2.0 / total if n > 1 else 0.0)
    cdf = 0.0
    for l_rank in range(1, n // 2 + 1):
        cdf += math.comb(n, l_rank - 1) / total  # P(B <= l - 1)
        coverage = 1.0 - 2.0 * cdf
        if coverage >= level:
            best = (l_rank, n - l_rank + 1, coverage)
        else:
            break
    return best


def summarize(samples: Sequence[float]) -> SampleStats:
    """Median, quartiles, 95 % CI of the median and a noise verdict.

    Raises:
        ValueError: no samples, or a sample that is not a finite number.
    """
    if not samples:
        raise ValueError("no samples")
    if any(not math.isfinite(s) for s in samples):
        raise ValueError("samples must be finite")
    xs = sorted(float(s) for s in samples)
    n = len(xs)
    med = quantile(xs, 0.5)
    q1 = quantile(xs, 0.25)
    q3 = quantile(xs, 0.75)
    lo_rank, hi_rank, level = median_ci_ranks(n)
    ci_low, ci_high = xs[lo_rank - 1], xs[hi_rank - 1]
    rel_iqr = 100.0 * (q3 - q1) / med if med > 0 else None
    warnings = []
    if rel_iqr is not None and rel_iqr > NOISY_REL_IQR_PCT:
        warnings.append(
            f"interquartile range is {rel_iqr:.1f} % of the median (over {NOISY_REL_IQR_PCT:g} %): "
            "the timing is noisy (other work on the machine, clock changes, or a kernel too short to time)"
        )
    if med > 0 and n >= 6:
        half_width = 100.0 * max(med - ci_low, ci_high - med) / med
        if half_width > NOISY_CI_HALF_WIDTH_PCT:
            warnings.append(
                f"95 % interval of the median is +-{half_width:.1f} % (over {NOISY_CI_HALF_WIDTH_PCT:g} %): "
                "small differences cannot be resolved"
            )
    if n < 6:
        warnings.append(f"only {n} samples: the interval [min, max] covers the median with {100 * level:.0f} %")
    return SampleStats(
        n=n,
        median=med,
        q1=q1,
        q3=q3,
        iqr=q3 - q1,
        ci_low=ci_low,
        ci_high=ci_high,
        ci_level=level,
        mean=sum(xs) / n,
        minimum=xs[0],
        maximum=xs[-1],
        rel_iqr_pct=rel_iqr,
        noisy=bool(warnings),
        warnings=warnings,
    )


def abba_ratios(a_samples: Sequence[float], b_samples: Sequence[float]) -> list[float]:
    """Per-block ratios ``(A1 + A2) / (B1 + B2)`` from samples taken in the order A B B A, A B B A, ...

    ``a_samples`` and ``b_samples`` hold each version's samples in the order they were taken, two per
    block. Pairing within a block cancels slow drift (clocks, temperature) that would bias a
    comparison of two separately timed runs.

    Raises:
        ValueError: the two lists differ in length or are not a whole number of blocks.
    """
    if len(a_samples) != len(b_samples) or len(a_samples) % 2:
        raise ValueError("ABBA needs two samples of each version per block")
    out = []
    for k in range(0, len(a_samples), 2):
        denom = b_samples[k] + b_samples[k + 1]
        if denom <= 0:
            raise ValueError("non-positive timing sample")
        out.append((a_samples[k] + a_samples[k + 1]) / denom)
    return out


def verdict_for(ci_low: float, ci_high: float, min_gain_pct: float) -> Verdict:
    """Improvement when the whole interval lies above ``1 + g``; regression when it lies below ``1 / (1 + g)``.

    The margin is symmetric in log space: a 2 % gain threshold means a regression is called when the
    current version is slower by at least the factor 1.02.
    """
    g = 1.0 + min_gain_pct / 100.0
    if ci_low > g:
        return Verdict.IMPROVEMENT
    if ci_high < 1.0 / g:
        return Verdict.REGRESSION
    return Verdict.NO_CHANGE


def claim(
    ci_low: float, ci_high: float, min_gain_pct: float, *, p_value: float | None, effect_size_d: float | None
) -> Verdict:
    """The one rule for calling a version faster or slower (module docstring): the interval clears the margin
    (:func:`verdict_for`), p < :data:`ALPHA`, and Cohen's d exceeds :data:`MIN_EFFECT_SIZE_D` (a test or an
    effect size that was not computed does not block the claim: the interval alone decides)."""
    verdict = verdict_for(ci_low, ci_high, min_gain_pct)
    if verdict is Verdict.NO_CHANGE:
        return verdict
    if p_value is not None and not p_value < ALPHA:
        return Verdict.NO_CHANGE
    if effect_size_d is not None and not abs(effect_size_d) > MIN_EFFECT_SIZE_D:
        return Verdict.NO_CHANGE
    return verdict


def claim_text(
    verdict: str | None,
    p_value: float | None,
    effect_size_d: float | None,
    retime: float | None = None,
    interval: tuple[float | None, float | None] = (None, None),
) -> str:
    """``p 0.003, d 0.85: improvement`` (what the claim rests on, then the claim), for reports and tables;
    ``re-timed`` after it when a re-time was made (rule 4: it repeated the claim, else the words say it did not);
    ``""`` when no comparison was made. The re-time's own figure is not said: the figure beside these words is the
    one the gate claims (first timing, calibrated where its samples are skewed, late23 z21), and the re-time's median
    ratio, another reading of other samples, said beside it read as a second answer to one question (late25's seen
    item: "1.1x slower than the reference" beside "re-timed 1.31x"; verdicts22 x4). It stays in the record
    (``speedup_retime``) and the decision's detail says its test (:func:`~kernelopt.harness.decision.describe_speedup`).

    A test that is significant (p < :data:`ALPHA`) without a claim says which rule withheld it, so the words never
    contradict the figures beside them (``p 4.6e-05, d 0.15: no significant change`` read as a contradiction on a
    2.4x slowdown whose few long samples made Cohen's d small): ``no claim: Cohen's d 0.15 is not over 0.2 (the
    samples spread too widely)``, ``no claim: the re-time did not repeat it`` (rule 4), else ``no claim: its
    interval does not clear the margin, or no re-time was made``; where the figure's 95 % ``interval`` spans 1
    beside a significant test, the gate held both readings of skewed samples that fall on either side of 1
    (late25 z31): ``no claim: the samples are skewed, their two readings fall on either side of 1``."""
    if verdict is None:
        return ""
    basis = [
        f"p {p_value:.2g}" if p_value is not None else "",
        f"d {effect_size_d:.2f}" if effect_size_d is not None else "",
        "re-timed" if retime is not None else "",
    ]
    head = ", ".join(x for x in basis if x)
    words = verdict
    if verdict == Verdict.NO_CHANGE and p_value is not None and p_value < ALPHA:
        words = "no claim: " + withheld_because(effect_size_d, retime, interval)
    return f"{head}: {words}" if head else words


def withheld_because(
    effect_size_d: float | None, retime: float | None, interval: tuple[float | None, float | None] = (None, None)
) -> str:
    """Why a significant test (p < :data:`ALPHA`) is no claim, by the rules of :func:`claim` and
    :func:`confirm_claim` that the test's figures can tell: Cohen's d, then an interval spanning 1 (the gate's
    skewed samples, whose two readings fall on either side of 1), then the re-time, else the interval."""
    if effect_size_d is not None and not abs(effect_size_d) > MIN_EFFECT_SIZE_D:
        return (
            f"Cohen's d {effect_size_d:.2f} is not over {MIN_EFFECT_SIZE_D:g} (the samples spread too widely: a few "
            "long ones)"
        )
    low, high = interval
    if low is not None and high is not None and low < 1 < high:
        return "the samples are skewed, their two readings fall on either side of 1"
    if retime is not None:
        return "the re-time did not repeat it"
    return "its interval does not clear the margin, or no re-time was made"


def cohens_d(a_samples: Sequence[float], b_samples: Sequence[float]) -> float | None:
    """Cohen's d of two sets of samples: ``(mean(A) - mean(B)) / pooled sd`` (positive: A is larger, so B is
    faster when A and B are latencies); ``None`` with fewer than two samples on a side. Equal samples give 0
    (no effect) and different constant ones +-inf."""
    na, nb = len(a_samples), len(b_samples)
    if na < 2 or nb < 2:
        return None
    ma, mb = sum(a_samples) / na, sum(b_samples) / nb
    va = sum((x - ma) ** 2 for x in a_samples) / (na - 1)
    vb = sum((x - mb) ** 2 for x in b_samples) / (nb - 1)
    pooled = math.sqrt(((na - 1) * va + (nb - 1) * vb) / (na + nb - 2))
    if pooled == 0:
        return 0.0 if ma == mb else math.copysign(math.inf, ma - mb)
    return (ma - mb) / pooled


def lag1_autocorrelation(values: Sequence[float]) -> float:
    """The lag-1 autocorrelation of a series (0 for fewer than 3 values or a constant series)."""
    n = len(values)
    if n < 3:
        return 0.0
    m = sum(values) / n
    den = sum((x - m) ** 2 for x in values)
    if den == 0:
        return 0.0
    return sum((values[k] - m) * (values[k + 1] - m) for k in range(n - 1)) / den


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz's method)."""
    tiny, eps = 1e-300, 1e-14
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for ``0 <= x <= 1``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p of Student's t statistic ``t`` with ``df`` degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t_critical(df: float, level: float = 0.95) -> float:
    """The two-sided critical value of Student's t: ``P(|T| > t) = 1 - level`` (bisection, to 1e-10)."""
    lo, hi = 0.0, 1e6
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_p(mid, df) > 1.0 - level:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-10:
            break
    return (lo + hi) / 2.0


def too_wide(estimate: SpeedupEstimate) -> str | None:
    """Why a speedup is too uncertain to report, or ``None``: its interval spans over
    :data:`MAX_REPORTED_SPEEDUP_SPREAD` across 1, or over :data:`MAX_ONE_SIDED_SPEEDUP_SPREAD`."""
    spread = estimate.ci_high / estimate.ci_low if estimate.ci_low > 0 else math.inf
    interval = f"its 95 % interval {times(estimate.ci_low)}..{times(estimate.ci_high)} spans a factor {sig(spread, 3)}"
    if spread > MAX_REPORTED_SPEEDUP_SPREAD and estimate.ci_low <= 1.0 <= estimate.ci_high:
        return f"{interval} (over {MAX_REPORTED_SPEEDUP_SPREAD:g}) across 1: the timing cannot say faster or slower"
    if spread > MAX_ONE_SIDED_SPEEDUP_SPREAD:
        return f"{interval} (over {MAX_ONE_SIDED_SPEEDUP_SPREAD:g}): the timing is too noisy to give a figure"
    return None


def estimate_speedup(
    ratios: Sequence[float], min_gain_pct: float, *, effect_size_d: float | None = None
) -> SpeedupEstimate:
    """Median speedup over ABBA blocks with its 95 % interval, the test, and the verdict (:func:`claim`).

    The interval is the t interval of the blocks' mean log ratio, its variance inflated for their lag-1
    autocorrelation (module docstring), widened when needed to hold the median; with fewer than 2 blocks it
    is the order-statistic interval of :func:`summarize`.

    Raises:
        ValueError: no blocks, or a ratio that is not positive and finite.
    """
    s = summarize(ratios)
    if any(r <= 0 for r in ratios):
        raise ValueError("speedup ratios must be positive")
    n = len(ratios)
    if n < 2:
        return SpeedupEstimate(
            speedup=s.median,
            ci_low=s.ci_low,
            ci_high=s.ci_high,
            n_blocks=n,
            min_gain_pct=min_gain_pct,
            verdict=claim(s.ci_low, s.ci_high, min_gain_pct, p_value=None, effect_size_d=effect_size_d),
            effect_size_d=effect_size_d,
        )
    logs = [math.log(r) for r in ratios]
    mean = sum(logs) / n
    var = sum((x - mean) ** 2 for x in logs) / (n - 1)
    rho = min(MAX_AUTOCORRELATION, max(0.0, lag1_autocorrelation(logs)))
    n_eff = max(2.0, n * (1.0 - rho) / (1.0 + rho))
    se = math.sqrt(var / n_eff)
    df = n_eff - 1.0
    if se == 0:
        p = 1.0 if mean == 0 else 0.0
        lo = hi = mean
    else:
        p = t_two_sided_p(mean / se, df)
        half = t_critical(df) * se
        lo, hi = mean - half, mean + half
    ci_low, ci_high = min(math.exp(lo), s.median), max(math.exp(hi), s.median)
    return SpeedupEstimate(
        speedup=s.median,
        ci_low=ci_low,
        ci_high=ci_high,
        n_blocks=n,
        min_gain_pct=min_gain_pct,
        verdict=claim(ci_low, ci_high, min_gain_pct, p_value=p, effect_size_d=effect_size_d),
        p_value=p,
        effect_size_d=effect_size_d,
        autocorrelation=rho,
    )


def compare_interleaved(a_samples: Sequence[float], b_samples: Sequence[float], min_gain_pct: float) -> SpeedupEstimate:
    """The speedup of B over A from samples taken in ABBA blocks (A: the previous version or the reference;
    B: the current version), with the test, Cohen's d of the samples and the verdict: the one comparison the
    gate, the batch and the summaries use.

    Raises:
        ValueError: as :func:`abba_ratios`.
    """
    return estimate_speedup(
        abba_ratios(a_samples, b_samples), min_gain_pct, effect_size_d=cohens_d(a_samples, b_samples)
    )


#: The re-time's level: a one-sided sign test of its blocks in the direction the first timing claimed (module
#: docstring, rule 4). Our choice: the direction is fixed before the re-time, so a looser level than the first
#: test's still leaves a false claim at about 0.01 x 0.1 on identical kernels, and a sign test (unlike the t-test
#: and Cohen's d) is not undone by the one or two blocks a preemption hits on a loaded CPU.
REPLICATION_ALPHA = 0.10
#: The fewest re-time blocks that can confirm a claim: all of them past the margin, ``0.5 ** n`` below the level.
REPLICATION_MIN_BLOCKS = math.ceil(math.log2(1.0 / REPLICATION_ALPHA))
#: A slower claim no re-time could be made for (a timing reduced to a few blocks of single calls of a slow kernel, or
#: no room left for one) is kept where its own test alone is this unlikely on identical kernels: the rate of a false
#: claim that passes both tests, about 0.01 x 0.1 (rule 4). The samples' direction is then said, not withheld: a
#: kernel 14900x slower than its reference at p 1.4e-05 in a reduced timing read "no significant change" (break22's
#: seen item; late28 z60); its figure keeps its own caveat (an interval too wide is "not reliable").
UNREPEATED_ALPHA = 0.001
#: What :func:`unrepeated_verdict` does with a claim no re-time could be made for, in the words every line says it.
UNREPEATED_RULE = f"a faster claim is not made, a slower one stands only at p below {UNREPEATED_ALPHA:g}"


def unrepeated_verdict(first: SpeedupEstimate) -> Verdict:
    """The verdict of a claim (rules 1-3) no re-time could be made for: the one rule (leftovers23 l33). A slower
    claim (``regression``: slower than the previous version, or than the reference) stands where its own p is below
    :data:`UNREPEATED_ALPHA`, z60's case: a kernel 14900x slower read "no significant change". A faster claim is
    never made unrepeated, whatever its p: it grants credit (a version called an improvement, the batch table's
    star, fast_p, a paper's speedup), and rule 4 grants none a second measurement did not repeat; a slower claim
    only withholds it, and its p alone is as rare a false claim on identical kernels as both tests are (z60,
    measured: 0.005-0.03 %). Either way ``confirmed`` is ``False``: nothing repeated it."""
    slower = first.verdict is Verdict.REGRESSION
    return (
        first.verdict
        if slower and first.p_value is not None and first.p_value < UNREPEATED_ALPHA
        else Verdict.NO_CHANGE
    )


def sign_test_p(past: int, n: int) -> float:
    """One-sided p of a sign test: the chance that ``past`` or more of ``n`` blocks fall on one side when each
    falls there with probability 1/2 (``P(Binomial(n, 1/2) >= past)``)."""
    return sum(math.comb(n, k) for k in range(past, n + 1)) / 2.0**n


def confirm_claim(first: SpeedupEstimate, again: Sequence[float] | None) -> SpeedupEstimate:
    """The claim of ``first`` kept only when the re-time repeats it (rule 4 of the module docstring): of its block
    ratios ``again`` (an independent interleaved timing of the same callables), so many lie past the margin in the
    claimed direction that a sign test gives p < :data:`REPLICATION_ALPHA`. ``again`` ``None`` or empty: no
    re-time could be made, so :func:`unrepeated_verdict` decides (``confirmed`` ``False`` either way: nothing
    repeated it). The figure and interval stay the first timing's; the
    re-time's median ratio and p are beside them. A first timing that claims nothing is returned as it is."""
    if not first.significant:
        return first
    if not again:
        return first.model_copy(update={"verdict": unrepeated_verdict(first), "confirmed": False})
    g = 1.0 + first.min_gain_pct / 100.0
    better = first.verdict is Verdict.IMPROVEMENT
    past = sum(1 for r in again if (r > g if better else r < 1.0 / g))
    p = sign_test_p(past, len(again))
    confirmed = p < REPLICATION_ALPHA
    return first.model_copy(
        update={
            "verdict": first.verdict if confirmed else Verdict.NO_CHANGE,
            "confirmed": confirmed,
            "retime_speedup": quantile(sorted(again), 0.5),
            "retime_p_value": p,
            "retime_verdict": first.verdict if confirmed else Verdict.NO_CHANGE,
        }
    )


def compare_retimed(
    a_samples: Sequence[float],
    b_samples: Sequence[float],
    a_again: Sequence[float],
    b_again: Sequence[float],
    min_gain_pct: float,
) -> SpeedupEstimate:
    """:func:`compare_interleaved` of the first timing, its claim kept only when the re-time (``a_again``,
    ``b_again``: the same two callables timed again, interleaved; empty when not re-timed) repeats it
    (:func:`confirm_claim`): the one claim rule of the gate, the batch and the summaries.

    Raises:
        ValueError: as :func:`abba_ratios` (for the first timing).
    """
    first = compare_interleaved(a_samples, b_samples, min_gain_pct)
    if not first.significant:
        return first
    try:
        again = abba_ratios(a_again, b_again) if a_again else None
    except ValueError:  # not a whole number of blocks, or a 0 us sample: no re-time to read
        again = None
    return confirm_claim(first, again)


def claims(samples: Sequence[Sequence[float]], current: int, min_gain_pct: float) -> bool:
    """Whether the first timing of ``samples`` (each callable's samples, taken interleaved) claims a difference
    between the callable ``current`` and any other by rules 1-3: the timing that must then be re-timed. A pair
    that cannot be compared (a sample of 0, below the timer's resolution) claims nothing."""
    for j, other in enumerate(samples):
        if j == current or not other or len(other) != len(samples[current]):
            continue
        try:
            if compare_interleaved(other, samples[current], min_gain_pct).significant:
                return True
        except ValueError:
            continue
    return False
