"""late45: fla_matmul's tune on a GPU timed nothing in a 60 s wall (the H100 of 2026-12-07, late42's l101 test): a
first round of four pinned configs, each compiled and checked at three ``SHAPES`` entries before any was timed, and
then, with the kernel as written alone timed, the wall kept for its own write's checks (l150, l151)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tuning.budget import Budget
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.pace import CandidateLimit
from kernelopt.tuning.space import Space

DATA = Path(__file__).parent / "data" / "breaker25" / "fla_matmul"

#: fla_matmul's eight literal configs (kernel.py's list, in its order: the first is the current one, pinned).
LISTED = [
    (128, 64, 256, 3, 8), (64, 32, 256, 4, 4), (128, 32, 128, 4, 4), (128, 32, 64, 4, 4),
    (64, 32, 128, 4, 4), (128, 32, 32, 4, 4), (64, 32, 32, 5, 2), (32, 32, 64, 5, 2),
]  # fmt: skip
ENTRIES = ["B=2,M=40,N=72,K=100", "B=1,M=130,N=33,K=64", "B=3,M=8,N=260,K=17"]

#: The H100's pace of that session (late42's l101 printed it, 2026-12-07 16:10 UTC): its one round of four spent 3.3 s
#: screening, its compiles 42.9 s across the pool's four workers (about 10.7 s of wall), then checked every candidate at
#: the three entries (40.6 s measured, the rest of its 58.6 s of rounds cut): about 11.2 s a candidate. A timing at
#: the three entries after them is put at 2 s (the H100 timed none).
SCREEN_S, COMPILE_S, CHECK_S, TIME_S, ENTRY_COMPILE_S = 0.8, 10.7, 11.2, 2.0, 8.0


class _H100Round:
    """An evaluator on the session's fake clock, spending what the H100's round spent: its compiles in parallel, then
    each candidate's checks at every entry, then each one's timing; a request the session's limit (the real
    :class:`CandidateLimit`: the wall left, the re-time's and the tail's reserve) cannot fit is cut, as the bench
    workers' are."""

    first_alone = True

    def __init__(self, now: list[float]) -> None:
        self.now = now
        self.limit: CandidateLimit | None = None
        self.rounds: list[list[str]] = []

    def bound(self, limit: CandidateLimit | None) -> None:
        self.limit = limit

    def _spend(self, seconds: float) -> bool:
        assert self.limit is not None
        room = self.limit.seconds(600.0)
        if room is None or room < seconds:
            self.now[0] += room or 0.0
            return False
        self.now[0] += seconds
        return True

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        self.rounds.append([c.key() for c in batch])
        self.now[0] += SCREEN_S * len(batch) + COMPILE_S
        checked = [self._spend(CHECK_S) for _ in batch]
        out = []
        for k, (c, ok) in enumerate(zip(batch, checked, strict=True)):
            if not (ok and self._spend(TIME_S)):
                out.append(Result.failed(c, Outcome.NOT_RUN_BUDGET, "cut at the end of the session's wall time"))
                continue
            by = {label: 10.0 + k + i for i, label in enumerate(ENTRIES)}
            out.append(Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=sum(by.values()),
                              latency_us_by_shape=by, compile_s=COMPILE_S, check_s=CHECK_S, bench_s=TIME_S,
                              entry_compile_s=ENTRY_COMPILE_S))  # fmt: skip
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return []

    def close(self) -> None:
        pass


@functools.cache
def _space() -> Space:
    """fla_matmul's space as discovery reads its source (the literal list's knobs), once for this file's sessions."""
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.launch import space_from_tunables

    source = (DATA / "kernel.py").read_text()
    return space_from_tunables(discover_source(source), kernel=None, held_options={}, source=source)


def _session(first_alone: bool, wall_s: float = 60.0) -> tuple[list[Result], list[list[str]], Config]:
    """fla_matmul's session as ``tune --device cuda --budget-wall-s 60`` runs it (its list's eight seeds, the current
    first; the tail of its three entries), on the H100's pace."""
    from kernelopt.tuning.session import tune
    from kernelopt.tuning.tail_wall import TailCost

    space = _space()
    seeds = [
        Config.of({"BM": m, "BK": k, "BN": n, "G": 4, "num_stages": s, "num_warps": w}) for m, k, n, s, w in LISTED
    ]
    assert space.current() == seeds[0]
    now = [0.0]
    evaluator = _H100Round(now)
    evaluator.first_alone = first_alone
    budget = Budget(8, lambda: now[0], wall_s=wall_s)
    result = tune(space, evaluator, budget=budget, seeds=seeds, originals=seeds,
                  tail=TailCost(entries=3, target=False, wall_s=wall_s).need_s)  # fmt: skip
    return result.results, evaluator.rounds, seeds[0]


