"""wrongkernel26: variants of real kernels on which ``kernelopt tune`` or ``tunables --set`` wrote a kernel wrong at a
size the original handled (docs/faults.md, "Wrong written kernels, twenty-sixth hunt"): a padded row stride taken
from a buffer a helper allocates or a view gives (v119, v120), and a tensor descriptor's last block side that is the
knob halved (v121) or a host-side descriptor's (v122), below the 16 bytes a bf16 call needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_wrongkernel17_cases import VARIANTS

#: the line every refusal of a padded stride ends in (guard._int32_strides)
PADDED = "a size padded to whole tiles of BLOCK, which pad_rows multiplies in int32 (row * stride)"


def _grown(text: str, value: int) -> str:
    return text.replace("    BLOCK = 1024\n", f"    BLOCK = {value}\n")


@pytest.mark.parametrize(
    "folder",
    [
        *("pad_rows_helper", "pad_rows_view", "pad_rows_cached", "pad_rows_grown", "pad_rows_inferred"),
        *("pad_rows_moved", "pad_rows_fpad", "pad_rows_cat", "pad_rows_zeros_like", "pad_rows_repeat"),
    ],
)
def test_v119_v120_a_padded_stride_of_a_helper_s_buffer_or_a_view_keeps_to_divisors_of_the_original(
    folder: str,
) -> None:
    """v119 (pad_rows_helper: v117's buffer returned by a module helper, ``ws = _workspace(n_rows, n_pad, x)``) and
    v120 (pad_rows_view: ``torch.zeros(n_rows * n_pad).view(n_rows, n_pad)``) and v128 (pad_rows_cached: the helper
    returning ``_WORKSPACES[key].zero_()``, stored once as ``torch.zeros(rows, cols)``) and v132 (wrongkernel27,
    pad_rows_grown: one flat module buffer grown by need, ``_SCRATCH[:need].view(rows, cols).zero_()``; ``tune`` wrote
    ``BLOCK = 8192`` plainly, ``tunables --set BLOCK=4096`` that) and v139 (pad_rows_inferred: v120's view written
    ``.view(n_rows, -1)``, its padded stride read as ``-1``) and v142 (pad_rows_moved: ``torch.zeros(n_rows,
    n_pad).to(x.device)``) and v143-v146 (wrongkernel28: ``F.pad``, ``torch.cat``, ``zeros_like``, ``.repeat``, makers not read,
    their stride unknown: the rule fails closed, guarding the padding's tile), the kernel storing at ``row * stride +
    cols`` in int32 with ``stride = ws.stride(0)``: ``kernelopt tune --device cpu`` wrote ``BLOCK = 4096`` plainly
    (v119) and tables (v120: ``BLOCK = 8192`` where ``n_cols <= 3000``; v128: 2048 and 4096), each padding a row of 1025 columns past the
    original's 2048 and wrapping past 2**31 at 262144 to 524288 rows, where the original indexes right (v113's GPU
    test shows the wrap). The stride is read through the helper's one ``return`` and through the view's shape, as
    v117's of a buffer the launcher allocates: guarded where the tile divides the size (it pads nothing there)."""
    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / folder / "kernel.py").read_text()
    for grown in (2048, 4096):
        guarded = guard_edit(base, _grown(base, grown))
        assert guarded.tests == (f"n_cols % {grown} == 0",), guarded.note
        assert PADDED in (guarded.note or ""), guarded.note
    assert PADDED not in (guard_edit(base, _grown(base, 512)).note or ""), "a divisor of the original pads within it"
    # a table's row, as tune writes one (v128's session wrote ``if n_cols <= 3000:`` / ``BLOCK = 4096`` unguarded: a
    # table's rows were read without the module's helpers)
    row = base.replace(
        "    BLOCK = 1024\n", "    BLOCK = 1024\n    if n_cols <= 3000:  # kernelopt: tuned\n        BLOCK = 4096\n"
    )
    tabled = guard_edit(base, row).new_source or ""
    assert "    if n_cols <= 3000 and n_cols % 4096 == 0:  # kernelopt: tuned\n" in tabled, tabled


