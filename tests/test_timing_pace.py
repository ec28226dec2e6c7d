"""A timing cut by its budget keeps to it at the machine's pace, not one block past it (tuneleft9).

``take_samples`` stopped at the end of the first whole block past its budget: on a loaded machine a reduced timing of
single calls (Triton's interpreter, seconds a call) ran past the budget by one whole block at the loaded pace, and past
the case's limit (tuneleft8's "seen, not changed": ``validate stencil_dw --device cpu`` at load 8 killed at 30.1 s in
the reduced timing of its smaller entry). A block is now started only where it ends within the budget at the last
block's pace, and with ``limit_s`` no sample is started that would end past the limit at the last sample's pace (its
block dropped whole). Timed on a fake clock the samples advance, so the figures are exact and cost nothing."""

from __future__ import annotations

import types

import pytest


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class _Sampler:
    """Each sample takes ``paces[i]`` seconds of the fake clock (the last pace from then on)."""

    def __init__(self, clock: _Clock, paces: list[float]) -> None:
        self.clock, self.paces, self.taken = clock, paces, 0

    def sample(self) -> float:
        pace = self.paces[min(self.taken, len(self.paces) - 1)]
        self.taken += 1
        self.clock.now += pace
        return pace * 1e6


def _timed(monkeypatch: pytest.MonkeyPatch, first: float, then: float, **kwargs: float) -> tuple[list[int], float]:
    """Two versions, three planned ABBA blocks (two samples of each a block); the first block's samples take
    ``first`` s each, every later one ``then`` s: how many samples each got and when the timing ended."""
    from kernelopt.harness import timers

    clock = _Clock()
    monkeypatch.setattr(timers, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    paces = [first, first, then]  # each sampler takes two samples a block
    samplers = [_Sampler(clock, paces), _Sampler(clock, paces)]
    got = timers.take_samples(samplers, timers.abba_order(2, 3), min_blocks=0, **kwargs)  # type: ignore[arg-type]
    return [len(x) for x in got], clock.now


def test_a_block_that_would_end_past_the_budget_at_the_last_block_s_pace_is_not_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The load doubled before the timing: a block of 8 s against a budget of 10 s. One block past it (16 s) was taken
    before; now the timing stops at 8 s with its one block."""
    assert _timed(monkeypatch, 2.0, 2.0, budget_s=10.0, block_s=4.0) == ([2, 2], 8.0)
    # no budget: the plan, whatever the clock
    assert _timed(monkeypatch, 2.0, 2.0) == ([6, 6], 24.0)


def test_no_sample_starts_past_the_limit_at_the_last_sample_s_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spike inside the second block (1 s samples, then 6 s): it started within the budget (4 + 4 <= 10 s) and, one
    whole block at the new pace, ended at 28 s, past the 20 s limit. Now its third sample would end at 22 s: the
    block is dropped whole, and the timing ends at 16 s with the first block's samples."""
    assert _timed(monkeypatch, 1.0, 6.0, budget_s=10.0, block_s=4.0, limit_s=20.0) == ([2, 2], 16.0)
    # without the limit the block is finished (the budget is only looked at between blocks): 28 s
    assert _timed(monkeypatch, 1.0, 6.0, budget_s=10.0, block_s=4.0) == ([4, 4], 28.0)


def test_the_bench_worker_s_reduced_timing_keeps_the_same_pace_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """``tune``'s bench worker times a slow candidate in single calls (Triton's interpreter): its own check of the
    last call's pace sat beside ``take_samples``' (leftovers10); both read :func:`timers.ends_past` now. A room of
    20 s, a first call of 1 s, then 6 s a call: calls end at 1, 7, 13 and 19 s, and the next (25 s) is not made."""
    from kernelopt.harness import timers
    from kernelopt.tuning import bench_worker

    clock = _Clock()
    fake = types.SimpleNamespace(perf_counter=clock.perf_counter)
    monkeypatch.setattr(timers, "time", fake)
    monkeypatch.setattr(bench_worker, "time", fake)
    paces = iter([1.0] + [6.0] * 20)

    def call() -> None:
        clock.now += next(paces)

    plan = bench_worker.BenchPlan(warmup_calls=1)
    got = bench_worker._reduced_timing(call, [], "cpu", plan, samples=10, room_s=20.0, gradients=False)
    assert got == [1e6, 6e6, 6e6, 6e6] and clock.now == 19.0
