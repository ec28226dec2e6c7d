"""Cutting far-slower candidates early: the rule, the real bench worker on the CPU (Triton's interpreter set, as
``kernelopt tune --device cpu`` runs), and a session that never picks nor re-times a cut candidate.

The worker part runs one evaluator (one worker start imports torch: seconds) over a plain add (the best), then
candidates 0.3 s a call, 3 ms a call, and fast on their check but 5 s a call after it (without the cut: the
candidate limit, a ``run_timeout``)."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tuning.bench_worker import (
    CUT_CALL_FACTOR,
    CUT_FACTOR,
    CUT_MIN_CALL_S,
    CUT_PROBE_SAMPLES,
    BenchPlan,
    cut_after,
)
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator
from kernelopt.tuning.problem import Problem
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import tune

DATA = Path(__file__).parent / "data"
ADD = DATA / "tuning" / "add"
SLOW = DATA / "slowcut"
SWEEPS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps"


@pytest.mark.timeout(10)
def test_the_cut_needs_every_one_of_the_first_samples_above_the_bound() -> None:
    bound = CUT_FACTOR * 10.0
    slow = [bound * 2] * CUT_PROBE_SAMPLES
    assert cut_after(slow, bound)
    assert not cut_after(slow[:-1], bound)  # too few samples yet
    assert not cut_after([*slow[:-1], bound * 0.9], bound)  # one sample within the bound: timed in full
    assert not cut_after([bound * 0.5, *slow], bound)  # a later preempted sample does not count: the first ones do


def _apply(config: Config) -> str:
    name = str(config["variant"])
    return (DATA / "tuning" / "candidates" / "ok.py").read_text() if name == "ok" else (SLOW / f"{name}.py").read_text()


def _evaluator(tmp: Path, *, cut: bool, limit_s: float = 8.0) -> KernelEvaluator:
    settings = EvaluatorSettings(
        plan=BenchPlan(warmup_calls=1, repetitions=6, extra_rounds=0),
        bench_timeout_s=limit_s,
        startup_timeout_s=120.0,
        cut_slow=cut,
    )
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    return KernelEvaluator(
        Problem.from_folder(ADD, device="cpu"),
        (ADD / "kernel.py").read_text(),
        _apply,
        session_dir=tmp,
        settings=settings,
        env=env,
    )


@pytest.mark.timeout(240)
def test_the_bench_worker_cuts_slow_candidates_and_goes_on(tmp_path: Path) -> None:
    names = ["ok", "slow_calls", "slow_ms", "slow_after_first", "ok2"]
    batch = [Config.of({"variant": "ok" if n == "ok2" else n}) for n in names]
    batch[-1] = Config.of({"variant": "ok", "again": 1})  # the same source: evaluated once, answered twice
    with _evaluator(tmp_path, cut=True) as ev:
        assert ev.start().device == "cpu" and ev.problem.interpreted
        t0 = time.monotonic()
        out = dict(zip(names, ev.evaluate(batch), strict=True))
        wall = time.monotonic() - t0
        # the worker is started again after the interrupted call, and serves the next candidate
        [after] = ev.evaluate([Config.of({"variant": "slow_ms", "again": 2})])
        starts = ev.bench_starts
    print(f"\n{len(batch)} candidates in {wall:.1f} s; bench worker starts: {starts}")
    best = out["ok"]
    assert best.outcome is Outcome.OK and not best.cut_slow and best.latency_us is not None
    for name in ("slow_calls", "slow_ms", "slow_after_first"):
        r = out[name]
        assert r.outcome is Outcome.OK and r.cut_slow, (name, r)
        factor = CUT_CALL_FACTOR if name != "slow_ms" else CUT_FACTOR  # one stopped call, or the first samples
        assert r.reason is not None and r.reason.startswith("cut: ") and f"{factor:g}x" in r.reason, r.reason
        assert r.latency_us is not None and r.latency_us > CUT_FACTOR * best.latency_us
    # the 0.8 s candidate: cut on its check's first call, no timing at all
    assert out["slow_calls"].samples_us == [pytest.approx(out["slow_calls"].latency_us)]
    assert out["slow_calls"].latency_us >= CUT_MIN_CALL_S * 1e6 and out["slow_calls"].bench_s == 0.0
    # the 3 ms one: its first samples, not its six
    assert len(out["slow_ms"].samples_us) == CUT_PROBE_SAMPLES
    # 5 s a call after its check: cut at the call deadline, long before the 8 s candidate limit
    assert out["slow_after_first"].bench_s is not None and out["slow_after_first"].bench_s < 3.0
    assert starts == 2  # the interrupted call's worker was started again (once)
    assert after.outcome is Outcome.OK and after.cut_slow
    assert wall < 8.0, wall


@pytest.mark.timeout(120)
def test_without_the_cut_the_slow_candidate_runs_to_the_candidate_limit(tmp_path: Path) -> None:
    """The baseline the cut is measured against: the same candidate, uncut, is a ``run_timeout`` at the limit."""
    with _evaluator(tmp_path, cut=False, limit_s=2.5) as ev:
        ev.start()
        ok, slow = ev.evaluate([Config.of({"variant": "ok"}), Config.of({"variant": "slow_after_first"})])
    assert ok.outcome is Outcome.OK and not ok.cut_slow
    assert slow.outcome is Outcome.RUN_TIMEOUT and not slow.cut_slow


class _Cutting:
    """A recorded sweep replayed, with the cut the bench worker makes scripted: a result above ``CUT_FACTOR`` x the
    best so far keeps its first samples and is flagged; ``forced`` configurations are flagged whatever their speed
    (to show that a cut candidate is never picked nor re-timed, even where its few samples read fastest)."""

    def __init__(self, s: SweepFile, clock: ManualClock, forced: set[str]) -> None:
        self.inner = ReplayEvaluator(s, clock)
        self.forced = forced
        self.best: float | None = None
        self.retimed: list[str] = []

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = []
        for r in self.inner.evaluate(batch):
            r = r.model_copy(update={"recorded": False})
            lat = r.latency_us
            slow = lat is not None and self.best is not None and lat > CUT_FACTOR * self.best
            if r.outcome.ok and (slow or r.key in self.forced):
                r = r.model_copy(update={"cut_slow": True, "reason": "cut: scripted"})
            elif r.outcome.ok and lat is not None:
                self.best = lat if self.best is None else min(self.best, lat)
            out.append(r)
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        self.retimed += [c.key() for c in batch]
        return self.inner.retime(batch)

    def close(self) -> None:
        pass


@pytest.mark.timeout(30)
def test_a_cut_candidate_counts_against_the_budget_and_is_never_picked_nor_retimed() -> None:
    s = read_sweeps(SWEEPS / "rmsnorm_bf16.json")[0]
    space, clock = space_from_sweep(s), ManualClock()
    fastest = min((e for e in s.configs if e.latency_us is not None), key=lambda e: e.latency_us or 0.0)
    forced = Config.of(fastest.config).key()
    ev = _Cutting(s, clock, {forced})
    res = tune(space, ev, budget=Budget.default(space.size.count, clock), rng_seed=7)
    cut = [r for r in res.results if r.cut_slow]
    assert forced in {r.key for r in cut}  # it was evaluated, and flagged
    assert res.evaluations == res.budget  # a cut candidate is charged as one candidate, as a timed one is
    assert res.best_config is not None and Config.of(res.best_config).key() != forced
    assert not {r.key for r in cut} & set(ev.retimed)
    assert all(r.outcome is Outcome.OK and r.latency_us is not None for r in cut)
