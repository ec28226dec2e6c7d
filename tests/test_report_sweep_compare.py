"""benchmarks/sweep_compare.py: the spaces, the sweep file reuse rule, the table, and CPU runs of both jobs."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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
from kernelopt.tunables import ResourceLimits, discover
from kernelopt.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "sweep_compare.py"
EXAMPLES = REPO / "examples"
HELDOUT = REPO / "benchmarks" / "heldout"


@pytest.fixture(scope="module")
def sweep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sweep_compare", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sweep_compare"] = mod
    spec.loader.exec_module(mod)
    return mod


def folder_of(sweep: ModuleType, name: str) -> Path:
    """An example's folder, or a held-out kernel's (benchmarks/heldout)."""
    return (HELDOUT if name in sweep.HELDOUT_SPACES else EXAMPLES) / name


def test_every_example_has_a_space_of_legal_values_holding_its_start(sweep: ModuleType) -> None:
    from .test_examples import function_form_examples

    assert set(sweep.EXAMPLES) == set(function_form_examples(EXAMPLES))  # the suite covers every example
    assert set(sweep.HELDOUT_SPACES) == set(function_form_examples(HELDOUT))
    assert set(sweep.SPACES) == set(sweep.EXAMPLES) | set(sweep.HELDOUT_SPACES)
    sizes = {name: len(sweep.enumerate_space(space)) for name, space in sweep.SPACES.items()}
    assert sizes["matmul"] == 768 and sizes["elementwise"] == 48
    assert sum(1 for n in sizes.values() if n >= sweep.LARGE_SPACE_CONFIGS) >= 3  # the wall/evals target applies
    for name, space in sweep.SPACES.items():
        tunables = {t.name: t for t in discover(folder_of(sweep, name) / "kernel.py") if t.editable}
        assert set(space) <= set(tunables), name
        for knob, values in space.items():
            # the naive start is one of the configs (a computed setting has no static value: calculate_settings)
            assert tunables[knob].value in values or tunables[knob].computed is not None, (name, knob)
            assert all(tunables[knob].legality.problem(v) is None for v in values), (name, knob)


def test_variant_source_changes_only_the_literals(sweep: ModuleType) -> None:
    source = (EXAMPLES / "linear_bf16" / "kernel.py").read_text()
    new = sweep.variant_source(source, {"BLOCK_M": 128, "num_stages": 3, "num_warps": 8})
    changed = [(a, b) for a, b in zip(source.splitlines(), new.splitlines(), strict=True) if a != b]
    assert changed == [
        ("        BLOCK_M=64,", "        BLOCK_M=128,"),
        ("        num_stages=1,", "        num_stages=3,"),
    ]
    assert sweep.variant_source(source, {"BLOCK_M": 64}) == source


def test_pruning_is_the_tunables_resource_estimate(sweep: ModuleType) -> None:
    limits = ResourceLimits.for_gpu("h200", "bf16")
    big = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 1, "num_warps": 4, "num_stages": 2}
    assert "registers" in (sweep.resource_problem(big, limits) or "")
    deep = {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 256, "GROUP_M": 1, "num_warps": 8, "num_stages": 4}
    assert "shared memory" in (sweep.resource_problem(deep, limits) or "")
    assert sweep.resource_problem({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "num_warps": 8}, limits) is None
    # every example's naive start fits (else the loop could not start from it)
    for name in sweep.SPACES:
        folder = folder_of(sweep, name)
        card_dtype = (folder / "README.md").read_text().split("dtype: ")[1].split()[0]
        naive = {t.name: t.value for t in discover(folder / "kernel.py") if t.name in sweep.SPACES[name]}
        assert sweep.resource_problem(naive, ResourceLimits.for_gpu("h200", card_dtype)) is None, name


def test_subsample_keeps_the_naive_config(sweep: ModuleType) -> None:
    configs = sweep.enumerate_space(sweep.SPACES["softmax"])
    naive = {"BLOCK_SIZE": 128, "num_warps": 4, "num_stages": 1}
    picked = sweep.subsample(configs, naive, 5)
    assert len(picked) == 5 and picked[0] == naive and len({json.dumps(c) for c in picked}) == 5
    assert sweep.subsample(configs, naive, None) == configs


def _key(sweep: ModuleType, **changes: Any) -> Any:
    fields = dict(
        example="gelu_fp32",
        kernel_sha256="a" * 64,
        reference_sha256="b" * 64,
        timer_version="m2-0123",
        device="cuda",
        gpu="NVIDIA H200",
        torch="2.11.0",
        triton="3.6.0",
        shape={"n": 1024},
    )
    return sweep.SweepKey(**{**fields, **changes})


def test_reuse_rule(sweep: ModuleType, tmp_path: Path) -> None:
    configs = [{"BLOCK_SIZE": 128, "num_warps": 4}, {"BLOCK_SIZE": 256, "num_warps": 4}]
    assert sweep.reuse_decision(None, _key(sweep), configs)[0] == sweep.Reuse.FRESH
    old = sweep.new_sweep(_key(sweep), {"BLOCK_SIZE": [128, 256], "num_warps": [4]}, configs[0])
    old.configs = [sweep.ConfigResult(config=configs[0], status=sweep.Status.OK, latency_us=5.0, samples=10)]
    decision, why = sweep.reuse_decision(old, _key(sweep), configs)
    assert decision == sweep.Reuse.RESUME and why.startswith("1 of 2")
    old.configs.append(sweep.ConfigResult(config=dict(reversed(configs[1].items())), status=sweep.Status.PRUNED))
    assert sweep.reuse_decision(old, _key(sweep), configs)[0] == sweep.Reuse.SKIP  # key order does not matter
    for change in ({"kernel_sha256": "c" * 64}, {"timer_version": "m3-0123"}, {"gpu": "NVIDIA H100"}):
        decision, why = sweep.reuse_decision(old, _key(sweep, **change), configs)
        assert decision == sweep.Reuse.FRESH and next(iter(change)) in why
    # the file round-trips through JSON; a file of another schema or shape is unreadable, not fatal
    path = tmp_path / "gelu_fp32.json"
    sweep.write_json(path, sweep.sweep_json(old))
    back, problem = sweep.read_sweep(path)
    assert problem is None and back is not None and sweep.sweep_json(back) == sweep.sweep_json(old)
    assert back.best() is not None and back.best().latency_us == 5.0 and len(back.timed()) == 1
    path.write_text(json.dumps({"schema": 99}))
    back, problem = sweep.read_sweep(path)
    assert back is None and problem is not None and "schema" in problem
    assert sweep.read_sweep(tmp_path / "absent.json") == (None, None)


def test_timer_version_follows_the_harness_timer(sweep: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    first = sweep.timer_version()
    assert first.startswith(f"m{sweep.MEASURE_VERSION}-") and sweep.timer_version() == first
    monkeypatch.setattr(sweep, "MEASURE_VERSION", sweep.MEASURE_VERSION + 1)
    assert sweep.timer_version() != first


def test_loop_evaluations_count_candidates_when_recorded(sweep: ModuleType) -> None:
    records = [
        {"version": "v0"},
        {
            "version": "v1",
            "candidates": [
                {"status": "ok"},
                {"status": "wrong_result"},
                {"status": "pruned"},
                {"status": "ok"},
                {"status": "ok", "served": True},  # measured by an earlier version's session
            ],
        },
        {"version": "v2", "pitfalls_and_fixes": [{"error_type": "correctness_fail"}, {"error_type": "timeout"}]},
    ]
    assert sweep.count_evaluations(records) == (3, 3, 1)
    # the memory store writes ``candidates: []`` on every record: no search ran, the failed attempts count
    no_search = {"version": "v2", "candidates": [], "pitfalls_and_fixes": [{"error_type": "correctness_fail"}]}
    assert sweep.count_evaluations([no_search]) == (1, 0, 1)


def test_compare_table_and_targets(sweep: ModuleType) -> None:
    loop = sweep.LoopResult(workspace="/w", versions=6, candidates_timed=40, evaluations=46, wall_s=200.0)
    row = sweep.CompareRow(
        example="linear_bf16",
        space_configs=1024,
        sweep_configs=600,
        sweep_wall_s=300.0,
        sweep_complete=True,
        best_config={"BLOCK_M": 128},
        loop=loop,
        v0_us=1000.0,
        final_us=205.0,
        best_us=200.0,
    )
    assert row.ratio == pytest.approx(1.025) and row.gap_pct == pytest.approx(2.5)
    assert row.targets() == {"within_3pct": True, "wall_below_sweep": True, "evals_fifth": True}
    small = sweep.CompareRow("gelu_fp32", 54, 50, 20.0, False, None, None, 10.0, None, 5.0)
    assert small.targets() == {"within_3pct": None}
    table = sweep.compare_table([row, small]).splitlines()
    assert table[0].startswith("| kernel | V0 (us) | loop final (us) | exhaustive best (us) | final/best | gap % |")
    assert table[2] == (
        "| linear_bf16 | 1,000.00 | 205.00 | 200.00 | 1.025x | 2.5 | 46 (6 versions + 40 candidates) | 3.3 min "
        "| 600 | 5.0 min | 3 % met, wall met, 1/5 met |"
    )
    assert table[3] == (
        "| gelu_fp32 | 10.00 | n/a | 5.00 (best of 50 timed) | n/a | n/a | n/a | n/a | 50 (incomplete) | 20 s | 3 % n/a |"
    )
    # a sweep cut short: its best is the best of N timed, never the exhaustive best, and "within 3 %" is not judged
    cut = sweep.CompareRow("matmul", 768, 480, 300.0, False, None, None, 10.0, 4.6, 5.0)
    assert cut.targets()["within_3pct"] is None and "0.920x (best of 480 timed)" in sweep.compare_cells(cut)
    row.final_us, loop.wall_s, loop.evaluations = 206.5, 400.0, 121
    assert sweep._targets_cell(row) == "3 % MISSED, wall MISSED, 1/5 MISSED"


def test_loop_walls_file(sweep: ModuleType, tmp_path: Path) -> None:
    f = tmp_path / "walls.txt"
    f.write_text("# example seconds\ngelu_fp32 181\nmatmul 400.5  # cut\nbroken line-without-number x\ngelu_fp32 190\n")
    assert sweep.read_loop_walls(f) == {"gelu_fp32": 190.0, "matmul": 400.5}
    assert sweep.read_loop_walls(None) == {}


def _workspace(root: Path) -> Workspace:
    ex = EXAMPLES / "gelu_fp32"
    ws = Workspace.create(
        "gelu_fp32", kernel=ex / "kernel.py", reference=ex / "reference.py", task_card=ex / "README.md", root=root
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
        ws.kernel_py.read_text().replace("BLOCK_SIZE=16384, num_warps=16", "BLOCK_SIZE=1024, num_warps=4")
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


CPU_ARGS = ("--device", "cpu", "--small", "--samples", "2")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """The script run as a user runs it: ``python benchmarks/sweep_compare.py`` in a process of its own."""
    path = os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, "CUDA_VISIBLE_DEVICES": ""}
    cmd = [sys.executable, str(SCRIPT), *CPU_ARGS, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def _main(sweep: ModuleType, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The script's ``main`` in this process (its runs forked from this process's fork server for CPU runs
    instead of a fresh interpreter that starts a server of its own: torch imported once, not once a run):
    the exit code and what it printed."""
    capsys.readouterr()
    code = sweep.main([*CPU_ARGS, *args])
    return code, capsys.readouterr().out


