"""Report rendering on a synthetic workspace: real git, records through the store, real summary files."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import (
    BottleneckType,
    Confidence,
    EvidenceItem,
    Finding,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)
from kernelopt.evidence.summary import write_summary
from kernelopt.memory.model import (
    Comparison,
    Correctness,
    CorrectnessStatus,
    GateResult,
    IterationRecord,
    Optimization,
    Performance,
    PitfallAndFix,
    ProfileEvidence,
    QualityGate,
)
from kernelopt.report import collect, render_html, render_markdown
from kernelopt.report.model import CeilingOrigin
from kernelopt.report.roofline import RooflinePoint, roofline_bounds, roofline_plot, roofline_points
from kernelopt.workspace import Workspace

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# The softmax example's main shape: 32768 x 4096 fp16.
FLOPS = 5 * 32768 * 4096
BYTES = 2 * 2 * 32768 * 4096
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@dataclass
class FakeCeilings:
    """Measured ceilings in the loop's ``Ceilings`` shape."""

    memory_gbps: float | None = 4250.0
    memory_stream: str | None = "copy"
    matmul_tflops: dict[str, float] = field(default_factory=lambda: {"fp16": 715.0, "bf16": 715.0})


def _perf(latency_us: float | None, *, flops: bool = True, roofline: bool = True, prev: float | None = None):
    if latency_us is None:
        return Performance()
    tflops = FLOPS / (latency_us * 1e-6) / 1e12 if flops else None
    gbps = BYTES / (latency_us * 1e-6) / 1e9
    bound_us = BYTES / 4800e9 * 1e6
    return Performance(
        latency_us=latency_us,
        latency_iqr_us=latency_us * 0.01,
        tflops=tflops,
        bandwidth_gbps=gbps,
        tflops_peak_utilization_pct=100 * tflops / 989.5 if tflops is not None else None,
        bandwidth_peak_utilization_pct=100 * gbps / 4800,
        roofline_utilization_pct=100 * bound_us / latency_us if roofline else None,
        gpu="NVIDIA H200",
        comparison_with_previous=Comparison(
            latency_delta=100 * (latency_us - prev) / prev if prev else None,
            speedup=prev / latency_us if prev else None,
            speedup_ci_low=prev / latency_us * 0.99 if prev else None,
            speedup_ci_high=prev / latency_us * 1.01 if prev else None,
            verdict="improvement" if prev and prev > latency_us else None,
        ),
    )


def _summary(version: int, *, counters: bool = True, dram_pct: float = 35.0) -> ProfileSummary:
    kernel = KernelEvidence(
        kernel_name="softmax_kernel",
        metrics={
            "duration_us": Metric(value=400.0, unit="us", source="gpu__time_duration.sum"),
            "dram_throughput_pct": Metric(
                value=dram_pct if counters else None,
                unit="%",
                source="dram__throughput.avg.pct_of_peak_sustained_elapsed",
                missing_reason=None if counters else "counters unavailable (ERR_NVGPUCTRPERM)",
            ),
            "achieved_occupancy_pct": Metric(value=48.0, unit="%", source="sm__warps_active.avg.pct_of_peak"),
        },
        bottleneck=BottleneckType.LATENCY_BOUND if counters else BottleneckType.UNKNOWN,
        stall_breakdown_pct={"long_scoreboard": 61.0, "wait": 12.5} if counters else {},
        findings=[
            Finding(
                rule_id="nv.long_scoreboard_dominant",
                symptom="memory_latency_stall",
                confidence=Confidence.HIGH,
                evidence=[
                    EvidenceItem(
                        metric="smsp__pcsamp_warps_issue_stalled_long_scoreboard",
                        value=61.0,
                        unit="%",
                        threshold=">= 40 %",
                        source=f"profiles/v{version}/ncu.ncu-rep",
                    )
                ],
                inference="warps wait on global loads; too little memory parallelism per thread",
                action_categories=[ActionCategory.BLOCK_SIZE, ActionCategory.SOFTWARE_PIPELINING],
            )
        ]
        if counters
        else [],
    )
    return ProfileSummary(
        version=f"v{version}",
        vendor=Vendor.NVIDIA,
        tool_used="ncu 2025.3.1 --set full" if counters else "timing-only",
        gpu="NVIDIA H200",
        counters_available=counters,
        counters_unavailable_reason=None if counters else "ERR_NVGPUCTRPERM: no permission to read counters",
        artifacts=["ncu.ncu-rep"] if counters else [],
        kernels=[kernel],
    )


