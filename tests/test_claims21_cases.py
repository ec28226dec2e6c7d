"""claims21: one speedup figure said the same in every output, walls and tables (docs/faults.md, "claims21").

Each case is a fault a new user met (newuser18's seen lines), replayed on the CPU with real files and the real
commands."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest


def test_w5_every_report_format_says_the_one_interleaved_speedup_against_the_previous_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README demo's V1: the timeline's `vs previous` said -97.8 % (the ratio of the interleaved run's two
    medians, 46x) and the CSV's `speedup_vs_previous` 119x, interval 80.5-119 (the median of the ABBA blocks'
    ratios), each outside the other. Now the gate's record derives every change from the one figure, and every
    report format says that figure with its interval: Markdown, HTML, CSV and JSON of one workspace agree, a record
    written before the fix (its delta the medians' ratio) included."""
    from kernelopt.cli.app import main
    from kernelopt.harness.gate import _performance
    from kernelopt.harness.model import BenchReport
    from kernelopt.memory.model import CorrectnessStatus
    from tests.test_late23_cases import interleaved_case
    from tests.test_report_render import build_report_workspace

    # a loaded CPU: the blocks' load differs, so the medians' ratio (60x) is not the blocks' median ratio (75x)
    prev = [100.0, 100.0] * 3 + [200.0, 200.0] * 3
    cur = [1.0, 1.0] * 3 + [4.0, 4.0] * 3
    case = interleaved_case(prev, cur)
    assert case.previous is not None and case.previous.median / case.current.median == pytest.approx(60.0)
    bench = BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case])
    c = _performance(bench, case, None, None, None, None, []).comparison_with_previous
    assert c.speedup == pytest.approx(75.0) and c.latency_delta == pytest.approx(100.0 * (1 / 75.0 - 1))

    ws = build_report_workspace(tmp_path / "ws")
    record = ws.memory.read(1)
    record.performance.comparison_with_previous = c
    ws.memory.write(record)
    record = ws.memory.read(3)  # an earlier gate's record: its delta the medians' ratio, beside the blocks' speedup
    old = record.performance.comparison_with_previous
    record.performance.comparison_with_previous = old.model_copy(update={"latency_delta": -50.0})
    ws.memory.write(record)
    html, md, table = tmp_path / "r.html", tmp_path / "r.md", tmp_path / "r.csv"
    assert main(["report", str(ws.root), "--html", str(html), "--markdown", str(md), "--csv", str(table)]) == 0
    capsys.readouterr()
    assert main(["report", str(ws.root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["report"]
    rows = {r["version"]: r for r in csv.DictReader(table.open(newline=""))}
    markdown, page = md.read_text(), html.read_text()
    for label, n in (("V1", 1), ("V3", 3)):
        said = next(v for v in data["versions"] if v["record"]["version"] == f"v{n}")["record"]["performance"]
        cmp = said["comparison_with_previous"]
        s, lo, hi = cmp["speedup"], cmp["speedup_ci_low"], cmp["speedup_ci_high"]
        assert (float(rows[label]["speedup_vs_previous"]), float(rows[label]["speedup_vs_previous_ci_low"])) == (s, lo)
        assert float(rows[label]["speedup_vs_previous_ci_high"]) == hi
        cell = (
            next(
                line
                for line in markdown.split("## Version timeline", 1)[1].splitlines()
                if line.startswith(f"| {label} ")
            )
            .split("|")[4]
            .strip()
        )
        shown = re.fullmatch(r"([\d.]+)x \(95 % CI ([\d.]+)-([\d.]+)x\)", cell)
        assert shown is not None, cell
        assert [float(x) for x in shown.groups()] == pytest.approx([s, lo, hi], rel=5e-3)
        assert f'<td class="num">{cell}</td>' in page or f">{cell}<" in page, cell
        # the result line's latency change is the same figure's, never the medians' ratio
        line = next(x for x in markdown.split(f"### {label}", 1)[1].splitlines() if "Against the previous" in x)
        assert f"latency {100 * (1 / s - 1):+.1f} %, speedup {cell}" in line, line


def test_w8_tune_lists_the_shapes_entries_in_reference_py_s_order_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Triton scale whose reference.py lists `SHAPES = [{"n": 4096}, {"n": 1000}]`, tuned on the CPU: `tune`
    said "timed on 2 shapes ...: n=1000; n=4096", and its per-shape table, `--json`'s `shapes` and `per_shape` and
    candidates.csv's columns said n=1000 first (the interpreter times the smallest entry first, and each output
    listed the session's order). Now each keeps the user's order."""
    import shutil

    from kernelopt.cli.app import main

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "claims21" / "order", tmp_path / "order"))
    argv = ["tune", str(folder), "--device", "cpu", "--budget", "1", "--repetitions", "2", "--dry-run", "--json"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    said = json.loads(out)
    assert "timed on 2 shapes, each candidate checked on every one: n=4096; n=1000" in err, err
    assert said["shapes"] == ["n=4096", "n=1000"] and [s["shape"] for s in said["per_shape"]] == said["shapes"]
    head = Path(said["table"]).read_text().splitlines()[0].split(",")
    assert head[3:6] == ["latency_us", "latency_us n=4096", "latency_us n=1000"], head


def test_w6_a_run_past_its_wall_says_how_far_and_where_the_seconds_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`tune at --device cpu --budget-wall-s 20` took 30.6 s of wall, and nothing said so: its progress said "4 of
    10 candidates" and its summary "3 evaluated". Now a progress line past the wall says how far, and the run ends
    with where its wall went (before the session, the session, the pick's checks, after them), `--json`'s `run_wall`
    the same figures. A scripted evaluator whose one round takes 2.5 s stands in for a slow candidate against a 1 s
    wall (the figures are read as sums, never against a clock)."""
    import shutil
    import time

    import kernelopt.tuning.folder as folder_module
    from kernelopt.cli.app import main
    from kernelopt.tuning.budget import Budget
    from tests.test_tune_edges import Stopwatch

    class Slow(Stopwatch):
        def evaluate(self, batch: Any) -> Any:
            time.sleep(2.5)  # the scripted slow candidate: a round in flight when the wall runs out
            return super().evaluate(batch)

    monkeypatch.setattr(Slow, "asked", [])
    monkeypatch.setattr(Slow, "retimed", [])
    monkeypatch.setattr(folder_module, "ShapesEvaluator", Slow)
    monkeypatch.setattr(folder_module, "KernelEvaluator", Slow)
    # the wall counts what came before the session (late49's l191): held at nothing here, so the scripted round runs
    # under this CPU's load whatever its discovery took, and the line still counts it in the wall
    monkeypatch.setattr(Budget, "count_before", lambda self, seconds: setattr(self, "before_s", 0.0))
    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "claims21" / "order", tmp_path / "order"))
    assert main(["tune", str(folder), "--device", "cpu", "--budget-wall-s", "1", "--dry-run", "--json"]) in (0, 1, 3)
    out, err = capsys.readouterr()
    wall = json.loads(out)["run_wall"]
    assert wall["stated_s"] == 1.0 and wall["session_s"] >= 2.5, wall
    total = wall["before_s"] + wall["session_s"] + wall["checks_s"] + wall["after_s"]
    said = " ".join(err.split())
    assert re.search(r"\d+ s in of its 1 s wall, \d+ s past it \(the round in flight\)", said)
    line = next(x for x in err.splitlines() if x.startswith("the run took"))
    assert line.startswith(f"the run took {total:.1f} s against its 1 s wall, {total - 1:.1f} s past it: "), line
    past = wall["before_s"] + wall["session_s"] - 1  # the session's wall is what the stated one left
    assert f"the session {wall['session_s']:.1f} s ({past:.1f} s past its wall: the round in" in line