def _example_copy(folder: Path) -> Path:
    """examples/gelu_fp32 in ``folder``, its small shape 2011 elements instead of 20011 (Triton's interpreter
    runs a program per block: a tenth of the work per call; still no multiple of any block size)."""
    (folder / "gelu_fp32").mkdir(parents=True)
    for f in ("kernel.py", "reference.py", "README.md"):
        (folder / "gelu_fp32" / f).write_text((EXAMPLES / "gelu_fp32" / f).read_text())
    ref = folder / "gelu_fp32" / "reference.py"
    assert '{"n": 20011}]' in ref.read_text()
    ref.write_text(ref.read_text().replace('{"n": 20011}]', '{"n": 2011}]'))
    return folder


def test_cpu_sweep_reuse_and_compare(
    sweep: ModuleType, ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep is written, reused when nothing changed, resumed when configurations are missing, and compared.
    The first sweep runs the script as a program (its own process, as a user runs it); the reuse, the resume
    with the comparison and the fresh start call its ``main`` in this process (the same code on the same
    files; only the interpreter start and a fork server of its own are saved)."""
    sweeps = tmp_path / "sweeps"
    examples = _example_copy(tmp_path / "examples")
    common = ("--example", "gelu_fp32", "--sweep-dir", str(sweeps), "--examples-dir", str(examples))
    proc = _run(*common, "--max-configs", "3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "[gelu_fp32] sweep fresh: no sweep file" in proc.stdout
    doc = json.loads((sweeps / "gelu_fp32.json").read_text())
    assert doc["complete"] and doc["sittings"] == 1 and len(doc["configs"]) == 3
    assert (
        doc["key"]["kernel_sha256"] == hashlib.sha256((EXAMPLES / "gelu_fp32" / "kernel.py").read_bytes()).hexdigest()
    )
    assert doc["configs"][0]["config"] == {"BLOCK_SIZE": 16384, "num_warps": 16}  # the naive start first
    assert all(c["status"] == "ok" and c["latency_us"] > 0 for c in doc["configs"])

    code, out = _main(sweep, capsys, *common, "--max-configs", "3")
    assert code == 0 and "sweep skip: kernel, reference and timer unchanged" in out
    assert json.loads((sweeps / "gelu_fp32.json").read_text())["sittings"] == 1  # nothing timed again

    # a 4-config subsample adds one configuration: the sweep resumes and times only that one
    naive = {"BLOCK_SIZE": 16384, "num_warps": 16}
    configs = sweep.subsample(sweep.enumerate_space(sweep.SPACES["gelu_fp32"]), naive, 4)
    have = [c["config"] for c in doc["configs"]]
    (added,) = [c for c in configs if c not in have]

    ws = _workspace(ws_root)
    walls = tmp_path / "walls.txt"
    walls.write_text("gelu_fp32 42\n")
    report = tmp_path / "compare.json"
    code, out = _main(
        sweep,
        capsys,
        *common,
        "--max-configs",
        "4",
        "--compare",
        "--compare-rounds",
        "2",
        "--workspace-root",
        str(ws.root.parent),
        "--loop-walls",
        str(walls),
        "--json",
        str(report),
        "--markdown",
        str(tmp_path / "compare.md"),
    )
    assert code == 0, out[-3000:]
    assert "sweep resume: 1 of 4 configurations not measured yet" in out
    (entry,) = [c for c in json.loads((sweeps / "gelu_fp32.json").read_text())["configs"] if c["config"] == added]
    assert entry["status"] == "ok" and entry["latency_us"] > 0
    # --samples 2, unless its timing was cut as far slower than the naive configuration (the interpreter's call
    # deadline: a first call past 0.5 s, which a loaded machine reaches): the entry then says so
    assert entry["samples"] == 2 or entry["message"].startswith("cut: "), entry
    run = json.loads(report.read_text())
    assert run["device"] == "cpu" and run["sweeps"]["gelu_fp32"]["sittings"] == 2
    assert run["sweeps"]["gelu_fp32"]["timed"] == 4
    (row,) = run["compare"]
    assert row["v0_us"] > 0 and row["final_us"] > 0 and row["best_us"] > 0
    assert row["gap_pct"] == pytest.approx(100 * (row["final_us"] / row["best_us"] - 1))
    loop = row["loop"]
    assert loop["final_version"] == "V1" and loop["final_latency_us"] == 400.0 and loop["baseline_latency_us"] == 900.0
    assert (loop["versions"], loop["failed_attempts"], loop["evaluations"]) == (3, 2, 5)
    assert loop["wall_s"] == 42.0 and loop["wall_source"] == "optimize command"
    assert loop["final_config"] == {"BLOCK_SIZE": 1024, "num_warps": 4}
    assert row["final_status"] == "ok" and set(row["targets"]) == {"within_3pct"}
    text = (tmp_path / "compare.md").read_text()
    assert "| gelu_fp32 |" in text and "exhaustive best (us)" in text

    # a changed kernel makes the sweep start again
    with (examples / "gelu_fp32" / "kernel.py").open("a") as fh:
        fh.write("# edited\n")
    code, out = _main(sweep, capsys, *common, "--max-configs", "2")
    assert code == 0, out[-3000:]
    assert "sweep fresh: changed since the sweep: kernel_sha256" in out
    assert json.loads((sweeps / "gelu_fp32.json").read_text())["sittings"] == 1


def test_lanes_balance_configurations_for_sweeps_and_examples_for_loops(sweep: ModuleType) -> None:
    names = list(sweep.EXAMPLES)
    two = sweep.assign_lanes(names, 2)
    assert sorted(n for lane in two for n in lane) == sorted(names)
    loads = [sum(len(sweep.enumerate_space(sweep.SPACES[n])) for n in lane) for lane in two]
    assert max(loads) - min(loads) <= max(len(sweep.enumerate_space(sweep.SPACES[n])) for n in names)
    assert [len(lane) for lane in sweep.assign_lanes(names, 4, by_space=False)] == [4, 3, 3, 3]
    assert sweep.assign_lanes(["sumsq"], 3) == [["sumsq"], [], []]


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_gpu_sweep_compiles_in_processes_and_times_on_cuda(tmp_path: Path) -> None:
    """On a GPU: the engine's compile pool and bench worker time the variants with CUDA events, and the sweep
    file records the GPU (KERNELOPT_GPU_TESTS=1; about 40 s on the H200)."""
    # src first; what PYTHONPATH holds stays (the GPU machine's pydantic and git come from it)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    sweeps = tmp_path / "sweeps"
    cmd = [sys.executable, str(SCRIPT), "--example", "gelu_fp32,linear_bf16", "--device", "cuda", "--small"]
    cmd += ["--max-configs", "6", "--jobs", "3", "--sweep-dir", str(sweeps)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=280, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "[gelu_fp32] 6 timed, best " in proc.stdout  # what the sweep printed on the H200, 2026-12-04
    for name in ("gelu_fp32", "linear_bf16"):
        doc = json.loads((sweeps / f"{name}.json").read_text())
        assert doc["complete"] and doc["key"]["gpu"] and doc["key"]["device"] == "cuda"
        ok = [c for c in doc["configs"] if c["status"] == "ok"]
        assert ok and all(c["method"].startswith("cuda") and c["latency_us"] > 0 for c in ok)
