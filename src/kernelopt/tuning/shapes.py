"""The ``SHAPES`` entries a tuning session checks and times, and what it found on each (parent side, no torch).

A kernel serves many sizes; reference.py's ``SHAPES`` names some (DESIGN.md, "Shapes"). A session checks and
times every candidate on each entry the device can run (:func:`session_shapes`: all of them on a GPU and for
a torch kernel on the CPU; for a Triton kernel in the interpreter those of at most
:data:`~kernelopt.kernelsource.INTERPRETER_MAX_SIZE`), the primary shape first. A candidate that fails one
entry is a failure whose reason names the entry (:func:`merge`), so nothing the engine ranks, writes or
applies has failed an entry it could run. Its latency is the sum of the entries' medians (:func:`total`): the
time one run of every named shape takes, so each shape weighs what it costs. (A geometric mean, which weighs
each shape the same, let a tiny interpreter-sized entry that launch overhead dominates outvote the shape the
time goes to: on the H200 on 2026-12-05 it cost 5-17 % on the main shape of two held-out kernels.)

After the session, :func:`per_shape` says, for each entry, its own best configuration and latency and the
chosen one's latency there; :func:`choose` says whether one configuration is within :data:`WITHIN_PCT` of every
entry's own best (it is written alone) or a per-bucket table is needed (each entry's best for its size).

:func:`check_entries` refuses, before any candidate runs, a literal entry that cannot be built: a keyword
``get_inputs`` does not take, or a string where its default is a number (one line naming the entry, exit 2).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.errors import InputFileError
from kernelopt.harness.unrunnable import CANNOT_RUN
from kernelopt.kernelsource import entry_fault, interpreted_cases
from kernelopt.tuning.candidate import Config, Outcome, Result, Value
from kernelopt.tuning.problem import Problem, ProblemShape, ShapeValue

WITHIN_PCT = 3.0
"""Issue 32, item 3: one configuration is kept for every shape when it is within this of each shape's own best
(percent); else each size gets its own (a per-bucket table)."""


def check_entries(reference_py: Path, shapes: Sequence[Mapping[str, ShapeValue]]) -> None:
    """Refuse a ``SHAPES`` entry ``get_inputs`` cannot be called with (:func:`kernelsource.entry_fault`, the
    rule every command applies), here to the entries a computed ``SHAPES`` built too.

    Raises:
        InputFileError: one line naming the entry (exit 2).
    """
    bad = entry_fault(Path(reference_py), shapes)
    if bad is not None:
        raise InputFileError(reference_py, bad[0], hint=bad[1])


def session_shapes(problem: Problem, shapes: Sequence[Mapping[str, ShapeValue]]) -> list[ProblemShape]:
    """The shapes a session checks and times: the primary (:meth:`Problem.primary_shape`) first, then every
    other ``SHAPES`` entry the device can run (a Triton kernel in the interpreter: the entries of
    :func:`~kernelopt.kernelsource.interpreted_cases`); one shape when the problem names its own
    (``problem.shape``) or reference.py has at most one entry."""
    primary = problem.primary_shape(shapes)
    if problem.shape is not None or len(shapes) < 2:
        return [primary]
    runnable = interpreted_cases(shapes) if problem.interpreted else list(range(len(shapes)))
    out = [primary]
    for i in runnable:
        shape = ProblemShape(kwargs=dict(shapes[i]), constants=dict(problem.constants))
        if shape not in out:
            out.append(shape)
    return out


def in_entry_order(problem: Problem, entries: Sequence[Mapping[str, ShapeValue]], labels: Iterable[str]) -> list[str]:
    """Shape labels as reference.py's ``SHAPES`` lists its entries: a session times its primary first
    (:func:`session_shapes`, for its cut and its compiles), and every line, table and JSON a user reads keeps the
    user's order ("timed on 2 shapes ...: n=1000; n=4096" was said of ``[4096, 1000]``, the smaller timed first in
    the interpreter; claims21 w8). A label no entry names (the task card's own shape) stays first."""
    rank = {ProblemShape(kwargs=dict(e), constants=dict(problem.constants)).label(): i for i, e in enumerate(entries)}
    return sorted(labels, key=lambda label: rank.get(label, -1))


RAISED_OUTCOMES = frozenset({Outcome.RUN_ERROR, Outcome.COMPILE_ERROR})
"""Outcomes of a kernel that raised (a compile failure, an ``assert`` in ``run``): it cannot run there."""


def unrunnable_entry_line(
    current: Config | None, results: Sequence[Result], kernel_py: str = "kernel.py", *, first: str | None = None
) -> str | None:
    """The one line of a session across entries in which the kernel as written (``current``) raised at an entry and
    every candidate that ran failed at that entry too, none passing: a failure the original shares at that size is
    never the picks' (docs/faults.md refblame14 r11). ``None`` for any other session.

    Seen (CPU, 2026-12-06): an ``assert`` in ``run`` refusing rows of one element at the entry M=8,N=1 (the CPU's
    stand-in for a kernel that does not compile there on a GPU), and tune ended "no candidate ran (...)" beside "3
    candidate(s) failed: 3 run_error", as though the picks were at fault.

    ``first``: the entry every check starts at (the primary's label). An original that raised there ran no other
    entry the session knows of: it may raise at every size (a bug in ``run``), where "drop it from SHAPES to tune on
    the others" is untrue (docs/faults.md break15 b12), so no line is said for it."""
    mine = next((r for r in results if current is not None and Config.of(r.config) == current), None)
    if mine is None or mine.outcome not in RAISED_OUTCOMES or mine.failed_entry in (None, first):
        return None
    entry = mine.failed_entry
    ran = [r for r in results if r is not mine and r.outcome not in (Outcome.NOT_RUN_BUDGET, Outcome.INVALID)]
    if any(r.outcome.ok or r.failed_entry != entry for r in ran):
        return None
    why = entry_reason(mine, entry)
    return (
        f"{kernel_py} as written cannot run the SHAPES entry {entry} ({why}), nor could any candidate: a size the "
        f"original cannot run is not the picks' fault; drop it from SHAPES to tune on the others, or give {kernel_py} "
        "a path for that size first"
    )


def entry_reason(result: Result, entry: str) -> str:
    """Why ``result`` failed at the ``SHAPES`` entry ``entry``, without the entry's prefix :func:`merge` gives it."""
    return (result.reason or result.outcome.value).removeprefix(f"on the SHAPES entry {entry}: ")


def set_aside_line(entry: str, why: str, runs: str) -> str:
    """The one line of a ``SHAPES`` entry a session set aside: the kernel as written raised there (``why``) while it
    runs ``runs`` (:class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`), in the words the loop's V0 rule gives
    such an entry (:data:`~kernelopt.harness.unrunnable.CANNOT_RUN`), so tune, validate, optimize and batch name it
    alike."""
    return (
        f"the SHAPES entry {entry} {CANNOT_RUN}, while it runs {runs} ({why}): set aside, the candidates checked and "
        "timed on the other entries; a pick is written only where it raises there as kernel.py does, or passes"
    )


def total(values: Sequence[float]) -> float:
    """A candidate's latency over several shapes from its median on each: their sum (a zero gives 0, as a
    shape that was not timed gives no latency)."""
    if any(v <= 0 for v in values):
        return 0.0
    return math.fsum(values)


def merge(config: Config, by_shape: Sequence[tuple[str, Result]], *, shapes: int | None = None) -> Result:
    """One candidate's result from its result on each shape (``(label, result)``, the primary first).

    ``shapes``: how many shapes the session runs (default: those given; a candidate that failed the first of
    several has one result, and its reason still names the entry). The first failure, in shape order, is the
    candidate's, its reason naming the entry; when every shape passed, the latency is the :func:`total` of
    the shapes' medians (one shape: its own), the samples are each round's sum over the shapes where every shape
    has as many (the rounds of a re-time: each shape's round interleaves the candidates alike, so a round's sum is
    paired as its parts are), else the primary's, and the seconds are added up. The noise rules rank and compare with
    the current configuration by these samples (:mod:`kernelopt.tuning.noise`): the primary's alone judged a pick by
    the one entry where every candidate may tie (newuser13's n73: BLOCK=4096, 4.7x over the current on the sum, was
    "too noisy to rank" by a 100-column entry's samples and kept nothing).
    """
    first = by_shape[0][1]
    if (shapes or len(by_shape)) == 1:
        return first
    for label, r in by_shape:
        if not r.outcome.ok:
            reason = f"on the SHAPES entry {label}: {r.reason or r.outcome.value}"
            return r.model_copy(
                update={"reason": reason, "latency_us": None, "latency_us_by_shape": {}, "failed_entry": label}
            )
    by = {label: r.latency_us or 0.0 for label, r in by_shape}
    rounds = [r.samples_us for _, r in by_shape]
    paired = len({len(s) for s in rounds}) == 1 and bool(rounds[0])

    def seconds(name: str) -> float | None:
        spent = [getattr(r, name) for _, r in by_shape if getattr(r, name) is not None]
        return sum(spent) if spent else None

    return first.model_copy(
        update={
            "latency_us": total(list(by.values())),
            "latency_us_by_shape": by,
            "samples_us": [math.fsum(r) for r in zip(*rounds, strict=True)] if paired else first.samples_us,
            "check_s": seconds("check_s"),
            "bench_s": seconds("bench_s"),
            "retimed": all(r.retimed for _, r in by_shape),
            "cut_slow": any(r.cut_slow for _, r in by_shape),
            "reason": next((r.reason for _, r in by_shape if r.cut_slow), first.reason),
            "timing": _timing(by_shape),
        }
    )


def _timing(by_shape: Sequence[tuple[str, Result]]) -> str | None:
    """The entries' timing methods as one (:attr:`~kernelopt.tuning.candidate.Result.timing`): the one all were
    timed by, else each entry's; ``None`` where none said."""
    said = {label: r.timing for label, r in by_shape if r.timing is not None}
    if len(set(said.values())) <= 1:
        return next(iter(said.values()), None)
    return "; ".join(f"{label}: {method}" for label, method in said.items())


class ShapeBest(BaseModel):
    """What a session found on one shape.

    Attributes:
        shape: the shape's label (``n_cols=256``).
        best_config: the fastest configuration on it (``None``: none passed every shape).
        best_latency_us: its latency there, microseconds.
        chosen_latency_us: the chosen configuration's latency there, microseconds.
        within_pct: ``(chosen / best - 1) * 100`` (``None`` unless both ran).
        current_latency_us: the current configuration's latency there, microseconds (``None``: it did not run).
    """

    model_config = ConfigDict(extra="forbid")

    shape: str
    best_config: dict[str, Value] | None
    best_latency_us: float | None
    chosen_latency_us: float | None
    within_pct: float | None
    current_latency_us: float | None = None


class ChoiceKind(StrEnum):
    """What a session across shapes keeps."""

    ONE = "one"  # one configuration, within WITHIN_PCT of every shape's own best (or one shape timed)
    TABLE = "table"  # a per-bucket table: each shape's own best for its size


class ShapeChoice(BaseModel):
    """One configuration for every shape, or a per-bucket table, and why.

    Attributes:
        kind: which.
        reason: one line saying why.
        table: shape label -> its configuration (``TABLE`` only), in the shapes' order.
        gain_pct: how much faster the table is than the one configuration on the shape where they differ most.
    """

    model_config = ConfigDict(extra="forbid")

    kind: ChoiceKind
    reason: str
    table: dict[str, dict[str, Value]] = Field(default_factory=dict)
    gain_pct: float | None = None


def timed_in_part(r: Result) -> bool:
    """A candidate the author's screen set aside at some entries and timed at others (a session that tunes per shape:
    :class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`'s ``per_entry``): never the one configuration, but
    an entry's own best where it was timed."""
    return r.outcome is Outcome.INVALID and bool(r.latency_us_by_shape)


def latest(results: Sequence[Result], *, partly: bool = False) -> dict[Config, Result]:
    """Each configuration's latest passing result timed on several shapes (a re-time, later in the sequence,
    replaces the first measurement); ``partly``: the :func:`timed_in_part` ones too."""
    out: dict[Config, Result] = {}
    for r in results:
        if (r.outcome.ok or (partly and timed_in_part(r))) and r.latency_us_by_shape:
            out[Config.of(r.config)] = r
    return out


def same_round(
    results: Sequence[Result], retimed: Sequence[Result], wanted: Iterable[Config] = (), *, partly: bool = False
) -> dict[Config, Result]:
    """The measurements every comparison of configurations reads (:func:`latest`): the re-time's where it ran and
    timed each of ``wanted``, else the first measurements; never a mix of the two rounds. The re-time ran
    everything slower on an H100 (xformers' RMS norm, 2026-12-06: the current configuration 2.46 us on 100 columns
    at first, 4.06 re-timed; its graphs held fewer calls, mended since by ``bench_worker.GRAPH_FLOOR_BYTES``, but
    load and clocks still set rounds apart), and a table row chosen by a first measurement (3.05 us) against
    re-timed ones was written as "+33.3 %" over the current's re-time, where the same round had the current
    faster."""
    return latest(retime_round(retimed, wanted, partly=partly) or results, partly=partly)


def retime_round(retimed: Sequence[Result], wanted: Iterable[Config] = (), *, partly: bool = False) -> Sequence[Result]:
    """``retimed`` when the re-time is the round :func:`same_round` reads (it ran and timed each of ``wanted``), else
    empty (the first measurements are that round): the one rule of which round a comparison reads, for one that reads
    more of it than :func:`same_round` gives (the shapes' own bests of :func:`per_shape`, beside a keyed list's)."""
    again = latest(retimed, partly=partly)
    return retimed if again and all(c in again for c in wanted) else ()


def per_shape(
    results: Sequence[Result],
    retimed: Sequence[Result],
    chosen: Mapping[str, Value] | None,
    current: Mapping[str, Value] | None = None,
) -> list[ShapeBest]:
    """For each shape timed, its own best configuration and latency, and ``chosen``'s and ``current``'s latency
    there. The re-timed results are used where there are any (the per-shape bests and the current configuration
    are re-timed with the top few), else the first measurements. A shape's own best may be a :func:`timed_in_part`
    candidate, set aside at another entry. Empty when one shape was timed."""
    pool = same_round(results, retimed, partly=True)
    if not pool:
        return []
    labels = list(next(iter(pool.values())).latency_us_by_shape)
    mine = pool.get(Config.of(chosen)) if chosen is not None else None
    now = pool.get(Config.of(current)) if current is not None else None
    out = []
    for label in labels:
        timed = [(c, r.latency_us_by_shape[label]) for c, r in pool.items() if label in r.latency_us_by_shape]
        best = min(timed, key=lambda cl: cl[1]) if timed else None
        at = mine.latency_us_by_shape.get(label) if mine is not None else None
        within = within_pct(at, best[1] if best is not None else None)
        out.append(
            ShapeBest(
                shape=label,
                best_config=best[0].as_dict() if best else None,
                best_latency_us=best[1] if best else None,
                chosen_latency_us=at,
                within_pct=within,
                current_latency_us=now.latency_us_by_shape.get(label) if now is not None else None,
            )
        )
    return out


def shared_best(shapes: Sequence[ShapeBest]) -> dict[str, Value] | None:
    """The configuration that is every shape's own best, where one is (several shapes timed); ``None`` otherwise: a
    per-bucket table of it would be that one configuration at every size."""
    bests = {Config.of(s.best_config) for s in shapes if s.best_config is not None}
    if len(shapes) < 2 or len(bests) != 1 or any(s.best_config is None for s in shapes):
        return None
    return dict(shapes[0].best_config or {})


def within_pct(at: float | None, best: float | None) -> float | None:
    """How much slower ``at`` is than ``best`` (microseconds each), ``(at / best - 1) * 100``; ``None`` unless both
    ran (and ``best`` is positive)."""
    return (at / best - 1) * 100 if at is not None and best is not None and best > 0 else None


def choose(shapes: Sequence[ShapeBest], *, within_pct: float = WITHIN_PCT) -> ShapeChoice:
    """One configuration when the chosen one is within ``within_pct`` of every shape's own best, else a per-bucket
    table of each shape's own best."""
    if len(shapes) < 2:
        return ShapeChoice(kind=ChoiceKind.ONE, reason="one shape timed")
    far = [s for s in shapes if s.within_pct is not None and s.within_pct > within_pct]
    if not far:
        return ShapeChoice(kind=ChoiceKind.ONE, reason=_one_line(shapes, len(shapes), within_pct))
    worst = max(far, key=lambda s: s.within_pct or 0.0)
    table = {s.shape: dict(s.best_config) for s in shapes if s.best_config is not None}
    return ShapeChoice(
        kind=ChoiceKind.TABLE,
        reason=f"one configuration for all {len(shapes)} shapes is {worst.within_pct:.1f} % slower than "
        f"{worst.shape}'s own best ({', '.join(s.shape for s in far)} beyond {within_pct:g} %){TABLE_CHOSEN}",
        table=table,
        gain_pct=worst.within_pct,
    )


def _one_line(shapes: Sequence[ShapeBest], of: int, within_pct: float) -> str:
    """:func:`choose`'s line of one configuration run at ``shapes`` (``of`` shapes timed): the most it is slower than
    a shape's own best there, from the shapes' own ``within_pct``."""
    worst = max((s.within_pct or 0.0 for s in shapes), default=0.0)
    where = f"all {of} shapes" if len(shapes) == of else f"{len(shapes)} of the {of} shapes, where it runs"
    most = f"at most {within_pct:g} % asked"
    return f"one configuration for {where}: within {worst:.1f} % of each shape's own best ({most})"


def as_written(
    choice: ShapeChoice, shapes: Sequence[ShapeBest], elsewhere: Mapping[str, str], *, within_pct: float = WITHIN_PCT
) -> ShapeChoice:
    """``choice`` said of the written kernel's per-shape figures (``shapes``, as written), where its guards run
    another configuration than the one chosen at some entries (``elsewhere``: label -> what runs there, "the
    original"): one configuration's "within" is of the entries it runs at, and each other entry is named with its
    own figure, so the line and the per-shape figures never disagree (late41's l91: "within 0.0 %" beside a
    ``within_pct`` of 132 at the entry the guard leaves to the original); ``choice`` itself where none differs."""
    if not elsewhere:
        return choice
    runs = [s for s in shapes if s.shape not in elsewhere]
    head = _one_line(runs, len(shapes), within_pct) if choice.kind is ChoiceKind.ONE else choice.reason
    others = []
    for s in shapes:
        if s.shape in elsewhere:
            pct = "not timed" if s.within_pct is None else f"{s.within_pct:.1f} % slower than its own best"
            others.append(f"{elsewhere[s.shape]} at {s.shape} ({pct})")
    return choice.model_copy(update={"reason": f"{head}; as written its guards run {'; '.join(others)}"})


TABLE_CHOSEN = ": a per-bucket table, each shape its own best"
"""How :func:`choose`'s reason ends when it chooses a table (what :func:`unheld` replaces)."""


def unheld(choice: ShapeChoice, why: str) -> ShapeChoice:
    """``choice`` (a table) where no table can hold the knobs (``why``: a literal cap, a size the entries do not
    name): its line says that one configuration is judged, never a table that is not written (breaker11's
    liger_tvd said "a per-bucket table, each shape its own best" and left kernel.py unchanged; small11 s2)."""
    head = choice.reason.removesuffix(TABLE_CHOSEN)
    return choice.model_copy(
        update={
            "reason": f"{head}: each shape's own best needs a per-bucket table, but {why}: one configuration is "
            "judged against the current one"
        }
    )
