"""The gate end to end on the CPU: validate() writes the record, compares ABBA with the previous commit,
fails regressions and severe ISA regressions, leaves kernel.py alone; `kernelopt validate` exit codes and
--json; the workspace's test_kernel.py; ceilings cache.

The scenarios are independent workspaces run together from a thread pool (each starts worker processes).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import kernelopt
from kernelopt.actions import ActionCategory
from kernelopt.errors import EnvironmentProblem
from kernelopt.harness.gate import GateReport, validate
from kernelopt.memory.model import CorrectnessStatus, GateResult, IterationRecord
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace

from .conftest import DATA, KERNELS

ADV = DATA / "harness"
SRC = str(Path(kernelopt.__file__).resolve().parents[1])

pytestmark = pytest.mark.timeout(180)


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.update({"KERNELOPT_DEVICE": "cpu", "KERNELOPT_BENCH_S": "0.1"}, **extra)
    return env


def _ws(root: Path, name: str, kernel: Path, *, card: Path | None = None) -> Workspace:
    return Workspace.create(name, kernel=kernel, reference=KERNELS / "add_reference.py", root=root, task_card=card)


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _plan(version: int, *, enabling: bool) -> Plan:
    return Plan(
        version=version,
        bottleneck_type="memory_bound",
        action_category=ActionCategory.FUSION,
        action="restructure the loop (test)",
        expected_impact="slower now, enables fusion later",
        risks_and_rollback="revert kernel.py",
        enabling_step=enabling,
    )


# -- scenarios: workspaces are made one by one (GitPython's index.add changes the working directory,
# so it is not thread-safe), then the validations run together ---------------------------------------


def scenario_baseline_cli(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _ws(root, "base", KERNELS / "add_kernel.py", card=ADV / "task_card.md")
    shutil.copytree(ADV / "profiles" / "spills", ws.profile_dir(0))
    before = _sha(ws.kernel_py)

    def run() -> dict[str, Any]:
        proc = _main_here(["validate", str(ws.root), "--json"])
        return {"ws": ws, "proc": proc, "kernel_unchanged": _sha(ws.kernel_py) == before}

    return run


def _cmp_workspace(root: Path, name: str) -> Workspace:
    # V0 = slow_add committed at init; its record carries the commit hash
    ws = _ws(root, name, ADV / "slow_add.py", card=ADV / "task_card.md")
    ws.memory.create(0)
    ws.memory.update(0, [f"git_commit_hash={ws.head()}", "quality_gate.result=PASS"])
    shutil.copytree(ADV / "profiles" / "no_spills", ws.profile_dir(0))
    return ws


def scenario_isa_regression(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _cmp_workspace(root, "isa")

    def run() -> dict[str, Any]:
        # V1: faster, but the Stage 1 evidence shows new spills -> severe ISA regression
        shutil.copyfile(KERNELS / "add_kernel.py", ws.kernel_py)
        shutil.copytree(ADV / "profiles" / "spills", ws.profile_dir(1))
        return {"ws": ws, "v1": validate(ws, 1, previous=0, device="cpu")}

    return run


def scenario_regression(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _cmp_workspace(root, "slow")

    def run() -> dict[str, Any]:
        shutil.copyfile(ADV / "slower_add.py", ws.kernel_py)
        # V2: much slower -> significant regression; V3: the same change declared an enabling step
        v2 = validate(ws, 2, previous=0, device="cpu", plan=_plan(2, enabling=False))
        v3 = validate(ws, 3, previous=0, device="cpu", plan=_plan(3, enabling=True))
        return {"ws": ws, "v2": v2, "v3": v3}

    return run


def scenario_committed_record_cli(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _cmp_workspace(root, "committed")
    ws.commit(["memory/v0.json"], "V0: baseline (test)")
    before = ws.memory.path(0).read_bytes()

    def run() -> dict[str, Any]:
        # in this process (its exit code and files are what the test reads; the other CLI scenarios start
        # `python -m kernelopt`): the run's workers fork from this process's server
        from kernelopt.cli.app import main

        code = main(["validate", str(ws.root), "--version", "0", "--json"])
        return {"ws": ws, "code": code, "before": before}

    return run


def _main_here(args: list[str], **extra: str) -> subprocess.CompletedProcess[str]:
    """``kernelopt ARGS`` through the CLI's ``main`` in this process, its exit code and output as a child's
    (the code ``python -m kernelopt`` exits with is what ``main`` returns: test_batch's module fixture runs
    ``python -m kernelopt validate --json`` as real processes, a child a problem, and reads their exit codes and
    JSON). Runs after the thread pool, alone: it sets the process's variables and streams. Its gate's workers fork
    from this process's fork server instead of a child's own (torch imported again: suite25 s42)."""
    from kernelopt.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        for name, value in extra.items():
            mp.setenv(name, value)
        code = main(args)
    return subprocess.CompletedProcess(["kernelopt", *args], code, out.getvalue(), err.getvalue())


def scenario_fail_cli(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _ws(root, "nan", ADV / "nan.py")
    return lambda: {"ws": ws, "proc": _main_here(["validate", str(ws.root), "--json"])}


def scenario_timeout_cli(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _ws(root, "hang", ADV / "hang.py")
    return lambda: {"ws": ws, "proc": _main_here(["validate", str(ws.root)], TEST_TIMEOUT_SEC="1")}


def scenario_tamper(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _ws(root, "tamper", ADV / "writes_kernel_file.py")
    return lambda: {"ws": ws, "report": validate(ws, 0, previous=None, device="cpu")}


def scenario_test_kernel_py(root: Path) -> Callable[[], dict[str, Any]]:
    ws = _ws(root, "entry", KERNELS / "add_kernel.py")
    out = root / "entry.json"

    def run() -> dict[str, Any]:
        proc = subprocess.run(
            [sys.executable, "test_kernel.py", "--bench", "--case", "0", "--json", str(out)],
            cwd=ws.root,
            capture_output=True,
            text=True,
            env=_env(),
            timeout=150,
        )
        return {"ws": ws, "proc": proc, "json": json.loads(out.read_text()) if out.is_file() else None}

    return run


def scenario_ceilings_without_gpu(root: Path) -> Callable[[], dict[str, Any]]:
    from kernelopt.harness.ceilings import measure_ceilings

    def run() -> dict[str, Any]:
        try:
            measure_ceilings(0)
        except EnvironmentProblem as exc:
            return {"error": exc.one_line()}
        return {"error": None}

    return run


def scenario_orchestrator_never_imports_torch(root: Path) -> Callable[[], dict[str, Any]]:
    code = (
        "import sys; from pathlib import Path\n"
        "from kernelopt.harness.gate import check_files\n"
        "from kernelopt.harness.settings import HarnessSettings\n"
        f"r = check_files(Path({str(KERNELS / 'add_kernel.py')!r}), Path({str(KERNELS / 'add_reference.py')!r}), "
        f"Path({str(root / 'state')!r}), settings=HarnessSettings(device='cpu', seeds=1))\n"
        "print(r.status.value, sorted(m for m in ('torch', 'triton', 'numpy') if m in sys.modules))\n"
    )

    def run() -> dict[str, Any]:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=150)
        return {"proc": proc}

    return run


SCENARIOS: dict[str, Callable[[Path], Callable[[], dict[str, Any]]]] = {
    "orchestrator": scenario_orchestrator_never_imports_torch,
    "isa_regression": scenario_isa_regression,
    "regression": scenario_regression,
    "committed_cli": scenario_committed_record_cli,
    "tamper": scenario_tamper,
    "test_kernel_py": scenario_test_kernel_py,
    "ceilings_without_gpu": scenario_ceilings_without_gpu,
}
IN_PROCESS: dict[str, Callable[[Path], Callable[[], dict[str, Any]]]] = {
    "baseline_cli": scenario_baseline_cli,
    "fail_cli": scenario_fail_cli,
    "timeout_cli": scenario_timeout_cli,
}
"""Scenarios of the CLI's exit codes and output run in this process, one after another once the pool is done."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))  # no test reads or writes the user's git config or caches
        mp.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
        mp.setenv("GIT_CONFIG_NOSYSTEM", "1")
        mp.setenv("KERNELOPT_CACHE_DIR", str(home / "cache"))
        mp.setenv("KERNELOPT_BENCH_S", "0.1")
        mp.setenv("KERNELOPT_DEVICE", "cpu")  # as _env gives the CLI's subprocesses
        prepared = {name: make(tmp_path_factory.mktemp(name)) for name, make in SCENARIOS.items()}
        here = {name: make(tmp_path_factory.mktemp(name)) for name, make in IN_PROCESS.items()}
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = {name: pool.submit(run) for name, run in prepared.items()}
            done = {name: f.result() for name, f in futures.items()}
        yield {**done, **{name: run() for name, run in here.items()}}


