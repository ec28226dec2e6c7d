"""baseline_report.md: V0 evidence and performance, n/a for what was not measured."""

from __future__ import annotations

from pathlib import Path

from kernelopt.evidence.model import IsaFacts
from kernelopt.memory.model import IsaMetricProgress
from kernelopt.report.baseline import BaselineRenderer, render_baseline
from tests.test_report_render import _summary, build_report_workspace


def test_baseline_report_with_evidence(ws_root: Path) -> None:
    ws = build_report_workspace(ws_root)
    record = ws.memory.read(0)
    record.isa_metric_progress = [
        IsaMetricProgress(metric="spills", target="0", current=0, met=True),
        IsaMetricProgress(metric="global_load_bits", target=">=128", current=16, met=False),
    ]
    record.open_directions = ["wider chunks", "more warps"]
    summary = _summary(0)
    summary.kernels[0].isa = IsaFacts(registers_per_thread=40, spill_ops=0, global_load_bits=16, source="sass")
    text = render_baseline(ws, record, summary, roofline_lines=["bound: 111.8 us (spec HBM bandwidth)"])
    assert text.startswith("# Baseline report: softmax (V0)")
    assert "| latency (median) | 400.0 us |" in text
    assert "| achieved TFLOP/s | 1.68 |" in text
    assert "| % of the roofline bound | 28.0 % |" in text
    assert "NVIDIA H200 Tensor Core GPU datasheet" in text and "4,800 GB/s" in text
    assert "- bound: 111.8 us (spec HBM bandwidth)" in text
    assert "Bottleneck: **latency_bound**" in text
    assert "| dram_throughput_pct | 35.00 | % | dram__throughput.avg.pct_of_peak_sustained_elapsed |" in text
    assert "long_scoreboard 61.0 %" in text
    assert "nv.long_scoreboard_dominant" in text and "-> try block_size, software_pipelining" in text
    assert "| widest global load (bits) | 16 |" in text and "| scratch bytes | n/a |" in text
    assert "| global_load_bits | >=128 | 16 | no |" in text
    assert "- wider chunks" in text
    assert "at most 8 iterations" in text
    assert BaselineRenderer().render(workspace=ws, record=record, summary=summary, roofline_lines=[]) == (
        render_baseline(ws, record, summary)
    )


def test_baseline_report_without_evidence_prints_na(ws_root: Path) -> None:
    ws = build_report_workspace(ws_root)
    record = ws.memory.read(2)  # nothing measured
    record.version = "v0"
    text = render_baseline(ws, record, None)
    assert "| latency (median) | n/a us |" not in text  # the unit is not glued to n/a
    assert "| latency (median) | n/a |" in text
    assert "| achieved TFLOP/s | n/a |" in text and "| % of the roofline bound | n/a |" in text
    assert "No profile summary: n/a" in text


def test_baseline_report_timing_only(ws_root: Path) -> None:
    ws = build_report_workspace(ws_root)
    text = render_baseline(ws, ws.memory.read(0), _summary(0, counters=False))
    assert "\n> **Timing-only evidence**: hardware counters were unavailable (ERR_NVGPUCTRPERM" in text
    assert "| dram_throughput_pct | n/a (counters unavailable (ERR_NVGPUCTRPERM)) |" in text
    assert "- no rule fired" in text
