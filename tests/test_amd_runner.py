"""The rocprofv3 runner: exact argv per mode, decoder discovery, and a stub rocprofv3 replaying
recorded outputs (tests/data/amd/stub_rocprofv3.py) for the success and failure cases. No GPU."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from kernelopt.errors import EnvironmentProblem, UsageError, WorkspaceError
from kernelopt.evidence.summary import read_summary
from kernelopt.proc import CommandResult
from kernelopt.profiling import amd
from kernelopt.profiling.amd import (
    BLOCK_LIMITS,
    PMC_BATCHES,
    CounterBatch,
    DecoderLookup,
    asm_argv,
    asm_env,
    att_argv,
    batch_fits,
    diagnose_att_failure,
    diagnose_pmc_failure,
    driver_argv,
    find_trace_decoder,
    normalize_iteration_range,
    pmc_argv,
    profile_amd,
    timing_argv,
)

DATA = Path(__file__).parent / "data" / "amd"
STUB = DATA / "stub_rocprofv3.py"
PROGRAM = [
    "/usr/bin/python3",
    "-m",
    "kernelopt.profiling.driver",
    "--kernel",
    "/ws/kernel.py",
    "--reference",
    "/ws/reference.py",
    "--mode",
    "profile",
    "--warmup",
    "1",
    "--launches",
    "3",
]


# ------------------------------------------------------------------------------ argv builders


def test_driver_argv() -> None:
    assert driver_argv(Path("/ws"), 3, python="/usr/bin/python3") == PROGRAM
    assert driver_argv(Path("/ws"), 1)[:3] == [sys.executable, "-m", "kernelopt.profiling.driver"]


def test_timing_argv() -> None:
    assert timing_argv(rocprofv3="rocprofv3", out_dir=Path("/p/pmc/timing"), program=PROGRAM, kernel_regex=None, iteration="[2-3]") == [
        "rocprofv3", "--kernel-trace", "--output-format", "csv", "-d", "/p/pmc/timing", "-o", "timing",
        "--kernel-iteration-range", "[2-3]", "--", *PROGRAM,
    ]  # fmt: skip


def test_pmc_argv() -> None:
    batch = CounterBatch("l2", ("GRBM_GUI_ACTIVE", "TCC_HIT_sum", "TCC_MISS_sum"), "L2")
    argv = pmc_argv(
        rocprofv3="/opt/rocm/bin/rocprofv3",
        batch=batch,
        out_dir=Path("/p/pmc/l2"),
        program=PROGRAM,
        kernel_regex="matmul_.*",
        iteration="[2-3]",
    )
    assert argv == [
        "/opt/rocm/bin/rocprofv3", "--pmc", "GRBM_GUI_ACTIVE", "TCC_HIT_sum", "TCC_MISS_sum",
        "--output-format", "csv", "-d", "/p/pmc/l2", "-o", "l2",
        "--kernel-include-regex", "matmul_.*", "--kernel-iteration-range", "[2-3]", "--", *PROGRAM,
    ]  # fmt: skip


def test_att_argv() -> None:
    argv = att_argv(
        rocprofv3="rocprofv3",
        decoder_dir=Path("/opt/decoder/lib"),
        out_dir=Path("/p/att"),
        program=PROGRAM,
        kernel_regex="k",
        iteration="[2]",
    )
    assert argv == [
        "rocprofv3", "--att", "--att-library-path", "/opt/decoder/lib", "--output-format", "csv",
        "-d", "/p/att", "-o", "att", "--kernel-include-regex", "k", "--kernel-iteration-range", "[2]", "--", *PROGRAM,
    ]  # fmt: skip


def test_asm_argv_and_env() -> None:
    assert asm_argv(PROGRAM) == PROGRAM
    env = asm_env({"PATH": "/bin"}, Path("/p/asm/triton_cache"))
    assert env == {"PATH": "/bin", "TRITON_CACHE_DIR": "/p/asm/triton_cache", "TRITON_ALWAYS_COMPILE": "1"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, "[2-3]"),
        ("2-3", "[2-3]"),
        ("0-0", "[0]"),
        ("5", "[5]"),
        (" 4 - 9 ", "[4-9]"),
        ("[1, [3-4]]", "[1, [3-4]]"),
    ],
)
def test_iteration_range(text: str | None, expected: str) -> None:
    assert normalize_iteration_range(text, default="[2-3]") == expected


@pytest.mark.parametrize("bad", ["3-1", "first", "1-2; rm -rf /", ""])
def test_bad_iteration_range(bad: str) -> None:
    with pytest.raises(UsageError):
        normalize_iteration_range(bad, default="[2-3]")


def test_counter_batches_fit_one_pass_each_and_feed_the_rules() -> None:
    for batch in PMC_BATCHES:
        assert batch_fits(batch.counters), batch.name
        assert len(set(batch.counters)) == len(batch.counters)
    assert not batch_fits([f"SQ_C{i}" for i in range(9)])
    assert not batch_fits(["SPI_A", "SPI_B", "SPI_C"])
    assert BLOCK_LIMITS["SPI"] == 2 and BLOCK_LIMITS["TCC"] == 4
    collected = {c for b in PMC_BATCHES for c in b.counters}
    feeds = {
        "lds_bank_conflict_pct": {"SQ_LDS_BANK_CONFLICT", "SQ_LDS_IDX_ACTIVE"},
        "vmem/lds insts": {"SQ_INSTS_VMEM_RD", "SQ_INSTS_VMEM_WR", "SQ_INSTS_LDS"},
        "occupancy limiters": {"SPI_RA_VGPR_SIMD_FULL_CSN", "SPI_RA_LDS_CU_FULL_CSN", "SPI_RA_WAVE_SIMD_FULL_CSN"},
        "l2": {"TCC_HIT_sum", "TCC_MISS_sum"},
        "busy": {"SQ_ACTIVE_INST_VALU", "SQ_VALU_MFMA_BUSY_CYCLES", "GRBM_GUI_ACTIVE"},
        "hbm": {"TCC_EA0_RDREQ_sum", "TCC_EA0_RDREQ_32B_sum", "TCC_EA0_WRREQ_sum", "TCC_EA0_WRREQ_64B_sum"},
    }
    for what, counters in feeds.items():
        assert counters <= collected, what


# ------------------------------------------------------------------------------ decoder lookup


def _decoder(folder: Path, name: str = "librocprof-trace-decoder.so.0.1.4") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(b"\x7fELF")
    return folder


def test_decoder_lookup_order(tmp_path: Path) -> None:
    flag = _decoder(tmp_path / "flag")
    envdir = _decoder(tmp_path / "env", "librocprof-trace-decoder.so")
    rocm = _decoder(tmp_path / "rocm" / "lib")
    found = find_trace_decoder(flag, {DECODER_ENV: str(envdir)} if (DECODER_ENV := amd.DECODER_ENV) else {})
    assert found.directory == flag and found.version == "0.1.4" and found.searched == (str(flag),)
    found = find_trace_decoder(None, {amd.DECODER_ENV: str(envdir), "ROCM_PATH": str(tmp_path / "rocm")})
    assert found.directory == envdir and found.version is None
    rocprof_var = _decoder(tmp_path / "rocprof_var")
    found = find_trace_decoder(
        None, {"ROCPROF_ATT_LIBRARY_PATH": str(rocprof_var), "ROCM_PATH": str(tmp_path / "rocm")}
    )
    assert found.directory == rocprof_var
    found = find_trace_decoder(None, {"ROCM_PATH": str(tmp_path / "rocm")})
    assert found.directory == rocm
    ld = _decoder(tmp_path / "ld")
    found = find_trace_decoder(None, {"ROCM_PATH": str(tmp_path / "none"), "LD_LIBRARY_PATH": f"/nope:{ld}"})
    assert found.directory == ld
    assert found.searched == (str(tmp_path / "none" / "lib"), "/nope", str(ld))


def test_explicit_decoder_folder_is_the_only_place_looked(tmp_path: Path) -> None:
    _decoder(tmp_path / "rocm" / "lib")
    found = find_trace_decoder(tmp_path / "empty", {"ROCM_PATH": str(tmp_path / "rocm")})
    assert found.directory is None and found.searched == (str(tmp_path / "empty"),)
    msg = found.missing_message()
    assert "\n" not in msg
    for part in (
        "librocprof-trace-decoder.so",
        "--att-library-path",
        "ROCPROF_TRACE_DECODER_DIR",
        "rocprof-trace-decoder/releases",
    ):
        assert part in msg


def _result(rc: int | None, stderr: str = "", stdout: str = "") -> CommandResult:
    return CommandResult(("rocprofv3", "--att"), rc, stdout, stderr, 1.0, False)


def test_att_failure_diagnosis() -> None:
    dec = DecoderLookup(Path("/d"), Path("/d/librocprof-trace-decoder.so.0.1.1"), ("/d",), "0.1.1")
    mismatch = diagnose_att_failure(_result(-6, "F20250713 att_lib_wrapper.cpp:126] Error loading decoder: 37"), dec)
    assert "decoder/SDK mismatch" in mismatch and "0.1.1" in mismatch
    segv = diagnose_att_failure(_result(-11), dec)
    assert "SIGSEGV" in segv and "mismatch" in segv
    segv_text = diagnose_att_failure(
        _result(1, "[rocprofv3] Fatal error: Command '['python']' died with <Signals.SIGSEGV: 11>."), dec
    )
    assert "SIGSEGV" in segv_text
    old = diagnose_att_failure(
        _result(2, "rocprofv3: error: unrecognized arguments: --att --att-library-path /opt"), dec
    )
    assert "no --att option" in old
    aql = diagnose_att_failure(_result(1, "ROCPROFILER_STATUS_ERROR: INVALID_SHADER_DATA"), dec)
    assert "aqlprofile" in aql
    assert diagnose_att_failure(_result(3, "boom\nlast words"), dec).endswith("exited 3: last words")


def test_pmc_failure_diagnosis() -> None:
    batch = PMC_BATCHES[-1]
    msg = diagnose_pmc_failure(_result(1, "[rocprofv3] Fatal error: Counter 'TCC_BUBBLE_sum' not found"), batch)
    assert "TCC_BUBBLE_sum" in msg and "not available" in msg


# ---------------------------------------------------------------------------------- stub runs

FAKE_DRIVER = """
import json, os, pathlib, shutil, sys
cache = os.environ.get("TRITON_CACHE_DIR")
if cache:
    d = pathlib.Path(cache) / "3f2a9c"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile({asm!r}, d / "matmul_kernel.amdgcn")
    (d / "matmul_kernel.json").write_text(json.dumps({{"name": "matmul_kernel", "shared": 32768, "num_warps": 4}}))
    (d / "matmul_kernel.hsaco").write_bytes(b"\\x7fELF")
