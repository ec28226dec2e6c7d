"""Stage 5 commit messages, in the spec's format. Pure.

- pass: ``V<N>: <TFLOP/s> TFLOPS / <GB/s> GB/s | <summary> (bottleneck: <evidence>)``
- failure (revert marker): ``V<N>: revert (<reason>)``
- baseline: ``V0: baseline <TFLOP/s> TFLOPS / <GB/s> GB/s | <latency> us (bottleneck: <evidence>)``

A figure that was not measured reads ``n/a``. Messages are one line (the subject); whitespace in the
parts is folded and long parts are cut with an ellipsis so that ``git log --oneline`` stays readable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import ProfileSummary
from kernelopt.memory.model import Performance
from kernelopt.oneline import one_line

SUMMARY_CHARS = 80
EVIDENCE_CHARS = 90
REASON_CHARS = 120


def figure(value: float | None) -> str:
    """A rate for a commit subject: ``n/a`` when unknown, else 3-4 significant digits, never exponents."""
    if value is None:
        return "n/a"
    v = abs(value)
    if v >= 100:
        return f"{value:.0f}"
    if v >= 10:
        return f"{value:.1f}"
    if v >= 1:
        return f"{value:.2f}"
    if v >= 0.001:
        return f"{value:.4f}".rstrip("0").rstrip(".") or "0"
    return "0" if v == 0 else f"{value:.2e}"


def bottleneck_evidence(summary: ProfileSummary | None, category: ActionCategory | None = None) -> str:
    """The headline evidence of a profile: bottleneck class and the first fact of the finding that drove
    the plan (the first finding naming ``category``), else of the top finding."""
    if summary is None:
        return "no profile"
    prefix = "" if summary.counters_available else "timing-only, "
    k = summary.primary()
    if k is None:
        return prefix + "no kernel profiled"
    text = k.bottleneck.value
    driver = next((f for f in k.findings if category is not None and category in f.action_categories), None)
    top = driver or (k.findings[0] if k.findings else None)
    if top is not None and top.evidence:
        e = top.evidence[0]
        if e.value is None:
            val = "n/a"
        elif isinstance(e.value, float):
            val = f"{e.value:.3g}"
        else:
            val = str(e.value)
        unit = "" if not e.unit or e.value is None else (e.unit if e.unit == "%" else f" {e.unit}")
        # ncu metric names carry their roll-up after the first dot (``.avg.pct_of_peak_sustained_elapsed``)
        metric = e.metric.split(".", 1)[0] if "__" in e.metric else e.metric
        text += f", {metric} {val}{unit}"
    elif k.metric("duration_us") is not None:
        text += f", duration {k.metric('duration_us'):.3g} us"
    return one_line(prefix + text, EVIDENCE_CHARS)


def change_summary(
    category: str,
    parameters: Mapping[str, object],
    knob_changes: Mapping[str, Sequence[object]],
    action: str,
    overrides: Mapping[str, str] | None = None,
) -> str:
    """The change in a few words: ``block_size: BLOCK 64 -> 128`` (as applied), else the planned
    parameters, else the plan's action sentence. A knob whose edit replaced a computation (``overrides``: knob ->
    the expression) was that computation before, not the value it gave at one size:
    ``BLOCK_SIZE computed (triton.next_power_of_2(n_cols)) -> 128``."""
    if knob_changes:
        over = overrides or {}

        def before(k: str, v: Sequence[object]) -> object:
            return f"computed ({over[k]})" if k in over else v[0]

        return f"{category}: " + ", ".join(
            f"{k} {before(k, v)} -> {v[1]}" if len(v) == 2 else f"{k} {list(v)}" for k, v in knob_changes.items()
        )
    if parameters:
        return f"{category}: " + ", ".join(f"{k}={v}" for k, v in parameters.items())
    return action


def pass_message(version: int, perf: Performance, summary_text: str, evidence: str) -> str:
    """Subject of a passing version's commit."""
    return (
        f"V{version}: {figure(perf.tflops)} TFLOPS / {figure(perf.bandwidth_gbps)} GB/s | "
        f"{one_line(summary_text, SUMMARY_CHARS) or 'change'} (bottleneck: {evidence})"
    )


def revert_message(version: int, reason: str) -> str:
    """Subject of a failed version's revert-marker commit."""
    return f"V{version}: revert ({one_line(reason, REASON_CHARS) or 'failed'})"


def baseline_message(perf: Performance, evidence: str) -> str:
    """Subject of the V0 commit."""
    lat = "n/a" if perf.latency_us is None else f"{perf.latency_us:.4g}"
    return (
        f"V0: baseline {figure(perf.tflops)} TFLOPS / {figure(perf.bandwidth_gbps)} GB/s | "
        f"{lat} us (bottleneck: {evidence})"
    )
