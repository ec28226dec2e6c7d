"""The budget of one tuning session: a number of candidates and a wall time, on an injected clock (pure).

The default rule (issue 22): a fifth of the fit-pruned space, but never fewer than :data:`FLOOR`
candidates, and never more than the space (a space of at most the floor is swept whole, which is cheap);
beside it :data:`DEFAULT_WALL_S` seconds of wall time. A default budget also ends a session that has
stalled (:func:`stalled`) when it allows more than :data:`STALL_MIN_CANDIDATES`: on a space of thousands,
a fifth is never reached, and the wall time alone
let a session run on long after its best (H200, 2026-12-04: linear_bf16's best at candidate 54 of 140).
An explicit count or fraction replaces the rule (capped at the space, at least one candidate; no floor and
no stall: what was asked is what runs).

The wall time bounds the session, not only its start of a round: a round is sent only as large as the wall
time left can fit at the seconds per candidate the last round took (:meth:`Budget.affordable`), and a session
whose wall time cannot fit one more candidate ends on its wall time. A round already sent runs to its end: the
estimate is the whole bound (a loaded 2-core machine, 2026-12-05: ``tune layernorm_cap --budget-wall-s 90``
ran 138 s, its last round of four sent before 90 s, and said "candidates").

The clock is any ``() -> seconds`` callable: ``time.monotonic`` on the hardware, a :class:`ManualClock`
that an evaluator advances in replay (recorded seconds), so time limits work offline too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from kernelopt.errors import UsageError

#: Fewest candidates the default budget allows: a space this small is swept whole.
FLOOR = 24
#: The default budget is this fraction of the fit-pruned space (above the floor).
DEFAULT_FRACTION = 1 / 5
#: Wall seconds of a session by default.
DEFAULT_WALL_S = 600.0
#: The least wall time a session may be given, seconds. The wall time is looked at before each round of
#: candidates, and the first round starts milliseconds after the budget does; under a second that is a race
#: with the clock (``--budget-wall-s 1e-300`` timed nothing: "no candidate ran"). A second is also about what
#: one round costs: 0.16-0.80 s a candidate in the complete H200 sweeps of 2026-12-01 and 2026-12-05
#: (``docs/gpu-runs/``, wall seconds over evaluated configurations, compiled four at a time).
MIN_WALL_S = 1.0

#: A gain smaller than this fraction of the best does not count as progress for :func:`stalled`.
STALL_GAIN = 0.01
#: A default budget of at most this many candidates (a fit-pruned space of at most 500) runs whole: the
#: stall stop is for spaces of thousands, whose fifth is never reached. On a held-out H200 GEMM sweep of 360
#: configurations with 2 within 3 % of the best (issue 32, 2026-12-04) the stall stop ended sessions after
#: 47.5 of their 72 candidates and 18 % of them missed; a session that runs on ends at least as well.
STALL_MIN_CANDIDATES = 100

Clock = Callable[[], float]


@dataclass
class ManualClock:
    """A clock that moves only when told (replay charges recorded seconds; tests charge what they like)."""

    now_s: float = 0.0

    def __call__(self) -> float:
        return self.now_s

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self.now_s += seconds


def check_wall_s(wall_s: float, *, name: str) -> None:
    """Refuse a session's wall time that is not a finite number of at least :data:`MIN_WALL_S` seconds.

    Args:
        wall_s: the wall time asked for, seconds.
        name: where it was given, as the user wrote it (``--budget-wall-s``, ``README.md: budget_wall_s``).

    Raises:
        UsageError: nan, infinite, or under :data:`MIN_WALL_S` (one line naming ``name`` and the minimum).
    """
    if not math.isfinite(wall_s) or wall_s <= 0:
        raise UsageError(f"{name} must be a positive number of seconds, not {wall_s:g}")
    if wall_s < MIN_WALL_S:
        raise UsageError(
            f"{name} {wall_s:g} s is too short to time one candidate: the least wall time of a session is "
            f"{MIN_WALL_S:g} s",
            hint=f"give {MIN_WALL_S:g} s or more, or leave it out ({DEFAULT_WALL_S:g} s)",
        )


class BudgetStop(StrEnum):
    """Which limit of the budget was reached."""

    CANDIDATES = "candidates"
    WALL_TIME = "wall_time"


def default_candidates(space_size: int) -> int:
    """``max(FLOOR, floor(size * DEFAULT_FRACTION))`` capped at ``space_size`` (the issue's rule: never more than
    a fifth of the space above the floor; rounding up had logsumexp_fp32 time 32 of 156, 20.5 %)."""
    return min(space_size, max(FLOOR, math.floor(space_size * DEFAULT_FRACTION)))


def fraction_candidates(space_size: int, fraction: float) -> int:
    """``ceil(size * fraction)`` candidates, at least 1 and at most ``space_size`` (an explicit fraction)."""
    return min(space_size, max(1, math.ceil(space_size * fraction)))


def stalled(latencies: Sequence[float | None], *, floor: int = FLOOR, gain: float = STALL_GAIN) -> bool:
    """True when the session's best has stopped moving.

    ``latencies`` are the candidates' in the order they ran (``None`` for one that failed). Candidate
    ``k`` (1-based) is the last to improve on the best by at least ``gain``; the session has stalled
    once ``max(floor, k)`` candidates have followed it: as many again as it took to get there, and never
    fewer than the floor. A session with no candidate that ran has not stalled (its budget ends it).
    """
    anchor, last = math.inf, 0
    for i, latency in enumerate(latencies, 1):
        if latency is not None and latency < anchor * (1 - gain):
            anchor, last = latency, i
    return last > 0 and len(latencies) - last >= max(floor, last)


@dataclass
class Budget:
    """Candidates and wall seconds a session may spend.

    Attributes:
        candidates: how many candidates may be evaluated (served-from-record ones count too: a resumed
            session continues the same budget).
        wall_s: seconds of wall time from :meth:`start`.
        clock: the clock, ``() -> seconds``.
        spent: candidates charged so far.
        stall: the session also ends when it has :func:`stalled` (the default rule's budgets).
        candidate_s: wall seconds per evaluated candidate in the last round that evaluated any (``None``
            before one has): the estimate :meth:`affordable` uses.
        before_s: seconds of the stated wall spent before the session's clock started, taken off :attr:`wall_s`
            (:meth:`count_before`); ``None`` where the stated wall is the session's own (the loop's Stage 3, the MCP
            server), and then the session's workers' start is not counted either.
    """

    candidates: int
    clock: Clock
    wall_s: float = DEFAULT_WALL_S
    spent: int = 0
    stall: bool = False
    candidate_s: float | None = None
    before_s: float | None = None
    _started_s: float | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.candidates < 0 or self.wall_s < 0:
            raise ValueError("a budget is not negative")

    @classmethod
    def default(cls, space_size: int, clock: Clock, *, wall_s: float = DEFAULT_WALL_S) -> Budget:
        """The default rule over a fit-pruned space of ``space_size`` configurations (it ends on a stall
        when it allows more than :data:`STALL_MIN_CANDIDATES`)."""
        candidates = default_candidates(space_size)
        return cls(candidates, clock, wall_s, stall=candidates > STALL_MIN_CANDIDATES)

    @classmethod
    def from_fraction(cls, space_size: int, fraction: float, clock: Clock, *, wall_s: float = DEFAULT_WALL_S) -> Budget:
        """``ceil(space_size * fraction)`` candidates (at least 1, at most the space).

        Raises:
            ValueError: ``fraction`` is not in (0, 1].
        """
        if not 0 < fraction <= 1:
            raise ValueError(f"a budget fraction is in (0, 1], not {fraction:g}")
        return cls(fraction_candidates(space_size, fraction), clock, wall_s)

    @classmethod
    def from_count(cls, space_size: int, count: int, clock: Clock, *, wall_s: float = DEFAULT_WALL_S) -> Budget:
        """``count`` candidates, at most the space.

        Raises:
            ValueError: ``count`` < 1.
        """
        if count < 1:
            raise ValueError(f"a budget is at least one candidate, not {count}")
        return cls(min(space_size, count), clock, wall_s)

    def count_before(self, seconds: float) -> None:
        """Count ``seconds`` spent before the session (kernel.py's discovery, the workers' start) against the wall:
        :attr:`wall_s` is what is left of it, never below 0. ``kernelopt tune --budget-wall-s 60`` meant 60 s of
        session after up to 90 s of discovery on the H100 of 2026-12-07 (late49's l191): a user's wall is the run's."""
        spent = max(0.0, seconds)
        self.before_s = (self.before_s or 0.0) + spent
        if not math.isinf(self.wall_s):
            self.wall_s = max(0.0, self.wall_s - spent)

    def start(self) -> None:
        """Start the wall clock (a second call keeps the first start)."""
        if self._started_s is None:
            self._started_s = self.clock()

    @property
    def elapsed_s(self) -> float:
        return 0.0 if self._started_s is None else self.clock() - self._started_s

    @property
    def remaining(self) -> int:
        """Candidates left (0 once the wall time is spent)."""
        return 0 if self.stop() is not None else self.candidates - self.spent

    def charge(self, n: int = 1, *, evaluated: int = 0, seconds: float = 0.0) -> None:
        """Charge ``n`` candidates, of which ``evaluated`` ran (the others were served from the record or
        excluded) in ``seconds`` of wall time: the round's cost per candidate, :attr:`candidate_s`."""
        self.spent += n
        if evaluated > 0:
            self.candidate_s = max(0.0, seconds) / evaluated

    def affordable(self, n: int, *, reserve_s: float = 0.0, each_s: float | None = None) -> int:
        """How many of ``n`` candidates the wall time left can fit, at ``each_s`` seconds each (default
        :attr:`candidate_s`; all ``n`` before any round has run, or while the last one cost nothing, without a look
        at the clock; else 0 once the wall time is spent); ``reserve_s`` of the wall time left is kept for what
        comes after (a session's re-time)."""
        each = each_s if each_s is not None else self.candidate_s
        if not each:
            return n
        left = self.wall_s - self.elapsed_s - reserve_s
        if math.isinf(left):  # no wall time (a sweep without a time budget): every candidate fits
            return n
        return max(0, min(n, math.floor(left / each)))

    def stop(self) -> BudgetStop | None:
        """The limit reached, or ``None`` while the session may go on; the wall time first (a last round that
        spent the candidates and ran past the wall time ran out of wall time)."""
        if self.elapsed_s >= self.wall_s:
            return BudgetStop.WALL_TIME
        if self.spent >= self.candidates:
            return BudgetStop.CANDIDATES
        return None


@dataclass(frozen=True)
class BudgetRule:
    """How a session's budget is set (the task-card keys ``budget``, ``budget_fraction``, ``budget_wall_s``
    and the flags ``--budget``, ``--budget-fraction``, ``--budget-wall-s``): a count, else a fraction,
    else the default rule; and the wall seconds.

    Raises:
        ValueError: both a count and a fraction, or either out of range (at :meth:`build`).
    """

    count: int | None = None
    fraction: float | None = None
    wall_s: float = DEFAULT_WALL_S

    def __post_init__(self) -> None:
        if self.count is not None and self.fraction is not None:
            raise ValueError("a budget is a count or a fraction, not both")

    def build(self, space_size: int, clock: Clock) -> Budget:
        """The budget over a fit-pruned space of ``space_size`` configurations."""
        if self.count is not None:
            return Budget.from_count(space_size, self.count, clock, wall_s=self.wall_s)
        if self.fraction is not None:
            return Budget.from_fraction(space_size, self.fraction, clock, wall_s=self.wall_s)
        return Budget.default(space_size, clock, wall_s=self.wall_s)

    def candidates(self, space_size: int) -> int:
        """How many candidates the budget built over a space of ``space_size`` allows (:meth:`build`'s count)."""
        if self.count is not None:
            return min(space_size, self.count)
        if self.fraction is not None:
            return fraction_candidates(space_size, self.fraction)
        return default_candidates(space_size)

    def describe(self) -> str:
        """``default: max(24, 1/5 of the space)``, ``0.1 of the space`` or ``50 candidates``."""
        if self.count is not None:
            return f"{self.count} candidates"
        if self.fraction is not None:
            return f"{self.fraction:g} of the space"
        return f"default: max({FLOOR}, 1/5 of the space)"

    def below_floor(self, space_size: int) -> str | None:
        """A note when the fraction gives fewer candidates than the default rule's floor would (on a space of
        ``space_size``); ``None`` otherwise. What was asked still runs: the note says the budget in candidates
        (``--budget-fraction 1e-9`` of 9 configurations is 1 candidate)."""
        if self.fraction is None:
            return None
        n, floor = fraction_candidates(space_size, self.fraction), min(space_size, FLOOR)
        if n >= floor:
            return None
        return (
            f"budget fraction {self.fraction:g} of the {space_size} fit configurations is a budget of {n} "
            f"candidate(s), fewer than the {floor} the default rule's floor gives; run as asked"
        )
