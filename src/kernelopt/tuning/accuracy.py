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
different sizes refuses only where the candidate's excess over the original's error also rises with the size
(:func:`across_entries`, :class:`~kernelopt.tuning.shape_evaluator.ShapesEvaluator`): a fixed excess, more partial
sums rounded whatever the size (a larger ``split_k``'s fp16 atomics), never grows past the tolerance, where the
entries vary every size (review23 r34). Both judge every
candidate and the text ``tune`` writes; an entry where the original is exact is compared at none.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from kernelopt.numeric import is_int
from kernelopt.tuning.candidate import Outcome, Result

#: how many times the original's root-mean-square error a candidate's may be at one entry: a chain twice as long
#: roughly doubles it (a truncating accumulator's error is a bias, growing with each addition), a rounding path
#: shared by both leaves it within a few percent
ERROR_GROWTH = 1.5

#: the same where entries of different sizes show the excess rising with the size (:func:`across_entries`): that rise
#: already tells a growing error from noise, and at the entries a chain's error shares the check with the output's
#: rounding, which dilutes it (breaker21's ``split_k=2`` at K = 2500: about 1.4 times the original's, estimated from
#: the H100's 8192 failure)
ENTRIES_GROWTH = 1.2

#: the share of the tolerance a candidate's worst element must take before its growth is judged: below it, a growth
#: by the factor above needs a size many times the entries' before it reaches the tolerance
ERROR_FLOOR = 0.05

#: how much a candidate's excess over the original's error (``rel_err`` less the original's) must rise from the
#: smallest entry to the largest to be read as growing with the size: a fixed excess (more partial sums rounded, as a
#: larger ``split_k``'s fp16 atomics add, whatever K) stays within it
EXCESS_GROWTH = 1.25

#: the share of the output's unit roundoff (``Result.roundoff``: 2**-10 for fp16) under which no error is compared:
#: a relative root mean square this small is the reference's own values but for a few flips of the last bit
ROUNDOFF_SHARE = 0.125

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


def across_entries(errors: Sequence[EntryError]) -> tuple[str, str] | None:
    """The entry and the line of a candidate less accurate than the original where its error grows with the size:
    :func:`accuracy_line` at some entry (past :data:`ENTRIES_GROWTH` times the original's where the entries' sizes
    differ and its excess over the original's, ``rel_err`` less the original's, rises from the smallest to the largest
    by :data:`EXCESS_GROWTH`), unless those entries vary every size and show the excess not rising from the smallest
    to the largest (a fixed excess: breaker21's split-K at ``split_k=16`` adds four times the original's fp16 atomics,
    1.7 times its error in Triton's interpreter at every M, N and K, and shortens the chain whose error grows; entries
    that never vary a size, the row length a chain runs along, show nothing of it: r34). One entry, or entries of one
    size, say nothing of growth: the ratio alone decides. ``None``: not refused."""
    errors = [e for e in errors if e.original > 0]
    ordered = sorted(errors, key=lambda e: e.size)
    growth = ERROR_GROWTH
    if ordered and ordered[-1].size > ordered[0].size:
        if _excess(ordered[-1]) > _risen(_excess(ordered[0])):
            growth = ENTRIES_GROWTH
        elif _every_size_varies(errors):
            return None
    flagged = [(e, line) for e in errors if (line := accuracy_line(e.result, e.original, growth)) is not None]
    if not flagged:
        return None
    entry, line = max(flagged, key=lambda f: f[0].size)
    return entry.label, line


def _excess(e: EntryError) -> float:
    return (e.result.rel_err or 0.0) - e.original


def _risen(before: float) -> float:
    """The excess past which one that was ``before`` has risen (:data:`EXCESS_GROWTH`)."""
    return EXCESS_GROWTH * before if before > 0 else before


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
