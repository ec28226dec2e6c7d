"""benchmarks/kernelbench_identical.py: the identical-kernel runs folder it builds from a level folder (nothing
fetched) and the figures it reads from a batch's rows."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "kernelbench_identical.py"

pytestmark = pytest.mark.timeout(60)

PROBLEM = """import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(16)]


def get_init_inputs():
    return []
"""


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kernelbench_identical", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_runs_folder_holds_each_problem_as_its_own_kernel(bench: ModuleType, tmp_path: Path) -> None:
    level = tmp_path / "level1"
    level.mkdir()
    for name in ("19_ReLU.py", "2_Other.py"):
        (level / name).write_text(PROBLEM, encoding="utf-8")
    (level / "notes.py").write_text("x = 1\n", encoding="utf-8")  # not a problem file: left alone
    number, written = bench.identical_runs(level, tmp_path / "runs")
    assert (number, written) == (1, 2)
    kernel = (tmp_path / "runs" / "level_1_problem_19_sample_0_kernel.py").read_text(encoding="utf-8")
    assert kernel.startswith(PROBLEM) and kernel.endswith("\n\nclass ModelNew(Model):\n    pass\n")
    classes = {n.name: n for n in ast.parse(kernel).body if isinstance(n, ast.ClassDef)}
    bases = [b.id for b in classes["ModelNew"].bases if isinstance(b, ast.Name)]
    assert bases == ["Model"] and "Model" in classes  # a KernelBench kernel that is its reference
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        "level_1_problem_19_sample_0_kernel.py",
        "level_1_problem_2_sample_0_kernel.py",
    ]
    with pytest.raises(SystemExit, match="not named level<N>"):
        bench.identical_runs(tmp_path / "runs", tmp_path / "other")


def _row(problem: str, status: str, **kw: object) -> dict[str, object]:
    return {"problem": problem, "status": status, "correct": status == "PASS", **kw}


def test_the_figures_count_false_failures_errors_and_significant_claims(bench: ModuleType) -> None:
    rows = [
        _row("a", "PASS", speedup_vs_eager=1.3, eager_verdict="improvement", eager_ci_low=1.2, eager_ci_high=1.4,
             reference_latency_us=5.0),
        _row("b", "PASS", speedup_vs_eager=1.01, eager_verdict="no significant change", eager_ci_low=1.005,
             eager_ci_high=1.02, duration_s=4.0, work_s=3.0, reference_latency_us=5.0),
        _row("c", "PASS", speedup_vs_eager=0.99, eager_verdict="no significant change", eager_ci_low=0.9,
             eager_ci_high=1.1, duration_s=6.0, work_s=4.0, reference_latency_us=5.0,
             phases={"start_s": 0.5, "load_s": 0.5, "inputs_s": 2.0, "reference_s": 1.0, "kernel_s": 0.5,
                     "check_s": 0.5, "timing_s": 0.5}),
        _row("d", "PASS", speedup_vs_eager=0.98, eager_verdict="no significant change", eager_ci_low=0.95,
             eager_ci_high=1.01, reference_latency_us=5.0),
        _row("w", "PASS", reference_latency_us=5.0),  # its speedup withheld as too noisy: no claim
        _row("e", "TIMEOUT_FAIL", reason="case 0 ran past the per-case limit"),
        _row("f", "ERROR", reason="the problem's reference failed: ..."),
    ]  # fmt: skip
    f = bench.summarize_rows(rows)
    assert f["by_status"] == {"ERROR": 1, "PASS": 5, "TIMEOUT_FAIL": 1}
    assert f["false_failures"] == [("e", "TIMEOUT_FAIL", "case 0 ran past the per-case limit")]
    assert f["errors"] == [("f", "the problem's reference failed: ...")]
    assert (f["timed"], f["withheld"]) == (5, 1) and f["significant_speedup_rate"] == pytest.approx(0.2)
    assert f["interval_excludes_1_rate"] == pytest.approx(0.4)  # the interval alone would claim b too
    assert f["fast_1"] == pytest.approx(2 / 6) and f["significant_fast_1"] == pytest.approx(1 / 6)  # f apart
    assert f["mean_overhead_s"] == pytest.approx(1.5)
    text = bench.render([("level1", f, 12.0)])
    assert "significant 'speedups' (target <= 5 %)" in text and "20.0 %" in text
    assert "FALSE FAILURE level1 e: TIMEOUT_FAIL" in text and "ERROR level1 f:" in text
    # the seconds per problem by phase (of the rows that have them), and the slowest problems with theirs
    assert f["mean_phase_s"]["inputs_s"] == pytest.approx(2.0) and f["mean_phase_s"]["other_s"] == pytest.approx(0.5)
    assert "build inputs (get_inputs)" in text and "SLOW level1 c: 6.0 s (start 0.5, load 0.5, inputs 2.0" in text


def test_the_figures_count_identical_pairs_timed_with_one_count_of_calls(bench: ModuleType, tmp_path: Path) -> None:
    import json

    def workspace(name: str, kernel: int, reference: int | None) -> str:
        folder = tmp_path / name / ".kernelopt" / "gate" / "v0"
        folder.mkdir(parents=True)
        versions = [{"label": "v0", "launches_per_sample": kernel}]
        versions += [] if reference is None else [{"label": "reference", "launches_per_sample": reference}]
        (folder / "timing.json").write_text(json.dumps({"timings": [{"index": 0, "versions": versions}]}))
        return str(tmp_path / name)

    rows = [
        _row("a", "PASS", workspace=workspace("a", 3, 3)),
        _row("b", "PASS", workspace=workspace("b", 1, 115)),  # level 1 #43 in the second trial
        _row("c", "PASS", workspace=workspace("c", 2, None)),  # the reference not timed: no pair
        _row("d", "FAIL", workspace=str(tmp_path / "missing")),
        _row("e", "ERROR"),
    ]
    assert bench.call_counts(rows) == (1, 2)
    f = bench.summarize_rows(rows) | {"call_counts": bench.call_counts(rows)}
    assert "identical pairs at one count of calls" in bench.render([("level1", f, 1.0)])
    assert "1 of 2" in bench.render([("level1", f, 1.0)])
