"""The headline against the reference, one rule for every place that says it (issue 32, item 7).

``kernelopt optimize``'s summary, the Markdown and HTML reports and ``kernelopt batch``'s table all say how the
kernel compares with PyTorch eager. Each says it with its 95 % interval, and a figure whose interval spans more
than :data:`~kernelopt.harness.stats.MAX_REPORTED_SPEEDUP_SPREAD` (high / low), or that the gate withheld, is
*not reliable* (a noisy reference timing: one CPU run said 1.55x where reruns said 0.005x). Before this module the
summary said "not reliable" while the report printed ``0.00x (95 % CI 0.000-0.000) ... regression`` and the batch
table ``0.00x*`` for the same record. Pure: no I/O.
"""

from __future__ import annotations

from kernelopt.digits import sig
from kernelopt.harness.stats import MAX_REPORTED_SPEEDUP_SPREAD, claim_text
from kernelopt.memory.model import Comparison, ReferenceSpeedup
from kernelopt.oneline import one_line

__all__ = [
    "eager_claim",
    "figure",
    "interval_text",
    "previous_cell",
    "previous_latency_change",
    "reference_headline",
    "speedup_words",
    "unreliable",
]


def figure(x: float) -> str:
    """A speedup or an interval end with three significant digits (``0.000766``, ``1.55``), never ``0.00``, and
    written out below 1e7 by the one rule for a figure in text (:func:`kernelopt.digits.sig`): a Triton kernel in
    the interpreter against torch on the CPU was "3.39e+03x slower than the reference", now ``3390x``."""
    return sig(x, 3)


def speedup_words(speedup: float, than: str) -> str:
    """A speedup as a reader says it: ``41.1x over V0``; under 1, ``3.92x slower than the reference (PyTorch
    eager)`` rather than ``0.255x over`` it (one that rounds to 1 either way stays ``0.999x over``)."""
    if speedup >= 1 or figure(1 / speedup) == "1":
        return f"{figure(speedup)}x over {than}"
    return f"{figure(1 / speedup)}x slower than {than}"


def unreliable(low: float | None, high: float | None) -> bool:
    """Whether a speedup with this 95 % interval is too noisy to be a headline figure (its interval spans more
    than :data:`~kernelopt.harness.stats.MAX_REPORTED_SPEEDUP_SPREAD`); an interval not known is not judged."""
    if low is None or high is None:
        return False
    return low <= 0 or high / low > MAX_REPORTED_SPEEDUP_SPREAD


def interval_text(x: float, low: float | None, high: float | None, than: str) -> str:
    """``1.55x over the reference (PyTorch eager), 95 % interval 1.21-1.93x`` (a slowdown's interval said as one:
    ``2220x slower than ..., 95 % interval 1970-2660x slower``, reliable or not), or the same figure said to be not
    reliable when :func:`unreliable`, or ``(no interval: too few samples)``."""
    text = speedup_words(x, than)
    if low is None or high is None:
        return f"{text} (no interval: too few samples)"
    # said as a slowdown, its interval is said so too, reliable or not (newuser12's n68: "2220x slower than the
    # reference (PyTorch eager), 95 % interval 0.000376-0.000508x", a factor beside two speedups; seen14: "103x
    # slower ..., not reliable: its 95 % interval 0.00618-0.0126x")
    slower = text.endswith(f"x slower than {than}") and low > 0 and high < 1
    interval = f"{figure(1 / high)}-{figure(1 / low)}x slower" if slower else f"{figure(low)}-{figure(high)}x"
    if unreliable(low, high):
        return (
            f"{text}, not reliable: its 95 % interval {interval} spans more than "
            f"{MAX_REPORTED_SPEEDUP_SPREAD:g}x (the timing of the reference or the kernel is noisy)"
        )
    return f"{text}, 95 % interval {interval}"


