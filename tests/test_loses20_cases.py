"""loses20: nothing of the user's lost by a failed stage, and lines that say what happened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.backends.protocol import ImplementOutcome
from kernelopt.stages.guard import RunGuard
from kernelopt.stages.implement import run_implement

from .backends_support import make_plan, make_ws, write_plan


class _BreaksTheKernel:
    """A scripted implementer whose edit, written through the workspace's kernel.py, does not parse: Stage 3 fails."""

    name = "scripted-breaker"

    def implement(self, ctx) -> ImplementOutcome:
        kernel = ctx.workspace.kernel_py
        kernel.write_text(kernel.read_text() + "\ndef broken(:\n")
        return ImplementOutcome(changed=True, description="an edit that does not parse")


@pytest.fixture
def ws(ws_root: Path):
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    return ws


def test_a_failed_stage_3_keeps_the_users_linked_kernel(ws, tmp_path: Path) -> None:
    """l1 (late19's z5 seen item): the backup Stage 3 takes held no bytes for a link, so putting it back after a failed
    attempt deleted a kernel.py the user keeps as a link to their project's file. The link comes back as the same
    link, and the bytes the failed edit wrote through it are put back in the user's file."""
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    mine.write_bytes(ws.kernel_py.read_bytes())
    before = mine.read_bytes()
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    report = run_implement(
        ws, 1, make_plan(), _BreaksTheKernel(), guard=RunGuard(ws), check=None, summary=None, history=[]
    )
    assert not report.ok and "does not parse" in (report.reason or ""), report.reason  # the user's link read through
    assert ws.kernel_py.is_symlink() and Path(ws.kernel_py.readlink()) == mine
    assert mine.read_bytes() == before


_CHANGED_IN_PLACE = """import torch
import triton
import triton.language as tl

TILE = [64, 128]
TILE[0] = 32
SIZES = [256, 512]
SIZES.append(1024)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def run(x):
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), TILE[0]),)](x, y, x.numel(), BLOCK=TILE[0])
    return y


def run_sizes(x):
    y = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), SIZES[0]),)](x, y, x.numel(), BLOCK=SIZES[0])
    return y
"""


def test_a_module_list_changed_in_place_is_refused_not_offered_at_its_literal(tmp_path: Path, capsys) -> None:
    """l2 (break19's seen item): ``TILE = [64, 128]`` then ``TILE[0] = 32`` at the module's top level was offered as
    the knob TILE[0] of value 64, while every launch ran 32 (an edit of the literal is undone at import). A list
    changed in place after its binding (an element set, an ``append``) is refused with a line that says so; bound once,
    its element is still the knob."""
    from kernelopt.cli.app import main

    kernel = tmp_path / "kernel.py"
    kernel.write_text(_CHANGED_IN_PLACE)
    assert main(["tunables", str(kernel), "--json", "--no-evaluate"]) == 0
    keys = {t["key"]: t for t in json.loads(capsys.readouterr().out)}
    assert "TILE[0]" not in keys and "SIZES[0]" not in keys
    tile, sizes = keys["copy_kernel#1:BLOCK"], keys["copy_kernel#2:BLOCK"]  # run()'s launch, run_sizes()'s
    assert (
        tile["value"] is None and "'TILE' is changed in place at line(s) 6 after its binding" in tile["refused_reason"]
    )
    assert sizes["value"] is None and "'SIZES' is changed in place at line(s) 8" in sizes["refused_reason"]
    kernel.write_text(_CHANGED_IN_PLACE.replace("TILE[0] = 32\n", "").replace("SIZES.append(1024)\n", ""))
    assert main(["tunables", str(kernel), "--json", "--no-evaluate"]) == 0
    keys = {t["key"]: t for t in json.loads(capsys.readouterr().out)}
    assert keys["TILE[0]"]["value"] == 64 and keys["SIZES[0]"]["value"] == 256


def test_candidates_the_wall_left_unrun_are_not_counted_evaluated() -> None:
    """l3 (break19's seen item): a session whose wall time left every candidate `not_run_budget` said "12 evaluated"
    beside "no candidate ran": a candidate never sent is no evaluation. Counted where the session counts them."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.record import read_sweeps
    from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
    from kernelopt.tuning.session import tune

    sweep = read_sweeps(
        Path(__file__).resolve().parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "softmax.json"
    )
    space, clock = space_from_sweep(sweep[0]), ManualClock()

    class WallSpent:  # the evaluator's answer when no time is left to send a candidate (KernelEvaluator's)
        def evaluate(self, batch):  # type: ignore[no-untyped-def]
            return [Result.failed(c, Outcome.NOT_RUN_BUDGET, "not sent: no time left") for c in batch]

    res = tune(space, WallSpent(), budget=Budget(12, clock), rng_seed=1, batch_size=4)
    assert res.results and all(r.outcome is Outcome.NOT_RUN_BUDGET for r in res.results)
    assert res.evaluations == 0 and res.best_config is None
    timed = tune(space, ReplayEvaluator(sweep[0], ManualClock()), budget=Budget(4, ManualClock()), rng_seed=1)
    assert timed.evaluations == 4  # each one sent is counted


def test_cpu_timing_evidence_names_no_gpu_vendor(tmp_path: Path, capsys) -> None:
    """l4 (newuser16's seen item): `kernelopt evidence` of a `--device cpu` profile said "vendor: nvidia", of a kernel no
    GPU ran (the field keeps the schema's default). It says the CPU timed it; a GPU's timing-only evidence still
    names its vendor."""
    from kernelopt.cli.app import main
    from kernelopt.evidence.model import ProfileSummary
    from kernelopt.profiling.timing_only import CPU_REASON

    from .conftest import DATA

    gpu = ProfileSummary.model_validate_json((DATA / "loop" / "summary_timing_only.json").read_text())
    cpu = gpu.model_copy(update={"gpu": "cpu", "counters_unavailable_reason": CPU_REASON})
    (tmp_path / "summary.json").write_text(cpu.model_dump_json())
    assert main(["evidence", str(tmp_path / "summary.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "vendor: none (timed on the CPU)" in lines and "vendor: nvidia" not in lines
    assert main(["evidence", str(DATA / "loop" / "summary_timing_only.json")]) == 0
    assert "vendor: nvidia" in capsys.readouterr().out.splitlines()