def test_l150_l151_a_60_s_wall_on_a_gpu_times_the_kernel_as_written_and_a_candidate() -> None:
    """l150: with no pace a session's first round took the four it was given (``Budget.affordable``), and on a GPU
    across entries each was compiled and checked at all three before any was timed: on the H100's pace the round of
    four ran into the wall and timed none, the kernel as written included (what the H100 said: "no candidate ran").
    Its first round is now the kernel as written alone (``ShapesEvaluator.first_alone``), timed at about 25 s.
    l151: the rounds after it kept 15 s of tail for the checks of a write and the re-time's share for one pick, though
    with the kernel as written alone passed nothing is to be re-timed or written: 35 s left fitted no second candidate
    at its 25 s. Where those reserves leave no room, one more candidate now gets the wall left; where they leave room
    (a 120 s wall) the rounds keep them as before."""
    results, rounds, current = _session(first_alone=False)
    assert rounds == [[c.key() for c in map(Config.of, (r.config for r in results))]] and len(rounds[0]) == 4
    assert [r.outcome for r in results] == [Outcome.NOT_RUN_BUDGET] * 4, results  # the H100's "no candidate ran"

    results, rounds, current = _session(first_alone=True)
    assert rounds[0] == [current.key()] and len(rounds) == 2 and len(rounds[1]) == 1, rounds
    assert [r.outcome for r in results] == [Outcome.OK, Outcome.OK], results
    assert Config.of(results[0].config) == current

    # 120 s: after the current's 24.7 s, 95.3 s less the tail's 30 s fit two at its pace; then the tail and the
    # re-time of three are kept (l151's first form, 1918b8e9, dropped the reserves whenever the current alone had
    # passed, and sent three there)
    results, rounds, current = _session(first_alone=True, wall_s=120.0)
    assert [len(r) for r in rounds] == [1, 2] and all(r.outcome is Outcome.OK for r in results), rounds


def test_l151_the_reserves_while_the_kernel_as_written_alone_passed() -> None:
    """l151 in the session's own reckoning: with only the current configuration timed, the re-time's share is 0 (a
    re-time of under two takes none) and ``_current_alone`` holds (the tail, still estimated, gives way where it
    leaves no room for a round); once another candidate passed, the re-time keeps two picks' cost and the tail its
    15 s (a quarter of the wall), and nothing gives way."""
    from kernelopt.tuning.session import _current_alone, _retime_share_s, _Run, _tail_s
    from kernelopt.tuning.tail_wall import TailCost

    now = [0.0]
    budget = Budget(8, lambda: now[0], wall_s=60.0)
    budget.start()
    budget.charge(1, evaluated=1, seconds=25.0)
    current, other = Config.of({"BM": 128}), Config.of({"BM": 64})
    run = _Run(budget, None, {}, current=current, tail=TailCost(entries=3, target=False, wall_s=60.0).need_s)

    def timed(c: Config, us: float) -> Result:
        return Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=us, check_s=CHECK_S, bench_s=TIME_S,
                      entry_compile_s=ENTRY_COMPILE_S, latency_us_by_shape={ENTRIES[0]: us})  # fmt: skip

    assert not _current_alone(run)
    run.results.append(timed(current, 30.0))
    assert _current_alone(run) and _retime_share_s(run, current, 3) == 0.0 and _tail_s(run) == 15.0
    run.results.append(timed(other, 40.0))
    assert not _current_alone(run) and _tail_s(run) == 15.0
    assert _retime_share_s(run, current, 3) == pytest.approx(2 * (CHECK_S + TIME_S - ENTRY_COMPILE_S))


def test_l150_the_first_round_alone_is_a_gpu_session_across_entries_only(tmp_path: Path) -> None:
    """``ShapesEvaluator.first_alone`` on fla_matmul's folder as ``tune`` builds it (no worker starts): prepared for
    ``cuda``, its three entries, yes; in Triton's interpreter (``cpu``), or with its primary entry alone (one request
    checks and times a candidate there), no: those sessions' rounds are as before."""
    from kernelopt.tuning.problem import Problem, reference_shapes
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from kernelopt.tuning.shapes import session_shapes

    said = {}
    for device in ("cuda", "cpu"):
        problem = Problem.from_folder(DATA, device=device)
        entries = reference_shapes(problem.reference_py, constants=problem.constants, device=problem.device) or []
        shapes = session_shapes(problem, entries)
        for n in (len(shapes), 1):
            evaluator = ShapesEvaluator(problem, shapes[:n], "", lambda c: "", session_dir=tmp_path / "session")
            said[device, n] = evaluator.first_alone
    assert said == {("cuda", 3): True, ("cuda", 1): False, ("cpu", 3): False, ("cpu", 1): False}, said


