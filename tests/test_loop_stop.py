"""Stage 6: every stop condition, through the real loop, and the pure decision and bound functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.hardware.specs import lookup
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.loop.stop import RooflineBounds, StopReason, decide, roofline_bounds
from kernelopt.loop.summary import LoopSummary
from kernelopt.memory.model import Performance
from kernelopt.taskcard import StopConditions
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, LATENCY_US, FakeCeilings, Fakes, commit_card, journal, make_fakes, subjects


@pytest.fixture
def fakes() -> Fakes:
    return make_fakes()


@pytest.fixture
def ws(ws_root: Path) -> Workspace:
    return open_or_create(DATA, name="loop", root=ws_root).workspace


def run(ws: Workspace, fakes: Fakes, **request: object) -> LoopSummary:
    return OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(**request)).run()


def stopped(s: LoopSummary, reason: StopReason, detail: str, ws: Workspace) -> None:
    assert s.stop is not None
    assert (s.stop.reason, s.stop.detail) == (reason, detail)
    state = journal(ws)  # the reason is recorded in the loop state file too
    assert state["status"] == "finished" and state["stop"] == {"reason": reason.value, "detail": detail}


def test_roofline_utilization_default_90_pct_on_measured_ceilings(ws: Workspace, fakes: Fakes) -> None:
    fakes.ceilings.value = FakeCeilings(memory_gbps=1.0)  # roofline latency: 49152 B / 1 GB/s = 49.152 us
    fakes.gate.latency_of = {64: 100.0, 128: 60.0, 256: 52.0, 512: 51.0}.__getitem__
    s = run(ws, fakes, max_iterations=10)
    said = (
        "94.5 % of the roofline bound (measured ceilings: measured copy 1 GB/s, memory-bound) >= 90 %; achieved "
        "0.9452 GB/s and 7.877e-05 TFLOP/s (the gate's timing, reference.py's counts)"
    )
    stopped(s, StopReason.ROOFLINE_UTILIZATION, said, ws)
    assert s.iterations == 2 and s.best_roofline is not None
    assert s.best_roofline.measured_pct == pytest.approx(94.523, rel=1e-4)
    # both bounds are reported: the spec peak of the H200 (4.8 TB/s) puts it far lower
    assert s.best_roofline.spec_pct == pytest.approx(49152 / 4.8e12 * 1e6 / 52 * 100, rel=1e-4)
    assert "NVIDIA H200" in s.best_roofline.spec_note and "measured copy 1 GB/s" in s.best_roofline.measured_note
    assert fakes.ceilings.asked == ["NVIDIA H200"]  # by the device name the gate recorded, once per run


def test_roofline_utilization_falls_back_to_the_spec_peak(ws: Workspace, fakes: Fakes) -> None:
    s = run(ws, fakes, max_iterations=10, roofline_utilization_pct=0.02)
    said = (
        "0.0 % of the roofline bound (spec peak: NVIDIA H200 SXM spec 4800 GB/s, fp32 67 TFLOP/s, memory-bound) "
        ">= 0.02 %; achieved 1.229 GB/s and 0.0001024 TFLOP/s (the gate's timing, reference.py's counts)"
    )
    stopped(s, StopReason.ROOFLINE_UTILIZATION, said, ws)
    assert s.iterations == 2  # V2 at 40 us: 0.0256 % of the 4.8 TB/s bound


def test_utilization_above_100_pct_is_an_error_not_a_stop(ws: Workspace, fakes: Fakes) -> None:
    fakes.ceilings.value = FakeCeilings(memory_gbps=1.0)
    fakes.gate.latency_of = {64: 100.0, 128: 40.0, 256: 30.0}.__getitem__  # 123 % and 164 %
    s = run(ws, fakes, max_iterations=2)
    assert s.stop is not None and s.stop.reason is StopReason.MAX_ITERATIONS


def test_target_latency(ws: Workspace, fakes: Fakes) -> None:
    s = run(ws, fakes, target_latency_us=45.0)
    stopped(s, StopReason.TARGET_LATENCY, "latency 40 us <= target 45 us", ws)


def test_target_speedup_over_v0_from_task_card(ws: Workspace, fakes: Fakes) -> None:
    commit_card(ws, target_speedup=2.0)
    s = run(ws, fakes)
    stopped(s, StopReason.TARGET_SPEEDUP, "speedup over V0 2.5x >= target 2x", ws)


def test_flags_override_the_task_card(ws: Workspace, fakes: Fakes) -> None:
    commit_card(ws, target_latency_us=45.0)
    s = run(ws, fakes, target_latency_us=65.0)
    stopped(s, StopReason.TARGET_LATENCY, "latency 60 us <= target 65 us", ws)


def test_target_speedup_over_the_reference(ws: Workspace, fakes: Fakes) -> None:
    fakes.gate.reference_latency_us = 80.0
    s = run(ws, fakes, target_speedup_vs_reference=1.5)
    stopped(s, StopReason.TARGET_SPEEDUP_VS_REFERENCE, "speedup over the reference 2x >= target 1.5x", ws)


def test_goal_met_by_the_baseline_stops_after_v0(ws: Workspace, fakes: Fakes) -> None:
    s = run(ws, fakes, target_latency_us=200.0)
    stopped(s, StopReason.TARGET_LATENCY, "latency 100 us <= target 200 us", ws)
    assert s.iterations == 0 and fakes.planner.calls == []


def test_max_iterations_zero_runs_the_baseline_only(ws: Workspace, fakes: Fakes) -> None:
    s = run(ws, fakes, max_iterations=0)
    stopped(s, StopReason.MAX_ITERATIONS, "0 iteration(s) run, limit 0", ws)
    assert [x.split(":")[0] for x in subjects(ws)[1:]] == ["V0"]


def test_max_wall_time(ws: Workspace, fakes: Fakes) -> None:
    lat = fakes.gate.latency_of

    def slow(block: int) -> float:
        fakes.clock.now += 4 * 60
        return lat(block)

    fakes.gate.latency_of = slow
    s = run(ws, fakes, max_wall_time_min=10.0)
    # V2 is not started: its gate alone (4 min, as V1's) would end past the limit
    detail = (
        "8.0 min elapsed: another version needs at least 240 s (its profile, plan and gate, as long as the last "
        "ones), "
        "120 s are left of the 10 min limit"
    )
    stopped(s, StopReason.MAX_WALL_TIME, detail, ws)
    assert s.iterations == 1 and s.elapsed_s == pytest.approx(480.0)
    # Stage 3 is told the time left, so a tuning session ends in time for the gate (V0's gate took 4 min)
    assert fakes.implementer.wall_left == [pytest.approx(360.0)]


def test_stage3_is_told_no_time_limit_when_there_is_none(ws: Workspace, fakes: Fakes) -> None:
    run(ws, fakes, max_iterations=1)
    assert fakes.implementer.wall_left == [None]


def test_no_new_actionable_plan(ws: Workspace, fakes: Fakes) -> None:
    fakes.planner.modes[2] = "none"
    s = run(ws, fakes, max_iterations=10)
    stopped(s, StopReason.NO_NEW_PLAN, "every block size in the sequence was tried", ws)
    # the profile of V2 (no plan, no commit of its own) goes into the end-of-run commit: git stays clean
    assert [x.split(":")[0] for x in subjects(ws)[1:]] == ["V0", "V1", "end of run"]
    assert not ws.memory.exists(2) and ws.profile_dir(2).is_dir()
    assert "profiles/v2/summary.json" in ws.repo.git.show("--name-only", "--format=", "HEAD").split()
    assert ws.repo.git.status("--porcelain") == ""
    del fakes.planner.modes[2]
    s = run(ws, fakes, max_iterations=1)  # version 2 left only a profile, no plan took it: V2 again (late57 l272)
    assert [o.version for o in s.this_run] == [2] and ws.memory.exists(2)


def test_a_rerun_with_no_plan_on_a_profile_served_again_leaves_nothing(ws: Workspace, fakes: Fakes) -> None:
    """Issue 23: each rerun of a converged workspace added an "end of run" commit and a profile folder."""
    fakes.planner.modes[2] = "none"
    fakes.profiler.reused_at[2] = 1  # V2's kernel is V1's: Stage 1 served V1's profile again
    s = run(ws, fakes, max_iterations=10)
    stopped(s, StopReason.NO_NEW_PLAN, "every block size in the sequence was tried", ws)
    assert [x.split(":")[0] for x in subjects(ws)[1:]] == ["V0", "V1"]
    assert not ws.profile_dir(2).exists() and ws.repo.git.status("--porcelain") == ""
    head = ws.head()
    fakes.planner.modes[2] = "none"
    run(ws, fakes, max_iterations=10)  # again: the same number, and still nothing new
    assert ws.head() == head and not ws.profile_dir(2).exists() and fakes.profiler.calls[-1] == 2


@pytest.mark.timeout(120)
def test_a_session_that_kept_nothing_stops_converged_only_when_no_launch_is_left(ws: Workspace, fakes: Fakes) -> None:
    """breaker4 case h11: V1's session of one launch of two kept nothing; its plan names the other launch as not yet
    tuned, so the loop goes on; V2's session of the last launch keeps nothing too: now converged."""
    fakes.planner.modes[1] = "launches"
    fakes.implementer.modes[1] = fakes.implementer.modes[2] = "kept_nothing"
    s = run(ws, fakes, max_iterations=10)
    assert s.stop is not None and s.stop.reason is StopReason.CONVERGED
    assert [o.version for o in s.this_run] == [0, 1, 2] and "the tuning session kept nothing" in s.stop.detail