# -- baseline through the CLI ----------------------------------------------------------------------


def _scratch(ws: Workspace, n: int) -> IterationRecord:
    """The record stand-alone validate wrote aside; memory/ itself stays untouched and git clean."""
    assert not ws.memory.exists(n) and ws.memory.versions() == []
    assert ws.repo.git.status("--porcelain", "--", "memory", "kernel.py", "README.md") == ""
    return IterationRecord.model_validate_json((ws.state_dir / "validate" / f"v{n}.json").read_text())


def test_cli_validate_baseline_passes_and_writes_the_record_aside(runs: dict[str, dict[str, Any]]) -> None:
    r = runs["baseline_cli"]
    proc, ws = r["proc"], r["ws"]
    assert proc.returncode == 0, proc.stderr
    report = GateReport.model_validate(json.loads(proc.stdout))
    assert report.result is GateResult.PASS and report.failure_reason is None
    assert report.version == 0 and report.previous is None
    assert report.latency_us is not None and report.latency_us > 0
    assert r["kernel_unchanged"]
    assert report.record_path == str(ws.state_dir / "validate" / "v0.json")
    rec = _scratch(ws, 0)
    assert rec.quality_gate.result is GateResult.PASS
    assert rec.correctness.status is CorrectnessStatus.PASS and rec.correctness.rel_err is not None
    p = rec.performance
    assert p.latency_us == report.latency_us and set(p.latency_us_by_shape) == {"n=4096", "n=1000"}
    assert p.latency_ci_low_us <= p.latency_us <= p.latency_ci_high_us  # type: ignore[operator]
    # flops() and bytes_moved() of the reference give the achieved rates; a CPU has no spec peak
    assert p.tflops is not None and p.bandwidth_gbps is not None
    assert p.bandwidth_gbps == pytest.approx(3 * 4096 * 4 / (p.latency_us * 1e-6) / 1e9)  # type: ignore[operator]
    assert p.roofline_utilization_pct is None and p.gpu == "cpu"
    assert p.timing_method and p.timing_method.startswith("cpu_perf_counter")
    # ISA targets from the task card, against profiles/v0/summary.json
    progress = {m.metric: m for m in rec.isa_metric_progress}
    assert progress["spills"].current == 4 and progress["spills"].met is False
    assert progress["global_load_bits"].current == 128 and progress["global_load_bits"].met is True
    # the raw samples are kept outside git
    raw = json.loads((ws.state_dir / "gate" / "v0" / "timing.json").read_text())
    assert len(raw["timings"][0]["versions"][0]["samples_us"]) >= 20


