"""wrongkernel28: the padded-stride and grid rules fail closed (docs/faults.md, "Wrong written kernels, twenty-eighth
hunt"): a stride the kernel multiplies in int32 taken from a buffer whose making is not read (``F.pad``,
``torch.cat``, ``zeros_like``, ``.repeat``: v143-v146) is guarded as a padded one, and a count a kernel without masks
reads that an unpacking binds unpaired (a generator, a comprehension, ``map``: v147) is unknown, not unbounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_wrongkernel17_cases import VARIANTS
from tests.test_wrongkernel26_cases import PADDED, _grown

INT32_MOST = 2**31 - 1
NEW = ("pad_rows_fpad", "pad_rows_cat", "pad_rows_zeros_like", "pad_rows_repeat")


def _first_wrapped_row(n_cols: int, block: int) -> int:
    """The first row whose ``row * n_pad`` index (``n_pad`` the columns padded to whole blocks) passes int32."""
    n_pad = -(-n_cols // block) * block
    return INT32_MOST // n_pad + 1


def test_v143_v146_a_larger_tile_wraps_the_int32_row_index_at_fewer_rows() -> None:
    """The arithmetic the guard stands on: at 1025 columns the original's ``BLOCK = 1024`` pads each row to 2048 and
    its ``row * stride`` stays in int32 up to 1048576 rows; ``BLOCK = 4096`` pads to 4096 and wraps from row 524288
    (524289 rows of 1025 float32 columns, 2.15 GB, a size the original handles); where 4096 divides the columns it
    pads nothing and wraps no earlier than the original."""
    assert _first_wrapped_row(1025, 1024) == 1048576
    assert _first_wrapped_row(1025, 4096) == 524288
    assert _first_wrapped_row(8192, 4096) == _first_wrapped_row(8192, 1024)


@pytest.mark.parametrize("folder", NEW)
def test_v143_v146_an_unread_maker_s_padded_stride_is_guarded_by_its_tile(folder: str, tmp_path: Path) -> None:
    """v143-v146: a padded buffer made by ``F.pad``, ``torch.cat``, ``zeros_like`` of a padded template or
    ``.repeat`` of one padded row, its ``ws.stride(0)`` (``n_pad``) multiplied by the kernel in int32: ``guard_edit``
    wrote ``BLOCK = 4096`` over 1024 plainly (main 41f5e9b0), its stride unread. The rule now fails closed: an unread
    maker's stride is read as padded by each padded size its making names; a divisor of the original (512) holds
    unguarded. The variant itself runs right in the interpreter at a small size, as does the guarded text."""
    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / folder / "kernel.py").read_text()
    guarded = guard_edit(base, _grown(base, 4096))
    assert guarded.tests == ("n_cols % 4096 == 0",), guarded.note
    assert PADDED in (guarded.note or ""), guarded.note
    assert PADDED not in (guard_edit(base, _grown(base, 512)).note or "")
    if folder == "pad_rows_fpad":  # one run: the variant is real (the interpreter's first import is the cost)
        from tests import gpu_correct

        original, written = gpu_correct.original_and_written(
            VARIANTS / folder, guarded.new_source or "", {"n_rows": 3, "n_cols": 1025}, tmp_path
        )
        assert original is True and written is True, (original, written)


def test_an_unread_maker_of_no_padded_size_stays_unguarded() -> None:
    """Failing closed reads the making's padded sizes only: a buffer ``torch.empty_like(x)`` of the caller's tensor
    names none, so its stride stays the caller's and no tile is guarded by it."""
    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / "pad_rows_fpad" / "kernel.py").read_text()
    plain = base.replace("F.pad(torch.zeros_like(x), (0, n_pad - n_cols))", "torch.empty_like(x)")
    assert plain != base
    assert PADDED not in (guard_edit(plain, _grown(plain, 4096)).note or "")


