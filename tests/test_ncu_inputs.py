"""Nsight Compute inputs from other GPUs and tool versions (issue 18): section CSVs, grouping of
repeated launches, empty results, and corrupt files."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from kernelopt.evidence.nvidia import build_summary
from kernelopt.profiling.ncu_csv import details_metric_name, parse_ncu_csv
from kernelopt.profiling.reader import read_evidence

DATA = Path(__file__).parent / "data" / "nvidia"
SOFTMAX_DETAILS = DATA / "h200_softmax_details.csv"
A10G_METRICS = DATA / "ncu_a10g_sgemm_metrics_raw.csv"


def _roofline_section_export() -> str:
    """A SpeedOfLight_RooflineChart section export in the details layout with the ``Body Item Label``
    column that ``--print-details all`` adds. The launch columns and the values are those of the real
    H200 softmax details export (DRAM 3.20 GHz, SM 1.97 GHz, 3.76 TB/s); the row labels are the
    section file's. scripts/record_ncu_section_csv.sh records the real one on a GPU."""
    rows = list(csv.reader(SOFTMAX_DETAILS.open()))
    head = rows[0]
    launch = rows[1][: head.index("Section Name")]
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL)
    w.writerow(
        [
            *head[: head.index("Section Name")],
            "Section Name",
            "Body Item Label",
            "Metric Name",
            "Metric Unit",
            "Metric Value",
        ]
    )
    section = "GPU Speed Of Light Roofline Chart"
    for item, label, unit, value in (
        ("Achieved", "DRAM Bandwidth", "Tbyte/s", "3.76"),
        ("Achieved", "SM Frequency", "Ghz", "1.97"),
        ("Roofline", "DRAM Frequency", "Ghz", "3.20"),
        ("Roofline", "SM Frequency", "Ghz", "1.97"),
        ("Roofline", "Theoretical DRAM Bytes Accessible", "Kbyte/cycle", "1.50"),
        ("Roofline", "Some Future Row", "inst/cycle", "7"),
    ):
        w.writerow([*launch, section, item, label, unit, value])
    return out.getvalue()


def test_roofline_section_rows_yield_bandwidth_and_clocks() -> None:
    raw = parse_ncu_csv(_roofline_section_export(), artifact="roofline.csv")
    (k,) = build_summary(raw).kernels
    assert k.metric("dram_gbps") == pytest.approx(3760.0)
    assert k.metric("sm_frequency_ghz") == pytest.approx(1.97)
    assert k.metric("dram_frequency_ghz") == pytest.approx(3.20)
    assert k.metric("dram__bytes.sum.peak_sustained") == pytest.approx(1500.0)
    # a row nobody maps is carried, not dropped
    future = k.metrics["details:GPU Speed Of Light Roofline Chart/Roofline/Some Future Row"]
    assert future.value == 7.0 and future.unit


def test_section_identifiers_and_metric_names_map() -> None:
    assert details_metric_name("SpeedOfLight_RooflineChart", "DRAM Bandwidth") == "dram__bytes.sum.per_second"
    assert details_metric_name("Command line profiler metrics", "flop_count_sp.sum") == "flop_count_sp.sum"
    assert details_metric_name("PM Sampling", "# Pass Groups") == "details:PM Sampling/# Pass Groups"


def test_every_row_of_a_metrics_export_is_carried() -> None:
    """The RTX 5090 FlashAttention --metrics rows that no normalized metric reads stay, by their names."""
    summary = read_evidence(DATA / "ncu_rtx5090_flashfwd_splitkv_raw.csv")
    k = summary.kernels[0]
    for name in ("flop_count_hp.sum", "flop_count_sp.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"):
        assert name in k.metrics


# ------------------------------------------------------------------------------- launch groups


def _repeat_launches(path: Path, n: int) -> str:
    """The real export's one launch, repeated as launches 0..n-1 (what ncu prints when one kernel is
    profiled n times); the Duration row is raised by i ns for launch i so that the spread is known."""
    rows = list(csv.reader(path.open(encoding="utf-8")))
    head, body = rows[0], rows[1:]
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL)
    w.writerow(head)
    for i in range(n):
        for r in body:
            r = list(r)
            r[head.index("ID")] = str(i)
            if r[head.index("Metric Name")] == "Duration" and r[head.index("Metric Unit")] == "us":
                r[head.index("Metric Value")] = f"{float(r[head.index('Metric Value')]) + i / 1000:.3f}"
            w.writerow(r)
    return out.getvalue()


