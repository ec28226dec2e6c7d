"""The tuner's pace (pace12): where a session's wall goes, and what it spends it on.

The H100 run of 2026-12-06 (``docs/tuning-engine.md`` "The pace of a session") spent most of ``tune --device cuda``'s
60 s outside its candidates: three ``SHAPES`` entries' workers started one after another (about 24 s), a hung candidate
waited out its whole 60 s limit (mamba_ssu ran 103 s of its 60 s wall), and each candidate was loaded and checked again
on every entry it was timed on. Here: a session's workers start before its budget's clock, every entry's together; each
request a candidate makes is bounded by a multiple of the session's pace and by the wall time left, and says so when
cut; a session ends within its wall time plus :data:`~kernelopt.tuning.pace.WALL_MARGIN_S`; a bench worker times a
candidate it has just checked without loading and checking it again.

The session's tests run on a fake clock with a fake evaluator that bounds each request as the real ones do (seconds,
exact, at no cost); the workers' tests run real bench workers on the CPU (Triton's interpreter, a vector add).
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.pace import LEAST_REQUEST_S, PACE_FACTOR, PACE_FLOOR_S, WALL_MARGIN_S, CandidateLimit
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import StopReason, tune

SWEEPS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps"
ADD = Path(__file__).parent / "data" / "tuning" / "add"

#: A candidate's own limit (``--candidate-timeout-s``), and the re-time's.
OWN_S, RETIME_S = 60.0, 300.0


def _sweep(name: str = "softmax") -> SweepFile:
    return read_sweeps(SWEEPS / f"{name}.json")[0]


class Paced:
    """A recorded sweep's results on a fake clock: each candidate's request takes ``per_s`` seconds, a hung one never
    answers, and each is bounded by the session's limit as :class:`KernelEvaluator` bounds it (past its limit: a
    ``RUN_TIMEOUT`` that says why; no time for it: not sent, ``NOT_RUN_BUDGET``). Its workers' start takes
    ``start_s``."""

    def __init__(self, s: SweepFile, clock: ManualClock, *, per_s: float, hung: set[str], start_s: float = 0.0):
        self.inner = ReplayEvaluator(s, ManualClock())
        self.clock, self.per_s, self.hung, self.start_s = clock, per_s, hung, start_s
        self.limit: CandidateLimit | None = None
        self.started: list[float] = []  # the clock when start was called
        self.limits: list[float] = []  # each request's limit

    def start(self, compile_workers: int = 0) -> None:
        if not self.started:
            self.started.append(self.clock())
            self.clock.advance(self.start_s)

    def bound(self, limit: CandidateLimit | None) -> None:
        self.limit = limit

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        self.start()
        out = []
        for c in batch:
            assert self.limit is not None
            limit = self.limit.seconds(OWN_S)
            if limit is None:
                out.append(Result.failed(c, Outcome.NOT_RUN_BUDGET, "not sent: no time left"))
                self.limit.cut += 1
                continue
            self.limits.append(limit)
            if c.key() in self.hung or self.per_s > limit:
                self.clock.advance(limit)
                why = self.limit.why(limit, OWN_S)
                self.limit.cut += why is not None
                out.append(Result.failed(c, Outcome.RUN_TIMEOUT, f"no reply within {limit:g} s; {why}"))
                continue
            self.clock.advance(self.per_s)
            [r] = self.inner.evaluate([c])
            seconds = {"check_s": 0.25 * self.per_s, "bench_s": 0.75 * self.per_s}  # its check and timing: its pace
            out.append(r.model_copy(update={"recorded": False, **seconds}))
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        assert self.limit is not None
        limit = self.limit.seconds(RETIME_S)
        self.clock.advance(min(len(batch) * self.per_s, LEAST_REQUEST_S if limit is None else limit))
        return self.inner.retime(batch)

    def close(self) -> None:
        pass


def test_a_request_s_limit_is_the_least_of_its_own_the_pace_s_multiple_and_the_wall_time_left() -> None:
    clock = ManualClock()
    budget = Budget(100, clock, wall_s=60.0)
    budget.start()
    limit = CandidateLimit(budget)
    assert limit.seconds(OWN_S) == OWN_S and limit.why(OWN_S, OWN_S) is None  # no pace yet: the first is never cut
    limit.observe(2.0)
    assert limit.seconds(OWN_S) == PACE_FLOOR_S  # 5 x 2 s is under the floor
    limit.observe(9.0), limit.observe(10.0)  # the median, 9 s: 45 s
    assert limit.seconds(OWN_S) == PACE_FACTOR * 9.0
    why = limit.why(PACE_FACTOR * 9.0, OWN_S)
    assert why is not None and why.startswith("cut at the session's pace: 5x the 9 s a candidate")
    clock.advance(40.0)  # 20 s of the wall left
    assert limit.seconds(OWN_S) == 20.0
    assert limit.why(20.0, OWN_S) == "cut at the end of the session's wall time (60 s), under the 60 s limit"
    clock.advance(19.5)  # under a second left: not sent
    assert limit.seconds(OWN_S) is None
    limit.retiming = True  # the re-time: the margin, and no pace
    assert limit.seconds(RETIME_S) == pytest.approx(0.5 + WALL_MARGIN_S)


def test_the_workers_start_before_the_budget_s_clock_and_the_pace_says_where_the_wall_went() -> None:
    """Three entries' workers took about 24 s of scaled_mm's 60 s wall on the H100 (2026-12-06), 9 candidates timed:
    now the start comes before the wall, and the candidates have all of it."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = Paced(s, clock, per_s=1.5, hung=set(), start_s=24.0)
    res = tune(space, ev, budget=Budget(100, clock, wall_s=60.0), rng_seed=1)
    assert ev.started == [0.0] and res.pace is not None and res.pace.start_s == 24.0
    assert res.wall_s <= 60.0 and clock() == pytest.approx(24.0 + res.wall_s)
    assert res.evaluations >= 36  # at 1.5 s a candidate, 60 s fits 40 less the re-time's
    assert res.pace.rounds_s == pytest.approx(1.5 * res.evaluations)
    assert res.pace.check_s == pytest.approx(0.25 * 1.5 * res.evaluations)
    assert res.pace.retime_s > 0 and res.retimed
    assert res.pace.screen_s == 0.0  # no edit layer here: nothing screened, on a clock that moves only when told
    assert res.pace.other_s == pytest.approx(res.wall_s - res.pace.rounds_s - res.pace.retime_s)
    line = res.pace.line()
    assert line.startswith("start 24.0 s before the wall; wall ") and "re-time" in line


