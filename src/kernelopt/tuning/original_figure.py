"""A retune's figure against the original computation its earlier guards fall back to (leftovers27, l131).

A retune's session times kernel.py as it is as its current configuration (the guards an earlier ``tune`` wrote and
all), so its figures are against what the file runs now (late41, l90), and where those guards hold the original
computation they fall back to was never timed: the note said "no figure against it". After the session, where the
edit is written, the original computation (kernel.py with its tuned ``if`` statements taken out,
:func:`~kernelopt.tunables.guard_holds.without_guards`) and the text to be written are re-timed side by side at each
``SHAPES`` entry the session timed, interleaved in one request as the session re-times its top few
(:meth:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator.retime_sources_at`), within the session's wall
(:class:`~kernelopt.tuning.tail_wall.TailWall`): the figure a user reads against the original is of one round. Where it
cannot be timed (no time left, a text that does not time) the note says there is no figure, and why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kernelopt.digits import sig, times
from kernelopt.tunables.guard_holds import without_guards
from kernelopt.tuning.candidate import Config, Result, config_text
from kernelopt.tuning.tail_wall import TailWall


class SourcesTimer(Protocol):
    """What times kernel texts side by side at one entry (a session's evaluator: ``retime_sources_at``)."""

    def retime_sources_at(self, label: str, sources: Sequence[tuple[Config, str]]) -> list[Result]: ...


@dataclass(frozen=True)
class OriginalFigure:
    """The original computation (``original``: the configuration its guards fall back to) and the written kernel
    re-timed side by side at each entry (``original_us``, ``written_us``: label -> microseconds), or why not
    (``why``)."""

    original: Config
    original_us: Mapping[str, float] = field(default_factory=dict)
    written_us: Mapping[str, float] = field(default_factory=dict)
    why: str | None = None

    @property
    def speedup(self) -> float | None:
        """The original's total over the written kernel's (each the sum over the entries), ``None`` without both."""
        if self.why is not None or not self.written_us or sum(self.written_us.values()) <= 0:
            return None
        return sum(self.original_us.values()) / sum(self.written_us.values())

    def clause(self, guarded: Sequence[str]) -> str:
        """The retune note's clause on the original computation: its figure against the written kernel, or that there
        is none at the entries ``guarded`` (where the earlier guards hold) and why."""
        fallback = f"the original computation its guards fall back to ({config_text(self.original.as_dict())})"
        speedup = self.speedup
        if speedup is None:
            why = f" (timed beside the written kernel after the session: {self.why})" if self.why else ""
            return f"{fallback} was not timed at {', '.join(guarded)}, where they hold: no figure against it{why}"
        n = len(self.written_us)
        together = f"for its {n} shapes together" if n > 1 else f"at {next(iter(self.written_us))}"
        mine, theirs = sum(self.written_us.values()), sum(self.original_us.values())
        return (
            f"against {fallback}, re-timed beside the written kernel after the session at each entry: "
            f"{sig(mine)} us against {sig(theirs)} us {together}, {self.pace()}"
        )

    def pace(self) -> str | None:
        """``1.67x faster`` (or ``1.25x slower``): the written kernel against the original; ``None`` without a
        figure."""
        speedup = self.speedup
        if speedup is None:
            return None
        return f"{times(speedup)} faster" if speedup >= 1 else f"{times(1 / speedup)} slower"


def time_against_original(
    timer: SourcesTimer,
    labels: Sequence[str],
    base_source: str,
    written: str,
    current: Config,
    pick: Config,
    wall: TailWall | None = None,
    need_s: float = 0.0,
) -> OriginalFigure:
    """The original computation under ``base_source``'s guards (named ``current``) and ``written`` (named ``pick``)
    re-timed side by side at each of ``labels`` (the entries the session timed), within ``wall`` (``need_s``: the
    seconds it is estimated to take)."""
    original = without_guards(base_source)
    if original is None:
        return OriginalFigure(current, why="its guards could not be taken out of kernel.py as it is")
    if wall is not None and (cut := wall.cut("the original computation's re-time beside the written kernel", need_s)):
        return OriginalFigure(current, why=cut)
    theirs: dict[str, float] = {}
    mine: dict[str, float] = {}
    for label in labels:
        before, after = timer.retime_sources_at(label, [(current, original), (pick, written)])
        if before.latency_us is None or after.latency_us is None:
            failed = before if before.latency_us is None else after
            what = "the original computation" if failed is before else "the written kernel"
            return OriginalFigure(current, why=f"{what} at {label}: {failed.reason or failed.outcome.value}")
        theirs[label], mine[label] = before.latency_us, after.latency_us
    return OriginalFigure(current, theirs, mine)