"""


@pytest.fixture
def amd_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, add_workspace):
    """A workspace, a stub rocprofv3 on PATH, a ROCm folder with a decoder, and a fake driver."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "rocprofv3"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{STUB}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    rocm = tmp_path / "rocm"
    _decoder(rocm / "lib")
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ROCM_PATH", str(rocm))
    monkeypatch.delenv(amd.DECODER_ENV, raising=False)
    monkeypatch.delenv(amd.ROCPROF_DECODER_ENV, raising=False)
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    monkeypatch.setenv("STUB_ROCPROF_LOG", str(log))
    monkeypatch.setenv("STUB_ROCPROF_SCENARIO", "")
    driver = tmp_path / "fake_driver.py"
    driver.write_text(FAKE_DRIVER.format(asm=str(DATA / "asm" / "triton_gfx942_matmul_bf16_wide.amdgcn")))
    monkeypatch.setattr(amd, "driver_argv", lambda ws, launches, python=None: [sys.executable, str(driver)])

    class Env:
        workspace = add_workspace
        rocm_path = rocm
        profile = add_workspace.profile_dir(1)

        @staticmethod
        def calls() -> list[list[str]]:
            return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

        @staticmethod
        def scenario(text: str) -> None:
            monkeypatch.setenv("STUB_ROCPROF_SCENARIO", text)

    return Env


