"""wrongkernel29: a host assert bounding from above a value a count of tiles makes, in a form kernelopt does not read
as the count (``max(grid)``, ``grid[-2]``, an unpacking of the grid, a tuple built by a call, a dict's entry: v148),
is unknown, not unbounded: the count's tile is refused any move (docs/faults.md, "Wrong written kernels,
twenty-ninth hunt")."""

from __future__ import annotations

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel17_cases import VARIANTS

COMPUTED = "    BLOCK_SIZE_N = min(BLOCK_SIZE_N, 512)\n"
ASSERTED = "    grid = (grid_size0, grid_size1)\n    assert max(grid) < 65536\n"
ROW = "    if N <= 2 ** 24:  # kernelopt: tuned\n        BLOCK_SIZE_N = 16\n"


def test_v148_a_smaller_tile_fails_the_grid_s_assert_where_the_original_passed() -> None:
    """The arithmetic the refusal stands on: at N = 2**24 the original's 512 launches 32768 programs on the first
    axis, under the assert's 65536; the row's 16 launches 1048576 and the assert fails."""
    cdiv = lambda n, b: -(-n // b)  # noqa: E731
    assert cdiv(2**24, 512) < 65536 <= cdiv(2**24, 16)


@pytest.mark.parametrize(
    "spelling",
    [
        ASSERTED,
        "    grid = (grid_size0, grid_size1)\n    assert grid[-2] < 65536\n",
        "    grid = (grid_size0, grid_size1)\n    g0, g1 = grid\n    assert g0 < 65536\n",
        "    grid = tuple([grid_size0, grid_size1])\n    assert grid[0] < 65536\n",
        "    limits = {'x': grid_size0}\n    assert limits['x'] < 65536\n    grid = (grid_size0, grid_size1)\n",
    ],
    ids=["max", "negative-index", "unpacked", "tuple-call", "dict-entry"],
)
def test_v148_a_bound_on_an_unread_count_of_tiles_refuses_the_tile(spelling: str) -> None:
    """v148 (grid_assert_max): before, each spelling's bounded side was read as no count of tiles, and a table's row
    ``if N <= 2 ** 24: BLOCK_SIZE_N = 16`` was written plainly, failing the assert at N = 2**24; now the value is
    followed through the function's bindings to ``triton.cdiv(N, BLOCK_SIZE_N)`` and the move is refused."""
    base = (VARIANTS / "grid_assert_max" / "kernel.py").read_text(encoding="utf-8")
    assert ASSERTED in base
    base = base.replace(ASSERTED, spelling)
    guarded = guard_edit(base, base.replace(COMPUTED, COMPUTED + ROW))
    assert guarded.new_source is None, guarded.new_source
    assert "BLOCK_SIZE_N=16" in (guarded.note or "") and "a bound on a value counted from tiles" in (guarded.note or "")


def test_v148_a_bound_read_as_the_count_still_guards_the_row() -> None:
    """``assert grid[0] < 65536`` over a plain tuple is read as the count (review26, r69): the row is written with
    the count's limit, not refused."""
    base = (VARIANTS / "grid_assert_max" / "kernel.py").read_text(encoding="utf-8")
    base = base.replace(ASSERTED, "    grid = (grid_size0, grid_size1)\n    assert grid[0] < 65536\n")
    guarded = guard_edit(base, base.replace(COMPUTED, COMPUTED + ROW))
    assert guarded.new_source == base.replace(
        COMPUTED, COMPUTED + ROW.replace("N <= 2 ** 24", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535")
    ), guarded.note