def _commit(ws: Workspace, n: int, message: str, files: list[str]) -> None:
    ws.commit(files, message)
    ws.memory.update(n, [f"git_commit_hash={ws.head()}"])
    ws.amend([f"memory/v{n}.json"])


def build_report_workspace(root: Path) -> Workspace:
    """A softmax workspace with V0 (baseline), V1 (PASS), V2 (TIMEOUT_FAIL), V3 (PASS, FLOPs n/a), V4 (masked)."""
    ex = EXAMPLES / "softmax"
    ws = Workspace.create(
        "softmax", kernel=ex / "kernel.py", reference=ex / "reference.py", task_card=ex / "README.md", root=root
    )
    # V0: baseline
    ws.memory.write(
        IterationRecord(
            version="v0",
            performance=_perf(400.0),
            correctness=Correctness(rel_err=2.7e-6, max_abs_err=4.8e-7, status=CorrectnessStatus.PASS),
            profile_evidence=ProfileEvidence(
                tool_used="ncu 2025.3.1",
                evidence_summary="long_scoreboard stalls dominate; DRAM at 35 % of peak",
                bottleneck_type="latency_bound",
                evidence_chain=["long_scoreboard 61 % -> loads not overlapped -> wider chunks"],
            ),
            quality_gate=QualityGate(result=GateResult.PASS),
        )
    )
    write_summary(ws.profile_dir(0), _summary(0))
    ws.baseline_report.write_text("# Baseline report\n", encoding="utf-8")
    _commit(ws, 0, "V0: 1.678 TFLOPS / 1342 GB/s | baseline (bottleneck: long_scoreboard 61 %)", ["memory/v0.json"])

    # V1: bigger chunks, PASS (profiled with counters unavailable: timing-only evidence)
    write_summary(ws.profile_dir(1), _summary(1, counters=False))
    ws.plan_path(1).write_text(
        "---\nversion: 1\naction_category: block_size\n---\n# Plan v1: block_size\n\nBLOCK_SIZE 128 -> 1024\n",
        encoding="utf-8",
    )
    kernel = ws.kernel_py.read_text().replace("BLOCK_SIZE=128", "BLOCK_SIZE=1024")
    ws.kernel_py.write_text(kernel)
    ws.memory.write(
        IterationRecord(
            version="v1",
            performance=_perf(200.0, prev=400.0),
            optimization=Optimization(
                action_category=ActionCategory.BLOCK_SIZE,
                action_description="walk the row in chunks of 1024 columns instead of 128",
                expected_impact="fewer, wider loads: about 2x",
                risks_and_rollback="register pressure; revert BLOCK_SIZE",
                knob_changes={"BLOCK_SIZE": [128, 1024]},
            ),
            correctness=Correctness(rel_err=2.7e-6, status=CorrectnessStatus.PASS),
            quality_gate=QualityGate(result=GateResult.PASS),
        )
    )
    _commit(
        ws,
        1,
        "V1: 3.355 TFLOPS / 2684 GB/s | BLOCK_SIZE 128 -> 1024 (bottleneck: timing-only)",
        ["kernel.py", "memory/v1.json", "plans/v1_plan.md"],
    )

    # V2: deeper pipelining hangs the gate: TIMEOUT_FAIL, revert marker
    write_summary(ws.profile_dir(2), _summary(2, dram_pct=56.0))
    ws.plan_path(2).write_text("# Plan v2: software_pipelining\n", encoding="utf-8")
    reason = "case 0 ran past its 30 s limit | killed"
    ws.memory.write(
        IterationRecord(
            version="v2",
            optimization=Optimization(
                action_category=ActionCategory.SOFTWARE_PIPELINING, knob_changes={"num_stages": [1, 4]}
            ),
            correctness=Correctness(status=CorrectnessStatus.TIMEOUT_FAIL, message="killed after 30 s"),
            quality_gate=QualityGate(result=GateResult.TIMEOUT_FAIL, failure_reason=reason),
            pitfalls_and_fixes=[
                PitfallAndFix(
                    error_type="TIMEOUT_FAIL",
                    error_message=reason,
                    root_cause="num_stages=4 with 1024-wide chunks",
                    fix_applied="kernel.py restored to V1",
                    lesson="do not deepen the pipeline past 2 at this chunk width",
                ),
                PitfallAndFix(
                    error_type="repair_attempt",
                    error_message="first implementation failed correctness: max abs err 0.5",
                    fix_applied="re-applied with the mask",
                ),
            ],
        )
    )
    _commit(ws, 2, "V2: revert (TIMEOUT_FAIL: case 0 ran past its 30 s limit)", ["memory/v2.json", "plans/v2_plan.md"])

    # V3: more warps, PASS; recorded without a FLOP rate or roofline share (must print n/a)
    write_summary(ws.profile_dir(3), _summary(3, dram_pct=56.0))
    ws.plan_path(3).write_text("# Plan v3: num_warps\n", encoding="utf-8")
    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("num_warps=4", "num_warps=8"))
    ws.memory.write(
        IterationRecord(
            version="v3",
            performance=_perf(150.0, flops=False, roofline=False, prev=200.0),
            optimization=Optimization(action_category=ActionCategory.NUM_WARPS, knob_changes={"num_warps": [4, 8]}),
            correctness=Correctness(rel_err=2.7e-6, status=CorrectnessStatus.PASS),
            quality_gate=QualityGate(result=GateResult.PASS),
        )
    )
    _commit(ws, 3, "V3: n/a TFLOPS / 3579 GB/s | num_warps 4 -> 8", ["kernel.py", "memory/v3.json", "plans/v3_plan.md"])

    # V4: a record masked afterwards (kept for audit)
    ws.memory.write(
        IterationRecord(
            version="v4",
            masked=True,
            performance=_perf(120.0, prev=150.0),
            optimization=Optimization(action_category=ActionCategory.NUM_WARPS),
            quality_gate=QualityGate(result=GateResult.PASS),
        )
    )
    return ws


