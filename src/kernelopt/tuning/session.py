"""One tuning session: seeds, the strategy's loop under a budget, the top few re-timed, the best so far.

:func:`tune` owns the loop (the strategy only proposes and observes, the evaluator only evaluates):

1. the budget starts; the strategy is built with the current configuration first, then the given seeds (when a
   knob is computed from the problem, the current configuration is the computation,
   :data:`~kernelopt.tuning.candidate.COMPUTED`: it is evaluated first on its own and the strategy is told its
   result, :meth:`~kernelopt.tuning.strategies.Strategy.known`);
2. each round it asks the strategy for up to ``batch_size`` configurations (never more than the budget
   has left), sets aside those it must not time (``excluded``: a region a gate rejected; ``screen``: a
   configuration the edit layer refuses, one that could never be written), serves those the session record
   already holds (``Result.recorded``: a resumed session never times them again), sends the rest to the
   evaluator in one batch, appends each new result to the record, charges the budget and tells the strategy
   (which never proposes a configuration twice). A configuration set aside is an ``INVALID`` result with its
   reason (a refusal is appended to the record too) and costs the budget nothing, up to
   :data:`FREE_SCREENED` times the budget's candidates (past that they are charged: a session always ends);
3. it stops when the budget's candidates or wall time are spent (a round is only as large as the wall time
   left can fit, :meth:`~kernelopt.tuning.budget.Budget.affordable`; none fits: the wall time; an evaluator whose
   rounds check every candidate at every entry before any timing, ``first_alone``, has a first round of one: the
   kernel as written; while it alone passed, a round the re-time's share and the tail leave no room for gets one
   candidate in the wall left, :func:`_current_alone`), when a default budget's session has stalled
   (:func:`~kernelopt.tuning.budget.stalled`), when the strategy has nothing left, or on ``KeyboardInterrupt`` (the
   batch in flight is lost, everything before it is kept);
4. unless interrupted, a current configuration that ran past its limit, lost its worker or the host's memory
   (:func:`machine_failed`) is timed once more, alone, with the re-time's limit (:func:`_time_baseline`): nothing is
   written over a baseline never timed (:func:`untimed_current`); then the best :data:`RETIME_TOP`, those whose noisy
   samples may be as fast, the current configuration (and, timed on several shapes, each shape's own fastest) are
   re-timed together, interleaved (:meth:`Evaluator.retime`), and the best is picked from those by paired ratios
   (:mod:`kernelopt.tuning.noise`); a re-time too noisy to rank keeps the current configuration, unless the pick beat it
   by the gain asked in enough re-timed rounds to pass a sign test (:func:`~kernelopt.tuning.noise.beats_current`); a
   re-time of fewer than :data:`~kernelopt.tuning.noise.MIN_PAIRS` rounds slower than the first measurements is read as
   the first round, every configuration alike (:func:`_load_only_adds`); a re-time that reads a configuration
   :data:`OUTLIER_FACTOR` times its first measurement or more (:func:`outliers`) is taken again, and when that one
   disagrees too, the pick and the current configuration are compared by their first round's figures, said in
   ``SessionResult.unretimed``. The wall time bounds the re-time too: it takes only as many as the wall time left fits
   at a re-time's cost a pick (:func:`_retime_each_s`; the fastest and the current first), and none when that is under
   two; the session says so (``SessionResult.unretimed``) and the pick is the fastest first measurement, unless those
   are too noisy to rank (:func:`~kernelopt.tuning.noise.too_noisy_unretimed`: the current configuration is kept). An
   interrupt during the re-time ends the session ``INTERRUPTED`` too: its best was never re-timed, so an interrupted
   session is an unfinished one (``kernelopt tune`` writes nothing from it).

:func:`judge_gain` says whether a session found something better than the current configuration by a
minimum gain; when it did not (:func:`no_gain`), the launch configuration has converged. :func:`judge_table`
says the same of a per-bucket table (a session across shapes whose one best is not within reach of every shape's
own best), shape by shape.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from kernelopt.digits import sig, times
from kernelopt.errors import UsageError
from kernelopt.harness.settings import DEFAULT_MIN_GAIN_PCT
from kernelopt.proc import interrupt_signal
from kernelopt.tuning.budget import Budget, BudgetStop, stalled
from kernelopt.tuning.candidate import Config, Outcome, Result, Value, config_text, machine_outcome
from kernelopt.tuning.evaluator import Evaluator
from kernelopt.tuning.figures import first_best, first_round_best, retime_note
from kernelopt.tuning.noise import (
    MIN_PAIRS,
    SIGN_TEST_P,
    beats_current,
    contenders,
    pick,
    too_noisy,
    too_noisy_unretimed,
)
from kernelopt.tuning.pace import CandidateLimit, SessionPace
from kernelopt.tuning.record import SessionRecord
from kernelopt.tuning.shapes import timed_in_part
from kernelopt.tuning.space import Space
from kernelopt.tuning.strategies import DEFAULT_STRATEGY, Strategy, make_strategy

#: How many of the fastest candidates are re-timed together at the end (Helion re-times its near-best).
RETIME_TOP = 3
#: The most of a session's wall time its rounds leave for the re-time of the top few (our choice; the re-time is cut
#: to what the wall time left fits when its picks need more, :func:`_within_wall`).
RETIME_SHARE = 0.25
#: Configurations set aside before they are timed (excluded, refused by the edit layer, or refused by the evaluator
#: for a bound the GPU would refuse, as a tl.dot's shared memory in the interpreter) cost the budget nothing,
#: up to this many times the budget's candidates; past that each one is charged (our bound: a space whose
#: configurations are nearly all refused still ends its session).
FREE_SCREENED = 1
#: A configuration's re-timed figure this many times its first one (or more) is a measurement gone wrong, not the
#: configuration's speed: the re-time is taken again, and when it disagrees again the pick and the current are compared
#: by the first round's figures (our bound: a re-time reads within 1.1-2x of the first on a loaded machine; the H100's
#: lmd_rms read the kernel as written at 149.0 us where its first round read 3.76 us and the others re-timed beside
#: it read 3.56-3.58 us, and "13.1x faster" was written for a 2 % gain: claim20, docs/faults.md).
OUTLIER_FACTOR = 10.0
#: Candidates per round: one batch for the compile pool (compiled in parallel, then timed one by one).
#: Smaller batches give the strategy more feedback per candidate, larger ones more parallel compiles.
DEFAULT_BATCH = 4


class StopReason(StrEnum):
    """Why a session ended."""

    CANDIDATES = "candidates"  # the budget's candidates are spent
    WALL_TIME = "wall_time"  # the budget's wall time is spent: the best so far is returned
    INTERRUPTED = "interrupted"  # KeyboardInterrupt: the best so far is returned
    STRATEGY_DONE = "strategy_done"  # the strategy has nothing left to propose (the space is swept)
    STALLED = "stalled"  # the best stopped improving (a default budget): the best so far is returned
    CURRENT_FAILED = "current_failed"  # the kernel as written failed its correctness check: nothing to tune against


@dataclass(frozen=True)
class Progress:
    """What a session reports after each round (for a progress bar).

    Attributes:
        candidates: candidates charged so far (measured and served), of ``budget``.
        evaluations: candidates measured in this session.
        best_latency_us, best_config: the fastest so far (first measurements), ``None`` before one ran.
        batch: the results of the round.
        best_shapes: the ``SHAPES`` entries the best's latency sums (1: one entry timed).
    """

    candidates: int
    budget: int
    evaluations: int
    best_latency_us: float | None
    best_config: dict[str, Value] | None
    batch: tuple[Result, ...]
    best_shapes: int = 1

    def line(self) -> str:
        """``4 of 7 candidates, first-round best 490700 us (BLOCK_D=1024)``: the one progress line of a session, said by
        `kernelopt tune` off a terminal, the loop's tuning note and the MCP tool's progress (which said the
        latency as Python's float, "best 93748.1984998385 us")."""
        # a sum over several entries is said as one (newuser18's n117: the loop's "V1 implement best 121200 us |
        # V1 tuning: ..., best 282500 us" read as a session 2.3x slower than V0, its 282500 the sum of two shapes);
        # the figure is the first round's, which the re-time at the end may change (late43, :mod:`figures`)
        best = (
            "none timed yet"
            if self.best_latency_us is None or self.best_config is None
            else first_round_best(self.best_latency_us, self.best_shapes, self.best_config)
        )
        return f"{self.candidates} of {self.budget} candidates, {best}"


class SessionResult(BaseModel):
    """What a tuning session found.

    Attributes:
        best_config: the configuration picked (fastest of the re-timed top few, else of the first
            measurements); ``None`` when no candidate ran.
        best_latency_us: its latency (re-timed when it was), microseconds.
        current_config: the configuration the kernel ran before, a knob it computes from the problem at
            :data:`~kernelopt.tuning.candidate.COMPUTED` (``None`` when a literal knob's value is unknown).
        current_latency_us: its latency (re-timed beside the top few when it ran), microseconds.
        results: every candidate's first result, in order (``recorded`` ones served from the record).
        retimed: the re-times of the top few and the current configuration.
        evaluations: candidates measured now (not served from the record).
        served: candidates served from the session record.
        budget: the budget's candidates.
        space_size: the fit-pruned space's size (an estimate on large spaces).
        wall_s: the session's wall time, seconds (recorded seconds in replay).
        stop: why it ended.
        strategy: the strategy's name.
        noisy: why the re-time could not rank the top few (:func:`kernelopt.tuning.noise.too_noisy`), else
            ``None``; a noisy session keeps the current configuration.
        screened: configurations set aside before they were timed (excluded, or refused by the edit layer:
            ``INVALID`` results with their reason), not counted in ``evaluations``.
        unretimed: why the top few were not all re-timed (the wall time left could not fit it), else ``None``.
        interrupted_by: the termination signal that interrupted it (``SIGTERM``, ``SIGHUP``); ``None`` for
            Ctrl-C and for a session that was not interrupted.
        pace: where the wall went (the workers' start before it, the rounds, the candidates' own seconds, the
            re-time; :class:`~kernelopt.tuning.pace.SessionPace`).
    """

    model_config = ConfigDict(extra="forbid")

    best_config: dict[str, Value] | None
    best_latency_us: float | None
    current_config: dict[str, Value] | None
    current_latency_us: float | None
    results: list[Result]
    retimed: list[Result]
    evaluations: int
    served: int
    budget: int
    space_size: int
    wall_s: float
    stop: StopReason
    strategy: str
    noisy: str | None = None
    screened: int = 0
    unretimed: str | None = None
    interrupted_by: str | None = None
    pace: SessionPace | None = None

    def retime_note(self) -> str | None:
        """What the re-time changed of the progress lines' best (:func:`~kernelopt.tuning.figures.retime_note`)."""
        return retime_note(self.results, self.retimed, self.best_config, self.best_latency_us)

    def reordered(self) -> bool:
        """Whether the pick is other than the first round's fastest (the re-time changed the order)."""
        fastest = first_best(self.results)
        return (
            fastest is not None
            and self.best_config is not None
            and Config.of(fastest.config) != Config.of(self.best_config)
        )

    @property
    def speedup(self) -> float | None:
        """Current latency / best latency (``None`` unless both ran)."""
        if self.best_latency_us is None or self.current_latency_us is None or self.best_latency_us <= 0:
            return None
        return self.current_latency_us / self.best_latency_us


@dataclass
class _Run:
    """The session's state as it goes."""

    budget: Budget
    record: SessionRecord | None
    served_from: dict[str, Result]
    excluded: Callable[[Config], str | None] | None = None
    screen: Callable[[Config], str | None] | None = None
    results: list[Result] = field(default_factory=list)
    evaluations: int = 0
    served: int = 0
    screened: int = 0
    aside: set[str] = field(default_factory=set)  # the keys of the configurations set aside
    interrupted_by: str | None = None  # the termination signal that ended it (SIGTERM, SIGHUP); None for Ctrl-C
    space: Space | None = None
    # candidates refused for a bound their tiles broke (Result.grows_with_tiles): larger tiles break it too
    tile_refusals: list[Result] = field(default_factory=list)
    limit: CandidateLimit | None = None  # each candidate's request bounded by the pace and the wall time left
    start_s: float = 0.0  # the workers' start, before the budget's clock
    rounds_s: float = 0.0  # the rounds' evaluations
    restart_s: float = 0.0  # within them, the workers' starts (restarts after a sticky CUDA error, a crash, a hang)
    redone_s: float = 0.0  # within them, passes thrown away (a batch evaluated again without an entry set aside)
    retime_s: float = 0.0  # the re-time of the top few (and of a current configuration never timed)
    tail: Callable[[Sequence[Result]], float] | None = None  # the phases after the session's estimate (tune's ``tail``)
    current: Config | None = None  # the kernel as written (never written: :func:`_current_alone`)
    screen_s: float = 0.0  # the rounds' configurations made and screened before they ran (the edit layer's)

    def why_not_timed(self, config: Config) -> tuple[str, bool] | None:
        """Why ``config`` is not timed, and whether it is a refusal (recorded: the edit layer's, or larger tiles than
        a candidate refused for a bound they only exceed further); ``None``: it is timed (or served: a configuration
        the record holds a measurement of was made then, and is not made again)."""
        reason = self.excluded(config) if self.excluded is not None else None
        if reason is not None:
            return reason, False
        held = self.served_from.get(config.key())
        if held is not None and held.outcome is not Outcome.INVALID:
            return None
        larger = self.larger_than_refused(config)
        if larger is not None:
            return larger, True
        reason = self.screen(config) if self.screen is not None else None
        return (reason, True) if reason is not None else None

    def screen_one(self) -> int:
        """Count one configuration set aside untimed; the candidates it costs the budget: none up to
        :data:`FREE_SCREENED` times the budget's candidates, one past that."""
        self.screened += 1
        return int(self.screened > FREE_SCREENED * self.budget.candidates)

    def larger_than_refused(self, config: Config) -> str | None:
        """Why ``config`` is refused untimed: its tiles are each at least those of a candidate refused for a bound
        that grows with the tiles, or each at most those of one refused for a bound that shrinks with them
        (:meth:`Space.larger_tiles`); ``None`` when none is."""
        if self.space is None:
            return None
        for r in self.tile_refusals:
            if r.grows_with_tiles and self.space.larger_tiles(config, r.config):
                return (
                    f"set aside untimed: its tiles are each at least those of {r.key}, which was refused ({r.reason})"
                )
            if r.shrinks_with_tiles and self.space.larger_tiles(r.config, config):
                return f"set aside untimed: its tiles are each at most those of {r.key}, which failed ({r.reason})"
        return None

    def refused_tiles(self, result: Result) -> bool:
        """Keep ``result`` when it is a refusal larger or smaller tiles share (``grows_with_tiles``,
        ``shrinks_with_tiles``); whether it was new."""
        shared = result.grows_with_tiles or result.shrinks_with_tiles
        if not shared or any(r.key == result.key for r in self.tile_refusals):
            return False
        self.tile_refusals.append(result)
        return True

    def latencies(self) -> list[float | None]:
        """Each candidate's latency in order, ``None`` for one that failed; the configurations set aside untimed
        and those that failed a ``SHAPES`` entry (``Result.failed_entry``: never timed, they say nothing of whether
        the search still improves) are no candidates of the stall rule."""
        return [
            r.latency_us if r.outcome.ok else None
            for r in self.results
            if r.key not in self.aside and r.failed_entry is None
        ]

    def best(self) -> Result | None:
        return first_best(self.results)


def tune(
    space: Space,
    evaluator: Evaluator,
    *,
    budget: Budget,
    seeds: Sequence[Config] = (),
    strategy: str | Strategy = DEFAULT_STRATEGY,
    record: SessionRecord | None = None,
    rng_seed: int = 0,
    on_progress: Callable[[Progress], None] | None = None,
    batch_size: int = DEFAULT_BATCH,
    retime_top: int = RETIME_TOP,
    excluded: Callable[[Config], str | None] | None = None,
    twins: Sequence[Config] = (),
    screen: Callable[[Config], str | None] | None = None,
    originals: Sequence[Config] = (),
    tail: Callable[[Sequence[Result]], float] | None = None,
) -> SessionResult:
    """Tune the launch configuration of ``space`` with ``evaluator`` (see the module docstring).

    Args:
        space: the space (its current configuration, when known, is evaluated first).
        evaluator: evaluates batches (:class:`KernelEvaluator`, :class:`ReplayEvaluator`).
        budget: candidates and wall time; started here.
        seeds: configurations to evaluate first, after the current one (:func:`kernelopt.tuning.seeds.seeds`).
        strategy: a registered strategy's name, or a strategy object.
        record: the session record: results are appended as they arrive; those already in it are served.
        rng_seed: the strategy's seed.
        on_progress: called after each round.
        batch_size: candidates per round, at most.
        retime_top: how many of the fastest are re-timed at the end (0: none).
        excluded: configuration -> why it is excluded (``None``: it is not). An excluded configuration is an
            ``INVALID`` result with that reason, neither evaluated nor served from the record (the region of a
            winner the gate rejected, :mod:`kernelopt.tuning.exclusion`).
        screen: configuration -> why the edit layer refuses it (``None``: it can be made and written): set aside
            like an excluded one before it is timed, and appended to the record with its reason.
        twins: the configurations that run as the current one on every shape timed (a computed knob at the
            literal its computation gives over them, the others computed or at that literal too; or the values a
            tuned guard of the file sets, whose write is the file as it is): the current configuration is timed
            first on its own and the strategy knows each twin from its result (:meth:`Strategy.known`), so none is
            timed nor charged twice.
        originals: the other configurations the kernel as written runs (a keyed autotune list's entries): each one
            the machine failed is timed again alone at the end, as the current one is (:func:`_time_baseline`).
        tail: the session's results so far -> the seconds the phases after it (its caller's checks of the pick) are
            estimated to take (:meth:`~kernelopt.tuning.tail_wall.TailCost.need_s`): the rounds and the re-time end
            that long before the wall time (:func:`_tail_s`), so a session bounded by its wall still checks its pick.

    Raises:
        UsageError: a seed is not a configuration of the space, or an unknown strategy name.
    """
    limit = CandidateLimit(budget)
    bound = getattr(evaluator, "bound", None)
    if bound is not None:  # each candidate's request: at most a multiple of the pace, never past the wall time
        bound(limit)
    caught: KeyboardInterrupt | None = None
    try:
        start_s = _start_workers(evaluator, budget, batch_size)
    except KeyboardInterrupt as exc:
        start_s, caught = 0.0, exc
    if budget.before_s is not None:  # the command counts what came before the session: the workers' start too
        budget.count_before(start_s)
    budget.start()
    current = space.current()
    literal = current is not None and space.literal(current)
    first = _seeds(space, current if literal else None, seeds)
    name = strategy if isinstance(strategy, str) else type(strategy).__name__
    strat = (
        make_strategy(strategy, space, seeds=first, budget=budget.candidates, rng_seed=rng_seed)
        if isinstance(strategy, str)
        else strategy
    )
    run = _Run(budget, record, record.served() if record is not None else {}, excluded, screen, space=space)
    run.limit, run.start_s, run.tail, run.current = limit, start_s, tail, current
    if caught is not None:
        run.interrupted_by = interrupt_signal(caught)
        return _result(space, run, current, [], StopReason.INTERRUPTED, name)
    if current is not None and (not literal or twins):
        ended = _time_current_first(strat, evaluator, run, current, twins)
        if ended is not None:
            return _result(space, run, current, [], ended, name)
    stop = _loop(strat, evaluator, run, batch_size, on_progress, current, retime_top)
    retimed: list[Result] = []
    unretimed: str | None = None
    if stop not in (StopReason.INTERRUPTED, StopReason.CURRENT_FAILED):
        limit.retiming = True  # the re-time: bounded by the wall time left and its margin, not by the pace
        limit.tail_s = _tail_s(run)  # less what the checks after the session need
        retimed, unretimed, interrupted = _retime_end(evaluator, run, current, retime_top, originals)
        if interrupted:  # the session is unfinished: its best was never re-timed
            stop = StopReason.INTERRUPTED
    return _result(space, run, current, retimed, stop, name, unretimed)


def _time_current_first(
    strat: Strategy, evaluator: Evaluator, run: _Run, current: Config, twins: Sequence[Config]
) -> StopReason | None:
    """Time the kernel as written first, a point of its own (a knob computed from the problem, or a file whose tuned
    guard runs one of ``twins``), and tell the strategy (it moves from it: one knob to a literal, the others
    computed); the stop when that ends the session (an interrupt, or the kernel as written failing its check), else
    ``None``."""
    try:
        timed = _round([current], evaluator, run)
    except KeyboardInterrupt as exc:
        run.interrupted_by = interrupt_signal(exc)
        return StopReason.INTERRUPTED
    if failed_check(timed[0]):
        return StopReason.CURRENT_FAILED
    _avoid_larger(strat, run, timed)
    known = [timed[0]]
    for twin in twins:  # runs as the kernel as written everywhere timed: known, never timed again
        known.append(timed[0].model_copy(update={"config": twin.as_dict(), "recorded": True}))
    strat.known(known)
    return None


def _retime_end(
    evaluator: Evaluator, run: _Run, current: Config | None, retime_top: int, originals: Sequence[Config] = ()
) -> tuple[list[Result], str | None, bool]:
    """The session's end after its rounds (step 4 of the module docstring): a current configuration the machine
    failed timed again alone (:func:`_time_baseline`), then the picks the wall time left fits re-timed together. The
    re-time's results, why it did not take every pick (``None`` when it did), and whether an interrupt ended it (then
    no results: the best was never re-timed; interrupted in the baseline's time, no line either)."""
    try:
        alone = _time_baseline(evaluator, run, current, originals)
    except KeyboardInterrupt as exc:
        run.interrupted_by = interrupt_signal(exc)
        return [], None, True
    picks = _retime_picks(run, current, retime_top)
    kept, unretimed = _within_wall(picks, run, current)
    try:
        retimed = _retime(evaluator, run, kept)
        far = outliers(retimed, run.results)
        if far:
            again = _retime(evaluator, run, kept) if _fits_again(run, kept) else []
            if again and not outliers(again, run.results):
                retimed = again
            else:
                line = _outlier_line(far, outliers(again, run.results) if again else None)
                retimed, unretimed = [], f"{unretimed}; {line}" if unretimed else line
        timed = {Config.of(r.config) for r in retimed if r.outcome.ok}
        _check_alone(evaluator, run, [c for c in alone if c not in timed])
        return retimed, unretimed, False
    except KeyboardInterrupt as exc:
        run.interrupted_by = interrupt_signal(exc)
        return [], unretimed, True


def outliers(retimed: Sequence[Result], results: Sequence[Result], *, then: str = "at first") -> list[str]:
    """The re-timed configurations whose re-time read :data:`OUTLIER_FACTOR` times their first measurement or more
    (at a ``SHAPES`` entry, where both timed it there, else in all), each as a phrase that names it and both figures
    (``then`` names the round of ``results``); ``[]`` when every re-time agrees with its first figure (a configuration
    the first round did not time has nothing to disagree with). Load only adds time, so a re-time that reads far lower
    is no outlier: it stands."""
    firsts = {Config.of(r.config): r for r in results if r.outcome.ok and r.latency_us is not None}
    out: list[str] = []
    for r in retimed:
        first = firsts.get(Config.of(r.config))
        if first is None or not r.outcome.ok or r.latency_us is None:
            continue
        by_shape = first.latency_us_by_shape
        both = [(f" at {k}", v, by_shape[k]) for k, v in r.latency_us_by_shape.items() if k in by_shape]
        for at, again, before in both or [("", r.latency_us, first.latency_us or 0.0)]:
            if before > 0 and again >= OUTLIER_FACTOR * before:
                apart = r.timing and first.timing and r.timing != first.timing  # how each was timed, where said
                how = f"; timed {r.timing}, {then} {first.timing}" if apart else ""
                out.append(
                    f"{config_text(r.config)} {sig(again)} us{at} against {sig(before)} us {then} "
                    f"({times(again / before)}{how})"
                )
                break
    return out


def _fits_again(run: _Run, picks: Sequence[Config]) -> bool:
    """Whether the wall time left fits a second re-time of ``picks`` (:func:`_within_wall`'s rule)."""
    if run.budget.elapsed_s >= run.budget.wall_s:
        return False
    each_s = _retime_each_s(run)
    return run.budget.affordable(len(picks), each_s=each_s, reserve_s=_tail_s(run)) >= len(picks)


def _outlier_line(far: Sequence[str], again: Sequence[str] | None) -> str:
    """Why the re-time is not the round the pick and the current configuration are compared in: it read ``far``,
    and taken again read ``again`` (``None``: the wall time left no second re-time)."""
    then = "the wall time left no second re-time" if again is None else f"re-timed again, it read {'; '.join(again)}"
    return (
        f"the re-time read {'; '.join(far)}, and {then}: one of the two measurements of the same kernel is wrong by "
        f"{OUTLIER_FACTOR:g}x or more, so the pick and the current configuration are compared by their first round's "
        "measurements, not the re-time"
    )


def failed_check(result: Result) -> bool:
    """Whether ``result`` is a correctness verdict against its configuration (a wrong result on a ``SHAPES``
    entry), not the machine's (a crash, a run error, a timeout: :attr:`Outcome.transient`).

    The kernel as written failing it ends the session: every candidate would be judged against a reference the
    kernel itself does not meet (on the H100, 2026-12-05, a fp32 GEMM whose ``tl.dot`` ran in TF32 spent its
    whole budget, 340 candidates and 170 s, on wrong results, then exited saying nothing)."""
    return result.outcome is Outcome.WRONG_RESULT and not result.recorded


def machine_failed(result: Result) -> bool:
    """Whether ``result`` of the kernel as written failed for the machine's reason, not the kernel's
    (:func:`~kernelopt.tuning.candidate.machine_outcome`; breaker18's l1: vllm_add_rms_op's table was written judged
    against no figure for the original). The one rule of :func:`_time_baseline` (timed again once)
    and :func:`untimed_current` (nothing written over it)."""
    return machine_outcome(result.outcome, result.reason)


def _time_baseline(
    evaluator: Evaluator, run: _Run, current: Config | None, originals: Sequence[Config] = ()
) -> list[Config]:
    """Time the current configuration once more, alone, when it ran and failed for the machine's reason
    (:func:`machine_failed`) and some candidate was timed: a pick is written only over a measured baseline
    (:func:`untimed_current`). It goes through :meth:`Evaluator.retime`, whose limit is the re-time's (300 s by
    default against 60 s a candidate) and whose files are compiled already; its result takes the failure's place
    among the session's (the record keeps both, the re-time not served to a rerun). On the CPU under load 10
    (2026-12-06), ``tune attorch_ln --budget 3`` wrote ``BLOCK_SIZE_BATCH=16`` over a current configuration that ran
    past 60 s once, its speedup never measured. ``originals``: the other configurations the kernel as written runs
    (a keyed autotune list's entries, its autotuner's pick among them at each key), each timed again so too (honest18:
    vllm_add_rms_op's ``ROWS=1`` lost to the host's ``std::bad_alloc`` beside its current ``ROWS=4``). Returns those
    timed so: each figure is its configuration's one measurement (:func:`_check_alone`)."""
    if run.best() is None:
        return []
    alone: list[Config] = []
    for config in dict.fromkeys([*([current] if current is not None else []), *originals]):
        at = next((i for i, r in enumerate(run.results) if Config.of(r.config) == config), None)
        if at is None or not machine_failed(run.results[at]):
            continue
        [again] = _charged_retime(evaluator, run, [config])
        if run.record is not None:
            run.record.append(again.model_copy(update={"retimed": True}))
        if again.outcome.ok and again.latency_us is not None:
            run.results[at] = again.model_copy(update={"retimed": False})
            alone.append(config)
    return alone


def _check_alone(evaluator: Evaluator, run: _Run, alone: Sequence[Config]) -> None:
    """claim20's one rule (:func:`outliers`) over the figures :func:`_time_baseline` took alone that no re-time of the
    picks checked (the wall time left none, or it was set aside as an outlier): each is its configuration's one
    measurement, so it is taken once more alone where the wall time left fits it, and a first reading
    :data:`OUTLIER_FACTOR` times the second or more gives way to the second (load only adds time: the far lower
    stands; a second reading that far above the first is the outlier, and the first stands). Both stay in the
    record. Without it, a current that ran past its limit once and read 10x its truth alone was claimed against as
    it was (late21's z11)."""
    for config in alone:
        if not _fits_again(run, [config]):
            continue
        [again] = _charged_retime(evaluator, run, [config])
        if run.record is not None:
            run.record.append(again.model_copy(update={"retimed": True}))
        at = next(i for i, r in enumerate(run.results) if Config.of(r.config) == config)
        if again.outcome.ok and outliers([run.results[at]], [again]):
            run.results[at] = again.model_copy(update={"retimed": False})


def untimed_current(result: SessionResult) -> str | None:
    """Why nothing may be written over the current configuration: it ran, failed for the machine's reason
    (:func:`machine_failed`: past its limit, a crash, the host's memory) and was not timed when timed again alone
    (:func:`_time_baseline`), so no pick's speedup over it was measured; ``None`` when it was timed, did not run, is
    unknown, or failed for the kernel's own reason (a compile error: the kernel as written does not run at that
    configuration, and a pick that does is measured). The one place every judgement (:func:`judge_gain`,
    :func:`judge_table`, the folder's) reads it: "not written: the current configuration has no figure at ENTRY"
    (:func:`no_figure_line`)."""
    if result.current_config is None or result.current_latency_us is not None:
        return None
    current = Config.of(result.current_config)
    failed = lost_to_the_machine(result, current)
    if failed is None:
        return None
    best = result.best_config or {}
    moved = {k: v for k, v in failed.config.items() if best.get(k) != v} or failed.config  # as the verdict names it
    text = ", ".join(f"{k}={v}" for k, v in moved.items())
    return no_figure_line(failed, "the current configuration", f"the current {text}")


def lost_to_the_machine(result: SessionResult, config: Config) -> Result | None:
    """The failure of ``config``, a configuration the kernel as written runs, where the session has no figure for it:
    its first result failed for the machine's reason (:func:`machine_failed`) and none passed, not even timed again
    alone (:func:`_time_baseline`); ``None`` where it was timed, never ran, or failed for the kernel's own reason."""
    ran = [r for r in result.results if Config.of(r.config) == config]
    if not ran or any(r.outcome.ok for r in ran) or not machine_failed(ran[0]):
        return None
    return ran[0]


def no_figure_line(failed: Result, what: str, named: str) -> str:
    """The one line that refuses a write over ``what`` (the current configuration, the current autotune list), whose
    configuration ``named`` the machine failed (``failed``: :func:`lost_to_the_machine`), the same words wherever it
    is said (:func:`untimed_current`, ``folder._lost_to_the_machine``; leftovers19's l4: each worded it by hand, and
    the list's left out that it was timed again with the re-time's limit). A run past its limit adds that
    ``--candidate-timeout-s`` gives more."""
    from kernelopt.oneline import one_line

    why = one_line((failed.reason or failed.outcome.value).split(";")[0], 200)
    at = failed.failed_entry or "the shape timed"
    timeout = failed.outcome in (Outcome.RUN_TIMEOUT, Outcome.COMPILE_TIMEOUT)
    hint = "run tune again, or give --candidate-timeout-s more" if timeout else "run tune again"
    return (
        f"not written: {what} has no figure at {at} ({named} was not timed ({failed.outcome.value}: {why}), nor when "
        f"timed again alone with the re-time's limit): a change is written only over a measured baseline (a loaded "
        f"machine? {hint})"
    )


def _seeds(space: Space, current: Config | None, seeds: Sequence[Config]) -> list[Config]:
    for s in seeds:
        problems = space.illegal(s)
        if problems:
            raise UsageError(f"seed {Config.of(s)} is not a configuration of the space: {'; '.join(problems)}")
    return list(dict.fromkeys([*([current] if current is not None else []), *map(Config.of, seeds)]))


def _loop(
    strat: Strategy,
    evaluator: Evaluator,
    run: _Run,
    batch_size: int,
    on_progress: Callable[[Progress], None] | None,
    current: Config | None = None,
    retime_top: int = 0,
) -> StopReason:
    """Rounds until a stop; returns why it stopped (at once when the round that ran ``current``, the kernel as
    written, found it wrong). A round is only as large as the wall time left fits beside the re-time of the picks so
    far (:func:`_retime_picks` of ``retime_top``) and the checks after the session (:func:`_tail_s`): the candidates
    at the last round's pace, the re-time at its own cost a pick (:func:`_retime_share_s`)."""
    try:
        while True:
            limit = run.budget.stop()
            if limit is not None:
                return StopReason.CANDIDATES if limit is BudgetStop.CANDIDATES else StopReason.WALL_TIME
            if run.budget.stall and stalled(run.latencies()):
                return StopReason.STALLED
            # the candidates left, not ``remaining``: that looks at the clock again, and a wall time
            # passing just now read as a strategy with nothing left (H200, 2026-12-04: matmul at 11)
            room = run.budget.candidates - run.budget.spent
            # the re-time's share of the wall time is kept for it (:func:`_retime_each_s` a pick, as _within_wall
            # reckons): on the H100 (2026-12-06) scaled_mm's rounds took its 60 s to 0.6 s, its 3.04x could not be
            # re-timed, and nothing was written
            reserve, tail = _retime_share_s(run, current, retime_top), _tail_s(run)
            fits = run.budget.affordable(min(batch_size, room), reserve_s=reserve + tail)
            if fits == 0 and _current_alone(run):  # nothing to re-time or write yet: the wall left is one candidate's
                reserve = tail = 0.0
                fits = run.budget.affordable(min(1, room))
            if run.limit is not None:  # the round's requests end before the re-time's share and the tail's, a hung one
                run.limit.reserve_s, run.limit.tail_s = reserve, tail
            if run.budget.candidate_s is None and getattr(evaluator, "first_alone", False):
                fits = min(fits, 1)  # no pace yet, on a GPU across entries: the kernel as written is timed first, alone
            if fits == 0:  # the wall time left cannot fit one more candidate beside the re-time's and the tail's
                return StopReason.WALL_TIME
            batch = strat.propose(fits)[:fits]
            if not batch:
                return StopReason.STRATEGY_DONE
            results = _round(batch, evaluator, run)
            _avoid_larger(strat, run, results)
            strat.observe(results)
            if on_progress is not None:
                on_progress(_progress(run, results))
            if current is not None and any(Config.of(r.config) == current and failed_check(r) for r in results):
                return StopReason.CURRENT_FAILED
    except KeyboardInterrupt as exc:
        run.interrupted_by = interrupt_signal(exc)
        return StopReason.INTERRUPTED


def _retime_share_s(run: _Run, current: Config | None, top: int) -> float:
    """The wall seconds the rounds leave the re-time: its picks so far at :func:`_retime_each_s` (as
    :func:`_within_wall` reckons it), at most :data:`RETIME_SHARE` of the wall time (a round that paid a worker's
    restart, or a cut candidate's wait, does not end the rounds)."""
    each = _retime_each_s(run)
    if top <= 0 or not each:
        return 0.0
    picks = len(_retime_picks(run, current, top))
    if picks < 2:  # under two the re-time takes none (:func:`_within_wall`): nothing to keep for it (late45 l151)
        return 0.0
    return min(picks * each, RETIME_SHARE * run.budget.wall_s)


def _tail_s(run: _Run) -> float:
    """The wall seconds the session leaves the phases after it (tune's ``tail``, from its results so far; 0 without
    one). On the CPU (2026-12-06 19:06 UTC) breaker18's inductor_scan spent its 600 s wall on its rounds and re-time,
    and its pick's check on the entries and the net were not run: nothing written (leftovers19's l1)."""
    return run.tail(run.results) if run.tail is not None else 0.0


def _current_alone(run: _Run) -> bool:
    """Whether the kernel as written (``run.current``) passed and no other candidate has: nothing is to be re-timed
    or written yet, so where the re-time's share and the tail leave no room for a round, the rounds still get one
    candidate in the wall left (late45 l151: fla_matmul's current, timed alone in about 25 s of a 60 s wall on the
    H100's pace, kept 15 s for the checks of its own write, which is never made, and the 35 s left fitted none)."""
    passed = {Config.of(r.config) for r in run.results if r.outcome.ok}
    return run.current is not None and passed == {run.current}


def _retime_each_s(run: _Run) -> float | None:
    """Seconds the re-time takes a pick: what it does for one (check it again and time it on every entry; no
    compile, no worker start, no wait on a candidate that hangs), the median of the passing candidates' check and
    timing seconds so far less their other entries' first-call compiles (:func:`retime_cost_s`), never more than the
    last round's pace; that pace before any candidate passed. On the
    H100 (2026-12-06) mamba_ssu's rounds held a candidate cut after 30 s, its pace read 10.3 s a candidate, and the
    14 s its wall had left "could not fit" a re-time of four whose checks and timings took about 2.5 s each."""
    pace = run.budget.candidate_s
    spent = [retime_cost_s(r) for r in run.results if r.outcome.ok and r.latency_us is not None]
    spent = [s for s in spent if s > 0]
    if not spent:
        return pace
    each = statistics.median(spent)
    return min(each, pace) if pace else each


def retime_cost_s(result: Result) -> float:
    """What re-timing the candidate of ``result`` spends: its check and timing seconds, less its first calls at the
    entries after the primary, which compiled it for each entry on a GPU and which the re-time, finding it compiled,
    does not spend again (:attr:`Result.entry_compile_s`; leftovers15: scaled_mm's three entries on the H100, where
    those compiles made the estimate about 3x what a re-time spends: benchmarks/retime_estimate.py)."""
    spent = (result.check_s or 0.0) + (result.bench_s or 0.0)
    return max(0.0, spent - (result.entry_compile_s or 0.0))


def _avoid_larger(strat: Strategy, run: _Run, results: Sequence[Result]) -> None:
    """For each new refusal larger tiles share (:meth:`_Run.refused_tiles`), the strategy is told never to propose
    them (:meth:`~kernelopt.tuning.strategies.Strategy.avoid`); one proposed before it came is set aside untimed."""
    space = run.space
    if space is None:
        return
    for r in results:
        if not run.refused_tiles(r):
            continue
        if r.grows_with_tiles:
            strat.avoid(lambda c, than=r.config: space.larger_tiles(c, than))
        else:  # shrinks with the tiles (a tl.dot's K under 16): smaller ones fail alike
            strat.avoid(lambda c, than=r.config: space.larger_tiles(than, c))


def _round(batch: Sequence[Config], evaluator: Evaluator, run: _Run) -> list[Result]:
    """Set aside what must not be timed, serve what the record holds, evaluate the rest in one batch, record and
    charge; results in order. An evaluator with a ``start`` (its workers) was started before the budget's clock
    (:func:`_start_workers`); one whose workers were not is started before the round's clock: the pace of a candidate
    never pays a start."""
    screened_s = run.budget.clock()
    why = {c: w for c in batch if (w := run.why_not_timed(c)) is not None}
    run.screen_s += run.budget.clock() - screened_s
    fresh = [c for c in batch if c.key() not in run.served_from and c not in why]
    start = getattr(evaluator, "start", None)
    if fresh and start is not None:  # the workers' start (once, then at once) is the session's, not the pace's:
        start()  # H100, 2026-12-06: mamba_ssu's first round of one took 30.2 s, 6.5 s its own; 29.8 s left fit none
    started_s, starts_s, redone_s = run.budget.clock(), _worker_start_s(evaluator), _redone_s(evaluator)
    measured = iter(evaluator.evaluate(fresh) if fresh else [])
    seconds = run.budget.clock() - started_s
    run.rounds_s += seconds
    run.restart_s += _worker_start_s(evaluator) - starts_s
    run.redone_s += _redone_s(evaluator) - redone_s
    out: list[Result] = []
    charged = ran = 0
    for c in batch:
        held = run.served_from.get(c.key())
        aside = why.get(c)
        if aside is not None:
            reason, refused = aside
            r = Result.failed(c, Outcome.INVALID, reason)
            run.aside.add(c.key())
            if refused and held is None and run.record is not None:
                run.record.append(r)  # attribution: the refusal and its reason stay in the record
            charged += run.screen_one()
        elif held is not None:
            r = held.model_copy(update={"recorded": True})
            run.served += 1
            charged += 1
        else:
            r = next(measured)
            sent = r.outcome is not Outcome.NOT_RUN_BUDGET  # the wall left it unrun: proposed, never measured
            run.evaluations += sent  # "12 evaluated" beside "no candidate ran" where none was sent (loses20 l3)
            ran += sent
            if r.outcome is Outcome.INVALID and not timed_in_part(r):  # refused by the evaluator (a bound the GPU would
                charged += run.screen_one()  # refuse): screened; one timed at other entries costs what it took
            else:
                charged += 1
            if run.record is not None:
                run.record.append(r)
        out.append(r)
        run.results.append(r)  # with its record line: an interrupt between two lines keeps what was recorded
    # the pace is of the candidates that ran: a round whose requests the wall time turned down took milliseconds
    # (misalign17's tune on the H100, 2026-12-06: its last round of 8 not sent read "about 0.0016 s a candidate")
    run.budget.charge(charged, evaluated=ran, seconds=seconds)
    if run.limit is not None and ran:
        run.limit.observe(run.budget.candidate_s)
    return out


def _worker_start_s(evaluator: Evaluator) -> float:
    """The seconds the evaluator's workers' starts took so far (restarts included); 0 for one without workers."""
    return float(getattr(evaluator, "worker_start_s", 0.0))


def _redone_s(evaluator: Evaluator) -> float:
    """The seconds of the evaluator's passes thrown away so far (:attr:`ShapesEvaluator.redone_s`); 0 elsewhere."""
    return float(getattr(evaluator, "redone_s", 0.0))


def _progress(run: _Run, batch: Sequence[Result]) -> Progress:
    best = run.best()
    return Progress(
        candidates=run.budget.spent,
        budget=run.budget.candidates,
        evaluations=run.evaluations,
        best_latency_us=best.latency_us if best else None,
        best_config=best.config if best else None,
        batch=tuple(batch),
        best_shapes=max(1, len(best.latency_us_by_shape)) if best else 1,
    )


def _retime_picks(run: _Run, current: Config | None, top: int) -> list[Config]:
    """What the re-time takes: the fastest ``top`` and those whose noisy samples may be as fast
    (:func:`~kernelopt.tuning.noise.contenders`), the current configuration, and (timed on several shapes) each
    shape's own fastest."""
    ok = sorted(
        (r for r in run.results if r.outcome.ok and r.latency_us is not None and not r.cut_slow),
        key=lambda r: r.latency_us or 0.0,
    )
    picks = contenders(ok, top)
    if top > 0 and current is not None and current not in picks and any(Config.of(r.config) == current for r in ok):
        picks.append(current)
    if top > 0:  # timed on several shapes: each shape's own fastest too (a partial one among them: set aside at
        # another entry), so its best is re-timed beside the pick
        timed = [*ok, *(r for r in run.results if timed_in_part(r) and not r.cut_slow)]
        labels = dict.fromkeys(label for r in timed for label in r.latency_us_by_shape)
        for label in labels:
            mine = [r for r in timed if label in r.latency_us_by_shape]
            fastest = Config.of(min(mine, key=lambda r: r.latency_us_by_shape[label]).config)
            if fastest not in picks:
                picks.append(fastest)
    return picks


def _within_wall(picks: list[Config], run: _Run, current: Config | None) -> tuple[list[Config], str | None]:
    """The picks the wall time left can re-time (:meth:`Budget.affordable` at :func:`_retime_each_s`: a re-time
    checks each candidate again and takes as many samples as its first measurement), and a
    line when it cannot re-time them all. Cut short, the re-time keeps the fastest and the current configuration
    first; under two, there is nothing to compare and none is re-timed: the pick is the ranking's, by first
    measurements."""
    if not picks:
        return picks, None
    each_s, tail_s = _retime_each_s(run), _tail_s(run)
    within = run.budget.elapsed_s < run.budget.wall_s
    fits = run.budget.affordable(len(picks), each_s=each_s, reserve_s=tail_s) if within else 0
    if fits >= len(picks):
        return picks, None
    each = f"about {each_s:.3g} s a candidate" if each_s else "its pace"
    left = max(0.0, run.budget.wall_s - run.budget.elapsed_s)
    kept = f", less the {tail_s:.3g} s kept for the checks after it" if tail_s > 0 else ""
    wall = f"the wall time left ({left:.3g} s of {run.budget.wall_s:g} s{kept}, at {each})"
    if fits < 2:
        return [], (
            f"{wall} cannot fit the re-time of the top {len(picks)}: the pick is the fastest first measurement, "
            "not re-timed"
        )
    first = [picks[0], *([current] if current is not None and current in picks[1:] else [])]
    kept = [*first, *(c for c in picks[1:] if c not in first)][:fits]
    return kept, f"{wall} fits the re-time of {fits} of the top {len(picks)} only (the fastest and the current first)"


def _start_workers(evaluator: Evaluator, budget: Budget, batch_size: int) -> float:
    """Start an evaluator's workers (one with a ``start``: every ``SHAPES`` entry's bench workers together, and the
    compile pool's ``batch_size`` workers) before the budget's clock; the seconds it took. The wall time is the
    candidates': on the H100 (2026-12-06) a session across three entries started their workers one after another in
    about 24 s of its 60 s, and its compile workers within its first two rounds."""
    start = getattr(evaluator, "start", None)
    if start is None:
        return 0.0
    if budget.before_s is not None and budget.wall_s <= 0:  # the command's wall spent before the session: nothing
        return 0.0  # will be timed, so no worker is started for it (wrongkernel32, v196: late49's Seen line on l191)
    started_s = budget.clock()
    start(batch_size)
    return budget.clock() - started_s


def _charged_retime(evaluator: Evaluator, run: _Run, picks: Sequence[Config]) -> list[Result]:
    """``evaluator.retime(picks)``, its seconds charged to the session's re-time (:attr:`_Run.retime_s`), an
    interrupt's included."""
    started_s = run.budget.clock()
    try:
        return evaluator.retime(picks)
    finally:
        run.retime_s += run.budget.clock() - started_s


def _retime(evaluator: Evaluator, run: _Run, picks: Sequence[Config]) -> list[Result]:
    """Re-time ``picks`` together, interleaved; appended to the record."""
    if not picks:
        return []
    retimed = [r.model_copy(update={"retimed": True}) for r in _charged_retime(evaluator, run, picks)]
    if run.record is not None:
        for r in retimed:
            run.record.append(r)
    return retimed


def _result(
    space: Space,
    run: _Run,
    current: Config | None,
    retimed: list[Result],
    stop: StopReason,
    name: str,
    unretimed: str | None = None,
) -> SessionResult:
    first = {Config.of(r.config): r.samples_us for r in run.results if r.outcome.ok}
    retimed = _load_only_adds(retimed, run.results)
    timed = [r for r in retimed if r.outcome.ok and r.latency_us is not None]
    best = pick(timed, first) if timed else run.best()
    if stop is StopReason.CURRENT_FAILED:
        best = None  # nothing is picked against a reference the kernel as written does not meet
    noisy = too_noisy(best, timed) if best is not None and timed else None
    if best is not None and not timed and unretimed is not None:  # the ranking's pick, by first measurements
        noisy = too_noisy_unretimed(best, [r for r in run.results if r.outcome.ok and r.latency_us is not None])
    best_us = best.latency_us if best else None
    cur = _latency_of(current, timed) or _latency_of(current, run.results)
    left_out = _current_left_out(current, timed, run.results)
    if left_out is not None:  # the re-time's pick stays; it and the current are compared in the first round
        unretimed = f"{unretimed}; {left_out}" if unretimed else left_out
        best_us = _latency_of(Config.of(best.config), run.results) if best is not None else None
        if best is not None and best_us is None:  # a pick with no first figure: the first round's fastest instead
            best = run.best()
            best_us = best.latency_us if best is not None else None
    return SessionResult(
        best_config=best.config if best else None,
        best_latency_us=best_us,
        current_config=current.as_dict() if current is not None else None,
        current_latency_us=cur,
        results=run.results,
        retimed=retimed,
        evaluations=run.evaluations,
        served=run.served,
        budget=run.budget.candidates,
        space_size=space.size.count,
        wall_s=run.budget.elapsed_s,
        stop=stop,
        strategy=name,
        noisy=noisy,
        screened=run.screened,
        unretimed=unretimed,
        interrupted_by=run.interrupted_by,
        pace=_pace(run),
    )


def _current_left_out(current: Config | None, timed: Sequence[Result], results: Sequence[Result]) -> str | None:
    """Why the re-time is not the round the pick is compared with the current configuration in, or ``None`` when it
    is: the current was timed in the first round (cut slow there too) but not in the re-time (cut slow, it was never
    re-timed; or its re-time failed). Its first figure beside the pick's re-timed one mixed the rounds
    (:func:`~kernelopt.tuning.shapes.same_round`'s rule); the re-time still picks among those it timed, and the pick
    and the current are then compared by their first figures. A current that was timed in neither round leaves the
    re-time the round (the pick is measured against a kernel that did not run)."""
    if current is None or not timed or any(Config.of(r.config) == current for r in timed):
        return None
    first = next((r for r in results if Config.of(r.config) == current and r.outcome.ok), None)
    if first is None or first.latency_us is None:
        return None
    why = "cut slow in the first round" if first.cut_slow else "its re-time did not pass"
    return (
        f"the current configuration was not re-timed ({why}): the re-time's pick and the current are compared by "
        "their first round's measurements"
    )


def _pace(run: _Run) -> SessionPace:
    """Where the session's wall went (:class:`SessionPace`), from its clocks and its candidates measured now."""
    measured = [r for r in run.results if not r.recorded and r.key not in run.aside]
    wall = run.budget.elapsed_s
    own = [sum(getattr(r, f) or 0.0 for r in measured) for f in ("compile_s", "check_s", "bench_s")]
    return SessionPace(
        start_s=run.start_s,
        wall_s=wall,
        rounds_s=run.rounds_s,
        compile_s=own[0],
        check_s=own[1],
        bench_s=own[2],
        restart_s=run.restart_s,
        redone_s=run.redone_s,
        rest_s=max(0.0, run.rounds_s - sum(own) - run.restart_s - run.redone_s),
        retime_s=run.retime_s,
        screen_s=run.screen_s,
        other_s=max(0.0, wall - run.rounds_s - run.retime_s - run.screen_s),
        cut=run.limit.cut if run.limit is not None else 0,
    )


def _load_only_adds(retimed: list[Result], results: Sequence[Result]) -> list[Result]:
    """``retimed`` read in one round: where a passing re-time of fewer than :data:`~kernelopt.tuning.noise.MIN_PAIRS`
    rounds is slower than its first measurement, load only added time there, and every passing re-time is given its
    first measurement's latency (the first round, whole); else the re-time's own. A median of two or three samples is
    one preempted sample away from a multiple of the truth: a cap 3.7x faster than the current one at first (22.6
    against 83.8 ms) was re-timed at [319.3, 5.2] ms, its median 169.8 ms, and the session kept the current
    configuration as "not beaten" (test_knob_helper_caps at load 5, 2026-12-06). Each configuration given the lower
    of its two figures on its own mixed the rounds: the pick's first figure against the current's re-time in the
    gain line (:func:`~kernelopt.tuning.shapes.same_round`, the rule every comparison keeps). The first round is
    read only where every passing re-time has a first measurement; otherwise the re-time's round stands."""
    firsts = {Config.of(r.config): r for r in results if r.outcome.ok and r.latency_us is not None}
    passing = [r for r in retimed if r.outcome.ok and r.latency_us is not None]
    loaded = any(
        len(r.samples_us) < MIN_PAIRS
        and (firsts[Config.of(r.config)].latency_us if Config.of(r.config) in firsts else math.inf)
        < (r.latency_us or 0.0)
        for r in passing
    )
    if not loaded or any(Config.of(r.config) not in firsts for r in passing):
        return retimed
    # the first round whole: its total and its figure at each shape (breaker30, q102: the per-shape table and the
    # per-bucket choice read the re-time's shapes beside the first round's totals, BLOCK_W=128 faster at every
    # shape in one and "9.4 % slower, not written" in the other)
    return [
        r.model_copy(update={k: getattr(firsts[Config.of(r.config)], k) for k in ("latency_us", "latency_us_by_shape")})
        if r.outcome.ok and r.latency_us is not None
        else r
        for r in retimed
    ]


def _latency_of(config: Config | None, results: Sequence[Result]) -> float | None:
    if config is None:
        return None
    for r in results:
        if r.outcome.ok and r.latency_us is not None and Config.of(r.config) == config:
            return r.latency_us
    return None


# ---------------------------------------------------------------------------------------------- gain


class GainJudgement(BaseModel):
    """Whether a session's best (or its per-bucket table) beats the current configuration by the minimum gain.

    Attributes:
        better: the best is faster than the current configuration by at least ``min_gain_pct``.
        gain_pct: ``(current / best - 1) * 100`` (``None`` unless both ran); of a table, on the shape where it
            gains most.
        min_gain_pct: the gain asked for.
        reason: one line saying why.
        table: what was judged is the per-bucket table (each shape's own best for its size, shape_choice
            ``table``, :func:`judge_table`), not the one best configuration.
        per_bucket: of a table judgement, what was judged is the per-bucket table itself, not one configuration
            judged shape by shape (against a keyed autotune list), nor the best alone (no shape to judge).
        refused_at: of a table judgement refused at one shape alone while it gains the minimum on another: that
            shape's label and how much slower it is there, percent (:func:`judge_table`; the folder re-times the
            two at that entry where the margin is small: :mod:`kernelopt.tuning.entry_retime`), else ``None``.
    """

    model_config = ConfigDict(extra="forbid")

    better: bool
    gain_pct: float | None
    min_gain_pct: float
    reason: str
    table: bool = False
    per_bucket: bool = False
    refused_at: tuple[str, float] | None = None


def judge_gain(result: SessionResult, *, min_gain_pct: float = DEFAULT_MIN_GAIN_PCT) -> GainJudgement:
    """Judge ``result`` against its current configuration (the harness's default minimum gain, 2 %)."""
    if result.best_latency_us is None:
        return GainJudgement(better=False, gain_pct=None, min_gain_pct=min_gain_pct, reason="no candidate ran")
    if result.noisy is not None:
        beaten = _beaten(result, min_gain_pct)
        if beaten is None or result.current_latency_us is None:
            return GainJudgement(better=False, gain_pct=None, min_gain_pct=min_gain_pct, reason=result.noisy)
        gain = (result.current_latency_us / result.best_latency_us - 1) * 100
        return GainJudgement(
            better=True,
            gain_pct=gain,
            min_gain_pct=min_gain_pct,
            reason=f"the best beats the current configuration by {min_gain_pct:g} % or more in {beaten[0]} of its "
            f"{beaten[1]} re-timed rounds ({gain:+.1f} %; a sign test at {SIGN_TEST_P:.0%}); the fastest few were too "
            "noisy to rank among themselves, so another "
            "of them may be as fast",
        )
    untimed = untimed_current(result)
    if untimed is not None:
        return GainJudgement(better=False, gain_pct=None, min_gain_pct=min_gain_pct, reason=untimed)
    if result.current_latency_us is None:
        why = (
            "the current configuration did not run" if result.current_config else "the current configuration is unknown"
        )
        return GainJudgement(better=True, gain_pct=None, min_gain_pct=min_gain_pct, reason=f"{why}; the best ran")
    gain = (result.current_latency_us / result.best_latency_us - 1) * 100
    better = gain >= min_gain_pct
    # the gain first and the minimum named as asked: "by 2 % (+228.7 %)" read as two gains (fresh26 f41)
    reason = (
        f"the best beats the current configuration by {gain:+.1f} % ({min_gain_pct:g} % asked)"
        if better
        else f"the best does not beat the current configuration by the {min_gain_pct:g} % asked ({gain:+.1f} %)"
    )
    return GainJudgement(better=better, gain_pct=gain, min_gain_pct=min_gain_pct, reason=reason)


def _beaten(result: SessionResult, min_gain_pct: float) -> tuple[int, int] | None:
    """:func:`~kernelopt.tuning.noise.beats_current` of the session's pick against the current configuration, both
    re-timed; ``None`` when either was not."""
    if result.best_config is None or result.current_config is None:
        return None
    best, current = Config.of(result.best_config), Config.of(result.current_config)
    mine = next((r for r in result.retimed if Config.of(r.config) == best), None)
    theirs = next((r for r in result.retimed if Config.of(r.config) == current), None)
    if mine is None or theirs is None or mine is theirs:
        return None
    return beats_current(mine, theirs, min_gain_pct)


def judge_table(
    by_shape: Mapping[str, tuple[float | None, float | None]],
    result: SessionResult,
    *,
    min_gain_pct: float = DEFAULT_MIN_GAIN_PCT,
    what: str | None = None,
    against: str = "the current configuration",
) -> GainJudgement:
    """Judge a per-bucket table against the current configuration shape by shape.

    Args:
        by_shape: shape label -> (the table's latency there: the measured latency of the row that serves that
            shape's size; the current configuration's latency there), microseconds.
        result: the session (no candidate ran, or a re-time too noisy to rank: as :func:`judge_gain`).
        min_gain_pct: the gain a shape needs; a shape where the table is slower by less is within noise.
        what: the reason's name for what is judged, one configuration judged shape by shape (``None``: the
            per-bucket table, ``per_bucket`` then).
        against: the reason's name for the kernel as written (a keyed autotune list: the autotuner's pick at
            each key).

    The table is better when it beats the current configuration on some shape by at least ``min_gain_pct`` and
    is not slower by more than that on any shape (its rows are each shape's own best, so the one best
    configuration being the current one does not mean the table gains nothing).
    """
    per_bucket, what = what is None, what or "the per-bucket table"

    def judged(
        better: bool, reason: str, gain_pct: float | None = None, refused_at: tuple[str, float] | None = None
    ) -> GainJudgement:
        return GainJudgement(
            better=better,
            gain_pct=gain_pct,
            min_gain_pct=min_gain_pct,
            reason=reason,
            table=True,
            per_bucket=per_bucket,
            refused_at=refused_at,
        )

    if result.noisy is not None:  # a table's rows are each shape's own best: a noisy session ranks none of them
        return judged(False, result.noisy)
    if result.best_latency_us is None or not by_shape:
        return judge_gain(result, min_gain_pct=min_gain_pct).model_copy(update={"table": True})  # the best judged
    untimed = [label for label, (mine, _) in by_shape.items() if mine is None]
    if untimed:
        return judged(False, f"{what}'s row for {', '.join(untimed)} was not timed there")
    baseline = untimed_current(result)
    if baseline is not None:
        return judged(False, baseline)
    if any(now is None for _, now in by_shape.values()):
        why = "did not run" if result.current_config else "is unknown"
        return judged(True, f"{against} {why}; every row of {what} ran")
    gains = {label: ((now or 0.0) / mine - 1) * 100 for label, (mine, now) in by_shape.items() if mine}
    better, reason = _shape_gains(gains, min_gain_pct, what, against)
    slower = [label for label, gain in gains.items() if gain < -min_gain_pct]
    alone = len(slower) == 1 and max(gains.values()) >= min_gain_pct
    return judged(better, reason, max(gains.values()), (slower[0], -gains[slower[0]]) if alone else None)


def _shape_gains(gains: Mapping[str, float], min_gain_pct: float, what: str, against: str) -> tuple[bool, str]:
    """Whether ``what`` beats ``against`` given its gain on each shape (``gains``, percent): by ``min_gain_pct`` on
    some shape and slower by no more than that on any (:func:`judge_table`); and the reason's line."""
    top = max(gains, key=lambda label: gains[label])
    low = min(gains, key=lambda label: gains[label])
    if gains[low] < -min_gain_pct:
        return False, (
            f"{what} is {-gains[low]:.1f} % slower than {against} on {low} "
            f"(more than the {min_gain_pct:g} % of noise allowed)"
        )
    if gains[top] >= min_gain_pct:
        return True, (
            f"{what} beats {against} by {gains[top]:+.1f} % on {top} (at least "
            f"{min_gain_pct:g} % asked) and is no slower beyond {min_gain_pct:g} % on any shape "
            f"(least {gains[low]:+.1f} % on {low})"
        )
    return False, (
        f"{what} does not beat {against} by {min_gain_pct:g} % on any shape (at most {gains[top]:+.1f} % on {top})"
    )


def knobs_changing_results(result: SessionResult) -> dict[str, list[Value]]:
    """Knob -> the values tried, when the current configuration ran and every other candidate that ran
    changed the kernel's results (``wrong_result``): those knobs cannot move without changing what the kernel
    computes (a block that must cover the row, where every smaller value fails; a chunk size the operator is
    defined by, where the reference chunks alike). ``{}`` otherwise."""
    current = result.current_config or {}
    if result.current_latency_us is None:
        return {}
    ran = [
        x for x in result.results if x.outcome not in (Outcome.NOT_RUN_BUDGET, Outcome.INVALID) and x.config != current
    ]
    if not ran or any(x.outcome is not Outcome.WRONG_RESULT for x in ran):
        return {}
    out: dict[str, list[Value]] = {}
    for x in ran:
        for k, v in x.config.items():
            if (k not in current or current[k] != v) and v not in out.setdefault(k, []):
                out[k].append(v)
    return {
        k: sorted(v, key=str) if not all(isinstance(i, int | float) for i in v) else sorted(v)
        for k, v in out.items()
        if v
    }


def current_failed_line(result: SessionResult, kernel_py: str = "kernel.py") -> str | None:
    """The one line of a session that ended because the kernel as written failed its own correctness check
    (:attr:`StopReason.CURRENT_FAILED`), with that check's reason; ``None`` for any other session."""
    from kernelopt.oneline import one_line

    if result.stop is not StopReason.CURRENT_FAILED:
        return None
    failed = current_failure(result)
    why = one_line(failed.reason, 300) if failed is not None and failed.reason else "a wrong result"
    return f"{kernel_py} as written fails its own correctness check, so nothing was tuned: {why}"


def current_failure(result: SessionResult) -> Result | None:
    """The result of the kernel as written that failed its own correctness check (its reason, and its error class
    that decides the hints it may carry), ``None`` when there is none."""
    current = Config.of(result.current_config) if result.current_config is not None else None
    return next((r for r in result.results if failed_check(r) and Config.of(r.config) == current), None)


def changing_results_line(result: SessionResult, kernel_py: str = "kernel.py") -> str | None:
    """The one line of a session whose knobs would all change the kernel's results
    (:func:`knobs_changing_results`), ``None`` when some move kept them."""
    changing = knobs_changing_results(result)
    if not changing:
        return None
    moved = "; ".join(f"{k} = {', '.join(map(str, v))}" for k, v in changing.items())
    return (
        f"every value tried beside the current one changes what {kernel_py} computes ({moved}: all wrong_result): "
        f"{', '.join(changing)} cannot move without changing its results (a block that must cover the row, or a "
        f"chunk the operator is defined by, as its reference's own?), so there is nothing to tune; {kernel_py} "
        "unchanged"
    )


def no_gain(result: SessionResult, *, min_gain_pct: float = DEFAULT_MIN_GAIN_PCT) -> bool:
    """True when the session found nothing better than the current configuration (the loop then stops:
    the launch configuration has converged)."""
    return not judge_gain(result, min_gain_pct=min_gain_pct).better
