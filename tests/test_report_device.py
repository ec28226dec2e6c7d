"""The report says where the versions were measured, and says it plainly when that is not the task
card's GPU (a run on the CPU timing path must not appear under an "NVIDIA H200" header)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.report import render_html, render_markdown
from kernelopt.report.reader import collect, same_gpu
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, make_fakes

pytestmark = pytest.mark.timeout(120)


def loop_workspace(ws_root: Path, *, device: str, timing: str) -> Workspace:
    """The CPU loop tests' workspace (task card: gpu H200) after V0 and one iteration timed on ``device``."""
    ws = open_or_create(DATA, name=f"dev-{device.replace(' ', '-')}", root=ws_root).workspace
    fakes = make_fakes()
    fakes.gate.device = device
    fakes.gate.timing_method = timing
    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    return ws


def test_cpu_run_is_not_shown_under_the_task_cards_gpu(ws_root: Path) -> None:
    ws = loop_workspace(ws_root, device="cpu", timing="cpu_perf_counter, 12 launch(es)/sample, 40 samples")
    data = collect(ws, measured=None)
    assert data.card_gpu == "H200" and data.measured_elsewhere
    assert [(d.name, d.timing_methods, d.versions) for d in data.measured_on] == [
        ("cpu", ["cpu_perf_counter"], ["V0", "V1"])
    ]
    md = render_markdown(ws, measured=None)
    header = next(line for line in md.splitlines() if line.startswith("Workspace "))
    assert "task card GPU H200, measured on cpu (CPU timing path, no GPU; cpu_perf_counter; V0, V1)" in header
    assert "GPU NVIDIA H200" not in header and "GPU H200 SXM" not in header
    assert "- Measured on cpu, not on the task card's H200: latencies and rates are the CPU timing path's" in md
    html = render_html(ws, measured=None)
    assert "task card GPU <b>H200</b>" in html and "measured on <b>cpu (CPU timing path, no GPU" in html


def test_run_on_the_task_cards_gpu_keeps_the_plain_header(ws_root: Path) -> None:
    ws = loop_workspace(ws_root, device="NVIDIA H200", timing="cuda_graph, 100 launch(es)/sample, 40 samples")
    data = collect(ws, measured=None)
    assert not data.measured_elsewhere and data.measured_on[0].name == "NVIDIA H200"
    md = render_markdown(ws, measured=None)
    header = next(line for line in md.splitlines() if line.startswith("Workspace "))
    assert f"GPU {data.gpu_spec}," in header and "measured on" not in header
    assert "Measured on" not in md


def test_run_on_another_gpu_names_both(ws_root: Path) -> None:
    ws = loop_workspace(ws_root, device="NVIDIA A100-SXM4-80GB", timing="cuda_events, 1 launch(es)/sample, 40 samples")
    md = render_markdown(ws, measured=None)
    header = next(line for line in md.splitlines() if line.startswith("Workspace "))
    assert "task card GPU H200, measured on NVIDIA A100-SXM4-80GB (cuda_events; V0, V1)" in header
    assert "latencies and rates are that device's" in md


def test_same_gpu_by_spec_sheet_or_name() -> None:
    assert same_gpu("H200", "NVIDIA H200") and same_gpu("nvidia-h200", "NVIDIA H200")
    assert not same_gpu("H200", "cpu") and not same_gpu("H200", "NVIDIA A100-SXM4-80GB")
    assert same_gpu("Some GPU", "some_gpu")  # no spec sheet: the names decide
