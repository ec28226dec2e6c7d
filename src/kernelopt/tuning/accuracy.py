"""A candidate no less accurate than the original: its error at an entry compared with the original's there (pure).

A check within tolerance at the ``SHAPES`` entries says nothing of a larger size when the candidate's error grows
with it faster than the original's: a longer reduction chain a program sums alone (a split-K GEMM's ``split_k``
halved doubles the K each program adds in an fp8 ``tl.dot``'s reduced-precision accumulator on sm90, Triton's
default there), or a lower-precision path (a partial sum kept in fp16). breaker21's applied-ai split-K GEMM at
``split_k=2`` of 4 passed every entry and the net on an H100, and was wrong at 8192 x 8192 x 8192, where the
original is right (docs/faults.md, "Wrong written kernels, twenty-fifth hunt", v116).

Both ran on the same inputs (the entry's, seed 0) against the same reference, so their errors compare directly:
a candidate whose error (``||out - ref|| / ||ref||``, a root mean square over every element, steady where a single
element's is not) is more than :data:`ERROR_GROWTH` times the original's at an entry, while its worst element takes
at least :data:`ERROR_FLOOR` of the tolerance, is less accurate there (:func:`accuracy_line`). The floor keeps an
fp32 kernel summing in another order (errors of 1e-7 against a tolerance of 1e-4) from refusing. It does not keep a
half-precision output's: one flip of its last bit takes a tenth of the default tolerance (2 eps relative, 4 eps of
the root mean square), and a kernel summing in fp32 in another order differs from the reference at a few such
flips, their count chance, so two correct orders' errors differed by more than 1.5 times (an fp16 GEMM of 64 x 64 x
1024, BLOCK_K 16 and 64 beside 32: 4 times; review23 r33). So errors are compared only above :data:`ROUNDOFF_SHARE`
(an eighth) of the output's unit roundoff: sparse flips stay far below it in root mean square (0.02 of it in that
GEMM), rounding every element takes about a quarter of it, an fp16 accumulator or fp16 atomics more (split-K's
errors stay compared). A session of one entry refuses on that alone
(:func:`judged`, each :class:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator`); a session across entries of
different sizes reads the pace of each error's rise along the size the reduction runs along (:func:`chain_rise`,
:func:`across_entries`, :class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`; leftovers24): a chain ``r`` times
the original's rises ``r`` times as fast, or ``sqrt(r)`` for a rounding accumulator, and what both share or add at
every size (the output's rounding, a larger ``split_k``'s fp16 atomics) cancels in the rise, so the H100's halved
split-K pick rises 2.0 times as fast as the original's where its error was 1.21 times it against a threshold of 1.2
(docs/faults.md, "The accuracy rule's margins"; benchmarks/accuracy_margins.py measures the margins on a numeric model
of fp8, bf16, fp16 and fp32 accumulations). A count of atomics that grows with the size does not cancel: split-K's
partials number ``min(split_k, ceil(K / block_k))``, rising along entries under ``split_k * block_k`` and flat past
it, which the entries cannot tell from a longer chain; the refusal names both (:meth:`ChainRise.cause`, leftovers26
l110). Such a refusal (:attr:`ChainRise.ambiguous`) is judged again with one size more, for accuracy alone, derived
from the entry at the rise's high end (:func:`past_partials`: that size past where every split has a tile, the
candidate's and the original's), both run there on the same inputs (the session's
:class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`, leftovers27 l130). Entries that never vary a size leave
the ratio to decide (r34).
Both judge every
candidate and the text ``tune`` writes; an entry where the original is exact is compared at none.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kernelopt.numeric import is_int
from kernelopt.planning.knobs import KnobFamily, family
from kernelopt.tuning.candidate import Outcome, Result

#: how many times the original's root-mean-square error a candidate's may be at one entry: a chain twice as long
#: roughly doubles it (a truncating accumulator's error is a bias, growing with each addition), a rounding path
#: shared by both leaves it within a few percent
ERROR_GROWTH = 1.5

#: how many times as fast as the original's a candidate's error may rise along the size the reduction runs along
#: (:func:`chain_rise`): a chain's error rises with its length, so a chain ``r`` times the original's rises ``r`` times
#: as fast (a truncating accumulator's bias: an fp8 ``tl.dot`` on sm90) or about ``sqrt(r)`` times (a rounding one's
#: random walk: bf16, fp16): twice as long is 2 or 1.41, past this with margin; a chain no longer than the original's
#: rises at most as fast, and what both share or add whatever the size (the output's rounding, a fixed count of fp16
#: atomics) cancels in the rise
CHAIN_GROWTH = 1.25

#: where a candidate's error is more than :data:`STEADY_GROWTH` times the original's at every entry, a rise more than
#: this many times as fast as the original's is a longer chain too: a rounding accumulator's (bf16, fp16), whose
#: chain dominates the error at every size, doubled keeps a steady ratio near 1.3 to the original's at every entry
#: while its rise's pace, read from a few entries, scatters around 1.41 (1.19 to 1.77 over 20 draws of
#: benchmarks/accuracy_margins.py's bf16 model); a fixed excess (an added rounding, more atomics) rises no faster
FASTER = 1.1

#: see :data:`FASTER`: the ratio to the original's error a candidate's must pass at every entry
STEADY_GROWTH = 1.2

#: the share of the original's largest error under which the rise of a candidate's excess over it along a size is
#: read as noise (the entries' own inputs, a few flips more or less): breaker21's split-K on an H100 (docs/gpu-runs/
#: 2026-12-07-h100-p), ``split_k=2`` rising 1.3e-4 faster than the original's, whose largest is 5.6e-4
RISE_NOISE = 0.1

#: the share of the tolerance a candidate's worst element must take before its growth is judged: below it, a growth
#: by the factor above needs a size many times the entries' before it reaches the tolerance
ERROR_FLOOR = 0.05

#: the share of the output's unit roundoff (``Result.roundoff``: 2**-10 for fp16) under which no error is compared:
#: a relative root mean square this small is the reference's own values but for a few flips of the last bit
ROUNDOFF_SHARE = 0.125

#: how far past the size where a split's count of partials stops growing (``split_k * block_k`` along K, the
#: candidate's and the original's, or the entry's own where larger) the accuracy-only size lies (:func:`past_partials`):
#: at twice it, both counts are flat over the last half of the span while a chain keeps lengthening
#: (benchmarks/accuracy_margins.py's split-K model, leftovers27 l130; the H100's 512 x 512 x 8192, leftovers26 l110)
PAST_SPLIT = 2

#: the most an accuracy-only size's product of sizes may be, times the larger of the entries at the rise's two ends
#: (:attr:`ChainRise.low`, :attr:`ChainRise.high`): past it the size is not run
#: and the refusal stands (its line says so); split_k=64 over block_k=512 at ai_splitk's 64 x 64 x 2500 is 26 times
PAST_MOST = 64

#: the error class of the refusal (:func:`kernelopt.harness.hints.failure_class` reads an unknown one as raised)
LESS_ACCURATE = "LessAccurate"


def original_error(results: Iterable[Result]) -> float | None:
    """The original's error at an entry: the largest ``rel_err`` of its configurations that passed (a keyed list's
    every config runs somewhere, its twins run as it does); ``None`` when none was measured."""
    errs = [r.rel_err for r in results if r.outcome is Outcome.OK and r.rel_err is not None]
    return max(errs) if errs else None


def accuracy_line(result: Result, original: float | None, growth: float = ERROR_GROWTH) -> str | None:
    """Why ``result``, which passed its check, is less accurate than the original at the same entry (``original``:
    :func:`original_error`), else ``None`` (not measured, within ``growth`` times it or of :data:`ROUNDOFF_SHARE` of
    the output's unit roundoff, or its worst element under the floor)."""
    if not result.outcome.ok or not original or result.rel_err is None or result.worst_ratio is None:
        return None  # an original exact there (its reference rounds as it does: breaker21's split-K at K = 512 in
        # Triton's interpreter) leaves nothing to compare a growth with
    least = ROUNDOFF_SHARE * (result.roundoff or 0.0)
    if result.worst_ratio < ERROR_FLOOR or result.rel_err <= growth * max(original, least):
        return None
    return (
        f"its error is {result.rel_err / original:.2g} times the original's on the same inputs (rel_err "
        f"{result.rel_err:.3g} against {original:.3g}; its worst element at {result.worst_ratio:.2g} of the "
        "tolerance): a longer reduction chain or a lower-precision path, which grows past the tolerance at larger "
        "sizes the original handles"
    )


@dataclass(frozen=True)
class EntryError:
    """A candidate's check at one ``SHAPES`` entry beside the original's there: the entry's ``label``, the candidate's
    ``result``, the original's ``rel_err`` (``original``) and the entry's sizes by name (``values``,
    :func:`entry_values`: along which the excess is shown flat; their product is its :attr:`size`)."""

    label: str
    result: Result
    original: float
    values: Mapping[str, int] = field(default_factory=dict)

    @property
    def size(self) -> int:
        """The entry's size for the growth of an error (:func:`entry_size` of its values)."""
        return entry_size(self.values)


def entry_values(values: Mapping[str, object]) -> dict[str, int]:
    """An entry's sizes by name: its positive integer values (a GEMM's M, N and K, a row sum's rows and columns)."""
    return {k: v for k, v in values.items() if is_int(v) and v > 0}


def entry_size(values: Mapping[str, object]) -> int:
    """An entry's size for the growth of an error: the product of its sizes (:func:`entry_values`), 1 for none."""
    return math.prod(entry_values(values).values())


@dataclass(frozen=True)
class ChainRise:
    """How a candidate's error and the original's rise along one size (:func:`chain_rise`): the size's ``name``, each
    error's least-squares rise from its smallest value among the entries to its largest (``candidate``,
    ``original``), the entries at those two ends (``low``, ``high``) and the least and the largest ratio of the
    candidate's error to the original's at an entry (``least``, ``most``)."""

    name: str
    candidate: float
    original: float
    low: EntryError
    high: EntryError
    least: float = 0.0
    most: float = math.inf

    @property
    def ambiguous(self) -> bool:
        """Whether the rise cannot tell a longer chain from more rounded partial adds (:meth:`cause`): the candidate
        within :data:`ERROR_GROWTH` times the original's error at every entry."""
        return self.most <= ERROR_GROWTH

    @property
    def excess(self) -> float:
        """How much faster the candidate's error rises than the original's over the span (negative: slower)."""
        return self.candidate - self.original

    def grows(self, noise: float) -> bool:
        """Whether the candidate's error rises more than :data:`CHAIN_GROWTH` times as fast as the original's (one
        that does not rise: any rise) by more than ``noise``, or more than :data:`FASTER` times as fast while it is
        more than :data:`STEADY_GROWTH` times the original's at every entry (``least``): a longer chain along this
        size."""
        faster = self.excess > max((CHAIN_GROWTH - 1) * max(self.original, 0.0), noise)
        steady = self.excess > max((FASTER - 1) * max(self.original, 0.0), noise / 2)
        return faster or (self.least > STEADY_GROWTH and steady)

    def line(self) -> str:
        """Why the candidate is less accurate: its rise beside the original's, at the two ends."""
        lo, hi = self.low, self.high
        pace = "where the original's does not"
        if self.original > 0:
            pace = f"{self.candidate / self.original:.2g} times as fast as the original's"
        return (
            f"its error rises along {self.name} {pace} on the same inputs (rel_err "
            f"{lo.result.rel_err:.3g} at {self.name}={lo.values[self.name]} to {hi.result.rel_err:.3g} at "
            f"{self.name}={hi.values[self.name]}, the original's {lo.original:.3g} to {hi.original:.3g}; at least "
            f"{self.least:.2g} times it at every entry): {self.cause()}"
        )

    def cause(self) -> str:
        """What the rise says of its cause. Past :data:`ERROR_GROWTH` times the original's at an entry: a longer
        chain or a lower-precision path, a loss at that size already (split_k=32's 32 rounded fp16 adds against the
        original's 4 on an H100: 1.5 to 2 times its error at an entry). Within it at every entry, the entries' sizes
        cannot tell a longer chain from more rounded partial adds (leftovers26, l110): a split-K's fp16 atomics
        number ``min(split_k, ceil(K / block_k))``, growing along K until every split has a tile and flat past it,
        where the shorter chain is the more accurate (breaker21's split_k=16 tiles on an H100, refused at K <= 2500,
        err 7.5e-4 against the original's 8.9e-4 at K = 8192); the net's larger sizes, judged beside the entries, tell
        them apart, as does a size past the splits beside them in the session (:func:`past_partials`)."""
        if not self.ambiguous:
            return (
                f"a longer reduction chain or a lower-precision path (more rounded partial adds among them), "
                f"{self.most:.2g} times the original's error at an entry already, which grows past the tolerance at "
                "larger sizes the original handles"
            )
        return (
            f"a longer reduction chain, which grows past the tolerance at larger sizes the original handles, or more "
            f"rounded partial adds (a split-K's atomics, whose count grows along {self.name} only until every split "
            f"has a tile), which stop growing there: within {self.most:.2g} times the original's at every size "
            f"compared, its rise cannot tell the two apart, so it is refused"
        )


def chain_rise(errors: Sequence[EntryError]) -> ChainRise | None:
    """The rise of the errors along the size the reduction runs along: of the sizes every entry names and that take
    two values or more among them, the one along which the original's error rises most where it rises past
    :data:`RISE_NOISE` of its largest along one (the reduction is the problem's, so the original's error, which both
    share, marks it as the candidate's does: breaker21's split-K entries vary M, N and K, and its ``split_k=16`` alone
    rises along N nearly as along K, by its inputs' chance), else the one along which the two errors together rise
    most (a flat original's rise is its inputs' chance: review24 r42), each error's rise its least-squares slope times
    the size's span. ``None``: no size varies."""
    errors = [e for e in errors if e.original > 0]  # an entry where the original is exact is compared at none
    names = [n for n in errors[0].values if all(n in e.values for e in errors)] if errors else []
    rises = []
    for name in names:
        xs = [float(e.values[name]) for e in errors]
        if len(set(xs)) < 2:
            continue
        span = max(xs) - min(xs)
        candidate = _slope(xs, [e.result.rel_err or 0.0 for e in errors]) * span
        original = _slope(xs, [e.original for e in errors]) * span
        low = min(errors, key=lambda e: e.values[name])
        high = max(errors, key=lambda e: e.values[name])
        ratios = [(e.result.rel_err or 0.0) / e.original for e in errors]
        rises.append(ChainRise(name, candidate, original, low, high, min(ratios), max(ratios)))
    # The original's error marks the reduction alone where it rises past its noise: a candidate's noise then picks no
    # size (an fp8 split-K's atomics rose along M by chance). An original whose error is flat (an fp32 sum, its
    # output's rounding) rises along a size only by its inputs' chance, and that chance chose more rows over the row
    # length a candidate's fp16 lanes lengthened, its error falling along the rows: kept (review24 r42).
    noise = RISE_NOISE * max((e.original for e in errors), default=0.0)
    if any(r.original > noise for r in rises):
        return max(rises, key=lambda r: r.original)
    return max(rises, key=lambda r: r.candidate + r.original, default=None)


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of ``ys`` against ``xs`` (which take two values or more)."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def past_partials(
    rise: ChainRise, configs: Iterable[Mapping[str, object]], most: int = PAST_MOST
) -> dict[str, int] | None:
    """The sizes of an accuracy-only size that tells an ambiguous rise (:attr:`ChainRise.ambiguous`) apart: the entry
    at its high end (:attr:`ChainRise.high`) with the rise's size (``rise.name``, a GEMM's K) the least power of two at
    least :data:`PAST_SPLIT` times the largest of its value there and of each of ``configs``' (the candidate's and the
    original's) split times tile along it (a knob of the split-K family times one of the K-tile family, 1 where it
    names none): past it every split has a tile, so each count of rounded partial adds is flat while a longer chain
    keeps growing (leftovers26 l110; leftovers27 l130). ``None`` where its product of sizes would pass ``most`` times
    the larger of the entries at the rise's two ends (too large to run for accuracy alone)."""
    values = dict(rise.high.values)
    reach = values[rise.name]
    for config in configs:
        splits = [v for k, v in config.items() if is_int(v) and v > 0 and family(k) is KnobFamily.SPLIT_K]
        tiles = [v for k, v in config.items() if is_int(v) and v > 0 and family(k) is KnobFamily.TILE_K]
        reach = max(reach, max(splits, default=1) * max(tiles, default=1))
    values[rise.name] = 1 << math.ceil(math.log2(PAST_SPLIT * reach))
    if entry_size(values) > most * max(entry_size(e.values) for e in (rise.low, rise.high)):
        return None
    return values


