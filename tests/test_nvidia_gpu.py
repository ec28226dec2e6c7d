"""Stage 1 on a real NVIDIA GPU (run with KERNELOPT_GPU_TESTS=1 on a machine with ncu and counters)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.evidence.model import BottleneckType
from kernelopt.profiling import profile, read_evidence
from kernelopt.profiling.ncu_failures import NoKernelsProfiled
from kernelopt.workspace import Workspace

DATA = Path(__file__).parent / "data" / "nvidia" / "kernels"

pytestmark = [pytest.mark.gpu, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def vadd_ws(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("gpu")
    return Workspace.create("vadd", kernel=DATA / "vadd_kernel.py", reference=DATA / "vadd_reference.py", root=root)


def test_profile_full_set_end_to_end(vadd_ws: Workspace) -> None:
    summary = profile(vadd_ws, 0)
    folder = vadd_ws.profile_dir(0)
    for name in ("ncu.ncu-rep", "ncu.log", "driver.json", "summary.json", "summary.txt", "vadd_kernel.sass"):
        assert (folder / name).is_file(), name
    assert summary.counters_available and summary.tool_used.startswith("ncu ")
    assert [k.kernel_name for k in summary.kernels] == ["vadd_kernel"]
    k = summary.kernels[0]
    # 1024 blocks of 128 threads fill 132 SMs less than once (0.48 waves): launch/occupancy-bound.
    assert k.bottleneck is BottleneckType.LAUNCH_OCCUPANCY_BOUND
    assert "small_grid" in {f.symptom for f in k.findings}
    assert k.metric("duration_us") and k.metric("duration_us") > 0
    assert k.metric("grid_size_blocks") == 1024 and k.metric("block_size_threads") == 128
    assert k.isa is not None and k.isa.instruction_counts.get("LDG", 0) >= 2
    assert k.hotspots and k.hotspots[0].location.startswith("kernel.py:")
    assert read_evidence(folder).kernels[0].kernel_name == "vadd_kernel"


def test_profile_fast_same_bottleneck(vadd_ws: Workspace) -> None:
    full = read_evidence(vadd_ws.profile_dir(0)) if vadd_ws.profile_dir(0).is_dir() else profile(vadd_ws, 0)
    fast = profile(vadd_ws, 1, fast=True)
    assert fast.kernels[0].bottleneck == full.kernels[0].bottleneck
    assert "--fast" in fast.tool_used


def test_filter_matching_nothing_lists_the_kernels_that_ran(vadd_ws: Workspace) -> None:
    with pytest.raises(NoKernelsProfiled) as info:
        profile(vadd_ws, 2, kernel_regex="^no_such_kernel$")
    assert info.value.launched == ["vadd_kernel"]
    assert "vadd_kernel" in info.value.one_line()
    assert not vadd_ws.profile_dir(2).exists()


def test_timing_only_when_ncu_is_missing(vadd_ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNELOPT_NCU", "/nonexistent/ncu")
    summary = profile(vadd_ws, 3)
    assert not summary.counters_available and "ncu" in (summary.counters_unavailable_reason or "")
    k = summary.kernels[0]
    assert k.findings[0].symptom == "timing_only"
    assert k.metric("duration_us") and k.metric("registers_per_thread")


def test_doctor_counters_probe() -> None:
    from kernelopt.profiling.environment import CheckStatus, check_counters, check_gpu
    from kernelopt.profiling.nvidia import find_ncu

    assert check_gpu().status is CheckStatus.OK
    assert check_counters(find_ncu()).status is CheckStatus.OK
