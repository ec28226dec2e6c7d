"""wrongkernel32: the unread forms still open after wrongkernel31, review28, late49, late52 and breaker29
(docs/faults.md, "The unread forms still open"): a grid counted by a shift by a name the launching function binds to
a constant (v190), ... Each test fails before its fix; none runs a kernel."""

from __future__ import annotations

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel30_cases import V149, V149_GRID, _grown


def _with_module(text: str, module: str) -> str:
    """``text`` with ``module``'s lines put before its first kernel."""
    return text.replace("\n\n@triton.jit", f"\n{module}\n\n@triton.jit", 1)


@pytest.mark.parametrize(
    ("module", "grid"),
    [
        ("", "    SHIFT = 8\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n"),
        (
            "import os\n",
            "    SHIFT = int(os.environ.get('SUMSQ_SHIFT', '8'))\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n",
        ),
        (
            "import os\n",
            "    if os.environ.get('SUMSQ_WIDE'):\n        SHIFT = 9\n    else:\n        SHIFT = 8\n"
            "    grid = ((n + BLOCK - 1) >> SHIFT,)\n",
        ),
        ("SHIFT = 8\n", "    global SHIFT\n    SHIFT = 8\n    grid = ((n + BLOCK - 1) // 2**SHIFT,)\n"),
    ],
    ids=["local", "call", "if-else", "global"],
)
def test_v190_a_shift_by_a_name_the_launcher_binds_to_a_constant_refuses_a_changed_tile(module: str, grid: str) -> None:
    """v190 (wrongkernel31's Seen line on v180): v149's sum of squares without masks, ``BLOCK = 256``, on a grid
    counted by a shift by a name the launching function binds (``SHIFT = 8``, from the environment, in each branch of
    an ``if``, or as a ``global``): any name the function bound was no constant, so ``BLOCK = 128`` (a divisor of the
    original) was written plainly and ``cdiv(n, 256)`` programs of 128 lanes covered half of ``n``. A name whose
    values read no tile is a constant count: every other tile refused."""
    base = _with_module((V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid), module)
    refused = guard_edit(base, _grown(base, 128))
    assert refused.new_source is None and "a grid that counts its programs by a constant" in (refused.note or "")
    scope = {"n": 1024, "BLOCK": 128, "SHIFT": 8}  # the launcher's count at n = 1024: four programs of 128 lanes
    exec("grid = ((n + BLOCK - 1) >> SHIFT,)", {}, scope)
    assert scope["grid"][0] * 128 == 512 < 1024


def test_v190_a_shift_that_moves_with_the_tile_keeps_a_divisor_of_the_original() -> None:
    """The control: a shift the launcher computes from the tile (``SHIFT = BLOCK.bit_length() - 1``) moves with it,
    so its count is the tile's own: a divisor of the original is written, as before."""
    grid = "    SHIFT = BLOCK.bit_length() - 1\n    grid = ((n + BLOCK - 1) >> SHIFT,)\n"
    base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid)
    written = _grown(base, 128)
    assert guard_edit(base, written).new_source == written
