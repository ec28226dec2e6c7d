"""Stage 1 runner end to end on a CPU machine: the real driver, a stub ncu printing ncu's real texts."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from kernelopt.errors import UsageError, WorkspaceError
from kernelopt.profiling import profile, read_evidence
from kernelopt.profiling.driver import CompiledKernel, DriverResult
from kernelopt.profiling.ncu_failures import (
    NcuTooOld,
    NoKernelsProfiled,
    ProfilerDeviceError,
    ReportNotWritten,
    UserProgramFailed,
)
from kernelopt.profiling.nvidia import NcuProfiler, ProfilerTimeout
from kernelopt.workspace import Workspace

from .nvidia_data import KERNELS, NVIDIA, STUB_NCU

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Point kernelopt at the stub ncu; returns a function that sets the mode and returns the argv file."""
    monkeypatch.setenv("KERNELOPT_NCU", str(STUB_NCU))
    monkeypatch.setenv("STUB_NCU_REPORT", str(NVIDIA / "h200_softmax.ncu-rep.gz"))
    argv_file = tmp_path / "argv.json"
    monkeypatch.setenv("STUB_NCU_ARGV", str(argv_file))

    def set_mode(mode: str, *, run_program: bool = False) -> Path:
        monkeypatch.setenv("STUB_NCU_MODE", mode)
        monkeypatch.setenv("STUB_NCU_RUN", "1" if run_program else "0")
        return argv_file

    return set_mode


@pytest.fixture
def vadd_workspace(ws_root: Path) -> Workspace:
    return Workspace.create(
        "vadd", kernel=KERNELS / "vadd_kernel.py", reference=KERNELS / "vadd_reference.py", root=ws_root
    )


def test_profile_runs_the_driver_under_ncu(add_workspace: Workspace, stub) -> None:
    argv_file = stub("ok", run_program=True)
    summary = profile(add_workspace, 0, device="cpu")
    folder = add_workspace.profile_dir(0)
    assert sorted(p.name for p in folder.iterdir()) == [
        "driver.json",
        "ncu.log",
        "ncu.ncu-rep",
        "summary.json",
        "summary.txt",
    ]
    argv = json.loads(argv_file.read_text())
    assert argv[:2] == ["--set", "full"] and "--kernel-name" not in argv  # add_kernel.py defines no GPU kernel
    assert argv[argv.index("--profile-from-start") + 1] == "off"
    assert argv[argv.index("--clock-control") + 1] == "none"
    assert "--launch-count" not in argv  # no filter: every launch of the one profiled call
    assert argv[-2:] == ["--device", "cpu"] and "kernelopt.profiling.driver" in argv
    driver = DriverResult.model_validate_json((folder / "driver.json").read_text())
    assert driver.mode == "profile" and driver.launches == 1 and driver.warmup == 3 and driver.form == "function"
    assert driver.bytes_moved == 3 * 4096 * 4 and driver.bytes_source == "reference.bytes_moved"
    assert summary.version == "v0" and summary.tool_used == "ncu 2025.3.1 --set full"
    assert summary.settings["replay_passes"] == 38 and summary.settings["kernel_regex"] is None
    assert summary.kernels[0].kernel_name == "softmax_kernel"  # what the (stub's) report holds
    assert read_evidence(folder) == summary
    text = (folder / "summary.txt").read_text()
    assert "SYMPTOMS: dram_bandwidth_bound" in text and "LOCALIZE:" in text


def test_default_filter_is_the_kernels_of_kernel_py(vadd_workspace: Workspace, stub) -> None:
    argv_file = stub("ok")
    summary = profile(vadd_workspace, 0)
    argv = json.loads(argv_file.read_text())
    i = argv.index("--kernel-name")
    assert argv[i - 2 : i + 6] == [
        "--kernel-name-base",
        "function",
        "--kernel-name",
        "regex:^(vadd_kernel)$",
        "--launch-skip",
        "0",
        "--launch-count",
        "1",
    ]
    assert summary.settings["launch_count"] == 1