def test_planner_runs_out_of_ideas(ws: Workspace, fakes: Fakes) -> None:
    fakes.gate.latency_of = lambda b: 100.0 / b  # every block size is an improvement
    s = run(ws, fakes)
    assert s.stop is not None and s.stop.reason is StopReason.NO_NEW_PLAN
    assert s.iterations == len(LATENCY_US) - 1


def test_baseline_failure_stops_with_its_record_committed_not_as_v0(ws: Workspace, fakes: Fakes) -> None:
    """Issue 23: a failed baseline left memory/v0.json untracked; its record is committed (not as V0)."""
    fakes.gate.fail_at = {0}
    s = run(ws, fakes)
    stopped(s, StopReason.BASELINE_FAILED, "the baseline kernel does not pass the gate: injected failure", ws)
    assert subjects(ws) == [
        "init: workspace loop (kernel.py, reference.py, task card)",
        "baseline check failed: the baseline kernel does not pass the gate: injected failure",
    ]
    assert ws.repo.git.status("--porcelain", "--untracked-files=all", "--", "memory").strip() == ""
    fakes.gate.fail_at = set()
    s = run(ws, fakes, max_iterations=0)  # fixed: the next run gates the baseline again
    assert subjects(ws)[-1].startswith("V0: baseline")


# -- pure functions -----------------------------------------------------------------------------------