def _profile(env, modes=("pmc", "att", "asm"), **kw):
    args = {"kernel_regex": None, "iteration_range": None, "att_library_path": None, "timeout_s": 60.0}
    args.update(kw)
    return profile_amd(env.workspace, 1, modes=set(modes), **args)


def test_all_modes_with_the_stub(amd_env) -> None:
    summary = _profile(amd_env)
    p = amd_env.profile
    assert (p / "summary.json").is_file() and (p / "summary.txt").is_file()
    assert read_summary(p) == summary
    assert (p / "pmc" / "timing" / "timing_kernel_trace.csv").is_file()
    assert (p / "pmc" / "l2" / "l2_counter_collection.csv").is_file()
    assert (p / "att" / "stats_ui_output_agent_1_dispatch_3.csv").is_file()
    assert (p / "asm" / "matmul_kernel.amdgcn").is_file() and (p / "asm" / "matmul_kernel.json").is_file()
    assert not (p / "asm" / "triton_cache").exists()  # the scratch cache is removed
    assert (p / "kernel.s").read_text().startswith("; kernelopt: matmul_kernel.amdgcn (Triton cache)")
    assert (p / "att" / "rocprofv3.log").read_text().startswith("$ ")
    calls = amd_env.calls()
    profiled = [c for c in calls if c != ["--version"]]
    assert len(profiled) == 1 + len(PMC_BATCHES) + 1
    assert all(c[c.index("--output-format") + 1] == "csv" for c in profiled)
    att = next(c for c in profiled if "--att" in c)
    assert att[att.index("--att-library-path") + 1] == str(amd_env.rocm_path / "lib")
    assert att[att.index("--kernel-iteration-range") + 1] == "[2]"
    pmc = next(c for c in profiled if "--pmc" in c)
    assert pmc[pmc.index("--kernel-iteration-range") + 1] == "[2-3]"
    assert summary.tool_used == "rocprofv3 1.0.0 (pmc, att, asm)"
    assert summary.version == "v1" and summary.notes == []
    assert summary.gpu == "AMD Instinct MI300X (gfx942)" and summary.counters_available
    names = [k.kernel_name for k in summary.kernels]
    assert names[0] == "vecCopy(double*, double*, double*, int, int)"
    assert names[1].startswith("void batched_matrix_multiplication") and names[2] == "matmul_kernel"
    vcopy = summary.kernels[0]
    assert vcopy.metrics["duration_us"].value == pytest.approx((24800 + 18880 + 18880) / 3 / 1000)
    assert "timing_kernel_trace.csv" in (vcopy.metrics["duration_us"].source or "")
    assert vcopy.metrics["dispatches"].value == 3  # per pass, not summed over the 8 passes
    assert vcopy.metrics["l2_hit_rate_pct"].value == pytest.approx(33.3618069)  # replayed MI300X counters
    assert vcopy.metrics["dram_throughput_pct"].value is not None
    assert "amd.low_l2_hit_rate" in [f.rule_id for f in vcopy.findings]
    mm = summary.kernels[2]
    assert mm.metrics["lds_bytes_per_workgroup"].value == 32768  # Triton's dynamic LDS from its metadata
    assert mm.isa is not None and mm.isa.tensor_instructions == 64
    text = (p / "summary.txt").read_text()
    assert "SYMPTOMS:" in text and "waitcnt_stalls" in text