@pytest.mark.parametrize(
    ("made", "axis"),
    [
        ("torch.empty_strided((n_rows, n_cols), (n_pad, 1), device=x.device, dtype=x.dtype)", 0),
        ("torch.zeros(n_rows * n_pad, device=x.device, dtype=x.dtype).as_strided((n_rows, n_cols), (n_pad, 1))", 0),
        ("torch.zeros(n_rows, n_pad, device=x.device, dtype=x.dtype).t()", 1),
        ("torch.zeros((n_rows * n_pad,), device=x.device, dtype=x.dtype).reshape((n_rows, n_pad))", 0),
    ],
)
def test_a_padded_stride_is_read_through_every_maker_that_shows_it(made: str, axis: int) -> None:
    """The other makers whose strides the launcher's text shows, read by the same rule as v119's and v120's: given
    strides (``torch.empty_strided``, ``.as_strided``), a transpose (its ``stride(1)``), a reshape of a contiguous tensor.
    Where the stride is not the padded size (``torch.zeros(n_pad, n_rows).t()``'s ``stride(0)`` is 1) nothing is
    guarded, and a view of a tensor whose strides are unknown (``torch.empty_like``) is read no way."""
    from kernelopt.tunables.guard import guard_edit

    v120 = (VARIANTS / "pad_rows_view" / "kernel.py").read_text()
    flat = "torch.zeros(n_rows * n_pad, device=x.device, dtype=x.dtype).view(n_rows, n_pad)"
    base = v120.replace(flat, made).replace("ws.stride(0)", f"ws.stride({axis})")
    assert base != v120
    assert guard_edit(base, _grown(base, 4096)).tests == ("n_cols % 4096 == 0",)
    one = v120.replace(flat, "torch.zeros(n_pad, n_rows, device=x.device, dtype=x.dtype).t()")
    assert guard_edit(one, _grown(one, 4096)).tests == ()