def across_entries(errors: Sequence[EntryError]) -> tuple[str, str] | None:
    """The entry and the line of a candidate less accurate than the original, from its errors at entries of different
    sizes (the ``SHAPES`` entries, the net's larger sizes): where a size varies among them, its error rising along the
    reduction's size (:func:`chain_rise`) more than :data:`CHAIN_GROWTH` times as fast as the original's, by more than
    :data:`RISE_NOISE` of the original's largest, its worst element at :data:`ERROR_FLOOR` of the tolerance somewhere
    and its error above :data:`ROUNDOFF_SHARE` of the output's roundoff (named at the entry of that size's largest).
    A rise no faster exonerates where the entries vary every size (each takes two values or more: the one a chain runs
    along was lengthened somewhere; breaker21's ``split_k=16``, its fp16 atomics four times the original's, 1.7 times
    its error at every entry in Triton's interpreter, a chain a quarter as long); entries that never vary a size (more
    rows at one row length: review23 r34, v116's fp16 lanes 14 and 8 times the original's error at 8 and 32 rows of
    20000 columns) and one entry, or entries of one size, leave the ratio (:func:`accuracy_line`, :data:`ERROR_GROWTH`)
    to decide. An entry where the original is exact is compared at none. ``None``: not refused."""
    found = refusing_rise(errors)
    if found is not None:
        return found.high.label, found.line()
    errors = [e for e in errors if e.original > 0 and e.result.outcome.ok and e.result.rel_err is not None]
    if chain_rise(errors) is not None and _every_size_varies(errors):
        return None
    flagged = [(e, line) for e in errors if (line := accuracy_line(e.result, e.original)) is not None]
    if not flagged:
        return None
    entry, line = max(flagged, key=lambda f: f[0].size)
    return entry.label, line


