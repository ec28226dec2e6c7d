"""The rules backend's measured search inside one category (issue 13): candidate sets, the sweep, the loop.

Pure tests build candidate sets and histories; the sweep tests run the real killable workers on the CPU
kernel of ``tests/data/search`` (an interior optimum over two interacting knobs, plus configurations that
do not build, hang, crash and give wrong results).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.backends.protocol import StageContext
from kernelopt.backends.rules import RuleImplementer, RulePlanner
from kernelopt.evidence.model import BottleneckType
from kernelopt.harness.candidates import Candidate, SweepSettings, evaluate, small_case
from kernelopt.loop.wiring import cpu_timing_summary
from kernelopt.memory.model import CandidateResult, CandidateStatus, GateResult, IterationRecord
from kernelopt.planning.history import build_history
from kernelopt.planning.knobs import Knob
from kernelopt.planning.markdown import parse_plan
from kernelopt.planning.search import candidate_set
from kernelopt.workspace import Workspace

from .data.planning import fakes
from .test_h200_example_evidence import EXAMPLES, evidence

DATA = Path(__file__).parent / "data" / "search"
A = ActionCategory
B = BottleneckType
FAST = {"device": "cpu", "candidate_parallel": 1, "candidate_bench_seconds": 0.05, "candidate_case_timeout_s": 5.0}


def config(bm: int, bn: int) -> str:
    """The test kernel's source at BLOCK_M=bm, BLOCK_N=bn."""
    src = (DATA / "kernel.py").read_text()
    src = re.sub(r"^BLOCK_M = \d+", f"BLOCK_M = {bm}", src, count=1, flags=re.M)
    return re.sub(r"^BLOCK_N = \d+", f"BLOCK_N = {bn}", src, count=1, flags=re.M)


def knobs_of(source: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"^(BLOCK_[MN]) = (\d+)", source, flags=re.M)}


# -- candidate sets (pure) -------------------------------------------------------------------------


def test_grow_evidence_never_yields_only_smaller_candidates() -> None:
    knobs = [Knob("BLOCK_SIZE", 256), Knob("num_warps", 4)]
    cs = candidate_set(A.BLOCK_SIZE, knobs, ["occupancy_limited_blocks"], B.LATENCY_BOUND, budget=16)
    sizes = [c.parameters["BLOCK_SIZE"] for c in cs.candidates]
    assert sizes == [512, 1024, 2048]  # x2, x4, x8 of a knob searched alone, nearest first
    assert all("says grow" in c.evidence for c in cs.candidates)


def test_undecided_evidence_searches_both_ways_jointly_within_the_budget() -> None:
    knobs = [Knob("BLOCK_M", 64), Knob("BLOCK_N", 64)]
    cs = candidate_set(A.TILING, knobs, [], B.UNKNOWN, budget=16)
    params = [(c.parameters["BLOCK_M"], c.parameters["BLOCK_N"]) for c in cs.candidates]
    assert (32, 64) in params and (128, 64) in params  # both ways
    assert (128, 128) in params and (32, 128) in params  # joint tuples
    assert (64, 64) not in params and len(params) == len(set(params)) == 12
    small = candidate_set(A.TILING, knobs, [], B.UNKNOWN, budget=5)
    assert len(small.candidates) == 5 and [c.parameters for c in small.candidates] == [
        c.parameters for c in cs.candidates[:5]
    ]
    assert sum("over the budget of 5" in p for p in small.pruned) == 7