@pytest.mark.parametrize(
    ("folder", "now", "floor", "small"),
    [
        ("desc_half_side", 16, 16, 8),
        ("desc_host_side", 8, 8, 4),
        ("desc_last_side", 8, 8, 4),
        ("desc_host_local", 8, 8, 4),
    ],
)
def test_v121_v122_a_descriptor_s_last_side_halved_or_made_on_the_host_keeps_sixteen_bytes_in_bf16(
    folder: str, now: int, floor: int, small: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v121 (desc_half_side: v118's scale with its tiles stored in halves, the descriptors' block ``[BLOCK_M, BLOCK_N
    // 2]``, ``BLOCK_N = 16``) and v122 (desc_host_side: host-side ``TensorDescriptor.from_tensor(x, [BLOCK_M,
    BLOCK_N])``, ``BLOCK_N = 8``): ``tunables --set BLOCK_N=8`` (v121) and ``BLOCK_N=4`` (v122) wrote the pick, guarded
    by the grid's axis limit alone, and at 33 x 40 in bf16, which the original scales, the written kernel raises
    "Descriptor block shape must have at least 16 bytes in the last dimension, but got 4 * 2 = 8 bytes" (in the
    interpreter as on a GPU). v118's floor read a kernel's descriptor side that is a plain name: a side that is the
    knob scaled is floored in the knob's values, and a host descriptor's side by the launcher's name; v140
    (wrongkernel27, desc_host_local: the block shape bound to a local first, ``block = [BLOCK_M, BLOCK_N]``, which
    ``--set BLOCK_N=4`` wrote under the grid's limit alone) through the launcher's locals."""
    import torch

    from kernelopt.tunables import discover_source
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    base = (VARIANTS / folder / "kernel.py").read_text()
    side = next(t for t in discover_source(base) if t.key == "scale_kernel:BLOCK_N")
    assert side.legality is not None and side.legality.problem(floor) is None, side.legality
    assert f"must be >= {floor}" in (side.legality.problem(small) or ""), side.legality
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    bf16 = {"M": 33, "N": 40, "dtype": "bfloat16"}
    for value, right in ((now, True), (small, False)):
        (tmp_path / f"k{value}.py").write_text(base.replace(f"    BLOCK_N = {now}\n", f"    BLOCK_N = {value}\n"))
        with triton_interpreted():
            got = gpu_correct.correct_on_device(
                VARIANTS / folder,
                [bf16],
                lambda ran: bool(torch.equal(ran.got, ran.want)),
                kernel_py=tmp_path / f"k{value}.py",
            )
        verdict = got["M=33,N=40,dtype=bfloat16"]
        assert (verdict is True) is right and (right or "at least 16 bytes" in str(verdict)), (value, got)


#: v124's size where the written ``ROWS = 128`` wraps and the original's 16 does not: M * N below 2**31 (8.6 GB of
#: fp32), the last tile of 128 padded 96 rows past M, from the 2nd of which ``rows * N`` passes 2**31. N = 204 keeps
#: the tile 128 x 256: at N = 8191 (a tile of 128 x 8192) ptxas ran past the test's 120 s on an H100 (2026-12-07)
V124_M, V124_N = 10526880, 204


def _v124_wrapped_lanes(rows_tile: int) -> int:
    """The lanes of ``row_scale``'s last program that its flat mask lets through at an index below zero, with its
    index and mask computed as the kernel computes them, in int32 (numpy wraps as Triton does)."""
    import numpy as np

    last = -(-V124_M // rows_tile) - 1
    rows = (last * rows_tile + np.arange(rows_tile, dtype=np.int64)).astype(np.int32)
    cols = np.arange(256, dtype=np.int32)
    with np.errstate(over="ignore"):
        offs = rows[:, None] * np.int32(V124_N) + cols[None, :]
        mask = (cols[None, :] < V124_N) & (offs < np.int32(V124_M) * np.int32(V124_N))
    return int((mask & (offs < 0)).sum())


def test_v124_a_row_tile_masked_by_its_flat_int32_index_keeps_to_divisors_of_the_original() -> None:
    """v124 (rows_flat_mask: a row-wise scale over tiles of ``ROWS = 16`` whole rows, the index ``offs = rows[:, None]
    * N + cols[None, :]`` and the mask ``(cols[None, :] < N) & (offs < M * N)``, both in int32): ``kernelopt tune``
    and ``tunables --set ROWS=128`` wrote ``ROWS = 128`` under ``N <= 8192`` (the tile's numel limit) alone; at
    262160 x 8191 (M * N below 2**31) the last tile's padded rows from 262177 on wrap negative, pass the flat mask and
    store 8 GB before the output, where the original's tiles of 16 pad no row there (the GPU test's size is now
    10526880 x 204, the same wrap). Guarded as v113's padded stride
    is: ``M % 128 == 0``, where it pads nothing; a divisor of the original plainly; a mask on the rows themselves
    (``rows < M``) masks a wrapped index out, so there the tile is written as before."""
    from kernelopt.tunables.guard import guard_edit

    assert _v124_wrapped_lanes(16) == 0 and _v124_wrapped_lanes(128) > 0
    base = (VARIANTS / "rows_flat_mask" / "kernel.py").read_text()
    written = guard_edit(base, base.replace("    ROWS = 16\n", "    ROWS = 128\n"))
    assert written.tests == ("M % 128 == 0 and N <= 1048576 // 128",), written.note
    assert "in int32 is masked by the flat size (offs < M * N)" in (written.note or ""), written.note
    assert "M %" not in " ".join(guard_edit(base, base.replace("    ROWS = 16\n", "    ROWS = 8\n")).tests)
    by_rows = base.replace("(offs < M * N)", "(rows[:, None] < M)")
    assert guard_edit(by_rows, by_rows.replace("    ROWS = 16\n", "    ROWS = 128\n")).tests == ("N <= 1048576 // 128",)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_v124_a_row_tile_of_128_wraps_its_flat_index_where_the_original_s_16_is_right(tmp_path: Path) -> None:
    """On a GPU: v124 at 10526880 x 204 (M * N below 2**31, 8.6 GB of float32 a tensor): the original's tiles of 16
    pad no row and scale every row right, its inputs untouched; ``ROWS = 128`` (as ``tune`` and ``tunables --set``
    wrote it before the rule) pads its last tile 96 rows past M, whose index wraps negative from row 10526881 on and
    passes the flat mask: its stores land 8 GB before the output (an illegal address, or another tensor overwritten:
    an input, or the reference's copy). The wrong kernel runs last: an illegal address spoils the process's CUDA
    context."""
    import shutil

    import torch

    from tests.gpu_correct import StickyFault, correct_on_device

    def judge(ran: Any) -> bool:
        untouched = torch.equal(ran.mine[0], ran.inputs[0]) and torch.equal(ran.theirs[0], ran.inputs[0])
        return untouched and bool(torch.equal(ran.got, ran.want))

    folder = Path(shutil.copytree(VARIANTS / "rows_flat_mask", tmp_path / "rows_flat_mask"))
    (folder / "grown.py").write_text((folder / "kernel.py").read_text().replace("    ROWS = 16\n", "    ROWS = 128\n"))
    size = {"M": V124_M, "N": V124_N}
    original = correct_on_device(folder, [size], judge)
    torch.cuda.empty_cache()
    print("v124 original", original)
    assert all(v is True for v in original.values()), original
    try:
        grown = correct_on_device(folder, [size], judge, kernel_py=folder / "grown.py")
    except StickyFault as fault:  # the wrapped store's illegal address: wrong there, as an overwritten tensor is
        grown = fault.out
    print("v124 grown", grown)
    assert all(v is not True for v in grown.values()), grown


def test_v125_a_knob_a_shape_divides_keeps_a_side_of_one_value_at_least(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v125 (pairs_split_nomask: complex pairs times i, ``tl.split(tl.reshape(x, (BLOCK // 2, 2)))``, ``BLOCK = 64``):
    ``tunables --set BLOCK=1`` wrote ``BLOCK = 1`` (1 divides every size the original's 64 does), whose reshape
    into ``(0, 2)`` Triton refuses at every size ("reshape() cannot change total number of elements"). A knob a
    shape divides by ``d`` is legal from ``d`` up: 2 here, right at 64 values and at 2."""
    import torch

    from kernelopt.tunables import discover_source
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    folder = VARIANTS / "pairs_split_nomask"
    base = (folder / "kernel.py").read_text()
    block = next(t for t in discover_source(base) if t.key == "times_i:BLOCK")
    assert block.legality is not None and block.legality.problem(2) is None
    assert "must be >= 2" in (block.legality.problem(1) or ""), block.legality
    assert "a shape in the kernel holds BLOCK // 2" in (block.legality.source or "")
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    for value, right in ((2, True), (1, False)):
        (tmp_path / f"k{value}.py").write_text(base.replace("    BLOCK = 64\n", f"    BLOCK = {value}\n"))
        with triton_interpreted():
            got = gpu_correct.correct_on_device(
                folder,
                [{"n": 64}],
                lambda ran: bool(torch.equal(ran.got, ran.want)),
                kernel_py=tmp_path / f"k{value}.py",
            )
        assert (got["n=64"] is True) is right and (right or "total number of elements" in str(got["n=64"])), got


def test_v126_a_list_pruned_to_covering_blocks_keeps_its_largest(tmp_path: Path) -> None:
    """v126 (softmax_prune_cover: a one-block row softmax whose ``@triton.autotune`` list offers ``BLOCK_N`` 1024,
    2048 and 4096, ``prune_configs_by``'s early prune keeping the blocks that cover the row; rows up to 4096):
    ``tunables --set "softmax_rows.configs[2].BLOCK_N=2048"`` wrote a list of 1024 and 2048, and at rows of 3000
    Triton's autotuner raises "No valid autotuner configs after pruning", where the original softmaxes them. The
    decorator rule took the smallest config as what covers (any config may run); a prune that fits the size runs
    the largest where the others fall short: a list whose largest block is below the original's is not written,
    and one that keeps it (the smallest raised to 2048) is."""

    from kernelopt.tunables.guard import guard_edit
    from tests import gpu_correct

    folder = VARIANTS / "softmax_prune_cover"
    base = (folder / "kernel.py").read_text()
    largest, smallest = '{"BLOCK_N": 4096}, num_warps=8', '{"BLOCK_N": 1024}, num_warps=4'
    lowered = base.replace(largest, '{"BLOCK_N": 2048}, num_warps=8')
    refused = guard_edit(base, lowered)
    assert refused.new_source is None and "BLOCK_N=2048 as the list's largest" in (refused.note or ""), refused
    assert guard_edit(base, base.replace(smallest, '{"BLOCK_N": 2048}, num_warps=4')).new_source is not None
    original, written = gpu_correct.original_and_written(folder, lowered, {"n_rows": 2, "n_cols": 3000}, tmp_path)
    assert original is True and "No valid autotuner configs after pruning" in str(written), (original, written)


def test_v127_a_fixed_block_in_place_of_a_computed_covering_one_is_not_written(tmp_path: Path) -> None:
    """v127 (rows_heuristic_pair: row sums whose ``@triton.heuristics`` compute ``BLOCK_N =
    triton.next_power_of_2(args["n_cols"])``, one block a row, and ``ROWS = 4096 // triton.next_power_of_2(
    args["n_cols"])`` from the same argument; rows of at most 4096): ``tunables --set rows_sum.heuristics.BLOCK_N=1024``
    wrote ``lambda args: 1024``, which sums a row of 2000 over its first 1024 columns and at a row of one column
    asks a tile of 4096 x 1024 (past Triton's numel limit), where the original sums both right. A fixed block in
    place of a computed block that covers a size is not written (a decorator holds no guard); tune's own tables
    into the lambda (falling back on the computation) are not fixed blocks and keep being written."""

    from kernelopt.tunables.guard import guard_edit
    from tests import gpu_correct

    folder = VARIANTS / "rows_heuristic_pair"
    base = (folder / "kernel.py").read_text()
    computed = 'lambda args: triton.next_power_of_2(args["n_cols"]),'
    fixed = base.replace(computed, "lambda args: 1024,", 1)
    refused = guard_edit(base, fixed)
    assert refused.new_source is None, refused
    assert "BLOCK_N=1024 in place of the computed triton.next_power_of_2" in (refused.note or ""), refused.note
    tabled = base.replace(
        computed, 'lambda args: 1024 if args["n_cols"] <= 1000 else triton.next_power_of_2(args["n_cols"]),', 1
    )
    assert "in place of the computed" not in (guard_edit(base, tabled).note or "")
    assert gpu_correct.original_and_written(folder, fixed, {"n_rows": 5, "n_cols": 2000}, tmp_path) == (True, False)