def test_decide_order_and_conditions() -> None:
    perf = Performance(latency_us=50.0)
    bounds = RooflineBounds(measured_pct=95.0, spec_pct=80.0)
    base = dict(
        conditions=StopConditions(),
        current=perf,
        roofline=bounds,
        baseline_latency_us=100.0,
        iterations_done=1,
        consecutive_failures=0,
        last_failed=False,
        stop_on_failure=False,
        elapsed_s=0.0,
    )
    d = decide(**base)  # type: ignore[arg-type]
    assert d is not None and d.reason is StopReason.ROOFLINE_UTILIZATION
    assert decide(**{**base, "roofline": RooflineBounds(spec_pct=80.0)}) is None  # type: ignore[arg-type]
    gate_only = decide(**{**base, "roofline": RooflineBounds(gate_pct=91.0)})  # type: ignore[arg-type]
    assert gate_only is not None and gate_only.detail.endswith("(gate) >= 90 %")
    # goals before failures before limits
    both = {**base, "roofline": None, "consecutive_failures": 3, "iterations_done": 9}
    both["conditions"] = StopConditions(max_iterations=5, target_speedup=2.0)
    d = decide(**both)  # type: ignore[arg-type]
    assert d is not None and d.reason is StopReason.TARGET_SPEEDUP
    both["conditions"] = StopConditions(max_iterations=5)
    d = decide(**both)  # type: ignore[arg-type]
    assert d is not None and d.reason is StopReason.FAILURE_BUDGET
    d = decide(**{**base, "roofline": None, "last_failed": True, "stop_on_failure": True})  # type: ignore[arg-type]
    assert d is not None and d.reason is StopReason.STOP_ON_FAILURE
    assert decide(**{**base, "roofline": None, "current": None}) is None  # type: ignore[arg-type]
    # the wall-time limit: reached, or too close for another version's fixed stages
    limits = {**base, "roofline": None, "conditions": StopConditions(max_wall_time_min=10.0)}
    d = decide(**{**limits, "elapsed_s": 600.0})  # type: ignore[arg-type]
    assert d is not None and d.detail == "10.0 min elapsed, limit 10 min"
    assert decide(**{**limits, "elapsed_s": 500.0, "next_version_min_s": 100.0}) is None  # type: ignore[arg-type]
    d = decide(**{**limits, "elapsed_s": 501.0, "next_version_min_s": 100.0})  # type: ignore[arg-type]
    assert d is not None and d.reason is StopReason.MAX_WALL_TIME and "99 s are left" in d.detail


