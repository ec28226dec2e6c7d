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


def test_b2_tune_json_gives_no_one_configuration_speedup_beside_a_table_s_verdict() -> None:
    """b2: ``tune --json`` on an autotune list pruned by size wrote a per-bucket table (``better: true``,
    ``gain_pct`` 1361) beside ``speedup: 0.0995``, the one best configuration's (BLOCK=16, the only one every entry's
    prune kept, ten times slower than the current list): a script reading ``speedup`` read a slowdown written.
    Where a table was judged the one-configuration speedup is ``None``; the best alone keeps it."""
    from kernelopt.tuning.folder import judged_speedup
    from kernelopt.tuning.session import GainJudgement

    slow = _session([]).model_copy(update={"best_config": {"BLOCK": 16}, "best_latency_us": 323897.8})
    slow = slow.model_copy(update={"current_latency_us": 32224.7})
    table = GainJudgement(better=True, gain_pct=1360.9, min_gain_pct=2.0, reason="per-bucket", table=True)
    assert slow.speedup is not None and slow.speedup < 0.1
    assert judged_speedup(slow, table) is None
    alone = GainJudgement(better=False, gain_pct=-90.0, min_gain_pct=2.0, reason="slower")
    assert judged_speedup(slow, alone) == slow.speedup


def test_b3_a_candidate_cut_by_its_time_limit_is_not_said_to_fail_a_check() -> None:
    """b3: under load the row-stats session's 60 s request limit cut six candidates at 64 x 40 (0.5-0.6 s a call in
    the interpreter), each a ``run_timeout`` timed nowhere; the failures line said they "failed a SHAPES entry's
    check". A cut says it ran out of time; a wrong result keeps "failed"; both together say either."""
    from kernelopt.cli.tune import failures_line

    def ended(block: int, outcome: Outcome) -> Result:
        return Result(
            config={"BLOCK": block}, outcome=outcome, reason="at n_rows=64", failed_entry="n_rows=64,n_cols=40"
        )

    cut = _session([ended(16, Outcome.RUN_TIMEOUT), ended(64, Outcome.RUN_TIMEOUT)])
    assert "2 of them ran out of time at a SHAPES entry's check and were timed nowhere" in (failures_line(cut) or "")
    wrong = _session([ended(16, Outcome.WRONG_RESULT)])
    assert "1 of them failed a SHAPES entry's check and were timed nowhere" in (failures_line(wrong) or "")
    both = _session([ended(16, Outcome.WRONG_RESULT), ended(64, Outcome.RUN_TIMEOUT)])
    assert "2 of them failed or ran out of time at a SHAPES entry's check" in (failures_line(both) or "")