@pytest.fixture
def report_ws(ws_root: Path) -> Workspace:
    return build_report_workspace(ws_root)


def _table_row(markdown: str, section: str, first_cell: str) -> list[str]:
    body = markdown.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == first_cell:
            return cells
    raise AssertionError(f"no row {first_cell} in {section}")


def test_collect_reads_every_record_summary_plan_and_commit(report_ws: Workspace) -> None:
    data = collect(report_ws, measured=FakeCeilings())
    assert [v.label for v in data.versions] == ["V0", "V1", "V2", "V3", "V4"]
    assert data.gpu == "h200" and data.gpu_spec == "NVIDIA H200 SXM" and data.dtype == "fp16"
    v1 = data.versions[1]
    assert v1.plan_path == "plans/v1_plan.md" and v1.plan_title == "Plan v1: block_size"
    assert v1.summary is not None and not v1.summary.counters_available
    assert v1.commit_subject and v1.commit_subject.startswith("V1: 3.355 TFLOPS")
    assert data.versions[4].summary is None and "no profiles/v4/summary.json" in (
        data.versions[4].summary_problem or ""
    )
    assert data.final() is data.versions[3] and data.best() is data.versions[3]
    assert [v.label for v in data.failed_versions()] == ["V2"]
    assert [v.label for v in data.masked_versions()] == ["V4"]
    assert data.speedup(data.final()) == pytest.approx(400 / 150)
    origins = {(c.kind.value, c.origin.value): c for c in data.ceilings}
    assert origins[("memory", "spec")].value == 4800 and "datasheet" in origins[("memory", "spec")].source
    assert origins[("compute", "spec")].value == 989.5
    assert (
        origins[("memory", "measured")].value == 4250 and "kernelopt ceilings" in origins[("memory", "measured")].source
    )
    assert origins[("compute", "measured")].value == 715
    assert data.git_log[0][1].startswith("V3:") and data.has_baseline_report


