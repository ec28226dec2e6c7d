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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kernelopt.tuning.budget import Budget
from kernelopt.tuning.pace import WALL_MARGIN_S


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
