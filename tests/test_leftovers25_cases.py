"""leftovers25: a table's row over a count a host assert bounds is written where its test implies the count's limit
(docs/faults.md, "Leftovers, twenty-fifth round"). breaker19's lmd_silu pick (``if N <= 1024:`` / ``BLOCK_SIZE_N =
128`` over ``assert grid_size0 < 65536`` with ``grid_size0 = triton.cdiv(N, BLOCK_SIZE_N)``) was refused since
82c0099b: the row's test had to be the count's limit written out, and the asserted count carried no count to read."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit

SILU = Path(__file__).parent / "data" / "breaker19" / "lmd_silu" / "kernel.py"
COMPUTED = "    BLOCK_SIZE_N = min(BLOCK_SIZE_N, 512)\n"


def _tabled(base: str, rows: str) -> str:
    """``base`` with the table's ``rows`` after the computed block (as ``tune`` writes a table over it)."""
    assert COMPUTED in base
    return base.replace(COMPUTED, COMPUTED + rows)


@pytest.fixture(scope="module")
def silu() -> str:
    return SILU.read_text(encoding="utf-8")


ROW = "    if {}:  # kernelopt: tuned\n        BLOCK_SIZE_N = 128\n"
ASSERT = "    assert grid_size0 < 65536 and grid_size1 < 65536\n"
REBOUND = "    num_stages = 1\n"


@pytest.mark.parametrize(
    ("test", "changes", "row"),
    [
        # l80: cdiv(N, 128) <= 8 under the row: the assert's 65535 is implied, the row written as it is
        ("N <= 1024", {}, "N <= 1024"),
        ("N <= 65535 * 128", {}, "N <= 65535 * 128"),  # the largest N the limit allows at 128: 65535 tiles
        # one past it, and a bound on another size: the count's limit is added to the row (c44's rule for a grid axis)
        ("N <= 65535 * 128 + 1", {}, "N <= 65535 * 128 + 1 and triton.cdiv(N, 128) <= 65535"),
        ("M <= 1024", {}, "M <= 1024 and triton.cdiv(N, 128) <= 65535"),
        # the count as the launch reads it: N rebound after the row (launch_value)
        ("N <= 1024", {REBOUND: REBOUND + "    N = N * 64\n"}, "N <= 1024"),
        (
            "N <= 1024",
            {REBOUND: REBOUND + "    N = N * 65536\n"},
            "N <= 1024 and triton.cdiv((N * 65536), 128) <= 65535",
        ),
        # an assert's bound that is no integer: nothing implies it, and no limit can be written
        ("N <= 1024", {ASSERT: "    assert grid_size0 < num_sm * 16384\n"}, None),
    ],
)
def test_l80_a_row_whose_test_implies_an_asserted_count_s_limit_is_written(
    silu: str, test: str, changes: dict[str, str], row: str | None
) -> None:
    """l80: a row of a smaller tile over a count a host assert bounds (lmd_silu's ``grid_size0 < 65536``) is written
    as it is where its test implies the count at the row's tile (read as the launch reads it) within the assert's
    bound; where it does not, the limit is added to its test, and where the bound is no integer it is refused."""
    for old, new in changes.items():
        assert old in silu
        silu = silu.replace(old, new)
    guarded = guard_edit(silu, _tabled(silu, ROW.format(test)))
    if row is None:
        assert guarded.new_source is None and "a count of tiles bounded from above" in (guarded.note or ""), guarded
    else:
        assert _tabled(silu, ROW.format(row)) == guarded.new_source, guarded.note


@pytest.mark.parametrize(("test", "unchecked"), [("not DIVISIBLE_M", False), ("DIVISIBLE_M", True)])
def test_l81_a_mask_assigned_where_the_flag_fails_is_read_by_the_slow_path(test: str, unchecked: bool) -> None:
    """l81: FlagAttention's combine kernel (breaker19's flag_splitkv) assigns ``mask_m = offs_m < M`` under ``if not
    DIVISIBLE_M:`` and loads with it in the ``else`` of ``if DIVISIBLE_M:``; 49dd38f6 dropped every value assigned
    under an ``if`` naming the flag, that mask too, so the masked loads read as unchecked and the pick's ``BLOCK_M=32``
    was refused ("must divide M"). A value assigned where the flag holds (the test turned, ``if DIVISIBLE_M:``) is
    still no value of the slow path: there the mask is unread and the block unchecked."""
    import libcst as cst

    from kernelopt.tunables.blocks import unchecked_blocks

    text = (SILU.parents[1] / "flag_splitkv" / "kernel.py").read_text(encoding="utf-8")
    assert "    if not DIVISIBLE_M:\n        mask_m = offs_m < M\n" in text
    text = text.replace("    if not DIVISIBLE_M:\n        mask_m", f"    if {test}:\n        mask_m")
    [kernel] = [
        n
        for n in cst.parse_module(text).body
        if isinstance(n, cst.FunctionDef) and n.name.value == "_fwd_combine_kv_splits"
    ]
    assert ("BLOCK_M" in unchecked_blocks(kernel, flags={"DIVISIBLE_M"})) is unchecked  # BLOCK_DMODEL is D itself


UNPACKED = Path(__file__).parent / "data" / "leftovers25" / "unpacked_counts" / "kernel.py"
PAIRED = "    grid_m, n_tiles = triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)\n"


@pytest.mark.parametrize("spelling", ["paired", "two lines"])
def test_l82_a_count_unpacked_beside_a_masked_kernel_s_grid_keeps_its_own_kernel_s_divisor(spelling: str) -> None:
    """l82: ``_grid_nodes`` followed a name an unpacking binds to the whole tuple (a2c745b9's ``_targets``), so
    ``n_tiles``'s count, beside the masked kernel's ``grid_m``, was read as that kernel's grid and the unmasked
    ``sum_tiles``' divisor dropped: ``BLOCK_N = 128`` was written plainly, wrong at N = 192 (two tiles of 128 read 64
    past the end) where the original's three of 64 are right. Each name now takes its own element: the move is
    guarded as the two-line spelling's is."""
    base = UNPACKED.read_text(encoding="utf-8")
    if spelling == "two lines":
        base = base.replace(PAIRED, "    grid_m = triton.cdiv(M, BLOCK_M)\n    n_tiles = triton.cdiv(N, BLOCK_N)\n")
    guarded = guard_edit(base, base.replace("BLOCK_N = 64", "BLOCK_N = 128"))
    assert guarded.tests == ("N % 128 == 0",), guarded.note


@pytest.mark.parametrize(("value", "test"), [(512, None), (256, None), (2048, "n_cols % 2048 == 0")])
def test_l84_a_size_rounded_down_keeps_a_divisor_of_the_original_out(value: int, test: str | None) -> None:
    """l83 (refusals24's Seen line): a size rounded down to whole tiles (``n_whole = n_cols // BLOCK * BLOCK``) that a
    kernel multiplies in int32 took a divisor of the original as holding everywhere, as a size rounded up does: 512
    was written plainly, where 1536 columns round down to 1536, not the original's 1024, so the index ``row * n_whole``
    passes 2**31 at 1.4 million rows, where the original's stays within. A divisor is refused; a multiple rounds down as
    far or further, and is written under the floor's own test (``n_cols // BLOCK``)."""
    base = (Path(__file__).parent / "data" / "leftovers25" / "whole_rows" / "kernel.py").read_text(encoding="utf-8")
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", f"    BLOCK = {value}\n"))
    if test is None:
        assert guarded.new_source is None and "rounded down to whole tiles" in (guarded.note or ""), guarded.note
    else:
        assert guarded.tests == (test,), guarded.note
