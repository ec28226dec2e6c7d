"""review26: this session's landings reread and tried as a user would (docs/faults.md, "Review, twenty-sixth round").
Each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit

DATA = Path(__file__).parent / "data"
SILU = DATA / "breaker19" / "lmd_silu" / "kernel.py"
COMPUTED = "    BLOCK_SIZE_N = min(BLOCK_SIZE_N, 512)\n"
ASSERT = "    assert grid_size0 < 65536 and grid_size1 < 65536\n"
CHECK = "def _check_grid(size0, size1=1):\n    assert size0 < 65536 and size1 < 65536\n\n\n"


@pytest.mark.parametrize(
    ("call", "row"),
    [
        ("_check_grid(grid_size0, grid_size1)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        ("_check_grid(size1=grid_size1, size0=grid_size0)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        ("_check_grid(grid_size0)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        ("_check_grid(1, grid_size1)", "N <= 2 ** 24"),  # the helper bounds no count of tiles
    ],
)
def test_r60_a_count_a_helper_asserts_on_is_bounded_as_the_launcher_s_own_assert(call: str, row: str) -> None:
    """r60: lmd_silu's ``assert grid_size0 < 65536`` moved into a module helper the launcher calls
    (``_check_grid(grid_size0, grid_size1)``) was unread: a table's row ``if N <= 2 ** 24:`` / ``BLOCK_SIZE_N = 16``
    was written as it is, where at N = 2**24 its 1048576 tiles fail the helper's assert and the original's 512 (32768
    tiles) passes. The helper's asserts are read with what the call passes (by position, by keyword, a default):
    the count's limit is added to the row, as for the launcher's own assert (l80)."""
    base = SILU.read_text(encoding="utf-8")
    assert ASSERT in base
    base = base.replace(ASSERT, f"    {call}\n").replace("@functools.lru_cache\n", CHECK + "@functools.lru_cache\n")
    rows = "    if {}:  # kernelopt: tuned\n        BLOCK_SIZE_N = 16\n"
    guarded = guard_edit(base, base.replace(COMPUTED, COMPUTED + rows.format("N <= 2 ** 24")))
    assert guarded.new_source == base.replace(COMPUTED, COMPUTED + rows.format(row)), guarded.note
