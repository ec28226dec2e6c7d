"""Stage 5 commit messages, in the spec's format. Pure.

- pass: ``V<N>: <TFLOP/s> TFLOPS / <GB/s> GB/s | <summary> (bottleneck: <evidence>)``
- failure (revert marker): ``V<N>: revert (<reason>)``
- baseline: ``V0: baseline <TFLOP/s> TFLOPS / <GB/s> GB/s | <latency> us (bottleneck: <evidence>)``

A figure that was not measured reads ``n/a``. The subject is one line; whitespace in the parts is folded and long
parts are cut with an ellipsis so that ``git log --oneline`` stays readable. A passing version's commit has a body
(:func:`pass_body`): its latency and speedup over V0, the gate's speedup over the version it was compared with and
over PyTorch, each with its 95 % interval, the evidence the plan rested on, and where the plan and the record are; a
revert's body has its whole reason (:func:`revert_body`). Before, ``git log`` in a workspace gave no version's latency
past V0's and a reason cut at 120 characters (newuser20 n145).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from kernelopt.actions import ActionCategory
from kernelopt.digits import sig
from kernelopt.evidence.model import ProfileSummary
from kernelopt.memory.model import IterationRecord, Performance, parse_version
from kernelopt.oneline import one_line
from kernelopt.report.headline import interval_text, reference_headline, speedup_words

SUMMARY_CHARS = 80
EVIDENCE_CHARS = 90
REASON_CHARS = 120
WHY_CHARS = 300
BODY_REASON_CHARS = 2000


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


def pass_body(
    record: IterationRecord, *, previous: int | None, over_v0: float | None, why: str | None, plan: str
) -> str:
    """The body of a passing version's commit: what it measured and why it was made, a line each.

    Args:
        record: the version's record as the gate wrote it.
        previous: the version the gate timed it against where the record does not say (``None``: not known).
        over_v0: its speedup over V0 by the chain of side-by-side verdicts
            (:func:`kernelopt.memory.model.speedup_over_v0`).
        why: the first evidence line of the plan (``evidence -> inference -> action``; its inference is said).
        plan: the plan's file in the workspace.
    """
    perf = record.performance
    against = perf.comparison_with_previous.against  # the version its gate ran beside: the best so far, where said
    if against is not None and re.fullmatch(r"v[0-9]+", against):
        previous = parse_version(against)
    lines = []
    if perf.latency_us is not None:
        over = (  # against V0 itself, the gate's interleaved figure below says it (one figure of one comparison)
            f"; {speedup_words(over_v0, 'V0')} (the gates' side-by-side speedups chained from V0)"
            if over_v0 and previous != 0
            else ""
        )
        lines.append(f"latency: {sig(perf.latency_us)} us{over}")
    c = perf.comparison_with_previous
    if c.speedup is not None and previous is not None:
        verdict = f" ({c.verdict})" if c.verdict else ""
        lines.append(
            f"against V{previous}: "
            + interval_text(c.speedup, c.speedup_ci_low, c.speedup_ci_high, f"V{previous}")
            + verdict
        )
    ref = reference_headline(perf.speedup_vs_reference)
    if ref:
        lines.append(f"against the reference: {ref}")
    if why:  # the plan's evidence line is ``facts -> inference -> action``: the inference is the why (the second
        # part: an action may hold an arrow of its own, ``BLOCK_SIZE 128 -> 256``)
        parts = why.split(" -> ")
        lines.append(f"why: {one_line(parts[1] if len(parts) > 2 else why, WHY_CHARS)}")
    lines.append(f"plan: {plan}; record: memory/{record.version}.json")
    return "\n".join(lines)


def revert_body(reason: str, version: int) -> str:
    """The body of a failed version's revert marker: its whole reason (the subject cuts it) and where it is kept."""
    return f"{one_line(reason, BODY_REASON_CHARS)}\nrecord: memory/v{version}.json"
