"""The budget of a tuning session: the default rule, counts and fractions, the wall time on a clock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.tuning.budget import FLOOR, Budget, BudgetRule, BudgetStop, ManualClock, default_candidates, stalled
from kernelopt.tuning.record import SessionRecord
from kernelopt.tuning.session import DEFAULT_BATCH

SESSIONS = Path(__file__).parent / "data" / "tuning" / "h200_sessions"


@pytest.mark.parametrize(
    ("size", "candidates"),
    [(1, 1), (10, 10), (24, 24), (38, 24), (120, 24), (124, 24), (125, 25), (156, 31), (480, 96), (591, 118)],
)
def test_default_rule_is_a_fifth_with_a_floor_capped_at_the_space(size: int, candidates: int) -> None:
    assert default_candidates(size) == candidates
    assert Budget.default(size, ManualClock()).candidates == candidates


def test_a_space_at_most_the_floor_is_swept_whole() -> None:
    assert all(default_candidates(n) == n for n in range(1, FLOOR + 1))


def test_fraction_and_count() -> None:
    clock = ManualClock()
    assert Budget.from_fraction(480, 0.1, clock).candidates == 48
    assert Budget.from_fraction(42, 0.1, clock).candidates == 5  # no floor: what was asked runs
    assert Budget.from_fraction(3, 0.01, clock).candidates == 1
    assert Budget.from_count(480, 50, clock).candidates == 50
    assert Budget.from_count(40, 50, clock).candidates == 40
    with pytest.raises(ValueError, match="fraction"):
        Budget.from_fraction(10, 0.0, clock)
    with pytest.raises(ValueError, match="at least one"):
        Budget.from_count(10, 0, clock)


def test_the_rule_of_a_task_card() -> None:
    clock = ManualClock()
    assert BudgetRule().build(480, clock).candidates == 96
    assert BudgetRule(fraction=0.5, wall_s=30).build(480, clock).wall_s == 30
    assert BudgetRule(count=7).build(480, clock).candidates == 7
    with pytest.raises(ValueError, match="not both"):
        BudgetRule(count=7, fraction=0.5)


def test_candidates_and_wall_time_stop_it() -> None:
    clock = ManualClock()
    budget = Budget(candidates=3, clock=clock, wall_s=10.0)
    budget.start()
    assert budget.stop() is None and budget.remaining == 3
    budget.charge(2)
    clock.advance(4.0)
    assert budget.remaining == 1 and budget.elapsed_s == 4.0
    budget.charge()
    assert budget.stop() is BudgetStop.CANDIDATES and budget.remaining == 0
    timed = Budget(candidates=100, clock=clock, wall_s=10.0)
    timed.start()
    clock.advance(10.0)
    assert timed.stop() is BudgetStop.WALL_TIME and timed.remaining == 0
    with pytest.raises(ValueError):
        clock.advance(-1.0)


def test_a_round_is_as_large_as_the_wall_time_left_fits_at_the_last_round_s_pace() -> None:
    clock = ManualClock()
    budget = Budget(candidates=100, clock=clock, wall_s=10.0)
    budget.start()
    assert budget.affordable(4) == 4 and budget.candidate_s is None  # no round yet: no estimate
    clock.advance(6.0)
    budget.charge(4, evaluated=2, seconds=6.0)  # two served from the record, two ran: 3 s a candidate
    assert budget.candidate_s == 3.0 and budget.affordable(4) == 1  # 4 s left
    budget.charge(4, evaluated=0, seconds=0.0)  # all served: the estimate stands
    assert budget.candidate_s == 3.0
    clock.advance(1.5)
    assert budget.affordable(4) == 0 and budget.stop() is None  # 2.5 s left: not one more candidate
    clock.advance(2.5)
    assert budget.affordable(4) == 0 and budget.stop() is BudgetStop.WALL_TIME
    both = Budget(candidates=1, clock=clock, wall_s=1.0)
    both.start()
    both.charge(1, evaluated=1, seconds=2.0)
    clock.advance(2.0)
    assert both.stop() is BudgetStop.WALL_TIME  # the candidates are spent too: the wall time is what ran out


def test_a_session_stalls_after_as_many_candidates_again_as_its_best_took_never_under_the_floor() -> None:
    improving = [100.0 - i for i in range(40)]  # every candidate 1 % or more better: never stalled
    assert not stalled(improving)
    best_at_30 = [100.0] * 29 + [50.0]  # candidate 30 is the last to improve
    assert not stalled(best_at_30 + [60.0] * 29)  # 29 after it: not yet max(24, 30)
    assert stalled(best_at_30 + [60.0] * 30)
    best_at_3 = [100.0, 90.0, 80.0]
    assert not stalled(best_at_3 + [85.0] * (FLOOR - 1)) and stalled(best_at_3 + [85.0] * FLOOR)  # the floor
    # gains under 1 % in all since the best are not progress (1 % in all is); failures (None) did not help
    assert stalled([100.0] + [100.0 - 0.03 * i for i in range(1, FLOOR + 1)])
    assert not stalled([100.0] + [100.0 - 0.5 * i for i in range(1, FLOOR + 1)])
    assert stalled([100.0] + [None] * FLOOR)
    assert not stalled([None] * 100)  # nothing ran: the budget ends it, not the stall


def test_only_the_default_rule_stops_on_a_stall() -> None:
    clock = ManualClock()
    assert BudgetRule().build(29_127, clock).stall
    assert not BudgetRule(count=7).build(480, clock).stall
    assert not BudgetRule(fraction=0.5).build(480, clock).stall


@pytest.mark.parametrize("kernel", ["linear_bf16", "matmul"])
def test_the_h200_sessions_ended_where_the_stall_rule_says(kernel: str) -> None:
    """Two default-budget sessions on the H200 (2026-12-04) ended on the stall stop, far inside their budget
    of 5,826 candidates: the rule, applied to the recorded latencies in order, holds at the candidate count
    they ended on and not a batch (at most 4 candidates) before."""
    said = json.loads((SESSIONS / f"{kernel}.session.json").read_text())
    record = SessionRecord.read(SESSIONS / f"{kernel}.record.jsonl")
    latencies = [r.latency_us for r in record.results[: said["evaluations"]]]
    assert said["stop"] == "stalled" and said["evaluations"] < said["budget"] / 30
    assert stalled(latencies) and not stalled(latencies[: said["evaluations"] - DEFAULT_BATCH])
    ok = [x for x in latencies if x is not None]
    assert min(ok) == pytest.approx(said["best_latency_us"], rel=0.05)  # the re-timed best is that candidate


def test_a_budget_without_a_wall_time_fits_every_candidate() -> None:
    """benchmarks/sweep_compare.py runs a sweep without a time budget (wall_s inf): after a round, the candidates
    that fit the wall time left are all of them (it raised OverflowError once the re-time asked)."""
    clock = ManualClock()
    budget = Budget(10, clock, wall_s=float("inf"))
    budget.start()
    budget.charge(4, evaluated=4, seconds=2.0)
    assert budget.affordable(6) == 6
