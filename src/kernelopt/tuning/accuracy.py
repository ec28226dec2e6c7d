"""A candidate no less accurate than the original: its error at an entry compared with the original's there (pure).

A check within tolerance at the ``SHAPES`` entries says nothing of a larger size when the candidate's error grows
with it faster than the original's: a longer reduction chain a program sums alone (a split-K GEMM's ``split_k``
halved doubles the K each program adds in an fp8 ``tl.dot``'s reduced-precision accumulator on sm90, Triton's
default there), or a lower-precision path (a partial sum kept in fp16). breaker21's applied-ai split-K GEMM at
``split_k=2`` of 4 passed every entry and the net on an H100, and was wrong at 8192 x 8192 x 8192, where the
original is right (docs/faults.md, "Wrong written kernels, twenty-fifth hunt", v116).

Both ran on the same inputs (the entry's, seed 0) against the same reference, so their errors compare directly:
a candidate whose error (``||out - ref|| / ||ref||``, a root mean square over every element, steady where a single
element's is not) is more than :data:`ERROR_GROWTH` times the original's, while its worst element takes at least
:data:`ERROR_FLOOR` of the tolerance, is refused as a wrong result. The floor keeps noise from refusing: an fp32
kernel summing in another order (errors of 1e-7 against a tolerance of 1e-4) and an output's own rounding, which
every configuration shares, never reach it; atomics adding in another order move the root mean square by far less
than the growth. A change that shortens the chain lowers the error and passes. The one rule, applied by each
entry's evaluator (:class:`~kernelopt.tuning.kernel_evaluator.KernelEvaluator`) to every candidate and to the text
``tune`` writes.
"""

from __future__ import annotations

from collections.abc import Iterable

from kernelopt.tuning.candidate import Outcome, Result

#: how many times the original's root-mean-square error a candidate's may be at one entry: a chain twice as long
#: roughly doubles it (a truncating accumulator's error is a bias, growing with each addition), a rounding path
#: shared by both leaves it within a few percent
ERROR_GROWTH = 1.5

#: the share of the tolerance a candidate's worst element must take before its growth is judged: below it, a growth
#: by the factor above needs a size many times the entries' before it reaches the tolerance
ERROR_FLOOR = 0.05

#: the error class of the refusal (:func:`kernelopt.harness.hints.failure_class` reads an unknown one as raised)
LESS_ACCURATE = "LessAccurate"


def original_error(results: Iterable[Result]) -> float | None:
    """The original's error at an entry: the largest ``rel_err`` of its configurations that passed (a keyed list's
    every config runs somewhere, its twins run as it does); ``None`` when none was measured."""
    errs = [r.rel_err for r in results if r.outcome is Outcome.OK and r.rel_err is not None]
    return max(errs) if errs else None


def accuracy_line(result: Result, original: float | None) -> str | None:
    """Why ``result``, which passed its check, is less accurate than the original at the same entry (``original``:
    :func:`original_error`), else ``None`` (not measured, within :data:`ERROR_GROWTH`, or under the floor)."""
    if not result.outcome.ok or original is None or result.rel_err is None or result.worst_ratio is None:
        return None
    if result.worst_ratio < ERROR_FLOOR or result.rel_err <= ERROR_GROWTH * original:
        return None
    times = f"{result.rel_err / original:.2g} times" if original > 0 else "above"
    return (
        f"its error is {times} the original's on the same inputs (rel_err {result.rel_err:.3g} against "
        f"{original:.3g}; its worst element at {result.worst_ratio:.2g} of the tolerance): a longer reduction chain or "
        "a lower-precision path, which grows past the tolerance at larger sizes the original handles"
    )


def judged(result: Result, original: float | None) -> Result:
    """``result`` refused as a wrong result when :func:`accuracy_line` says it is less accurate, else itself."""
    line = accuracy_line(result, original)
    if line is None:
        return result
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
