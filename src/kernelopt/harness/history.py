"""Whether a reference's output depends on its earlier calls, not on its inputs alone (pure; no torch).

A reference that keeps its output across calls (``functools.lru_cache`` over the sizes, a module-level dict keyed on
the shape, an output made once and returned again) returns, for the next seed's inputs of one shape, what it
returned for the last: a correct kernel failed "output differs from the reference beyond tolerance" at seed 1, the
kernel's FAIL (docs/faults.md refblame14 r10). A reference whose output legitimately does not change with its inputs
(a constant, a function of the shape) is never blamed: where a check fails after the reference ran before, the
reference is loaded afresh (reference.py imported again, its model built again under the same seed) and run on the
same inputs from the same random state; only when that run's output is not the one the check used is the failure
the reference's (:func:`cached_line`), the problem's error (:data:`kernelopt.harness.hints.REFERENCE_CACHED`), never
the kernel's. A failure at the reference's first call, or one the fresh run agrees with, stays the kernel's.
"""

from __future__ import annotations


def cached_line(differs: str, *, same_as_before: bool, what: str = "the reference") -> str:
    """The one line saying the reference's output came from its earlier calls.

    Args:
        differs: how the fresh reference's output differs from the one the check used (a check's message, the
            fresh output as the checked one).
        same_as_before: the output the check used is the one it returned for the previous seed's inputs.
        what: how the reference is named.
    """
    seen = (
        f"{what} returned the same output as for the previous seed's different inputs, and reference.py loaded "
        "afresh returns another on these inputs"
        if same_as_before
        else f"{what} returned another output on these inputs than reference.py loaded afresh returns"
    )
    return (
        f"{seen} (the fresh output against the one the check used: {differs}): its output depends on its earlier "
        "calls (a cache across calls: functools.lru_cache, a dict keyed on the shape, an output kept and returned "
        "again), not on its inputs alone, so no kernel can be checked against it; compute it from its inputs on "
        "every call"
    )
