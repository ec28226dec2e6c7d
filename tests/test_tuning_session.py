"""A tuning session: the loop under the budget, the record appended as results arrive, an interrupt mid-batch
and a resume that never times a recorded configuration again, the final re-time, the gain judgement.

The hardware is a recorded sweep (``ReplayEvaluator``) wrapped to count, fail or interrupt; the record is
a real file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.errors import RecordError, UsageError
from kernelopt.tuning.budget import Budget, ManualClock, stalled
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.record import RecordHeader, SessionRecord, SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import SessionResult, StopReason, current_failed_line, judge_gain, no_gain, tune
from kernelopt.tuning.space import Space

SWEEPS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps"


def sweep(name: str) -> SweepFile:
    return read_sweeps(SWEEPS / f"{name}.json")[0]


class Counting:
    """A replay that remembers what it was asked to evaluate, and raises KeyboardInterrupt at the
    ``interrupt_at``-th configuration (counted over all batches), in the middle of a batch."""

    def __init__(self, s: SweepFile, clock: ManualClock, interrupt_at: int | None = None) -> None:
        self.inner = ReplayEvaluator(s, clock)
        self.asked: list[str] = []
        self.retimed: list[str] = []
        self.interrupt_at = interrupt_at

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = []
        for c in batch:
            if self.interrupt_at is not None and len(self.asked) == self.interrupt_at:
                raise KeyboardInterrupt
            self.asked.append(c.key())
            out += self.inner.evaluate([c])
        return [r.model_copy(update={"recorded": False}) for r in out]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        self.retimed += [c.key() for c in batch]
        return self.inner.retime(batch)

    def close(self) -> None:
        pass


def session(
    space: Space, ev: Counting, clock: ManualClock, record: SessionRecord | None = None, **kw: object
) -> SessionResult:
    budget = Budget.default(space.size.count, clock)
    return tune(space, ev, budget=budget, record=record, rng_seed=7, **kw)  # type: ignore[arg-type]


def test_a_session_spends_its_budget_and_retimes_the_top_few() -> None:
    s = sweep("rmsnorm_bf16")
    space, clock = space_from_sweep(s), ManualClock()
    ev = Counting(s, clock)
    res = session(space, ev, clock)
    assert res.stop is StopReason.CANDIDATES and res.evaluations == res.budget == 24 and res.served == 0
    assert len(set(ev.asked)) == 24 and ev.asked[0] == space.default().key()  # the current configuration first
    assert res.current_config == s.naive_config and res.current_latency_us is not None
    assert len(ev.retimed) == 4  # the three fastest and the current configuration
    best = min((r for r in res.results if r.latency_us is not None), key=lambda r: r.latency_us or 0)
    assert res.best_config == best.config and res.retimed and all(r.retimed for r in res.retimed)
    assert res.speedup is not None and res.speedup > 1
    assert res.wall_s == pytest.approx(clock())


def test_interrupt_mid_batch_keeps_the_record_and_resume_times_nothing_again(tmp_path: Path) -> None:
    s = sweep("layernorm")
    space = space_from_sweep(s)
    header = RecordHeader.for_space(space, device="cuda", gpu="NVIDIA H200", versions={"triton": "3.6.0"})
    path = tmp_path / "session.jsonl"

    clock = ManualClock()
    first = Counting(s, clock, interrupt_at=11)
    cut = session(space, first, clock, SessionRecord.open(path, header))
    assert cut.stop is StopReason.INTERRUPTED and not cut.retimed
    kept = cut.evaluations
    assert 0 < kept < len(first.asked)  # the interrupt fell inside a batch: its first results are lost
    assert cut.best_latency_us is not None  # the best so far
    recorded = SessionRecord.read(path)
    assert [r.key for r in recorded.results] == first.asked[:kept]

    clock = ManualClock()
    again = Counting(s, clock)
    resumed = session(space, again, clock, SessionRecord.open(path, header))
    assert resumed.served == kept and resumed.evaluations == resumed.budget - kept
    assert not set(again.asked) & set(first.asked[:kept])  # nothing recorded is timed again
    assert set(first.asked[kept:]) <= set(again.asked)  # what the interrupt lost is timed now
    assert [r.recorded for r in resumed.results[:kept]] == [True] * kept

    clock = ManualClock()
    whole = session(space, Counting(s, clock), clock)
    assert [r.key for r in resumed.results] == [r.key for r in whole.results]  # same path as never cut
    assert resumed.best_config == whole.best_config


def test_record_lines_torn_tails_and_other_spaces(tmp_path: Path) -> None:
    s = sweep("sumsq")
    space = space_from_sweep(s)
    path = tmp_path / "r.jsonl"
    record = SessionRecord.open(path, RecordHeader.for_space(space))
    clock = ManualClock()
    session(space, Counting(s, clock), clock, record)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 24 + 4  # header, the candidates, the re-times
    with path.open("a") as fh:
        fh.write('{"kind": "result", "result": {"config": {"BLOCK_')  # the process died mid-write
    back = SessionRecord.read(path)
    assert back.torn_tail and len(back.results) == 28 and len(back.served()) == 24
    reopened = SessionRecord.open(path, RecordHeader.for_space(space))
    assert not reopened.torn_tail and path.read_text().endswith("}\n")
    other = space_from_sweep(sweep("elementwise"))
    with pytest.raises(RecordError, match="another space"):
        SessionRecord.open(path, RecordHeader.for_space(other))
    path.write_text(lines[0] + "\nnot json\n" + lines[1] + "\n")
    with pytest.raises(RecordError) as damaged:
        SessionRecord.read(path)
    assert damaged.value.one_line() == (
        f"{path}:2: not a session record result line (not JSON: a damaged line); delete {path} to start the "
        "session over (the record only keeps measurements)"
    )


def test_failures_are_results_and_the_session_goes_on() -> None:
    s = sweep("transpose_fp32")  # two configurations failed to launch (shared memory)
    space, clock = space_from_sweep(s), ManualClock()
    res = tune(space, Counting(s, clock), budget=Budget(200, clock), strategy="exhaustive")
    assert res.stop is StopReason.STRATEGY_DONE and len(res.results) == 125
    failed = [r for r in res.results if r.outcome is Outcome.COMPILE_ERROR]
    assert len(failed) == 2 and all(r.reason for r in failed)
    assert res.best_latency_us == s.best().latency_us  # type: ignore[union-attr]


class CurrentWrong(Counting):
    """A replay in which the kernel as written (the sweep's naive configuration) gives a wrong result."""

    def __init__(self, s: SweepFile, clock: ManualClock, current: Config) -> None:
        super().__init__(s, clock)
        self.current = current

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = super().evaluate(batch)
        why = "on the SHAPES entry M=32: output differs from the reference beyond tolerance (fp32)"
        return [
            Result.failed(r.config, Outcome.WRONG_RESULT, why) if c == self.current else r
            for c, r in zip(batch, out, strict=True)
        ]


def test_a_kernel_wrong_as_written_ends_the_session_after_its_round() -> None:
    # on the H100 (2026-12-05) an fp32 GEMM whose tl.dot ran in TF32 spent 340 candidates on wrong results
    s = sweep("rmsnorm_bf16")
    space, clock = space_from_sweep(s), ManualClock()
    ev = CurrentWrong(s, clock, space.default())
    res = session(space, ev, clock)
    assert res.stop is StopReason.CURRENT_FAILED
    assert ev.asked[0] == space.default().key() and len(ev.asked) <= 8  # its round only (a batch), never the budget
    assert ev.retimed == [] and res.best_config is None  # nothing re-timed, nothing picked to be written
    line = current_failed_line(res, "kernel.py")
    assert line is not None and line.startswith("kernel.py as written fails its own correctness check")
    assert "on the SHAPES entry M=32" in line
    ok = session(space, Counting(s, clock), clock)  # the same session with a correct kernel goes on
    assert ok.stop is not StopReason.CURRENT_FAILED and current_failed_line(ok) is None


def test_a_default_budget_ends_a_stalled_session_and_a_count_runs_whole() -> None:
    s = sweep("skinny_gemm")  # 591 timed configurations: a default budget of 118
    space, clock = space_from_sweep(s), ManualClock()
    res = session(space, Counting(s, clock), clock)
    assert res.stop is StopReason.STALLED and res.budget == 118 and res.evaluations < res.budget
    assert stalled([r.latency_us if r.outcome.ok else None for r in res.results])
    assert res.retimed and res.best_latency_us is not None  # the top few are re-timed as at any end
    counted = tune(space, Counting(s, ManualClock()), budget=Budget.from_count(591, 119, ManualClock()), rng_seed=7)
    assert counted.stop is StopReason.CANDIDATES and counted.evaluations == 119


def test_wall_time_keeps_the_retime_s_share_and_returns_the_best_so_far() -> None:
    """The rounds leave the re-time of the picks so far its share of the wall time (pace12: on the H100, 2026-12-06,
    scaled_mm's rounds took its 60 s to 0.6 s, its 3.04x could not be re-timed, and nothing was written)."""
    s = sweep("softmax")
    space, clock = space_from_sweep(s), ManualClock()
    ev = Counting(s, clock)
    per = ev.inner.seconds_per_config
    res = tune(space, ev, budget=Budget(100, clock, wall_s=10 * per - 1e-9), rng_seed=1)
    # rounds of 4 and 3, leaving the re-time a quarter of the wall (2.5 candidates' seconds, under its 4 picks'):
    # it re-times 2 of them, the fastest and the current configuration
    assert res.stop is StopReason.WALL_TIME and res.evaluations == 7 and len(ev.retimed) == 2
    assert res.wall_s <= 10 * per and res.unretimed is not None
    assert res.best_latency_us is not None


def test_the_wall_time_bounds_the_session_and_is_its_stop_when_it_ran_out() -> None:
    """docs/faults.md, a new user's kernels: ``tune --budget-wall-s 90`` ran 138 s and said "candidates": its
    last round, sent before 90 s, ran to its end and spent the candidates too. A round is now only as large as
    the wall time left fits at the last round's pace, and a session out of wall time says so."""
    s = sweep("softmax")
    space, clock = space_from_sweep(s), ManualClock()
    ev = Counting(s, clock)
    per = ev.inner.seconds_per_config
    # 12 candidates (three rounds of 4) in a wall time of 10.5 candidates: rounds of 4 and 3, then none fits beside
    # the re-time's share (its picks: the three fastest and the current configuration)
    res = tune(space, ev, budget=Budget(12, clock, wall_s=10.5 * per), rng_seed=1)
    assert res.stop is StopReason.WALL_TIME and res.evaluations == 7 and res.wall_s <= 10.5 * per
    assert len(ev.retimed) == 3

    class SlowStart(Counting):
        """The first round also pays the workers' start (30 candidates' seconds), as on the hardware."""

        def evaluate(self, batch: Sequence[Config]) -> list[Result]:
            if not self.asked:
                clock.advance(30 * per)
            return super().evaluate(batch)

    clock.now_s = 0.0
    slow = SlowStart(s, clock)
    res = tune(space, slow, budget=Budget(100, clock, wall_s=60 * per), rng_seed=1)
    # the start's cost is charged to the first round only: the later rounds run at their own pace
    assert res.stop is StopReason.WALL_TIME and res.wall_s <= 60 * per and res.evaluations >= 24
    # a last round that spends the candidates and passes the wall time ran out of wall time
    clock.now_s = 0.0
    over = Counting(s, clock)
    res = tune(space, over, budget=Budget(4, clock, wall_s=2 * per), rng_seed=1)
    assert res.evaluations == 4 and res.stop is StopReason.WALL_TIME and not over.retimed


def test_the_workers_start_is_paid_by_the_wall_time_not_by_the_pace() -> None:
    """H100, 2026-12-06 (docs/gpu-runs/2026-12-06-h100-c): mamba_ssu's current configuration, timed alone, took
    30.2 s of a 60 s wall, 6.5 s of it its own compile, check and timing and the rest its four workers' start; the
    budget took 30.2 s as the pace of a candidate and stopped with 29.8 s left. An evaluator that starts its
    workers in ``start`` (as KernelEvaluator and ShapesEvaluator do) is started before the round's clock."""
    s = sweep("softmax")
    space, clock = space_from_sweep(s), ManualClock()

    class StartsWorkers(Counting):
        started = False

        def start(self, compile_workers: int = 0) -> None:
            if not self.started:
                self.started = True
                clock.advance(30 * per)

        def evaluate(self, batch: Sequence[Config]) -> list[Result]:
            self.start()  # as the real evaluators do: a first evaluate starts the workers
            return super().evaluate(batch)

    ev = StartsWorkers(s, clock)
    per = ev.inner.seconds_per_config
    res = tune(space, ev, budget=Budget(100, clock, wall_s=60 * per), batch_size=1, rng_seed=1)
    # 30 candidates' seconds left after the start, one a round: about 30 evaluated, never the one the start's
    # seconds taken as the pace would allow
    assert res.stop is StopReason.WALL_TIME and res.evaluations >= 28 and res.wall_s <= 60 * per


def test_a_wall_time_passing_between_two_looks_at_the_clock_is_a_wall_time_stop() -> None:
    """The clock moves a second each time it is read; the wall time (1.5 s) passes between the session's
    check of its limits and its asking the strategy: the stop is the wall time, never "nothing left"."""
    s = sweep("softmax")
    space, replay_clock = space_from_sweep(s), ManualClock()
    ticks = iter(range(1000))
    res = tune(space, Counting(s, replay_clock), budget=Budget(100, lambda: float(next(ticks)), wall_s=1.5))
    assert res.stop is StopReason.WALL_TIME and res.evaluations > 0


def test_the_least_wall_time_times_the_first_round_on_the_real_clock() -> None:
    """``budget.MIN_WALL_S`` (1 s) is enough for the first round: the session looks at the clock before each
    round, and its first look comes milliseconds after the budget starts (strategy and seeds built). Measured
    on the wall clock (``time.monotonic``), the evaluator replaying at no cost."""
    import time

    from kernelopt.tuning.budget import MIN_WALL_S

    s = sweep("matmul")  # the largest recorded space (480 configurations): the slowest strategy to build
    space = space_from_sweep(s)
    res = tune(space, Counting(s, ManualClock()), budget=Budget(4, time.monotonic, wall_s=MIN_WALL_S), rng_seed=3)
    assert res.evaluations == 4 and res.best_latency_us is not None


def test_seeds_come_first_and_bad_seeds_are_refused() -> None:
    s = sweep("sumsq")
    space, clock = space_from_sweep(s), ManualClock()
    seed = Config.of({"BLOCK_SIZE": 32768, "num_warps": 32})
    ev = Counting(s, clock)
    tune(space, ev, budget=Budget(5, clock), seeds=[seed])
    assert ev.asked[:2] == [space.default().key(), seed.key()]
    with pytest.raises(UsageError, match="not a configuration of the space"):
        tune(space, ev, budget=Budget(5, clock), seeds=[Config.of({"BLOCK_SIZE": 3, "num_warps": 32})])


def test_gain_judgement() -> None:
    s = sweep("rmsnorm_bf16")
    space, clock = space_from_sweep(s), ManualClock()
    res = session(space, Counting(s, clock), clock)
    judged = judge_gain(res)
    assert judged.better and judged.gain_pct is not None and judged.gain_pct > 100 and not no_gain(res)
    flat = res.model_copy(update={"best_latency_us": res.current_latency_us})
    assert no_gain(flat) and "does not beat" in judge_gain(flat).reason
    assert no_gain(res.model_copy(update={"best_latency_us": None}))
    assert not no_gain(res.model_copy(update={"current_latency_us": None}))  # the current one failed
    assert no_gain(res, min_gain_pct=1e9)
