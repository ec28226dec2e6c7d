"""Stage 1 in the loop serves the last profile again when the kernel is byte-identical (no GPU needed:
the profiler is a stand-in that writes a real H200 summary and an artifact, and counts its runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.evidence.summary import read_summary, write_summary
from kernelopt.loop.wiring import StageOneProfiler
from kernelopt.profiling.reuse import STAMP
from kernelopt.workspace import Workspace

from .test_planning_rules import make_ws

H200_SUMMARY = Path(__file__).parent / "data" / "h200_examples" / "softmax_v0_summary.json"


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def fake_profile(ws: Workspace, version: int, **_: object):  # type: ignore[no-untyped-def]
        calls.append(version)
        summary = read_summary(H200_SUMMARY)
        summary.version = f"v{version}"
        folder = ws.profile_dir(version)
        write_summary(folder, summary)
        (folder / "ncu.ncu-rep").write_bytes(b"report of v%d" % version)
        return summary

    monkeypatch.setattr("kernelopt.profiling.profile", fake_profile)
    monkeypatch.setattr("kernelopt.loop.wiring._single_gpu_name", lambda: "NVIDIA H200")
    return calls


def test_unchanged_kernel_is_not_profiled_again(ws_root: Path, runs: list[int]) -> None:
    ws = make_ws(ws_root)
    stage1 = StageOneProfiler()
    stage1.profile(ws, 0)
    assert runs == [0] and (ws.profile_dir(0) / STAMP).is_file()

    again = stage1.profile(ws, 1)  # V1 right after the baseline: the same kernel.py
    assert runs == [0]
    assert again.version == "v1" and "reused profiles/v0/" in again.notes[-1]
    assert read_summary(ws.profile_dir(1) / "summary.json").version == "v1"
    assert (ws.profile_dir(1) / "ncu.ncu-rep").read_bytes() == b"report of v0"  # plans cite their own folder
    assert json.loads((ws.profile_dir(1) / STAMP).read_text()) == json.loads((ws.profile_dir(0) / STAMP).read_text())

    ws.kernel_py.write_text(ws.kernel_py.read_text() + "\n# changed\n")
    stage1.profile(ws, 2)
    assert runs == [0, 2]  # a changed kernel is profiled

    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("\n# changed\n", ""))
    stage1.profile(ws, 3)  # reverted to V0's bytes: V0's (or V1's copy of it) profile serves again
    assert runs == [0, 2]


@pytest.mark.parametrize(
    "differs",
    ["fast", "other_model", "model_unknown", "reuse_off", "timing_only"],
)
def test_anything_that_differs_profiles_again(
    ws_root: Path, runs: list[int], differs: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_ws(ws_root)
    StageOneProfiler().profile(ws, 0)
    if differs == "timing_only":
        summary = read_summary(ws.profile_dir(0) / "summary.json")
        summary.counters_available = False
        write_summary(ws.profile_dir(0), summary)
    if differs == "other_model":
        monkeypatch.setattr("kernelopt.loop.wiring._single_gpu_name", lambda: "NVIDIA H100 80GB HBM3")
    if differs == "model_unknown":
        monkeypatch.setattr("kernelopt.loop.wiring._single_gpu_name", lambda: None)
    stage1 = StageOneProfiler(fast=differs == "fast", reuse=differs != "reuse_off")
    stage1.profile(ws, 1)
    assert runs == [0, 1]


def test_a_corrupt_stamp_means_profiling_again(ws_root: Path, runs: list[int]) -> None:
    ws = make_ws(ws_root)
    StageOneProfiler().profile(ws, 0)
    (ws.profile_dir(0) / STAMP).write_text("{not json")
    StageOneProfiler().profile(ws, 1)
    assert runs == [0, 1]


def test_a_changed_auxiliary_source_means_profiling_again(ws_root: Path, runs: list[int]) -> None:
    # Stage 3 may edit an auxiliary source a plan names (helpers.cu) and leave kernel.py alone: the kernel
    # that runs is not the one profiled, so its profile must not be served again.
    ws = make_ws(ws_root)
    (ws.root / "csrc").mkdir()
    (ws.root / "csrc" / "helpers.cu").write_text("__global__ void k() {}\n")
    stage1 = StageOneProfiler()
    stage1.profile(ws, 0)
    (ws.root / "csrc" / "helpers.cu").write_text("__global__ void k() { /* tiled */ }\n")
    stage1.profile(ws, 1)
    assert runs == [0, 1]
    stage1.profile(ws, 2)  # nothing changed since v1: v1's profile serves
    assert runs == [0, 1]


def test_a_folder_that_already_holds_files_is_not_mixed_with_a_copy(ws_root: Path, runs: list[int]) -> None:
    # The profiler refuses a non-empty profiles/v<N>/ (staging); a reuse copy must not silently merge the
    # old files (a stale SASS of another kernel) with the copied profile either.
    ws = make_ws(ws_root)
    stage1 = StageOneProfiler()
    stage1.profile(ws, 0)
    ws.profile_dir(1).mkdir(parents=True)
    (ws.profile_dir(1) / "other_kernel.sass").write_text("stale\n")
    stage1.profile(ws, 1)
    assert runs == [0, 1]  # handed to the profiler, which decides (the real one raises WorkspaceError)


def test_masked_version_or_new_compiler_means_profiling_again(
    ws_root: Path, runs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_ws(ws_root)
    StageOneProfiler().profile(ws, 0)
    ws.memory.create(0)
    ws.memory.set_masked(0, True)  # a masked record is not active data: neither is its profile
    StageOneProfiler().profile(ws, 1)
    assert runs == [0, 1]

    import kernelopt.profiling.reuse as reuse

    monkeypatch.setattr(reuse, "_tool_versions", lambda: {"triton": "9.9.9", "torch": None})
    StageOneProfiler().profile(ws, 2)  # v1's stamp names the installed Triton: an upgrade profiles again
    assert runs == [0, 1, 2]