def test_a_hundred_launches_are_one_group(tmp_path: Path) -> None:
    from kernelopt.evidence.summary import render_text

    path = tmp_path / "gemv_x100.csv"
    path.write_text(_repeat_launches(DATA / "ncu_rtx5090_cublas_gemv_details_na.csv", 100), encoding="utf-8")
    grouped = read_evidence(path)
    (k,) = grouped.kernels
    assert k.launch_count == 100 and k.launch_ids == list(range(100))
    spread = k.metric_spread["duration_us"]
    assert spread.count == 100 and spread.max - spread.min == pytest.approx(0.099)
    assert spread.min < (k.metric("duration_us") or 0.0) < spread.max
    assert "median of 100 of 100 launches" in (k.metrics["duration_us"].source or "")
    assert k.findings, "the rules run on the group"
    text = render_text(grouped)
    assert "(100 launches: ids 0-99)" in text and "(100 launches: median" in text
    per_launch = read_evidence(path, per_launch=True)
    assert len(per_launch.kernels) == 100
    assert len(text) * 20 < len(render_text(per_launch))


def test_launches_differing_in_configuration_are_not_merged() -> None:
    summary = read_evidence(A10G_METRICS)
    cutlass = [k for k in summary.kernels if k.kernel_name == "ampere_sgemm_128x64_nn"]
    assert len(cutlass) == 1 and cutlass[0].launch_ids == [7, 8]
    # the hand-written kernels share a grid but differ in name or block: each stays alone
    assert [k.launch_count for k in summary.kernels] == [1, 1, 1, 1, 1, 1, 1, 2]


# ------------------------------------------------------------------------------- empty results


def _all_na(path: Path) -> str:
    """The real export with every metric value replaced by n/a: what ncu prints for a launch whose
    replay failed (the H800 flash-attention result of issue 18)."""
    rows = list(csv.reader(path.open(encoding="utf-8")))
    head = rows[0]
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL)
    w.writerow(head)
    for r in rows[1:]:
        r = list(r)
        if r[head.index("Metric Name")]:
            r[head.index("Metric Value")] = "n/a"
        w.writerow(r)
    return out.getvalue()


def test_an_empty_result_is_flagged_at_the_top_and_gets_no_findings(tmp_path: Path) -> None:
    from kernelopt.evidence.summary import render_text

    path = tmp_path / "flash_empty.csv"
    path.write_text(_all_na(DATA / "ncu_rtx5090_flashfwd_splitkv_details.csv"), encoding="utf-8")
    summary = read_evidence(path)
    (k,) = summary.kernels
    assert k.no_data_reason and "replay" in k.no_data_reason
    assert k.findings == [] and k.bottleneck.value == "unknown"
    assert k.metric("duration_us") is None  # missing, never zero
    text = render_text(summary)
    head = text.split("== kernel:")[0]
    assert "EMPTY RESULT" in head and "NO DATA: void flash_fwd_splitkv_kernel" in head


def test_an_empty_launch_beside_real_ones_is_named(tmp_path: Path) -> None:
    real = (DATA / "ncu_rtx5090_cublas_gemv_details_na.csv").read_text(encoding="utf-8")
    empty = _all_na(DATA / "ncu_rtx5090_flashfwd_splitkv_details.csv").replace('"0","', '"1","', 1)
    empty_rows = [ln.replace('"0",', '"1",', 1) for ln in empty.splitlines()[1:]]
    path = tmp_path / "two.csv"
    path.write_text(real.rstrip("\n") + "\n" + "\n".join(empty_rows) + "\n", encoding="utf-8")
    summary = read_evidence(path)
    gemv, flash = summary.kernels
    assert gemv.no_data_reason is None and gemv.findings
    assert flash.no_data_reason and not flash.findings
    assert summary.primary() is gemv
    assert any(n.startswith("NO DATA for void flash_fwd_splitkv_kernel") for n in summary.notes)
