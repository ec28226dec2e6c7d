"""A session's pace (pure): how long one candidate's request may run, and where the session's wall went.

:class:`CandidateLimit` bounds each request a candidate makes (a compile, a check, a timing on one ``SHAPES`` entry)
by three things, the least of them: the evaluator's own limit (``--candidate-timeout-s``, 60 s), a multiple of the pace
measured so far (:data:`PACE_FACTOR` x the low median of the rounds' seconds a candidate, never under
:data:`PACE_FLOOR_S`, so a first slow compile is not cut; no pace before a round ran: the kernel as written, timed
first alone, is never cut by it), and the wall time the budget has left. A request the wall time leaves no second for
is not sent (``NOT_RUN_BUDGET``). The re-time of the top few at the end is bounded by the wall time left plus
:data:`WALL_MARGIN_S`, so a session ends within its wall time plus that margin (the re-time is sized to the wall time
left at its own cost a pick, :func:`~kernelopt.tuning.session._retime_each_s`, and a request in flight at the end is
seen within :data:`~kernelopt.worker.pool.POLL_S` and killed).

On the H100 (2026-12-06, ``docs/tuning-engine.md`` "The pace of a session") one mamba_ssu candidate
(``BLOCK_SIZE_M=256, num_warps=1``) waited out the whole 60 s limit on a small entry while the session's candidates
took 4-6 s each, and the session ran 103 s of its 60 s wall: at this pace the limit is 30 s, and never past the wall.

:class:`SessionPace` is the breakdown ``tune --json`` prints (``pace``): the workers' start, before the budget's clock;
the rounds' wall and the candidates' own compile, check and timing seconds within it; the re-time; and what was cut.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from kernelopt.tunables.model import AutotuneEvaluation
from kernelopt.tuning.budget import Budget

#: A candidate's request may take this many times the median of the rounds' seconds a candidate so far (our choice:
#: a candidate far slower than the rounds' is a far slower kernel, or a hung one; the low median, a round's own pace,
#: so one round that waited on a cut candidate does not raise the limit for the next: the median of two rounds is
#: their mean, and a round of 12.5 s beside one of 34.5 s that held a cut candidate raised the next cut from 62 s to
#: 117 s, newuser11's n62).
PACE_FACTOR = 5.0
#: Nor is it cut by the pace under this (a first compile of a large tile takes seconds on a busy host; the CPU's
#: interpreter runs one call in seconds at load 10), seconds.
PACE_FLOOR_S = 30.0
#: A session ends within its wall time plus this, seconds: the re-time of the top few is cut here (it was sized to fit
#: the wall time left at its own cost a pick, never more than the last round's pace), as are the workers' kill and the
#: record's last lines.
WALL_MARGIN_S = 15.0
#: The share of :data:`WALL_MARGIN_S` a re-time may run into where checks follow the session (our choice: a re-time a
#: little over its plan still ends, and the rest of the margin is left to its worker's kill and the host's work on the
#: pick before those checks; seen19's s3).
RETIME_MARGIN_SHARE = 0.5
#: A request gets at least this, or it is not sent (a request sent with no time would only kill its worker), seconds.
LEAST_REQUEST_S = 1.0


@dataclass
class CandidateLimit:
    """The limit of each request a session's candidates make (module docstring).

    Attributes:
        budget: the session's budget (its wall time and clock, and its rounds' pace).
        factor, floor_s: the pace's multiple and its floor (:data:`PACE_FACTOR`, :data:`PACE_FLOOR_S`).
        paces_s: each round's seconds a candidate so far (:attr:`Budget.candidate_s`).
        retiming: the session re-times its top few: the wall time left has :data:`WALL_MARGIN_S` more (its
            :data:`RETIME_MARGIN_SHARE` where checks follow the session, :meth:`left_s`), and the pace does not bound it
            (a re-time takes several candidates' timings in one request).
        reserve_s: the wall seconds the rounds leave the re-time (``session._retime_share_s``, set before each round):
            a round's request ends before them, so a candidate that hangs in the last round cannot take them (the H100,
            2026-12-06: scaled_mm's last round ran to 0.18 s of its 60 s wall, nothing re-timed or written).
        tail_s: the wall seconds the session leaves the checks after it (``session._tail_s``, set before each round
            and the re-time): the rounds' and the re-time's requests end before them (leftovers19's l1).
        cut: candidates' requests cut at a limit under the evaluator's own, so far.
    """

    budget: Budget
    factor: float = PACE_FACTOR
    floor_s: float = PACE_FLOOR_S
    paces_s: list[float] = field(default_factory=list)
    retiming: bool = False
    reserve_s: float = 0.0
    tail_s: float = 0.0
    cut: int = 0

    def observe(self, candidate_s: float | None) -> None:
        """A round's seconds a candidate (:attr:`Budget.candidate_s`)."""
        if candidate_s is not None and candidate_s > 0:
            self.paces_s.append(candidate_s)

    @property
    def pace_s(self) -> float | None:
        """The low median of the rounds' seconds a candidate, one round's own (``None`` before a round ran)."""
        return statistics.median_low(self.paces_s) if self.paces_s else None

    def paced_s(self) -> float | None:
        """The pace's bound alone (``None`` before a round ran, or while re-timing)."""
        if self.pace_s is None or self.retiming:
            return None
        return max(self.floor_s, self.factor * self.pace_s)

    def left_s(self) -> float:
        """The wall time left less :attr:`tail_s` (plus :data:`WALL_MARGIN_S` while re-timing where no checks come
        after the session, less :attr:`reserve_s` in the rounds), seconds; infinite without a wall time.

        Where checks come after the session (:attr:`tail_s`), the re-time has :data:`RETIME_MARGIN_SHARE` of the
        margin: the rest is left to what follows a re-time cut at its limit before those checks, its worker's kill and
        the host's own work on the pick (its judgement, the edit, its guard), which no request's limit holds.
        breaker19's optimize on dao_rotary (the CPU at load 9): the re-time, planned at 12.3 s a pick, was cut at the
        whole margin less the 3.68 s kept, and the edit's check of 0.18 s then found 0 s left."""
        left = self.budget.wall_s - self.budget.elapsed_s - self.tail_s
        if self.retiming:
            return left + WALL_MARGIN_S * (RETIME_MARGIN_SHARE if self.tail_s > 0 else 1.0)
        return left - self.reserve_s

    def seconds(self, own_s: float) -> float | None:
        """The limit of the next request whose own limit is ``own_s``; ``None``: the wall time leaves no
        :data:`LEAST_REQUEST_S` for it, and it is not sent."""
        left = self.left_s()
        if left < LEAST_REQUEST_S:
            return None
        paced = self.paced_s()
        return min(own_s, left, paced if paced is not None else own_s)

    def why(self, limit_s: float, own_s: float) -> str | None:
        """Why a request's limit of ``limit_s`` is under its own ``own_s`` (``None``: it is not), in words for the
        reason of a candidate cut there."""
        if limit_s >= own_s:
            return None
        paced = self.paced_s()
        if paced is not None and limit_s >= paced - 1e-9:
            return (
                f"cut at the session's pace: {self.factor:g}x the {self.pace_s:.3g} s a candidate of its rounds so far "
                f"(at least {self.floor_s:g} s), under the {own_s:g} s limit"
            )
        kept = [
            *([f"{self.reserve_s:.3g} s kept for the re-time"] if self.reserve_s > 0 and not self.retiming else []),
            *([f"{self.tail_s:.3g} s for the checks after the session"] if self.tail_s > 0 else []),
        ]
        kept = f", less the {' and '.join(kept)}" if kept else ""
        return (
            f"cut at the end of the session's wall time ({self.budget.wall_s:g} s{kept}), under the {own_s:g} s limit"
        )


class SessionPace(BaseModel):
    """Where a session's wall went, seconds (``tune --json``'s ``pace``).

    Attributes:
        start_s: the workers' start (bench workers of every ``SHAPES`` entry and the compile pool, together), before
            the budget's clock: not in ``wall_s``.
        wall_s: the session's wall time from the budget's start (the rounds, the re-time, and the strategy and record
            between them).
        rounds_s: the rounds' evaluations: the candidates' own seconds, ``restart_s``, ``redone_s`` and ``rest_s``.
        compile_s, check_s, bench_s: the candidates measured now, their own seconds summed (compiles run in
            parallel in the compile pool, so ``compile_s`` may exceed their share of ``rounds_s``).
        restart_s: within the rounds, the workers' starts, summed: a worker starts again after a sticky CUDA error,
            a crash or a hang (on a GPU a new Python, torch, Triton and CUDA context each; bnb_int8_mm's entry the
            kernel as written faults at restarted its worker for each candidate after it: about 35 s of its 43.5 s
            of rounds on the H100, 2026-12-06, named nowhere; docs/faults.md gpufind19's g2).
        redone_s: within the rounds, passes thrown away: a batch evaluated again without an entry the kernel as
            written cannot run, once set aside (their starts in ``restart_s``).
        rest_s: the rounds less all of the above (floored at 0): requests' round trips, the candidates' load into the
            workers, the waits of one entry on another.
        retime_s: the re-time of the top few and of a current configuration never timed.
        screen_s: each round's configurations made into sources and screened before they ran (the edit layer's
            check that a configuration can be written: a parse, an edit and its verification, a guard; on this 2-core
            machine at load 23, 0.5-1.6 s a configuration of scaled_mm, 2026-12-06).
        other_s: ``wall_s`` less the rounds, the re-time and the screen (the strategy, the record).
        cut: candidates whose request was cut at the session's limit (its pace, or the end of its wall time) or not
            sent for want of wall time.
    """

    model_config = ConfigDict(extra="forbid")

    start_s: float = 0.0
    wall_s: float = 0.0
    rounds_s: float = 0.0
    compile_s: float = 0.0
    check_s: float = 0.0
    bench_s: float = 0.0
    restart_s: float = 0.0
    redone_s: float = 0.0
    rest_s: float = 0.0
    retime_s: float = 0.0
    screen_s: float = 0.0
    other_s: float = 0.0
    cut: int = 0

    def line(self) -> str:
        """One line: ``start 3.1 s before the wall; wall 58.2 s: rounds 50.3 s (compile 9.4, check 18.4, timing 1.7
        s of the candidates' own; workers' restarts 0.0, redone 0.0, rest 20.8 s), screen 2.0 s, re-time 4.0 s, other
        1.9 s; 1 candidate(s) cut ...``."""
        cut = f"; {self.cut} candidate(s) cut at the session's limit" if self.cut else ""
        return (
            f"start {self.start_s:.1f} s before the wall; wall {self.wall_s:.1f} s: rounds {self.rounds_s:.1f} s "
            f"(compile {self.compile_s:.1f}, check {self.check_s:.1f}, timing {self.bench_s:.1f} s of the candidates' "
            f"own; workers' restarts {self.restart_s:.1f}, redone {self.redone_s:.1f}, rest {self.rest_s:.1f} s), "
            f"screen {self.screen_s:.1f} s, re-time {self.retime_s:.1f} s, other {self.other_s:.1f} s{cut}"
        )


#: A run within this many seconds of its stated wall is not said to be past it (our choice: the plot, the table and
#: the process's own exit take about that after the last check).
PAST_WALL_SAID_S = 1.0


class RunWall(BaseModel):
    """Where a ``kernelopt tune`` run's wall went against the session's stated wall time (``--budget-wall-s``), said
    when the run went past it (``tune --json``'s ``run_wall``; claims21 w6: ``--budget-wall-s 20`` took 30.6 s, and
    nothing said where the 10.6 s went).

    Attributes:
        stated_s: the session's wall time as the budget states it.
        before_s: from the command's start of work to the session's clock: kernel.py's discovery (a worker imports
            it), the space and the checks before it, and the workers' start (:attr:`SessionPace.start_s`), which the
            stated wall counts (the session gets what is left: late49's l191; before, fla_matmul's 90 s on the H100
            came on top of its 60 s wall).
        session_s: the session's own seconds (its rounds and re-time, :attr:`SessionPace.wall_s`): past the stated wall
            by at most :data:`WALL_MARGIN_S`, the round in flight when the wall ran out finishing.
        checks_s: the checks of the pick after the session (its check on the entries, the net), which keep the
            session's deadline (:mod:`kernelopt.tuning.tail_wall`).
        after_s: the rest: the plot, the table and what the command does before it says its result.
    """

    model_config = ConfigDict(extra="forbid")

    stated_s: float
    before_s: float
    session_s: float
    checks_s: float
    after_s: float

    @property
    def total_s(self) -> float:
        return self.before_s + self.session_s + self.checks_s + self.after_s

    def line(self) -> str | None:
        """``the run took 30.6 s against its 20 s wall, 10.6 s past it: 4.1 s before the session (...), the session
        23.5 s (3.5 s past its wall: ...), the pick's checks 2.1 s, 0.9 s after them (...)``; ``None`` within
        :data:`PAST_WALL_SAID_S` of the wall."""
        past = self.total_s - self.stated_s
        if past <= PAST_WALL_SAID_S:
            return None
        session_past = self.before_s + self.session_s - self.stated_s  # the session's wall: what the stated one left
        why = (
            f" ({session_past:.1f} s past its wall: the round in flight when it ran out finishes, at most "
            f"{WALL_MARGIN_S:g} s past it)"
            if session_past > PAST_WALL_SAID_S
            else ""
        )
        return (
            f"the run took {self.total_s:.1f} s against its {self.stated_s:g} s wall, {past:.1f} s past it: "
            f"{self.before_s:.1f} s before the session (kernel.py's discovery and the workers' start, counted in the "
            f"wall), the session {self.session_s:.1f} s{why}, the pick's checks {self.checks_s:.1f} s (on "
            f"the entries and the net, within the session's deadline), {self.after_s:.1f} s after them (the plot and "
            "the table)"
        )


#: What discovery did, as :func:`before_line` says it: a worker imported kernel.py and ran the task at its entries.
RAN_TASK = "a worker imports it and runs the task at its SHAPES entries"
#: ... a worker imported kernel.py alone (an autotune list built by code), no task run.
IMPORTED = "a worker imports it to read its autotune lists"
#: ... no worker: the text read alone (fla_matmul on a GPU since late54's l240: its one list pinned, nothing to run).
READ_ONLY = "its text read, no worker started"


def discovery_work(evaluation: AutotuneEvaluation | None) -> str:
    """What discovery did for ``evaluation`` (``None``: no worker was asked), in :func:`before_line`'s words."""
    if evaluation is None:
        return READ_ONLY
    return RAN_TASK if evaluation.shape is not None or evaluation.run_failed else IMPORTED


def before_line(before_s: float, stated_s: float, work: str = RAN_TASK) -> str | None:
    """The line said before a ``kernelopt tune`` session whose discovery took ``before_s`` of its stated wall
    (``stated_s``, ``--budget-wall-s``), which counts it (:meth:`~kernelopt.tuning.budget.Budget.count_before`): how
    long, why (``work``: :func:`discovery_work`), and what is left for the session; ``None`` under
    :data:`PAST_WALL_SAID_S`. On the H100 of 2026-12-07 fla_matmul's discovery took 90 s before its 60 s session and
    nothing said so until the run was killed (late49's l191); since late54's l240 its discovery starts no worker, and
    the line no longer says one ran the task."""
    if before_s < PAST_WALL_SAID_S or math.isinf(stated_s):
        return None
    left = stated_s - before_s
    said = (
        f"{left:.1f} s left for the session, its workers' start included"
        if left > 0
        else "nothing left for the session, which times no candidate (a longer --budget-wall-s times them)"
    )
    return (
        f"{before_s:.1f} s before the session: kernel.py's discovery ({work}); the {stated_s:g} s wall counts it: "
        f"{said}"
    )
