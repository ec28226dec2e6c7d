"""``kernelopt report`` end to end on the synthetic workspace of test_report_render."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from tests.test_report_render import PNG_MAGIC, build_report_workspace


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _no_measured_ceilings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI asks the harness cache; tests pin it to 'no measurement' so no machine state leaks in."""
    import kernelopt.report.reader as reader

    monkeypatch.setattr(reader, "cached_measured_ceilings", lambda spec, names: (None, "no cached measurement"))


def test_report_prints_markdown_by_default(ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = build_report_workspace(ws_root)
    code, out, err = run(capsys, "report", str(ws.root))
    assert code == 0, err
    assert out.startswith("# kernelopt report: softmax") and "## Version timeline" in out
    assert "Measured ceilings: no cached measurement" in out


def test_report_by_name_under_root(ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_report_workspace(ws_root)
    code, out, _ = run(capsys, "report", "softmax", "--root", str(ws_root))
    assert code == 0 and "## Failed attempts" in out


def test_report_takes_the_workspace_as_memory_does(ws_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = build_report_workspace(ws_root)
    code, out, err = run(capsys, "report", "--workspace", str(ws.root))
    assert code == 0 and out.startswith("# kernelopt report: softmax"), err
    code, out, _ = run(capsys, "report", "-w", "softmax", "--root", str(ws_root))
    assert code == 0 and "## Version timeline" in out
    code, _, err = run(capsys, "report")
    assert code == 2 and "no workspace given" in err and "kernelopt report WS (or --workspace WS)" in err
    code, _, err = run(capsys, "report", str(ws.root), "--workspace", str(ws_root / "other"))
    assert code == 2 and "two workspaces given" in err


def test_report_writes_html_and_markdown_with_plot(
    ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = build_report_workspace(ws_root)
    html, md = tmp_path / "out" / "report.html", tmp_path / "out" / "report.md"
    code, out, err = run(capsys, "report", str(ws.root), "--html", str(html), "--markdown", str(md))
    assert code == 0, err
    assert "wrote html" in out and "wrote markdown" in out
    png = tmp_path / "out" / "report.roofline.png"
    assert png.read_bytes().startswith(PNG_MAGIC)
    assert "![Roofline and latency per version](report.roofline.png)" in md.read_text()
    assert "data:image/png;base64," in html.read_text()
    assert oct(html.stat().st_mode & 0o777) == "0o644"
    # nothing is written into the workspace, and its tracked files are untouched
    assert ws.is_clean()
    assert not list(ws.root.glob("*.html"))


def test_report_json(ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = build_report_workspace(ws_root)
    code, out, err = run(capsys, "report", str(ws.root), "--json", "--html", str(tmp_path / "r.html"))
    assert code == 0, err
    doc = json.loads(out)
    assert doc["written"] == {"html": str(tmp_path / "r.html")}
    versions = doc["report"]["versions"]
    assert [v["record"]["version"] for v in versions] == ["v0", "v1", "v2", "v3", "v4"]
    assert versions[3]["record"]["performance"]["tflops"] is None
    assert doc["report"]["gpu_spec"] == "NVIDIA H200 SXM"


def test_report_unknown_workspace_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "report", str(tmp_path / "nope"), "--root", str(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("kernelopt: error: ") and err.count("\n") == 1 and "no such workspace" in err
    # a path is not also looked up as a name (no '<root>/kernel_opt_/abs/path')
    assert "kernel_opt_" not in err
    code, _, err = run(capsys, "report", "nope", "--root", str(tmp_path))
    assert code == 2 and f"looked for nope and {tmp_path}/kernel_opt_nope" in err


def test_reports_without_matplotlib_say_so(
    ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    ws = build_report_workspace(ws_root)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    code, _, err = run(capsys, "report", str(ws.root), "--html", str(html), "--markdown", str(md))
    assert code == 0, err
    assert "No plot: matplotlib is not installed" in html.read_text()
    assert "No plot: matplotlib is not installed" in md.read_text()
    assert not (tmp_path / "r.roofline.png").exists()
