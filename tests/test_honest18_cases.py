"""honest18: a pick written only over a measured figure for the kernel as written (breaker18's l1: vllm_add_rms_op's
first candidates, its own settings, lost to the host's ``std::bad_alloc`` on a loaded CPU, and a per-bucket table was
written judged against no figure for the original), and a session's stated wall time holding through the phases
after its search (breaker18's l3: inductor_scan's 600 s session killed at 700 s). Scripted evaluators on a recorded
sweep and a manual clock: no real memory pressure, no real waiting."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import judge_gain, judge_table, machine_failed, tune, untimed_current
from kernelopt.tuning.tail_wall import TailWall, WallSpent
from tests.test_leftovers18_cases import CURRENT, PICK, Scripted, two_entries  # noqa: F401 (a fixture)
from tests.test_leftovers18_cases import _session as finished

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


@pytest.mark.parametrize("recovers", [True, False])
def test_l1_a_list_entry_the_machine_lost_is_timed_again_and_without_it_nothing_is_judged_over_the_list(
    recovers: bool,
) -> None:
    """The same run lost the list's other entry, ``ROWS=1``, to the same ``std::bad_alloc`` (19:54 UTC again, this
    lane); not the session's current configuration, it was never timed again, and the list's pick at each key was
    judged as its one entry. Each entry of the list as written (``originals``) the machine failed is timed again
    alone; still without a figure, nothing is judged over the list (``folder._lost_to_the_machine``)."""
    from kernelopt.tuning.folder import _lost_to_the_machine

    [sweep] = read_sweeps(SWEEP)
    space, clock = space_from_sweep(sweep), ManualClock()
    current = space.current()
    other = next(Config.of(c.config) for c in sweep.configs if Config.of(c.config) != current and c.latency_us)
    ev = _OomCurrent(sweep, clock, other, HOST_OOM, recovers=recovers)
    budget = Budget.default(space.size.count, clock)
    res = tune(space, ev, budget=budget, seeds=[other], rng_seed=7, originals=[other])
    assert [other.key()] in ev.retimed  # timed again alone
    lost = _lost_to_the_machine(res, [other])
    if recovers:
        assert lost is None and any(Config.of(r.config) == other and r.outcome.ok for r in res.results)
        return
    assert lost is not None and lost.startswith("not written: the current autotune list has no figure at T=2,D=1030")
    assert "std::bad_alloc" in lost and "\n" not in lost


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


# ------------------------------------------------------------------------------------- l3: the stated wall time


def _wall(spent_s: float, wall_s: float = 600.0) -> tuple[TailWall, ManualClock]:
    """The wall of a session of ``wall_s`` whose budget started ``spent_s`` seconds ago on a manual clock."""
    clock = ManualClock()
    budget = Budget(24, clock, wall_s)
    budget.start()
    clock.advance(spent_s)
    return TailWall.of(budget), clock


def test_l3_the_phases_after_the_search_end_with_the_session_s_own_end() -> None:
    """The tail's deadline is the session's own end (its start, the wall time and ``WALL_MARGIN_S``); the net's cap
    is never past it, and says so when the wall binds."""
    from kernelopt.tuning.net import NetCap
    from kernelopt.tuning.pace import WALL_MARGIN_S

    wall, clock = _wall(590.0)
    assert wall.left_s() == pytest.approx(10.0 + WALL_MARGIN_S)
    assert wall.cut("the net") is None and wall.cut("the net", need_s=30.0) is not None
    cap = NetCap.of(590.0, clock(), wall)  # its own cap 150 s, the wall's 25 s
    assert cap.deadline == wall.deadline and cap.words().startswith("past the session's wall time of 600 s")
    assert NetCap.of(590.0, clock()).words().startswith("past the net's time cap of 148 s")
    clock.advance(30.0)
    line = wall.cut("the net")
    assert line == (
        "the net not run: the session's wall time of 600 s is spent (0 s left); a rerun resumes from the session record"
    )
    with pytest.raises(WallSpent, match="the net not run"):
        wall.check("the net")


class _Checks(Scripted):
    """:class:`Scripted` whose check of the written source takes ``check_s`` on the session's manual clock and
    passes, each call recorded."""

    def __init__(self, labels: Sequence[str], clock: ManualClock, check_s: float) -> None:
        super().__init__(labels, {str(PICK): 28.0, str(CURRENT): 30.0})
        self.clock, self.check_s, self.checked = clock, check_s, 0

    def check_source(self, source: str, config: Config) -> Result:
        self.checked += 1
        self.clock.advance(self.check_s)
        return Result(config=config.as_dict(), outcome=Outcome.OK, check_s=self.check_s)


@pytest.mark.parametrize("spent_s", [620.0, 590.0])
def test_l3_an_edit_the_wall_time_left_cannot_check_is_not_written_and_the_verdict_says_which_check(
    two_entries: Any,  # noqa: F811 (the fixture)
    spent_s: float,
) -> None:
    """breaker18's l3 (2026-12-06 19:06 UTC, load 7-9): ``tune`` of inductor_scan, its budget "600 s", ended its
    search and re-time at about 620 s (its current configuration's figure timed again alone, then three re-times cut
    at 61.9 s), then checked its pick's edit and cast the net with no look at the wall, and was killed at 700 s. Past
    the wall (620 s) the edit's check on the entries is not run; with 25 s left and a check of 20 s in the session, the
    check runs (30 s this time) and the net, with no time left, does not: each time nothing is written, the verdict naming what was cut."""
    from kernelopt.tuning import folder as tf

    prepared = two_entries
    big, small = (s.label() for s in prepared.shapes)
    result = finished(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 15.0)})
    result = result.model_copy(
        update={"results": [r.model_copy(update={"check_s": 20.0}) for r in result.results]}
    )  # the pick's check took 20 s in the session
    tuning = tf.judge_session(prepared, result)
    assert tuning.judgement.better
    wall, clock = _wall(spent_s)
    checks = _Checks([big, small], clock, check_s=30.0)  # 30 s now, on a loaded machine
    done = tf._checked_edit(tuning, checks, wall)
    assert done.edit is None and not done.judgement.better and done.judgement.reason == done.edit_note
    phase = "the written edit's check on the SHAPES entries" if spent_s > 600 else "the net"
    assert checks.checked == (0 if spent_s > 600 else 1)
    assert done.judgement.reason.startswith(f"not written: {phase}"), done.judgement.reason
    assert "the session's wall time of 600 s is spent" in done.judgement.reason


def test_l3_a_refusal_the_wall_time_left_cannot_re_time_stands_and_says_so(
    two_entries: Any,  # noqa: F811 (the fixture)
) -> None:
    """The re-time at the one entry that refused a pick (leftovers18's n1) is not run past the wall: the refusal
    stands, its reason saying the re-time was cut, and nothing is asked of the evaluator."""
    from kernelopt.tuning.folder import judge_session, retimed_at_refusal

    prepared = two_entries
    big, small = (s.label() for s in prepared.shapes)
    first = judge_session(prepared, finished(prepared, {str(CURRENT): (100.0, 30.0), str(PICK): (50.0, 31.5)}))
    assert first.judgement.refused_at is not None
    scripted = Scripted([big, small], {str(PICK): 28.0, str(CURRENT): 30.0})
    wall, _ = _wall(700.0)
    done = retimed_at_refusal(first, scripted, partial(judge_session, prepared), None, wall)
    assert scripted.asked == [] and not done.judgement.better
    assert done.judgement.reason.startswith(
        f"the re-time at {small} not run: the session's wall time of 600 s is spent (0 s left); a rerun resumes from "
        "the session record; the refusal stands (judged on 31.5 us against 30 us, 4.8 % slower); "
    ), done.judgement.reason
