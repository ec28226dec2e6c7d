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
