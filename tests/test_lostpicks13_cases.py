"""Correct picks lost and notes that are untrue (lostpicks13, 2026-12-06): the copies of one value in a 2-D grid, a
1-D block's "tile <= problem" bound, a GEMV's table refused; one test per fix (docs/faults.md, "Correct picks lost, and notes that are untrue")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
FLAT = DATA / "lostpicks13" / "flat_vector"
SCALE2D = DATA / "lostpicks13" / "scale2d"
GEMV = DATA / "lostpicks13" / "gemv"
GRID = "scale_kernel[(triton.cdiv(n, 256),)]"


def _block_bound(source: str, tmp_path: Path, evaluation: object = None) -> int:
    from kernelopt.tunables.analysis import discover
    from kernelopt.tuning.launch import space_from_tunables

    kernel = tmp_path / "kernel.py"
    kernel.write_text(source)
    tunables = discover(kernel)
    space = space_from_tunables(
        tunables,
        problem_sizes={"M": 1024, "K": 1024},
        source=source,
        evaluation=evaluation,  # type: ignore[arg-type]
    )
    (rule,) = [r for r in space.fit_rules if r.startswith("tile <= problem")]
    return int(rule.rsplit("<= ", 1)[1])


def test_l2_a_1d_block_is_bounded_by_the_extent_its_grid_counts_not_the_largest_size(tmp_path: Path) -> None:
    """l2 (newuser11's seen): ``n = M * K`` with M = K = 1024 is a vector of 2**20 elements, tiled by ``triton.cdiv(n,
    BLOCK)``; the bound read the largest single size (``BLOCK <= 1024``, "space 7 of 13 fit") and pruned the larger
    blocks. It reads the extent the grid counts: the product of the sizes, or the value a run of the task told for
    ``n``; a grid over what is read no way (``x.numel()``) keeps the largest size."""
    from kernelopt.tunables.model import AutotuneEvaluation, ShapeSizes

    source = (FLAT / "kernel.py").read_text()
    assert GRID in source
    assert _block_bound(source, tmp_path) == 1 << 20
    unread = source.replace(GRID, "scale_kernel[(triton.cdiv(x.numel(), 256),)]")
    assert _block_bound(unread, tmp_path) == 1024
    # the same grid over a size no product of the problem's names, told by a run of the task at each entry
    numel = source.replace("    n = M * K\n", "    n = x.numel()\n")
    assert _block_bound(numel, tmp_path) == 1024
    told = AutotuneEvaluation(
        shape_sizes=[
            ShapeSizes(shape={"M": 64, "K": 64}, sizes={"scale_kernel": {"n": 4096}}),
            ShapeSizes(shape={"M": 1024, "K": 1024}, sizes={"scale_kernel": {"n": 1 << 20}}),
        ]
    )
    assert _block_bound(numel, tmp_path, told) == 1 << 20


def test_l1_two_tiles_sharing_a_value_in_a_2d_grid_each_own_the_copy_of_its_axis(tmp_path: Path) -> None:
    """l1 (break14's seen): ``scale2d[(triton.cdiv(M, 32), triton.cdiv(N, 32))]`` beside ``BLOCK_M=32, BLOCK_N=32``,
    rows masked and columns not; the pick ``BLOCK_M=64, BLOCK_N=64``. The rows' copy was read as BLOCK_N's (both hold
    64): the guard became ``M % 64 == 0 and N % 64 == 0``, its note named ``triton.cdiv(M, 64)`` as BLOCK_N's, and
    the rows' grid was written ``triton.cdiv(M, BLOCK_N)``: right, the pick lost at every M not a multiple of 64. The
    copy is the block the kernel steps that axis's programs by (``tl.program_id(0) * BLOCK_M``). The written kernel is
    checked in the interpreter at sizes no entry names, the guard holding and failing."""
    import torch

    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit
    from tests.conftest import load_fresh, triton_interpreted

    original = (SCALE2D / "kernel.py").read_text()
    guarded = guard_edit(original, apply_source(original, {"BLOCK_M": 64, "BLOCK_N": 64}).new_source)
    assert guarded.new_source is not None and guarded.note is not None
    assert "BLOCK_N=64 only where N % 64 == 0, the original" in guarded.note, guarded.note
    assert "triton.cdiv(M, 64)" not in guarded.note and "M % 64" not in guarded.note, guarded.note
    assert "scale2d[(triton.cdiv(M, 64), triton.cdiv(N, BLOCK_N))]" in guarded.new_source
    # no masks at all: each tile guarded by its own size, each copy named by its own tile
    bare = original.replace(", mask=mask)", ")")
    both = guard_edit(bare, apply_source(bare, {"BLOCK_M": 64, "BLOCK_N": 64}).new_source).new_source
    assert both is not None and "if M % 64 == 0 and N % 64 == 0:  # kernelopt: tuned" in both
    assert "scale2d[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))]" in both
    (tmp_path / "kernel.py").write_text(guarded.new_source)
    with triton_interpreted():
        written = load_fresh(tmp_path / "kernel.py", "_l1_scale2d_written")
        for m, n in ((33, 96), (70, 128), (5, 32), (64, 64)):
            x = torch.randn(m, n, generator=torch.Generator().manual_seed(m))
            assert torch.equal(written.run(x), x * 2.0), (m, n)


def test_l3_a_tuned_line_over_a_literal_tile_is_written_with_its_divisibility_test(tmp_path: Path) -> None:
    """l3 (newuser11's seen): a GEMV whose ``BLOCK_M`` is computed from M and whose ``BLOCK_K=32`` literal steps a loop
    over K without masks; the session's table over M with ``BLOCK_K=128`` in every row (27x) bounds the moved literal
    by the sizes checked (``BLOCK_K = 32`` / ``if M <= 1000:  # kernelopt: tuned`` / ``BLOCK_K = 128``) and was
    refused "... and the value it overrides is computed", where it overrides the literal 32: the original handled K
    a multiple of 32, so ``K % 128 == 0`` keeps it right. The line is written with that test; the kernel is checked
    in the interpreter at K no entry names (96, 160) and at one 128 divides."""
    import torch

    from kernelopt.tunables import TunedTable, write_config, write_table
    from kernelopt.tunables.guard import bound_moves, guard_edit
    from kernelopt.tunables.model import Bucket
    from tests.conftest import load_fresh, triton_interpreted

    base = (GEMV / "kernel.py").read_text()
    moved = write_config(base, {"BLOCK_K": 128}, kernel="gemv_kernel").new_source
    bounded = bound_moves(base, moved, "M <= 1000", {}).new_source
    assert bounded is not None
    rows = [Bucket(upto=u, values={"BLOCK_M": 16}) for u in (16, 300, 1000)]
    table = write_table(bounded, TunedTable(size="M", buckets=rows), kernel="gemv_kernel").new_source
    guarded = guard_edit(base, table)
    assert guarded.new_source is not None, guarded.note
    assert guarded.note is not None and guarded.note.startswith("BLOCK_K=128 only where K % 128 == 0 ("), guarded.note
    assert "    if M <= 1000 and K % 128 == 0:  # kernelopt: tuned\n        BLOCK_K = 128\n" in guarded.new_source
    (tmp_path / "kernel.py").write_text(guarded.new_source)
    with triton_interpreted():
        written = load_fresh(tmp_path / "kernel.py", "_l3_gemv_written")
        for m, k in ((5, 96), (17, 160), (300, 256), (40, 32)):
            g = torch.Generator().manual_seed(k)
            a, x = torch.randn(m, k, generator=g), torch.randn(k, generator=g)
            assert torch.allclose(written.run(a, x), a @ x, atol=1e-4, rtol=1e-4), (m, k)


def test_l1_a_kernel_launched_twice_names_its_guard_once() -> None:
    """l1's neighbour (break14's seen): tile_lse launched twice in one function, the pick ``BLOCK_M=32, BLOCK_N=64``:
    each launch gets its guard, and the note said the same guard twice ("BLOCK_N=64 only where N % 64 == 0 ...;
    BLOCK_N=64 only where N % 64 == 0 ..."). It says it once; both guard blocks are written."""
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    one = (DATA / "variants" / "tile_lse_zero" / "kernel.py").read_text()
    launch = "    tile_lse[(triton.cdiv(M, 16),)](x, y, M, N, BLOCK_M=16, BLOCK_N=32)\n"
    two = one.replace(launch, launch * 2)
    assert two.count(launch) == 2
    guarded = guard_edit(two, apply_source(two, {"BLOCK_M": 32, "BLOCK_N": 64}).new_source)
    assert guarded.new_source is not None and guarded.note is not None
    assert guarded.new_source.count("    if N % 64 == 0:  # kernelopt: tuned\n") == 2
    assert guarded.note.count("BLOCK_N=64 only where N % 64 == 0") == 1, guarded.note


def test_l1_a_stale_copy_of_a_shared_value_is_named_by_the_tile_of_its_size() -> None:
    """l1's neighbour (found here): variants/tile_sum_shared keeps ``triton.cdiv(M, 64)`` and ``triton.cdiv(N, 64)``
    as a buffer's count beside ``BLOCK_M=64, BLOCK_N=64``; with both tiles moved to 128 the edit is refused (right),
    and the note named BLOCK_M or BLOCK_N for the rows' copy by the order of a set of names (a hash seed: BLOCK_N for
    ``triton.cdiv(M, 64)`` in half the runs). The copy is named by the tile whose ranges the kernel compares with M."""
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    source = (DATA / "variants" / "tile_sum_shared" / "kernel.py").read_text()
    both = {"tile_sum:BLOCK_M": 128, "tile_sum:BLOCK_N": 128}
    refused = guard_edit(source, apply_source(source, both).new_source)
    assert refused.new_source is None and refused.note is not None
    assert refused.note.startswith(
        "BLOCK_M=128 moves the tile from 64, but line 30 still divides by 64 (triton.cdiv(M,"
    )
    alone = guard_edit(source, apply_source(source, {"tile_sum:BLOCK_N": 128}).new_source).note
    assert alone is not None and alone.startswith(
        "BLOCK_N=128 moves the tile from 64, but line 30 still divides by 64 (triton.cdiv(N,"
    )


@pytest.mark.gpu
@pytest.mark.timeout(400)
def test_l3_on_a_gpu_the_gemv_s_tuned_table_is_written_and_right_at_k_no_entry_names(tmp_path: Path) -> None:
    """l3 on an NVIDIA GPU: ``kernelopt tune --device cuda`` (a 120 s wall) on tests/data/lostpicks13/gemv, then the
    kernel.py it leaves run at K no entry names (96, 160, 352: multiples of the original's 32, not of 128) and at
    M past the table's bound: right at every one, whatever was written (newuser11 saw a 27x table refused)."""
    from tests.gpu_correct import assert_correct, tuned_on_device

    folder = Path(shutil.copytree(GEMV, tmp_path / "gemv"))
    tuned_on_device(folder)
    shapes = [{"M": 5, "K": 96}, {"M": 17, "K": 160}, {"M": 300, "K": 352}, {"M": 2000, "K": 256}, {"M": 40, "K": 32}]
    assert_correct(folder, shapes, lambda r: bool(((r.got - r.want).abs() <= 1e-3 + 1e-3 * r.want.abs()).all()))
