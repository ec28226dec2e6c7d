"""late58: breaker28's ``tune --device cuda`` of lmd_fill_fp8 ended in an internal error, "ZeroDivisionError: integer
modulo by zero", on the H100 of 2026-12-07 22:11 UTC (docs/faults.md g13, l280): the session's editor, writing a
candidate that moved ``num_warps`` off a divisor of the launch's 4 beside the computed ``BLOCK_D``, read a jit
helper's signature default ``ROUND_SCALE: tl.constexpr = 0`` as a tile and asked whether 0 divides 0."""

from __future__ import annotations

from kernelopt.tunables.guard import guard_edit

#: lmd_fill_fp8's shape in small: a jit helper with a flag of 0 as its signature's default (lmdeploy's
#: ``_quant_blocked_fp8(..., ROUND_SCALE: tl.constexpr = 0)``), a block computed from the size, ``num_warps=4``.
FLAGGED = """import triton
import triton.language as tl


@triton.jit
def _scale(x, ROUND: tl.constexpr = 0):
    return x


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, _scale(tl.load(x_ptr + offs, mask=mask)), mask=mask)


def run(x, y):
    n = x.numel()
    BLOCK = triton.next_power_of_2(n)
    _copy[(1,)](x, y, n, BLOCK=BLOCK, num_warps=4)
    return y
"""


def test_l280_a_flag_of_0_in_a_kernel_s_signature_is_no_tile_the_write_divides() -> None:
    """l280: ``num_warps`` 4 -> 8 (no divisor of 4, so the session's editor asks :func:`guard_edit` whether the write
    stays legal) raised ZeroDivisionError in ``_decorator_tiles`` (the default ``ROUND=0`` read as a tile: ``0 % 0``);
    the H100's session ended there, an internal error. A value under 1 is no tile: the write is the edit as made."""
    new = FLAGGED.replace("num_warps=4", "num_warps=8")
    kept = guard_edit(FLAGGED, new)
    assert kept.new_source == new and kept.note is None, kept