def test_markdown_has_timeline_failures_memory_and_na(report_ws: Workspace) -> None:
    md = render_markdown(report_ws, measured=FakeCeilings())
    for heading in (
        "## Summary",
        "## Version timeline",
        "## Roofline",
        "## Evidence -> action -> result",
        "## Failed attempts",
        "## Memory summary",
        "## Git history",
    ):
        assert heading in md
    v0 = _table_row(md, "Version timeline", "V0")
    assert v0[1] == "PASS" and v0[2] == "400.0" and v0[5] == "1.68" and v0[6] == "1,342"
    v1 = _table_row(md, "Version timeline", "V1")
    assert v1[3] == "2x (95 % CI 1.98-2.02x)" and v1[4] == "2.00x" and v1[10] == "block_size"
    v2 = _table_row(md, "Version timeline", "V2")
    assert v2[1] == "TIMEOUT_FAIL" and v2[2] == "n/a" and v2[5] == "n/a"
    v3 = _table_row(md, "Version timeline", "V3")
    assert v3[5] == "n/a" and v3[9] == "n/a"  # no FLOP rate, no roofline share: printed n/a, not computed
    assert v3[6] == "3,579" and v3[4] == "2.67x"
    v4 = _table_row(md, "Version timeline", "V4")
    assert v4[1] == "PASS, masked" and v4[4] == "n/a"
    # failed attempts: the gate's reason (a pipe inside is escaped) and the repair pitfall
    failures = md.split("## Failed attempts", 1)[1].split("\n## ", 1)[0]
    assert "case 0 ran past its 30 s limit \\| killed" in failures
    assert "repair_attempt" in failures and "max abs err 0.5" in failures
    # memory summary marks the masked record
    assert _table_row(md, "Memory summary", "v4")[1] == "yes"
    # the commit column shows the commit as git log shows it (the same in both tables)
    shown = _table_row(md, "Memory summary", "v0")[12]
    assert shown == _table_row(md, "Version timeline", "V0")[-1]
    assert any(full.startswith(shown) for full in report_ws.repo.git.log("--format=%H").split())
    # evidence -> action -> result
    assert "### V1: block_size (PASS)" in md
    assert "- Knob BLOCK_SIZE: 128 -> 1024" in md and "**Evidence**" in md and "**Pitfalls**" in md
    assert "Hardware counters unavailable: ERR_NVGPUCTRPERM" in md
    assert "nv.long_scoreboard_dominant" in md and "try block_size, software_pipelining" in md
    assert "Timing-only evidence (hardware counters unavailable) for V1" in md
    assert "Final V3: 150.0 us" in md and "speedup over V0: 2.67x" in md
    # roofs with sources; the roofline bound for the size uses the byte count, not a guess
    assert "NVIDIA H200 Tensor Core GPU datasheet" in md and "measured on this machine" in md
    spec_bound = BYTES / 4800e9 * 1e6
    assert f"spec HBM bandwidth): {spec_bound:.1f} us" in md or f"{spec_bound:.1f} us" in md


def test_markdown_without_measured_ceilings_says_why(report_ws: Workspace) -> None:
    md = render_markdown(report_ws, measured=None)
    assert "Measured ceilings: not requested" in md
    data = collect(report_ws, measured=None)
    assert {c.origin for c in data.ceilings} == {CeilingOrigin.SPEC}


def test_markdown_of_an_empty_workspace(ws_root: Path) -> None:
    ex = EXAMPLES / "elementwise"
    ws = Workspace.create("empty", kernel=ex / "kernel.py", reference=ex / "reference.py", root=ws_root)
    md = render_markdown(ws, measured=None)
    assert "No memory records yet." in md and "Baseline n/a" in md
    assert "Spec roofs: no GPU named" in md  # generated card: no gpu -> no roofs, and the report says so
    html = render_html(ws, measured=None)
    assert "<table" not in html.split("<h2>Version timeline</h2>")[1].split("<h2>")[0]


def test_unreadable_record_and_corrupt_summary_are_reported(report_ws: Workspace) -> None:
    (report_ws.memory_dir / "v5.json").write_text("{not json", encoding="utf-8")
    (report_ws.profile_dir(3) / "summary.json").write_text("{}", encoding="utf-8")
    data = collect(report_ws, measured=None)
    assert len(data.unreadable) == 1 and data.unreadable[0].startswith("v5: ")
    assert data.versions[3].summary is None and "summary schema" in (data.versions[3].summary_problem or "")
    md = render_markdown(report_ws, measured=None)
    assert "Unreadable record v5" in md


_URL_ATTR = re.compile(r"""(?:src|href|srcset|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//""", re.I)


def test_html_is_self_contained_with_embedded_plot(report_ws: Workspace) -> None:
    html = render_html(report_ws, measured=FakeCeilings())
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert not _URL_ATTR.search(html)
    assert "<link" not in html and "<script" not in html and "@import" not in html and "url(" not in html
    m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert m is not None
    png = base64.b64decode(m.group(1))
    assert png.startswith(PNG_MAGIC) and len(png) > 10_000
    assert "<style>" in html
    # the same content as the Markdown: timeline, failure, masked marker, n/a
    assert "TIMEOUT_FAIL" in html and "case 0 ran past its 30 s limit | killed" in html
    assert 'class="masked"' in html and ">n/a<" in html
    assert "Evidence &rarr; action &rarr; result" in html
    # both say which latency comparison to trust (clocks drift between separate runs)
    assert "interleaved comparison with the previous version" in html
    assert "interleaved comparison with the previous version" in render_markdown(report_ws, measured=FakeCeilings())