def test_tile_candidates_carry_warps_and_stages_and_fit_pruning_says_why() -> None:
    knobs = [Knob("BLOCK_M", 32), Knob("BLOCK_N", 32), Knob("BLOCK_K", 32), Knob("num_warps", 4), Knob("num_stages", 2)]

    def fits(values: dict[str, int]) -> list[str]:
        smem = (values["BLOCK_M"] + values["BLOCK_N"]) * values["BLOCK_K"] * 2 * values["num_stages"]
        return [f"shared memory {smem} B > 16384 B"] if smem > 16384 else []

    cs = candidate_set(A.TILING, knobs, ["onchip_bandwidth_bound"], B.COMPUTE_BOUND, budget=16, fits=fits)
    assert cs.candidates and all(set(c.parameters) == {k.name for k in knobs} for c in cs.candidates)
    for c in cs.candidates:  # the evidence says grow: no tile dimension shrinks
        assert all(c.parameters[n] >= 32 for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
        assert not fits(c.parameters)
    assert any(c.parameters["num_warps"] == 8 and c.parameters["BLOCK_M"] == 64 for c in cs.candidates)
    assert any("cannot fit: shared memory" in p for p in cs.pruned)
    none = candidate_set(A.TILING, knobs, ["onchip_bandwidth_bound"], B.COMPUTE_BOUND, budget=16, fits=lambda v: ["no"])
    assert not none.candidates and none.why_empty is not None and "was pruned" in none.why_empty


def test_matmul_on_the_h200_searches_larger_tiles_jointly(ws_root: Path) -> None:
    """The recorded H200 profile of examples/matmul (small tiles, tensor cores): on-chip bound, tiles grow."""
    folder = EXAMPLES / "matmul"
    ws = Workspace.create(
        "matmul",
        kernel=folder / "kernel.py",
        reference=folder / "reference.py",
        root=ws_root,
        task_card=folder / "README.md",
    )
    summary = evidence("matmul")
    kernel = summary.kernels[0]
    # memory SOL 94.5 % is L1 (95 %) with DRAM at 11.7 %: the finding that drives the plan is low reuse
    assert kernel.findings[0].rule_id == "nv.onchip_bandwidth_bound"
    from kernelopt.loop.commits import bottleneck_evidence

    assert "compute_memory_throughput" in bottleneck_evidence(summary, ActionCategory.TILING)
    plan = RulePlanner({"knob_only": True}).plan(StageContext(workspace=ws, version=1, summary=summary)).plan
    assert plan is not None and plan.candidates and plan.candidate_budget == 16
    assert plan.action_category is A.TILING
    tiles = [n for n in plan.current_values if n.upper().startswith("BLOCK")]
    assert tiles
    assert all(c.parameters[n] >= plan.current_values[n] for c in plan.candidates for n in tiles)
    assert any(any(c.parameters[n] > plan.current_values[n] for n in tiles) for c in plan.candidates)
    assert parse_plan(ws.plan_path(1).read_text()) == plan  # the plan file lists candidates and budget


def test_budget_from_the_task_card(ws_root: Path) -> None:
    ws = _bowl(ws_root, front="search_budget: 3\n")
    plan = _plan(ws, 1, [_v0(ws)])
    assert plan is not None and len(plan.candidates) == 3 and plan.candidate_budget == 3
    assert "Budget: 3 candidates" in ws.plan_path(1).read_text()


# -- history: waiting categories and convergence (pure) ----------------------------------------------


def _sweep(n: int, cat: A, result: GateResult, chosen_current: bool) -> IterationRecord:
    r = IterationRecord(version=f"v{n}")
    r.optimization.action_category = cat
    r.quality_gate.result = result
    r.candidates = [
        CandidateResult(parameters={"BLOCK_M": 16}, status=CandidateStatus.OK, latency_us=5.0, current=True),
        CandidateResult(parameters={"BLOCK_M": 32}, status=CandidateStatus.OK, latency_us=4.0),
    ]
    r.candidates[0 if chosen_current else 1].chosen = True
    return r


def test_a_category_waits_until_another_one_changes_the_kernel() -> None:
    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    no_gain = _sweep(1, A.TILING, GateResult.FAIL, chosen_current=True)
    h = build_history([v0, no_gain])
    # the data says the faster candidate was not taken: by less than the gain a move needs
    assert (
        A.TILING in h.waiting
        and "the fastest candidate (4 us) beat the current configuration (5 us) by less" in (h.waiting[A.TILING])
    )
    slower = _sweep(1, A.TILING, GateResult.FAIL, chosen_current=True)
    slower.candidates[1].latency_us = 6.0
    assert "no candidate beat the current configuration (5 us)" in build_history([v0, slower]).waiting[A.TILING]
    moved = _sweep(2, A.NUM_WARPS, GateResult.PASS, chosen_current=False)
    moved.performance.comparison_with_previous.verdict = "improvement"
    assert A.TILING not in build_history([v0, no_gain, moved]).waiting  # eligible again
    flat = _sweep(2, A.NUM_WARPS, GateResult.PASS, chosen_current=False)
    flat.performance.comparison_with_previous.verdict = "no significant change"
    assert A.TILING in build_history([v0, no_gain, flat]).waiting  # the gate found it no faster
    gained = _sweep(1, A.TILING, GateResult.PASS, chosen_current=False)
    assert not build_history([v0, gained]).waiting  # a sweep that moved the kernel may go on


# -- the sweep (real workers on the CPU) -------------------------------------------------------------


def test_every_bad_candidate_is_a_recorded_result(tmp_path: Path) -> None:
    configs = [(16, 256), (64, 32), (128, 256), (256, 16), (16, 16), (256, 32)]
    cands = [Candidate(label=f"c{i}", source=config(m, n)) for i, (m, n) in enumerate(configs)]
    (tmp_path / "reference.py").write_text((DATA / "reference.py").read_text())
    settings = SweepSettings(device="cpu", case_timeout_s=2.0, bench_seconds=0.05, parallel=2)
    out = evaluate(cands, reference_py=tmp_path / "reference.py", sweep_dir=tmp_path / "sweep", settings=settings)
    status = {e.label: e.status for e in out}
    assert status == {
        "c0": CandidateStatus.OK,
        "c1": CandidateStatus.OK,
        "c2": CandidateStatus.COMPILE_FAILED,
        "c3": CandidateStatus.TIMEOUT,
        "c4": CandidateStatus.CRASHED,
        "c5": CandidateStatus.WRONG_RESULT,
    }
    by = {e.label: e for e in out}
    assert by["c1"].latency_us is not None and by["c0"].latency_us is not None
    assert by["c1"].latency_us < by["c0"].latency_us  # the optimum is faster than the far corner
    assert "ptxas error" in (by["c2"].reason or "")
    assert "per-case limit" in (by["c3"].reason or "")
    assert "SIGSEGV" in (by["c4"].reason or "")
    assert "differs from the reference" in (by["c5"].reason or "")


def test_small_case_is_the_shape_with_fewest_elements() -> None:
    assert small_case([{"n": 4096}, {"n": 17}, {"n": 100}]) == 1
    assert small_case([{"m": 64, "n": 64}, {"m": 8, "n": 1024}, {"m": 32, "n": 32}]) == 2
    assert small_case([{"n": 5}]) is None


def test_a_sweep_killed_with_sigkill_resumes_where_it_stopped(tmp_path: Path) -> None:
    (tmp_path / "reference.py").write_text((DATA / "reference.py").read_text())
    sweep = tmp_path / "sweep"
    configs = [(64, 32), (32, 64), (128, 16), (32, 32)]
    script = tmp_path / "sweep.py"
    script.write_text(
        "import json, sys\n"
        "from pathlib import Path\n"
        "from kernelopt.harness.candidates import Candidate, SweepSettings, evaluate\n"
        "cands = [Candidate(**c) for c in json.loads(Path(sys.argv[1]).read_text())]\n"
        "evaluate(cands, reference_py=Path(sys.argv[2]), sweep_dir=Path(sys.argv[3]),\n"
        "         settings=SweepSettings(device='cpu', parallel=1, bench_seconds=0.05))\n"
    )
    cands = [Candidate(label=f"c{i}", source=config(m, n)) for i, (m, n) in enumerate(configs)]
    spec = tmp_path / "cands.json"
    spec.write_text(json.dumps([c.model_dump() for c in cands]))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(spec), str(tmp_path / "reference.py"), str(sweep)],
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    results = sweep / "results.json"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        saved = json.loads(results.read_text()) if results.is_file() else {}
        if saved:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its worker, in the middle of the sweep
    proc.wait()
    done_before = set(json.loads(results.read_text()))
    assert done_before, "the sweep was killed before it saved any result"
    runs_before = set((sweep / "runs").iterdir())
    out = evaluate(
        cands,
        reference_py=tmp_path / "reference.py",
        sweep_dir=sweep,
        settings=SweepSettings(device="cpu", parallel=1, bench_seconds=0.05),
    )
    assert [e.status for e in out] == [CandidateStatus.OK] * 4
    checked_again = set()
    for run in set((sweep / "runs").iterdir()) - runs_before:
        job = json.loads((run / "job.json").read_text())
        if job["mode"] == "check":
            checked_again |= {k["label"] for k in job["kernels"]}
    first = {f"cpu:{c.digest()}": c.label for c in cands}
    assert checked_again.isdisjoint({first[k] for k in done_before})  # what was checked is not checked again


