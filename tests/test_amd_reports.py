"""AMD readers on real public outputs (tests/data/amd, copied from shared/fixtures-public/amd)."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from kernelopt.errors import InputFileError
from kernelopt.evidence.amdgcn import analyze
from kernelopt.evidence.model import Vendor
from kernelopt.profiling.amd_reports import (
    AmdInputs,
    ReportKind,
    build_summary,
    classify_header,
    dispatch_table_variant,
    is_amd_path,
    parse_agent_info,
    parse_att_stats,
    parse_counter_collection,
    parse_csv,
    parse_dispatch_table,
    parse_kernel_top,
    parse_kernel_trace,
    read_amd_path,
)

DATA = Path(__file__).parent / "data" / "amd"
V2 = DATA / "amd_mi300x_vcopy_pmc_perf_rocprofv2.csv"
V1 = DATA / "amd_mi100_vcopy_pmc_perf_rocprofv1.csv"
TIMESTAMPS = DATA / "amd_mi300x_vcopy_timestamps.csv"
ATT_OLD = DATA / "amd_mi300x_att_stats_bmm_mfma_dispatch3.csv"
ATT_NEW = DATA / "amd_gfx950_att_output_triton_gemm.csv"
ATT_EMPTY = DATA / "amd_mi300x_att_stats_empty_dispatch3.csv"
AGENT = DATA / "amd_gfx950_rocprofv3_agent_info.csv"
AGENT_MI300X = DATA / "stub" / "agent_info_mi300x.csv"
TOP = DATA / "amd_mi300x_bmm_pmc_kernel_top.csv"
VCOPY = "vecCopy(double*, double*, double*, int, int)"

# The rocprofv3 documentation's own examples ("Using rocprofv3": kernel filtering, agent index).
COUNTER_COLLECTION_DOC = (
    '"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Id",'
    '"Kernel_Name","Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",'
    '"Counter_Name","Counter_Value","Start_Timestamp","End_Timestamp"\n'
    '1,1,4,1,225049,225049,1048576,10,"void addition_kernel<float>(float*, float const*, float const*, int, int)",'
    '64,0,0,8,0,16,"SQ_WAVES",16384.000000,317095766765717,317095766775957\n'
    '4,4,4,1,225049,225049,1048576,12,"divide_kernel(float*, float const*, float const*, int, int)",64,0,0,12,4,16,'
    '"SQ_WAVES",16384.000000,317095767380718,317095767390878\n'
)
KERNEL_TRACE_DOC = (
    '"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
    '"Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count","Accum_VGPR_Count","SGPR_Count",'
    '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n'
    '"KERNEL_DISPATCH","Agent 7",17,26,847809,101,49,"void addition_kernel<float>(float*, float const*, float const*,'
    ' int, int)",101,1551401624448706,1551401624459226,0,0,8,0,16,64,1,1,1024,1024,1\n'
)
KERNEL_TRACE_ROCPD = (
    '"Guid","Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
    '"Correlation_Id","Start_Timestamp","End_Timestamp","Lds_Block_Size","Scratch_Size","Vgpr_Count",'
    '"Accum_Vgpr_Count","Sgpr_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X",'
    '"Grid_Size_Y","Grid_Size_Z"\n'
    '"00006409-00d1-70d1-a5cb-b5ab88214544","KERNEL_DISPATCH","Agent 4",1,0,714789,1,3,'
    '"__omp_offloading_30_57b9f__QMnorm_modPnorm_l23",1,1678314002982197,1678314003082277,8456,0,16,0,32,256,1,1,'
    "233472,1,1\n"
)


def _drop_columns(path: Path, predicate) -> str:
    rows = list(csv.reader(path.open()))
    keep = [i for i, h in enumerate(rows[0]) if not predicate(h)]
    out = io.StringIO()
    w = csv.writer(out)
    for r in rows:
        w.writerow([r[i] for i in keep])
    return out.getvalue()


# ----------------------------------------------------------------------------------- CSV rules


def test_row_width_mismatch_is_refused_as_malformed() -> None:
    lines = TIMESTAMPS.read_text().splitlines()
    lines[2] = lines[2].rsplit(",", 1)[0]  # drop the last field of the second data row
    with pytest.raises(InputFileError, match=r"malformed CSV: row 3 has 16 fields but the header has 17"):
        parse_dispatch_table("\n".join(lines) + "\n", "cut.csv")


def test_empty_file_is_refused() -> None:
    with pytest.raises(InputFileError, match="empty CSV"):
        parse_csv("", "empty.csv")


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (V2, ReportKind.DISPATCH_TABLE),
        (V1, ReportKind.DISPATCH_TABLE),
        (TIMESTAMPS, ReportKind.DISPATCH_TABLE),
        (ATT_OLD, ReportKind.ATT_STATS),
        (ATT_NEW, ReportKind.ATT_STATS),
        (ATT_EMPTY, ReportKind.ATT_STATS),
        (AGENT, ReportKind.AGENT_INFO),
        (TOP, ReportKind.KERNEL_TOP),
    ],
)
def test_every_public_fixture_is_recognized(path: Path, kind: ReportKind) -> None:
    header, _ = parse_csv(path.read_text(), path.name)
    assert classify_header(header) is kind
    assert is_amd_path(path)


def test_documented_rocprofv3_formats_are_recognized() -> None:
    assert classify_header(parse_csv(COUNTER_COLLECTION_DOC, "cc.csv")[0]) is ReportKind.COUNTER_COLLECTION
    assert classify_header(parse_csv(KERNEL_TRACE_DOC, "kt.csv")[0]) is ReportKind.KERNEL_TRACE
    assert classify_header(parse_csv(KERNEL_TRACE_ROCPD, "kt.csv")[0]) is ReportKind.KERNEL_TRACE
    assert classify_header(["ID", "Process ID", "Kernel Name", "Metric Name"]) is None  # an ncu CSV


# ------------------------------------------------------------------------ pmc_perf variants


def test_rocprof_v2_pmc_perf_mi300x() -> None:
    ds = parse_dispatch_table(V2.read_text(), V2.name)
    assert dispatch_table_variant(parse_csv(V2.read_text(), "x")[0]) == "rocprof-v2"
    assert [d.dispatch_id for d in ds] == [0, 1, 2]
    d = ds[0]
    assert d.kernel_name == VCOPY  # " (.kd)" removed
    assert d.source == f"{V2.name} (rocprof-v2 columns)"
    assert (d.grid_size, d.workgroup_size, d.arch_vgprs, d.accum_vgprs, d.sgprs, d.wave_size) == (
        1048576,
        256,
        4,
        4,
        16,
        64,
    )
    # per-channel TCC columns: 16 channels x 8 XCDs, kept and counted
    assert d.channels["TCC_HIT"] == 128 and d.channels["TCC_MISS"] == 128
    assert sum(d.counters[f"TCC_HIT[{i}]"] for i in range(128)) == 66160.0
    assert d.counters["TCC_HIT_sum"] == 66160.0 and d.counters["TCC_MISS_sum"] == 131311.0
    assert d.counters["SQ_INSTS_VMEM_RD"] == 16384.0 and d.counters["GRBM_GUI_ACTIVE"] == 2572147.0
    # duplicated helper columns and launch metadata are not counters
    for helper in ("Wave_Size_1", "Correlation_ID_3", "XCC_Index_5", "GPU_ID", "Start_Timestamp", "Arch_VGPR"):
        assert helper not in d.counters
    # timestamps written as 8.1097E+14: duration unknown, never zero
    assert d.duration_ns is None
    assert "8.1097E+14" in (d.duration_missing_reason or "")


def test_rocprof_v1_pmc_perf_mi100() -> None:
    ds = parse_dispatch_table(V1.read_text(), V1.name)
    assert dispatch_table_variant(parse_csv(V1.read_text(), "x")[0]) == "rocprof-v1"
    d = ds[0]
    assert d.kernel_name == VCOPY  # " [clone .kd]" removed
    assert d.duration_ns == 1410078545984317 - 1410078545959517 == 24800
    assert [x.duration_ns for x in ds] == [24800, 18880, 18880]
    assert (d.arch_vgprs, d.accum_vgprs, d.wave_size) == (8, 8, 64)
    assert d.channels["TCC_HIT"] == 32  # MI100: 32 channels
    assert d.counters["TCC_EA_RDREQ_sum"] == 131340.0  # pre-gfx942 name (no EA0)
    assert "obj" not in d.counters and "wave_size_1" not in d.counters


def test_channel_columns_are_summed_when_the_sum_column_is_missing() -> None:
    text = _drop_columns(V2, lambda h: h in ("TCC_HIT_sum", "TCC_MISS_sum"))
    d = parse_dispatch_table(text, "no_sums.csv")[0]
    assert d.counters["TCC_HIT_sum"] == 66160.0  # sum of TCC_HIT[0..127]
    assert d.counters["TCC_MISS_sum"] == sum(d.counters[f"TCC_MISS[{i}]"] for i in range(128))


def test_sdk_variant_and_short_rocm6_headers() -> None:
    sdk = V2.read_text().replace("Dispatch_ID,GPU_ID,", "Dispatch_ID,GPU_ID,", 1).splitlines()
    sdk[0] = sdk[0].replace("Kernel_Name,Correlation_ID", "Kernel_Name,Kernel_ID", 1)
    assert dispatch_table_variant(parse_csv("\n".join(sdk), "x")[0]) == "rocprofiler-sdk"
    short = "Index,KernelName,gpu-id,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,BeginNs,EndNs,SQ_WAVES\n"
    short += '0,"k(int) [clone .kd]",2,4096,256,1024,0,12,4,24,1000,3500,64\n'
    d = parse_dispatch_table(short, "rocm61.csv")[0]
    assert (d.kernel_name, d.dispatch_id, d.grid_size, d.workgroup_size, d.lds_bytes) == ("k(int)", 0, 4096, 256, 1024)
    assert (d.arch_vgprs, d.accum_vgprs, d.sgprs, d.duration_ns) == (12, 4, 24, 2500)
    assert d.counters == {"SQ_WAVES": 64.0}


def test_timestamps_table_reports_unknown_duration_not_zero() -> None:
    summary = read_amd_path(TIMESTAMPS)
    (k,) = summary.kernels
    dur = k.metrics["duration_us"]
    assert dur.value is None and dur.value != 0
    assert "lost precision" in (dur.missing_reason or "")
    assert summary.counters_available is False
    assert k.metrics["dispatches"].value == 3
    assert k.metrics["workgroups"].value == 4096


# --------------------------------------------------------------------------- rocprofv3 CSVs


def test_counter_collection_long_format() -> None:
    doubled = COUNTER_COLLECTION_DOC + COUNTER_COLLECTION_DOC.splitlines()[1] + "\n"  # a repeated counter row
    ds = parse_counter_collection(doubled, "cc.csv")
    assert [d.kernel_name for d in ds] == [
        "void addition_kernel<float>(float*, float const*, float const*, int, int)",
        "divide_kernel(float*, float const*, float const*, int, int)",
    ]
    assert ds[0].counters == {"SQ_WAVES": 2 * 16384.0}  # repeated names within a dispatch are summed
    assert ds[0].duration_ns == 317095766775957 - 317095766765717
    assert (ds[1].arch_vgprs, ds[1].accum_vgprs, ds[1].sgprs, ds[1].workgroup_size) == (12, 4, 16, 64)


def test_kernel_trace_both_column_spellings() -> None:
    (d,) = parse_kernel_trace(KERNEL_TRACE_DOC, "kt.csv")
    assert d.timing_only and d.duration_ns == 1551401624459226 - 1551401624448706
    assert (d.grid_size, d.workgroup_size, d.arch_vgprs, d.sgprs) == (1024 * 1024, 64, 8, 16)
    (r,) = parse_kernel_trace(KERNEL_TRACE_ROCPD, "rocpd.csv")
    assert (r.lds_bytes, r.arch_vgprs, r.sgprs, r.grid_size, r.workgroup_size) == (8456, 16, 32, 233472, 256)
    assert r.duration_ns == 100080


def test_agent_info_gfx950() -> None:
    (a,) = parse_agent_info(AGENT.read_text(), AGENT.name)  # the CPU row is skipped
    assert a.name == "gfx950" and a.label == "gfx950"  # "AMD Radeon Graphics" is too generic to name it
    assert (a.cu_count, a.num_xcc, a.simds_per_cu, a.max_waves_per_simd, a.max_waves_per_cu) == (256, 8, 4, 8, 32)
    assert (a.wave_size, a.lds_bytes_per_cu, a.max_engine_clock_mhz) == (64, 160 * 1024, 2200)


def test_kernel_top_summary() -> None:
    rows = parse_kernel_top(TOP.read_text(), TOP.name)
    assert [r.count for r in rows] == [150, 151]
    assert rows[0].kernel_name.startswith("void batched_matrix_multiplication_matrix_core_128x128x16<128u")
    summary = read_amd_path(TOP)
    top = summary.kernels[0]
    assert top.metrics["duration_us"].value == pytest.approx(20.100006666, rel=1e-9)
    assert top.metrics["time_share_pct"].value == pytest.approx(78.28675911)
    assert summary.primary() is top


# ---------------------------------------------------------------------------------- ATT


def test_att_stats_with_stall_and_idle() -> None:
    att = parse_att_stats(ATT_OLD.read_text(), ATT_OLD.name)
    assert att.has_stall_idle and not att.empty
    (k,) = att.kernels
    assert k.kernel_name.startswith("void batched_matrix_multiplication_matrix_core_128x128x16<128u, 128u, 16u>(")
    assert len(k.instructions) == 1073 and len(k.sampled) == 999
    summary = read_amd_path(ATT_OLD)
    (ev,) = summary.kernels
    m = ev.metrics
    assert m["att_latency_cycles"].value == 89496
    assert m["att_stall_cycles"].value == 67244 and m["att_idle_cycles"].value == 11032
    assert m["att_waitcnt_latency_pct"].value == pytest.approx(100 * 43432 / 89496)
    assert m["att_vmcnt_wait_pct"].value == pytest.approx(100 * 40032 / 89496)
    top = ev.hotspots[0]
    assert (top.location, top.text, top.samples, top.dominant_stall) == (
        "codeobj 2 @0x4e70",
        "s_waitcnt vmcnt(0)",
        25288.0,
        "wait_vmcnt",
    )
    assert top.share_pct == pytest.approx(100 * 25288 / 89496)


def test_att_stats_new_format_without_stall() -> None:
    att = parse_att_stats(ATT_NEW.read_text(), ATT_NEW.name)
    assert not att.has_stall_idle
    (k,) = att.kernels
    assert k.kernel_name == "_gemm_afp4_wfp4_kernel"
    assert len(k.instructions) == 961 and len(k.sampled) == 899
    (ev,) = read_amd_path(ATT_NEW).kernels
    assert ev.metrics["att_latency_cycles"].value == 1353636
    stall = ev.metrics["att_stall_cycles"]
    assert stall.value is None and "no Stall/Idle" in (stall.missing_reason or "")
    top = ev.hotspots[0]
    assert top.location == "/src/ops/triton/gemm_afp4wfp4.py:97 @0x22c4"
    assert top.dominant_stall == "wait_vmcnt_lgkmcnt" and top.samples == 538700


def test_att_section_without_a_name_row_is_still_read() -> None:
    lines = ATT_NEW.read_text().splitlines()
    text = "\n".join([lines[0], *lines[2:]])  # drop the "; _gemm_afp4_wfp4_kernel" row
    (ev,) = build_summary(AmdInputs(att=[parse_att_stats(text, "att.csv")]), tool_used="test").kernels
    assert ev.kernel_name == "codeobj 4" and ev.metrics["att_latency_cycles"].value == 1353636


def test_empty_trace_is_no_samples_not_an_error() -> None:
    att = parse_att_stats(ATT_EMPTY.read_text(), ATT_EMPTY.name)
    assert att.empty and att.kernels == []
    summary = read_amd_path(ATT_EMPTY)
    assert summary.kernels == []
    assert any("no samples" in n for n in summary.notes)


# ---------------------------------------------------------------------------- merge / paths


def _vcopy_inputs(*, agent: Path | None = AGENT_MI300X, trace: bool = True) -> AmdInputs:
    inputs = AmdInputs(dispatches=parse_dispatch_table(V2.read_text(), V2.name))
    if trace:
        rows = "\n".join(
            f'"KERNEL_DISPATCH",1,1,0,1,{n},7,"{VCOPY} (.kd)",{n},{1000 + 100000 * n},{1000 + 100000 * n + dur},0,0,4,4,16,256,1,1,1048576,1,1'
            for n, dur in enumerate((24800, 18880, 18880), start=1)
        )
        inputs.dispatches += parse_kernel_trace(
            KERNEL_TRACE_DOC.splitlines()[0] + "\n" + rows + "\n", "timing_kernel_trace.csv"
        )
    if agent is not None:
        inputs.agents = parse_agent_info(agent.read_text(), agent.name)
    return inputs


def test_counter_metrics_follow_rocprof_compute_formulas() -> None:
    summary = build_summary(_vcopy_inputs(), tool_used="test")
    (k,) = summary.kernels
    rows = list(csv.DictReader(V2.open()))

    def mean(c: str) -> float:
        return sum(float(r[c]) for r in rows) / len(rows)

    grbm_per_xcd_cus = mean("GRBM_GUI_ACTIVE") / 8 * 304
    assert k.metrics["valu_busy_pct"].value == pytest.approx(100 * mean("SQ_ACTIVE_INST_VALU") / grbm_per_xcd_cus)
    assert k.metrics["mfma_busy_pct"].value == 0.0
    assert k.metrics["insufficient_waveslots_pct"].value == pytest.approx(
        100 * mean("SPI_RA_WAVE_SIMD_FULL_CSN") / grbm_per_xcd_cus
    )
    hit, miss = mean("TCC_HIT_sum"), mean("TCC_MISS_sum")
    assert k.metrics["l2_hit_rate_pct"].value == pytest.approx(100 * hit / (hit + miss))
    assert k.metrics["lds_bank_conflict_pct"].value is None  # no LDS use: SQ_LDS_IDX_ACTIVE = 0
    # duration from the clean timing pass, not the counter passes
    assert k.metrics["duration_us"].value == pytest.approx((24800 + 18880 + 18880) / 3 / 1000)
    rd = 128 * mean("TCC_BUBBLE_sum") + 64 * (
        mean("TCC_EA0_RDREQ_sum") - mean("TCC_BUBBLE_sum") - mean("TCC_EA0_RDREQ_32B_sum")
    )
    rd += 32 * mean("TCC_EA0_RDREQ_32B_sum")
    wr = 64 * mean("TCC_EA0_WRREQ_64B_sum") + 32 * (mean("TCC_EA0_WRREQ_sum") - mean("TCC_EA0_WRREQ_64B_sum"))
    assert k.metrics["hbm_read_bytes"].value == pytest.approx(rd)
    assert k.metrics["dram_gbps"].value == pytest.approx((rd + wr) / ((24800 + 18880 + 18880) / 3))
    # the agent names the product; the MI300X spec sheet gives the peak (5300 GB/s), no second copy
    assert k.metrics["dram_throughput_pct"].value == pytest.approx(
        100 * (rd + wr) / ((24800 + 18880 + 18880) / 3) / 5300
    )
    assert "MI300X" in (k.metrics["dram_throughput_pct"].source or "")
    assert summary.gpu == "AMD Instinct MI300X (gfx942)"
    assert summary.vendor is Vendor.AMD and summary.counters_available


def test_utilizations_need_the_machine_description() -> None:
    (k,) = build_summary(_vcopy_inputs(agent=None, trace=False), tool_used="test").kernels
    busy = k.metrics["valu_busy_pct"]
    assert busy.value is None and "agent_info" in (busy.missing_reason or "")
    assert k.metrics["dram_gbps"].value is None and k.metrics["duration_us"].value is None


def test_gfx_name_alone_does_not_pick_a_spec_sheet() -> None:
    inputs = _vcopy_inputs(agent=AGENT)  # gfx950 with a generic product name
    (k,) = build_summary(inputs, tool_used="test").kernels
    assert k.metrics["dram_throughput_pct"].value is None
    (k2,) = build_summary(_vcopy_inputs(agent=AGENT), tool_used="test", gpu_name="MI355X").kernels
    assert k2.metrics["dram_throughput_pct"].value is not None
    assert "8000" in (k2.metrics["dram_throughput_pct"].source or "")
    # a task card naming a GPU of another architecture than the measured agent is not believed
    (k3,) = build_summary(_vcopy_inputs(agent=AGENT), tool_used="test", gpu_name="MI300X").kernels
    assert k3.metrics["dram_throughput_pct"].value is None


def test_kd_name_variants_merge_pmc_and_asm_into_one_kernel() -> None:
    asm_text = (
        (DATA / "asm" / "triton_gfx942_copy_narrow.amdgcn").read_text().replace("copy_kernel", "_Z7vecCopyPdS_S_ii")
    )
    inputs = _vcopy_inputs()
    inputs.asm = analyze(asm_text, "kernel.s")
    summary = build_summary(inputs, tool_used="test")
    (k,) = summary.kernels
    assert k.kernel_name == VCOPY
    assert k.isa is not None and k.isa.global_load_bits == 32
    assert k.metrics["global_load_narrow_pct"].value == 100.0
    assert k.metrics["l2_hit_rate_pct"].value is not None
    assert k.metrics["vgprs_total"].source.startswith(V2.name)  # the dispatch record wins over the assembly


def test_profile_folder(tmp_path: Path) -> None:
    (tmp_path / "pmc").mkdir()
    (tmp_path / "att" / "ui").mkdir(parents=True)
    shutil.copyfile(V2, tmp_path / "pmc" / "pmc_perf.csv")
    shutil.copyfile(AGENT_MI300X, tmp_path / "pmc" / "run_agent_info.csv")
    shutil.copyfile(ATT_OLD, tmp_path / "att" / "ui" / "stats_ui_output_agent_1_dispatch_3.csv")
    shutil.copyfile(DATA / "asm" / "triton_gfx942_matmul_fp32_spill.amdgcn", tmp_path / "kernel.s")
    (tmp_path / "notes.txt").write_text("ignored")
    assert is_amd_path(tmp_path)
    summary = read_amd_path(tmp_path)
    assert [k.kernel_name.split("(")[0].split("<")[0] for k in summary.kernels] == [
        "vecCopy",
        "void batched_matrix_multiplication_matrix_core_128x128x16",
        "matmul_kernel",
    ]
    assert summary.artifacts == [
        "pmc/pmc_perf.csv",
        "pmc/run_agent_info.csv",
        "att/ui/stats_ui_output_agent_1_dispatch_3.csv",
        "kernel.s",
    ]
    spill = summary.kernels[2]
    assert spill.metrics["vgpr_spill_count"].value == 110
    assert spill.metrics["max_waves_per_simd"].value == 8  # machine description applies to every kernel


def test_paths_that_are_not_amd(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text('"ID","Process ID","Kernel Name"\n1,2,"k"\n')
    (tmp_path / "k.py").write_text("print(1)\n")
    (tmp_path / "empty").mkdir()
    assert not is_amd_path(tmp_path / "a.csv")
    assert not is_amd_path(tmp_path / "k.py")
    assert not is_amd_path(tmp_path / "empty")
    assert not is_amd_path(tmp_path / "missing.csv")
    with pytest.raises(InputFileError, match="unknown header"):
        read_amd_path(tmp_path / "a.csv")
    with pytest.raises(InputFileError, match="no AMD profile data"):
        read_amd_path(tmp_path / "empty")
    with pytest.raises(InputFileError, match="no such file"):
        read_amd_path(tmp_path / "nope.s")


def test_single_assembly_file() -> None:
    summary = read_amd_path(DATA / "asm" / "llvm_gfx942_multi_kernel.s")
    assert [k.kernel_name for k in summary.kernels] == ["lds_shuffle", "private_array", "copy_x2_x3"]
    assert summary.counters_available is False
    assert "assembly only" in (summary.counters_unavailable_reason or "")
    assert summary.kernels[0].metrics["lds_bytes_per_workgroup"].value == 2048


def test_triton_lds_is_dynamic_so_unknown_from_assembly() -> None:
    # no metadata JSON beside this one
    (k,) = read_amd_path(DATA / "asm" / "triton_gfx942_matmul_bf16_narrow.amdgcn").kernels
    lds = k.metrics["lds_bytes_per_workgroup"]
    assert lds.value is None and (lds.missing_reason or "").startswith("dynamic")


def test_register_counts_total_architected_accumulation() -> None:
    """gfx942 MFMA kernel: .vgpr_count 216 = 152 architected + 64 accumulation; the total is the headline."""
    (k,) = read_amd_path(DATA / "asm" / "triton_gfx942_matmul_bf16_wide.amdgcn").kernels
    assert k.metric("vgprs_total") == 216
    assert k.metric("vgprs_architected") == 152
    assert k.metric("vgprs_accumulation") == 64
    assert k.metric("registers_per_thread") == 216
    assert "vgprs" not in k.metrics and "agprs" not in k.metrics  # no ambiguous names left
    # a dispatch record gives the parts; the total is their sum
    (d,) = build_summary(AmdInputs(dispatches=parse_dispatch_table(V2.read_text(), V2.name)), tool_used="t").kernels
    assert d.metric("vgprs_architected") == 4 and d.metric("vgprs_accumulation") == 4
    assert d.metric("vgprs_total") == 8
    assert "Arch_VGPR + Accum_VGPR" in (d.metrics["vgprs_total"].source or "")
