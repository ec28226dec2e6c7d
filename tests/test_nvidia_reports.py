"""Reading real Nsight Compute reports and CSV exports: exact values, findings, hotspots, ISA facts.

H200 fixtures: recorded 2026-11-29 with ncu 2025.3.1 --set full --clock-control none (one launch each,
scripts/record_nvidia_fixtures.py). Public fixtures: other GPUs and ncu versions (see
shared/fixtures-public/README).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from kernelopt.errors import InputFileError, UsageError
from kernelopt.evidence.model import BottleneckType
from kernelopt.evidence.nvidia import build_summary
from kernelopt.evidence.nvidia_metrics import DETAILS_LABELS
from kernelopt.profiling.ncu_csv import is_ncu_csv, parse_ncu_csv
from kernelopt.profiling.ncu_rep import read_ncu_rep_isolated
from kernelopt.profiling.units import display_decimals, from_base, parse_number

from .nvidia_data import H200_FIXTURES, NVIDIA, raw_report, report

_CACHE: dict[str, object] = {}


def summary_of(name: str):
    """The evidence of a fixture report (read in-process, once per test session)."""
    if name not in _CACHE:
        _CACHE[name] = build_summary(raw_report(name))
    return _CACHE[name]


def details_rows(name: str) -> list[dict[str, str]]:
    with open(NVIDIA / f"h200_{name}_details.csv", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize("name", H200_FIXTURES)
def test_every_mapped_details_row_equals_the_report(name: str) -> None:
    """Each details-page value equals the report's metric shown in the page's unit and precision."""
    raw = raw_report(f"h200_{name}").kernels[0]
    checked = 0
    for row in details_rows(name):
        metric = DETAILS_LABELS.get((row["Section Name"], row["Metric Name"]))
        shown = parse_number(row["Metric Value"]) if metric else None
        if metric is None or shown is None:
            continue
        value = from_base(raw.metrics[metric].value, row["Metric Unit"])
        tolerance = 0.5 * 10 ** -display_decimals(row["Metric Value"])
        assert value == pytest.approx(shown, abs=tolerance * 1.000001), (row["Metric Name"], metric)
        checked += 1
    assert checked == 56


# (fixture, duration_us, sm %, memory %, dram %, registers, grid, block, waves) as the details page shows
HEADLINES = [
    ("softmax", 64.74, 27.99, 78.19, 78.19, 38, 8192, 256, 10.34),
    ("matmul", 207.07, 82.86, 78.68, 21.79, 124, 1024, 256, 3.88),
    ("small_grid", 87.78, 0.19, 1.99, 1.99, 32, 8, 128, 0.00),
    ("uncoalesced", 38.30, 0.94, 76.68, 76.68, 18, 2048, 128, 0.97),
    ("bank_conflict", 80.16, 10.66, 88.69, 29.38, 32, 16384, 128, 7.76),
    ("register_spill", 47.10, 15.68, 61.01, 61.01, 255, 2048, 32, 1.94),
]


@pytest.mark.parametrize(("name", "dur", "sm", "mem", "dram", "regs", "grid", "block", "waves"), HEADLINES)
def test_normalized_headline_metrics(name, dur, sm, mem, dram, regs, grid, block, waves) -> None:
    k = summary_of(f"h200_{name}").kernels[0]
    assert k.metric("duration_us") == pytest.approx(dur, abs=0.005)
    assert k.metric("sm_throughput_pct") == pytest.approx(sm, abs=0.005)
    assert k.metric("memory_throughput_pct") == pytest.approx(mem, abs=0.005)
    assert k.metric("dram_throughput_pct") == pytest.approx(dram, abs=0.005)
    assert k.metric("registers_per_thread") == regs
    assert k.metric("grid_size_blocks") == grid and k.metric("block_size_threads") == block
    assert k.metric("waves_per_sm") == pytest.approx(waves, abs=0.005)
    assert k.metrics["duration_us"].source == "gpu__time_duration.sum"
    assert k.metrics["dram_throughput_pct"].source == "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"


def test_memory_throughput_in_gbps_matches_the_tbyte_row() -> None:
    k = summary_of("h200_softmax").kernels[0]
    assert k.metric("dram_gbps") == pytest.approx(3760, abs=5)  # details page: 3.76 Tbyte/s


EXPECTED = {
    # fixture: (bottleneck, findings that must be present, first finding's symptom)
    "softmax": (BottleneckType.MEMORY_BOUND, {"dram_bandwidth_bound", "thread_divergence"}, "dram_bandwidth_bound"),
    "matmul": (BottleneckType.COMPUTE_BOUND, {"compute_bound", "barrier_stalls"}, "compute_bound"),
    "small_grid": (BottleneckType.LAUNCH_OCCUPANCY_BOUND, {"small_grid", "latency_bound"}, "small_grid"),
    "uncoalesced": (BottleneckType.MEMORY_BOUND, {"uncoalesced_global", "narrow_global_loads"}, "uncoalesced_global"),
    "bank_conflict": (BottleneckType.MEMORY_BOUND, {"smem_bank_conflicts", "mio_throttle"}, "smem_bank_conflicts"),
    "register_spill": (BottleneckType.MEMORY_BOUND, {"register_spills"}, "register_spills"),
}


@pytest.mark.parametrize("name", H200_FIXTURES)
def test_expected_diagnosis(name: str) -> None:
    k = summary_of(f"h200_{name}").kernels[0]
    bottleneck, must, first = EXPECTED[name]
    symptoms = [f.symptom for f in k.findings]
    assert k.bottleneck is bottleneck
    assert must <= set(symptoms), symptoms
    assert symptoms[0] == first
    for f in k.findings:
        assert f.evidence and all(e.source for e in f.evidence)
        for e in f.evidence:
            if e.threshold:
                assert e.threshold_source, (f.rule_id, e.metric)


def test_small_grid_does_not_report_its_eight_sparse_stores() -> None:
    k = summary_of("h200_small_grid").kernels[0]
    assert "sparse_stores" not in {f.symptom for f in k.findings}
    assert k.metric("global_store_bytes_per_sector") == 4.0  # the stores are sparse, but immaterial


def test_softmax_hotspots_point_at_kernel_source_lines() -> None:
    k = summary_of("h200_softmax").kernels[0]
    lines = [h for h in k.hotspots if ".py:" in h.location]
    assert lines[0].location.endswith("kernel_opt_softmax/kernel.py:17")
    assert lines[0].text is not None and lines[0].text.startswith("tl.store(out_ptr")
    library = [h for h in lines if "site-packages/triton/language/standard.py" in h.location]
    assert library and library[0].location.endswith("standard.py:170")  # tl.max, inlined from Triton
    assert library[0].dominant_stall == "long_scoreboard" and library[0].share_pct == pytest.approx(54.72, abs=0.01)
    sass = [h for h in k.hotspots if h.location.startswith("0x")]
    assert sass and all(h.text for h in sass)
    assert sum(h.share_pct or 0 for h in lines) <= 100.0 + 1e-6


def test_hotspots_relative_to_the_workspace() -> None:
    raw = raw_report("h200_softmax")
    root = str(Path(next(iter(raw.kernels[0].source_lines.values()))[0]).parent)
    k = build_summary(raw, source_root=root).kernels[0]
    assert k.hotspots[0].location == "kernel.py:17"


def test_isa_facts_from_report_sass() -> None:
    softmax = summary_of("h200_softmax").kernels[0].isa
    assert softmax is not None and softmax.global_load_bits == 128 and softmax.spill_ops == 0
    assert softmax.instruction_counts["LDG.E.128"] >= 1
    matmul = summary_of("h200_matmul").kernels[0].isa
    assert matmul is not None and matmul.tensor_instructions and matmul.instruction_counts.get("HGMMA", 0) > 0
    spill = summary_of("h200_register_spill").kernels[0].isa
    assert spill is not None and spill.spill_ops == 250
    assert spill.instruction_counts["STL"] > 0 and spill.instruction_counts["LDL"] > 0
    uncoalesced = summary_of("h200_uncoalesced").kernels[0].isa
    assert uncoalesced is not None and uncoalesced.global_load_bits == 32


def test_access_pattern_and_resource_metrics() -> None:
    unc = summary_of("h200_uncoalesced").kernels[0]
    assert unc.metric("global_load_bytes_per_sector") == pytest.approx(4.0)
    assert unc.metric("global_load_sectors_per_request") == pytest.approx(32.0)
    bank = summary_of("h200_bank_conflict").kernels[0]
    assert bank.metric("smem_load_bank_conflict_pct") > 90.0
    spill = summary_of("h200_register_spill").kernels[0]
    assert spill.metric("spill_requests") == 512000
    assert spill.metric("local_load_bytes") > 0 and spill.metric("local_store_bytes") > 0
    matmul = summary_of("h200_matmul").kernels[0]
    assert matmul.metric("tensor_pipe_pct") > 80.0
    assert set(matmul.occupancy_limiters) == {"registers", "shared_mem"}
    assert "gmma" in matmul.stall_breakdown_pct


def test_profiler_rules_ranked_and_markers_kept() -> None:
    k = summary_of("h200_uncoalesced").kernels[0]
    opt = [r for r in k.profiler_rules if r.kind == "OPTIMIZATION"]
    speeds = [r.estimated_speedup_pct for r in opt if r.estimated_speedup_pct is not None]
    assert speeds == sorted(speeds, reverse=True) and speeds[0] == pytest.approx(99.48, abs=0.01)
    assert k.profiler_rules[: len(opt)] == opt
    assert all("@section" not in r.message and "@url" not in r.message for r in k.profiler_rules)
    assert any(m.rule_id == "UncoalescedGlobalAccess" for m in k.source_markers)
    f = next(f for f in k.findings if f.symptom == "uncoalesced_global")
    assert f.location is not None and f.location.endswith("kernel.py:13")  # the strided tl.load


def test_stall_breakdown_shares() -> None:
    k = summary_of("h200_small_grid").kernels[0]
    assert k.stall_breakdown_pct["long_scoreboard"] == pytest.approx(93.0, abs=0.05)
    cpi = k.metric("warp_cycles_per_issued_inst")
    assert cpi == pytest.approx(31.10, abs=0.005)
    assert k.metric("stall_long_scoreboard_cycles_per_inst") / cpi * 100 == pytest.approx(
        k.stall_breakdown_pct["long_scoreboard"]
    )


def test_fast_report_gives_the_same_bottleneck() -> None:
    fast = summary_of("h200_softmax_fast").kernels[0]
    assert fast.bottleneck is BottleneckType.MEMORY_BOUND
    assert fast.hotspots == []  # no source counters in the fast set
    assert fast.metrics["global_excessive_sectors_pct"].value is None
    assert "not in this report" in (fast.metrics["global_excessive_sectors_pct"].missing_reason or "")


def test_softmax_raw_page_csv_matches_the_report() -> None:
    text = (NVIDIA / "h200_softmax_raw.csv").read_text(encoding="utf-8")
    assert is_ncu_csv(text)
    from_csv = parse_ncu_csv(text, artifact="raw.csv").kernels[0]
    from_rep = raw_report("h200_softmax").kernels[0]
    compared = 0
    for name in ("gpu__time_duration.sum", "dram__bytes_read.sum", "launch__grid_size", "lts__t_sector_hit_rate.pct"):
        assert from_csv.metrics[name].value == pytest.approx(from_rep.metrics[name].value, rel=5e-3), name
        compared += 1
    assert compared == 4 and from_csv.name == "softmax_kernel"
    csv_summary = build_summary(parse_ncu_csv(text, artifact="raw.csv")).kernels[0]
    assert csv_summary.bottleneck is BottleneckType.MEMORY_BOUND


def test_details_csv_gives_the_same_diagnosis_as_the_report() -> None:
    text = (NVIDIA / "h200_bank_conflict_details.csv").read_text(encoding="utf-8")
    k = build_summary(parse_ncu_csv(text, artifact="details.csv")).kernels[0]
    assert k.bottleneck is BottleneckType.MEMORY_BOUND
    assert k.metric("duration_us") == pytest.approx(80.16)
    assert k.metric("dram_gbps") == pytest.approx(1410.0)
    assert any(r.rule_id == "SharedMemoryConflicts" for r in k.profiler_rules)


# -- public reports: other GPUs, other ncu versions -------------------------------------------------


def test_gtx1660_two_kernels_and_atomics() -> None:
    s = summary_of("ncu_gtx1660s_dotprod_full")
    assert [k.kernel_name.split("(")[0] for k in s.kernels] == ["dot_prod_naive", "dot_prod"]
    assert s.gpu == "NVIDIA GeForce GTX 1660 SUPER"
    naive = s.kernels[0]
    assert naive.metric("duration_us") == pytest.approx(2170.464)
    assert naive.metric("atomic_inst") == 32768
    atomics = next(f for f in naive.findings if f.symptom == "atomics")
    assert atomics.confidence.value == "high" and "drain" in atomics.chain()
    assert naive.metric("tensor_pipe_pct") == 0.0  # Turing: reported, and zero
    assert naive.metrics["spill_requests"].value is None


def test_old_report_version_fp64_and_missing_metrics() -> None:
    s = summary_of("ncu_rtx2080ti_ncu2022_3")
    a = s.kernels[0]
    assert a.bottleneck is BottleneckType.COMPUTE_BOUND
    assert {"compute_bound", "fp64_use"} <= {f.symptom for f in a.findings}
    assert a.metric("fp64_pipe_pct") == pytest.approx(75.57, abs=0.01)
    for name in ("l2_hit_rate_pct", "issue_active_pct", "dram_gbps"):
        m = a.metrics[name]
        assert m.value is None and m.missing_reason and "not in this report" in m.missing_reason


def test_multikernel_report_and_kernel_filter() -> None:
    from kernelopt.profiling.reader import filter_kernels

    s = summary_of("ncu_a10g_sgemm_multikernel")
    # launches 3 and 4 are the same CUTLASS kernel with the same grid and block: one group of two
    assert [k.launch_ids for k in s.kernels] == [[0], [1], [2], [3, 4]]
    assert s.kernels[3].launch_count == 2 and s.kernels[3].kernel_name.startswith("void cutlass::Kernel")
    per_launch = build_summary(raw_report("ncu_a10g_sgemm_multikernel"), per_launch=True)
    assert [k.launch_id for k in per_launch.kernels] == [0, 1, 2, 3, 4]
    assert len(filter_kernels(s, "warptiling", origin="r").kernels) == 3
    assert [k.launch_id for k in filter_kernels(s, "#3", origin="r").kernels] == [3]
    with pytest.raises(UsageError, match="no kernel matches") as info:
        filter_kernels(s, "nope", origin="r")
    assert "one_warptiling" in info.value.one_line()


def test_details_csv_with_na_units_and_commas() -> None:
    text = (NVIDIA / "ncu_rtx5090_cublas_gemv_details_na.csv").read_text(encoding="utf-8")
    raw = parse_ncu_csv(text, artifact="gemv.csv").kernels[0]
    assert raw.name.startswith("enable_if<!T7, void>::type kernel<int, int, __nv_bfloat16")
    assert raw.metrics["flop_count_hp.sum"].value is None
    assert raw.metrics["dram__bytes_read.sum"].value == pytest.approx(2.33e6)  # Mbyte
    assert raw.metrics["dram__bytes_write.sum"].value == 0  # byte
    assert raw.metrics["gpc__cycles_elapsed.max"].value == 13485  # "13,485"
    assert raw.grid == [224, 1, 1] and raw.block == [32, 4, 1]
    k = build_summary(parse_ncu_csv(text, artifact="gemv.csv")).kernels[0]
    assert k.metric("block_size_threads") == 128 and k.metric("grid_size_blocks") == 224
    rule = next(r for r in k.profiler_rules if r.rule_id == "IssueSlotUtilization")
    assert rule.estimated_speedup_pct == pytest.approx(80.34) and rule.speedup_type == "LOCAL"
    assert k.occupancy_limiters == ["registers"]


def test_metrics_long_csv_with_thousands_separators() -> None:
    text = (NVIDIA / "ncu_a10g_sgemm_metrics_raw.csv").read_text(encoding="utf-8")
    rep = parse_ncu_csv(text, artifact="a10g.csv")
    assert len(rep.kernels) == 9
    assert rep.kernels[0].metrics["gpu__time_duration.sum"].value == 10776576  # "10,776,576" nsecond
    k = build_summary(rep).kernels[0]
    assert k.metric("duration_us") == pytest.approx(10776.576)
    assert k.bottleneck is BottleneckType.UNKNOWN


def test_not_a_report() -> None:
    with pytest.raises(InputFileError, match="not an Nsight Compute CSV"):
        parse_ncu_csv("a,b\n1,2\n", artifact="x.csv")
    with pytest.raises(InputFileError, match="unparsable value"):
        parse_ncu_csv(
            '"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name",'
            '"Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"\n'
            '"0","k","S","","","","R","OPT","d","local","lots"\n',
            artifact="x.csv",
        )


def test_corrupt_and_missing_report(tmp_path: Path) -> None:
    junk = tmp_path / "junk.ncu-rep"
    junk.write_bytes(b"\x00" * 1000)
    with pytest.raises(InputFileError, match="holds no profiled kernel") as info:
        read_ncu_rep_isolated(junk)
    # The worker process's hint reaches the user's one line, and the path is not repeated.
    line = info.value.one_line()
    assert line.count(str(junk)) == 1
    assert "not an Nsight Compute report" in line
    with pytest.raises(InputFileError, match="no such report"):
        read_ncu_rep_isolated(tmp_path / "absent.ncu-rep")


def test_gzipped_junk_report_names_the_users_file(tmp_path: Path) -> None:
    import gzip

    from kernelopt.profiling import read_evidence

    junk = tmp_path / "junk.ncu-rep.gz"
    junk.write_bytes(gzip.compress(b"\x00" * 1000))
    with pytest.raises(InputFileError) as info:
        read_evidence(junk)
    line = info.value.one_line()
    # not the unpacked temporary copy, which no longer exists when the user reads the line
    assert line.startswith(f"{junk}: holds no profiled kernel; ") and "kernelopt-ncu-" not in line
    assert info.value.path == junk


def test_worker_environment_problem_keeps_its_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernelopt.profiling.ncu_rep as ncu_rep
    from kernelopt.errors import EnvironmentProblem
    from kernelopt.proc import CommandResult

    sent = '{"kind": "EnvironmentProblem", "message": "cannot import ncu_report (x)", "hint": "install it"}'

    def no_module(argv, **kwargs):
        return CommandResult(tuple(argv), 2, "", f"some warning\n{sent}\n", 0.1, False)

    monkeypatch.setattr("kernelopt.proc.run_command", no_module)
    monkeypatch.setattr(ncu_rep, "_READ", {})  # a read of this worker's earlier tests is not the one tested
    with pytest.raises(EnvironmentProblem) as info:
        ncu_rep.read_ncu_rep_isolated(report("h200_softmax"))
    assert info.value.one_line() == "cannot import ncu_report (x); install it"


def test_report_reader_crash_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernelopt.profiling.ncu_rep as ncu_rep
    from kernelopt.proc import CommandResult

    calls = []

    def crashing(argv, **kwargs):
        calls.append(argv)
        return CommandResult(tuple(argv), -11, "", "Fatal Python error: Segmentation fault", 0.1, False)

    monkeypatch.setattr("kernelopt.proc.run_command", crashing)
    monkeypatch.setattr(ncu_rep, "_READ", {})
    with pytest.raises(ncu_rep.ReportReaderCrashed, match="killed by signal SIGSEGV") as info:
        ncu_rep.read_ncu_rep_isolated(report("h200_softmax"))
    assert len(calls) == 2 and "\n" not in info.value.one_line()


def test_a_report_read_again_in_the_process_starts_no_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same bytes read again (another path, the same name asked for) come from the process's memo, a fresh
    object each time; other bytes or another name start a worker; a failure is not kept. The worker is played
    by its answer (the JSON of the real reports, read once a session), so no read here starts a process."""
    import json

    import kernelopt.profiling.ncu_rep as ncu_rep
    from kernelopt.evidence.raw import report_to_json
    from kernelopt.proc import CommandResult

    by_bytes = {report(n).read_bytes(): n for n in ("h200_softmax", "h200_matmul")}
    real = {n: report_to_json(raw_report(n)) for n in by_bytes.values()}  # read before the worker is played
    started: list[list[str]] = []

    def worker(argv, **kwargs):
        started.append(list(argv))
        path, artifact = Path(argv[-2]), argv[-1]
        name = by_bytes.get(path.read_bytes())
        if name is None:
            return CommandResult(
                tuple(argv), 2, "", '{"kind": "InputFileError", "message": "holds no profiled kernel"}', 0.1, False
            )
        sent = json.loads(json.dumps(real[name]))
        sent["path"] = str(path)
        for k in sent["kernels"]:
            k["artifact"] = artifact
        return CommandResult(tuple(argv), 0, json.dumps(sent), "", 0.1, False)

    monkeypatch.setattr("kernelopt.proc.run_command", worker)
    monkeypatch.setattr(ncu_rep, "_READ", {})
    first = ncu_rep.read_ncu_rep_isolated(report("h200_softmax"), artifact="s.ncu-rep")
    copy = tmp_path / "copy.ncu-rep"
    copy.write_bytes(report("h200_softmax").read_bytes())
    first.kernels[0].metrics.clear()  # a caller's change reaches no later read
    again = ncu_rep.read_ncu_rep_isolated(copy, artifact="s.ncu-rep")
    assert len(started) == 1
    assert again.path == str(copy) and again.kernels[0].metrics and again.kernels[0].artifact == "s.ncu-rep"
    assert again.kernels[0].metrics == raw_report("h200_softmax").kernels[0].metrics
    fresh = ncu_rep.read_ncu_rep_isolated(report("h200_softmax"), artifact="s.ncu-rep")
    assert fresh.path == str(report("h200_softmax")) and fresh.kernels[0].metrics and len(started) == 1
    named = ncu_rep.read_ncu_rep_isolated(copy, artifact="other.ncu-rep")
    assert len(started) == 2 and named.kernels[0].artifact == "other.ncu-rep"
    copy.write_bytes(report("h200_matmul").read_bytes())  # the file changed: read again
    changed = ncu_rep.read_ncu_rep_isolated(copy, artifact="s.ncu-rep")
    assert len(started) == 3 and changed.kernels[0].name == raw_report("h200_matmul").kernels[0].name
    junk = tmp_path / "junk.ncu-rep"
    junk.write_bytes(b"\x00" * 1000)
    for _ in range(2):
        with pytest.raises(InputFileError, match="holds no profiled kernel"):
            ncu_rep.read_ncu_rep_isolated(junk)
    assert len(started) == 5
