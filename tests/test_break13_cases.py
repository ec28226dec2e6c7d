"""A fresh clone broken by hand, thirteenth trial (2026-12-06): the twelfth session's changes (tables judged in one
round, the session's pace, the net's sizes and integer fences, pruned and heuristic lists, 2-D grids) tried on
kernels written for it, and bad input; one test per fix (docs/faults.md, "A fresh clone broken, thirteenth trial")."""

from __future__ import annotations

from kernelopt.cli.tune import verdict_line
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.session import SessionResult, StopReason, judge_gain


def _session(results: list[Result]) -> SessionResult:
    return SessionResult(
        best_config=None,
        best_latency_us=None,
        current_config={"BLOCK": 256},
        current_latency_us=None,
        results=results,
        retimed=[],
        evaluations=len(results),
        served=0,
        budget=10,
        space_size=10,
        wall_s=300.0,
        stop=StopReason.CANDIDATES,
        strategy="local",
    )


def test_b1_candidates_timed_at_some_entries_are_not_said_never_to_have_run() -> None:
    """b1: an autotune list whose prune keeps only BLOCK <= 16 at n=5 (and BLOCK=16 cut by the request's limit at
    n=100000): nine candidates were timed at n=100000 and n=777, the per-shape table showed one, and the verdict
    said "no candidate ran". It says none passed every entry, and how many were timed at some."""
    pruned = Result(
        config={"BLOCK": 256},
        outcome=Outcome.INVALID,
        reason="on the SHAPES entry n=5: the autotune list's own early_config_prune drops BLOCK=256",
        latency_us_by_shape={"n=100000": 2.1e6, "n=777": 2.0e4},
        failed_entry="n=5",
    )
    cut = Result(config={"BLOCK": 16}, outcome=Outcome.RUN_TIMEOUT, reason="no reply within 60 s")
    session = _session([pruned, cut])
    line = verdict_line(session, judge_gain(session), kernel_py="kernel.py", written=False, dry_run=False)
    assert line == (
        "no candidate passed every SHAPES entry (1 timed at some of them, each one's outcome in the session "
        "record); kernel.py left unchanged"
    )
    nothing = _session([cut])
    assert verdict_line(nothing, judge_gain(nothing), kernel_py="kernel.py", written=False, dry_run=False) == (
        "no candidate ran (each one's outcome is in the session record); kernel.py left unchanged"
    )
