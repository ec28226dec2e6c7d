"""ShapesEvaluator: every candidate checked and timed on each ``SHAPES`` entry a session runs.

The :class:`~kernelopt.tuning.evaluator.Evaluator` of a session across shapes
(:func:`kernelopt.tuning.shapes.session_shapes`): one :class:`KernelEvaluator` per shape, the primary one with
the compile pool (on a GPU), the others checking and timing in their own bench worker (each builds its
entry's inputs and reference once; the session's Triton cache is shared, so a kernel compiled for one shape
is loaded by the others when it specializes the same way). A batch is checked, untimed, on the primary shape
first (compiled there), what passes on the next shape, and so on; only what passed every entry is timed, so a
candidate that fails an entry (a block that trips the kernel's own assert at the larger entry, a NaN at one
size) is never timed anywhere, and its result is that failure with the entry in its reason.
:func:`kernelopt.tuning.shapes.merge` makes one result of each candidate's results.

A session that tunes per shape (``per_entry``: an autotune list keyed by size, written as a table of each entry's
own best, whose autotuner skips a config where its ``early_config_prune`` or the kernel's ``tl.static_assert`` drops
it) keeps a candidate the author's screen sets aside at one entry (``INVALID`` there) a candidate at the others: it is
checked and timed where it is valid, and its result is ``INVALID`` naming the first entry that set it aside, with the
medians of the entries it was timed on (:func:`kernelopt.tuning.shapes.timed_in_part`): never the one configuration,
but an entry's own best (tuneleft9 set it aside for the whole session).

An entry reference.py cannot build (``get_inputs`` raises on it) is one line naming the entry
(:class:`ProblemError`, exit 2) when the workers start, before any candidate runs.

An entry the kernel as written (``original``) cannot run (it raises there, a compile failure or an ``assert`` in
``run``, while it runs the primary) is set aside when the original's result shows it, and the batch is evaluated again
on the other entries (docs/faults.md leftovers15's l2; refblame14's r13 stopped tune there): no candidate is checked or
timed there, and a kernel to write must still raise there or pass (:meth:`ShapesEvaluator.check_source`), never fail
otherwise. Where it raises at the primary, which every candidate is checked and timed at first, while it runs another
entry, no candidate can be compared with it: the session stops there with one line (:class:`ProblemError`, exit 2),
never setting the primary aside; where it runs none, the session goes on as before (leftovers17's l4). Where the record
serves the original's result (a rerun, a resume), the original is checked again at an entry where a new candidate raises
and the batch does not hold the original (:meth:`_original_at`, newuser13's n71), and a resumed session that times more
entries than the original's record was timed on seeks them before its rounds (:meth:`ShapesEvaluator.seek_set_aside`).
``SHAPES`` entries the loop's V0 cannot run are the problem's by the same rule (:mod:`kernelopt.harness.unrunnable`). On
a GPU the primary's compile pool compiles on the smallest entry: a candidate that fails there (it raises, computes
wrong, is screened out) is that entry's failure, found by the entry's own evaluator as in the interpreter
(:data:`~kernelopt.tuning.kernel_evaluator.ELSEWHERE`), so the rule sees the original's failure there alike on both
paths; once the entry is set aside the pool compiles elsewhere (docs/faults.md aside17: on the H100 every candidate of
refblame14's int_one was ``compile_error`` at the primary and nothing was set aside).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from kernelopt.errors import KerneloptError
from kernelopt.harness.unrunnable import CANNOT_RUN
from kernelopt.tuning.accuracy import EntryError, across_entries, entry_values, refused, refusing_rise
from kernelopt.tuning.accuracy_size import TellApart, tell_apart
from kernelopt.tuning.bench_worker import BenchReady
from kernelopt.tuning.candidate import Config, Outcome, Result, Value
from kernelopt.tuning.kernel_evaluator import Apply, EvaluatorSettings, KernelEvaluator
from kernelopt.tuning.pace import CandidateLimit
from kernelopt.tuning.problem import Problem, ProblemDoesNotFit, ProblemError, ProblemShape, ReferenceDoesNotImport
from kernelopt.tuning.shapes import RAISED_OUTCOMES, entry_reason, merge, set_aside_line

T = TypeVar("T")


class ShapesEvaluator:
    """Evaluates configurations on several shapes of one problem (the Evaluator protocol).

    Args:
        problem: the problem (its primary shape is ``shapes[0]``).
        shapes: the shapes, primary first (:func:`~kernelopt.tuning.shapes.session_shapes`).
        untimed: labels of shapes every candidate is checked on and timed on none (the launch tuned does not run
            there: :func:`kernelopt.tuning.folder.idle_shapes`); ignored when it would leave no shape timed.
        per_entry: the session tunes per shape: a candidate set aside (``INVALID``) at one entry stays a candidate at
            the others (module docstring).
        base_source, apply, session_dir, settings, env: as :class:`KernelEvaluator`.
    """

    def __init__(
        self,
        problem: Problem,
        shapes: Sequence[ProblemShape],
        base_source: str,
        apply: Apply,
        *,
        session_dir: Path,
        settings: EvaluatorSettings | None = None,
        env: Mapping[str, str] | None = None,
        untimed: Collection[str] = (),
        per_entry: bool = False,
        original: Config | None = None,
    ) -> None:
        settings = settings or EvaluatorSettings()
        others = settings.model_copy(update={"compile_pool": False, "workers_per_device": 1, "first_best_us": None})
        self.labels = [s.label() for s in shapes]
        self.untimed = frozenset(untimed) if set(self.labels) - set(untimed) else frozenset()
        self.interpreted = problem.interpreted
        self.per_entry = per_entry
        self.aside: dict[Config, dict[str, Result]] = {}  # per_entry: where each candidate was set aside, and why
        self.original = original  # the kernel as written: an entry it cannot run is set aside (:meth:`_set_aside`)
        self.set_aside: dict[str, tuple[KernelEvaluator, str, str]] = {}  # label -> its evaluator, why, the line
        self.original_runs: set[str] = set()  # entries where the original was found to run (checked there, or asked)
        #: the wall seconds of passes thrown away (a batch evaluated again without an entry set aside), less the
        #: workers' starts inside them (:attr:`worker_start_s`): the session's pace names both
        self.redone_s = 0.0
        #: where the original raised at the primary: the first other entry it runs ("": none), asked once a session
        self.primary_elsewhere: str | None = None
        self.evaluators = [
            KernelEvaluator(
                problem if k == 0 else problem.model_copy(update={"shape": dict(shape.kwargs)}),
                base_source,
                apply,
                session_dir=session_dir,
                settings=settings if k == 0 else others,
                env=env,
                name="bench" if k == 0 else f"bench-shape{k}",
                entries=self.labels[1:] if k == 0 else (),
            )
            for k, shape in enumerate(shapes)
        ]
        # a candidate's errors are judged across the entries (kernelopt.tuning.accuracy): each entry's size
        self.values = {s.label(): entry_values({**s.kwargs, **s.constants}) for s in shapes}
        self.shapes = {s.label(): s for s in shapes}
        #: each candidate refused by an ambiguous rise at the entries, by its key: what the size past its splits said
        #: (:func:`kernelopt.tuning.accuracy_size.tell_apart`, leftovers27 l130)
        self.told_apart: dict[str, TellApart] = {}
        self.uncut: set[str] = set()  # the original's configurations (never_cut)
        self._last_checked: tuple[str, dict[str, Result]] = ("", {})  # the last source checked, each entry's check
        # each candidate's checks at the entries, by its key: a keyed list's rows judged beside the net's sizes (l112)
        self._checked_by: dict[str, dict[str, Result]] = {}
        if len(self.evaluators) > 1:
            for ev in self.evaluators:
                ev.judges = False

    def start(self, compile_workers: int = 0) -> BenchReady:
        """Start every shape's workers together (each entry built and its fit checked; the primary's compile pool with
        ``compile_workers`` workers, :meth:`KernelEvaluator.start`); the primary's readiness. Every entry's bench
        workers are spawned before any is waited for, so their start-ups overlap: one after another, three entries'
        took about 24 s of a 60 s wall on the H100 (2026-12-06).

        Raises:
            ProblemError: reference.py fails on an entry (one line naming it, exit 2); raised at import, said once
                (:class:`~kernelopt.tuning.problem.ReferenceDoesNotImport`).
            ProblemDoesNotFit: an entry does not fit on the device (exit 3).
            WorkerStartError: a worker could not start (exit 3).
        """
        for ev in self.evaluators:
            ev.spawn()
        ready = None
        for k, (label, ev) in enumerate(zip(self.labels, self.evaluators, strict=True)):
            try:
                started = ev.start(compile_workers if k == 0 else 0)
            except ReferenceDoesNotImport:  # no entry's fault: said once, as it is
                raise
            except (ProblemError, ProblemDoesNotFit) as exc:
                raise type(exc)(f"the SHAPES entry {label}: {exc.message}", hint=exc.hint) from None
            ready = ready or started
        assert ready is not None
        return ready

    def bound(self, limit: CandidateLimit | None) -> None:
        """Every shape's :meth:`KernelEvaluator.bound`: each request on each entry is bounded by the session's limit."""
        for ev in self.evaluators:
            ev.bound(limit)

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        """Check each configuration on every shape, then time those that passed them all; in order.

        A candidate is timed on no entry until it has passed the check on every one: it is checked, untimed, on
        each shape but the last in turn (stopping at its first failure), then checked and timed on the last (its
        check there comes before its timing) and timed on the others (whose bench worker kept it loaded from its
        check there: it is not loaded and checked twice, ``BenchService.checked``; a worker started again since
        checks it again). A candidate that fails an entry is that failure, its reason naming
        the entry (:func:`~kernelopt.tuning.shapes.merge`), and was never timed: its seconds are its compile and
        checks. One shape: checked and timed in one request, as a :class:`KernelEvaluator` does. ``per_entry``: one
        set aside at an entry goes on to the others, and is timed where it is valid (:meth:`_partial`). On a GPU with
        three entries or more (:meth:`together`), the entries after the primary check what passed it at once, the
        last's check apart from its timing, so each entry's compile of a candidate for its own specialization
        overlaps the others'; a candidate alone in its round (the kernel as written in the first, :attr:`first_alone`)
        is checked at every entry at once, the primary too (late45 l152: the other entries' workers would wait idle on
        its check at the primary; its failure there is still the one judged).
        """
        while True:
            started, starts_s = time.monotonic(), self.worker_start_s
            results = self._pass(batch)
            if results is not None and not self._set_aside(batch, results):
                return results
            # an entry the original cannot run, now set aside: the batch again without it, this pass thrown away
            self.redone_s += max(0.0, time.monotonic() - started - (self.worker_start_s - starts_s))

    def _pass(self, batch: Sequence[Config]) -> list[Result] | None:
        """:meth:`_evaluate` once; ``None`` where the kernel as written, checked alone first at an entry, raised there
        (:meth:`_at_entry`): that entry is now set aside, and the rest of the batch was never sent there."""
        try:
            return self._evaluate(batch)
        except _RaisedAlone as raised:
            self._set_aside([raised.result.config], [raised.result.result])
            return None

    @property
    def worker_start_s(self) -> float:
        """The seconds every entry's workers' starts took so far (those of entries set aside included), summed."""
        evaluators = [*self.evaluators, *(ev for ev, _, _ in self.set_aside.values())]
        return sum(getattr(ev, "worker_start_s", 0.0) for ev in evaluators)

    def _at_entry(self, label: str, ev: KernelEvaluator, left: Sequence[Config], *, timed: bool) -> list[Result]:
        """``ev.evaluate(left)`` at an entry after the primary; where ``left`` holds the kernel as written and it has
        not run there yet, it goes first and alone, and where it raises there (:data:`RAISED_OUTCOMES`) the rest are
        not sent (:class:`_RaisedAlone`): the entry is set aside. A raise that leaves the process unusable (a sticky
        CUDA error) killed the entry's worker, and each candidate after it started a new one (a Python, torch, Triton
        and a CUDA context: bnb_int8_mm's M=37 on the H100, 2026-12-06, about 35 s of a 47.6 s wall on starts the
        pace did not name; docs/faults.md gpufind19's g2); now the set-aside entry's worker starts again only for the
        check of a kernel to write (:meth:`check_source`), once for each text checked."""
        original = self.original
        if original is None or original not in left or label == self.labels[0] or label in self.original_runs:
            return ev.evaluate(left, timed=timed)
        (mine,) = ev.evaluate([original], timed=timed)
        if mine.outcome in RAISED_OUTCOMES:
            raise _RaisedAlone(_Raised(original, mine.model_copy(update={"failed_entry": label})))
        self.original_runs.add(label)
        rest = [c for c in left if c != original]
        theirs = iter(ev.evaluate(rest, timed=timed) if rest else [])
        return [mine if c == original else next(theirs) for c in left]

    def _set_aside(self, batch: Sequence[Config], results: Sequence[Result]) -> bool:
        """Whether the kernel as written (:attr:`original`, in ``batch``) raised at an entry after the primary (one it
        cannot run, while it runs the primary), which is now set aside: its evaluator kept for the written kernel's
        check there (:meth:`check_source`), the entry no longer checked or timed (module docstring)."""
        mine = next((r for c, r in zip(batch, results, strict=True) if c == self.original), None)
        if mine is None and self.original is not None:  # served from the record (a rerun): asked where others raise
            mine = self._original_at(results)
        if mine is not None and mine.outcome in RAISED_OUTCOMES and mine.failed_entry == self.labels[0]:
            line = self._primary_unrunnable(mine)
            if line is not None:
                raise ProblemError(line)
        if mine is None or mine.outcome not in RAISED_OUTCOMES or mine.failed_entry not in self.labels[1:]:
            return False
        k = self.labels.index(mine.failed_entry)
        label, ev = self.labels.pop(k), self.evaluators.pop(k)
        self.evaluators[0].never_compile_on(label)  # its compile pool, where it compiles there, compiles elsewhere
        why = entry_reason(mine, label)
        self.set_aside[label] = (ev, why, set_aside_line(label, why, self.labels[0]))
        if not set(self.labels) - self.untimed:
            self.untimed = frozenset()
        return True

    def _primary_unrunnable(self, mine: Result) -> str | None:
        """The one line of a session whose kernel as written (``mine``, its result) raised at the primary entry, the
        one every candidate is checked and timed at first, while it runs another entry (the first that runs, asked
        untimed in order, once a session): no candidate can be compared with it there, so the session stops (exit 2)
        rather than set the entry aside as it does one after the primary (leftovers17's l4). ``None`` where it runs no
        entry: dropping the primary is then no cure (break15's b12: an original raising there may raise everywhere),
        and the session goes on as before, every candidate checked and timed without it (exit 1 where none runs)."""
        if self.primary_elsewhere is None:
            assert self.original is not None
            self.primary_elsewhere = next(
                (
                    other
                    for other, ev in zip(self.labels[1:], self.evaluators[1:], strict=True)
                    if ev.evaluate([self.original], timed=False)[0].outcome.ok
                ),
                "",
            )
        if not self.primary_elsewhere:
            return None
        label, runs = self.labels[0], self.primary_elsewhere
        return (
            f"the SHAPES entry {label} {CANNOT_RUN}, while it runs {runs} ({entry_reason(mine, label)}): it is the "
            "entry every candidate is checked and timed at first, so none could be compared with kernel.py; drop it "
            "from SHAPES to tune on the others"
        )

    def aside_lines(self) -> tuple[tuple[str, str], ...]:
        """Each entry set aside (:attr:`set_aside`, in the order the session set them aside) and the line that says
        why: what a session's judgement records and ``tune`` warns of."""
        return tuple((label, line) for label, (_, _, line) in self.set_aside.items())

    def seek_set_aside(self) -> None:
        """Check the kernel as written (:attr:`original`) alone, setting aside each entry it cannot run
        (:meth:`_set_aside`): a resumed session, whose record serves the original's result (timed without the entries
        an earlier run set aside), calls it before its rounds, so what it measures now is measured on the same entries
        as what the record serves, also where no new candidate raises there (:meth:`_original_at` finds an entry only
        through one that does: a dry run then a run of tests/data/leftovers15/aside timed BLOCK=512 at n=2000 beside
        the record's results timed without it, CPU, 2026-12-06)."""
        if self.original is None or len(self.evaluators) < 2:
            return
        while (results := self._pass([self.original])) is None or self._set_aside([self.original], results):
            pass

    def _original_at(self, results: Sequence[Result]) -> Result | None:
        """The kernel as written checked at the first entry after the primary where a candidate of ``results`` raised,
        when the batch did not hold it: a rerun serves its result from the session record, which keeps no entry set
        aside, so every new candidate failed there as the original would, and nothing was tuned (newuser13's n71)."""
        entry = next((r.failed_entry for r in results if r.outcome in RAISED_OUTCOMES), None)
        if entry not in self.labels[1:] or entry in self.original_runs or self.original is None:
            return None
        (mine,) = self.evaluators[self.labels.index(entry)].evaluate([self.original], timed=False)
        if mine.outcome not in RAISED_OUTCOMES:
            self.original_runs.add(entry)  # asked once an entry: a candidate raising there is its own failure
            return None
        return mine.model_copy(update={"failed_entry": entry})

    def _evaluate(self, batch: Sequence[Config]) -> list[Result]:
        """:meth:`evaluate` on the entries not set aside."""
        self.start()
        if len(self.evaluators) == 1:
            return self.evaluators[0].evaluate(batch)
        checked: dict[Config, dict[str, Result]] = {c: {} for c in batch}
        aside: dict[Config, set[str]] = {c: set() for c in batch}
        left = list(dict.fromkeys(batch))
        pairs = list(zip(self.labels, self.evaluators, strict=True))
        last = [p for p in pairs if p[0] not in self.untimed][-1]
        first = [p for p in pairs if p is not last]
        ran: list[KernelEvaluator] = []  # the shapes this batch ran on so far
        together = self.together()
        if together:  # every entry checked before any timing: the last's check is not joined to its timing
            first = pairs
        # a round of one (the kernel as written in a GPU session's first, :attr:`first_alone`; one the wall left fits):
        # checked at every entry at once, the primary too, the workers of the others idle while it checks there
        alone = together and len(left) == 1
        for k, (label, ev) in enumerate(first):
            if together and k == (0 if alone else 1):  # the primary passed (or is checked too): the rest at once
                left = self._check_together(first[k:], left, checked, aside)
                break
            if left:
                results = self._at_entry(label, ev, left, timed=False)
                passed = self._step(results, left, label, checked, aside)
                self._after_failures(any(not r.outcome.ok for r in results), ran=ran)
                left, ran = passed, [*ran, ev]
        timed: dict[Config, dict[str, Result]] = {c: {} for c in left}
        for label, ev in [last, *(p for p in first if p[0] not in self.untimed and p is not last)]:
            here = [c for c in left if label not in aside[c]]
            if here:
                results = self._at_entry(label, ev, here, timed=True)
                passed = self._step(results, here, label, timed, aside)
                failed = any(not r.outcome.ok for r in results)
                self._after_failures(failed, ran=[e for e in [*ran, last[1]] if e is not ev])
                left = [c for c in left if c in passed or c not in here]
        for c, labels in aside.items():
            if labels:
                by = {**checked[c], **timed.get(c, {})}
                self.aside[c] = {label: by[label] for label in self.labels if label in labels}
        # a candidate timed anywhere passed every check there; one that failed a check (or its timing) is that failure
        out = []
        for c in batch:
            mine = {label: r for label, r in timed.get(c, {}).items() if label not in aside[c]}
            if mine:  # its checks before, and where it was set aside at its timing's check (per_entry), cost too
                spent = {**checked[c], **{label: r for label, r in timed[c].items() if label in aside[c]}}
                merged = self._merged(c, mine, spent=spent)
            else:
                merged = self._merged(c, {**checked[c], **timed.get(c, {})})
            by = {**checked[c], **timed.get(c, {})}
            self._checked_by[c.key()] = by
            out.append(self._partial(c, self._accurate(c, merged, by), by))
        return out

    def _accurate(self, config: Config, merged: Result, by: Mapping[str, Result]) -> Result:
        """``merged`` refused where its errors at the entries (``by``: label -> its check there) show it less accurate
        than the original in a way that grows with the size (:func:`kernelopt.tuning.accuracy.across_entries`); the
        original itself (its configurations never cut) is what they are measured against."""
        if not merged.outcome.ok or config.key() in self.uncut:
            return merged
        errors = self.errors_by(by)
        found = across_entries(errors)
        if found is None:
            return merged
        label, line = found
        line = f"on the SHAPES entry {label}: {line}"
        rise = refusing_rise(errors)
        if rise is not None and rise.ambiguous:  # a longer chain or a count of partials: a size past the splits tells
            told = self.told_apart.get(config.key())
            if told is None:
                told = tell_apart(self.evaluators[0], config, self.original, errors, rise, self.shapes)
                self.told_apart[config.key()] = told
            if told.kept:
                return merged
            label, line = told.label, told.line
        return refused(merged, line).model_copy(update={"failed_entry": label})

    def errors_by(self, by: Mapping[str, Result]) -> list[EntryError]:
        """A candidate's errors at the entries where it passed (``by``: label -> its check there), each beside the
        original's there (:class:`~kernelopt.tuning.accuracy.EntryError`)."""
        evaluators = zip(self.labels, self.evaluators, strict=True)
        originals = {label: getattr(ev, "original_err", None) for label, ev in evaluators}  # a test's fake has none
        return [
            EntryError(label, r, original, self.values[label])
            for label, original in originals.items()
            if (r := by.get(label)) is not None and r.outcome.ok and original is not None
        ]

    def config_errors(self, config: Mapping[str, Value]) -> list[EntryError]:
        """``config``'s errors at the entries as the session checked it (:meth:`errors_by`; none where this session
        did not evaluate it: a resumed session's served candidates): a keyed list's row, judged beside the net's sizes
        with no run of its own (leftovers26, l112)."""
        return self.errors_by(self._checked_by.get(Config.of(config).key(), {}))

    def entry_errors(self, source: str) -> list[EntryError]:
        """``source``'s errors at the entries as its last :meth:`check_source` found them (:meth:`errors_by`; none
        where it was not the last source checked): what the net's largest size is judged beside (late35)."""
        checked, by = self._last_checked
        return self.errors_by(by) if checked == source else []

    def error_at(self, source: str, shape: ProblemShape) -> Result | None:
        """The primary shape's :meth:`KernelEvaluator.error_at`: the worker that checks every size of the net."""
        return self.evaluators[0].error_at(source, shape)

    @property
    def first_alone(self) -> bool:
        """Whether a session's first round holds one candidate (the kernel as written, the strategy's first): on a GPU
        across several entries, where a round's candidates are each compiled for every entry's own specialization and
        checked there before any is timed (:meth:`evaluate`). With no pace yet a round takes as many as it is given:
        on the H100 (2026-12-07) fla_matmul's first round of four, pinned configs of its keyed list, spent its 60 s wall
        on their compiles (42.9 s across the pool) and checks (40.6 s) and timed none, the kernel as written
        included (late45 l150); alone, on that pace it is timed in about 25 s (``tests/test_late45_cases.py``'s model),
        and its pace sizes the rounds after it. Never in the interpreter (its sessions' walls are the CPU's, and its
        rounds are timed as before)."""
        return not self.interpreted and len(self.evaluators) > 1

    def together(self) -> bool:
        """Whether the entries after the primary check a candidate at once, each in its own bench worker, rather than
        one after another: on a GPU, where each entry's first call of a candidate compiles it for its own
        specialization (the H100, 2026-12-06: scaled_mm's three entries, M, N and K each divisible by 16 at one and
        not another, so the Triton cache the compile pool filled at the smallest served one of three; the checks
        took 44.7 s of a 60 s wall, nothing re-timed or written), so their compiles overlap; never in the
        interpreter (the CPU's cores are the interpreter's: nothing overlaps) nor with fewer than three entries
        (the primary checks first alone: one entry after it has nothing to overlap with), nor where the entries'
        bench workers at their peak (:attr:`~kernelopt.tuning.problem.MemoryNeed.bench_bound_bytes`) do not fit
        the device together."""
        if self.interpreted or len(self.evaluators) < 3:
            return False
        readies = [ev.ready for ev in self.evaluators]
        if any(r is None for r in readies):
            return False
        free = min(r.free_bytes for r in readies if r is not None)
        return sum(r.need.bench_bound_bytes for r in readies if r is not None) <= free

    def _check_together(
        self,
        pairs: Sequence[tuple[str, KernelEvaluator]],
        left: Sequence[Config],
        into: dict[Config, dict[str, Result]],
        aside: dict[Config, set[str]],
    ) -> list[Config]:
        """Check ``left`` untimed on every entry of ``pairs`` at once (:meth:`together`), a thread waiting on each
        entry's bench worker; what passed (or was set aside, ``per_entry``) on every one, in order."""
        if not left:
            return []
        answers = _at_once([(label, lambda ev=ev, label=label: self._caught(label, ev, left)) for label, ev in pairs])
        raised = next((a for _, a in answers if isinstance(a, _Raised)), None)
        primary = next((a for label, a in answers if label == self.labels[0]), None)
        failed_first = isinstance(primary, list) and any(r.outcome in RAISED_OUTCOMES for r in primary)
        if raised is not None and not failed_first:  # every entry's thread has ended: the batch may go again
            raise _RaisedAlone(raised)
        # the original raising at the primary too (checked beside the others): that failure is the one judged, as
        # where the primary checks first (:meth:`_primary_unrunnable`), and no other entry is set aside for it
        answers = [(label, a) for label, a in answers if not isinstance(a, _Raised)]
        going = set(left)
        for label, results in answers:
            going &= set(self._step(results, left, label, into, aside))
        return [c for c in left if c in going]

    def _caught(self, label: str, ev: KernelEvaluator, left: Sequence[Config]) -> list[Result] | _Raised:
        """:meth:`_at_entry`'s check in an entry's thread (:meth:`_check_together`): its raise kept as a value, so that
        the batch goes again only once every entry's request has ended."""
        try:
            return self._at_entry(label, ev, left, timed=False)
        except _RaisedAlone as raised:
            return raised.result

    def _partial(self, config: Config, merged: Result, by: dict[str, Result]) -> Result:
        """``merged`` (a candidate's results where it was timed, merged) as the candidate's result when the author's
        screen set it aside at an entry (``per_entry``): ``INVALID`` naming the first such entry, with the medians
        of the entries it was timed on; a failure of its own (a wrong result, an error) stays that failure."""
        invalid = [label for label in self.labels if label in by and by[label].outcome is Outcome.INVALID]
        if not invalid or (not merged.outcome.ok and merged.outcome is not Outcome.INVALID):
            return merged
        r = by[invalid[0]]
        return merged.model_copy(
            update={
                "outcome": Outcome.INVALID,
                "reason": f"on the SHAPES entry {invalid[0]}: {r.reason or r.outcome.value}",
                "failed_entry": invalid[0],
                "latency_us": None,
                "samples_us": [],
                "latency_us_by_shape": dict(merged.latency_us_by_shape) if merged.outcome.ok else {},
            }
        )

    def _after_failures(self, failed: bool, *, ran: Sequence[KernelEvaluator]) -> None:
        """In the interpreter, when a candidate failed one shape after passing others (``ran``: their evaluators),
        those shapes' workers start again: a kernel without masks reads and writes raw host memory, and one that
        went past its buffers there without failing leaves a corrupt heap the next candidate crashes on."""
        if failed and self.interpreted:
            for ev in ran:
                ev.discard_workers()

    def _step(
        self,
        results: Sequence[Result],
        left: Sequence[Config],
        label: str,
        into: dict[Config, dict[str, Result]],
        aside: dict[Config, set[str]],
    ) -> list[Config]:
        """Keep each result under its shape's label; the configurations that go on: those that passed, and
        (``per_entry``) those the author's screen set aside here, noted in ``aside``."""
        for c, r in zip(left, results, strict=True):
            into[c][label] = r
            if self.per_entry and r.outcome is Outcome.INVALID:
                aside[c].add(label)
        return [c for c, r in zip(left, results, strict=True) if r.outcome.ok or label in aside[c]]

    def _merged(self, config: Config, by: dict[str, Result], *, spent: dict[str, Result] | None = None) -> Result:
        """:func:`merge` of ``by`` (shape label -> result) in the shapes' order, with every second the candidate
        cost: ``spent`` holds the untimed checks that came before (their compile and check seconds are added), and a
        failure keeps the seconds of the entries it passed (a failure's own result holds only its entry's)."""
        result = merge(config, [(label, by[label]) for label in self.labels if label in by], shapes=len(self.labels))
        spent = spent or {}
        primary = spent.get(self.labels[0]) or by.get(self.labels[0])
        checks = [r.check_s for r in [*spent.values(), *by.values()] if r.check_s is not None]
        benches = [r.bench_s for r in by.values() if r.bench_s is not None]
        # the other entries' first calls, each compiling it for its entry on a GPU (a bench worker not compiled ahead
        # gives them as its compile_s): inside check_s, never spent again by the re-time (:func:`_retime_each_s`)
        firsts = [
            r.compile_s
            for label, r in [*spent.items(), *by.items()]
            if label != self.labels[0] and r.compile_s is not None and not self.interpreted
        ]
        return result.model_copy(
            update={
                "compile_s": primary.compile_s if primary is not None else result.compile_s,
                "check_s": sum(checks) if checks else None,
                "bench_s": sum(benches) if benches else None,
                "entry_compile_s": sum(firsts) if firsts else None,
            }
        )

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        """Re-time ``batch`` interleaved on each shape in turn (every one passed every entry's check); one merged
        result each, in order. ``per_entry``: a candidate the author's screen sets aside at an entry here (one a
        resumed session's record served, which :meth:`evaluate` never saw) is re-timed at the others, as
        :meth:`evaluate` times it (newuser9 n51: a rerun re-timed it nowhere else, and its table was lost)."""
        self.start()
        per: dict[Config, list[tuple[str, Result]]] = {c: [] for c in batch}
        left = list(dict.fromkeys(batch))
        for label, ev in zip(self.labels, self.evaluators, strict=True):
            here = [c for c in left if label not in self.aside.get(c, ())]
            if not here or label in self.untimed:
                continue
            results = ev.retime(here)
            for c, r in zip(here, results, strict=True):
                if self.per_entry and r.outcome is Outcome.INVALID:  # set aside here, timed at the others
                    self.aside.setdefault(c, {})[label] = r  # (a resumed session served it: evaluate never saw it)
                else:
                    per[c].append((label, r))
            left = [c for c in left if c not in here or label in self.aside.get(c, {}) or per[c][-1][1].outcome.ok]
        out = []
        for c in batch:
            invalid = self.aside.get(c, {})
            if not per[c]:  # set aside at every entry it could be timed on (the session re-times none such)
                out.append(next(iter(invalid.values())))
                continue
            out.append(self._partial(c, merge(c, per[c], shapes=len(self.labels)), invalid))
        return out

    def retime_at(self, label: str, batch: Sequence[Config]) -> list[Result]:
        """Re-time ``batch`` interleaved at the entry ``label`` alone, in that entry's bench worker as the session
        re-times its top few (its plan's rounds): one result each, in order, its latency that entry's (keyed by it in
        ``latency_us_by_shape``). :mod:`kernelopt.tuning.entry_retime` asks it where one entry alone refused a pick."""
        self.start()
        results = self.evaluators[self.labels.index(label)].retime(batch)
        return [
            r.model_copy(update={"latency_us_by_shape": {label: r.latency_us}}) if r.latency_us is not None else r
            for r in results
        ]

    def retime_sources_at(self, label: str, sources: Sequence[tuple[Config, str]]) -> list[Result]:
        """:meth:`retime_at` of kernel texts no configuration makes (:meth:`KernelEvaluator.retime_sources`)."""
        self.start()
        return self.evaluators[self.labels.index(label)].retime_sources_at(label, sources)

    def check_source(self, source: str, config: Config) -> Result:
        """Check a kernel source on every shape, untimed (stopping at its first failure, which names the entry); then
        at each entry set aside (:meth:`_set_aside`), where it must raise as the original does, or pass: any other
        failure there (a wrong result, a crash, a timeout) is the source's, naming the entry."""
        checked = self._check_source(source, config)
        for label, (ev, theirs, _) in self.set_aside.items() if checked.outcome.ok else ():
            there = ev.check_source(source, config)
            if not there.outcome.ok and there.outcome not in RAISED_OUTCOMES:
                why = f"{there.reason or there.outcome.value}, where kernel.py as written raises ({theirs})"
                return merge(config, [(label, there.model_copy(update={"reason": why}))], shapes=2)
        return checked

    def _check_source(self, source: str, config: Config) -> Result:
        """:meth:`check_source` on the entries not set aside."""
        self.start()
        pairs = list(zip(self.labels, self.evaluators, strict=True))
        if self.together():  # the primary first, then the others at once (:meth:`together`)
            first = pairs[0][1].check_source(source, config)
            if not first.outcome.ok:
                return merge(config, [(pairs[0][0], first)], shapes=len(self.labels))
            rest = _at_once([(label, lambda ev=ev: ev.check_source(source, config)) for label, ev in pairs[1:]])
            both = [(pairs[0][0], first), *rest]
            self._last_checked = (source, dict(both))
            return self._accurate(config, merge(config, both), dict(both))
        by: list[tuple[str, Result]] = []
        for label, ev in pairs:
            r = ev.check_source(source, config)
            by.append((label, r))
            if not r.outcome.ok:
                break
        self._last_checked = (source, dict(by))
        return self._accurate(config, merge(config, by, shapes=len(self.labels)), dict(by))

    def check_at(self, source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        """The primary shape's :meth:`KernelEvaluator.check_at`: one worker for every size of the net."""
        self.start()
        return self.evaluators[0].check_at(source, shape, limit_s)

    def check_alone(self, source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        """The primary shape's :meth:`KernelEvaluator.check_alone`: a size likely to fault, in a worker of its own."""
        self.start()
        return self.evaluators[0].check_alone(source, shape, limit_s)

    def build_at(self, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        """The primary shape's :meth:`KernelEvaluator.build_at`: the worker that checks every size builds it."""
        self.start()
        return self.evaluators[0].build_at(shape, limit_s)

    @property
    def request_s(self) -> float:
        """The primary shape's :attr:`KernelEvaluator.request_s`: the net's requests go to its worker."""
        return self.evaluators[0].request_s

    @property
    def check_notes(self) -> list[str]:
        """Each entry's :attr:`KernelEvaluator.check_notes`, naming the entry; the reference's output made on another
        device than its inputs' (:attr:`BenchReady.device_line`), the reference's at every entry, once."""
        device = [ev.ready.device_line for ev in self.evaluators if ev.ready is not None and ev.ready.device_line]
        return [
            *dict.fromkeys(device),
            *(
                f"the SHAPES entry {label}: {line}"
                for label, ev in zip(self.labels, self.evaluators, strict=True)
                for line in ev.check_notes
                if line not in device
            ),
        ]

    @property
    def bench_starts(self) -> int:
        return sum(ev.bench_starts for ev in self.evaluators)

    def never_cut(self, keys: Iterable[str]) -> None:
        """Every shape's :meth:`KernelEvaluator.never_cut`; the original's configurations, which a candidate's errors
        are measured against (:meth:`_accurate`)."""
        wanted = list(keys)
        self.uncut.update(wanted)
        for ev in self.evaluators:
            ev.never_cut(wanted)

    def runs_whole_list(self, key: str, configs: int) -> None:
        """Every shape's :meth:`KernelEvaluator.runs_whole_list`."""
        for ev in self.evaluators:
            ev.runs_whole_list(key, configs)

    def close(self) -> None:
        """Shut every shape's workers down (those of the entries set aside too)."""
        errors: list[KerneloptError] = []
        for ev in [*self.evaluators, *(ev for ev, _, _ in self.set_aside.values())]:
            try:
                ev.close()
            except KerneloptError as exc:  # the others are still closed
                errors.append(exc)
        if errors:
            raise errors[0]

    def __enter__(self) -> ShapesEvaluator:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


@dataclass(frozen=True)
class _Raised:
    """The kernel as written (``config``) and its result at the entry where it raised, checked there alone."""

    config: Config
    result: Result


class _RaisedAlone(Exception):
    """The kernel as written raised at an entry after the primary, checked there alone
    (:meth:`ShapesEvaluator._at_entry`): the rest of the batch is not sent there, and the entry is set aside."""

    def __init__(self, result: _Raised) -> None:
        super().__init__(result.result.reason)
        self.result = result


def _at_once(calls: Sequence[tuple[str, Callable[[], T]]]) -> list[tuple[str, T]]:
    """Each entry's call (label, a request to its own bench worker) made at once, a thread waiting on each; the answers
    in order. An interrupt or an error does not wait for the others' requests (the evaluator's close kills their
    workers, and their threads end with them)."""
    pool = ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="kernelopt-entry")
    try:
        asked = [(label, pool.submit(call)) for label, call in calls]
        return [(label, future.result()) for label, future in asked]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