def test_launch_options_and_fast_set(vadd_workspace: Workspace, stub) -> None:
    argv_file = stub("ok")
    summary = profile(
        vadd_workspace, 3, fast=True, kernel_regex="vadd", launch_skip=2, launch_count=4, launch_skip_before_match=1
    )
    argv = json.loads(argv_file.read_text())
    assert "--set" not in argv and argv.count("--section") == 3 and "--metrics" in argv
    assert argv[argv.index("--kernel-name") + 1] == "regex:vadd"
    assert argv[argv.index("--launch-skip-before-match") + 1] == "1"
    assert argv[argv.index("--launch-skip") + 1] == "2" and argv[argv.index("--launch-count") + 1] == "4"
    assert "(--fast)" in summary.tool_used and summary.settings["section_set"] == "fast"


def test_counters_not_readable_falls_back_to_timing_only(add_workspace: Workspace, stub, capsys) -> None:
    from kernelopt.cli.app import main

    stub("perm")
    rc = main(["profile", str(add_workspace.root), "--json", "--device", "cpu"])
    captured = capsys.readouterr()
    assert rc == 0
    warning = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert len(warning) == 1 and warning[0].startswith("warning: counters unavailable: GPU performance counters")
    assert "NVreg_RestrictProfilingToAdminUsers=0" in warning[0]
    summary = json.loads(captured.out)
    assert summary["counters_available"] is False and "ERR_NVGPUCTRPERM" in summary["counters_unavailable_reason"]
    k = summary["kernels"][0]
    assert k["findings"][0]["symptom"] == "timing_only"
    assert k["metrics"]["duration_us"]["value"] > 0
    assert k["metrics"]["achieved_gbps"]["value"] > 0
    assert k["metrics"]["achieved_tflops"]["value"] > 0  # add_reference defines flops()
    assert k["metrics"]["sm_throughput_pct"]["value"] is None
    assert (add_workspace.profile_dir(0) / "summary.txt").read_text().count("COUNTERS UNAVAILABLE") == 1


