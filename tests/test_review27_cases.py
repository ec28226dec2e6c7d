"""review27: this session's landings reread and tried as a user would (docs/faults.md, "Review, twenty-seventh
round"). Each test failed before its fix."""

from __future__ import annotations

import pytest

#: a file of three launches: ``_scale`` (no loop) twice, ``_rowsum`` (a loop) between them
THREE_LAUNCHES = """import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


@triton.jit
def _rowsum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc))


def kernel(x):
    y = torch.empty_like(x)
    n = x.numel()
    _scale[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=4)
    s = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    _rowsum[(x.shape[0],)](y, s, x.shape[1], BLOCK=256, num_warps=4, num_stages=2)
    z = torch.empty_like(x)
    _scale[(triton.cdiv(n, 512),)](y, z, n, BLOCK=512, num_warps=2)
    return z, s
"""


@pytest.mark.parametrize("rowsum", [True, False])
def test_r70_r71_the_launch_line_counts_the_space_s_knobs_and_names_a_launch_kernel_takes(rowsum: bool) -> None:
    """r70: ``tune``'s line on a file of several launches (l134) counted ``num_stages`` of a loopless kernel as a knob
    (``launches`` without the space's ``looped``), so ``_rowsum`` (3 knobs, the space's pick) tied with ``_scale``
    (2 knobs in the space) and the line said "the one this session was given" where no ``--kernel`` was given.
    r71: its ``--kernel`` example was the other launch's kernel name, which for a kernel launched twice takes the
    first launch again (``--kernel _scale`` tuned ``_scale#1``, the one the line said it tunes); it is now the key
    ``--kernel`` takes that launch by."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.launches import loop_kernels
    from kernelopt.tuning.launch import choice_line, space_from_tunables

    source = THREE_LAUNCHES
    if not rowsum:  # the loop's launch taken out: _scale twice alone
        source = source[: source.index("    s = torch.empty")] + source[source.index("    z = torch") :]
        source = source.replace("return z, s", "return z")
    found = discover_source(source)
    looped = loop_kernels(source)
    space = space_from_tunables(found, looped=looped, source=source)
    line = choice_line(found, space, looped) or ""
    if rowsum:
        assert space.launch == "launch _rowsum (kernel.py:29)"
        assert "this session tunes launch _rowsum (kernel.py:29), the one with the most knobs (3), and leaves " in line
        assert line.endswith("--kernel _scale#1)"), line
        taken = space_from_tunables(found, kernel="_scale#1", looped=looped, source=source)
        assert taken.launch == "launch _scale#1 (kernel.py:27)"
        return
    assert space.launch == "launch _scale#1 (kernel.py:27)"
    assert "tunes launch _scale#1 (kernel.py:27), the first in source order of those with the most knobs (2)" in line
    assert line.endswith("--kernel _scale#2)"), line
    taken = space_from_tunables(found, kernel="_scale#2", looped=looped, source=source)
    assert taken.launch == "launch _scale#2 (kernel.py:29)", taken.launch


#: a masked 2-D scale whose launcher checks its grid's rows and its column tile (``CHECKS``)
SCALE2D = """import torch
import triton
import triton.language as tl