def test_kernel_regex_and_iteration_range_reach_every_pass(amd_env) -> None:
    _profile(amd_env, modes=("pmc",), kernel_regex="vecCopy", iteration_range="4-6")
    calls = [c for c in amd_env.calls() if c != ["--version"]]
    assert len(calls) == 1 + len(PMC_BATCHES)
    for call in calls:
        assert call[call.index("--kernel-include-regex") + 1] == "vecCopy"
        assert call[call.index("--kernel-iteration-range") + 1] == "[4-6]"


def test_missing_decoder_fails_att_alone(amd_env) -> None:
    for lib in (amd_env.rocm_path / "lib").iterdir():
        lib.unlink()
    summary = _profile(amd_env)
    assert not any("--att" in c for c in amd_env.calls())  # rocprofv3 --att is never started
    (note,) = summary.notes
    assert note.startswith("ATT not run: librocprof-trace-decoder.so not found")
    assert "--att-library-path" in note and "\n" not in note
    assert summary.counters_available  # PMC still ran
    assert (amd_env.profile / "kernel.s").is_file()  # ASM still ran
    assert summary.tool_used.endswith("(pmc, asm)")
    assert f"NOTE: {note}" in (amd_env.profile / "summary.txt").read_text()


def test_empty_trace_is_reported_as_no_samples(amd_env) -> None:
    amd_env.scenario("empty_trace")
    summary = _profile(amd_env, modes=("att",))
    assert summary.kernels == []
    assert any("no samples" in n for n in summary.notes)
    assert summary.counters_available is False and summary.counters_unavailable_reason == "PMC mode not requested"