def test_missing_ncu_falls_back_to_timing_only(add_workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_NCU", "/nonexistent/ncu")
    canned = DriverResult(
        mode="time",
        device="NVIDIA H200",
        samples_us=[10.0, 12.0, 11.0],
        median_us=11.0,
        bytes_moved=3 * 4096 * 4.0,
        bytes_source="reference.bytes_moved",
        compiled=[CompiledKernel(name="add_kernel", num_warps=4, registers=40, spilled_registers=8, shared_bytes=0)],
    )
    monkeypatch.setattr(NcuProfiler, "_run_driver", lambda self, *a, **k: canned)
    summary = profile(add_workspace, 0)
    assert not summary.counters_available and "not found" in (summary.counters_unavailable_reason or "")
    k = summary.kernels[0]
    assert k.kernel_name == "add_kernel" and k.metric("duration_us") == 11.0
    assert k.metric("registers_per_thread") == 40 and k.metric("block_size_threads") == 128
    assert k.findings[0].symptom == "timing_only"


def test_filter_matching_nothing_lists_ncus_available_kernels(add_workspace: Workspace, stub) -> None:
    stub("nokernels")
    with pytest.raises(NoKernelsProfiled) as info:
        profile(add_workspace, 0, kernel_regex="^nothing$")
    assert info.value.launched == ["softmax_kernel", "vectorized_elementwise_kernel"]
    line = info.value.one_line()
    assert "regex:^nothing$" in line and "softmax_kernel" in line and "full log:" in line
    assert not add_workspace.profile_dir(0).exists()
    assert (add_workspace.state_dir / "logs" / "profile-v0-ncu.log").is_file()


@pytest.mark.parametrize(
    ("mode", "error", "text"),
    [
        ("device", ProfilerDeviceError, "Unknown Error on device 0"),
        ("noreport", ReportNotWritten, "profiles/v0/ncu.ncu-rep"),
        ("old", NcuTooOld, "2021.1.1"),
        ("apperror", UserProgramFailed, "RuntimeError: fixture: this kernel fails on purpose"),
    ],
)
def test_failure_classes(add_workspace: Workspace, stub, mode: str, error: type, text: str) -> None:
    stub(mode)
    with pytest.raises(error) as info:
        profile(add_workspace, 0)
    assert text in info.value.one_line() and "\n" not in info.value.one_line()
    assert not add_workspace.profile_dir(0).exists()
    assert not [p for p in add_workspace.profiles_dir.iterdir() if p.name.startswith(".v0.")]


def test_timeout_kills_the_profiler(add_workspace: Workspace, stub) -> None:
    stub("hang")
    t0 = time.monotonic()
    with pytest.raises(ProfilerTimeout) as info:
        profile(add_workspace, 0, timeout_s=1.5)
    assert time.monotonic() - t0 < 20
    assert "1.5 s limit" in info.value.one_line() and "--fast" in info.value.one_line()
    assert not add_workspace.profile_dir(0).exists()


def test_existing_profile_is_not_replaced_without_force(add_workspace: Workspace, stub) -> None:
    stub("ok")
    folder = add_workspace.profile_dir(0)
    folder.mkdir(parents=True)
    (folder / "old.txt").write_text("x")
    with pytest.raises(WorkspaceError, match="already holds a profile"):
        profile(add_workspace, 0)
    profile(add_workspace, 0, force=True)
    assert not (folder / "old.txt").exists() and (folder / "summary.json").is_file()


def test_vendor_dispatch(add_workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelopt.profiling import registry
    from kernelopt.profiling.fake import FakeProfiler

    monkeypatch.setitem(registry.PROFILERS, "fake", FakeProfiler)  # the tests' profiler, never a user's
    summary = profile(add_workspace, 0, vendor="fake")
    assert summary.tool_used == "fake" and (add_workspace.profile_dir(0) / "summary.json").is_file()
    with pytest.raises(UsageError, match="unknown profiler vendor"):
        profile(add_workspace, 1, vendor="intel")
    with pytest.raises(UsageError, match="invalid profile option"):
        profile(add_workspace, 1, vendor="fake", launch_skip=-1)
    with pytest.raises(UsageError, match="not understood by the nvidia profiler"):
        profile(add_workspace, 1, vendor="nvidia", modes={"att"})

    calls = []

    def profile_amd(workspace, version, *, modes, kernel_regex, iteration_range, att_library_path, timeout_s):
        calls.append((version, modes, kernel_regex, iteration_range, att_library_path, timeout_s))
        from kernelopt.profiling.fake import fake_summary

        return fake_summary(version)

    monkeypatch.setattr("kernelopt.profiling.rocprof_adapter.profile_amd", profile_amd)
    profile(add_workspace, 2, vendor="amd", kernel_regex="k", modes={"pmc"}, iteration_range="0-0", timeout_s=5)
    assert calls == [(2, {"pmc"}, "k", "0-0", None, 5)]
    assert (add_workspace.profile_dir(2) / "summary.json").is_file()  # written for the AMD profiler too
    with pytest.raises(UsageError, match="apply to NVIDIA only"):
        profile(add_workspace, 3, vendor="amd", launch_skip=2)
    with pytest.raises(UsageError, match="unknown AMD profile modes"):
        profile(add_workspace, 3, vendor="amd", modes={"sqtt"})


def test_driver_reports_a_failing_kernel_in_one_line(tmp_path: Path) -> None:
    from kernelopt.proc import run_command
    from kernelopt.worker.environment import worker_env

    kernel = tmp_path / "kernel.py"
    kernel.write_text("def run(x, y):\n    raise ValueError('broken on purpose')\n")
    argv = [
        sys.executable,
        "-m",
        "kernelopt.profiling.driver",
        "--kernel",
        str(kernel),
        "--reference",
        str(Path(__file__).parent / "data" / "kernels" / "add_reference.py"),
        "--device",
        "cpu",
        "--out",
        str(tmp_path / "d.json"),
    ]
    res = run_command(argv, timeout_s=120, env=worker_env())
    assert res.returncode == 3
    assert res.stderr.strip().splitlines()[-1] == "KERNELOPT_DRIVER_ERROR: ValueError: broken on purpose"
    assert not (tmp_path / "d.json").exists()