def test_roofline_bounds_both_ways() -> None:
    h200 = lookup("H200")
    # a bf16 matmul-like point: 1e12 FLOP, 1e9 bytes in 2000 us
    perf = Performance(latency_us=2000.0, tflops=1e12 / 2e-3 / 1e12, bandwidth_gbps=1e9 / 2e-3 / 1e9)
    ceilings = FakeCeilings(memory_gbps=4250.0, matmul_tflops={"bf16": 715.0})
    b = roofline_bounds(perf, spec=h200, spec_missing=None, dtype="bfloat16", ceilings=ceilings)
    assert b.measured_pct == pytest.approx(1e12 / 715e12 * 1e6 / 2000 * 100)
    assert b.spec_pct == pytest.approx(1e12 / (h200.peak_tflops("bf16") * 1e12) * 1e6 / 2000 * 100)  # type: ignore[operator]
    assert "compute-bound" in b.measured_note and "bf16 matmul 715.0 TFLOP/s" in b.measured_note
    assert b.stop_figure() == (b.measured_pct, "measured ceilings")
    lines = b.lines()
    assert lines[0].startswith("roofline bound, measured ceilings: ") and lines[1].startswith(
        "roofline bound, spec peak: "
    )
    # no dtype: the compute roof is unknown, said so; no spec sheet: the reason is kept
    b = roofline_bounds(perf, spec=None, spec_missing="unknown GPU 'X'", dtype=None, ceilings=ceilings)
    assert b.spec_pct is None and b.spec_note == "unknown GPU 'X'"
    assert "compute roof unknown" in b.measured_note
    b = roofline_bounds(Performance(latency_us=10.0), spec=h200, spec_missing=None, dtype="fp32", ceilings=None)
    assert b.measured_pct is None and b.spec_note == "FLOP and byte counts unknown"
    assert b.stop_figure() == (None, "none")


def test_another_version_is_costed_with_the_baseline_s_profile_and_gate_at_least() -> None:
    """H200, 2026-12-04: linear_bf16's V2 was started on V1's profile served again (1 s), profiled for 14 s
    and ended 25 s past the limit. A later profile or gate costs at least the baseline's of the run."""
    from types import SimpleNamespace

    from kernelopt.loop.journal import IterationState
    from kernelopt.loop.protocols import Stage
    from kernelopt.loop.stage_stop import next_version_min_s

    it = IterationState(version=1, stage=Stage.STOP, base_commit="abc", good_version=0)
    it.stage_seconds = {"profile": 1.0, "plan": 5.0, "implement": 75.0, "gate": 15.0, "record": 0.2}
    run = SimpleNamespace(state=SimpleNamespace(stage_seconds={"baseline_profile": 14.0, "baseline_gate": 14.0}))
    assert next_version_min_s(run, it) == pytest.approx(14.0 + 5.0 + 15.0 + 0.2)  # type: ignore[arg-type]
    resumed = SimpleNamespace(state=SimpleNamespace(stage_seconds={}))  # a rerun: no baseline in this run
    assert next_version_min_s(resumed, it) == pytest.approx(1.0 + 5.0 + 15.0 + 0.2)  # type: ignore[arg-type]