def refusing_rise(errors: Sequence[EntryError]) -> ChainRise | None:
    """The rise (:func:`chain_rise`) by which :func:`across_entries` refuses a candidate, else ``None`` (kept, or
    refused by its ratio at an entry alone)."""
    errors = [e for e in errors if e.original > 0 and e.result.outcome.ok and e.result.rel_err is not None]
    rise = chain_rise(errors)
    if rise is None:
        return None
    return rise if rise.grows(RISE_NOISE * max(e.original for e in errors)) and _judgeable(errors) else None


def _judgeable(errors: Sequence[EntryError]) -> bool:
    """Whether a candidate's errors are past the floors :func:`accuracy_line` keeps: its worst element at
    :data:`ERROR_FLOOR` of the tolerance at some entry, its error above :data:`ROUNDOFF_SHARE` of the output's
    roundoff at some entry (under it, a few flips of the last bit)."""
    worst = any((e.result.worst_ratio or 0.0) >= ERROR_FLOOR for e in errors)
    return worst and any((e.result.rel_err or 0.0) > ROUNDOFF_SHARE * (e.result.roundoff or 0.0) for e in errors)


def _every_size_varies(errors: Sequence[EntryError]) -> bool:
    """Whether the entries vary each of their sizes (each takes two values or more among them): only then can a flat
    excess say the error does not grow along the size a chain runs along (r34: entries of more rows at one row
    length, v116's fp16 lanes 14 and 8 times the original's error at 8 and 32 rows of 20000 columns, showed a flat
    excess of a chain they never lengthened)."""
    names = {k for e in errors for k in e.values}
    return bool(names) and all(
        all(name in e.values for e in errors) and len({e.values[name] for e in errors}) > 1 for name in names
    )


def refused(result: Result, line: str) -> Result:
    """``result`` as a wrong result of class :data:`LESS_ACCURATE`, ``line`` its reason."""
    return result.model_copy(
        update={
            "outcome": Outcome.WRONG_RESULT,
            "reason": line,
            "error_class": LESS_ACCURATE,
            "latency_us": None,
            "samples_us": [],
            "latency_us_by_shape": {},
            "cut_slow": False,
            "timing": None,
        }
    )


def judged(result: Result, original: float | None) -> Result:
    """``result`` refused as a wrong result when :func:`accuracy_line` says it is less accurate at its one entry,
    else itself."""
    line = accuracy_line(result, original)
    return result if line is None else refused(result, line)