def test_html_escapes_workspace_text(report_ws: Workspace) -> None:
    report_ws.memory.update(3, ['optimization.action_description="<script>alert(1)</script>"'])
    html = render_html(report_ws, measured=None)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_roofline_plot_png_and_svg(report_ws: Workspace, tmp_path: Path) -> None:
    data = collect(report_ws, measured=FakeCeilings())
    points = roofline_points(data)
    assert [p.version for p in points] == ["V0", "V1", "V2", "V3", "V4"]
    assert points[0].intensity == pytest.approx(FLOPS / BYTES)
    assert points[2].failed and points[2].latency_us is None  # failed before timing: nothing invented
    assert points[3].intensity is None and points[3].final
    assert points[4].masked
    png = roofline_plot(points, data.ceilings, title="softmax")
    assert png.startswith(PNG_MAGIC) and len(png) > 10_000
    (tmp_path / "roofline.png").write_bytes(png)
    svg = roofline_plot(points, data.ceilings, title="softmax", image_format="svg")
    assert b"<svg" in svg[:2000]
    with pytest.raises(ValueError):
        roofline_plot(points, data.ceilings, title="x", image_format="gif")


def test_roofline_bounds_follow_the_roofs(report_ws: Workspace) -> None:
    data = collect(report_ws, measured=FakeCeilings())
    bounds = {b.origin: b for b in roofline_bounds(roofline_points(data), data.ceilings)}
    # memory-bound softmax: the byte term dominates under both the spec and the measured roofs
    assert bounds[CeilingOrigin.SPEC].latency_us == pytest.approx(BYTES / 4800e9 * 1e6)
    assert bounds[CeilingOrigin.MEASURED].latency_us == pytest.approx(BYTES / 4250e9 * 1e6)


def test_bandwidth_only_plot_when_flops_unknown() -> None:
    points = [
        RooflinePoint(version="V0", latency_us=100.0, tflops=None, bandwidth_gbps=1000.0, intensity=None),
        RooflinePoint(version="V1", latency_us=50.0, tflops=None, bandwidth_gbps=2000.0, intensity=None, final=True),
    ]
    png = roofline_plot(points, [], title="no flops")
    assert png.startswith(PNG_MAGIC) and len(png) > 5_000
    empty = roofline_plot([], [], title="nothing yet")
    assert empty.startswith(PNG_MAGIC)


def test_importing_report_pulls_in_no_matplotlib() -> None:
    code = (
        "import sys, kernelopt.report, kernelopt.report.baseline, kernelopt.cli.report\n"
        "print(','.join(m for m in ('matplotlib', 'torch', 'triton', 'numpy') if m in sys.modules))"
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


@dataclass
class _CachedCeilings:
    gpu_name: str
    memory_gbps: float = 4250.0
    memory_stream: str = "copy"
    matmul_tflops: dict[str, float] = field(default_factory=lambda: {"fp16": 715.0})
    driver: str | None = "580.159.04"
    measured_at: str | None = "2026-11-29T10:00:00"


def test_cached_ceilings_are_matched_to_the_spec_sheet(report_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness cache is asked by the GPU names the records carry; another GPU's entry is never used."""
    asked: list[str | None] = []
    cache = {"NVIDIA H200": _CachedCeilings("NVIDIA H200"), None: _CachedCeilings("NVIDIA A100-SXM4-80GB")}

    def cached_ceilings(gpu_name: str | None = None) -> _CachedCeilings | None:
        asked.append(gpu_name)
        return cache.get(gpu_name)

    monkeypatch.setattr("kernelopt.report.reader.cached_ceilings", cached_ceilings)
    data = collect(report_ws)
    assert asked == ["NVIDIA H200"]
    measured = [c for c in data.ceilings if c.origin is CeilingOrigin.MEASURED]
    assert [c.value for c in measured] == [4250.0, 715.0]
    assert "580.159.04" in measured[0].source and data.measured_problem is None

    del cache["NVIDIA H200"]  # only the machine's own GPU (an A100) has an entry: not this workspace's
    asked.clear()
    data = collect(report_ws)
    assert asked == ["NVIDIA H200", None]
    assert not [c for c in data.ceilings if c.origin is CeilingOrigin.MEASURED]
    assert data.measured_problem == "no cached measurement for NVIDIA H200 SXM (run `kernelopt ceilings` on it)"