# -- Stage 2 + 3: the search reaches the interior optimum from a far corner --------------------------


def _bowl(root: Path, front: str = "", start: tuple[int, int] = (16, 256)) -> Workspace:
    card = root / "bowl_README.md"
    card.write_text(f"---\nname: bowl\n{front}---\nA CPU stand-in for a tiled kernel.\n")
    kernel = root / "bowl_kernel.py"
    kernel.write_text(config(*start))
    return Workspace.create("bowl", kernel=kernel, reference=DATA / "reference.py", root=root, task_card=card)


def _v0(ws: Workspace) -> IterationRecord:
    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    v0.performance.latency_us = 5000.0
    ws.memory.write(v0)
    return v0


def _plan(ws: Workspace, n: int, records: list[IterationRecord]):  # type: ignore[no-untyped-def]
    summary = cpu_timing_summary(ws, n)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    out = planner.plan(StageContext(workspace=ws, version=n, summary=summary, history=list(records)))
    return out.plan if out.plan is not None else out.reason


@pytest.mark.timeout(300)
def test_search_reaches_the_interior_optimum_of_two_interacting_knobs(ws_root: Path) -> None:
    """From the corner BLOCK_M=16 (the smallest legal tile), BLOCK_N=128 to the optimum 64 x 32 and a stop."""
    ws = _bowl(ws_root, start=(16, 128))
    records = [_v0(ws)]
    implementer = RuleImplementer(FAST)
    reason = None
    timed = 0
    for n in range(1, 9):
        plan = _plan(ws, n, records)
        if isinstance(plan, str) or plan is None:
            reason = plan
            break
        assert len(plan.candidates) <= 16
        summary = cpu_timing_summary(ws, n)
        out = implementer.implement(StageContext(workspace=ws, version=n, summary=summary, plan=plan))
        assert out.candidates and sum(c.chosen for c in out.candidates) == 1
        timed += sum(c.latency_us is not None for c in out.candidates)
        rec = IterationRecord(version=f"v{n}")
        rec.optimization.action_category = plan.action_category
        rec.optimization.knob_changes = {k: list(v) for k, v in out.knob_changes.items()}
        rec.candidates = out.candidates
        chosen = next(c for c in out.candidates if c.chosen)
        if out.changed:
            rec.quality_gate.result = GateResult.PASS
            rec.performance.latency_us = chosen.latency_us
            rec.performance.comparison_with_previous.verdict = "improvement"
        else:
            assert out.no_gain and chosen.current
            rec.quality_gate.result = GateResult.FAIL
        ws.memory.write(rec)
        records.append(rec)
    assert knobs_of(ws.kernel_py.read_text()) == {"BLOCK_M": 64, "BLOCK_N": 32}
    assert reason is not None and reason.startswith("converged: a full round over every actionable category")
    assert n <= 5 and timed <= 16 * (n - 1)  # the budget held in every iteration


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_triton_candidates_on_the_gpu(tmp_path: Path) -> None:
    """examples/elementwise at four BLOCK_SIZE values, compiled in parallel and timed on the GPU."""
    from kernelopt.tunables import apply_source

    folder = EXAMPLES / "elementwise"
    source = (folder / "kernel.py").read_text()
    cands = [Candidate(label="now", source=source)]
    for size in (256, 1024, 4096):
        cands.append(Candidate(label=f"b{size}", source=apply_source(source, {"BLOCK_SIZE": size}).new_source))
    out = evaluate(
        cands,
        reference_py=folder / "reference.py",
        sweep_dir=tmp_path / "sweep",
        settings=SweepSettings(device="cuda", bench_seconds=0.2),
    )
    assert [e.status for e in out] == [CandidateStatus.OK] * 4, [e.reason for e in out]
    assert all(e.latency_us is not None and e.latency_us > 0 for e in out)
    assert all(e.compile_s is not None for e in out)