def reference_headline(vs: ReferenceSpeedup | None) -> str | None:
    """The headline against the reference with its 95 % interval: ``1.55x over the reference (PyTorch eager),
    95 % interval 1.21-1.93x``; not reliable when :func:`unreliable` or withheld by the gate; eager, then
    torch.compile when it was timed. ``None`` when the reference was not timed."""
    if vs is None:
        return None
    eager = "the reference (PyTorch eager)"
    if vs.eager is None:
        return f"speedup over {eager} not reliable: {vs.withheld}" if vs.withheld else None
    line = interval_text(vs.eager, vs.eager_ci_low, vs.eager_ci_high, eager)
    if vs.compiled is not None:
        line += "; " + interval_text(vs.compiled, vs.compiled_ci_low, vs.compiled_ci_high, compiled_name(vs))
    elif vs.compile_error:
        line += "; " + compile_failed(vs)
    return line


def compile_failed(vs: ReferenceSpeedup) -> str:
    """Why there is no speedup over torch.compile where it was asked for and its compile failed, in one line: the
    record kept the error and every printed place said "n/a" (newuser20 n152: a misspelt
    ``KERNELOPT_COMPILE_BACKEND`` was "speedup vs torch.compile: n/a" in validate's table and nothing in optimize's
    summary)."""
    return f"{compiled_name(vs)} not timed: its compile failed: {one_line(vs.compile_error or '', 200)}"


def compiled_name(vs: ReferenceSpeedup) -> str:
    """The compiled reference as its figure is said, with what built it as the record keeps it: ``torch.compile (mode
    max-autotune)``, ``torch.compile (eager backend, mode default)`` (Inductor, the usual backend, unnamed); a record
    from before they were kept: ``torch.compile`` (late27, z52)."""
    said = [f"{vs.compile_backend} backend"] if vs.compile_backend not in (None, "inductor") else []
    said += [f"mode {vs.compile_mode}"] if vs.compile_mode is not None else []
    return f"torch.compile ({', '.join(said)})" if said else "torch.compile"


def eager_claim(vs: ReferenceSpeedup) -> str:
    """What the claim against PyTorch eager rests on, then the claim (:func:`~kernelopt.harness.stats.claim_text`):
    ``re-timed`` where a re-time repeated it, its own figure not said beside the one claimed (verdicts22 x4; newuser12's
    n68 had said it as ``re-timed 440x slower`` beside ``435x slower than PyTorch eager``)."""
    interval = (vs.eager_ci_low, vs.eager_ci_high)  # spanning 1 beside a significant test: skewed samples (z31)
    return claim_text(vs.eager_verdict, vs.eager_p_value, vs.eager_effect_size_d, vs.eager_retime, interval)


def previous_latency_change(c: Comparison) -> float | None:
    """The latency change against the previous version, in percent, said from the one figure of that comparison:
    the interleaved speedup (the median of its ABBA blocks' ratios, or the smaller reading of skewed samples: the
    gate's ``_skewed``), as the CSV's ``speedup_vs_previous``. A record
    written before the gate derived its ``latency_delta`` from that speedup held the ratio of the two medians beside
    it (the README demo's V1: -97.8 %, 46x, beside 119x in 80.5-119x; claims21 w5), so the delta is read from the
    speedup wherever there is one; a record without a speedup keeps its own delta."""
    if c.speedup is None or c.speedup <= 0:
        return c.latency_delta
    return 100.0 * (1.0 / c.speedup - 1.0)


def previous_cell(c: Comparison) -> str:
    """The timeline's ``vs previous`` cell: the interleaved speedup with its 95 % interval, ``2x (95 % CI 1.98-2.02x)``,
    the figure the CSV, the result lines and the JSON hold; a record without one, its latency change
    (``-12.0 %``); ``n/a`` for neither."""
    if c.speedup is None:
        return "n/a" if c.latency_delta is None else f"{c.latency_delta:+.1f} %"
    shown = f"{figure(c.speedup)}x"
    if c.speedup_ci_low is None or c.speedup_ci_high is None:
        return shown
    return f"{shown} (95 % CI {figure(c.speedup_ci_low)}-{figure(c.speedup_ci_high)}x)"