def test_a_hung_candidate_is_cut_at_the_session_s_pace_not_its_whole_limit() -> None:
    """mamba_ssu on the H100 (2026-12-06): candidates of 4-6 s, one that never answered held the session 60 s. Here
    it is cut at the floor (30 s), its reason says so, and the session goes on to re-time its best."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    hung = {_proposed(space, rng_seed=1, n=3)[1].key()}  # the first candidate after the kernel as written
    ev = Paced(s, clock, per_s=5.0, hung=hung)
    res = tune(space, ev, budget=Budget(8, clock, wall_s=600.0), rng_seed=1, batch_size=1)
    cut = [r for r in res.results if r.outcome is Outcome.RUN_TIMEOUT]
    assert len(cut) == 1 and cut[0].key in hung
    assert "cut at the session's pace: 5x the 5 s a candidate" in (cut[0].reason or "")
    assert max(ev.limits) == OWN_S and PACE_FLOOR_S in ev.limits  # the first alone had its own limit
    assert res.pace is not None and res.pace.cut == 1 and res.best_config is not None and res.retimed


class HangsAt(Paced):
    """:class:`Paced` whose ``at``-th candidate evaluated (from 1) never answers."""

    def __init__(self, *args, at: int, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.at, self.seen = at, 0

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        for c in batch:
            self.seen += 1
            if self.seen == self.at:
                self.hung.add(c.key())
        return super().evaluate(batch)


def test_a_cut_candidate_s_wait_is_not_charged_to_the_re_time() -> None:
    """mamba_ssu on the H100 (2026-12-06, after the pace fix): a round held a candidate cut after 30 s, the pace read
    10.3 s a candidate, and 14 s of its 60 s wall "could not fit" a re-time of four whose checks and timings took about
    2.5 s each: nothing written. The re-time is reckoned at what it does a pick (the median check and timing)."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = HangsAt(s, clock, per_s=3.0, hung=set(), at=6)  # in the second round of four
    res = tune(space, ev, budget=Budget(100, clock, wall_s=60.0), rng_seed=1, batch_size=4)
    assert [r.key for r in res.results if r.outcome is Outcome.RUN_TIMEOUT] == sorted(ev.hung)
    assert len(res.retimed) >= 2, res.unretimed
    assert res.wall_s <= 60.0 + WALL_MARGIN_S