@triton.jit
def scale2d(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK_M = 32
    BLOCK_N = 64
CHECKS
    scale2d[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y
"""


@pytest.mark.parametrize("count_first", [True, False])
def test_r72_a_bound_on_a_tile_after_an_assert_on_a_count_of_another_is_read(count_first: bool) -> None:
    """r72 (wrongkernel30's v158 rule, ``guard._asserted_counts``): reading a count of tiles (``assert
    triton.cdiv(M, BLOCK_M) < 65536``) rebound the function's ``tiles`` (the launches' tiles) to that count's own, so an
    assert after it bounding another tile by itself (``assert BLOCK_N <= 128``) was read against ``BLOCK_M`` alone:
    ``BLOCK_N = 256`` was written plainly, the assert failing at every size where the original's 64 ran. The assert
    before the count was read (both orders now refuse 256 and write 128)."""
    from kernelopt.tunables.guard import guard_edit

    count, bound = "    assert triton.cdiv(M, BLOCK_M) < 65536\n", "    assert BLOCK_N <= 128\n"
    base = SCALE2D.replace("CHECKS\n", count + bound if count_first else bound + count)
    refused = guard_edit(base, base.replace("    BLOCK_N = 64\n", "    BLOCK_N = 256\n"))
    assert refused.new_source is None and "asserts BLOCK_N <= 128, a bound on BLOCK_N itself" in (refused.note or "")
    within = base.replace("    BLOCK_N = 64\n", "    BLOCK_N = 128\n")
    assert guard_edit(base, within).new_source == within


@pytest.mark.parametrize(
    ("check", "past", "within"),
    [
        ("    assert BLOCK in (128, 256)\n", 2048, 128),
        ("    assert BLOCK == 256 or BLOCK == 128\n", 512, 128),  # an ``or``: needed by no link, read whole
        ("    assert BLOCK <= 128 or BLOCK == 256\n", 512, 64),
        ("    if BLOCK not in (128, 256, 512):\n        raise ValueError('unsupported block')\n", 1024, 512),
        ("    assert min(BLOCK, 1024) == BLOCK\n", 2048, 512),
        ("    assert BLOCK in range(64, 1025)\n", 2048, 1024),
        ("    assert BLOCK & (BLOCK - 1) == 0 and BLOCK % 128 == 0\n", 64, 512),
        ("    assert triton.next_power_of_2(BLOCK) == BLOCK\n", 384, 1024),
    ],
)
def test_r73_a_host_check_on_the_tile_by_itself_that_is_no_bound_is_evaluated(
    check: str, past: int, within: int
) -> None:
    """r73 (wrongkernel30's v158: ``assert BLOCK <= 1024`` read, a tile past it refused): a check on the tile by itself
    in any other comparison (``BLOCK in (128, 256)``, ``==``, ``not in`` under ``if ...: raise``, ``min(BLOCK, 1024) ==
    BLOCK``, ``in range(...)``, a power of two, an ``or`` of links) was read by no rule, and ``guard_edit`` wrote a tile that fails it at
    every size plainly (``BLOCK = 2048`` over ``assert BLOCK in (128, 256)``: the AssertionError wherever the original
    ran). Such a comparison, the tile and integers alone, holds at every size or at none: it is evaluated with the new
    tile, which is refused where it fails and written where it passes."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import V158

    base = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = base.replace('    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n', check)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
    assert refused.new_source is None and "a check on BLOCK by itself" in (refused.note or ""), refused.note
    assert f"BLOCK={past} fails the check at every size" in (refused.note or ""), refused.note
    written = base.replace("    BLOCK = 256\n", f"    BLOCK = {within}\n")
    assert guard_edit(base, written).new_source == written


#: v149's grid spelt over a size padded to whole tiles: the count of tiles of an unmasked kernel is cdiv(n, BLOCK)
PADDED_GRID = "    padded = (n + BLOCK - 1) // BLOCK * BLOCK\n    grid = (padded // BLOCK,)\n"


def test_r74_a_grid_over_a_size_padded_to_whole_tiles_of_a_kernel_without_masks_is_guarded_by_that_size() -> None:
    """r74 (wrongkernel30's v149, a sum of squares in whole tiles without masks): its grid spelt ``padded // BLOCK``
    over ``padded = (n + BLOCK - 1) // BLOCK * BLOCK`` was read as no requirement (a size padded to whole tiles: any
    tile divides it), so ``BLOCK = 512`` over 256 was written plainly. Its grid is cdiv(n, BLOCK), v149's own count:
    at n = 768 two programs of 512 lanes read 256 values past the end (the interpreter run of that count in
    ``test_wrongkernel30_cases.py::test_v149_v153_v158_the_plain_writes_are_wrong_in_the_interpreter``), where the
    original's three of 256 read none. Now the tile divides the size padded: guarded ``n % 512 == 0`` (128 written)."""
    import triton

    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import V149, V149_GRID, _grown

    base = (V149 / "kernel.py").read_text(encoding="utf-8").replace(V149_GRID, PADDED_GRID)
    guarded = guard_edit(base, _grown(base, 512))
    assert guarded.tests == ("n % 512 == 0",), guarded.note
    assert "padded // BLOCK programs of a kernel without masks" in (guarded.note or ""), guarded.note
    assert guard_edit(base, _grown(base, 128)).new_source == _grown(base, 128)
    for block, lanes in ((256, 768), (512, 1024)):  # the launcher's own lines at n = 768: the lanes its grid runs
        scope = {"n": 768, "BLOCK": block}
        exec(PADDED_GRID.replace("    ", ""), {}, scope)
        assert scope["grid"] == (triton.cdiv(768, block),) and scope["grid"][0] * block == lanes


@pytest.mark.parametrize(
    "check",
    [
        "    assert n_rows <= 2**31 // BLOCK\n",
        "    assert n_rows < 2**31 // BLOCK, 'the workspace is indexed in int32'\n",
        "    if 2**31 // BLOCK < n_rows:\n        raise ValueError('the workspace is indexed in int32')\n",
    ],
)
def test_r75_a_bound_from_above_that_falls_as_the_tile_grows_keeps_it_to_divisors(check: str) -> None:
    """r75 (wrongkernel30's v157, partials_int32_assert: a workspace of per-lane partials indexed in int32) with its
    bound spelt as the rows the index leaves room for, ``assert n_rows <= 2**31 // BLOCK``: the floor was read as a size
    the tile must divide, guarded ``(2**31) % 512 == 0``, which holds at every size, so ``BLOCK = 512`` over 256 was
    written under it, the assert failing from 2**22 + 1 rows where the original's 256 passes to 2**23. A bound from
    above that divides by the tile falls as it grows: only a divisor of the original holds (128 written)."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import VARIANTS

    base = (VARIANTS / "partials_int32_assert" / "kernel.py").read_text(encoding="utf-8")
    base = base.replace('    assert n_rows * BLOCK < 2**31, "the workspace is indexed in int32"\n', check)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert refused.new_source is None and "a bound that falls as BLOCK grows" in (refused.note or ""), refused.note
    within = base.replace("    BLOCK = 256\n", "    BLOCK = 128\n")
    assert guard_edit(base, within).new_source == within
    rows = 2**22 + 1  # the original's bound passes there, 512's does not
    assert rows <= 2**31 // 256 and not rows <= 2**31 // 512


@pytest.mark.parametrize("stride", ["len(ws[0])", "ws[0].numel()", "ws.numel() // n_rows", "int(n_pad)"])
def test_r76_a_padded_buffer_s_row_length_in_any_spelling_is_guarded(stride: str) -> None:
    """r76 (wrongkernel30's v155, pad_rows_shape: the padded buffer's row stride passed as ``ws.shape[1]``, read since
    as the buffer's): spelt ``len(ws[0])``, ``ws[0].numel()``, ``ws.numel() // n_rows`` or ``int(n_pad)`` it was read
    as no stride, and ``BLOCK = 4096`` over 1024 was written plainly: at 1025 columns a row pads to 4096 and ``row *
    stride`` passes 2**31 from row 524288, where the original's 2048 indexes every row up to 1048576 (v117). Any
    spelling is now read through the names it holds: guarded ``n_cols % 4096 == 0`` as v117 is."""
    from kernelopt.tunables.guard import guard_edit
    from tests.test_wrongkernel30_cases import VARIANTS

    base = (VARIANTS / "pad_rows_shape" / "kernel.py").read_text(encoding="utf-8")
    base = base.replace("ws.shape[1], BLOCK=BLOCK)", f"{stride}, BLOCK=BLOCK)")
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
    assert guarded.tests == ("n_cols % 4096 == 0",), guarded.note
    assert 524288 * 4096 >= 2**31 > 1048575 * 2048  # the rows each tile's padding indexes within int32


@pytest.mark.parametrize("order", [("0.0", 'float("-inf")'), ('float("-inf")', "0.0")])
def test_r77_a_fill_named_by_a_module_constant_is_a_value_the_text_may_fix(order: tuple[str, str]) -> None:
    """r77 (fill12's rule, perf29's answers kept by the kernel's text): rowmax_fast1's row max with its masked-out
    lanes loaded as ``other=FILL`` over a module constant ``FILL = 0.0`` read the fill as data, so the evidence a session
    has (the original ran masked-out lanes at 200 columns and passed) lifted the fill rule, and n58's table (``BLOCK =
    1024`` up to 1000 columns) was written, wrong at 2 and 4 columns of negatives (0 returned, test_fill12's
    interpreter run of the same table). A name the kernel does not bind is the module's, a value its text may fix: the
    rule holds, and the answer, kept by the kernel's text alone, is the same for ``FILL = float("-inf")`` in either
    order in one process (a reading of the constant would have made it depend on text outside the key)."""
    from kernelopt.tunables.guard import BY_DATA_FILL, guard_edit
    from tests.test_fill12_cases import DATA, LAMBDA, TABLE

    base = (DATA / "variants" / "rowmax_fast1" / "kernel.py").read_text().replace("other=0.0", "other=FILL")
    for fill in order:
        text = base.replace("@triton.heuristics", f"FILL = {fill}\n\n\n@triton.heuristics", 1)
        refused = guard_edit(text, text.replace(LAMBDA, TABLE), ran_masked={("BLOCK", 'args["n_cols"]')})
        assert refused.new_source is None and BY_DATA_FILL in (refused.note or ""), (fill, refused.note)