class _Raises:
    """A GPU entry where the kernel as written raises (a ``RUN_ERROR``, as an ``assert`` in ``run``) or runs."""

    def __init__(self, raises: bool) -> None:
        from tests.test_table14_cases import _GpuEntry

        self.entry, self.raises = _GpuEntry(None), raises
        self.ready = self.entry.ready

    def spawn(self) -> None:
        pass

    def start(self, compile_workers: int = 0) -> object:
        return self.ready

    def evaluate(self, batch: Sequence[Config], *, timed: bool = True) -> list[Result]:
        if not self.raises:
            return self.entry.evaluate(batch, timed=timed)
        return [Result.failed(c, Outcome.RUN_ERROR, "AssertionError") for c in batch]


@pytest.mark.timeout(60)
def test_l152_a_candidate_alone_in_its_round_is_checked_at_every_entry_at_once(tmp_path: Path) -> None:
    """l152: on a GPU across three entries the primary checked a round first, alone, and the other entries what passed
    it at once: the kernel as written, alone in its round (l150), compiled for three specializations in three steps
    (the pool's at the smallest entry, the primary's, then the two others beside each other). A candidate alone in its
    round is now checked at all three at once (the three fakes' untimed checks meet at one barrier of three: one after
    another they would break it), then timed as before; a round of two keeps the primary first. Where it raises at the primary and at another entry beside it, the
    primary's failure is the one judged, as when the primary checked first: the session stops naming the entry it runs
    (leftovers17's l4), and no entry is set aside for the other raise."""
    import threading

    from kernelopt.tuning.problem import ProblemError
    from tests.test_shape_failures import _shapes_evaluator
    from tests.test_table14_cases import _GpuEntry

    original = Config.of({"BLOCK": 64})
    ev, _ = _shapes_evaluator(tmp_path, [set(), set(), set()])
    ev.interpreted, ev.original = False, original  # a GPU's session
    meet = threading.Barrier(3, timeout=10)
    fakes = [_GpuEntry(meet), _GpuEntry(meet), _GpuEntry(meet)]
    ev.evaluators = fakes
    assert ev.together() and ev.first_alone
    (result,) = ev.evaluate([original])
    assert result.outcome is Outcome.OK and len(result.latency_us_by_shape) == 3, result
    assert [f.calls[0] for f in fakes] == [([64], False)] * 3  # each entry's check, at once, before any timing
    assert all(([64], True) in f.calls for f in fakes)
    # any candidate alone in its round (l151's one in the wall left), and one failing: judged at the primary as before
    (other,) = ev.evaluate([Config.of({"BLOCK": 128})])
    (wrong,) = ev.evaluate([Config.of({"BLOCK": 16})])
    assert other.outcome is Outcome.OK and [f.calls[2] for f in fakes] == [([128], False)] * 3
    assert wrong.outcome is Outcome.WRONG_RESULT and wrong.failed_entry == ev.labels[0], wrong
    assert [f.calls[-1] for f in fakes] == [([16], False)] * 3  # checked everywhere at once, timed nowhere
    # a round of two: the primary first, then the others what passed it (table14's order)
    for f in fakes:
        f.calls.clear()
    meet2 = threading.Barrier(2, timeout=10)
    fakes[1].meet = fakes[2].meet = meet2
    fakes[0].meet = None
    ev.evaluate([Config.of({"BLOCK": 256}), Config.of({"BLOCK": 16})])
    assert fakes[0].calls[0] == ([256, 16], False) and fakes[1].calls[0] == fakes[2].calls[0] == ([256], False)

    ev, _ = _shapes_evaluator(tmp_path / "raised", [set(), set(), set()])
    ev.interpreted, ev.original = False, original
    ev.evaluators = [_Raises(True), _Raises(True), _Raises(False)]
    with pytest.raises(ProblemError, match=r"the SHAPES entry rows=4,cols=40 .* while it runs rows=4,cols=200"):
        ev.evaluate([original])
    assert not ev.set_aside
