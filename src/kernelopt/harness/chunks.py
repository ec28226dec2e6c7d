"""How a large tensor is read a step at a time: the output comparison and the inputs' fingerprint. Pure.

The output comparison (:func:`kernelopt.harness.compare.check_outputs`, the gate's and the bench worker's
one path) and the fingerprint of the tuning engine's bench worker read a tensor 1/16 of it at a time (at
least 64 Ki, at most 16 Mi elements): their temporaries (a few float32 copies of one chunk in the fast pass,
a dozen float64 ones in the full scan of a failing output) stay below 1.5 x the tensor, so no full-size
float64 copy of a 54 M-element output is ever made, and the bench worker's memory bound holds.
"""

from __future__ import annotations

CHUNK_MIN_ELEMS = 1 << 16
CHUNK_MAX_ELEMS = 1 << 24
CHUNK_DIVISOR = 16


def chunk_for(elems: int) -> int:
    """Elements per step for a tensor (or outputs) of ``elems`` elements (:data:`CHUNK_DIVISOR`)."""
    return max(CHUNK_MIN_ELEMS, min(CHUNK_MAX_ELEMS, elems // CHUNK_DIVISOR))