def _proposed(space, *, rng_seed: int, n: int) -> list[Config]:  # type: ignore[no-untyped-def]
    """The first ``n`` configurations a session of ``space`` evaluates (one a round), read from a quick session."""
    clock = ManualClock()
    inner = ReplayEvaluator(_sweep(), clock)
    seen: list[Config] = []

    class Seeing:
        def evaluate(self, batch: Sequence[Config]) -> list[Result]:
            seen.extend(batch)
            return [r.model_copy(update={"recorded": False}) for r in inner.evaluate(batch)]

        def retime(self, batch: Sequence[Config]) -> list[Result]:
            return inner.retime(batch)

        def close(self) -> None:
            pass

    tune(space, Seeing(), budget=Budget(n, clock), rng_seed=rng_seed, batch_size=1, retime_top=0)
    return seen[:n]


@pytest.mark.parametrize("seed", range(6))
def test_a_session_ends_within_its_wall_time_and_the_margin_whatever_hangs(seed: int) -> None:
    """Random paces, hung candidates anywhere (the first too), wall times from 20 to 120 s: the clock never passes the
    wall time plus :data:`WALL_MARGIN_S` (before: a request sent at the end of the wall time had its whole 60 s)."""
    rng = random.Random(seed)
    s = _sweep("layernorm")
    space = space_from_sweep(s)
    keys = [c.key() for c in space.configs()]
    for _ in range(4):
        clock = ManualClock()
        wall = rng.uniform(20.0, 120.0)
        hung = set(rng.sample(keys, len(keys) // 5))
        if rng.random() < 0.5:
            hung.add(space.default().key())
        ev = Paced(s, clock, per_s=rng.uniform(0.5, 12.0), hung=hung, start_s=rng.uniform(0, 30))
        res = tune(space, ev, budget=Budget(200, clock, wall_s=wall), rng_seed=seed, batch_size=rng.choice([1, 4]))
        assert res.wall_s <= wall + WALL_MARGIN_S, (wall, res.wall_s, res.stop)
        assert res.stop in (StopReason.WALL_TIME, StopReason.CANDIDATES, StopReason.STRATEGY_DONE)


# -- real bench workers on the CPU ------------------------------------------------------------------------------------


def _slow_folder(tmp_path: Path, sleep_s: float, shapes: int) -> Path:
    """The vector add with ``shapes`` ``SHAPES`` entries whose inputs take ``sleep_s`` to build (as a GPU worker's start
    takes seconds: its CUDA context, its inputs and reference)."""
    folder = tmp_path / "add"
    folder.mkdir(parents=True)
    shutil.copy(ADD / "kernel.py", folder / "kernel.py")
    entries = ", ".join(f'{{"n": {1 << (10 + k)}}}' for k in range(shapes))
    (folder / "reference.py").write_text(
        "import time\n\nimport torch\n\n"
        f"SHAPES = [{entries}]\n\n\n"
        "def get_inputs(n: int = 1024):\n"
        f"    time.sleep({sleep_s})\n"
        "    return [torch.randn(n), torch.randn(n)]\n\n\n"
        "def reference(x, y):\n    return x + y\n"
    )
    return folder


def _settings():  # type: ignore[no-untyped-def]
    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings

    return EvaluatorSettings(plan=BenchPlan(warmup_calls=1, repetitions=3, retime_rounds=2), bench_timeout_s=30.0)


def test_every_entry_s_workers_start_together_and_a_checked_candidate_is_timed_without_a_second_check(
    tmp_path: Path,
) -> None:
    """Three entries whose inputs take 2 s each to build start in about 2 s (2.2 s at load 19), not 6 s; a candidate
    checked on each is timed there without its load and check again (its timed results carry no check seconds of
    their own); with the wall time spent, no request is sent."""
    from kernelopt.tuning.kernel_evaluator import KernelEvaluator, knob_editor
    from kernelopt.tuning.problem import Problem, ProblemShape, literal_shapes
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    env = {**os.environ, "TRITON_INTERPRET": "1"}
    base = (ADD / "kernel.py").read_text()
    warm = _slow_folder(tmp_path / "warm", 0.0, 1)  # the process's fork server starts once (torch imported): not timed
    with KernelEvaluator(Problem.from_folder(warm, device="cpu"), base, knob_editor(base), session_dir=tmp_path / "s",
                         settings=_settings(), env=env) as first:  # fmt: skip
        first.start()
    folder = _slow_folder(tmp_path, 2.0, 3)
    problem = Problem.from_folder(folder, device="cpu")
    shapes = [ProblemShape(kwargs=k) for k in literal_shapes(folder / "reference.py") or []]
    assert len(shapes) == 3
    ev = ShapesEvaluator(
        problem, shapes, base, knob_editor(base), session_dir=tmp_path / "s", settings=_settings(), env=env
    )
    with ev:
        t0 = time.monotonic()
        ev.start()
        started_s = time.monotonic() - t0
        assert started_s < 4.5, started_s  # one after another: 6 s of sleeps alone
        config = Config.of({"BLOCK": 512})
        [r] = ev.evaluate([config])
        assert r.outcome is Outcome.OK and len(r.latency_us_by_shape) == 3
        first = ev.evaluators[0]
        [checked] = first.evaluate([Config.of({"BLOCK": 256})], timed=False)
        [timed] = first.evaluate([Config.of({"BLOCK": 256})])
        assert checked.outcome is Outcome.OK and checked.check_s is not None
        assert timed.outcome is Outcome.OK and timed.latency_us is not None and timed.check_s is None
        [fresh] = first.evaluate([Config.of({"BLOCK": 128})])  # timed without a check before: checked now
        assert fresh.outcome is Outcome.OK and fresh.check_s is not None
        clock = ManualClock()
        spent = Budget(10, clock, wall_s=5.0)
        spent.start()
        clock.advance(5.0)
        limit = CandidateLimit(spent)
        ev.bound(limit)
        [late] = ev.evaluate([Config.of({"BLOCK": 64})])
        assert late.outcome is Outcome.NOT_RUN_BUDGET and "not sent" in (late.reason or "") and limit.cut == 1


def test_a_hung_candidate_s_request_is_cut_at_the_session_s_pace_and_says_so(tmp_path: Path) -> None:
    """A real bench worker, a candidate that never returns: with the session's pace bound at 2 s (a floor of 2 s, 1x a
    pace of 0.5 s) its request is cut there, not at its own 30 s, and its reason says whose limit it was."""
    from kernelopt.tuning.kernel_evaluator import KernelEvaluator, Refusal
    from kernelopt.tuning.problem import Problem

    hang = (ADD.parent / "candidates" / "hang.py").read_text()

    def apply(config: Config) -> str | Refusal:
        return hang

    env = {**os.environ, "TRITON_INTERPRET": "1"}
    base = (ADD / "kernel.py").read_text()
    budget = Budget(10, time.monotonic, wall_s=600.0)
    budget.start()
    limit = CandidateLimit(budget, factor=1.0, floor_s=2.0)
    limit.observe(0.5)
    with KernelEvaluator(Problem.from_folder(ADD, device="cpu"), base, apply, session_dir=tmp_path, settings=_settings(),
                         env=env) as ev:  # fmt: skip
        ev.start()
        ev.bound(limit)
        t0 = time.monotonic()
        [r] = ev.evaluate([Config.of({"BLOCK": 64})])
        took = time.monotonic() - t0
    assert r.outcome is Outcome.RUN_TIMEOUT and took < 20.0, (r, took)
    assert "no reply within 2 s" in (r.reason or "") and "cut at the session's pace: 1x the 0.5 s" in (r.reason or "")
    assert limit.cut == 1


def test_a_request_with_no_time_left_is_not_sent_and_its_worker_is_not_started(tmp_path: Path) -> None:
    """The pool answers ``NOT_SENT`` for every request its limit says no to, without starting a worker for it."""
    from kernelopt.worker.client import WorkerProcess
    from kernelopt.worker.messages import FailureKind, Service
    from kernelopt.worker.pool import NOT_SENT, Job, WorkerPool

    worker = WorkerProcess(Service.BENCH, log_dir=tmp_path)
    answers = WorkerPool([worker]).run([Job("evaluate", {}), Job("evaluate", {})], timeout_s=lambda: None)
    assert [(a.outcome, a.reason) for a in answers] == [(FailureKind.NOT_SENT, NOT_SENT)] * 2  # type: ignore[union-attr]
    assert worker.starts == 0