# -- comparisons with the previous version -----------------------------------------------------------


def test_improvement_with_new_spills_fails_as_severe_isa_regression(runs: dict[str, dict[str, Any]]) -> None:
    v1: GateReport = runs["isa_regression"]["v1"]
    assert v1.result is GateResult.FAIL
    assert (
        v1.failure_reason
        == "severe ISA regression: new register spills: 4 spill instructions where the previous version had none"
    )
    cmp = v1.record.performance.comparison_with_previous
    assert cmp.verdict == "improvement" and cmp.speedup is not None and cmp.speedup > 2
    assert cmp.speedup_ci_low is not None and cmp.speedup_ci_low > 1.02
    assert cmp.latency_delta is not None and cmp.latency_delta < -50
    assert v1.previous == 0 and v1.speedup_vs_previous == cmp.speedup
    assert v1.bench is not None and v1.bench.cases[0].previous is not None  # previous timed in the same sitting


def test_significant_regression_fails_unless_enabling_step(runs: dict[str, dict[str, Any]]) -> None:
    v2: GateReport = runs["regression"]["v2"]
    assert v2.result is GateResult.FAIL
    assert v2.failure_reason is not None and v2.failure_reason.startswith("significant performance regression")
    assert v2.record.performance.comparison_with_previous.verdict == "regression"
    v3: GateReport = runs["regression"]["v3"]
    assert v3.result is GateResult.PASS and any("enabling step" in n for n in v3.notes)
    ws: Workspace = runs["regression"]["ws"]
    assert ws.memory.read(2).quality_gate.result is GateResult.FAIL
    assert ws.memory.read(3).quality_gate.result is GateResult.PASS


def test_previous_kernel_comes_from_the_recorded_commit(runs: dict[str, dict[str, Any]]) -> None:
    ws: Workspace = runs["isa_regression"]["ws"]
    prev = ws.state_dir / "gate" / "v1" / "previous_v0_kernel.py"
    assert prev.read_text() == (ADV / "slow_add.py").read_text()
    # validation never edits kernel.py, and writes only memory/ among tracked paths
    assert ws.kernel_py.read_text() == (KERNELS / "add_kernel.py").read_text()
    assert ws.is_clean(paths=["reference.py", "test_kernel.py", "README.md"])