def test_missing_counter_files(amd_env) -> None:
    amd_env.scenario("missing_counter_file")
    summary = _profile(amd_env, modes=("pmc", "asm"))
    pmc_notes = [n for n in summary.notes if n.startswith("PMC pass")]
    assert len(pmc_notes) == len(PMC_BATCHES)
    assert all("wrote no counter_collection.csv although rocprofv3 exited 0" in n for n in pmc_notes)
    assert summary.counters_available is False
    assert (summary.counters_unavailable_reason or "").startswith("PMC pass 'instructions' wrote no")
    (vcopy,) = [k for k in summary.kernels if k.kernel_name.startswith("vecCopy")]
    assert vcopy.metrics["duration_us"].value == pytest.approx(20.8533, abs=1e-3)  # the timing pass still counts


def test_unsupported_counter_fails_its_batch_only(amd_env) -> None:
    amd_env.scenario("unsupported_counter=TCC_BUBBLE_sum")
    summary = _profile(amd_env, modes=("pmc",))
    (note,) = summary.notes
    assert note == "PMC pass 'hbm' failed: counter(s) TCC_BUBBLE_sum not available on this GPU/ROCm"
    assert summary.counters_available
    vcopy = summary.kernels[0]
    assert vcopy.metrics["l2_hit_rate_pct"].value is not None
    assert "hbm_write_bytes" not in vcopy.metrics


def test_decoder_sdk_mismatch_is_named(amd_env) -> None:
    amd_env.scenario("decoder_mismatch")
    summary = _profile(amd_env, modes=("att", "asm"))
    (note,) = summary.notes
    assert note.startswith("ATT failed: decoder/SDK mismatch: rocprofv3 could not load")
    assert "0.1.4" in note
    assert "Error loading decoder" in (amd_env.profile / "att" / "rocprofv3.log").read_text()


def test_att_crash_is_explained(amd_env) -> None:
    amd_env.scenario("att_segv")
    summary = _profile(amd_env, modes=("att", "asm"))
    (note,) = summary.notes
    assert "died with SIGSEGV" in note and "decoder/SDK version mismatch" in note


def test_rocprofv3_without_att(amd_env) -> None:
    amd_env.scenario("no_att")
    with pytest.raises(EnvironmentProblem, match="no --att option"):
        _profile(amd_env, modes=("att",))


def test_timeout_kills_the_pass(amd_env) -> None:
    amd_env.scenario("hang")
    start = time.monotonic()
    with pytest.raises(EnvironmentProblem, match=r"ATT pass ran past its 1 s limit; its process group was killed"):
        _profile(amd_env, modes=("att",), timeout_s=1.0)
    assert time.monotonic() - start < 10
    assert not (amd_env.profile / "att").exists()  # nothing half-written is left behind
    assert not (amd_env.profile / "summary.json").exists()
    assert _profile(amd_env, modes=("asm",)).kernels  # so the version can be profiled again


def test_no_rocprofv3_still_runs_asm(amd_env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("ROCM_PATH", str(amd_env.rocm_path))
    summary = _profile(amd_env, modes=("pmc", "asm"))
    assert summary.notes == [
        "PMC not run: rocprofv3 not found on PATH or in $ROCM_PATH/bin (install ROCm 6.2+ rocprofiler-sdk)"
    ]
    assert [k.kernel_name for k in summary.kernels] == ["matmul_kernel"]
    assert summary.tool_used == "rocprofv3 (asm)"


def test_artifacts_are_never_reused(amd_env) -> None:
    _profile(amd_env, modes=("asm",))
    with pytest.raises(WorkspaceError, match="already holds AMD profile artifacts"):
        _profile(amd_env, modes=("asm",))


def test_rocm_present_needs_the_driver_and_the_tool(amd_env, tmp_path: Path) -> None:
    assert amd.rocm_present({"PATH": "/nonexistent", "ROCM_PATH": str(tmp_path / "none")}) is False
    assert amd.rocm_present(dict(os.environ)) is Path("/dev/kfd").exists()


def test_unknown_mode(amd_env) -> None:
    with pytest.raises(UsageError, match="unknown AMD profiling mode"):
        _profile(amd_env, modes=("sass",))
    with pytest.raises(UsageError):
        _profile(amd_env, modes=())