def test_planning_does_not_import_backends() -> None:
    """Issue 12: the rules planner adapter lives in backends/; planning's own modules import no backend.

    ``planning/stage.py`` (the Stage 2 runner) is the stages package's to move out of planning.
    """
    import ast

    import kernelopt.planning

    folder = Path(kernelopt.planning.__file__).parent
    offenders = []
    for path in sorted(folder.glob("*.py")):
        if path.name == "stage.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.startswith("kernelopt.backends")]
    assert not offenders


def test_implementer_records_a_refused_candidate_and_applies_the_fastest(ws_root: Path) -> None:
    ws = _bowl(ws_root)
    plan = _plan(ws, 1, [_v0(ws)])
    assert plan is not None and not isinstance(plan, str)
    plan = plan.model_copy(
        update={
            "candidates": [
                plan.candidates[0].model_copy(update={"parameters": {"BLOCK_M": 48, "BLOCK_N": 256}}),
                plan.candidates[0].model_copy(update={"parameters": {"BLOCK_M": 32, "BLOCK_N": 128}}),
            ]
        }
    )
    summary = cpu_timing_summary(ws, 1)
    out = RuleImplementer(FAST).implement(StageContext(workspace=ws, version=1, summary=summary, plan=plan))
    assert out.changed and out.knob_changes == {"BLOCK_M": (16, 32), "BLOCK_N": (256, 128)}
    current, refused, best = out.candidates
    assert current.current and current.status is CandidateStatus.OK and not current.chosen
    assert refused.status is CandidateStatus.REFUSED and "power of two" in (refused.reason or "")
    assert best.chosen and best.latency_us is not None and current.latency_us is not None
    assert best.latency_us < current.latency_us
    assert knobs_of(ws.kernel_py.read_text()) == {"BLOCK_M": 32, "BLOCK_N": 128}