GENERATOR = "    grid_m, n_tiles = (triton.cdiv(s, b) for s, b in ((M, BLOCK_M), (N, BLOCK_N)))\n"


@pytest.mark.parametrize(
    "spelling",
    [
        GENERATOR,
        "    grid_m, n_tiles = [triton.cdiv(s, b) for s, b in ((M, BLOCK_M), (N, BLOCK_N))]\n",
        "    grid_m, n_tiles = map(triton.cdiv, (M, N), (BLOCK_M, BLOCK_N))\n",
    ],
)
def test_v147_a_count_unpacked_from_a_generator_is_unknown_not_unbounded(spelling: str) -> None:
    """v147 (counts_generator): l82's counts unpacked from a generator (or a list comprehension, ``map``), the
    unmasked ``sum_tiles`` summing ``n_tiles`` whole tiles: ``BLOCK_N = 128`` over 64 was written plainly (main
    41f5e9b0), wrong at N = 192 (two tiles of 128 read 64 values past the end). The count is not read, so it is
    unknown: a divisor of the original (32) is written, 128 refused."""
    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / "counts_generator" / "kernel.py").read_text().replace(GENERATOR, spelling)
    assert spelling in base
    refused = guard_edit(base, base.replace("BLOCK_N = 64", "BLOCK_N = 128"))
    assert refused.new_source is None and "does not follow" in (refused.note or ""), refused.note
    smaller = guard_edit(base, base.replace("BLOCK_N = 64", "BLOCK_N = 32"))
    assert smaller.new_source is not None and smaller.tests == (), smaller.note


Z = "dtype=x.dtype, device=x.device"


@pytest.mark.parametrize(
    ("made", "axis", "guarded"),
    [
        (f"F.pad(torch.zeros(n_rows, n_cols, {Z}), (0, n_pad - n_cols))", 0, True),
        (f"torch.cat([torch.zeros(n_rows, n_cols, {Z}), torch.zeros(n_rows, n_pad - n_cols, {Z})], dim=1)", 0, True),
        (f"torch.cat([torch.zeros(n_rows, n_pad, {Z}), torch.zeros(n_rows, n_pad, {Z})])", 0, True),
        (f"torch.zeros(1, n_pad, {Z}).repeat(n_rows, 1)", 0, True),
        (f"torch.zeros_like(torch.empty(n_pad, n_rows, {Z}))", 1, False),
        (f"torch.cat([torch.zeros(n_pad, n_rows, {Z}), torch.zeros(n_pad, n_rows, {Z})], dim=0)", 0, False),
        (f"torch.zeros(n_pad, 1, {Z}).repeat(1, n_rows)", 0, False),
        (f"F.pad(torch.zeros(n_pad, n_rows, {Z}), (0, 0))", 0, False),
    ],
)
def test_pad_cat_repeat_and_like_are_read_where_their_stride_is_plain(made: str, axis: int, guarded: bool) -> None:
    """Where the source's shape is read, ``F.pad`` (``n_cols`` padded by ``n_pad - n_cols``: ``n_pad``), ``torch.cat``
    (the parts agreeing off the joined dimension), ``.repeat`` and ``zeros_like`` of a dense tensor are read as the
    contiguous tensor each makes: a padded row stride is guarded as v119's, and a stride that is no padded size
    (``n_rows``, 1) guards nothing, where failing closed alone would hold every tile the making names to a divisor."""
    from kernelopt.tunables.guard import guard_edit

    v120 = (VARIANTS / "pad_rows_view" / "kernel.py").read_text()
    flat = "torch.zeros(n_rows * n_pad, device=x.device, dtype=x.dtype).view(n_rows, n_pad)"
    base = v120.replace(flat, made).replace("ws.stride(0)", f"ws.stride({axis})")
    base = base.replace("import torch\n", "import torch\nimport torch.nn.functional as F\n", 1)
    assert made in base
    assert guard_edit(base, _grown(base, 4096)).tests == (("n_cols % 4096 == 0",) if guarded else ())
