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
from kernelopt.evidence.model import ProfileSummary
from kernelopt.memory.store import atomic_write_text

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


def render_text(summary: ProfileSummary) -> str:
    """The human summary (``summary.txt``)."""
    lines = [f"tool: {summary.tool_used}", f"vendor: {summary.vendor.value}"]
    if summary.gpu:
        lines.append(f"gpu: {summary.gpu}")
    if not summary.counters_available:
        lines.append(
            f"COUNTERS UNAVAILABLE: {summary.counters_unavailable_reason or 'unknown reason'} (timing-only evidence)"
        )
    lines += [f"NOTE: {note}" for note in summary.notes]
    for k in summary.kernels:
        lines += ["", f"== kernel: {k.kernel_name}", f"bottleneck: {k.bottleneck.value}"]
        shown = [n for n in KEY_METRICS if n in k.metrics] + sorted(n for n in k.metrics if n not in KEY_METRICS)
        for name in shown:
            m = k.metrics[name]
            val = (
                "n/a" + (f" ({m.missing_reason})" if m.missing_reason else "")
                if m.value is None
                else f"{m.value:.4g}" + (f" {m.unit}" if m.unit else "")
            )
            lines.append(f"  {name}: {val}")
        if k.stall_breakdown_pct:
            top = sorted(k.stall_breakdown_pct.items(), key=lambda kv: -kv[1])[:5]
            lines.append("  stalls: " + ", ".join(f"{r} {p:.1f}%" for r, p in top))
        lines.append("diagnosis:")
        for f in k.findings:
            lines.append(f"  [{f.confidence.value}] {f.rule_id}: {f.chain()}")
        if not k.findings:
            lines.append("  no rule fired")
        lines.append("SYMPTOMS: " + (", ".join(dict.fromkeys(f.symptom for f in k.findings)) or "none"))
        locs = [f.location for f in k.findings if f.location] + [h.location for h in k.hotspots[:5]]
        lines.append("LOCALIZE: " + (", ".join(dict.fromkeys(locs)) or "none"))
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