def test_cli_validate_never_rewrites_a_committed_record(runs: dict[str, dict[str, Any]]) -> None:
    r = runs["committed_cli"]
    ws = r["ws"]
    assert r["code"] == 0
    assert ws.memory.path(0).read_bytes() == r["before"]
    assert ws.memory.versions() == [0] and ws.repo.git.status("--porcelain", "--", "memory") == ""
    aside = IterationRecord.model_validate_json((ws.state_dir / "validate" / "v0.json").read_text())
    assert aside.quality_gate.result is GateResult.PASS and aside.git_commit_hash == ws.memory.read(0).git_commit_hash


# -- failures through the CLI ------------------------------------------------------------------------


def test_cli_validate_fail_exit_code_and_json(runs: dict[str, dict[str, Any]]) -> None:
    proc, ws = runs["fail_cli"]["proc"], runs["fail_cli"]["ws"]
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    assert data["result"] == "FAIL"
    assert data["failure_reason"].startswith("correctness: case 0 (n=4096): output contains NaN")
    rec = _scratch(ws, 0)
    assert rec.quality_gate.result is GateResult.FAIL and rec.correctness.status is CorrectnessStatus.FAIL
    assert rec.performance.latency_us is None  # no timing of an incorrect kernel


def test_cli_validate_timeout_exit_code(runs: dict[str, dict[str, Any]]) -> None:
    proc, ws = runs["timeout_cli"]["proc"], runs["timeout_cli"]["ws"]
    assert proc.returncode == 124, proc.stderr
    assert "quality gate v0: TIMEOUT_FAIL" in proc.stdout
    rec = _scratch(ws, 0)
    assert rec.quality_gate.result is GateResult.TIMEOUT_FAIL
    assert "TEST_TIMEOUT_SEC" in (rec.quality_gate.failure_reason or "")


def test_a_kernel_that_edits_kernel_py_fails(runs: dict[str, dict[str, Any]]) -> None:
    report: GateReport = runs["tamper"]["report"]
    assert report.result is GateResult.FAIL
    assert report.failure_reason is not None and "changed kernel.py" in report.failure_reason


def test_generated_test_kernel_py(runs: dict[str, dict[str, Any]]) -> None:
    r = runs["test_kernel_py"]
    proc, data = r["proc"], r["json"]
    assert proc.returncode == 0, proc.stderr
    assert "correctness: PASS" in proc.stdout and "timing on cpu" in proc.stdout
    assert data["status"] == "PASS"
    assert [c["label"] for c in data["correctness"]["cases"]] == ["n=4096"]
    assert data["bench"]["ok"] and data["bench"]["cases"][0]["current"]["median"] > 0
    assert not r["ws"].memory.versions()  # test_kernel.py writes no record


def test_measuring_ceilings_without_a_gpu_is_one_environment_error(runs: dict[str, dict[str, Any]]) -> None:
    assert runs["ceilings_without_gpu"]["error"] is not None
    assert "no CUDA GPU" in runs["ceilings_without_gpu"]["error"]


def test_the_orchestrator_never_imports_torch(runs: dict[str, dict[str, Any]]) -> None:
    proc = runs["orchestrator"]["proc"]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "PASS []"  # the check ran (in a worker) and torch never entered this process


# -- ceilings cache (no worker) ------------------------------------------------------------------------


def test_ceilings_cache_per_gpu_and_driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelopt.hardware import ceilings as mod

    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(mod, "current_gpu", lambda device_index=0: ("NVIDIA H200", "580.159.04"))
    assert mod.cached_ceilings() is None
    c = mod.Ceilings(
        gpu_name="NVIDIA H200",
        driver="580.159.04",
        copy_gbps=4250.0,
        matmul_tflops={"bf16": 715.0, "fp32": 51.0},
        measured_at=datetime(2026, 11, 29, tzinfo=UTC),
    )
    path = mod.store_ceilings(c)
    assert path == tmp_path / "ceilings" / "nvidia-h200__580.159.04.json"
    assert mod.cached_ceilings() == c and mod.cached_ceilings("NVIDIA H200") == c
    # another driver on this machine: the old measurement does not count
    monkeypatch.setattr(mod, "current_gpu", lambda device_index=0: ("NVIDIA H200", "590.1"))
    assert mod.cached_ceilings() is None
    # on a machine without that GPU, the newest measurement of that GPU is used
    monkeypatch.setattr(mod, "current_gpu", lambda device_index=0: None)
    assert mod.cached_ceilings("NVIDIA H200") == c and mod.cached_ceilings() is None
    path.write_text("{broken")
    assert mod.cached_ceilings("NVIDIA H200") is None


def test_cli_ceilings_cached_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelopt.cli.app import main

    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path))
    assert main(["ceilings", "--cached", "--json"]) == 3  # nothing cached: one-line environment error
