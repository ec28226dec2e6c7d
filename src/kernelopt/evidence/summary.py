"""Read and write ``profiles/v<N>/summary.json`` and render ``summary.txt``.

The JSON is the typed :class:`~kernelopt.evidence.model.ProfileSummary` (validated on write and on
read); the text is for people: key metrics, diagnosis with evidence lines, ``SYMPTOMS:`` and
``LOCALIZE:`` lines.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from kernelopt.errors import KerneloptError
from kernelopt.evidence.model import Metric, ProfileSummary
from kernelopt.fileio import atomic_write_text

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


def _value_text(m: Metric) -> str:
    if m.value is None:
        return "n/a" + (f" ({m.missing_reason})" if m.missing_reason else "")
    return f"{m.value:.4g}" + (f" {m.unit}" if m.unit else "")


def render_text(summary: ProfileSummary) -> str:
    """The human summary (``summary.txt``).

    Per kernel: the key metrics (``n/a`` with the reason when missing), the other measured metrics, the
    names of the metrics the report did not have, the stall breakdown, the diagnosis (one evidence
    chain per finding), ``SYMPTOMS:`` and ``LOCALIZE:`` lines, then the profiler's own top rule results.
    """
    lines = [f"tool: {summary.tool_used}", f"vendor: {summary.vendor.value}"]
    if summary.version:
        lines.append(f"version: {summary.version}")
    if summary.gpu:
        lines.append(f"gpu: {summary.gpu}")
    if not summary.counters_available:
        lines.append(
            f"COUNTERS UNAVAILABLE: {summary.counters_unavailable_reason or 'unknown reason'} (timing-only evidence)"
        )
    lines += [f"NOTE: {note}" for note in summary.notes]
    for k in summary.kernels:
        launch = f" (launch {k.launch_id})" if k.launch_id is not None else ""
        lines += ["", f"== kernel: {k.kernel_name}{launch}", f"bottleneck: {k.bottleneck.value}"]
        if k.grid or k.block:
            lines.append(f"  launch: grid {k.grid or '?'} block {k.block or '?'}")
        for name in KEY_METRICS:
            if name in k.metrics:
                lines.append(f"  {name}: {_value_text(k.metrics[name])}")
        missing = []
        for name in sorted(n for n in k.metrics if n not in KEY_METRICS):
            m = k.metrics[name]
            if m.value is None:
                missing.append(name)
            else:
                lines.append(f"  {name}: {_value_text(m)}")
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
        for note in k.notes:
            lines.append(f"  note: {note}")
        lines.append("diagnosis:")
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
            lines.append(f"  profiler rule {r.rule_id}{sp}: {' '.join(r.message.split())[:300]}")
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
