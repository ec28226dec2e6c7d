"""benchmarks/sweep_compare.py: knob-space helpers, and a CPU smoke run against a synthetic workspace."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.memory.model import (
    Correctness,
    CorrectnessStatus,
    GateResult,
    IterationRecord,
    Optimization,
    Performance,
    PitfallAndFix,
    QualityGate,
)
from kernelopt.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "sweep_compare.py"
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def sweep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sweep_compare", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sweep_compare"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_space_sizes_and_naive_configs_are_in_the_space(sweep: ModuleType) -> None:
    sizes = {name: len(sweep.enumerate_space(space)) for name, space in sweep.SPACES.items()}
    assert sizes == {"elementwise": 48, "softmax": 144, "layernorm": 168, "matmul": 768}
    for name, space in sweep.SPACES.items():
        found = sweep._launch_literals((EXAMPLES / name / "kernel.py").read_text())
        assert set(space) == set(found)
        assert all(found[k] in values for k, values in space.items())  # the naive start is one of the configs


def test_variant_source_changes_only_the_literals(sweep: ModuleType) -> None:
    source = (EXAMPLES / "matmul" / "kernel.py").read_text()
    new = sweep._splice(source, {"BLOCK_M": 128, "num_stages": 3})
    assert sweep._launch_literals(new) == {**sweep._launch_literals(source), "BLOCK_M": 128, "num_stages": 3}
    changed = [(a, b) for a, b in zip(source.splitlines(), new.splitlines(), strict=True) if a != b]
    assert changed == [
        ("        BLOCK_M=32,", "        BLOCK_M=128,"),
        ("        num_stages=1,", "        num_stages=3,"),
    ]
    assert sweep.variant_source(source, sweep._launch_literals(source)) == source
    with pytest.raises(ValueError):
        sweep._splice(source, {"NOT_A_KNOB": 1})


def test_subsample_keeps_the_naive_config(sweep: ModuleType) -> None:
    configs = sweep.enumerate_space(sweep.SPACES["softmax"])
    naive = {"BLOCK_SIZE": 128, "num_warps": 4, "num_stages": 1}
    picked = sweep.subsample(configs, naive, 5)
    assert len(picked) == 5 and picked[0] == naive and len({json.dumps(c) for c in picked}) == 5
    assert sweep.subsample(configs, naive, None) == configs


def test_builtin_resource_estimate_prunes_what_cannot_fit(sweep: ModuleType) -> None:
    big = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 1, "num_warps": 4, "num_stages": 2}
    assert "registers" in (sweep._builtin_resource_problem(big, "h200", "fp16") or "")
    deep = {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 1, "num_warps": 8, "num_stages": 4}
    assert "shared memory" in (sweep._builtin_resource_problem(deep, "h200", "fp16") or "")
    fine = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3}
    assert sweep._builtin_resource_problem(fine, "h200", "fp16") is None
    assert sweep._builtin_resource_problem({"BLOCK_SIZE": 1024, "num_warps": 4}, "h200", "fp16") is None


def _workspace(root: Path) -> Workspace:
    ex = EXAMPLES / "elementwise"
    ws = Workspace.create(
        "elementwise", kernel=ex / "kernel.py", reference=ex / "reference.py", task_card=ex / "README.md", root=root
    )
    ws.memory.write(
        IterationRecord(
            version="v0",
            performance=Performance(latency_us=900.0),
            correctness=Correctness(status=CorrectnessStatus.PASS),
            quality_gate=QualityGate(result=GateResult.PASS),
        )
    )
    ws.kernel_py.write_text(
        ws.kernel_py.read_text().replace("BLOCK_SIZE=128, num_warps=4", "BLOCK_SIZE=1024, num_warps=8")
    )
    ws.memory.write(
        IterationRecord(
            version="v1",
            performance=Performance(latency_us=400.0),
            optimization=Optimization(action_category=ActionCategory.BLOCK_SIZE),
            correctness=Correctness(status=CorrectnessStatus.PASS),
            quality_gate=QualityGate(result=GateResult.PASS),
        )
    )
    pitfall = PitfallAndFix(error_type="correctness_fail", error_message="max abs err 1.0")
    ws.memory.write(
        IterationRecord(
            version="v2",
            optimization=Optimization(action_category=ActionCategory.NUM_WARPS),
            quality_gate=QualityGate(result=GateResult.FAIL, failure_reason="correctness FAIL after 2 attempt(s)"),
            pitfalls_and_fixes=[pitfall, pitfall],
        )
    )
    ws.commit(["kernel.py", "memory/v0.json", "memory/v1.json", "memory/v2.json"], "V0..V2")
    return ws


def test_cpu_smoke_run_against_a_workspace(ws_root: Path, tmp_path: Path) -> None:
    ws = _workspace(ws_root)
    out = tmp_path / "sweep.json"
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "CUDA_VISIBLE_DEVICES": ""}
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--example",
            "elementwise",
            "--device",
            "cpu",
            "--small",
            "--max-configs",
            "4",
            "--samples",
            "2",
            "--workspace",
            str(ws.root),
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=110,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "exhaustive best (us)" in proc.stdout and "elementwise" in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["device"] == "cpu"
    (r,) = doc["results"]
    assert r["shape"] == {"n": 4099}
    timed = [c for c in r["configs"] if c["status"] != "pruned"]
    assert len(timed) == 4 and timed[0]["config"] == {"BLOCK_SIZE": 128, "num_warps": 4}
    assert all(c["status"] == "ok" and c["latency_us"] > 0 and c["max_abs_err"] is not None for c in timed)
    loop = r["loop"]
    assert loop["final_version"] == "V1" and loop["final_latency_us"] == 400.0
    assert loop["baseline_latency_us"] == 900.0
    assert loop["versions"] == 3 and loop["failed_attempts"] == 2 and loop["evaluations"] == 5
    assert loop["final_config"] == {"BLOCK_SIZE": 1024, "num_warps": 8}
    assert loop["final_retimed_status"] == "ok" and loop["final_retimed_us"] > 0
    best = min(c["latency_us"] for c in timed)
    assert r["best"]["latency_us"] == best
    assert r["gap_pct"] == pytest.approx(100 * (loop["final_retimed_us"] - best) / best)
    assert r["meets_target"] in (True, False)
