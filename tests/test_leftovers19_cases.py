"""leftovers19: the seventeenth session's behaviour leftovers (docs/faults.md, "The seventeenth session's leftovers"):
the search keeps the checks after it their time, the own-target check reads the compile pool's compile, discovery's
nested and indexed launch tuples, and one "no figure" line. Each test is cheap: a recorded sweep on a manual clock,
static discovery, or one line."""

from __future__ import annotations

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.pace import WALL_MARGIN_S
from kernelopt.tuning.replay import space_from_sweep
from kernelopt.tuning.session import tune
from kernelopt.tuning.tail_wall import NET_SIZES_KEPT, TAIL_SHARE, TARGET_COMPILE_S, TailCost, TailWall
from tests.test_pace12_cases import Paced, _sweep

# ------------------------------------------------------------------------------- l1: the checks after the search


def test_l1_the_tail_is_estimated_from_the_session_s_fastest_candidate_and_capped() -> None:
    """The estimate reads the fastest passing candidate's own seconds: its check for the net's sizes, across entries
    its check again and its re-time at one entry, its compile (at least the target's own) where a target is named;
    nothing before a candidate passed, never past the share of the wall."""
    fast = Result(config={"B": 1}, outcome=Outcome.OK, latency_us=10.0, check_s=4.0, bench_s=6.0, compile_s=1.0)
    slow = Result(config={"B": 2}, outcome=Outcome.OK, latency_us=20.0, check_s=90.0, bench_s=9.0)
    failed = Result.failed({"B": 3}, Outcome.RUN_TIMEOUT, "no reply within 60 s")
    one = TailCost(entries=1, target=False, wall_s=600.0)
    assert one.need_s([failed]) == 0.0
    assert one.need_s([slow, fast, failed]) == pytest.approx(NET_SIZES_KEPT * 4.0)
    two = TailCost(entries=2, target=True, wall_s=600.0)
    assert two.need_s([slow, fast]) == pytest.approx(NET_SIZES_KEPT * 4.0 + 4.0 + 2 * 10.0 / 2 + TARGET_COMPILE_S)
    assert TailCost(entries=2, target=True, wall_s=40.0).need_s([fast]) == pytest.approx(TAIL_SHARE * 40.0)


@pytest.mark.parametrize("kept", [True, False])
def test_l1_a_wall_bounded_session_leaves_its_checks_the_time_they_cost(kept: bool) -> None:
    """breaker18's h2 (inductor_scan, 2026-12-06 19:06 UTC): a session bounded by its 600 s wall spent it on its
    rounds and re-time, and the checks after it found no time: nothing written ("a rerun resumes"). Candidates of 40 s
    here (a check of 10 s, a timing of 30 s, two entries): the search now ends early enough that its checks fit at
    what this session's candidates cost (the entries' check, the net's sizes, the re-time at one entry), within the
    wall; without the tail, only the margin is left."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = Paced(s, clock, per_s=40.0, hung=set())
    cost = TailCost(entries=2, target=False, wall_s=600.0)
    budget = Budget(100, clock, wall_s=600.0)
    res = tune(space, ev, budget=budget, rng_seed=1, batch_size=4, tail=cost.need_s if kept else None)
    need = cost.need_s(res.results)
    assert need == pytest.approx(10.0 * NET_SIZES_KEPT + 10.0 + 2 * 40.0 / 2)  # 70 s
    assert res.retimed and res.best_config is not None
    wall = TailWall.of(budget)
    if kept:
        assert res.wall_s <= 600.0 - need and wall.left_s() >= need + WALL_MARGIN_S
        assert wall.cut("the written edit's check on the SHAPES entries", 10.0) is None
    else:
        assert wall.left_s() < need
