"""The HTML/Markdown report states the run's stop reason, and the latency axis fits the points drawn."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.report.roofline import RooflinePoint, _latency_axes, latency_axis_top

from .loop_fakes import DATA, make_fakes

pytestmark = pytest.mark.timeout(120)


def _pt(v: str, lat: float | None, *, failed: bool = False) -> RooflinePoint:
    return RooflinePoint(version=v, latency_us=lat, tflops=None, bandwidth_gbps=None, intensity=None, failed=failed)


POINTS = [_pt("V0", 100.0), _pt("V1", 5000.0, failed=True), _pt("V2", 80.0), _pt("V3", None, failed=True)]


def test_axis_fits_the_passing_versions_not_a_far_failure() -> None:
    assert latency_axis_top(POINTS, []) == pytest.approx(110.0)
    near = [_pt("V0", 100.0), _pt("V1", 130.0, failed=True)]
    assert latency_axis_top(near, []) == pytest.approx(143.0)  # a near failure stays on scale


def test_far_failure_is_drawn_at_the_edge_with_its_value() -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    _latency_axes(ax, POINTS, [])
    assert ax.get_ylim() == pytest.approx((0.0, 110.0))
    texts = [t.get_text() for t in ax.texts]
    assert "5,000 us (off scale)" in texts and "no timing" in texts


def test_report_states_why_the_run_stopped(ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    assert main(["report", str(ws.root)]) == 0
    assert "Run stopped: not recorded" in capsys.readouterr().out
    OptimizeLoop(ws, make_fakes().collaborators(), LoopRequest(max_iterations=2)).run()
    assert main(["report", str(ws.root)]) == 0
    md = capsys.readouterr().out
    assert "Run stopped: max_iterations: 2 iteration(s) run, limit 2" in md
    assert "Stop conditions in README.md: 90.0 % of the roofline bound" in md
    # issue 13: the costs of the run, from the loop's saved state (V0 and two versions: three profiles)
    assert "Wall time per stage: baseline_gate " in md and "; 3 profile(s) taken" in md
    html = tmp_path / "r.html"
    assert main(["report", str(ws.root), "--html", str(html)]) == 0
    assert "Run stopped: max_iterations: 2 iteration(s) run, limit 2" in html.read_text()
