"""honest18: a pick written only over a measured figure for the kernel as written (breaker18's l1: vllm_add_rms_op's
first candidates, its own settings, lost to the host's ``std::bad_alloc`` on a loaded CPU, and a per-bucket table was
written judged against no figure for the original), and a session's stated wall time holding through the phases
after its search (breaker18's l3: inductor_scan's 600 s session killed at 700 s). Scripted evaluators on a recorded
sweep and a manual clock: no real memory pressure, no real waiting."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import judge_gain, judge_table, machine_failed, tune, untimed_current

SWEEP = Path(__file__).parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "rmsnorm_bf16.json"
HOST_OOM = "on the SHAPES entry T=2,D=1030: out of memory while timing: MemoryError: std::bad_alloc (kernel.py:53)"
DEVICE_OOM = "on the SHAPES entry T=2,D=1030: out of memory while timing: OutOfMemoryError: CUDA out of memory."


class _OomCurrent:
    """A recorded sweep (the hardware) where the kernel as written runs out of memory when first evaluated, and,
    timed again alone (:meth:`retime` of it alone), is timed (``recovers``) or runs out again."""

    def __init__(self, sweep: SweepFile, clock: ManualClock, current: Config, reason: str, *, recovers: bool) -> None:
        self.inner = ReplayEvaluator(sweep, clock)
        self.current, self.reason, self.recovers = current, reason, recovers
        self.retimed: list[list[str]] = []

    def _oom(self, config: Config) -> Result:
        failed = Result.failed(config, Outcome.OUT_OF_MEMORY, self.reason)
        return failed.model_copy(update={"failed_entry": "T=2,D=1030"})

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = [r.model_copy(update={"recorded": False}) for r in self.inner.evaluate(batch)]
        return [self._oom(c) if c == self.current else r for c, r in zip(batch, out, strict=True)]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        self.retimed.append([c.key() for c in batch])
        out = self.inner.retime(batch)
        if self.recovers:
            return out
        return [self._oom(c) if c == self.current else r for c, r in zip(batch, out, strict=True)]

    def close(self) -> None:
        pass


def _session(reason: str, *, recovers: bool):
    [sweep] = read_sweeps(SWEEP)
    space, clock = space_from_sweep(sweep), ManualClock()
    current = space.current()
    assert current is not None
    ev = _OomCurrent(sweep, clock, current, reason, recovers=recovers)
    return tune(space, ev, budget=Budget.default(space.size.count, clock), rng_seed=7), ev, current


@pytest.mark.parametrize("recovers", [True, False])
def test_l1_a_host_out_of_memory_of_the_original_is_timed_again_and_nothing_is_written_without_its_figure(
    recovers: bool,
) -> None:
    """breaker18's l1 (2026-12-06 19:04 UTC, load 7-9): ``tune`` of vllm_add_rms_op lost ``ROWS=4`` and ``ROWS=1``,
    its own list, to "out of memory while timing: MemoryError: std::bad_alloc" at a peak of 86 MB, then wrote "a
    per-bucket table ...: the current configuration did not run; every row of the per-bucket table ran". The host's
    out-of-memory is the machine's: the original is timed once more alone; timed, it is the baseline; not, nothing
    is written, in one line that says which entry has no figure."""
    res, ev, current = _session(HOST_OOM, recovers=recovers)
    assert ev.retimed[0] == [current.key()]  # timed again alone, before the re-time of the top few
    judgement = judge_gain(res)
    if recovers:
        assert res.current_latency_us is not None and untimed_current(res) is None
        assert judgement.gain_pct is not None
        return
    assert res.current_latency_us is None and res.best_latency_us is not None
    why = untimed_current(res)
    assert why is not None and why.startswith("not written: the current configuration has no figure at T=2,D=1030 (")
    assert "MemoryError: std::bad_alloc" in why and "\n" not in why
    assert not judgement.better and judgement.reason == why
    # the per-bucket table (the judge the vllm session went through): every row ran, the current at none
    by_shape = {"T=2,D=1030": (9261.0, None), "T=7,D=300": (22950.0, None)}
    table = judge_table(by_shape, res)
    assert not table.better and table.reason == why


def test_l1_a_device_out_of_memory_is_the_kernel_s_own_and_is_not_timed_again() -> None:
    """A device's out-of-memory (torch's ``OutOfMemoryError``) is the kernel's own (a workspace a knob sizes): the
    original is not timed again, and a pick that runs is measured against a kernel that does not, as before."""
    res, ev, current = _session(DEVICE_OOM, recovers=False)
    assert all(batch != [current.key()] for batch in ev.retimed)
    failed = next(r for r in res.results if Config.of(r.config) == current)
    assert failed.outcome is Outcome.OUT_OF_MEMORY and not machine_failed(failed)
    assert untimed_current(res) is None and judge_gain(res).better
    assert machine_failed(Result.failed(current, Outcome.WORKER_CRASH, "the worker died"))
    assert not machine_failed(Result.failed(current, Outcome.RUN_ERROR, "tl.dot K=8"))
