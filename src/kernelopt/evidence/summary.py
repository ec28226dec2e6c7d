"""Read and write ``profiles/v<N>/summary.json`` and render ``summary.txt``; group repeated launches;
flag empty results.

The JSON is the typed :class:`~kernelopt.evidence.model.ProfileSummary` (validated on write and on
read); the text is for people: key metrics, diagnosis with evidence lines, ``SYMPTOMS:`` and
``LOCALIZE:`` lines. :func:`group_launches` and :func:`mark_empty` are pure; the vendor summary
builders call them before the summary is written, so that rules, plans and reports see one entry per
kernel and launch configuration.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError

from kernelopt.digits import sig
from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import BottleneckType, KernelEvidence, Metric, MetricSpread, ProfileSummary
from kernelopt.fileio import atomic_write_text
from kernelopt.oneline import one_line

SUMMARY_JSON = "summary.json"
SUMMARY_TXT = "summary.txt"

# Metrics shown first in summary.txt, in this order, when present.
KEY_METRICS = (
    "duration_us",
    "sm_throughput_pct",
    "memory_throughput_pct",
    "dram_throughput_pct",
    "dram_gbps",
    "l1_hit_rate_pct",
    "l2_hit_rate_pct",
    "achieved_occupancy_pct",
    "theoretical_occupancy_pct",
    "waves_per_sm",
    "registers_per_thread",
    "tensor_pipe_pct",
    "issue_active_pct",
)


class SummaryError(KerneloptError):
    exit_code = 2


# Metrics that describe the launch or the machine, not what the profiler measured: a result whose
# other metrics are all n/a is empty even though these are known.
CONFIG_METRICS = frozenset(
    {
        "grid_size_blocks",
        "block_size_threads",
        "grid_size",
        "workgroup_size",
        "workgroups",
        "dispatches",
        "cu_count",
        "simds_per_cu",
        "max_waves_per_simd",
        "wave_size",
        "lds_bytes_per_cu",
        "max_sclk_mhz",
        "peak_hbm_gbps",
    }
)

NO_DATA_REASON = (
    "every measured metric of this launch is n/a. That usually means the profiler could not replay it "
    "(a replay pass failed: the kernel changed its own inputs, timed out, or used a feature replay does not "
    "support; the profiler's log names it), or that it was outside what was collected (a --launch-skip / "
    "--launch-count range, an NVTX range, or a --kernel-name filter that matched the launch but collected no "
    "section). Profile that launch again alone."
)


def is_empty(kernel: KernelEvidence) -> bool:
    """True when the kernel has metrics and every one outside :data:`CONFIG_METRICS` is n/a, and no
    hotspot or ISA fact says otherwise."""
    measured = [m for name, m in kernel.metrics.items() if name not in CONFIG_METRICS]
    if not measured or kernel.hotspots or kernel.isa is not None:
        return False
    return all(m.value is None for m in measured)


def mark_empty(kernels: Sequence[KernelEvidence]) -> list[str]:
    """Flag empty results (:func:`is_empty`): set ``no_data_reason``, drop any finding and the
    bottleneck class (the rules treat the result as missing, never as zeros). Returns one summary note
    per empty kernel, for the top of the summary."""
    notes = []
    for k in kernels:
        if not is_empty(k):
            continue
        k.no_data_reason = NO_DATA_REASON
        k.findings = []
        k.bottleneck = BottleneckType.UNKNOWN
        launch = f" (launch {k.launch_id})" if k.launch_id is not None else ""
        notes.append(f"NO DATA for {one_line(k.kernel_name, 160)}{launch}: {NO_DATA_REASON}")
    return notes


CLASSIFYING_METRICS = ("sm_throughput_pct", "memory_throughput_pct")
"""What the NVIDIA bottleneck class needs (kernelopt.evidence.bottleneck.classify): Speed Of Light."""


def partial_data_lines(summary: ProfileSummary) -> list[str]:
    """``PARTIAL DATA`` warnings for the top of the summary: an NVIDIA kernel with data whose bottleneck
    cannot be classified because the input lacks the Speed Of Light throughputs (a raw page of a few
    metrics, a section left out): most of its headline metrics then read n/a, and that must be said
    once, up front, not only metric by metric."""
    if summary.vendor.value != "nvidia" or not summary.counters_available:  # timing-only says so itself
        return []
    out = []
    for k in summary.kernels:
        if k.no_data_reason or k.bottleneck is not BottleneckType.UNKNOWN:
            continue
        missing = [m for m in CLASSIFYING_METRICS if k.metric(m) is None]
        if not missing:
            continue
        present = sum(1 for m in KEY_METRICS if k.metric(m) is not None)
        out.append(
            f"PARTIAL DATA: {one_line(k.kernel_name, 120)}: bottleneck unknown, {' and '.join(missing)} "
            "not in this input "
            f"({present} of {len(KEY_METRICS)} headline metrics are); profile with the SpeedOfLight section "
            "(ncu --section SpeedOfLight, or --set full) to classify it"
        )
    return out


def launch_key(kernel: KernelEvidence) -> tuple[str, tuple[int, ...] | None, tuple[int, ...] | None]:
    """Launches are identical when kernel name and launch configuration (grid and block) agree."""
    return (
        kernel.kernel_name,
        tuple(kernel.grid) if kernel.grid is not None else None,
        tuple(kernel.block) if kernel.block is not None else None,
    )


def group_launches(
    kernels: Sequence[KernelEvidence], evaluate: Callable[[KernelEvidence], None]
) -> list[KernelEvidence]:
    """One entry per kernel and launch configuration, in order of first appearance.

    A group of several launches is its median launch (the one whose ``duration_us`` is nearest the
    median; it gives the hotspots, SASS facts and profiler rules) with every metric replaced by the
    median over the launches that have it, the spread in ``metric_spread`` and the launch ids in
    ``launch_ids``; ``evaluate`` then re-runs the vendor's classification and rules on those medians,
    so that findings describe the group. Single launches are returned as they are (``launch_ids`` set).
    An empty launch (:func:`is_empty`) is never merged into a group with data.
    """
    groups: dict[tuple[object, ...], list[KernelEvidence]] = {}
    for k in kernels:
        groups.setdefault((*launch_key(k), is_empty(k)), []).append(k)
    out = []
    for members in groups.values():
        ids = [m.launch_id for m in members if m.launch_id is not None]
        if len(members) == 1:
            only = members[0]
            only.launch_ids = ids
            out.append(only)
            continue
        out.append(_merge(members, ids, evaluate))
    return out


def _merge(members: list[KernelEvidence], ids: list[int], evaluate: Callable[[KernelEvidence], None]) -> KernelEvidence:
    durations = [m.metric("duration_us") for m in members]
    known = [d for d in durations if d is not None]
    if known:
        med = statistics.median(known)
        rep = min(
            (m for m in members if m.metric("duration_us") is not None),
            key=lambda m: abs((m.metric("duration_us") or 0.0) - med),
        )
    else:
        rep = members[0]
    group = rep.model_copy(deep=True)
    n = len(members)
    for name in dict.fromkeys(name for m in members for name in m.metrics):
        values = [v for m in members if name in m.metrics and (v := m.metrics[name].value) is not None]
        base = next((m.metrics[name] for m in members if name in m.metrics), None)
        if not values or base is None:
            continue
        med = float(statistics.median(values))
        group.metrics[name] = Metric(
            value=med,
            unit=base.unit,
            source=f"{base.source} (median of {len(values)} of {n} launches)",
        )
        if len(values) > 1:
            group.metric_spread[name] = MetricSpread(median=med, min=min(values), max=max(values), count=len(values))
    group.launch_count = n
    group.launch_ids = ids
    group.launch_id = rep.launch_id
    group.notes.append(
        f"{n} launches with the same name and launch configuration, shown as one group: metrics are medians; "
        f"hotspots, SASS and profiler rules are those of launch {rep.launch_id} (nearest the median duration)"
    )
    if not group.no_data_reason:
        evaluate(group)
    return group


def _value_text(m: Metric) -> str:
    if m.value is None:
        return "n/a" + (f" ({m.missing_reason})" if m.missing_reason else "")
    return sig(m.value) + (f" {m.unit}" if m.unit else "")


def _spread_text(k: KernelEvidence, name: str) -> str:
    spread = k.metric_spread.get(name)
    if spread is None or spread.min == spread.max:
        return ""
    return f" ({spread.count} launches: median {sig(spread.median)}, min {sig(spread.min)}, max {sig(spread.max)})"


def _id_ranges(ids: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"ids 0-2, 5"``."""
    if not ids:
        return "ids unknown"
    parts: list[str] = []
    start = prev = ids[0]
    for i in [*ids[1:], None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(f"{start}-{prev}" if prev != start else f"{start}")
        if i is not None:
            start = prev = i
    return "ids " + ", ".join(parts)


def _header_lines(summary: ProfileSummary) -> list[str]:
    """Tool, vendor, version, GPU; then what is missing: counters, data of every or some kernels, notes."""
    lines = [f"tool: {summary.tool_used}", f"vendor: {summary.vendor_said}"]
    if summary.version:
        lines.append(f"version: {summary.version}")
    if summary.gpu:
        lines.append(f"gpu: {summary.gpu}")
    if not summary.counters_available:
        lines.append(
            f"COUNTERS UNAVAILABLE: {summary.counters_unavailable_reason or 'unknown reason'} (timing-only evidence)"
        )
    empty = [k for k in summary.kernels if k.no_data_reason]
    if empty and len(empty) == len(summary.kernels):
        lines.append(f"EMPTY RESULT: no kernel in this input has data: {empty[0].no_data_reason}")
    for k in empty:
        launch = f" (launch {k.launch_id})" if k.launch_id is not None else ""
        lines.append(f"NO DATA: {one_line(k.kernel_name, 160)}{launch}: every measured metric is n/a")
    lines += partial_data_lines(summary)
    lines += [f"NOTE: {note}" for note in summary.notes if not note.startswith("NO DATA for ")]
    return lines


def _measured_lines(k: KernelEvidence) -> list[str]:
    """The key metrics, the other measured ones, the names of those not measured, limiters, stalls, ISA."""
    lines = [
        f"  {name}: {_value_text(k.metrics[name])}{_spread_text(k, name)}" for name in KEY_METRICS if name in k.metrics
    ]
    missing = []
    for name in sorted(n for n in k.metrics if n not in KEY_METRICS):
        m = k.metrics[name]
        if m.value is None:
            missing.append(name)
        else:
            lines.append(f"  {name}: {_value_text(m)}{_spread_text(k, name)}")
    if missing:
        lines.append("  not measured: " + ", ".join(missing))
    if k.occupancy_limiters:
        lines.append("  occupancy limited by: " + ", ".join(k.occupancy_limiters))
    if k.stall_breakdown_pct:
        top = sorted(k.stall_breakdown_pct.items(), key=lambda kv: -kv[1])[:5]
        lines.append("  stalls: " + ", ".join(f"{r} {p:.1f}%" for r, p in top))
    if k.isa is not None:
        isa = k.isa
        lines.append(
            f"  isa: global load bits max {isa.global_load_bits} min {isa.global_load_bits_min}, "
            f"spill ops {isa.spill_ops}, tensor instructions {isa.tensor_instructions}"
            + (f" [{isa.source}]" if isa.source else "")
        )
    return lines


def _diagnosis_lines(k: KernelEvidence) -> list[str]:
    """One evidence chain per finding, ``SYMPTOMS:`` and ``LOCALIZE:``, hotspots, the profiler's rules."""
    lines = ["diagnosis:"]
    for f in k.findings:
        loc = f" @ {f.location}" if f.location else ""
        lines.append(f"  [{f.confidence.value}] {f.rule_id}{loc}: {f.chain()}")
    if not k.findings:
        lines.append("  no rule fired")
    lines.append("SYMPTOMS: " + (", ".join(dict.fromkeys(f.symptom for f in k.findings)) or "none"))
    locs = (
        [f.location for f in k.findings if f.location]
        + [m.location for m in k.source_markers[:3]]
        + [h.location for h in k.hotspots[:5]]
    )
    lines.append("LOCALIZE: " + (", ".join(dict.fromkeys(locs)) or "none"))
    for h in k.hotspots[:5]:
        share = f"{h.share_pct:.1f}%" if h.share_pct is not None else "?"
        lines.append(f"  hotspot {h.location} {share} {h.dominant_stall or ''}: {h.text or ''}".rstrip())
    for r in k.profiler_rules[:5]:
        sp = (
            f" (est. speedup {r.estimated_speedup_pct:.1f}% {r.speedup_type or ''})"
            if r.estimated_speedup_pct is not None
            else ""
        )
        lines.append(f"  profiler rule {r.rule_id}{sp}: {one_line(r.message, 300)}")
    return lines


def _kernel_lines(k: KernelEvidence) -> list[str]:
    launch = f" (launch {k.launch_id})" if k.launch_id is not None else ""
    if k.launch_count > 1:
        launch = f" ({k.launch_count} launches: {_id_ranges(k.launch_ids)})"
    lines = ["", f"== kernel: {k.kernel_name}{launch}", f"bottleneck: {k.bottleneck.value}"]
    if k.no_data_reason:
        lines.append(f"  NO DATA: {k.no_data_reason}")
    if k.grid or k.block:
        lines.append(f"  launch: grid {k.grid or '?'} block {k.block or '?'}")
    lines += _measured_lines(k)
    lines += [f"  note: {note}" for note in k.notes]
    return lines + _diagnosis_lines(k)


def render_text(summary: ProfileSummary) -> str:
    """The human summary (``summary.txt``).

    Per kernel: the key metrics (``n/a`` with the reason when missing), the other measured metrics, the
    names of the metrics the report did not have, the stall breakdown, the diagnosis (one evidence
    chain per finding), ``SYMPTOMS:`` and ``LOCALIZE:`` lines, then the profiler's own top rule results.
    """
    lines = _header_lines(summary)
    for k in summary.kernels:
        lines += _kernel_lines(k)
    return "\n".join(lines) + "\n"


def write_summary(profile_dir: Path, summary: ProfileSummary) -> tuple[Path, Path]:
    """Validate and atomically write ``summary.json`` and ``summary.txt`` into ``profile_dir``."""
    validated = ProfileSummary.model_validate(summary.model_dump())
    profile_dir.mkdir(parents=True, exist_ok=True)
    js = profile_dir / SUMMARY_JSON
    txt = profile_dir / SUMMARY_TXT
    atomic_write_text(js, validated.model_dump_json(indent=2) + "\n")
    atomic_write_text(txt, render_text(validated))
    return js, txt


def read_summary(path: Path) -> ProfileSummary:
    """Load ``summary.json`` (a file, or a profile folder holding one).

    Raises:
        SummaryError: missing, corrupt JSON, or not matching the schema.
    """
    file = path / SUMMARY_JSON if path.is_dir() else path
    if not file.is_file():
        raise SummaryError(f"{file}: no such summary")
    try:
        return ProfileSummary.model_validate(json.loads(file.read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        raise SummaryError(f"{file}: corrupt JSON ({exc})") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        raise SummaryError(
            f"{file}: does not match the summary schema at '{'.'.join(map(str, err['loc']))}': {err['msg']}"
        ) from None
