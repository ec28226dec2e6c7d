"""AMD inputs beyond the rocprofv3 basics: rocprof-compute sysinfo.csv, rocprof --stats files, Triton
LDS metadata, implausible durations, and AMD files kernelopt cannot read (issue 18)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.errors import InputFileError
from kernelopt.profiling.amd_reports import (
    IMPLAUSIBLE_LAUNCH_NS,
    AmdInputs,
    ReportKind,
    build_summary,
    classify_header,
    implausible_duration,
    is_amd_path,
    parse_csv,
    parse_kernel_stats,
    parse_sysinfo,
    read_amd_path,
)
from kernelopt.profiling.reader import read_evidence

DATA = Path(__file__).parent / "data" / "amd"
V2 = DATA / "amd_mi300x_vcopy_pmc_perf_rocprofv2.csv"
SYSINFO = DATA / "stub" / "sysinfo_mi300x.csv"
ASM = DATA / "asm"

# rocprof v1 `--stats` (results.stats.csv), as printed in a public HIP matrix-transpose tutorial.
ROCPROF_V1_STATS = (
    '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
    '"copy_kernel(float*, float*, int, int) [clone .kd]",1,165920,165920,100.0\n'
)
# rocprof v1 --hsa-trace --stats (results.hsa_stats.csv), first rows as posted in ROCm/ROCm issue 1640.
ROCPROF_V1_HSA_STATS = (
    '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n'
    "hsa_signal_wait_scacquire,1220,177633790,145601,53.91378585000949\n"
    "hsa_amd_memory_lock_to_pool,36,41889377,1163593,12.713881187629408\n"
)
# rocprofv3 --kernel-trace --stats (kernel_stats.csv), first rows of AMD's HPCTrainingExamples.
ROCPROFV3_KERNEL_STATS = (
    '"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"\n'
    '"__amd_rocclr_copyBuffer",7084,17229993,2432.240683,8.38,601,10656,1241.386133\n'
    '"MIOpenBatchNormBwdSpatial",1113,13283773,11935.106020,6.46,6009,51117,6712.148824\n'
)


def test_headers_are_classified() -> None:
    assert classify_header(parse_csv(SYSINFO.read_text(), "s")[0]) is ReportKind.SYSINFO
    assert classify_header(parse_csv(ROCPROF_V1_STATS, "s")[0]) is ReportKind.KERNEL_STATS
    assert classify_header(parse_csv(ROCPROFV3_KERNEL_STATS, "s")[0]) is ReportKind.KERNEL_STATS


def test_sysinfo_gives_identity_cus_and_clocks() -> None:
    agent = parse_sysinfo(SYSINFO.read_text(), SYSINFO.name)
    assert agent.name == "gfx942" and agent.product_name == "MI300X"
    assert agent.cu_count == 304 and agent.num_xcc == 8 and agent.simds_per_cu == 4
    assert agent.max_waves_per_simd == 8 and agent.wave_size == 64
    assert agent.max_engine_clock_mhz == 2100 and agent.memory_clock_mhz == 1300
    assert agent.label == "MI300X (gfx942, SPX partition)"
    # rocprof-compute's hbmBandwidth: max_mclk/1000 * 32 * channels
    assert agent.peak_hbm_gbps == pytest.approx(1.3 * 32 * 128)


def test_workload_folder_with_sysinfo_gives_peaks_and_mfma_busy(tmp_path: Path) -> None:
    """pmc_perf.csv alone leaves MFMA busy unknown; with sysinfo.csv beside it the CU and XCD counts
    normalize GRBM_GUI_ACTIVE as rocprof-compute does."""
    alone = read_amd_path(V2)
    assert alone.kernels[0].metrics["mfma_busy_pct"].value is None
    shutil.copy(V2, tmp_path / "pmc_perf.csv")
    shutil.copy(SYSINFO, tmp_path / "sysinfo.csv")
    summary = read_amd_path(tmp_path)
    assert summary.gpu == "MI300X (gfx942, SPX partition)"
    (k,) = summary.kernels
    # SQ_VALU_MFMA_BUSY_CYCLES is 0 in this vcopy recording: measured 0 %, not "not measured"
    assert k.metric("mfma_busy_pct") == 0.0
    grbm = (2572147 + 2494642 + 2536062) / 3
    assert k.metric("valu_busy_pct") == pytest.approx(100 * 98304 / (grbm / 8 * 304))
    assert k.metric("cu_count") == 304 and k.metric("max_sclk_mhz") == 2100
    peak = k.metrics["peak_hbm_gbps"]
    assert peak.value == pytest.approx(5324.8) and "hbmBandwidth" in (peak.source or "")
    # the timestamps of this recording lost their precision, so no bandwidth % is claimed
    assert k.metric("dram_gbps") is None


def test_sysinfo_alone_says_what_it_is_and_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="sysinfo.csv: the description of the machine") as err:
        read_evidence(SYSINFO)
    assert "pmc_perf.csv" in (err.value.hint or "")
    shutil.copy(SYSINFO, tmp_path / "sysinfo.csv")
    with pytest.raises(InputFileError, match="only a machine description"):
        read_evidence(tmp_path)


def test_rocprof_v1_stats_are_read() -> None:
    (row,) = parse_kernel_stats(ROCPROF_V1_STATS, "results.stats.csv")
    assert row.kernel_name == "copy_kernel(float*, float*, int, int)" and row.count == 1
    inputs = AmdInputs(kernel_top=[row])
    (k,) = build_summary(inputs, tool_used="rocprof --stats").kernels
    assert k.metric("duration_us") == pytest.approx(165.92)
    assert k.metrics["duration_us"].source == "results.stats.csv: AverageNs"
    assert k.metric("time_share_pct") == 100.0


def test_rocprofv3_kernel_stats_carry_min_and_max(tmp_path: Path) -> None:
    path = tmp_path / "kernels_kernel_stats.csv"
    path.write_text(ROCPROFV3_KERNEL_STATS)
    assert is_amd_path(path)
    summary = read_evidence(path)
    k = next(k for k in summary.kernels if k.kernel_name == "MIOpenBatchNormBwdSpatial")
    assert k.metric("duration_us") == pytest.approx(11.935106020)
    assert k.metric("duration_min_us") == pytest.approx(6.009)
    assert k.metric("duration_max_us") == pytest.approx(51.117)
    assert k.metric("dispatches") == 1113


def test_api_stats_get_an_amd_message(tmp_path: Path) -> None:
    path = tmp_path / "results.hsa_stats.csv"
    path.write_text(ROCPROF_V1_HSA_STATS)
    with pytest.raises(InputFileError, match="API / copy statistics") as err:
        read_evidence(path)
    assert "results.stats.csv" in (err.value.hint or "")


def test_raw_att_stream_gets_an_amd_message(tmp_path: Path) -> None:
    raw = tmp_path / "1234_shader_engine_0_3.att"
    raw.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InputFileError, match="raw, undecoded AMD thread-trace") as err:
        read_evidence(raw)
    assert "decoder" in (err.value.hint or "")
    with pytest.raises(InputFileError, match="holds only a raw, undecoded"):
        read_evidence(tmp_path)
    # beside a readable file, the undecoded stream becomes a note
    shutil.copy(V2, tmp_path / "pmc_perf.csv")
    summary = read_evidence(tmp_path)
    assert any("raw .att stream" in n for n in summary.notes)


def test_implausible_durations_are_flagged_and_not_used() -> None:
    # The tutorial's stats row with AverageNs raised to 331 s: the figure of the legacy stats file that
    # issue 18 quotes (one launch "lasting" 331 seconds).
    text = ROCPROF_V1_STATS.replace("1,165920,165920,100.0", "1,331000000000,331000000000,100.0")
    inputs = AmdInputs(kernel_top=parse_kernel_stats(text, "results.stats.csv"))
    summary = build_summary(inputs, tool_used="rocprof --stats")
    (k,) = summary.kernels
    d = k.metrics["duration_us"]
    assert d.value is None and (d.missing_reason or "").startswith("implausible")
    assert any(n.startswith("IMPLAUSIBLE DURATION") and "3.31e+11" in n for n in summary.notes)
    # longer than the run that contains it
    inputs = AmdInputs(kernel_top=parse_kernel_stats(ROCPROF_V1_STATS, "results.stats.csv"))
    (k,) = build_summary(inputs, tool_used="t", run_wall_s=0.0001).kernels
    assert k.metric("duration_us") is None
    assert "longer than the whole run" in (k.metrics["duration_us"].missing_reason or "")
    assert implausible_duration(165920.0) is None
    assert implausible_duration(IMPLAUSIBLE_LAUNCH_NS * 2) is not None
    assert implausible_duration(-5.0) is not None


def test_triton_metadata_beside_the_assembly_gives_dynamic_lds(tmp_path: Path) -> None:
    (k,) = read_amd_path(ASM / "triton_gfx942_matmul_bf16_wide.amdgcn").kernels
    lds = k.metrics["lds_bytes_per_workgroup"]
    assert lds.value == 32768
    assert "Triton metadata 'shared'" in (lds.source or "") and "dynamic" in (lds.source or "")
    # Triton's cache names both files after the kernel
    shutil.copy(ASM / "triton_gfx942_matmul_bf16_wide.amdgcn", tmp_path / "matmul_kernel.amdgcn")
    shutil.copy(ASM / "triton_gfx942_matmul_bf16_wide.json", tmp_path / "matmul_kernel.json")
    (k,) = read_amd_path(tmp_path / "matmul_kernel.amdgcn").kernels
    assert k.metric("lds_bytes_per_workgroup") == 32768
    # a static-LDS kernel keeps the assembly's figure; a kernel without LDS shows 0
    lds_shuffle, private_array, _ = read_amd_path(ASM / "llvm_gfx942_multi_kernel.s").kernels
    assert lds_shuffle.metric("lds_bytes_per_workgroup") == 2048
    assert private_array.metric("lds_bytes_per_workgroup") == 0


def test_corrupt_triton_metadata_is_a_one_line_error(tmp_path: Path) -> None:
    shutil.copy(ASM / "triton_gfx942_matmul_bf16_wide.amdgcn", tmp_path / "k.amdgcn")
    text = (ASM / "triton_gfx942_matmul_bf16_wide.json").read_text()
    (tmp_path / "k.json").write_text(text[: len(text) // 2])
    with pytest.raises(InputFileError, match="corrupt Triton metadata JSON"):
        read_amd_path(tmp_path / "k.amdgcn")


def test_amd_dispatches_of_one_configuration_are_one_group() -> None:
    """MI100 rocprof v1 recording: three dispatches of vecCopy, same grid and workgroup."""
    path = DATA / "amd_mi100_vcopy_pmc_perf_rocprofv1.csv"
    (k,) = read_evidence(path).kernels
    assert k.launch_count == 3 and k.launch_ids == [0, 1, 2]
    spread = k.metric_spread["duration_us"]
    assert (spread.median, spread.min, spread.max, spread.count) == (18.88, 18.88, 24.8, 3)
    # the headline stays rocprof-compute's mean over dispatches
    assert k.metric("duration_us") == pytest.approx((24.8 + 18.88 + 18.88) / 3)
    assert [x.launch_ids for x in read_evidence(path, per_launch=True).kernels] == [[0], [1], [2]]


def test_cli_launches_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from kernelopt.cli.app import main

    path = str(DATA / "amd_mi100_vcopy_pmc_perf_rocprofv1.csv")
    assert main(["evidence", path]) == 0
    grouped = capsys.readouterr().out
    assert grouped.count("== kernel:") == 1 and "(3 launches: ids 0-2)" in grouped
    assert main(["evidence", path, "--launches"]) == 0
    assert capsys.readouterr().out.count("== kernel:") == 3


def test_sysinfo_peak_gives_dram_percent_of_peak() -> None:
    """The % of peak arithmetic: the MI100 recording (exact timestamps) normalized by the sysinfo
    fixture's peak. The two come from different machines; only the formula is under test."""
    v1 = DATA / "amd_mi100_vcopy_pmc_perf_rocprofv1.csv"
    from kernelopt.profiling.amd_reports import parse_dispatch_table

    inputs = AmdInputs(
        dispatches=parse_dispatch_table(v1.read_text(), v1.name),
        agents=[parse_sysinfo(SYSINFO.read_text(), SYSINFO.name)],
    )
    (k,) = build_summary(inputs, tool_used="t").kernels
    gbps = k.metric("dram_gbps")
    assert gbps is not None
    pct = k.metrics["dram_throughput_pct"]
    assert pct.value == pytest.approx(100 * gbps / 5324.8)
    assert "hbmBandwidth" in (pct.source or "")
