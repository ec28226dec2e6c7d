"""wrongkernel30: the grid of a kernel without masks whose count of tiles kernelopt does not read is unknown, not
unbounded (``cdiv`` imported under another name, ``getattr(triton, "cdiv")``, a ``*`` splat, a division rounded by
``int``, ``len(range(...))``, a loop counting tiles, a helper of another module: v149): the tile keeps to divisors of
the original, any other move refused; a host check of a count of tiles read as no check (``assert all(g < 65536 for g
in grid)``, ``not any(...)``, ``if ...: raise``) or a count computed in a form not read (``getattr(triton,
"cdiv")``, ``cdiv`` aliased) refuses the tile a move (v150) (docs/faults.md, "Wrong written kernels, thirtieth
hunt")."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel17_cases import VARIANTS

V149 = VARIANTS / "grid_cdiv_alias"
V149_GRID = "    grid = (ceil_tiles(n, BLOCK),)\n"


def _grown(text: str, value: int) -> str:
    return text.replace("    BLOCK = 256\n", f"    BLOCK = {value}\n")


@pytest.mark.parametrize(
    ("imported", "grid"),
    [
        ("", V149_GRID),
        ("", "    grid = (getattr(triton, 'cdiv')(n, BLOCK),)\n"),
        ("", "    sizes = (n, BLOCK)\n    grid = (triton.cdiv(*sizes),)\n"),
        ("", "    grid = (int((n + BLOCK - 1) / BLOCK),)\n"),
        ("", "    grid = (len(range(0, n, BLOCK)),)\n"),
        ("", "    tiles = 0\n    for _ in range(0, n, BLOCK):\n        tiles += 1\n    grid = (tiles,)\n"),
        ("from kernel_grids import grid_of\n", "    grid = grid_of(n, BLOCK)\n"),
        ("import functools\n", "    grid = (functools.partial(triton.cdiv, n)(BLOCK),)\n"),
    ],
    ids=["alias", "getattr", "splat", "int-division", "len-range", "loop", "other-module", "partial"],
)
def test_v149_an_unread_count_of_a_kernel_without_masks_keeps_the_tile_to_divisors(imported: str, grid: str) -> None:
    """v149 (grid_cdiv_alias): before, each spelling's grid was read as no count of tiles and ``BLOCK = 512`` over
    256 was written plainly (main e24173de), its two programs reading 256 values past the end at n = 768; now the
    grid's value names the tile though no count of it is read, so the move is refused and a divisor (128) is still
    written plainly."""
    base = (V149 / "kernel.py").read_text(encoding="utf-8")
    assert V149_GRID in base
    base = base.replace(V149_GRID, grid).replace("from triton import cdiv as ceil_tiles\n", imported)
    refused = guard_edit(base, _grown(base, 512))
    assert refused.new_source is None, refused.new_source
    assert "BLOCK=512 does not divide" in (refused.note or "") and "in a form kernelopt does not read" in (
        refused.note or ""
    ), refused.note
    assert guard_edit(base, _grown(base, 128)).new_source == _grown(base, 128)


def test_v149_a_read_grid_is_still_guarded_by_its_size() -> None:
    """``triton.cdiv(n, BLOCK)`` (and ``-(n // -BLOCK)``, now read as the same ceiling) is read: ``BLOCK = 512`` is
    written where 512 divides ``n``, not refused."""
    base = (V149 / "kernel.py").read_text(encoding="utf-8")
    for grid in ("    grid = (triton.cdiv(n, BLOCK),)\n", "    grid = (-(n // -BLOCK),)\n"):
        text = base.replace(V149_GRID, grid)
        guarded = guard_edit(text, _grown(text, 512))
        assert guarded.tests == ("n % 512 == 0",), guarded.note


def test_v149_v153_v158_v162_the_plain_writes_are_wrong_in_the_interpreter(tmp_path: Path) -> None:
    """What the refusals prevent, run in Triton's interpreter: at n = 768 (a size v149's original 256 handles in
    three whole tiles) the plainly written ``BLOCK = 512`` launches two programs that read 256 values past the end;
    over a view of a longer buffer those values are summed in, where the original's sum is right. v153's
    ``BLOCK_N = 128`` at 3 x 192 (the original's 64 covers each row in three tiles) sums each row's second tile 64
    values into the next row, and v162's ``while`` loop of ``BLOCK_K = 128`` chunks the same. v158's ``BLOCK = 2048``
    fails its launcher's assert at n = 768, which the original's 256 scales right."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (V149 / "kernel.py").read_text(encoding="utf-8")
    buffer = torch.full((1024,), 100.0)
    buffer[:768] = torch.linspace(-1.0, 1.0, 768)
    x = buffer[:768]
    want = float((x * x).sum())
    got = {}
    with triton_interpreted():
        for block in (256, 512):
            path = tmp_path / f"kernel_{block}.py"
            path.write_text(_grown(base, block), encoding="utf-8")
            got[block] = float(load_fresh(path, f"_wk30_v149_{block}").run(x)[0])
        v153 = (V153 / "kernel.py").read_text(encoding="utf-8")
        rows = torch.arange(3 * 192 + 64, dtype=torch.float32) % 7
        matrix = rows[: 3 * 192].view(3, 192)  # the last row's second tile reads the 64 values after it
        sums: dict[object, torch.Tensor] = {}
        for block in (64, 128):
            path = tmp_path / f"rowsum_{block}.py"
            path.write_text(v153.replace("    BLOCK_N = 64\n", f"    BLOCK_N = {block}\n"), encoding="utf-8")
            sums[block] = load_fresh(path, f"_wk30_v153_{block}").run(matrix)
        v158 = (V158 / "kernel.py").read_text(encoding="utf-8")
        checked = {}
        for block in (256, 2048):
            path = tmp_path / f"scale_{block}.py"
            path.write_text(v158.replace("    BLOCK = 256\n", f"    BLOCK = {block}\n"), encoding="utf-8")
            try:
                checked[block] = load_fresh(path, f"_wk30_v158_{block}").run(x)
            except AssertionError as e:
                checked[block] = e
        v162 = (VARIANTS / "rowsum_while_step" / "kernel.py").read_text(encoding="utf-8")
        for block in (64, 128):
            path = tmp_path / f"while_{block}.py"
            path.write_text(v162.replace("    BLOCK_K = 64\n", f"    BLOCK_K = {block}\n"), encoding="utf-8")
            sums[f"while {block}"] = load_fresh(path, f"_wk30_v162_{block}").run(matrix)
    assert got[256] == pytest.approx(want, rel=1e-5)
    assert got[512] == pytest.approx(want + 256 * 100.0**2, rel=1e-5)
    assert torch.equal(checked[256], x * 2.0) and isinstance(checked[2048], AssertionError), checked
    spill = rows[192:].unfold(0, 64, 192)[:3].sum(dim=1)  # the 64 values after each row
    assert torch.equal(sums[64], matrix.sum(dim=1)) and torch.equal(sums["while 64"], matrix.sum(dim=1))
    assert torch.equal(sums[128], matrix.sum(dim=1) + spill), sums
    assert torch.equal(sums["while 128"], matrix.sum(dim=1) + spill), sums


V150 = VARIANTS / "grid_assert_all"
V150_CHECK = "    assert all(g < 65536 for g in grid)\n"
V150_COUNT = "    grid_size0 = triton.cdiv(N, BLOCK_SIZE_N)\n"
COMPUTED = "    BLOCK_SIZE_N = min(BLOCK_SIZE_N, 512)\n"
ROW = "    if N <= 2 ** 24:  # kernelopt: tuned\n        BLOCK_SIZE_N = 16\n"


def test_v150_a_smaller_tile_fails_the_grid_s_check_where_the_original_passed() -> None:
    """The arithmetic the refusal stands on: at N = 2**24 the original's 512 launches 32768 programs on the first
    axis, under the check's 65536; the row's 16 launches 1048576 and the check fails (an ``AssertionError`` or the
    ``raise`` where the original ran)."""
    cdiv = lambda n, b: -(-n // b)  # noqa: E731
    grid = lambda b: (cdiv(2**24, b), 64)  # noqa: E731
    assert all(g < 65536 for g in grid(512)) and not all(g < 65536 for g in grid(16))


@pytest.mark.parametrize(
    ("check", "count"),
    [
        (V150_CHECK, V150_COUNT),
        ("    assert all([g < 65536 for g in grid])\n", V150_COUNT),
        ("    assert not any(g >= 65536 for g in grid)\n", V150_COUNT),
        ("    if max(grid) >= 65536:\n        raise ValueError('grid too large')\n", V150_COUNT),
        ("    assert grid_size0 < 65536\n", "    grid_size0 = getattr(triton, 'cdiv')(N, BLOCK_SIZE_N)\n"),
        ("    assert grid_size0 < 65536\n", "    grid_size0 = ceil_tiles(N, BLOCK_SIZE_N)\n"),
    ],
    ids=["all-generator", "all-list", "not-any", "raise", "getattr-cdiv", "aliased-cdiv"],
)
def test_v150_a_check_or_count_in_a_form_not_read_refuses_a_smaller_tile(check: str, count: str) -> None:
    """v150 (grid_assert_all): before, each spelling gave no bound (the comparison inside ``all`` or ``any`` was
    needed by no conjunct; an ``if ...: raise`` was no check; ``getattr(triton, "cdiv")`` and ``cdiv`` under another
    name no count), and the table's row ``if N <= 2 ** 24: BLOCK_SIZE_N = 16`` was written plainly (main e24173de),
    failing the check at N = 2**24; now the move is refused."""
    base = (V150 / "kernel.py").read_text(encoding="utf-8")
    assert V150_CHECK in base and V150_COUNT in base
    base = base.replace(V150_CHECK, check).replace(V150_COUNT, count)
    if "ceil_tiles" in count:
        base = base.replace("import functools\n", "import functools\nfrom triton import cdiv as ceil_tiles\n")
    guarded = guard_edit(base, base.replace(COMPUTED, COMPUTED + ROW))
    assert guarded.new_source is None, guarded.new_source
    assert "BLOCK_SIZE_N=16" in (guarded.note or "") and "a bound on a value counted from tiles" in (guarded.note or "")


def test_v150_a_raise_on_a_read_count_guards_the_row_by_its_limit() -> None:
    """``if grid_size0 >= 65536: raise ...`` over ``grid_size0 = triton.cdiv(N, BLOCK_SIZE_N)`` is read as the
    assert it is: the row is written with the count's limit (leftovers25's l80 rule), not refused."""
    base = (V150 / "kernel.py").read_text(encoding="utf-8")
    base = base.replace(V150_CHECK, "    if grid_size0 >= 65536:\n        raise ValueError('grid too large')\n")
    guarded = guard_edit(base, base.replace(COMPUTED, COMPUTED + ROW))
    assert guarded.new_source == base.replace(
        COMPUTED, COMPUTED + ROW.replace("N <= 2 ** 24", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535")
    ), guarded.note


V151 = "bp_int8_shape_local"
V151_SHAPES = "    a_block = (BLOCK_M, BLOCK_K)\n    b_block = (BLOCK_K, BLOCK_N)\n"


@pytest.mark.parametrize(
    "shapes",
    [
        V151_SHAPES,
        "    a_block = (BLOCK_M, BLOCK_K) if ACC == tl.int32 else (BLOCK_M, BLOCK_K)\n    b_block = (BLOCK_K, BLOCK_N)\n",
        "    a_block = [BLOCK_M, BLOCK_K]\n    a_block = (BLOCK_M, BLOCK_K)\n    b_block = (BLOCK_K, BLOCK_N)\n",
    ],
    ids=["local", "conditional", "bound-twice"],
)
def test_v151_a_block_shape_bound_to_a_local_keeps_the_dot_s_k_floor(shapes: str) -> None:
    """v151 (bp_int8_shape_local: v141's block-pointer GEMM with ``block_shape=a_block`` over ``a_block = (BLOCK_M,
    BLOCK_K)``): ``crossed_ranges`` read a shape bound to a local as no shape, so ``BLOCK_K`` was no dot's K and
    ``tunables --set BLOCK_K=16`` of 32 was legal (main e24173de). A local bound once is read through; a shape not
    read (a conditional, a local bound twice) is unknown, each constexpr it names taken as K: the floor holds. The
    text so written fails the int8 dot in the interpreter as v141's does (``test_v138_v141_...``: the same kernel,
    its shapes written in place)."""
    from kernelopt.tunables import discover_source

    base = (VARIANTS / V151 / "kernel.py").read_text(encoding="utf-8")
    assert V151_SHAPES in base
    knobs = {t.key: t for t in discover_source(base.replace(V151_SHAPES, shapes))}
    legal_k = knobs["bp_matmul:BLOCK_K"].legality
    assert legal_k is not None and "must be >= 32" in (legal_k.problem(16) or ""), legal_k
    assert legal_k.problem(64) is None


V152 = VARIANTS / "desc_kernel_local"
V152_SHAPE = "    block = (BLOCK_M, BLOCK_N)\n"


@pytest.mark.parametrize(
    "shape",
    [
        V152_SHAPE,
        "    block = (BLOCK_M, BLOCK_N) if M > 0 else (BLOCK_M, BLOCK_N)\n",
        "    block = (BLOCK_M, BLOCK_N * 2 // 2)\n",
    ],
    ids=["local", "conditional", "computed-side"],
)
def test_v152_a_descriptor_shape_bound_to_a_kernel_local_keeps_its_last_side_s_bytes(shape: str) -> None:
    """v152 (desc_kernel_local: v118's device-side descriptors made on ``block_shape=block`` over ``block = (BLOCK_M,
    BLOCK_N)``): the kernel's descriptors were read only where the shape is written in place, so ``BLOCK_N`` was no
    descriptor's last side and ``tunables --set BLOCK_N=4`` of 8 was legal (main e24173de). A local bound once is read
    through; a shape or side not read is unknown, the knob held at the original's value."""
    from kernelopt.tunables import discover_source

    base = (V152 / "kernel.py").read_text(encoding="utf-8")
    assert V152_SHAPE in base
    side = next(t for t in discover_source(base.replace(V152_SHAPE, shape)) if t.key == "scale_kernel:BLOCK_N")
    assert side.legality is not None and "must be >= 8" in (side.legality.problem(4) or ""), side.legality
    assert side.legality.problem(8) is None and side.legality.problem(16) is None


def test_v152_the_set_text_is_refused_by_triton_under_bf16_in_the_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the floor prevents, in the interpreter: at 33 x 40 in bf16, which the original's ``BLOCK_N = 8`` scales
    right, ``BLOCK_N = 4`` makes a descriptor of 8 bytes in its last dimension, which Triton refuses ("at least 16
    bytes"), as a GPU compile does."""
    import torch

    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    base = (V152 / "kernel.py").read_text(encoding="utf-8")
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    bf16 = {"M": 33, "N": 40, "dtype": "bfloat16"}
    for value, right in ((8, True), (4, False)):
        (tmp_path / f"k{value}.py").write_text(base.replace("    BLOCK_N = 8\n", f"    BLOCK_N = {value}\n"))
        with triton_interpreted():
            got = gpu_correct.correct_on_device(
                V152, [bf16], lambda ran: bool(torch.equal(ran.got, ran.want)), kernel_py=tmp_path / f"k{value}.py"
            )
        verdict = got["M=33,N=40,dtype=bfloat16"]
        assert (verdict is True) is right and (right or "at least 16 bytes" in str(verdict)), (value, got)


V153 = VARIANTS / "rowsum_cols_intdiv"
V153_GRID = "    grid = (triton.cdiv(n_rows, BLOCK_M), int((n_cols + BLOCK_N - 1) / BLOCK_N))\n"


@pytest.mark.parametrize(
    "grid",
    [
        V153_GRID,
        "    grid = (triton.cdiv(n_rows, BLOCK_M), getattr(triton, 'cdiv')(n_cols, BLOCK_N))\n",
        "    grid = (triton.cdiv(n_rows, BLOCK_M), len(range(0, n_cols, BLOCK_N)))\n",
    ],
    ids=["int-division", "getattr", "len-range"],
)
def test_v153_an_unread_count_of_a_block_the_masks_leave_unchecked_is_refused(grid: str) -> None:
    """v153 (rowsum_cols_intdiv: rows masked, columns not, the columns' count ``int((n_cols + BLOCK_N - 1) /
    BLOCK_N)``): ``BLOCK_N = 128`` over 64 was written plainly (main e24173de), read as no count; the rule of v149
    holds for a block a masked kernel leaves unchecked: refused. (A smaller block was refused before: a grid's axis
    whose count no rule reads is held to cover as the original's.)"""
    base = (V153 / "kernel.py").read_text(encoding="utf-8")
    assert V153_GRID in base
    base = base.replace(V153_GRID, grid)
    refused = guard_edit(base, base.replace("    BLOCK_N = 64\n", "    BLOCK_N = 128\n"))
    assert refused.new_source is None, refused.new_source
    assert "whose accesses leave BLOCK_N unchecked" in (refused.note or ""), refused.note


@pytest.mark.parametrize(
    ("folder", "change"),
    [
        ("pad_rows_hinted", None),
        ("pad_rows_hinted", ("stride_row = tl.multiple_of(stride, 16)", "stride_row = stride")),
        ("pad_rows_shape", None),
        ("pad_rows_shape", ("ws.shape[1]", "ws.size(1)")),
        ("pad_rows_shape", ("    pad_rows[", "    strides = ws.stride()\n    pad_rows[")),
    ],
    ids=["hinted", "kernel-alias", "shape", "size", "stride-tuple"],
)
def test_v154_v155_a_padded_stride_multiplied_or_passed_in_a_form_not_read_is_guarded(
    folder: str, change: tuple[str, str] | None
) -> None:
    """v154 (pad_rows_hinted: the kernel multiplies ``stride_row = tl.multiple_of(stride, 16)``, or ``stride_row =
    stride``) and v155 (pad_rows_shape: the launch passes ``ws.shape[1]``, ``ws.size(1)`` or ``strides[0]`` of
    ``strides = ws.stride()`` for the padded row stride): ``guard_edit`` wrote ``BLOCK = 4096`` over 1024 plainly
    (main e24173de), a stride read as never multiplied or as no size; at 1025 columns a row pads to 4096 and ``row *
    stride`` passes 2**31 from row 524288, where the original's 2048 indexes every row up to 1048576. Now the
    multiplication is followed through the kernel's locals and the buffer's size read as its making's: guarded
    where 4096 divides the columns (it pads nothing there), a divisor of the original (512) not held by it."""
    from tests.test_wrongkernel26_cases import PADDED
    from tests.test_wrongkernel28_cases import _first_wrapped_row

    assert _first_wrapped_row(1025, 4096) < _first_wrapped_row(1025, 1024) == 1048576
    base = (VARIANTS / folder / "kernel.py").read_text(encoding="utf-8")
    if change is not None:
        assert change[0] in base
        base = base.replace(*change)
        if change[1].startswith("    strides"):
            base = base.replace("ws.shape[1]", "strides[0]")
    for grown in (2048, 4096):
        guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", f"    BLOCK = {grown}\n"))
        assert guarded.tests == (f"n_cols % {grown} == 0",), guarded.note
        assert PADDED.replace("(row * stride)", "") in (guarded.note or ""), guarded.note
    halved = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 512\n")).note or ""
    assert "a size padded to whole tiles" not in halved, "a divisor of the original pads within it"


V156 = VARIANTS / "two_pass_counted_up"
V156_COUNTED = "    programs = 0\n    programs += n_tiles\n"


@pytest.mark.parametrize(
    "counted",
    [
        V156_COUNTED,
        "    if (programs := n_tiles) == 0:\n        return z\n",
        "    for programs in (n_tiles,):\n        pass\n",
    ],
    ids=["augmented", "walrus", "loop-variable"],
)
def test_v156_a_count_a_masked_grid_shares_with_an_unmasked_one_through_another_binding_is_kept(counted: str) -> None:
    """v156 (two_pass_counted_up: ``n_tiles = triton.cdiv(n, BLOCK)`` the grid of a masked scale and, through
    ``programs = 0; programs += n_tiles`` (or a walrus, a loop's variable), of an unmasked finishing pass):
    ``_grid_nodes`` followed plain assignments alone, so the count was taken for the masked kernel's only and
    dropped, and ``BLOCK = 512`` over 256 was written plainly (main e24173de): at n = 768 its two finishing programs
    cover 1024 values, 256 past the end, where the original's three cover 768. The unmasked kernel's grid is now
    followed through every binding: guarded ``n % 512 == 0``."""
    cdiv = lambda n, b: -(-n // b)  # noqa: E731
    assert cdiv(768, 256) * 256 == 768 < cdiv(768, 512) * 512
    base = (V156 / "kernel.py").read_text(encoding="utf-8")
    assert V156_COUNTED in base
    base = base.replace(V156_COUNTED, counted)
    guarded = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert guarded.tests == ("n % 512 == 0",), guarded.note


V157 = VARIANTS / "partials_int32_assert"


def test_v157_a_bound_on_a_product_of_a_size_and_the_tile_refuses_a_larger_tile() -> None:
    """v157 (partials_int32_assert: ``assert n_rows * BLOCK < 2**31`` over a workspace indexed in int32): the bound, a
    power, was read as no integer and the product as no count, so ``BLOCK = 512`` over 256 was written plainly (main
    e24173de), failing the assert at 2**22 rows where the original passes; now refused, a divisor (128) written. v148's
    ``assert max(grid) < 2 ** 16`` (its bound a power) refuses its row as ``< 65536`` does."""
    assert 2**22 * 256 < 2**31 <= 2**22 * 512
    base = (V157 / "kernel.py").read_text(encoding="utf-8")
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert refused.new_source is None and "a bound on a product of BLOCK" in (refused.note or ""), refused.note
    halved = base.replace("    BLOCK = 256\n", "    BLOCK = 128\n")
    assert guard_edit(base, halved).new_source == halved
    v148 = (VARIANTS / "grid_assert_max" / "kernel.py").read_text(encoding="utf-8")
    v148 = v148.replace("    assert max(grid) < 65536\n", "    assert max(grid) < 2 ** 16\n")
    assert guard_edit(v148, v148.replace(COMPUTED, COMPUTED + ROW)).new_source is None


V158 = VARIANTS / "block_assert_most"


@pytest.mark.parametrize(
    ("check", "past", "within"),
    [
        ('    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n', 2048, (512, 128)),
        ("    assert BLOCK * 4 <= 4096\n", 2048, (512, 128)),
        ("    if BLOCK > 1024:\n        raise ValueError('BLOCK past 1024')\n", 2048, (512, 128)),
        ("    assert BLOCK < 2 ** 10\n", 1024, (128,)),
        ("    assert 128 <= BLOCK <= 1024\n", 64, (512, 128)),
    ],
    ids=["assert", "times-integer", "raise", "power-bound", "from-below"],
)
def test_v158_a_host_check_bounding_the_tile_itself_refuses_a_tile_past_it(
    check: str, past: int, within: tuple[int, ...]
) -> None:
    """v158 (block_assert_most: ``assert BLOCK <= 1024`` beside ``BLOCK = 256`` over a masked kernel): a bound on the
    tile itself was read by no rule (discovery's legality reads no host check), so ``BLOCK = 2048`` was written
    (main e24173de), failing the assert at every size the original ran; a tile within the bound (512) is right and
    written plainly. A bound not read (``2 ** 10``) is unknown: a divisor of the original holds, 512 refused; a
    floor (``128 <= BLOCK``) refuses 64."""
    base = (V158 / "kernel.py").read_text(encoding="utf-8")
    base = base.replace('    assert BLOCK <= 1024, "the kernel keeps a block to 1024 lanes"\n', check)
    refused = guard_edit(base, base.replace("    BLOCK = 256\n", f"    BLOCK = {past}\n"))
    assert refused.new_source is None and "a bound on BLOCK itself" in (refused.note or ""), refused.note
    for value in within:
        written = base.replace("    BLOCK = 256\n", f"    BLOCK = {value}\n")
        assert guard_edit(base, written).new_source == written


SPLIT_AXIS = """import torch
import triton
import triton.language as tl


@triton.jit
def part_scale(x_ptr, ws_ptr, n, BLOCK: tl.constexpr, SPLIT: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    part = tl.program_id(1)
    tl.store(ws_ptr + part * n + offs, tl.load(x_ptr + offs) * part)


def run(x):
    n = x.numel()
    BLOCK = 256
    SPLIT = 4
    ws = torch.empty(SPLIT, n, device=x.device, dtype=x.dtype)
    grid = GRID
    part_scale[grid](x, ws, n, BLOCK=BLOCK, SPLIT=SPLIT)
    return ws
"""


@pytest.mark.parametrize(
    "grid",
    ["(triton.cdiv(n, BLOCK), SPLIT)", "lambda meta: (triton.cdiv(n, meta['BLOCK']), meta['SPLIT'])"],
    ids=["tuple", "lambda"],
)
def test_v149_a_tile_on_a_grid_axis_of_its_own_is_that_axis_s_count(grid: str) -> None:
    """The rule of v149 leaves a tile that is a grid's axis itself (``SPLIT`` of ``(triton.cdiv(n, BLOCK), SPLIT)``):
    that axis's count, read; ``SPLIT = 8`` over 4 is written plainly as before (a first draft refused it)."""
    base = SPLIT_AXIS.replace("GRID", grid)
    moved = base.replace("    SPLIT = 4\n", "    SPLIT = 8\n")
    assert guard_edit(base, moved).new_source == moved


@pytest.mark.parametrize(
    "change",
    [None, ("    mask = (cols", "    total = M * N\n    mask = (cols"), ("(offs < numel)", "(numel > offs)")],
    ids=["numel-argument", "local-total", "swapped"],
)
def test_v159_a_flat_mask_whose_size_is_not_read_as_rows_times_width_keeps_the_rows_tile_to_divisors(
    change: tuple[str, str] | None,
) -> None:
    """v159 (rows_flat_numel: v124's flat int32 index masked by ``offs < numel``, ``numel = x.numel()`` passed as
    one argument, or a local ``total = M * N``): ``_flat_masks`` read a flat size only as a product of two parameters,
    so ``ROWS = 128`` over 16 was written under the tile's numel guard alone (main e24173de), its last tile's padded
    rows wrapping past 2**31 at 10526880 x 204 (v124's arithmetic) where the original's pad none; now refused, a
    divisor (8) written."""
    from tests.test_wrongkernel26_cases import _v124_wrapped_lanes

    assert _v124_wrapped_lanes(16) == 0 < _v124_wrapped_lanes(128)
    base = (VARIANTS / "rows_flat_numel" / "kernel.py").read_text(encoding="utf-8")
    if change is not None:
        base = base.replace(*change)
        if change[1].startswith("    total"):
            base = base.replace("(offs < numel)", "(offs < total)")
    refused = guard_edit(base, base.replace("    ROWS = 16\n", "    ROWS = 128\n"))
    assert refused.new_source is None and "is masked by the flat size" in (refused.note or ""), refused.note
    halved = base.replace("    ROWS = 16\n", "    ROWS = 8\n")
    assert guard_edit(base, halved).new_source == halved


def test_v160_a_tile_whose_sides_two_statements_lay_is_read_as_a_tile() -> None:
    """v160 (rows_flat_split: v124's index built in two statements, ``row_start = rows[:, None] * N`` then ``offs =
    row_start + cols[None, :]``): no one statement laid both sides, so neither the tile's numel limit nor the flat
    mask's wrap was read and ``ROWS = 128`` over 16 was written plainly (main e24173de): from N = 8193 its tile of 128
    x 16384 values passes Triton's 1048576 (the original's 16 x 16384 does not), and past M = 10526880 its index
    wraps. The locals carry their axes now: guarded as v124 is."""
    assert 128 * 16384 > 1048576 >= 16 * 16384
    base = (VARIANTS / "rows_flat_split" / "kernel.py").read_text(encoding="utf-8")
    guarded = guard_edit(base, base.replace("    ROWS = 16\n", "    ROWS = 128\n"))
    assert guarded.tests == ("M % 128 == 0 and N <= 1048576 // 128",), guarded.note


V161_TILE = "    tile = (BLOCK_M, BLOCK_N)\n"


@pytest.mark.parametrize(
    ("tile", "shape"),
    [
        (V161_TILE, "list(tile)"),
        ("    block = [BLOCK_M, BLOCK_N] if M > 0 else [BLOCK_M, BLOCK_N]\n", "block"),
        ("    block = [BLOCK_M, BLOCK_M]\n    block = [BLOCK_M, BLOCK_N]\n", "block"),
        ("    bm, bn = BLOCK_M, BLOCK_N\n", "[bm, bn]"),
        ("    sides = (BLOCK_M, BLOCK_N)\n", "[*sides]"),
    ],
    ids=["list-of-tuple", "conditional", "bound-twice", "paired-locals", "splat"],
)
def test_v161_a_host_descriptor_shape_in_a_form_not_read_keeps_its_last_side_s_bytes(tile: str, shape: str) -> None:
    """v161 (desc_host_list: v122's host descriptors made on ``list(tile)`` of ``tile = (BLOCK_M, BLOCK_N)``; also a
    conditional shape, one bound twice, paired locals, a splat): ``_hosted_sides`` read a shape written as a list or
    a local bound once to one, so ``BLOCK_N`` was no descriptor's last side and ``tunables --set BLOCK_N=4`` of 8 was
    legal (main e24173de); in bf16, which the original scales, Triton refuses a 4-wide side ("at least 16 bytes",
    v122's interpreter run of the same kernel). ``list(...)`` of a tuple is read now (``BLOCK_M`` free as before); a
    shape not read holds each name it may hold at the original's value."""
    from kernelopt.tunables import discover_source

    base = (VARIANTS / "desc_host_list" / "kernel.py").read_text(encoding="utf-8")
    assert V161_TILE in base
    base = base.replace(V161_TILE, tile).replace("list(tile)", shape)
    knobs = {t.key: t for t in discover_source(base)}
    side = knobs["scale_kernel:BLOCK_N"].legality
    assert side is not None and "must be >= 8" in (side.problem(4) or ""), side
    assert side.problem(8) is None and side.problem(16) is None
    if shape == "list(tile)":
        assert knobs["scale_kernel:BLOCK_M"].legality.problem(16) is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "loop",
    [
        None,
        "    step = BLOCK_K\n    for k in range(0, K, step):\n",
        "    for k in range(0, K, max(BLOCK_K, 16)):\n",
    ],
    ids=["while", "step-local", "step-unread"],
)
def test_v162_a_loop_over_loads_without_masks_stepped_in_a_form_not_read_keeps_the_step_dividing(
    loop: str | None,
) -> None:
    """v162 (rowsum_while_step: ``k = 0; while k < K: ...; k += BLOCK_K`` over loads without masks; also a ``for``
    stepping by a local ``step = BLOCK_K``): read by no rule, ``BLOCK_K = 128`` over 64 was written plainly (main
    e24173de), its second chunk reading 64 values of the next row at K = 192. The ``while`` is read as ``range(k, K,
    BLOCK_K)`` and the step through the local: guarded ``K % 128 == 0``; a step in a form not read naming the block
    keeps it to divisors of the original (refused)."""
    base = (VARIANTS / "rowsum_while_step" / "kernel.py").read_text(encoding="utf-8")
    if loop is not None:
        base = base.replace("    k = 0\n    while k < K:\n", loop).replace("        k += BLOCK_K\n", "")
    guarded = guard_edit(base, base.replace("    BLOCK_K = 64\n", "    BLOCK_K = 128\n"))
    if loop is not None and "max(" in loop:
        assert guarded.new_source is None and "in a form kernelopt does not read" in (guarded.note or "")
    else:
        assert guarded.tests == ("K % 128 == 0",), guarded.note
    halved = base.replace("    BLOCK_K = 64\n", "    BLOCK_K = 32\n")
    assert guard_edit(base, halved).new_source == halved


ROWS_MASKED = """import torch
import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, y_ptr, M, K, ROWS: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    acc = tl.zeros((ROWS, BLOCK_K), dtype=tl.float32)
    for k in range(0, K, max(BLOCK_K, 16)):
        offs = rows[:, None] * K + k + tl.arange(0, BLOCK_K)[None, :]
        acc += tl.load(x_ptr + offs, mask=(rows < M)[:, None], other=0.0)
    tl.store(y_ptr + rows, tl.sum(acc, axis=1), mask=rows < M)


def run(x):
    M, K = x.shape
    y = torch.empty(M, device=x.device, dtype=torch.float32)
    ROWS = 16
    BLOCK_K = 64
    row_sum[(triton.cdiv(M, ROWS),)](x, y, M, K, ROWS=ROWS, BLOCK_K=BLOCK_K)
    return y
"""


def test_v162_a_masked_kernel_s_unchecked_block_stepped_in_a_form_not_read_keeps_to_divisors() -> None:
    """v162's rule for a kernel whose masks check the rows and leave K unchecked: a step ``max(BLOCK_K, 16)`` is
    not read, and ``BLOCK_K = 128`` over 64 was written plainly (main e24173de), its second chunk past K at K = 192;
    now refused, a divisor (32) written; ``ROWS`` (checked by the masks) moves as before."""
    refused = guard_edit(ROWS_MASKED, ROWS_MASKED.replace("    BLOCK_K = 64\n", "    BLOCK_K = 128\n"))
    assert refused.new_source is None and "in a form kernelopt does not read" in (refused.note or ""), refused.note
    for moved in (("    BLOCK_K = 64\n", "    BLOCK_K = 32\n"), ("    ROWS = 16\n", "    ROWS = 32\n")):
        written = ROWS_MASKED.replace(*moved)
        assert guard_edit(ROWS_MASKED, written).new_source == written
