"""``kernelopt batch --ray local`` on a local Ray instance, CPU problems (no GPU asked per task):
a correct problem, a crashing one, a worker killed mid-job once (retried, passes) and one killed every
time (retried once, then recorded failed). Skipped when Ray is not installed (``kernelopt[ray]``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kernelopt
from kernelopt.batch.model import BatchTable, ProblemStatus
from kernelopt.batch.runner import BatchEvent, BatchOptions, EventKind

from .conftest import DATA

SRC = str(Path(kernelopt.__file__).resolve().parents[1])
CPU_ENV = {
    "KERNELOPT_DEVICE": "cpu",
    "KERNELOPT_BENCH_S": "0.05",
    "KERNELOPT_SEEDS": "1",
    "TEST_TIMEOUT_SEC": "5",
}

pytestmark = pytest.mark.timeout(400)


@pytest.fixture(scope="module")
def ray_batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BatchTable, list[BatchEvent]]:
    ray = pytest.importorskip("ray")
    from kernelopt.batch.ray_runner import run_batch_on_ray
    from kernelopt.errors import EnvironmentProblem

    root = tmp_path_factory.mktemp("ray")
    problems = root / "problems"
    for name in ("relu", "crashing"):
        shutil.copytree(DATA / "kernelbench" / name, problems / name)
    for name in ("killed_once", "killed_always"):
        shutil.copytree(DATA / "kernelbench_ray" / name, problems / name)
    mp = pytest.MonkeyPatch()
    for k, v in {**CPU_ENV, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}.items():
        mp.setenv(k, v)
    events: list[BatchEvent] = []
    try:
        ray.init(include_dashboard=False, log_to_driver=False)  # the batch below joins this instance
        if not ray.cluster_resources().get("GPU"):
            # No GPU here: asking one per problem is refused before anything is submitted.
            try:
                run_batch_on_ray(problems, BatchOptions(out_dir=root / "gpu_out"), address="local")
            except EnvironmentProblem as exc:
                (root / "no_gpu_error.txt").write_text(exc.one_line())
        opts = BatchOptions(out_dir=root / "out", device="cpu", problem_timeout_s=200)
        table = run_batch_on_ray(problems, opts, address="local", on_event=events.append)
    finally:
        ray.shutdown()
        mp.undo()
    return root, table, events


def test_rows_gathered_from_ray_tasks(ray_batch: tuple[Path, BatchTable, list[BatchEvent]]) -> None:
    root, table, events = ray_batch
    rows = {r.problem: r for r in table.rows}
    assert [r.problem for r in table.rows] == ["crashing", "killed_always", "killed_once", "relu"]
    relu = rows["relu"]
    assert relu.status is ProblemStatus.PASS and relu.correct and relu.speedup_vs_eager is not None
    assert relu.attempts == 1 and relu.host  # where it ran
    assert Path(relu.workspace or "").parent == root / "out" / "workspaces"  # as a local batch leaves it
    assert rows["crashing"].status is ProblemStatus.FAIL and "SIGSEGV" in (rows["crashing"].reason or "")
    once = rows["killed_once"]
    assert once.status is ProblemStatus.PASS and once.attempts == 2, once.reason
    always = rows["killed_always"]
    assert always.status is ProblemStatus.ERROR and always.attempts == 2
    assert "the Ray worker died 2 time(s), retried 1x" in (always.reason or "")
    assert [e.kind for e in events].count(EventKind.DONE) == 4  # progress streamed as tasks finished
    assert BatchTable.model_validate_json((root / "out" / "batch.json").read_text()).rows == table.rows


def test_without_ray_the_flag_is_one_line_error(tmp_path: Path) -> None:
    env = {**os.environ, **CPU_ENV, "PYTHONPATH": SRC}
    blocker = tmp_path / "noray"
    blocker.mkdir()
    (blocker / "ray.py").write_text("raise ImportError('ray is not installed (test)')\n")
    env["PYTHONPATH"] = str(blocker) + os.pathsep + SRC
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernelopt",
            "batch",
            str(DATA / "kernelbench"),
            "--ray",
            "local",
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    assert (
        proc.stderr.strip() == "kernelopt: error: --ray needs Ray, which is not installed; pip install 'kernelopt[ray]'"
    )


def test_a_cluster_without_gpus_is_one_line_error_unless_cpu(
    ray_batch: tuple[Path, BatchTable, list[BatchEvent]],
) -> None:
    root = ray_batch[0]
    if not (root / "no_gpu_error.txt").exists() and not (root / "gpu_out").exists():
        pytest.skip("this machine's Ray instance has a GPU")
    error = (root / "no_gpu_error.txt").read_text()
    assert error == (
        "the Ray cluster at 'local' has no GPU, so no problem could start; pass --device cpu to run the problems on CPUs"
    )
