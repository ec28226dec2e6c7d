"""``kernelopt batch LEVEL_DIR --kernels RUN_DIR``: KernelBench's own layout. Problems pair with their
generated samples by id, one row per problem and sample (a problem without a sample, a sample without a
problem and a file that cannot run each get their own row with a one-line reason), in the table, JSON
and CSV, and the batch resumes. Runs on a small synthetic level folder and runs folder in KernelBench's
naming (tests/data/kernelbench_layout), on the CPU."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kernelopt
from kernelopt.batch.kernelbench import (
    FOLDER_NAME_CHARS,
    folder_name,
    kernelbench_items,
    level_of,
    problem_files,
    sample_files,
    sample_name,
)
from kernelopt.batch.rows import BatchOptions
from kernelopt.batch.runner import run_batch
from kernelopt.errors import InputFileError, UsageError

from .conftest import DATA, timed_or_withheld

LAYOUT = DATA / "kernelbench_layout"
SRC = str(Path(kernelopt.__file__).resolve().parents[1])
CPU_ENV = {
    "KERNELOPT_DEVICE": "cpu",
    "KERNELOPT_BENCH_S": "0.05",
    "KERNELOPT_SEEDS": "1",
    "TEST_TIMEOUT_SEC": "5",
}
EXPECTED = {  # key -> (status, the reason's telling words)
    "1_ReLU sample 0": ("PASS", None),
    "1_ReLU sample 1": ("FAIL", "differs from the reference"),
    "2_Sigmoid sample 0": ("INVALID", "level_1_problem_2_sample_0_kernel.py: defines no class ModelNew"),
    "2_Sigmoid sample 1": ("FAIL", "No module named 'torch.kernelopt_no_such_submodule'"),
    "3_Sum_reduction_over_a_dimension sample 0": (
        "INVALID",
        "level_1_problem_3_sample_0_kernel.py imports kernelopt_test_missing_extension_pkg, which is not installed",
    ),
    "3_Sum_reduction_over_a_dimension sample 1": ("FAIL", "SIGSEGV"),
    "3_Sum_reduction_over_a_dimension sample 2": ("PASS", None),
    "4_Tanh": ("INVALID", "no generated kernel: runs/ has no level_1_problem_4_sample_<k>_kernel.py"),
    "problem_9 sample 0": ("INVALID", "level1/ has no problem 9"),
}

pytestmark = pytest.mark.timeout(300)


def test_files_pair_by_problem_id(tmp_path: Path) -> None:
    assert level_of(LAYOUT / "level1") == 1 and level_of(tmp_path / "level_3") == 3 and level_of(tmp_path) is None
    assert [p.name for p in problem_files(LAYOUT / "level1").values()] == [
        "1_ReLU.py",
        "2_Sigmoid.py",
        "3_Sum_reduction_over_a_dimension.py",
        "4_Tanh.py",
    ]
    samples = sample_files(LAYOUT / "runs", 1)
    assert {pid: sorted(s) for pid, s in samples.items()} == {1: [0, 1], 2: [0, 1], 3: [0, 1, 2], 9: [0]}
    assert sample_name(1, 19, 0) == "level_1_problem_19_sample_0_kernel.py"  # generate_samples.py's name
    assert sample_files(LAYOUT / "runs", 2) == {1: {0: (LAYOUT / "runs" / sample_name(2, 1, 0)).resolve()}}
    items = kernelbench_items(LAYOUT / "level1", LAYOUT / "runs", tmp_path)
    assert [i.key for i in items] == list(EXPECTED)
    runnable = [i for i in items if i.defect is None]
    for item in runnable:  # a problem folder made of the two files, byte for byte
        assert item.folder.parent == (tmp_path / "kernelbench" / "level1").resolve()
        assert (item.folder / "kernel.py").read_bytes() == (
            LAYOUT / "runs" / sample_name(1, item.problem_id or 0, item.sample or 0)
        ).read_bytes()
    assert [i.folder.name for i in runnable] == [
        "1_s0_ReLU",
        "1_s1_ReLU",
        "2_s1_Sigmoid",
        "3_s1_Sum_reduction_over_a_dimension",
        "3_s2_Sum_reduction_over_a_dimension",
    ]
    long = folder_name(Path("42_" + "Conv3d_GELU_" * 10 + ".py"), 7)
    assert long.startswith("42_s7_Conv3d_GELU") and len(long) <= FOLDER_NAME_CHARS


def test_a_layout_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot tell the KernelBench level"):
        kernelbench_items(tmp_path, LAYOUT / "runs", tmp_path / "out")
    level = tmp_path / "level1"
    level.mkdir()
    with pytest.raises(InputFileError, match="holds no <id>_<Name>.py problem file"):
        problem_files(level)
    shutil.copy(LAYOUT / "level1" / "1_ReLU.py", level / "1_ReLU.py")
    shutil.copy(LAYOUT / "level1" / "2_Sigmoid.py", level / "1_Sigmoid.py")
    with pytest.raises(InputFileError, match="problem 1 is both 1_ReLU.py and 1_Sigmoid.py"):
        problem_files(level)
    with pytest.raises(InputFileError, match="no_runs: no such folder"):
        sample_files(tmp_path / "no_runs", 1)


def _kernelopt(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kernelopt", "batch", *args], capture_output=True, text=True, env=env, timeout=240
    )


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], dict[str, object]]:
    out = tmp_path_factory.mktemp("kb") / "out"
    env = {**os.environ, **CPU_ENV, "PYTHONPATH": SRC}
    level, runs = str(LAYOUT / "level1"), str(LAYOUT / "runs")
    proc = _kernelopt(level, "--kernels", runs, "--out", str(out), "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return out, env, json.loads(proc.stdout)


def test_one_row_per_problem_and_sample(batch: tuple[Path, dict[str, str], dict[str, object]]) -> None:
    out, _, table = batch
    rows = table["rows"]
    assert isinstance(rows, list)
    keys = [r["problem"] if r["sample"] is None else f"{r['problem']} sample {r['sample']}" for r in rows]
    assert keys == list(EXPECTED)
    for row, (status, words) in zip(rows, EXPECTED.values(), strict=True):
        assert row["status"] == status, row
        if words is None:
            assert row["correct"] is True and row["latency_us"] > 0 and row["work_s"] > 0
            # the speedup, or why it is withheld (its interval too wide: a loaded machine), in the row itself
            assert timed_or_withheld(row["speedup_vs_eager"], row["reason"]), row
        else:
            assert words in row["reason"] and "\n" not in row["reason"]
    assert rows[0]["problem_id"] == 1 and rows[0]["sample"] == 0 and rows[7]["sample"] is None
    # fast_p over every row: the passing ones count when faster than the reference
    passed = sum(1 for r in rows if r["correct"] and (r["speedup_vs_eager"] or 0) > 1.0)
    assert table["fast_p"][0]["eager"] == pytest.approx(passed / len(rows))
    lines = list(csv.DictReader((out / "batch.csv").read_text().splitlines()))
    assert [(line["problem"], line["problem_id"], line["sample"]) for line in lines][:2] == [
        ("1_ReLU", "1", "0"),
        ("1_ReLU", "1", "1"),
    ]
    assert lines[7]["sample"] == "" and lines[7]["status"] == "INVALID"
    ws = Path(rows[0]["workspace"])
    assert ws.name == "kernel_opt_1_s0_ReLU" and ws.parent == out / "workspaces"


def test_the_batch_resumes_and_keeps_its_runs_folder(
    batch: tuple[Path, dict[str, str], dict[str, object]], tmp_path: Path
) -> None:
    out, env, table = batch
    level, runs = str(LAYOUT / "level1"), str(LAYOUT / "runs")
    again = _kernelopt(level, "--kernels", runs, "--out", str(out), env={**env, "COLUMNS": "250"})  # no wrapping
    assert again.returncode == 0, again.stderr
    assert any("problem" in line and "sample" in line for line in again.stdout.splitlines())  # the table's column
    assert json.loads((out / "batch.json").read_text())["rows"] == table["rows"]
    other_runs = tmp_path / "other_runs"  # another runs folder, with a kernel of the level
    other_runs.mkdir()
    shutil.copy(LAYOUT / "runs" / sample_name(1, 1, 0), other_runs)
    with pytest.raises(UsageError, match="other settings"):  # the CLI says this in one line, exit 2
        run_batch(LAYOUT / "level1", BatchOptions(out_dir=out, kernels=other_runs))
