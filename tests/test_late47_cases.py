"""late47: the fail-open readings review27 saw and left (docs/faults.md, "Fail-open readings review27 saw"). Each
test failed before its fix."""

from __future__ import annotations

import pytest

from tests.test_wrongkernel30_cases import V149, V149_GRID, V158, _grown


@pytest.mark.parametrize(
    ("grid", "masked"),
    [
        ("    grid = ((n + BLOCK - 1) >> 8,)\n", False),
        ("    grid = ((n + 255) >> 8,)\n", False),
        ("    grid = ((n + BLOCK - 1) // 2**8,)\n", False),
        ("    grid = ((n + BLOCK - 1) >> 8,)\n", True),
    ],
)
def test_v170_a_grid_counted_by_a_constant_refuses_a_changed_tile(grid: str, masked: bool) -> None:
    """v170 (review27's Seen line on v149): a grid counting its programs by a shift that assumes the tile, ``((n +
    BLOCK - 1) >> 8,)`` beside ``BLOCK = 256``, was read as a count of tiles of ``BLOCK`` in a form not read, which
    keeps a divisor of the original: ``BLOCK = 128`` was written plainly, and its ``cdiv(n, 256)`` programs of 128
    lanes cover half of ``n`` (masked or not). ``(n + 255) >> 8`` (no tile named) wrote every tile. The count does
    not move with the tile: any other tile is refused."""
    from kernelopt.tunables.guard import guard_edit

    if masked:  # v158's masked scale on the same grid
        base = (V158 / "kernel.py").read_text(encoding="utf-8")
        base = base.replace("scale_kernel[(triton.cdiv(n, BLOCK),)]", "scale_kernel[((n + BLOCK - 1) >> 8,)]")
    else:
        base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, grid)
    assert guard_edit(base, _grown(base, 512)).new_source is None
    refused = guard_edit(base, _grown(base, 128))
    assert refused.new_source is None and "a grid that counts its programs by a constant" in (refused.note or "")
    scope = {"n": 1024, "BLOCK": 128}  # the launcher's own line at n = 1024: four programs of 128 lanes
    exec(grid.strip(), {}, scope)
    assert scope["grid"][0] * 128 == 512 < 1024


@pytest.mark.parametrize(
    ("check", "module", "past", "within"),
    [
        ("    assert BLOCK in SUPPORTED\n", "SUPPORTED = (128, 256, 512)\n", 2048, 512),
        ("    assert BLOCK <= MOST_LANES, 'one warp group'\n", "MOST_LANES = 1 << 10\n", 2048, 1024),
        ("    torch._assert(BLOCK <= 1024, 'one warp group')\n", "", 2048, 1024),
        ("    torch._assert(BLOCK in SUPPORTED, 'unsupported block')\n", "SUPPORTED = [128, 256]\n", 512, 128),
    ],
)
def test_v171_a_tile_check_against_a_module_constant_or_as_a_call_is_evaluated(
    check: str, module: str, past: int, within: int
) -> None:
    """v171 (review27's Seen line on r73): a host check of the tile against a module constant (``assert BLOCK in
    SUPPORTED``, ``SUPPORTED`` a module tuple) named a value beside the tile and was read by no rule, and
    ``torch._assert(BLOCK <= 1024, ...)`` was no assert to any rule: ``BLOCK = 2048`` was written plainly, failing
    the check wherever the original ran. The module's constant is read into the check, ``torch._assert``'s test is an
    assert's: a tile past it is refused, one within it written."""
    from kernelopt.tunables.guard import guard_edit

    base = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = base.replace('    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n', check)
    base = base.replace("\n\n@triton.jit", f"\n{module}\n\n@triton.jit", 1)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
    assert refused.new_source is None and f"BLOCK={past} fails the check at every size" in (refused.note or "")
    written = base.replace("    BLOCK = 256\n", f"    BLOCK = {within}\n")
    assert guard_edit(base, written).new_source == written


@pytest.mark.parametrize(
    ("unpacked", "stride"),
    [
        ("    _, w1 = ws.shape\n", "w1"),
        ("    rows, w1 = ws.size()\n", "w1"),
        ("    *_, w1 = ws.shape\n", "w1"),
        ("    s0, _ = ws.stride()\n", "s0"),
    ],
)
def test_v172_a_padded_buffer_s_row_length_unpacked_from_its_shape_is_guarded(unpacked: str, stride: str) -> None:
    """v172 (review27's Seen line on r76): wrongkernel30's v155 (pad_rows_shape) with the padded buffer's row length
    unpacked from its shape, ``_, w1 = ws.shape`` then ``w1`` passed as the stride: a tuple unpacked is no binding the
    stride's reading followed, so it was no stride, and ``BLOCK = 4096`` over 1024 was written plainly: at 1025
    columns a row pads to 4096 and ``row * stride`` passes 2**31 from row 524288, where the original's 2048 indexes
    every row up to 1048576 (v117). A name unpacked is read through its whole value: guarded ``n_cols % 4096 == 0``
    as v117 is."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import VARIANTS

    base = (VARIANTS / "pad_rows_shape" / "kernel.py").read_text(encoding="utf-8")
    base = base.replace("    pad_rows[(n_rows", unpacked + "    pad_rows[(n_rows")
    base = base.replace("ws.shape[1], BLOCK=BLOCK)", f"{stride}, BLOCK=BLOCK)")
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
    assert guarded.tests == ("n_cols % 4096 == 0",), guarded.note
    assert guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 512\n")).new_source is not None
