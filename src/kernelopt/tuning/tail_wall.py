"""A session's stated wall time held through the phases after its search (honest18, breaker18's l3).

The search and its re-time end within the wall time plus :data:`~kernelopt.tuning.pace.WALL_MARGIN_S`
(:mod:`kernelopt.tuning.pace`); what ran after them did not look at it: the re-time at the one entry that refused a
pick (:mod:`kernelopt.tuning.entry_retime`), the written edit's check on the ``SHAPES`` entries and the net
(:func:`kernelopt.tuning.folder._checked_edit`, the net's own cap a quarter of the session's wall on top). On the CPU
(2026-12-06 19:06 UTC, load 7-9) ``tune`` of breaker18's inductor_scan, its budget "600 s", ended its session at
about 620 s and was killed at 700 s with its pick's edit not yet checked. Each phase after the search now asks
:meth:`TailWall.cut` first, against the same deadline as the session's end: a phase the time left cannot fit is not
run, and the verdict says which (nothing is written unchecked: a rerun resumes from the session record, whose
candidates it serves, and reaches these phases with its wall time whole).

So that a session bounded by its wall still writes a checked pick, its search keeps them their time
(:meth:`TailCost.need_s`, leftovers19's l1): the rounds and the re-time of the top few end that many seconds before the
wall, estimated from what this session's candidates cost so far (the best's check on the entries, its re-time at one
entry, its compile for the GPU's own target, the net's first sizes), at most :data:`TAIL_SHARE` of the wall.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kernelopt.tuning.budget import Budget
from kernelopt.tuning.candidate import Result
from kernelopt.tuning.pace import WALL_MARGIN_S

#: The most of a session's wall time its search keeps for the phases after it (our choice, as the re-time's share,
#: ``session.RETIME_SHARE``): a kernel whose check is slow in the interpreter still gets most of its wall searched.
TAIL_SHARE = 0.25
#: The net's sizes kept time for, each at the cost of the pick's check on the entries (our choice: the net's first
#: size is its largest, a check of the written kernel and reference.py's build; the original runs only where the
#: written kernel fails, and the net's cap cuts what is left past the wall).
NET_SIZES_KEPT = 2
#: The least a pick's compile for a GPU target is estimated at, seconds (a compile process of its own: Triton's import
#: and one compile; wrongkernel18's own-target check of programs_floor took 5.1 s in a fresh process, 2.5 s once torch
#: was no longer imported for it, docs/faults.md; the CPU's interpreter compiles nothing, so its candidates' compile
#: seconds say nothing of it).
TARGET_COMPILE_S = 5.0


@dataclass(frozen=True)
class TailCost:
    """How the phases after a session's search are estimated (:meth:`need_s`).

    Attributes:
        entries: the ``SHAPES`` entries the session times (the re-time at one refusing entry is one of them; a session
            of one entry has no such re-time).
        target: the pick is compiled for a GPU target before its write (``folder.session_target``).
        wall_s: the session's stated wall time: the estimate is at most :data:`TAIL_SHARE` of it.
    """

    entries: int
    target: bool
    wall_s: float

    def need_s(self, results: Sequence[Result]) -> float:
        """The seconds the phases after the search are estimated to take, from the fastest passing candidate of
        ``results`` so far (the likely pick; 0 before one passed): :data:`NET_SIZES_KEPT` of its checks for the net;
        across entries, its check on them again (the written edit's) and its check and timing at one entry for itself
        and the current configuration (the re-time at a refusing entry); and its compile where the pick is compiled for
        a target (at least :data:`TARGET_COMPILE_S`); at most :data:`TAIL_SHARE` of the wall."""
        ok = [r for r in results if r.outcome.ok and r.latency_us is not None]
        if not ok:
            return 0.0
        best = min(ok, key=lambda r: r.latency_us or 0.0)
        check = best.check_s or 0.0
        need = check * NET_SIZES_KEPT
        if self.entries > 1:  # the written edit's check on the entries, and the re-time at one of them
            need += check + 2 * (check + (best.bench_s or 0.0)) / self.entries
        if self.target:
            need += max(best.compile_s or 0.0, TARGET_COMPILE_S)
        return min(need, TAIL_SHARE * self.wall_s)


class WallSpent(Exception):
    """A phase after the search was not run: the session's wall time is spent (the message: :meth:`TailWall.cut`'s
    line)."""


@dataclass(frozen=True)
class TailWall:
    """The deadline of the phases after a session's search.

    Attributes:
        wall_s: the session's stated wall time, seconds.
        deadline: when it ends on ``clock``: the budget's start plus ``wall_s`` plus
            :data:`~kernelopt.tuning.pace.WALL_MARGIN_S` (the session's own end).
        clock: the session's clock (``time.monotonic``; a manual one in tests).
    """

    wall_s: float
    deadline: float
    clock: Callable[[], float]

    @classmethod
    def of(cls, budget: Budget) -> TailWall:
        """The wall of the session ``budget`` measured (started, or not: then from now)."""
        now = budget.clock()
        return cls(budget.wall_s, now - budget.elapsed_s + budget.wall_s + WALL_MARGIN_S, budget.clock)

    def left_s(self) -> float:
        """Seconds left before the deadline (negative past it)."""
        return self.deadline - self.clock()

    def cut(self, phase: str, need_s: float = 0.0) -> str | None:
        """``None`` when more than ``need_s`` seconds are left for ``phase`` (what it is estimated to take, 0 when not
        known), else the line that says it was not run."""
        left = self.left_s()
        if left > need_s:
            return None
        need = f", about {need_s:.3g} s needed" if need_s > 0 else ""
        return (
            f"{phase} not run: the session's wall time of {self.wall_s:g} s is spent ({max(0.0, left):.3g} s left"
            f"{need}); a rerun resumes from the session record"
        )

    def check(self, phase: str, need_s: float = 0.0) -> None:
        """:meth:`cut`, raised.

        Raises:
            WallSpent: the time left cannot fit ``phase``.
        """
        line = self.cut(phase, need_s)
        if line is not None:
            raise WallSpent(line)
