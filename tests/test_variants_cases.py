"""Variants of kernels the tuner already handled, changed the way users change their own copies (issue 32: "on
variants of such kernels it wrote kernels that are wrong at a size it had not timed"). Each folder of
tests/data/variants is one change (its README lists source and change). What tuning writes is judged as a user
would: the written kernel against the reference at every ``SHAPES`` entry and at sizes ``SHAPES`` never names that
the original handled, loaded afresh in this process with Triton's interpreter. The written text is asserted before
any wrong kernel could run (an unmasked store out of bounds corrupts the process's heap in the interpreter). A
strict xfail is a defect found and not yet fixed."""

from __future__ import annotations

import itertools
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.fences import OUTPUT_FILL
from kernelopt.harness.fences import fenced_outputs as _fenced_outputs
from kernelopt.harness.fences import padded as _padded
from kernelopt.harness.fences import trespassed as _trespassed
from kernelopt.tunables import discover_source
from tests.gpu_correct import Ran, assert_correct, correct_on_device, written_pick
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "variants"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_padded(folder, shapes)
    assert got == {",".join(f"{k}={v}" for k, v in s.items()): True for s in shapes}, got


def _correct_padded(folder: Path, shapes: list[dict[str, int]]) -> dict[str, object]:
    """Each shape's check of ``folder``'s kernel against its reference (:func:`tests.test_breaker_cases._correct_at`),
    the kernel given its inputs in the middle of NaN (:func:`_padded`) and its ``torch.empty`` outputs in the middle
    of :data:`~kernelopt.harness.fences.OUTPUT_FILL` (a NaN read past an input's end and stored past an output's is
    seen, which a NaN fence could not tell from its own: net10, v6 and v7): {label: True / False / "wrote out of
    bounds" / the error raised}."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    out: dict[str, object] = {}
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_variants_ref")
        ker = load_fresh(folder / "kernel.py", "_variants_ker")
        for shape in shapes:
            torch.manual_seed(0)
            inputs = ref.get_inputs(**shape)
            label = ",".join(f"{k}={v}" for k, v in shape.items())
            fences: list[Any] = []
            try:
                with _fenced_outputs(fences, OUTPUT_FILL):
                    got = ker.run(*[_padded(t, fences) for t in inputs])
                want = ref.reference(*inputs)
                ok = bool(torch.allclose(got.float(), want.float(), atol=ref.ATOL, rtol=ref.RTOL))
                out[label] = "wrote out of bounds" if _trespassed(fences) else ok
            except Exception as exc:  # a kernel that raises at a size is wrong there
                out[label] = f"{type(exc).__name__}: {exc}"[:200]
    return out


def _plainly(folder: Path, old: str, new: str, shapes: list[dict[str, int]]) -> dict[str, object]:
    """:func:`_correct_padded` of ``folder``'s kernel with ``old`` replaced by ``new`` (a pick written plainly, as
    the rules wrote it before a fix), the original put back after."""
    original = (folder / "kernel.py").read_text()
    (folder / "kernel.py").write_text(original.replace(old, new))
    try:
        return _correct_padded(folder, shapes)
    finally:
        (folder / "kernel.py").write_text(original)


# ------------------------------------------------------------------------------------- a wrong kernel written


@pytest.mark.timeout(120)
def test_a_k_loop_whose_loads_mask_only_rows_and_columns_keeps_its_step_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05: mm_evenk, a GEMM whose loads in ``for k in range(0, K, BLOCK_K)`` check the rows of A
    and the columns of B but not K (``assert K % 16 == 0`` in run). The guard's loop rule read only loops whose
    loads carry no mask at all, so ``BLOCK_K=32`` went out as a literal: right at the SHAPES' K of 32 and 64, wrong
    at K = 48 and 16, which the original handled. Now a block an access indexes by and its mask leaves unchecked is
    read as in a kernel without masks: ``if K % 32 == 0:  # kernelopt: tuned``."""
    folder = _copy("mm_evenk", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32})
    assert written is not None and note is not None
    assert "if K % 32 == 0:  # kernelopt: tuned" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 10, "N": 12, "K": 32}, {"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 16}])


@pytest.mark.timeout(120)
def test_a_tile_kernel_masking_only_its_rows_keeps_its_column_tile_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05: transpose_rowmask, a transpose whose loads and stores check ``offs_m < M`` and not N
    (``assert N % 16 == 0``), its grid ``triton.cdiv(N, meta["BLOCK_N"])``. The grid rule read only kernels with no
    mask at all, so ``BLOCK_N=32`` went out as a literal: right at the SHAPES' N of 32 and 64; at N = 48 the last
    column tile stores out of bounds (the interpreter's process aborts: "free(): invalid next size"). Now guarded
    by the same rule as v1: ``if N % 32 == 0:  # kernelopt: tuned``."""
    folder = _copy("transpose_rowmask", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 32})
    assert written is not None and note is not None
    assert "if N % 32 == 0:  # kernelopt: tuned" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 7, "N": 16}])


@pytest.mark.timeout(120)
def test_a_row_masked_store_in_a_jit_helper_keeps_the_column_tile_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v8): transpose_rowmask with its load checking both axes and its store moved into a
    ``@triton.jit`` helper that checks the rows only. The block-by-block rule read the kernel's own accesses (its
    helpers only when it had none), so ``BLOCK_N=32`` went out plainly and stored past N at N = 48, which the
    original handled. Now every access the kernel reaches is read, its helpers' at their calls (parameters replaced
    by the arguments): ``if N % 32 == 0:  # kernelopt: tuned``, correct at sizes no ``SHAPES`` entry names, on
    NaN-padded inputs and outputs."""
    folder = _copy("transpose_helper_store", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 32})
    assert written is not None and note is not None
    assert "if N % 32 == 0:  # kernelopt: tuned" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 7, "N": 16}, {"M": 5, "N": 80}])


@pytest.mark.timeout(120)
def test_a_fast_path_flag_computed_from_the_tile_s_value_copied_does_not_vouch_for_a_moved_tile(
    tmp_path: Path,
) -> None:
    """Seen on 2026-12-05 (v9, wrongkernel7's hunt): mm_flag_literal, a GEMM with its K masks and an ``if EVEN_K:``
    fast path without them, the flag computed at the launch as ``EVEN_K=K % 16 == 0`` beside ``BLOCK_K=16``. The
    rules skipped every ``if FLAG:`` branch as the fast path taken only where the block divides, so ``BLOCK_K=32``
    went out plainly: the flag still said 16, and at K = 48 and 16, which the original handled, the unmasked loads
    read past K (NaN). A flag vouches for a block only when computed from it (``K % BLOCK_K``, a heuristic's
    ``args["BLOCK_K"]``); this one's branch is read: ``if K % 32 == 0:  # kernelopt: tuned``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("mm_flag_literal", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32})
    assert written is not None and note is not None
    assert "    if K % 32 == 0:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 10, "N": 12, "K": 32}, {"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 16}])
    source = (DATA / "mm_flag_literal" / "kernel.py").read_text()
    tied = source.replace("BLOCK_K=16, EVEN_K=K % 16 == 0", "BLOCK_K=BK, EVEN_K=K % BK == 0").replace(
        "    matmul_kernel[grid]", "    BK = 16\n    matmul_kernel[grid]"
    )
    plain = guard_edit(tied, tied.replace("BK = 16", "BK = 32"))  # the flag follows the tile: no guard needed
    assert plain.note is None and plain.new_source is not None and "BK = 32\n" in plain.new_source
    config = 'triton.Config({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}, num_warps=4)'
    listed = source.replace(
        "@triton.jit\ndef matmul_kernel",
        f'@triton.autotune(configs=[{config}], key=["M", "N", "K"])\n@triton.jit\ndef matmul_kernel',
    ).replace("BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, EVEN_K=K % 16 == 0, num_warps=4", "EVEN_K=K % 16 == 0")
    pinned = guard_edit(listed, listed.replace('"BLOCK_K": 16}', '"BLOCK_K": 32}'))  # a decorator: not guarded
    assert (
        pinned.new_source is None and pinned.note is not None and "loads whose masks leave it unchecked" in pinned.note
    )


@pytest.mark.timeout(120)
def test_a_k_loop_counting_whole_tiles_by_floor_keeps_its_tile_a_divisor_masks_or_not(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v10, wrongkernel7's hunt): mm_floor_count, a GEMM whose loads check K and whose loop
    counts ``range(0, K // BLOCK_K)`` tiles (``assert K % 16 == 0``). The counted-loop rule read only blocks an
    access leaves unchecked, so ``BLOCK_K=32`` went out plainly: at K = 48 and 16, which the original handled, the
    floor drops the last 16 (or every) K, whatever the masks say. A floor count needs its tile to divide the size:
    ``if K % 32 == 0:  # kernelopt: tuned``; a kernel that takes the tail itself (``K % BLOCK_K``) needs none."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("mm_floor_count", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32})
    assert written is not None and note is not None and "the floor drops the tail" in note
    assert "    if K % 32 == 0:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 10, "N": 12, "K": 32}, {"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 16}])
    source = (DATA / "mm_floor_count" / "kernel.py").read_text()
    tail = source.replace(
        "    tl.store(c_ptr",
        "    if K % BLOCK_K != 0:\n        k = (K // BLOCK_K) * BLOCK_K\n"
        "        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,\n"
        "                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)\n"
        "        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,\n"
        "                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)\n"
        "        acc += tl.dot(a, b)\n    tl.store(c_ptr",
    )
    assert tail.count("K // BLOCK_K") == source.count("K // BLOCK_K") + 1
    plain = guard_edit(tail, tail.replace("BLOCK_K=16, num_warps", "BLOCK_K=32, num_warps"))
    assert plain.note is None and plain.new_source is not None and "BLOCK_K=32, num_warps" in plain.new_source


@pytest.mark.timeout(120)
def test_a_grouped_order_taken_whole_keeps_its_group_unless_it_divides(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v11, wrongkernel7's hunt): mm_group_whole, a GEMM on a 1-D grid in the grouped order
    written without the tutorial's ``min(num_pid_m - first_pid_m, GROUP_M)``, ``GROUP_M=1`` at the launch (correct
    at every size). ``GROUP_M=4`` went out plainly: right at the SHAPES' 4 and 8 rows of tiles, and at M = 48 (3
    rows of tiles), which the original handled, the last group maps its programs past the rows and leaves the
    third row's tiles unwritten. Such a group holds only where it divides ``triton.cdiv(M, BLOCK_M)``: not
    written, one line; the row tile moves freely at ``GROUP_M=1``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("mm_group_whole", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 4})
    assert written is None and note is not None
    assert "takes its groups of GROUP_M rows of tiles whole" in note and "not written" in note, note
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 1})
    assert written is not None and "BLOCK_M=32" in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 64, "N": 32, "K": 32}, {"M": 48, "N": 24, "K": 16}, {"M": 7, "N": 13, "K": 16}])
    source = (DATA / "mm_group_whole" / "kernel.py").read_text().replace("GROUP_M=1,", "GROUP_M=4,")
    halved = guard_edit(source, source.replace("GROUP_M=4,", "GROUP_M=2,"))  # a divisor holds where 4 did
    assert halved.note is None and halved.new_source is not None and "GROUP_M=2," in halved.new_source
    rows = guard_edit(source, source.replace("BLOCK_M=16,", "BLOCK_M=32,"))
    assert rows.new_source is None and rows.note is not None and rows.note.startswith("BLOCK_M=32 with GROUP_M=4")


@pytest.mark.timeout(120)
def test_a_block_pointer_loaded_in_a_jit_helper_keeps_its_unchecked_block_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v12, wrongkernel7's hunt): bp_helper_load, breaker5's bp_gemv (block pointers, the rows
    checked, K not: ``assert K % 32 == 0``) with its loads in ``@triton.jit`` helpers (``x = _load_rows(x_blk)``).
    The block-pointer rule (i1) read the kernel's own loads, so ``BLOCK_K = 64`` went out plainly: wrong at K = 96
    and 32, which the original handled. The loads a kernel reaches through its helpers are read:
    ``if K % 64 == 0:  # kernelopt: tuned``; the checked rows move freely."""
    folder = _copy("bp_helper_load", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_K": 64})
    assert written is not None and note is not None and "loads block pointer x_blk" in note
    assert "    if K % 64 == 0:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 40, "K": 64}, {"M": 10, "K": 96}, {"M": 7, "K": 32}])
    rows, _ = _tune_edit(_copy("bp_helper_load", tmp_path / "rows"), {"BLOCK_M": 64, "BLOCK_K": 32})
    assert rows is not None and "BLOCK_M = 64\n" in rows and "if M %" not in rows


@pytest.mark.timeout(120)
def test_a_persistent_stride_never_moves_past_the_programs_a_fixed_grid_gives(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v13, wrongkernel7's hunt): persist_grid_literal, a persistent GEMM launched on a grid of
    its own number, ``_mm_persistent[(4,)](..., NUM_SMS=4, ...)``, striding ``range(pid, num_tiles, NUM_SMS)``.
    ``NUM_SMS=8`` went out plainly: right at the SHAPES' 1 and 4 tiles, and at 96 x 100 (12 tiles), which the
    original handled, the 4 programs stepped by 8 and left 4 tiles unwritten. A stride above the programs the grid
    gives is not written, one line; one at most the grid's moves (programs overlapping do the same work)."""
    folder = _copy("persist_grid_literal", tmp_path)
    written, note = _tune_edit(folder, {"NUM_SMS": 8})
    assert written is None and note is not None
    assert note.startswith("NUM_SMS=8 is more than the 4 programs the launch of _mm_persistent gives"), note
    written, note = _tune_edit(folder, {"NUM_SMS": 2})
    assert written is not None and "NUM_SMS=2," in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 64, "N": 64, "K": 8}, {"M": 70, "N": 100, "K": 8}])


@pytest.mark.timeout(120)
def test_a_one_block_row_whose_mask_sits_in_a_helper_keeps_its_block_covering(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v14, wrongkernel7's hunt): softmax_helper_rows, one block a row (``BLOCK_SIZE=1024``)
    whose masked load and store sit in ``@triton.jit`` helpers, SHAPES of 50 and 100 columns. The one-block rule
    read the kernel's own comparisons, so ``BLOCK_SIZE=128`` went out plainly: right at the SHAPES, and at 700
    columns, which the original handled, only the first 128 were normalized. The helpers' comparisons are read at
    their calls: ``if n_cols <= 128:  # kernelopt: tuned``."""
    folder = _copy("softmax_helper_rows", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 128})
    assert written is not None and note is not None and "covers n_cols with one block of BLOCK_SIZE" in note
    assert "    if n_cols <= 128:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 2, "n_cols": 700}, {"n_rows": 3, "n_cols": 128}, {"n_rows": 1, "n_cols": 1}])


@pytest.mark.timeout(120)
def test_a_grouped_order_taken_whole_keeps_its_group_where_an_autotune_config_sets_it(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v15, wrongkernel8): mm_group_autotune, v11's GEMM (the grouped order taken whole, no
    ``min()`` with the rows left) with its settings in an ``@triton.autotune`` list, ``"GROUP_M": 1``. v11's rule
    read the group at the launch only, so ``GROUP_M=4`` went out plainly in the pinned config: right at the SHAPES'
    4 and 8 rows of tiles, and at M = 48 (3 rows of 16), which the original handled, the third row's tiles were
    never written. The group is read wherever it is set, a config, a heuristic or the launch; an autotune list runs
    any of its configs, so each new one must hold wherever every old one did."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("mm_group_autotune", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 4})
    assert written is None and note is not None and note.startswith("GROUP_M=4 may leave tiles undone"), note
    assert "takes its groups of GROUP_M rows of tiles whole" in note and "decorator sets GROUP_M, BLOCK_M" in note
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 1})
    assert written is not None and '"BLOCK_M": 32' in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 64, "N": 32, "K": 32}, {"M": 48, "N": 24, "K": 16}, {"M": 7, "N": 13, "K": 16}])
    source = (DATA / "mm_group_autotune" / "kernel.py").read_text()
    one = '{"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 1}'
    first, second = one.replace('"GROUP_M": 1', '"GROUP_M": 4'), one.replace('16, "BLOCK_N', '32, "BLOCK_N')
    listed = source.replace(f"triton.Config({one}, num_warps=4)", f"triton.Config({first}), triton.Config({second})")
    assert listed.count("triton.Config(") == 2 and '"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 1' in listed
    divides = guard_edit(listed, listed.replace(first, first.replace('"GROUP_M": 4', '"GROUP_M": 2')))
    assert divides.note is None and divides.new_source is not None and '"GROUP_M": 2' in divides.new_source
    rows = guard_edit(listed, listed.replace(first, first.replace('"BLOCK_M": 16', '"BLOCK_M": 64')))
    assert rows.new_source is None and rows.note is not None and rows.note.startswith("BLOCK_M=64 with GROUP_M=4")
    joined = guard_edit(listed, listed.replace(second, second.replace('"GROUP_M": 1', '"GROUP_M": 4')))
    assert joined.new_source is None and joined.note is not None and joined.note.startswith("GROUP_M=4 may leave")
    heuristic = source.replace(', "GROUP_M": 1}', "}").replace(
        "@triton.jit\n", '@triton.heuristics({"GROUP_M": lambda args: 1})\n@triton.jit\n'
    )
    assert "lambda args: 1" in heuristic and '"GROUP_M": 1}' not in heuristic
    moved = guard_edit(heuristic, heuristic.replace("lambda args: 1", "lambda args: 8"))
    assert moved.new_source is None and moved.note is not None and moved.note.startswith("GROUP_M=8 may leave")


@pytest.mark.timeout(120)
def test_a_persistent_stride_an_autotune_config_sets_never_moves_past_a_fixed_grid(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v16, wrongkernel8): persist_autotune, v13's persistent GEMM with its stride in an
    ``@triton.autotune`` config (``"NUM_SMS": 4``) on a grid of 4 programs, ``lambda META: (4,)``. v13's rule read
    the stride at the launch only, so ``NUM_SMS=8`` went out plainly in the pinned config: right at the SHAPES' 1
    and 4 tiles, and at 96 x 100 (12 tiles), which the original handled, 4 tiles were never written. The stride is
    read wherever it is set; a grid reading ``META["NUM_SMS"]`` moves with it."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("persist_autotune", tmp_path)
    written, note = _tune_edit(folder, {"NUM_SMS": 8})
    assert written is None and note is not None
    assert note.startswith(
        "NUM_SMS=8 is more than the 4 programs the launch of _mm_persistent gives (its grid lambda META: (4,), set "
        "in _mm_persistent's decorator)"
    ), note
    written, note = _tune_edit(folder, {"NUM_SMS": 2})
    assert written is not None and '"NUM_SMS": 2,' in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 64, "N": 64, "K": 8}, {"M": 96, "N": 100, "K": 8}])
    source = (DATA / "persist_autotune" / "kernel.py").read_text()
    reads = source.replace(
        "lambda META: (4,)", 'lambda META: (min(META["NUM_SMS"], triton.cdiv(M, 32) * triton.cdiv(N, 32)),)'
    )
    followed = guard_edit(reads, reads.replace('"NUM_SMS": 4,', '"NUM_SMS": 8,'))  # the grid moves with it
    assert followed.note is None and followed.new_source is not None and '"NUM_SMS": 8,' in followed.new_source


@pytest.mark.timeout(120)
def test_a_split_k_stride_never_moves_away_from_the_programs_a_fixed_grid_gives(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v17, wrongkernel8's hunt): splitk_grid_literal, a split-K GEMM whose second grid axis is
    a number of its own, ``(tiles, 4)`` beside ``SPLIT_K=4``, each program stepping ``range(pid_k * BLOCK_K, K,
    BLOCK_K * SPLIT_K)`` and adding its part with ``tl.atomic_add``. v13's rule read only ``range(pid, .., S)`` on
    the first axis, so ``SPLIT_K=8`` went out plainly: right at the SHAPES' K of 64 and 40 (at most 4 steps), and at
    K = 200, which the original handled, the parts past the fourth were never added. Fewer (``SPLIT_K=2``) adds
    parts twice. Neither is written; the K tile moves freely."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("splitk_grid_literal", tmp_path)
    written, note = _tune_edit(folder, {"SPLIT_K": 8})
    assert written is None and note is not None
    assert note.startswith("SPLIT_K=8 is more than the 4 programs the launch of splitk_kernel gives on axis 1"), note
    written, note = _tune_edit(folder, {"SPLIT_K": 2})
    assert written is None and note is not None and "adds its part with an atomic" in note, note
    written, note = _tune_edit(folder, {"BLOCK_K": 32})
    assert written is not None and "BLOCK_K=32, SPLIT_K=4" in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 24, "K": 200}, {"M": 7, "N": 13, "K": 5}])
    source = (DATA / "splitk_grid_literal" / "kernel.py").read_text()
    reads = source.replace(
        "grid = (triton.cdiv(M, 16) * triton.cdiv(N, 16), 4)",
        'grid = lambda META: (triton.cdiv(M, 16) * triton.cdiv(N, 16), META["SPLIT_K"])  # noqa: E731',
    )
    assert reads != source
    followed = guard_edit(reads, reads.replace("SPLIT_K=4,", "SPLIT_K=8,"))  # the grid moves with it
    assert followed.note is None and followed.new_source is not None and "SPLIT_K=8," in followed.new_source


@pytest.mark.timeout(180)
def test_the_hunt_s_tutorial_layouts_are_written_correct_at_sizes_never_timed(tmp_path: Path) -> None:
    """Held in wrongkernel8's hunt (2026-12-05), pinned: the layouts of Triton's tutorials, each through the edit a
    session picking a wider K tile writes, correct at sizes no ``SHAPES`` entry names on NaN-padded inputs.
    mm_tutorial_evenk (rows and columns wrapped ``% M`` / ``% N``, pointers advanced ``a_ptrs += BLOCK_K *
    stride_ak`` over ``range(tl.cdiv(K, BLOCK_K))``, no K mask: ``assert K % 32 == 0``) guards its K tile and moves
    its row tile plainly (the wrap reads in bounds), and with the tutorial's ``EVEN_K`` heuristic moves its K tile
    plainly (the flag is computed from the block) or guards it (a flag computed from the literal 32); bp_advance
    (block pointers checking rows and columns, not K, ``tl.advance`` along K) guards its K tile."""
    cases = {
        "mm_tutorial_evenk": (
            {"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 64, "GROUP_M": 4},
            "    if K % 64 == 0:  # kernelopt: tuned\n",
            [{"M": 20, "N": 24, "K": 96}, {"M": 7, "N": 13, "K": 32}, {"M": 100, "N": 70, "K": 64}],
        ),
        "bp_advance": (
            {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64},
            "    if K % 64 == 0:  # kernelopt: tuned\n",
            [{"M": 20, "N": 24, "K": 96}, {"M": 7, "N": 13, "K": 32}],
        ),
    }
    for name, (pick, guard, sizes) in cases.items():
        folder = _copy(name, tmp_path)
        written, _ = _tune_edit(folder, pick)
        assert written is not None and guard in written, (name, written)
        (folder / "kernel.py").write_text(written)
        _all_correct(folder, sizes)
    rows, note = _tune_edit(_copy("mm_tutorial_evenk", tmp_path / "rows"), {"BLOCK_M": 64, "BLOCK_N": 32, "GROUP_M": 2})
    assert rows is not None and note is None and "BLOCK_M=64, BLOCK_N=32, BLOCK_K=32, GROUP_M=2" in rows
    # the tutorial's EVEN_K heuristic: a flag computed from the block moves with it, one from a literal does not
    from kernelopt.tunables.guard import guard_edit

    source = (DATA / "mm_tutorial_evenk" / "kernel.py").read_text()
    flagged = (
        source.replace(
            "@triton.jit\ndef matmul_kernel",
            '@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})\n@triton.jit\ndef matmul_kernel',
        )
        .replace("GROUP_M: tl.constexpr):", "GROUP_M: tl.constexpr, EVEN_K: tl.constexpr):")
        .replace(
            "        a = tl.load(a_ptrs)\n        b = tl.load(b_ptrs)\n",
            "        if EVEN_K:\n            a = tl.load(a_ptrs)\n            b = tl.load(b_ptrs)\n        else:\n"
            "            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)\n"
            "            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)\n",
        )
        .replace('    assert K % 32 == 0, "K must be a multiple of 32"\n', "")
    )
    assert "if EVEN_K:" in flagged and '"K must be' not in flagged
    wider = "BLOCK_K=64, GROUP_M=4"
    tied = guard_edit(flagged, flagged.replace("BLOCK_K=32, GROUP_M=4", wider))
    assert tied.note is None and tied.new_source is not None and wider in tied.new_source
    literal = flagged.replace('args["K"] % args["BLOCK_K"] == 0', 'args["K"] % 32 == 0')
    copied = guard_edit(literal, literal.replace("BLOCK_K=32, GROUP_M=4", wider))
    assert copied.new_source is not None and "    if K % 64 == 0:  # kernelopt: tuned\n" in copied.new_source


@pytest.mark.timeout(120)
def test_a_tile_whose_value_is_copied_into_a_buffer_s_size_or_the_grid_is_not_moved_apart_from_it(
    tmp_path: Path,
) -> None:
    """Seen on 2026-12-05 (v18, wrongkernel8's hunt): sum_two_stage, a two-stage sum whose partial-sum buffer and
    grid are sized with the block's value written again (``num = triton.cdiv(n, 256)``, ``(triton.cdiv(n, 256),)``
    beside ``BLOCK=256``). ``BLOCK=512`` went out with the grid's copy moved and the buffer's not: right at the
    SHAPES' 100 and 256 elements (one block), and at 700, which the original handled, the second stage summed a
    partial no program wrote (a smaller tile writes past the buffer). A copy of a moved tile's value left in the
    launching function is refused in one line; a buffer sized by the tile's name moves with it."""
    folder = _copy("sum_two_stage", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is None and note is not None
    assert note.startswith(
        "BLOCK=512 moves the tile from 256, but line 27 still divides by 256 (triton.cdiv(n, 256))"
    ), note
    source = (folder / "kernel.py").read_text()
    named = source.replace(
        "    num = triton.cdiv(n, 256)\n", "    BLOCK = 256\n    num = triton.cdiv(n, BLOCK)\n"
    ).replace(
        "partial_sum[(triton.cdiv(n, 256),)](x, partials, n, BLOCK=256)",
        "partial_sum[(num,)](x, partials, n, BLOCK=BLOCK)",
    )
    assert "    BLOCK = 256\n" in named and "(num,)](x, partials, n, BLOCK=BLOCK)" in named
    (folder / "kernel.py").write_text(named)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is not None and "    BLOCK = 512\n" in written, (written, note)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n": 700}, {"n": 3000}, {"n": 1}])


@pytest.mark.timeout(120)
def test_a_tile_whose_value_a_module_constant_copies_into_the_grid_is_not_moved_apart_from_it(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v23, wrongkernel9's hunt): grid_named_copy, a vector kernel whose grid is sized by a
    module constant of the tile's value (``triton.cdiv(n, ROWS_PER_PROGRAM)``, ``ROWS_PER_PROGRAM = 256``) beside
    ``BLOCK=256``. ``BLOCK=128`` went out plainly: right at the SHAPES' 100 and 128 elements, and at 200 and 700,
    which the original handled, half of each program's elements were never written. v18's rule read a literal
    divisor only; a named copy (a module constant or a local bound once) is read the same: not written, one line.
    The constant's own value moved with the tile, or a constant of another value, is not a copy."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("grid_named_copy", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 128})
    assert written is None and note is not None
    assert note.startswith(
        "BLOCK=128 moves the tile from 256, but line 21 still divides by 256 (triton.cdiv(n, ROWS_PER_PROGRAM), "
        "ROWS_PER_PROGRAM = 256)"
    ), note
    source = (folder / "kernel.py").read_text()
    both = source.replace("ROWS_PER_PROGRAM = 256", "ROWS_PER_PROGRAM = 128").replace("BLOCK=256)", "BLOCK=128)")
    moved = guard_edit(source, both)
    assert moved.new_source is not None and moved.note is None, moved.note
    other = source.replace("ROWS_PER_PROGRAM = 256", "ROWS_PER_PROGRAM = 64")
    assert guard_edit(other, other.replace("BLOCK=256)", "BLOCK=512)")).new_source is not None
    (folder / "kernel.py").write_text(moved.new_source)
    _all_correct(folder, [{"n": 200}, {"n": 700}, {"n": 1}])


@pytest.mark.timeout(120)
def test_a_copy_of_a_value_two_tiles_share_is_read_by_the_size_it_divides(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v26, wrongkernel9's hunt): tile_sum_shared, a two-stage sum over 64 x 64 tiles whose
    partials buffer is sized ``triton.cdiv(M, 64) * triton.cdiv(N, 64)`` beside ``BLOCK_M=64, BLOCK_N=64``, the
    program ids unpacked ``pid_m, pid_n = tl.program_id(0), tl.program_id(1)``. Two misreadings: the unpacked ids
    were not read as program ids, so ``BLOCK_M`` read as one block covering ``M`` and ``BLOCK_M=32`` was written
    under ``if M <= 32:`` with the grid's literal moved outside the guard (out of bounds at 100 rows); and a copy
    of a value two tiles share was read as neither's (v18). A shared value's copy is the moved tile's where it
    divides the size its ranges are compared with: not written, one line; both tiles moved together are written
    (correct at 130 x 130)."""
    import libcst as cst

    from kernelopt.tunables.blocks import steps_by
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = _copy("tile_sum_shared", tmp_path)
    source = (folder / "kernel.py").read_text()
    fn = next(n for n in cst.parse_module(source).body if isinstance(n, cst.FunctionDef) and n.name.value == "tile_sum")
    assert steps_by(fn, "BLOCK_M") and steps_by(fn, "BLOCK_N")
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))  # one preparation for both picks
    for pick, line in (({"BLOCK_M": 32}, "(triton.cdiv(M, 64))"), ({"BLOCK_N": 32}, "(triton.cdiv(N, 64))")):
        written, note = _tune_edit(folder, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK": 128, **pick}, prepared=prepared)
        assert written is None and note is not None and f"still divides by 64 {line}" in note, note
    every = source.replace("triton.cdiv(M, 64), triton.cdiv(N, 64)", "triton.cdiv(M, 32), triton.cdiv(N, 32)")
    every = every.replace("BLOCK_M=64, BLOCK_N=64", "BLOCK_M=32, BLOCK_N=32")
    assert every.count("cdiv(M, 32)") == 2
    moved = guard_edit(source, every)  # every copy moved with the tiles
    assert moved.new_source is not None and moved.note is None, moved.note
    (folder / "kernel.py").write_text(moved.new_source)
    _all_correct(folder, [{"M": 130, "N": 130}, {"M": 20, "N": 100}])


@pytest.mark.timeout(120)
def test_a_count_of_parts_written_as_the_product_of_two_settings_moves_only_with_it(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v27, wrongkernel9's hunt): splitk_parts, a split-K dot product whose programs each sum
    ``STEPS=4`` steps of ``BLOCK_K=16``, the number of parts written ``triton.cdiv(K, 64)``. ``BLOCK_K=8`` (or
    ``STEPS=2``) went out plainly: right at the SHAPES' K of 20 and 32 (one part), and at 100 and 300, which the
    original handled, the parts covered half of K. A divisor equal to the product of two settings the edit moves is
    their copy: not written, one line; both moved with their product kept are written (correct at K 100 and 300)."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = _copy("splitk_parts", tmp_path)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))  # one preparation for the three picks
    for pick in ({"BLOCK_K": 8, "STEPS": 4}, {"BLOCK_K": 16, "STEPS": 2}):
        written, note = _tune_edit(folder, pick, prepared=prepared)
        assert written is None and note is not None, (pick, written)
        assert "moves from 64 to 32, but line 23 still divides by 64 (triton.cdiv(K, 64))" in note, note
    written, note = _tune_edit(folder, {"BLOCK_K": 32, "STEPS": 2}, prepared=prepared)
    assert written is not None and "BLOCK_K=32, STEPS=2)" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 2, "K": 100}, {"M": 2, "K": 300}, {"M": 3, "K": 1}])


@pytest.mark.timeout(120)
def test_a_grid_copy_of_a_one_block_setting_moves_inside_its_guard(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v28, guardgrid10): rows_one_block_atomic, a row sum whose one block covers every row
    (``rows < M``, at most 32 rows), added into its output with ``tl.atomic_add``, its grid written from the row
    block's value (``triton.cdiv(M, 32)`` beside ``BLOCK_M=32``: one program). ``BLOCK_M=16`` went out under the
    one-block guard ``if M <= 16:`` with the grid's copy moved to ``triton.cdiv(M, 16)`` outside it: right at the
    SHAPES' 8 and 16 rows; at 20, 30 and 32 rows, which the original handled, two programs of 32 rows each added
    every row, twice. The copy is now the guard's, as a divisor guard's grid copy is: ``triton.cdiv(M,
    BLOCK_M)``, correct at 20 and 32 rows; a named copy the edit leaves refuses it in one line (v23)."""
    folder = _copy("rows_one_block_atomic", tmp_path)
    source = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 128})
    assert written is not None and note is not None and "BLOCK_M=16 only where M <= 16" in note, note
    assert "if M <= 16:  # kernelopt: tuned" in written, written
    assert "row_sum[(triton.cdiv(M, BLOCK_M),)](x, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=128)" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 100}, {"M": 32, "N": 7}])
    named = source.replace("row_sum[(triton.cdiv(M, 32),)]", "ROWS = 32\n    row_sum[(triton.cdiv(M, ROWS),)]")
    (folder / "kernel.py").write_text(named)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 128})
    assert written is None and note is not None and "still divides by 32 (triton.cdiv(M, ROWS)" in note, note


@pytest.mark.timeout(120)
def test_a_one_block_guard_leaves_the_grid_copy_of_another_block_moved_plainly(tmp_path: Path) -> None:
    """v28's companion (guardgrid10, 2026-12-05): colsum_one_block, column sums whose one block covers every row
    (``BLOCK_M=32``, at most 32 rows) while the grid tiles the columns (``triton.cdiv(N, 32)`` beside
    ``BLOCK_N=32``, the same value). With both moved to 16, the row block is guarded (``if M <= 16:``) and the
    column block moves with its grid's copy, which divides ``N``, not the guard's ``M``: written, and correct at 20
    and 32 rows and 33 and 100 columns, sizes the SHAPES do not name. Since tablebound13 (every setting beside a
    guarded tile falls back with it) the column block is set under the same guard, its grid's copy named."""
    folder = _copy("colsum_one_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16})
    assert written is not None and note is not None and "BLOCK_M=16 only where M <= 16" in note, note
    assert "if M <= 16:  # kernelopt: tuned" in written, written
    assert "col_sum[(triton.cdiv(N, BLOCK_N),)](x, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 100}, {"M": 32, "N": 33}, {"M": 5, "N": 16}])


@pytest.mark.timeout(120)
def test_a_block_pointer_covering_its_columns_in_one_block_is_guarded_by_them(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v29, guardgrid10): rows_blockptr_one_block, row sums whose block pointer
    ``tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid * BLOCK_M, 0), (BLOCK_M, BLOCK_N), (1, 0))`` covers every
    column in one block (``BLOCK_N=128``, ``assert N <= 128``, the column offset 0 and never advanced), loaded
    with ``boundary_check=(0, 1)``. ``BLOCK_N=64`` went out plainly: right at the SHAPES' 50 and 60 columns; at
    100 columns, which the original handled, the columns past 64 were never summed. The one-block rule
    (``blocks.one_block``) read ranges compared in masks only; a block pointer's axis at offset 0 in a kernel
    that advances none is one block too: ``if N <= 64:  # kernelopt: tuned``, correct at 100 and 128 columns."""
    folder = _copy("rows_blockptr_one_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None and "if N <= 64:  # kernelopt: tuned" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 100}, {"M": 40, "N": 128}])


@pytest.mark.timeout(120)
def test_a_block_pointer_advanced_along_one_axis_still_covers_the_other_in_one_block(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (v30, wrongkernel10): bp_advance_onecol, ``x @ w`` for at most 64 output columns through
    block pointers advanced along K (``w_blk = tl.advance(w_blk, (BLOCK_K, 0))``), w's columns at offset 0 in one
    block of ``BLOCK_N=64``. v29's rule read no axis of a kernel with any ``tl.advance`` as one block, so
    ``BLOCK_N=32`` went out plainly: right at the SHAPES' 20 and 30 columns, wrong at 50 and 64, which the original
    handled. An advance now moves the axes its offsets name: ``if N <= 32:  # kernelopt: tuned``."""
    folder = _copy("bp_advance_onecol", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 16})
    assert written is not None and "if N <= 32:  # kernelopt: tuned" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 50, "K": 33}, {"M": 7, "N": 64, "K": 16}, {"M": 3, "N": 5, "K": 70}])


@pytest.mark.timeout(120)
def test_a_tensor_descriptor_covering_its_columns_in_one_block_is_guarded_by_them(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (v31, wrongkernel10): desc_one_block, v29's row sums through
    ``tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])`` loaded at
    ``[pid * BLOCK_M, 0]``, every column in one block (``BLOCK_N=128``). ``BLOCK_N=64`` went out plainly: right
    at the SHAPES' 48 and 60 columns, at 100 and 128 the columns past 64 were never summed (a descriptor reads
    past its shape as zeros: no divisor needed, but one block must still cover). Now ``if N <= 64:``."""
    folder = _copy("desc_one_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None and "if N <= 64:  # kernelopt: tuned" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 100}, {"M": 40, "N": 128}, {"M": 33, "N": 4}])


@pytest.mark.timeout(120)
def test_a_table_row_of_a_falling_computation_keeps_its_block_covering_or_is_not_written(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (v32, wrongkernel10; break10 b2's bound assumed a computation rising with size):
    heur_falling, row sums whose one block per row is the heuristic ``4096 // next_power_of_2(args["R"])`` (the
    rows share a budget: the block falls as the batch grows). A session picking ``BLOCK=128`` (right at the SHAPES'
    16 and 32 rows of 100 columns) wrote ``128 if args["R"] <= 32 else <computation>``: at 16 rows of 200
    columns, which the original handled with a block of 256, 72 columns went unsummed; the same table written
    after a computed ``BLOCK`` in ``run()`` did the same. A row over another size than the one the block covers is
    not written now, in one line; a row bounding that size, or the computation itself (b2's form), is: the
    session's table is bounded by N (tunegaps11, tests/test_tunegaps11_cases.py)."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("heur_falling", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK": 128})
    # tunegaps11: the table is bounded by the size the block covers (N), not by R, which the block falls with
    assert written is not None and '128 if args["N"] <= 100 else 4096 //' in written, (note, written)
    heuristic = 'lambda args: 4096 // triton.next_power_of_2(args["R"])'
    table = original.replace(heuristic, heuristic.replace("args: ", 'args: 128 if args["R"] <= 32 else '))
    (folder / "kernel.py").write_text(table)  # what was written before: wrong where a row is wider than 128
    assert _correct_padded(folder, [{"R": 16, "N": 200}, {"R": 32, "N": 100}]) == {
        "R=16,N=200": False,
        "R=32,N=100": True,
    }
    (folder / "kernel.py").write_text(original)
    bounded = original.replace(heuristic, heuristic.replace("args: ", 'args: 128 if args["N"] <= 128 else '))
    assert guard_edit(original, bounded).new_source == bounded
    over_itself = original.replace(
        heuristic, heuristic.replace("args: ", f"args: 128 if {heuristic[13:]} <= 128 else ")
    )
    assert guard_edit(original, over_itself).new_source == over_itself
    launched = original.replace(f'@triton.heuristics({{"BLOCK": {heuristic}}})\n', "").replace(
        "_rsum[(R,)](x, y, R, N)", "BLOCK = 4096 // triton.next_power_of_2(R)\n    _rsum[(R,)](x, y, R, N, BLOCK=BLOCK)"
    )
    (folder / "kernel.py").write_text(launched)
    written, note = _tune_edit(folder, {"BLOCK": 128})
    assert written is not None and "    if N <= 100:  # kernelopt: tuned\n        BLOCK = 128\n" in written, (
        note,
        written,
    )


@pytest.mark.timeout(120)
def test_a_tile_on_the_grid_s_second_axis_keeps_its_programs_within_the_launch_limit(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v33, wrongkernel10): grid_axis1_cols, a row scale on a grid of ``(n_rows,
    triton.cdiv(n_cols, 1024))`` beside ``BLOCK=1024``. ``BLOCK=256`` went out plainly, the grid's copy moved
    with it: right at every size in Triton's interpreter, which runs any grid, but a GPU takes at most 65535
    programs on a grid's second axis (``gridDim.y``; Triton passes it to the driver unchecked), so at rows of
    more than 256 * 65535 = 16,776,960 columns, which the original ran up to 67,107,840, the launch fails. Now
    the tile covers at most 65535 of itself there: ``if n_cols <= 256 * 65535:  # kernelopt: tuned`` (the GPU
    half: ``test_the_tenth_round_s_written_kernels_compile_and_hold_on_a_gpu``)."""
    folder = _copy("grid_axis1_cols", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None and note is not None and "at most 65535 on a GPU" in note, (note, written)
    assert "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n" in written, written
    assert "row_scale[(n_rows, triton.cdiv(n_cols, BLOCK))]" in written, written
    written, note = _tune_edit(folder, {"BLOCK": 2048})  # fewer programs: holds wherever the original did
    assert written is not None and "BLOCK=2048)" in written and "kernelopt: tuned" not in written, (note, written)


@pytest.mark.timeout(120)
def test_a_reversed_scan_over_masked_lanes_not_neutral_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (v34, wrongkernel10; wrongkernel9 left scans, reasoning only forward ones):
    rev_cumsum_exp, the reverse cumulative sum of ``exp`` over rows a multiple of 128, block by block from the
    row's end, ``tl.cumsum(e, axis=0, reverse=True)`` over a load filling 0.0 (``exp`` makes it 1), the carry's
    total masked again. ``BLOCK=256`` went out plainly: right at the SHAPES' 256 and 512 columns; at 384 and 128,
    which the original handled, every kept lane of the last block took in one per masked-out lane after it. A
    reversed scan (``reverse=True``, or over a ``tl.flip``) is read as its reduction now; a forward one's kept
    lanes come before the masked-out tail and stay as they were: ``if n_cols % 256 == 0:  # kernelopt: tuned``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("rev_cumsum_exp", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None and "    if n_cols % 256 == 0:  # kernelopt: tuned\n" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 2, "n_cols": 384}, {"n_rows": 3, "n_cols": 128}, {"n_rows": 1, "n_cols": 640}])
    flipped = original.replace("tl.cumsum(e, axis=0, reverse=True)", "tl.flip(tl.cumsum(tl.flip(e, 0), axis=0), 0)")
    moved = guard_edit(flipped, flipped.replace("BLOCK=128)", "BLOCK=256)")).new_source
    assert moved is not None and "if n_cols % 256 == 0:  # kernelopt: tuned" in moved, moved
    forward = original.replace(", reverse=True", "")  # kept lanes before the masked-out tail: moved plainly
    assert guard_edit(forward, forward.replace("BLOCK=128)", "BLOCK=256)")).new_source == forward.replace(
        "BLOCK=128)", "BLOCK=256)"
    )


@pytest.mark.timeout(120)
def test_a_persistent_stride_in_a_while_loop_never_moves_past_the_programs_a_fixed_grid_gives(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (v35, wrongkernel10): persist_while, v13's persistent GEMM on a grid of 4 programs with
    its tiles walked as the grouped GEMM tutorial walks them, ``tile = pid`` / ``while tile < num_tiles:`` / ``tile
    += NUM_SMS``. ``NUM_SMS=8`` went out plainly: right at the SHAPES' 1 and 4 tiles; at 96 x 100 (12 tiles), which
    the original handled, 4 tiles were never written. v13's rule read ``range(pid, .., NUM_SMS)`` only; a ``while``
    loop stepping a program id by the stride is the same stride: not written, one line; ``NUM_SMS=2`` is."""
    folder = _copy("persist_while", tmp_path)
    written, note = _tune_edit(folder, {"NUM_SMS": 8})
    assert written is None and note is not None and "more than the 4 programs the launch" in note, (note, written)
    written, note = _tune_edit(folder, {"NUM_SMS": 2})
    assert written is not None and "NUM_SMS=2" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 96, "N": 100, "K": 8}])


_POW2 = "    BLOCK = triton.next_power_of_2(n_cols)\n"
_POW2_ROWS = (
    "    if n_cols <= 64:  # kernelopt: tuned\n        BLOCK = 64\n"
    "    elif n_cols <= 128:  # kernelopt: tuned\n        BLOCK = 128\n"
)


@pytest.mark.timeout(120)
def test_a_table_row_over_a_one_block_sort_whose_masked_lanes_are_read_is_not_written(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v36, wrongkernel11): sort_pow2, each row sorted in one block of
    ``triton.next_power_of_2(n_cols)`` lanes, masked ``cols < n_cols`` and filling 0.0 (rows a power of two long, so
    no lane is masked out). A session whose entries (64 and 128 columns) want their own blocks wrote the table ``if
    n_cols <= 64: BLOCK = 64`` / ``elif n_cols <= 128: BLOCK = 128``: right at both entries; at 32 and 16 columns,
    which the original handled with blocks of 32 and 16, the masked-out lanes' zeros sorted into the row. The net's
    sizes all lie above the largest entry: it never sees a row's lower sizes. A sort moves the masked-out tail onto
    kept lanes (unless it holds what sorts last, ``+inf`` ascending), as a max reads a zero fill (v20): such a
    one-block block is right only where it fills its size, so no row over the computation is written, for a sort or
    a max; a fill of ``+inf`` sorts last and its table is written."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("sort_pow2", tmp_path)
    original = (folder / "kernel.py").read_text()
    table = original.replace(_POW2, _POW2 + _POW2_ROWS)
    (folder / "kernel.py").write_text(table)  # what was written before: wrong below the smallest entry
    got = _correct_padded(folder, [{"n_rows": 1, "n_cols": 32}, {"n_rows": 2, "n_cols": 64}])
    assert got == {"n_rows=1,n_cols=32": False, "n_rows=2,n_cols=64": True}, got
    refused = guard_edit(original, table)
    assert refused.new_source is None and "masked-out lanes are read as data" in (refused.note or ""), refused
    one = original.replace(_POW2, _POW2 + "    if n_cols <= 128:  # kernelopt: tuned\n        BLOCK = 128\n")
    assert guard_edit(original, one).new_source is None  # one value for both entries: a row up to the largest
    store = "tl.store(y_ptr + row * n_cols + cols, tl.sort(x, 0), mask=cols < n_cols)"
    maxed = original.replace(store, "tl.store(y_ptr + row, tl.max(x, 0))")
    assert guard_edit(maxed, maxed.replace(_POW2, _POW2 + _POW2_ROWS)).new_source is None
    last = original.replace("other=0.0", 'other=float("inf")')  # sorted last: the kept lanes are the row's
    assert guard_edit(last, last.replace(_POW2, _POW2 + _POW2_ROWS)).new_source is not None


@pytest.mark.timeout(120)
def test_a_one_block_table_is_freed_of_filling_its_size_only_where_the_original_ran_masked_lanes(
    tmp_path: Path,
) -> None:
    """lanelift11 (2026-12-06): v36's rule (a one-block block whose masked-out lanes are read as data must fill its
    size) is lifted for a table row by evidence only: the original ran one block wider than the size at an entry and
    passed there (Unsloth's cross-entropy, tests/test_breaker7_cases.py). sort_pow2's entries are powers of two, so
    the original never masks a lane at one: with its run known to pass, the row over the sort (and over a max of
    the zero fill) is still refused; the guard given the evidence writes it."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("sort_pow2", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK": 128}, current=True)
    assert written is None and "masked-out lanes are read as data" in (note or ""), (note, written)
    store = "tl.store(y_ptr + row * n_cols + cols, tl.sort(x, 0), mask=cols < n_cols)"
    (folder / "kernel.py").write_text(original.replace(store, "tl.store(y_ptr + row, tl.max(x, 0))"))
    written, note = _tune_edit(folder, {"BLOCK": 128}, current=True)
    assert written is None and "masked-out lanes are read as data" in (note or ""), (note, written)
    table = original.replace(_POW2, _POW2 + _POW2_ROWS)
    assert guard_edit(original, table, ran_masked={("BLOCK", "n_cols")}).new_source == table
    assert guard_edit(original, table, ran_masked={("BLOCK", "n_rows")}).new_source is None  # another size's


@pytest.mark.timeout(120)
def test_a_block_flipped_or_gathered_onto_its_mirror_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v37, wrongkernel11): flip_mirror, each row reversed block by block, block ``i`` flipped
    with ``tl.flip`` and stored as block ``n / BLOCK - 1 - i`` (rows a multiple of 128, masks on the columns).
    ``BLOCK=256`` went out plainly: right at the SHAPES' 256 and 512 columns; at 384 and 128, which the original
    handled, the last block's masked-out tail was flipped onto kept lanes and the mirror fell before the row (written
    out of bounds). The net caught it at 640 columns; the rules now read a flip, a ``tl.gather`` and a sort as moving
    the tail onto kept lanes: ``if n_cols % 256 == 0:  # kernelopt: tuned``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("flip_mirror", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None and "    if n_cols % 256 == 0:  # kernelopt: tuned\n" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 2, "n_cols": 384}, {"n_rows": 3, "n_cols": 128}])
    gathered = original.replace("tl.flip(x, 0)", "tl.gather(x, BLOCK - 1 - tl.arange(0, BLOCK), 0)")
    moved = guard_edit(gathered, gathered.replace("BLOCK = 128", "BLOCK = 256")).new_source
    assert moved is not None and "if n_cols % 256 == 0:  # kernelopt: tuned" in moved, moved
    plain = original.replace("tl.flip(x, 0)", "x").replace("dst = n_cols - (blk + 1) * BLOCK + ", "dst = cols + 0 * ")
    assert guard_edit(plain, plain.replace("BLOCK = 128", "BLOCK = 256")).new_source == plain.replace(
        "BLOCK = 128", "BLOCK = 256"
    )  # a copy block by block moves no lane: moved plainly
    scan = (DATA / "rev_cumsum_exp" / "kernel.py").read_text().replace("tl.exp(tl.load(", "(tl.load(")
    back = scan.replace("tl.cumsum(e, axis=0, reverse=True)", "tl.flip(tl.cumsum(tl.flip(e, 0), axis=0), 0)")
    assert guard_edit(back, back.replace("BLOCK=128)", "BLOCK=256)")).new_source == back.replace(
        "BLOCK=128)", "BLOCK=256)"
    )  # flipped back where they were, a reversed scan over a neutral fill: moved plainly


@pytest.mark.timeout(120)
def test_a_block_pointer_made_inline_in_its_load_keeps_its_unchecked_block_a_divisor(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v38, wrongkernel11): bp_inline, a GEMM whose loads make their block pointers inline,
    ``tl.load(tl.make_block_ptr(a_ptr, (M, K), .., (pid_m * BLOCK_M, k), (BLOCK_M, BLOCK_K), ..),
    boundary_check=(0,))``, K unchecked (``assert K % 32 == 0``). ``BLOCK_K=64`` went out plainly: right at the SHAPES'
    K of 64 and 128; at 96 and 32, which the original handled, A's rows were read past K. The rule read only block
    pointers bound to a name (v12, bp_advance); one made in the access is read the same now: ``if K % 64 == 0``."""
    folder = _copy("bp_inline", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_K": 64})
    assert written is not None and "    if K % 64 == 0:  # kernelopt: tuned\n" in written, (note, written)
    assert note is not None and "a_ptr (made inline) without a boundary check on axis 1" in note, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 24, "K": 96}, {"M": 7, "N": 5, "K": 32}])
    written, note = _tune_edit(_copy("bp_inline", tmp_path / "rows"), {"BLOCK_M": 32})  # rows checked: plainly
    assert written is not None and "kernelopt: tuned" not in written and "(triton.cdiv(M, 32)" in written, note


@pytest.mark.timeout(120)
def test_a_block_pointer_s_padding_read_by_a_max_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v39, wrongkernel11): bp_rowmax, a row max through a block pointer advanced along the row,
    ``tl.load(blk, boundary_check=(0, 1), padding_option="zero")`` (rows a multiple of 64, values below zero).
    ``BLOCK_N=128`` went out plainly: right at the SHAPES' 128 and 256 columns; at 192 and 64, which the original
    handled, the padding's zeros won the max. A boundary check pads as a mask fills: a checked axis whose padding
    reaches a reduction not neutral for it is read as unchecked, ``if N % 128 == 0``; the rows' block (reduced
    across, never along) moves plainly, and so does the column block of a sum, whose zero padding adds nothing."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("bp_rowmax", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK_N": 128})
    assert written is not None and "    if N % 128 == 0:  # kernelopt: tuned\n" in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 192}, {"M": 7, "N": 64}])
    wider = original.replace("BLOCK_M=16, BLOCK_N=64", "BLOCK_M=32, BLOCK_N=64").replace("cdiv(M, 16)", "cdiv(M, 32)")
    assert guard_edit(original, wider).new_source == wider
    summed = original.replace("m = tl.maximum(m, tl.max(x, axis=1))", "m = m + tl.sum(x, axis=1)")
    moved = summed.replace("BLOCK_M=16, BLOCK_N=64", "BLOCK_M=16, BLOCK_N=128")
    assert guard_edit(summed, moved).new_source == moved


@pytest.mark.timeout(120)
def test_a_block_striding_a_buffer_padded_to_its_value_is_not_moved_apart_from_it(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v40, wrongkernel11): padded_rows, rows of at most 128 columns stored into a buffer padded
    to the block, ``y = torch.empty(M, 128)`` and ``y_ptr + row * BLOCK_N + cols`` beside ``BLOCK_N=128``, SHAPES of
    one row each (batch-1 decoding). ``BLOCK_N=256`` (one block still covers every row) went out plainly with the
    net on: right at the SHAPES, where no second row exists, and at the net's sizes, which move no size of 1 (one
    row of 102 columns); at 3 rows, which the original handled, the second row was written past the first's end and
    the last past the buffer's. The buffer's 128 is the block's copy: not written, one line."""
    folder = _copy("padded_rows", tmp_path)
    original = (folder / "kernel.py").read_text()
    (folder / "kernel.py").write_text(original.replace("BLOCK_N=128)", "BLOCK_N=256)"))  # what was written before
    got = _correct_padded(folder, [{"M": 1, "N": 100}, {"M": 3, "N": 100}])
    assert got == {"M=1,N=100": True, "M=3,N=100": "wrote out of bounds"}, got
    (folder / "kernel.py").write_text(original)
    written, note = _tune_edit(folder, {"BLOCK_N": 256})
    assert written is None and note is not None, (note, written)
    assert "still allocates y with 128 (torch.empty(M, 128, device=x.device, dtype=x.dtype))" in note, note
    copied = original.replace("BLOCK_N=128)", "BLOCK_N=256)").replace("torch.empty(M, 128,", "torch.empty(M, 256,")
    from kernelopt.tunables.guard import guard_edit

    assert guard_edit(original, copied).new_source == copied  # the copy moved with it: written


@pytest.mark.timeout(120)
def test_a_tile_counted_in_a_product_of_settings_keeps_the_product_a_divisor(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v41, wrongkernel12): unroll_static, a vector scaled without masks (``assert n % 384 ==
    0``: hidden sizes 768, 1536, 3072), each program ``UNROLL=3`` blocks of ``BLOCK=128`` unrolled by
    ``tl.static_range(UNROLL)``, its grid ``triton.cdiv(n, meta["BLOCK"] * meta["UNROLL"])``. ``UNROLL=6`` (or
    ``BLOCK=256``) went out plainly **with the net on**: right at the SHAPES' 1536 and 3072, and at the one net size
    the original passes (768, below); at 1152 and 384, multiples of 384 and not of 768, which the original handled,
    the last program stored past the end. The grid's count read a lone tile only; a product of tiles is one
    divisor, guarded at its edited value: ``if n % 768 == 0``, and both moved at once ``if n % 1536 == 0``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("unroll_static", tmp_path)
    original = (folder / "kernel.py").read_text()
    got = _plainly(folder, "UNROLL=3)", "UNROLL=6)", [{"n": 768}, {"n": 1152}])  # what was written before
    assert got == {"n=768": True, "n=1152": "wrote out of bounds"}, got
    written, note = _tune_edit(folder, {"BLOCK": 128, "UNROLL": 6})
    assert written is not None and note is not None and "    if n % 768 == 0:  # kernelopt: tuned\n" in written, note
    both = guard_edit(original, original.replace("BLOCK=128, UNROLL=3", "BLOCK=256, UNROLL=6")).new_source
    assert both is not None and both.count("if n % 1536 == 0:  # kernelopt: tuned") == 1, both
    smaller = original.replace("BLOCK=128, UNROLL=3", "BLOCK=64, UNROLL=6")  # 384 still: legal wherever 384 was
    assert guard_edit(original, smaller).new_source == smaller
    unread = original.replace('meta["UNROLL"]),)', 'meta["UNROLL"] * meta["STEP"]),)')
    refused = guard_edit(unread, unread.replace("UNROLL=3)", "UNROLL=6)"))
    assert refused.new_source is None and "does not read the other factors' values" in (refused.note or ""), refused
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n": 1152}, {"n": 384}, {"n": 1536}, {"n": 3840}])


@pytest.mark.timeout(120)
def test_a_loop_stepping_by_a_product_of_settings_keeps_the_product_a_divisor(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v42, wrongkernel12): rowsum_unroll, row sums without masks (``assert n_cols % 384 ==
    0``), the loop ``for start in range(0, n_cols, BLOCK * UNROLL)`` over ``tl.static_range(UNROLL)`` blocks.
    ``UNROLL=6`` (or ``BLOCK=256``) went out plainly with the net on (its one size the original passes, 768
    columns, a multiple of 768): at 1152 and 384 columns, which the original handled, each row's sum read past the
    row. The loop rule read a step of one name only; a product of settings is one divisor, as v41's grid."""
    folder = _copy("rowsum_unroll", tmp_path)
    shapes = [{"n_rows": 1, "n_cols": 768}, {"n_rows": 3, "n_cols": 1152}]
    got = _plainly(folder, "UNROLL=3)", "UNROLL=6)", shapes)  # what was written before
    assert got == {"n_rows=1,n_cols=768": True, "n_rows=3,n_cols=1152": False}, got
    written, note = _tune_edit(folder, {"BLOCK": 256, "UNROLL": 3})
    assert written is not None and note is not None and "    if n_cols % 768 == 0:  # kernelopt: tuned\n" in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 3, "n_cols": 1152}, {"n_rows": 2, "n_cols": 384}, {"n_rows": 2, "n_cols": 1536}])


@pytest.mark.timeout(120)
def test_a_row_covered_by_a_fixed_count_of_blocks_keeps_the_product_covering(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v43, wrongkernel12): chunks_row, each row (at most 1024 columns) one program summing
    ``CHUNKS=4`` blocks of ``BLOCK=256``, ``for i in tl.static_range(CHUNKS)`` over ``i * BLOCK + tl.arange(0,
    BLOCK)`` masked on the columns. ``CHUNKS=2`` (or ``BLOCK=128``) went out plainly with the rules alone: right at
    the SHAPES' 300 and 500 columns; at 700 and 1000, which the original handled, the columns past 512 went
    unsummed (the net caught it at 513). ``i * BLOCK`` was read as stepping by the block, as a loop over a size
    does, so any block was read as covering any row. A loop counting to a number the launch fixes covers that many
    blocks and no more: ``if n_cols <= 512``; a count the launch computes from the size (``triton.cdiv(n_cols,
    256)``) still steps, and a literal count widens the block's reach (``n_cols <= 128 * 4``)."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("chunks_row", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK": 256, "CHUNKS": 2})
    assert written is not None and note is not None and "    if n_cols <= 512:  # kernelopt: tuned\n" in written, note
    wider = original.replace("BLOCK=256, CHUNKS=4", "BLOCK=128, CHUNKS=8")  # 1024 still: plainly
    assert guard_edit(original, wider).new_source == wider
    sized = original.replace("CHUNKS=4)", "CHUNKS=triton.cdiv(n_cols, 256))")
    moved = sized.replace("BLOCK=256, CHUNKS=triton.cdiv(n_cols, 256)", "BLOCK=128, CHUNKS=triton.cdiv(n_cols, 128)")
    assert guard_edit(sized, moved).new_source == moved
    literal = original.replace("tl.static_range(CHUNKS)", "tl.static_range(4)").replace(", CHUNKS=4", "")
    literal = literal.replace(", CHUNKS: tl.constexpr", "")
    guarded = guard_edit(literal, literal.replace("BLOCK=256)", "BLOCK=128)")).new_source
    assert guarded is not None and "    if n_cols <= 128 * 4:  # kernelopt: tuned\n" in guarded, guarded
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 3, "n_cols": 700}, {"n_rows": 2, "n_cols": 1000}, {"n_rows": 2, "n_cols": 300}])


@pytest.mark.timeout(120)
def test_a_tile_reshaped_into_rows_of_a_size_keeps_that_size_a_divisor_of_it(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v44, wrongkernel12): reshape_rows, a softmax of many short rows (a power of two long, at
    most 1024), each program's ``BLOCK=1024`` contiguous elements reshaped into ``BLOCK // N`` rows of ``N``
    (``tl.reshape(x, (BLOCK // N, N))``, ``N: tl.constexpr``). ``BLOCK=256`` went out plainly **with the net on**:
    right at the SHAPES' 64 and 128 columns and at the one net size the original passes (32 columns, below; the
    others are no power of two); at 512 and 1024 columns, which the original handled, the reshape failed
    ("reshape() cannot change total number of elements"). A tile divided by a size is that size's multiple: ``if
    256 % n == 0``, the grid's copy of the block carried; a larger multiple moves plainly."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("reshape_rows", tmp_path)
    original = (folder / "kernel.py").read_text()
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None and note is not None and "    if 256 % n == 0:  # kernelopt: tuned\n" in written, note
    assert "softmax_rows[(triton.cdiv(n_rows * n, BLOCK),)]" in written, written
    wider = original.replace(
        "1024),)](x, y, n_rows * n, N=n, BLOCK=1024)", "2048),)](x, y, n_rows * n, N=n, BLOCK=2048)"
    )
    assert guard_edit(original, wider).new_source == wider
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 3, "n": 512}, {"n_rows": 2, "n": 1024}, {"n_rows": 33, "n": 256}])


@pytest.mark.timeout(120)
def test_a_tile_whose_value_the_kernel_writes_again_is_not_moved_apart_from_it(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v45, wrongkernel12): pid_map_literal, a 2-D scale over a 1-D grid of tiles, the kernel
    mapping its program to a tile with the column tile's value written again inside it (``num_pid_n = tl.cdiv(N,
    64)`` beside ``BLOCK_N=64`` at the launch). ``BLOCK_N=128`` went out plainly from the rules: right at the
    SHAPES' 50 and 64 columns, where one tile of either covers every row; at 65 columns and 129 rows, which the
    original handled, the programs mapped two column tiles a row and left the rows past 96 undone (the net caught
    it at 65). The rules read copies of a tile's value in the launching function only (v18, v23); the kernel's own
    copy, which no edit moves, refuses the move in one line. ``BLOCK_M`` moves plainly."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("pid_map_literal", tmp_path)
    original = (folder / "kernel.py").read_text()
    got = _plainly(folder, "BLOCK_N=64)", "BLOCK_N=128)", [{"M": 100, "N": 64}, {"M": 129, "N": 65}])  # before
    assert got == {"M=100,N=64": True, "M=129,N=65": False}, got
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 128})
    assert written is None and note is not None, (note, written)
    assert "the kernel scale_tiles still divides by 64 (line 12: tl.cdiv(N, 64))" in note, note
    rows = original.replace("BLOCK_M=32,", "BLOCK_M=16,")
    assert guard_edit(original, rows).new_source == rows


@pytest.mark.timeout(120)
def test_a_split_k_loop_over_k_per_split_keeps_the_step_times_the_splits_a_divisor(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v46, wrongkernel12): splitk_range, a split-K GEMV whose programs each sum ``K //
    SPLIT_K`` of K, ``for k in range(pid_k * k_per, (pid_k + 1) * k_per, BLOCK_K)``, the x loads without a mask
    (``assert K % 64 == 0``, ``SPLIT_K=4``, ``BLOCK_K=16``). ``BLOCK_K=32`` went out under ``if N % 32 == 0``, **the
    net on**: the grid's ``triton.cdiv(N, 32)``, BLOCK_N's own copy, was read as the moved tile's because its new
    value equals it, and the loop was read as nothing. Right at the SHAPES and at every net size (K of 640, 768,
    128 and 512: each split a multiple of 32); at N=64, K=192 (splits of 48), which the original handled, each split
    read 16 elements of the next and the sums were counted twice. The split's step times the splits is one product
    (v41): ``if K % 128 == 0``; a count literal the edit kept is no copy of the moved tile; a grid number moved with
    a guarded keyword is written as its name."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("splitk_range", tmp_path)
    original = (folder / "kernel.py").read_text()
    got = _plainly(folder, "BLOCK_K=16,", "BLOCK_K=32,", [{"N": 64, "K": 256}, {"N": 64, "K": 192}])  # before
    assert got == {"N=64,K=256": True, "N=64,K=192": False}, got
    written, note = _tune_edit(folder, {"BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4})
    assert written is not None and note is not None and "    if K % 128 == 0:  # kernelopt: tuned\n" in written, note
    assert "gemv_splitk[(triton.cdiv(N, 32), 4)]" in written, written
    splits = original.replace("4)](x, w, y, N, K, BLOCK_N=32, BLOCK_K=16, SPLIT_K=4)", "8)](x, w, y, N, K, BLOCK_N=32, "
                              "BLOCK_K=16, SPLIT_K=8)")  # fmt: skip
    carried = guard_edit(original, splits).new_source
    assert carried is not None and "if K % 128 == 0:" in carried and "32), SPLIT_K)](" in carried, carried
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"N": 64, "K": 192}, {"N": 32, "K": 320}, {"N": 40, "K": 512}])


def _guarded_past(folder: Path, old: str, new: str, shapes: list[dict[str, int]], guard: str, because: str) -> str:
    """``old`` replaced by ``new`` in ``folder``'s kernel (a pick written plainly) is wrong at the first of
    ``shapes`` and right at the rest; the rules write it under ``guard``, saying ``because``, and what they write is
    right at every one (left in the folder): the original text, for a test's own further edits."""
    from kernelopt.tunables.guard import guard_edit

    original = (folder / "kernel.py").read_text()
    got = _plainly(folder, old, new, shapes)  # before the rule
    labels = [",".join(f"{k}={v}" for k, v in shape.items()) for shape in shapes]
    assert got[labels[0]] is not True and all(got[label] is True for label in labels[1:]), got
    guarded = guard_edit(original, original.replace(old, new))
    written, note = guarded.new_source, guarded.note
    assert written is not None and note is not None and f"    {guard}  # kernelopt: tuned\n" in written, (note, written)
    assert because in note, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, shapes)
    return original


@pytest.mark.timeout(120)
def test_a_count_of_tiles_a_second_stage_covers_in_one_block_keeps_the_tile_times_the_block_covering(
    tmp_path: Path,
) -> None:
    """Found on 2026-12-06 (v47, wrongkernel13's hunt): parts_capped, a sum in two stages, ``BLOCK_SIZE = 1024``
    elements a partial sum (``num_parts = triton.cdiv(n, BLOCK_SIZE)``), then one program summing the partials with
    one block of ``MAX_PARTS=64`` (``assert n <= 65536``). ``BLOCK_SIZE = 512`` went out plainly, **the net on**:
    right at the SHAPES' 3000 and 8192 elements and at every net size (8193, 8196, 1501: at most 17 partials); at
    40000 elements, which the original handled, the partials past the 64th were never summed. The second
    stage's block was read as covering ``num_parts`` (``MAX_PARTS`` guarded by it), never the tile the count divides
    by. A count of tiles a fixed block covers is that tile times the block over the size: ``if n <= 32768``; a larger
    tile moves plainly, a block computed from the count (``triton.next_power_of_2(num_parts)``) requires nothing,
    and a range of half the block reaches half as far (``if n <= 32768 // 2``)."""
    from kernelopt.tunables.guard import guard_edit

    # the rules as tune runs them on its pick's text (the session's own worker is not started: the v43 test's
    # _tune_edit shows the path; here the guard is what is new); the original's block past 32768 elements
    shapes = [{"n": 40000}, {"n": 20000}]
    because = "the launch counts it in tiles of BLOCK_SIZE (triton.cdiv(n, BLOCK_SIZE))"
    folder = _copy("parts_capped", tmp_path)
    original = _guarded_past(folder, "BLOCK_SIZE = 1024", "BLOCK_SIZE = 512", shapes, "if n <= 32768:", because)
    wider = original.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 2048")
    assert guard_edit(original, wider).new_source == wider
    computed = original.replace("MAX_PARTS=64)", "MAX_PARTS=triton.next_power_of_2(num_parts))")
    smaller = computed.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 512")
    assert guard_edit(computed, smaller).new_source == smaller
    # a range of half the block (rows of at most 32 partials) reaches half as far: without its scale the guard read
    # n <= 32768 and summed 32 of the 64 partials between 16385 and 32768 elements
    half = original.replace("tl.arange(0, MAX_PARTS)", "tl.arange(0, MAX_PARTS // 2)").replace("65536", "32768")
    halved = guard_edit(half, half.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 512")).new_source
    assert halved is not None and "    if n <= 32768 // 2:  # kernelopt: tuned\n" in halved, halved


@pytest.mark.timeout(120)
def test_a_count_of_tiles_the_second_stage_computes_from_the_tile_keeps_the_tile_times_the_block_covering(
    tmp_path: Path,
) -> None:
    """Found on 2026-12-06 (v48, wrongkernel13's hunt): parts_counted, v47's two-stage sum with the count computed in
    the second kernel from the tile it is given (``num_parts = tl.cdiv(n, BLOCK)``, ``offs < num_parts`` under one
    block of ``MAX_PARTS=64``). v47's rule read a count the launch passes only, so ``BLOCK_SIZE = 512`` went out
    plainly, **the net on** (8193, 8196 and 1501 elements), wrong past 32768 elements. The kernel's count, its
    parameters put in from the launch (``tl.cdiv(n, BLOCK_SIZE)``), is read as the launch's: ``if n <= 32768``; a
    smaller ``MAX_PARTS`` is refused in one line (no one parameter is the count)."""
    from kernelopt.tunables.guard import guard_edit

    shapes = [{"n": 40000}, {"n": 20000}]
    because = "the launch counts it in tiles of BLOCK_SIZE (tl.cdiv(n, BLOCK_SIZE))"
    folder = _copy("parts_counted", tmp_path)
    original = _guarded_past(folder, "BLOCK_SIZE = 1024", "BLOCK_SIZE = 512", shapes, "if n <= 32768:", because)
    fewer = guard_edit(original, original.replace("MAX_PARTS=64", "MAX_PARTS=32"))
    assert fewer.new_source is None and fewer.note is not None and "no one kernel parameter" in fewer.note, fewer


@pytest.mark.timeout(120)
def test_a_count_of_tiles_a_fixed_count_of_blocks_covers_keeps_the_tile_times_the_product_covering(
    tmp_path: Path,
) -> None:
    """Found on 2026-12-06 (v50, wrongkernel13's hunt): parts_chunked, v47's two-stage sum whose second stage sums
    the partials in ``CHUNKS=4`` blocks of ``PART=16`` (``for i in tl.static_range(CHUNKS)`` over ``i * PART``, v43's
    form), both launch literals. v47's rule left a reading with a loop's count out, so ``BLOCK_SIZE = 512`` went out
    plainly, **the net on** (8193, 8196 and 1501 elements), wrong past 32768 elements. A fixed count is one more
    factor of the reach: ``if n <= 32768``."""
    because = "BLOCK_SIZE * CHUNKS * PART reaches n"
    folder = _copy("parts_chunked", tmp_path)
    _guarded_past(
        folder, "BLOCK_SIZE = 1024", "BLOCK_SIZE = 512", [{"n": 40000}, {"n": 20000}], "if n <= 32768:", because
    )


@pytest.mark.timeout(120)
def test_a_grid_axis_a_last_program_covers_in_one_block_keeps_its_tile_times_the_block_covering(tmp_path: Path) -> None:
    """Found on 2026-12-06 (v49, wrongkernel13's hunt): last_tile_sum, row sums in one launch: each program sums one
    tile of ``BLOCK_N=256`` columns into a row of ``TILES=16`` partial slots (``torch.empty(M, 16)``), counts itself
    in with ``tl.atomic_add``, and the row's last program sums the row's partials with one block, ``offs <
    tl.num_programs(1)``; the grid ``(M, triton.cdiv(N, 256))``, rows of at most 4096 columns. ``BLOCK_N=128`` went
    out under ``if N <= 128 * 65535`` (the grid axis limit), **the net on**: right at the SHAPES' 500 and 1000
    columns and at every net size (1025, 1002, 251); at 3000 and 4096 columns, which the original handled, each row
    wrote its partials past its 16 slots (into the next row's, the last past the buffer). ``TILES`` strides the
    partials by row, so the one-block reading took it as stepping; the grid axis a fixed block covers is v47's
    count: ``if N <= 2048 and N <= 128 * 65535``, the grid's copy of the tile carried."""
    folder = _copy("last_tile_sum", tmp_path)
    old, new = "cdiv(N, 256))](x, parts, count, y, N, BLOCK_N=256", "cdiv(N, 128))](x, parts, count, y, N, BLOCK_N=128"
    because = "covers the programs of its grid's axis 1 with one block of TILES (offs < tl.num_programs(1))"
    _guarded_past(
        folder, old, new, [{"M": 3, "N": 3000}, {"M": 3, "N": 2048}], "if N <= 2048 and N <= 128 * 65535:", because
    )
    assert "row_sums_last[(M, triton.cdiv(N, BLOCK_N))]" in (folder / "kernel.py").read_text()


@pytest.mark.timeout(120)
def test_a_one_block_row_compared_with_a_multiple_of_its_length_is_guarded_by_that_multiple(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v19, wrongkernel8's hunt): pairs_one_block, one block over a row of complex numbers
    stored as pairs, masked ``cols < 2 * n_pairs`` (``BLOCK=256``, rows of at most 128 pairs). The one-block rule
    read the size as ``n_pairs`` and wrote ``if n_pairs <= 64:`` over ``BLOCK=64``: right at the SHAPES' 10 and 30
    pairs, and at 60 pairs (120 floats), which the original handled, half the row was never normalized. The bound
    the comparison names is the guard's, the launch's arguments put in: ``if (2 * n_pairs) <= 64:``."""
    folder = _copy("pairs_one_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 64})
    assert written is not None and note is not None and "covers 2 * n_pairs with one block of BLOCK" in note, note
    assert "    if (2 * n_pairs) <= 64:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"rows": 2, "n_pairs": 60}, {"rows": 2, "n_pairs": 32}, {"rows": 1, "n_pairs": 128}])


@pytest.mark.timeout(120)
def test_a_jit_helper_imported_from_the_kernel_s_folder_is_refused_by_tune_and_guarded_by_tunables(
    tmp_path: Path,
) -> None:
    """Why a ``@triton.jit`` helper imported from another file of the folder is not read (wrongkernel8, the case v8
    left): ``tune``, like ``optimize`` and ``batch``, refuses such a kernel in one line before any candidate (its
    candidates load from folders of their own, where the import fails), so no session writes over one; the guard
    stays pure (it reads the text it is given, imports nothing), and for ``tunables --set``'s warning a block handed
    to the imported helper is read as unchecked: transpose_helper_store with its row-masked store in
    ``tileops.py`` gets ``if N % 32 == 0`` (correct at every N the original handled, if conservative)."""
    from kernelopt.errors import InputFileError
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = _copy("transpose_helper_store", tmp_path)
    source = (folder / "kernel.py").read_text()
    start, end = source.index("@triton.jit\ndef _store_rows"), source.index("@triton.jit\ndef transpose_kernel")
    (folder / "tileops.py").write_text("import triton\nimport triton.language as tl\n\n\n" + source[start:end])
    imported = source[:start].replace("import triton.language as tl\n", "import triton.language as tl\n"
                                      "from tileops import _store_rows\n") + source[end:]  # fmt: skip
    (folder / "kernel.py").write_text(imported)
    with pytest.raises(InputFileError, match="imports tileops from its own folder; .* tune loads each candidate"):
        prepare_folder(TuneRequest(folder=folder, device="cpu"))
    guarded = guard_edit(imported, imported.replace("BLOCK_N=16, num_warps", "BLOCK_N=32, num_warps"))
    assert guarded.new_source is not None and "    if N % 32 == 0:  # kernelopt: tuned\n" in guarded.new_source


def _guarded_over_rows(tmp_path: Path, name: str) -> None:
    """What ``tune`` writes for a pick of ``BLOCK=256`` over a row kernel of ``name`` whose rows are a multiple of
    128 and whose masked-out lanes reach a reduction unneutral: guarded by ``n_cols % 256``, correct at 384, 128
    and 640 columns."""
    folder = _copy(name, tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 256})
    assert written is not None and note is not None and "loads whose masks leave it unchecked" in note, note
    assert "    if n_cols % 256 == 0:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n_rows": 2, "n_cols": 384}, {"n_rows": 3, "n_cols": 128}, {"n_rows": 1, "n_cols": 640}])


@pytest.mark.timeout(120)
def test_a_masked_load_filling_a_max_with_zero_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v20, wrongkernel8's hunt): row_max_fill, a row max over a loop of blocks whose loads are
    masked but fill with ``other=0.0`` (the author's rows are a multiple of 128, so no lane is ever masked out), the
    values shifted below zero. The mask read as checking the block, so ``BLOCK=256`` went out plainly: right at the
    SHAPES' 256 and 512 columns, and at 384, which the original handled, the masked-out zeros won the max. A fill
    that is not an infinity reaching a max or a min unmasked leaves the block unchecked: ``if n_cols % 256 == 0``;
    one masked again with ``tl.where`` (or a max of ``tl.abs``) reads as before."""
    from kernelopt.tunables.guard import guard_edit

    _guarded_over_rows(tmp_path, "row_max_fill")
    source = (DATA / "row_max_fill" / "kernel.py").read_text()
    filled = source.replace("other=0.0)", 'other=float("-inf"))')
    again = source.replace(
        "        acc = tl.maximum(acc, x)\n",
        '        x = tl.where(cols < n_cols, x, float("-inf"))\n        acc = tl.maximum(acc, x)\n',
    )
    for text in (filled, again):
        assert text != source
        plain = guard_edit(text, text.replace("BLOCK=128)", "BLOCK=256)"))
        assert plain.note is None and plain.new_source is not None and "BLOCK=256)" in plain.new_source


@pytest.mark.timeout(120)
def test_a_max_taken_by_tl_reduce_with_a_combine_of_its_own_reads_the_combine(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v25, wrongkernel9's hunt): row_max_reduce, row_max_fill with the block's max taken by
    ``tl.reduce(x, 0, _larger)`` (a ``@triton.jit`` combine returning ``tl.maximum(a, b)``). ``BLOCK=256`` went out
    plainly (a ``tl.reduce`` was no reduction to the fill rule): wrong at 384 and 128. The combine is read (``a +
    b`` a sum, ``a * b`` a product, ``tl.maximum`` / ``tl.minimum``) and judged as that reduction; a combine not
    read is judged spoiled by any masked-out lane, however filled."""
    from kernelopt.tunables.guard import guard_edit

    _guarded_over_rows(tmp_path, "row_max_reduce")
    source = (DATA / "row_max_reduce" / "kernel.py").read_text()
    filled = source.replace("other=0.0)", 'other=float("-inf"))')
    unread = filled.replace("return tl.maximum(a, b)", "return tl.where(a > b, a, b)")
    assert len({source, filled, unread}) == 3
    for text, plainly in ((filled, True), (unread, False)):
        edit = guard_edit(text, text.replace("BLOCK=128)", "BLOCK=256)"))
        assert edit.new_source is not None and ("BLOCK=256)" in edit.new_source) is plainly, edit.note


@pytest.mark.timeout(120)
def test_a_deviation_from_the_mean_summed_unmasked_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v21, wrongkernel9's hunt): row_var_center, a row variance over a loop of blocks whose
    loads fill with 0.0 and whose deviation ``x - mean`` is summed squared without a mask again (the author's rows
    a multiple of 128). The masks were read as checking the block, so ``BLOCK=256`` went out plainly: right at the
    SHAPES' 256 and 512 columns, and at 384, which the original handled, each masked-out lane added ``mean**2``.
    The lanes a mask leaves out are followed into the reductions they reach (``tl.sum`` wants a zero there):
    ``if n_cols % 256 == 0``; the same kernel masking the deviation again, or filling a plain sum with nothing,
    moves plainly, and ``other=1.0`` into a sum does not."""
    from kernelopt.tunables.guard import guard_edit

    _guarded_over_rows(tmp_path, "row_var_center")
    source = (DATA / "row_var_center" / "kernel.py").read_text()
    remasked = source.replace("d = x - mean", "d = tl.where(cols < n_cols, x - mean, 0.0)")
    # a fill left out is a zero in Triton's interpreter and its NVIDIA backend: neutral for a sum
    no_fill = remasked.replace("mask=cols < n_cols, other=0.0)", "mask=cols < n_cols)")
    ones = no_fill.replace(
        "acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols)",
        "acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=1.0)",
    )
    assert len({source, remasked, no_fill, ones}) == 4
    for text, plainly in ((remasked, True), (no_fill, True), (ones, False)):
        edit = guard_edit(text, text.replace("BLOCK=128)", "BLOCK=256)"))
        assert edit.new_source is not None and ("BLOCK=256)" in edit.new_source) is plainly, text


@pytest.mark.timeout(120)
def test_a_tile_summed_along_its_columns_keeps_only_its_column_block_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v22, wrongkernel9's hunt): tile_lse_zero, a log-sum-exp over tiles of 16 rows and 32
    columns whose second pass loads fill with 0.0 (``exp(0 - m)`` is no zero; the author's rows a multiple of 32)
    and are summed along the columns, ``tl.sum(.., axis=1)``. ``BLOCK_N=64`` went out plainly: right at the SHAPES'
    64 and 128 columns, wrong at 96. Only the block along the reduced axis is read as unchecked: ``if N % 64 ==
    0``; the row block, whose masked-out rows are never summed, still moves plainly (correct at 33 and 50 rows)."""
    folder = _copy("tile_lse_zero", tmp_path)
    written, _note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 64})
    assert written is not None and "    if N % 64 == 0:  # kernelopt: tuned\n" in written, written
    rows, _ = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 32})
    assert rows is not None and "BLOCK_M=32, BLOCK_N=32)" in rows and "kernelopt: tuned" not in rows, rows
    # Both moved (the H100 run of 2026-12-05, 23:17): the grid's ``cdiv(M, 16)`` moves to ``cdiv(M, 32)`` with the
    # row block; that moved literal is no stale copy of BLOCK_N's old 32, which was read as one and wrote nothing
    # (since tablebound13 the row block falls back with the guarded BLOCK_N, its grid's copy named)
    both, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert both is not None and "    if N % 64 == 0:  # kernelopt: tuned\n" in both, note
    assert "tile_lse[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)" in both, both
    sizes = [{"M": 20, "N": 64}, {"M": 7, "N": 96}, {"M": 33, "N": 32}, {"M": 50, "N": 160}]
    for text in (written, rows, both):
        (folder / "kernel.py").write_text(text)
        _all_correct(folder, sizes)


@pytest.mark.timeout(120)
def test_a_histogram_of_masked_lanes_keeps_its_block_a_divisor_beside_a_grid_literal(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v24, wrongkernel9's hunt): hist_block, a histogram whose programs each count one block
    of codes with ``tl.histogram(codes, BINS)`` (no mask) over loads filling with 0, the grid
    ``(triton.cdiv(n, 256),)`` beside ``BLOCK=256`` (inputs a multiple of 256). ``BLOCK=512`` went out plainly, the
    grid's literal moved with it: right at the SHAPES' 512 and 1024 codes, and at 768, 256 and 1280, which the
    original handled, the masked-out lanes were counted in bin 0. Two rules missed it: a histogram counts every
    lane it is given (a mask of its own leaves them out), and the grid's copy of an unchecked block's literal was
    read for kernels without masks only. Now ``if n % 512 == 0:  # kernelopt: tuned``; with the histogram's own
    ``mask=offs < n`` the block moves plainly."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("hist_block", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512})
    assert written is not None and note is not None and "whose accesses leave BLOCK unchecked" in note, note
    assert "    if n % 512 == 0:  # kernelopt: tuned\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"n": 768}, {"n": 256}, {"n": 1280}])
    source = (DATA / "hist_block" / "kernel.py").read_text()
    masked = source.replace("tl.histogram(codes, BINS)", "tl.histogram(codes, BINS, mask=offs < n)")
    assert masked != source
    plain = guard_edit(masked, masked.replace("256),)](x, out, n, BLOCK=256", "512),)](x, out, n, BLOCK=512"))
    assert plain.note is None and plain.new_source is not None and "BLOCK=512" in plain.new_source


EVENK_LAUNCH = ",\n                        BLOCK_M=16, BLOCK_N=16, BLOCK_K=16, num_warps=4)"


@pytest.mark.timeout(60)
def test_the_same_k_loop_under_an_autotune_list_or_a_computed_block_is_not_written_wider() -> None:
    """Beside v1: the tiles of mm_evenk set by an ``@triton.autotune`` list (a decorator cannot be guarded by a
    size: a pinned ``BLOCK_K`` of 32 is not written, one line) or computed in run() (a tuned row over it cannot know
    which sizes the computation handled: not written, one line)."""
    from kernelopt.tunables import Bucket, TunedTable, write_table
    from kernelopt.tunables.guard import guard_edit

    source = (DATA / "mm_evenk" / "kernel.py").read_text()
    config = 'triton.Config({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}, num_warps=4)'
    listed = source.replace(
        "@triton.jit\ndef matmul_kernel",
        f'@triton.autotune(configs=[{config}], key=["M", "N", "K"])\n@triton.jit\ndef matmul_kernel',
    ).replace(EVENK_LAUNCH, ")")
    refused = guard_edit(listed, listed.replace('"BLOCK_K": 16}', '"BLOCK_K": 32}'))
    assert refused.new_source is None and refused.note is not None
    assert "steps range(0, K, BLOCK_K) over loads whose masks leave it unchecked" in refused.note
    assert guard_edit(listed, listed.replace('"BLOCK_M": 16,', '"BLOCK_M": 32,')).note is None  # rows are checked
    computed = source.replace(
        "    assert K % 16 == 0", "    BLOCK_K = 16 if K % 64 else 64\n    assert K % 16 == 0"
    ).replace("BLOCK_K=16, num_warps", "BLOCK_K=BLOCK_K, num_warps")
    table = TunedTable(size="K", buckets=[Bucket(upto=64, values={"BLOCK_K": 32})])
    tuned = write_table(computed, table, kernel="matmul_kernel").new_source
    kept = guard_edit(computed, tuned)
    assert kept.new_source is None and kept.note is not None and "BLOCK_K=32 must divide K" in kept.note


@pytest.mark.timeout(60)
def test_a_block_two_loops_step_by_is_guarded_only_by_the_loop_that_leaves_it_unchecked() -> None:
    """two_loops steps one ``BLOCK`` over the gate (K long, no mask: ``assert K % 32 == 0``) and the row (N long,
    masked). The v1 rule first read the block as unchecked kernel-wide and guarded both loops (``if K % 64 == 0 and
    N % 64 == 0``), so a row of 300 never got the tuned block; a loop's own accesses decide: ``if K % 64 == 0``."""
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    source = (DATA / "two_loops" / "kernel.py").read_text()
    guarded = guard_edit(source, apply_source(source, {"gated_rows:BLOCK": 64}).new_source)
    assert guarded.new_source is not None and "    if K % 64 == 0:  # kernelopt: tuned\n" in guarded.new_source
    assert guarded.note is not None and "N % 64" not in guarded.note


HELPER_GRID = """

def _grid(M, N, meta):
    return (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
"""


@pytest.mark.timeout(120)
def test_a_grid_written_in_a_module_helper_is_read_as_the_launch_s_own(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v5): transpose_rowmask with its grid in a module-level helper, ``transpose_kernel[lambda
    meta: _grid(M, N, meta)](...)``, as libraries share one grid function between launches. The grid rule read
    ``triton.cdiv`` only in the launching function, so ``BLOCK_N=32`` went out plainly (out of bounds at N = 48),
    and so would a kernel without any mask. A helper's ``cdiv`` is read with its parameters replaced by the call's
    arguments: ``if N % 32 == 0:  # kernelopt: tuned``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("transpose_rowmask", tmp_path)
    source = (folder / "kernel.py").read_text()
    local = '    def grid(meta):\n        return (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))\n\n'
    helper = (
        source.replace(local, "")
        .replace("import triton.language as tl\n", "import triton.language as tl\n" + HELPER_GRID, 1)
        .replace("transpose_kernel[grid](", "transpose_kernel[lambda meta: _grid(M, N, meta)](")
    )
    assert helper != source and "def grid" not in helper
    guarded = guard_edit(helper, helper.replace("BLOCK_N=16, num_warps", "BLOCK_N=32, num_warps"))
    assert guarded.new_source is not None and "    if N % 32 == 0:  # kernelopt: tuned\n" in guarded.new_source
    (folder / "kernel.py").write_text(guarded.new_source)
    _all_correct(folder, [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 7, "N": 16}])


JIT_HELPERS = """@triton.jit
def _load(ptr, offs):
    return tl.load(ptr + offs)


@triton.jit
def _store(ptr, offs, v):
    tl.store(ptr + offs, v)


"""


@pytest.mark.timeout(120)
def test_a_kernel_whose_accesses_sit_in_jit_helpers_is_read_through_them(tmp_path: Path) -> None:
    """Seen on 2026-12-05 (v7): gelu_nomask with its loads and its store moved into ``@triton.jit`` helpers (``x =
    _load(x_ptr, offs)``, ``_store(y_ptr, offs, ...)``), as libraries factor them. The kernel had no load or store of
    its own, so it was read as having no accesses, neither masked nor not, and ``BLOCK_SIZE=512`` went out plainly:
    wrong at 3 x 128, which the original handled. A kernel with no access of its own is read through the helpers
    it calls: ``if n % 512 == 0:  # kernelopt: tuned``."""
    from kernelopt.tunables.guard import guard_edit

    folder = _copy("gelu_nomask", tmp_path)
    source = (folder / "kernel.py").read_text()
    helped = (
        source.replace("@triton.jit\ndef bias_gelu_kernel", JIT_HELPERS + "@triton.jit\ndef bias_gelu_kernel")
        .replace("x = tl.load(x_ptr + offs)", "x = _load(x_ptr, offs)")
        .replace("b = tl.load(b_ptr + offs % n_cols)", "b = _load(b_ptr, offs % n_cols)")
        .replace("tl.store(y_ptr + offs, 0.5 * v * (1.0 + t))", "_store(y_ptr, offs, 0.5 * v * (1.0 + t))")
    )
    assert "tl.load(x_ptr" not in helped and "tl.store(y_ptr" not in helped
    guarded = guard_edit(helped, helped.replace("BLOCK_SIZE=128, num_warps", "BLOCK_SIZE=512, num_warps"))
    assert guarded.new_source is not None and "    if n % 512 == 0:  # kernelopt: tuned\n" in guarded.new_source
    (folder / "kernel.py").write_text(guarded.new_source)
    _all_correct(folder, [{"n_rows": 4, "n_cols": 512}, {"n_rows": 3, "n_cols": 128}, {"n_rows": 5, "n_cols": 384}])


# ------------------------------------------------------------------------- the written kernel at sizes never timed


def _multiple(rng: random.Random, of: int, most: int) -> int:
    return of * rng.randint(1, most)


HANDLED: dict[str, tuple[Callable[[random.Random], dict[str, int]], dict[str, list[int]]]] = {
    # variant: (a size the original handles, drawn; the values of each knob a pick draws from)
    "gelu_nomask": (
        lambda r: {"n_rows": r.randint(1, 9), "n_cols": _multiple(r, 128, 5)},
        {"BLOCK_SIZE": [16, 256, 1024]},
    ),
    "two_loops": (
        lambda r: {"M": r.randint(1, 4), "N": r.randint(1, 400), "K": _multiple(r, 32, 12)},
        {"BLOCK": [16, 64, 256]},
    ),
    "mm_evenk": (
        lambda r: {"M": r.randint(1, 40), "N": r.randint(1, 40), "K": _multiple(r, 16, 6)},
        {"BLOCK_M": [16, 32], "BLOCK_N": [16], "BLOCK_K": [16, 32]},
    ),
    "mm_flag_literal": (
        lambda r: {"M": r.randint(1, 30), "N": r.randint(1, 30), "K": _multiple(r, 16, 6)},  # the flag's sizes
        {"BLOCK_K": [16, 32, 64]},
    ),
    "mm_floor_count": (
        lambda r: {"M": r.randint(1, 30), "N": r.randint(1, 30), "K": _multiple(r, 16, 6)},
        {"BLOCK_K": [16, 32, 64]},
    ),
    "mm_group_whole": (
        lambda r: {"M": r.randint(1, 80), "N": r.randint(1, 24), "K": r.randint(1, 16)},
        {"BLOCK_M": [16, 32], "GROUP_M": [1, 4]},
    ),
    "bp_helper_load": (
        lambda r: {"M": r.randint(1, 70), "K": _multiple(r, 32, 6)},
        {"BLOCK_M": [16, 64], "BLOCK_K": [32, 64]},
    ),
    "persist_grid_literal": (
        lambda r: {"M": r.randint(1, 80), "N": r.randint(1, 80), "K": r.randint(1, 16)},
        {"NUM_SMS": [2, 8]},
    ),
    "softmax_helper_rows": (
        lambda r: {"n_rows": r.randint(1, 3), "n_cols": r.randint(1, 1024)},
        {"BLOCK_SIZE": [128, 256]},
    ),
    "transpose_rowmask": (
        lambda r: {"M": r.randint(1, 70), "N": _multiple(r, 16, 6)},
        {"BLOCK_M": [16, 64], "BLOCK_N": [16, 32]},
    ),
    "transpose_helper_store": (
        lambda r: {"M": r.randint(1, 70), "N": _multiple(r, 16, 6)},
        {"BLOCK_M": [16, 64], "BLOCK_N": [16, 32]},
    ),
    "dispatch_size": (
        lambda r: {"n_rows": r.randint(1, 3), "n_cols": r.randint(1, 700)},
        {"BLOCK_SIZE": [64, 256, 512]},
    ),
    "cap_noloop": (lambda r: {"M": r.randint(1, 3), "N": r.randint(1, 512)}, {"BLOCK_SIZE": [128, 256, 512]}),
}


@pytest.mark.parametrize("name", sorted(HANDLED))
@pytest.mark.timeout(300)
def test_what_tune_writes_is_correct_at_random_sizes_the_original_handled(name: str, tmp_path: Path) -> None:
    """The property behind every case above: for every pick of a small grid of a variant's space, what ``kernelopt
    tune`` writes when its session picks it (the tuning engine's own shaped edit) is, wherever it is correct at
    every ``SHAPES`` entry (the only picks a session keeps), correct at three sizes drawn (seeded) from those the
    original handled, which ``SHAPES`` does not name. Triton's interpreter, sizes of at most a few hundred."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    rng = random.Random(f"variants-{name}")
    draw, knobs = HANDLED[name]
    folder = _copy(name, tmp_path)
    original = (folder / "kernel.py").read_text()
    shapes = _reference_shapes(folder)
    checked = 0
    current = {t.name: t.value for t in discover_source(original)}
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))  # kernel.py is the original at every pick
    for values in itertools.product(*knobs.values()):
        pick = dict(zip(knobs, values, strict=True))
        if all(current.get(k) == v for k, v in pick.items()):
            continue  # the original itself
        written, _note = _tune_edit(folder, pick, prepared=prepared)
        if written is None:
            continue  # refused, in one line: nothing to check
        (folder / "kernel.py").write_text(written)
        at_shapes = _correct_padded(folder, shapes)
        if all(v is True for v in at_shapes.values()):
            sizes = [draw(rng) for _ in range(3)]
            got = _correct_padded(folder, sizes)
            assert all(v is True for v in got.values()), (pick, written, got)
            checked += 1
        (folder / "kernel.py").write_text(original)
    assert checked, f"no pick of {knobs} was written correct at SHAPES"


def _reference_shapes(folder: Path) -> list[dict[str, int]]:
    from tests.conftest import load_fresh

    return list(load_fresh(folder / "reference.py", f"_variants_ref_{folder.name}").SHAPES)


# ------------------------------------------------------------------------------------- silent misses


@pytest.mark.timeout(120)
def test_a_launch_that_run_picks_by_size_is_timed_only_at_the_shapes_it_runs_at(tmp_path: Path) -> None:
    """Seen on 2026-12-05: dispatch_size's run() launches a one-block softmax at rows of at most 128 columns and a
    looped one above; SHAPES 50 and 600 columns. ``tune`` (the one-block launch) timed every candidate on both
    entries and ranked them by the sum, 191 of 221 ms from the 600-column entry, where the launch tuned never runs:
    the looped kernel's noise ranked the one-block kernel's candidates, and the per-shape table claimed a 160 %
    gap at 50 columns. Now the task's run tells which kernels each entry launches, and an entry the launch does not
    run at is checked (a write may touch code shared by both paths), never timed, and said in one line."""
    from kernelopt.tunables.launches import branch_kernels
    from kernelopt.tuning.folder import TuneRequest, idle_line, prepare_folder

    folder = _copy("dispatch_size", tmp_path)
    assert branch_kernels((folder / "kernel.py").read_text()) == {"softmax_one_block", "softmax_looped"}
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    assert prepared.space.kernel == "softmax_one_block" and prepared.idle == ("n_rows=2,n_cols=600",)
    assert idle_line(prepared) == (
        "launch softmax_one_block does not run at n_rows=2,n_cols=600 (the task's run launched softmax_looped "
        "there): every candidate is checked there, and timed only where the launch runs"
    )
    looped = prepare_folder(TuneRequest(folder=folder, device="cpu", kernel="softmax_looped"))
    assert looped.idle == ("n_rows=3,n_cols=50",)


@pytest.mark.timeout(60)
def test_a_shape_the_launch_does_not_run_at_is_checked_and_never_timed(tmp_path: Path) -> None:
    """The evaluator's side of the case above: the untimed entry gets every candidate's check and no timing
    request, the candidate's latency is the timed entries' alone, a re-time skips it, and an evaluator told every
    entry is untimed times them all (nothing would rank otherwise)."""
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.problem import Problem, ProblemShape
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from tests.test_shape_failures import _shapes_evaluator

    ev, (small, large) = _shapes_evaluator(tmp_path, [set(), {16}])
    ev.untimed = frozenset({ev.labels[1]})
    batch = [Config.of({"BLOCK": b}) for b in (64, 16)]
    results = ev.evaluate(batch)
    assert large.calls == [([64, 16], False)] and small.calls == [([64], True)]
    ok, failed = results
    assert ok.outcome is Outcome.OK and list(ok.latency_us_by_shape) == [ev.labels[0]]
    assert failed.failed_entry == ev.labels[1]
    for fake in (small, large):
        fake.retime = fake.evaluate  # type: ignore[attr-defined]
    (again,) = ev.retime([batch[0]])
    assert large.calls == [([64, 16], False)] and small.calls[-1] == ([64], True)
    assert list(again.latency_us_by_shape) == [ev.labels[0]]
    shapes = [ProblemShape(kwargs={"rows": 4, "cols": n}) for n in (40, 300)]
    problem = Problem.from_folder(tmp_path / "f", device="cpu")  # the folder _shapes_evaluator made
    idle = [s.label() for s in shapes]
    every = ShapesEvaluator(problem, shapes, "", lambda c: "", session_dir=tmp_path / "s2", untimed=idle)
    assert every.untimed == frozenset()


# ----------------------------------------------------------------------------------------- on a real GPU


def _close_padded(ran: Ran) -> bool:
    """The output of inputs padded with NaN (:func:`_padded`): fp32 tl.dot runs in TF32 on the GPU, so at K=2064
    single elements drift past any fixed tolerance; a wrong tile is NaN (the padding) or off by O(1): finite, and
    0.5 % normwise (TF32 gives about 0.05 %)."""
    import torch

    got, want = ran.got.float(), ran.want.float()
    close = torch.allclose(got, want, atol=max(ran.ref.ATOL, 2e-2), rtol=2e-2)
    normwise = float(torch.linalg.vector_norm(got - want) / torch.linalg.vector_norm(want).clamp_min(1e-30))
    return bool(torch.isfinite(got).all()) and (close or normwise < 5e-3)


def _correct_on_cuda(folder: Path, shapes: list[dict[str, int]]) -> None:
    """:func:`_correct_padded` compiled for the GPU (no interpreter), the inputs padded with NaN there too."""
    assert_correct(folder, shapes, _close_padded, prepare=_padded)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_variants_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the forms the fixes write, mm_evenk's ``if K % 32 ==
    0:`` (v1), transpose_rowmask's ``if N % 32 == 0:`` (v2) and the same through a helper grid (v5), are correct at
    the SHAPES and at sizes between, above and odd that the originals handled, up to thousands, with every input in
    the middle of NaN (a tile read past an input's end is NaN, not whatever lies there)."""
    from kernelopt.tunables.guard import guard_edit

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    gemm = _copy("mm_evenk", tmp_path)
    written, _ = _tune_edit(gemm, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32})
    assert written is not None and "if K % 32 == 0:  # kernelopt: tuned" in written
    (gemm / "kernel.py").write_text(written)
    tiles = _copy("transpose_rowmask", tmp_path)
    written, _ = _tune_edit(tiles, {"BLOCK_M": 64, "BLOCK_N": 32})
    assert written is not None and "if N % 32 == 0:  # kernelopt: tuned" in written
    (tiles / "kernel.py").write_text(written)
    helper = _copy("transpose_rowmask", tmp_path / "helper")
    source = (helper / "kernel.py").read_text()
    local = '    def grid(meta):\n        return (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))\n\n'
    source = (
        source.replace(local, "")
        .replace("import triton.language as tl\n", "import triton.language as tl\n" + HELPER_GRID, 1)
        .replace("transpose_kernel[grid](", "transpose_kernel[lambda meta: _grid(M, N, meta)](")
    )
    guarded = guard_edit(source, source.replace("BLOCK_N=16, num_warps", "BLOCK_N=32, num_warps")).new_source
    assert guarded is not None and "if N % 32 == 0:  # kernelopt: tuned" in guarded
    (helper / "kernel.py").write_text(guarded)
    cases = {
        gemm: [{"M": 10, "N": 12, "K": 32}, {"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 16},
               {"M": 1000, "N": 1500, "K": 2064}],
        tiles: [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 7, "N": 16}, {"M": 3001, "N": 4112}],
        helper: [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 3001, "N": 4112}],
    }  # fmt: skip
    for folder, shapes in cases.items():
        _correct_on_cuda(folder, shapes)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_hunt_s_written_kernels_compile_and_hold_on_a_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the forms the fixes of v8-v10 write, transpose_helper_store's
    ``if N % 32 == 0:`` over a store in a ``@triton.jit`` helper (v8), mm_flag_literal's ``if K % 32 == 0:`` beside
    its ``EVEN_K=K % 16 == 0`` fast path (v9), mm_floor_count's over its ``range(0, K // BLOCK_K)`` loop (v10) and
    bp_helper_load's over block pointers loaded in helpers (v12), and softmax_helper_rows' ``if n_cols <= 128:`` over
    a one-block row masked in helpers (v14),
    are correct at the SHAPES and at sizes between, above and odd that the originals handled, up to thousands, every
    input in the middle of NaN."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    picks = {
        "transpose_helper_store": ({"BLOCK_M": 64, "BLOCK_N": 32}, "if N % 32 == 0:"),
        "mm_flag_literal": ({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, "if K % 32 == 0:"),
        "mm_floor_count": ({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, "if K % 32 == 0:"),
        "bp_helper_load": ({"BLOCK_M": 64, "BLOCK_K": 64}, "if K % 64 == 0:"),
        "softmax_helper_rows": ({"BLOCK_SIZE": 128}, "if n_cols <= 128:"),
    }
    cases = {
        "transpose_helper_store": [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 3001, "N": 4112}],
        "mm_flag_literal": [{"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 37}, {"M": 1000, "N": 1500, "K": 2064}],
        "mm_floor_count": [{"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 16}, {"M": 1000, "N": 1500, "K": 2064}],
        "bp_helper_load": [{"M": 10, "K": 96}, {"M": 7, "K": 32}, {"M": 3001, "K": 4128}],
        "softmax_helper_rows": [
            {"n_rows": 2, "n_cols": 700},
            {"n_rows": 3000, "n_cols": 1024},
            {"n_rows": 5, "n_cols": 1},
        ],
    }
    for name, (pick, guard) in picks.items():
        _correct_on_cuda(written_pick(_copy(name, tmp_path), pick, f"{guard}  # kernelopt: tuned"), cases[name])


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_eighth_hunt_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): what wrongkernel8's fixes and held forms write,
    pairs_one_block's ``if (2 * n_pairs) <= 64:`` (v19), mm_tutorial_evenk's ``if K % 64 == 0:`` over wrapped
    offsets and advanced pointers, bp_advance's over ``tl.advance`` block pointers, splitk_grid_literal's K tile
    moved beside its ``tl.atomic_add`` and mm_group_autotune's row tile at a group of 1 in its autotune config, are
    correct at the SHAPES and at sizes between, above and odd that the originals handled, up to thousands, every
    input in the middle of NaN."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    picks: dict[str, tuple[dict[str, int], str]] = {
        "pairs_one_block": ({"BLOCK": 64}, "if (2 * n_pairs) <= 64:  # kernelopt: tuned"),
        "mm_tutorial_evenk": ({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 4}, "if K % 64 == 0:"),
        "bp_advance": ({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, "if K % 64 == 0:"),
        "splitk_grid_literal": ({"BLOCK_K": 32}, "BLOCK_K=32, SPLIT_K=4"),
        "mm_group_autotune": ({"BLOCK_M": 32, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 1}, '"BLOCK_M": 32'),
    }
    cases = {
        "pairs_one_block": [{"rows": 2, "n_pairs": 60}, {"rows": 3000, "n_pairs": 32}, {"rows": 5, "n_pairs": 128}],
        "mm_tutorial_evenk": [
            {"M": 20, "N": 24, "K": 96},
            {"M": 1000, "N": 1500, "K": 2080},
            {"M": 7, "N": 3, "K": 32},
        ],
        "bp_advance": [{"M": 20, "N": 24, "K": 96}, {"M": 1000, "N": 1500, "K": 2080}],
        "splitk_grid_literal": [{"M": 20, "N": 24, "K": 200}, {"M": 1000, "N": 1500, "K": 2063}],
        "mm_group_autotune": [{"M": 48, "N": 24, "K": 16}, {"M": 1000, "N": 1500, "K": 300}],
    }
    for name, (pick, form) in picks.items():
        _correct_on_cuda(written_pick(_copy(name, tmp_path), pick, form), cases[name])


def _running_max_as_a_tile(source: str) -> str:
    """tile_lse_zero with its running row max kept as a tile and reduced after the loop: the same values, in a form
    Triton 3.6 compiles for sm_90. Its own form (``m = tl.maximum(m, tl.max(x, axis=1))`` in the loop) fails there in
    the TritonGPUOptimizeThreadLocality pass whenever N is a multiple of 16, the original's tiles included (H100,
    2026-12-06: ``PassManager::run failed`` at every size; reproduced on a machine without a GPU by
    ``triton.compile`` for ``GPUTarget("cuda", 90, 32)`` with N's divisibility), so the GPU test of what the fill
    rule writes runs on the twin."""
    twin = source.replace(
        'm = tl.full((BLOCK_M,), float("-inf"), tl.float32)',
        'mt = tl.full((BLOCK_M, BLOCK_N), float("-inf"), tl.float32)',
    ).replace("        m = tl.maximum(m, tl.max(x, axis=1))", "        mt = tl.maximum(mt, x)")
    twin = twin.replace(
        "    s = tl.zeros((BLOCK_M,), tl.float32)",
        "    m = tl.max(mt, axis=1)\n    s = tl.zeros((BLOCK_M,), tl.float32)",
    )
    assert twin.count("mt") == 4, twin
    return twin


def test_tile_lse_zero_s_gpu_twin_is_read_and_written_as_the_original(tmp_path: Path) -> None:
    """The twin the GPU test runs (:func:`_running_max_as_a_tile`) is the original in every reading that matters: its
    row block moved plainly with the grid, its column block guarded (v22), the same written run()."""
    original = _copy("tile_lse_zero", tmp_path)
    twin = _copy("tile_lse_zero", tmp_path / "twin")
    (twin / "kernel.py").write_text(_running_max_as_a_tile((twin / "kernel.py").read_text()))
    runs = []
    for folder in (original, twin):
        written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
        assert written is not None and "    if N % 64 == 0:  # kernelopt: tuned\n" in written, note
        runs.append(written.split("def run")[1])
    assert runs[0] == runs[1], runs


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_ninth_hunt_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): what wrongkernel9's fill rule writes, row_var_center's
    ``if n_cols % 256 == 0:`` (v21) and tile_lse_zero's ``if N % 64 == 0:`` beside its row block moved plainly
    (v22), hist_block's ``if n % 512 == 0:`` over an unmasked ``tl.histogram`` (v24), grid_named_copy's tile moved
    with the module constant its grid divides by (v23), tile_sum_shared with both tiles and every copy moved (v26),
    correct at sizes the SHAPES do not name, up to millions,
    every input in the middle of NaN; and the
    judgment behind reading a fill left out as a zero: row_var_center with its deviation masked again and its
    fills left out, ``BLOCK=256`` written plainly, is correct at 384 and 2944 columns, where the masked-out lanes
    lie past the row (the next row, or the NaN around the input) and a sum of them would show."""
    from kernelopt.tunables.guard import guard_edit

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    cases: list[tuple[Path, list[dict[str, int]]]] = []
    var = _copy("row_var_center", tmp_path)
    written, _ = _tune_edit(var, {"BLOCK": 256})
    assert written is not None and "if n_cols % 256 == 0:  # kernelopt: tuned" in written, written
    (var / "kernel.py").write_text(written)
    cases.append((var, [{"n_rows": 2, "n_cols": 384}, {"n_rows": 3000, "n_cols": 2944}, {"n_rows": 5, "n_cols": 128}]))
    tile = _copy("tile_lse_zero", tmp_path)
    (tile / "kernel.py").write_text(_running_max_as_a_tile((tile / "kernel.py").read_text()))
    written, _ = _tune_edit(tile, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None and "if N % 64 == 0:  # kernelopt: tuned" in written, written
    (tile / "kernel.py").write_text(written)
    cases.append((tile, [{"M": 7, "N": 96}, {"M": 3001, "N": 2080}, {"M": 50, "N": 160}]))
    bare = _copy("row_var_center", tmp_path / "bare")
    source = (bare / "kernel.py").read_text()
    source = source.replace("d = x - mean", "d = tl.where(cols < n_cols, x - mean, 0.0)").replace(
        "mask=cols < n_cols, other=0.0)", "mask=cols < n_cols)"
    )
    plain = guard_edit(source, source.replace("BLOCK=128)", "BLOCK=256)")).new_source
    assert plain is not None and "BLOCK=256)" in plain and "kernelopt: tuned" not in plain, plain
    (bare / "kernel.py").write_text(plain)
    cases.append((bare, [{"n_rows": 2, "n_cols": 384}, {"n_rows": 3000, "n_cols": 2944}]))
    hist = _copy("hist_block", tmp_path)
    written, _ = _tune_edit(hist, {"BLOCK": 512})
    assert written is not None and "if n % 512 == 0:  # kernelopt: tuned" in written, written
    (hist / "kernel.py").write_text(written)
    cases.append((hist, [{"n": 768}, {"n": 256}, {"n": 1_000_192}]))
    grid = _copy("grid_named_copy", tmp_path)
    source = (grid / "kernel.py").read_text()
    both = source.replace("ROWS_PER_PROGRAM = 256", "ROWS_PER_PROGRAM = 1024").replace("BLOCK=256)", "BLOCK=1024)")
    moved = guard_edit(source, both).new_source
    assert moved is not None and "BLOCK=1024)" in moved, moved
    (grid / "kernel.py").write_text(moved)
    cases.append((grid, [{"n": 200}, {"n": 700}, {"n": 3_000_001}]))
    tiles = _copy("tile_sum_shared", tmp_path)
    source = (tiles / "kernel.py").read_text()
    every = source.replace("triton.cdiv(M, 64), triton.cdiv(N, 64)", "triton.cdiv(M, 32), triton.cdiv(N, 32)")
    moved = guard_edit(source, every.replace("BLOCK_M=64, BLOCK_N=64", "BLOCK_M=32, BLOCK_N=32")).new_source
    assert moved is not None and "BLOCK_M=32, BLOCK_N=32" in moved, moved
    (tiles / "kernel.py").write_text(moved)
    cases.append((tiles, [{"M": 130, "N": 130}, {"M": 3001, "N": 2999}]))
    for folder, shapes in cases:
        _correct_on_cuda(folder, shapes)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_tenth_round_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): guardgrid10's written forms, rows_one_block_atomic's
    one-block guard carrying its grid's copy (``triton.cdiv(M, BLOCK_M)``, v28) and rows_blockptr_one_block's
    ``if N <= 64:`` over a block pointer's one block of columns (v29), and wrongkernel10's: the same guard over a
    block pointer advanced along K (v30) and over a tensor descriptor (v31, TMA on Hopper), and a column tile on
    the grid's second axis guarded by the 65535 programs a GPU takes there (v33: at 65535 * 1024 columns the
    original's block runs, a plain 256 would fail the launch) and a reversed scan's block guarded as a divisor (v34,
    rows of 2944 columns, a multiple of 128 and not of 256), correct at the sizes the originals handle that the
    SHAPES do not name, every input in the middle of NaN."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    rows = _copy("rows_one_block_atomic", tmp_path)
    written, _ = _tune_edit(rows, {"BLOCK_M": 16, "BLOCK_N": 128})
    assert written is not None and "row_sum[(triton.cdiv(M, BLOCK_M),)]" in written, written
    (rows / "kernel.py").write_text(written)
    pointer = _copy("rows_blockptr_one_block", tmp_path)
    written, _ = _tune_edit(pointer, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None and "if N <= 64:  # kernelopt: tuned" in written, written
    (pointer / "kernel.py").write_text(written)
    advanced = _copy("bp_advance_onecol", tmp_path)  # v30 (wrongkernel10)
    written, _ = _tune_edit(advanced, {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32})
    assert written is not None and "if N <= 32:  # kernelopt: tuned" in written, written
    (advanced / "kernel.py").write_text(written)
    described = _copy("desc_one_block", tmp_path)  # v31 (wrongkernel10): a TMA descriptor on Hopper
    written, _ = _tune_edit(described, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None and "if N <= 64:  # kernelopt: tuned" in written, written
    (described / "kernel.py").write_text(written)
    columns = _copy("grid_axis1_cols", tmp_path)  # v33 (wrongkernel10): 65535 programs at most on axis 1
    written, _ = _tune_edit(columns, {"BLOCK": 256})
    assert written is not None and "if n_cols <= 256 * 65535:  # kernelopt: tuned" in written, written
    (columns / "kernel.py").write_text(written)
    scan = _copy("rev_cumsum_exp", tmp_path)  # v34 (wrongkernel10): a reversed scan's block a divisor
    written, _ = _tune_edit(scan, {"BLOCK": 256})
    assert written is not None and "if n_cols % 256 == 0:  # kernelopt: tuned" in written, written
    (scan / "kernel.py").write_text(written)
    cases = [
        (rows, [{"M": 20, "N": 100}, {"M": 32, "N": 128}, {"M": 16, "N": 7}]),
        (pointer, [{"M": 3001, "N": 100}, {"M": 20, "N": 128}, {"M": 7, "N": 33}]),
        (advanced, [{"M": 3001, "N": 64, "K": 2064}, {"M": 100, "N": 50, "K": 1000}, {"M": 7, "N": 5, "K": 33}]),
        (described, [{"M": 3001, "N": 100}, {"M": 40, "N": 128}, {"M": 7, "N": 32}]),
        (
            columns,
            [{"n_rows": 2, "n_cols": 65535 * 1024}, {"n_rows": 1, "n_cols": 20_000_001}, {"n_rows": 3, "n_cols": 7}],
        ),
        (scan, [{"n_rows": 64, "n_cols": 2944}, {"n_rows": 8, "n_cols": 8192}, {"n_rows": 3, "n_cols": 128}]),
    ]
    for folder, shapes in cases:
        _correct_on_cuda(folder, shapes)
    plain = _copy("grid_axis1_cols", tmp_path / "plain")  # what was written before v33: the launch fails
    source = (plain / "kernel.py").read_text()
    (plain / "kernel.py").write_text(
        source.replace("1024))](x, s, y, n_cols, BLOCK=1024)", "256))](x, s, y, n_cols, BLOCK=256)")
    )
    got = correct_on_device(plain, [{"n_rows": 1, "n_cols": 65535 * 1024}], _close_padded, prepare=_padded)
    assert got["n_rows=1,n_cols=67107840"] is not True, got


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_eleventh_round_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): wrongkernel11's written forms, each correct at sizes the
    originals handle that the SHAPES do not name, every input in the middle of NaN: a block flipped onto its mirror
    guarded as a divisor (v37, rows of 2944 columns, a multiple of 128 and not of 256), a GEMM's K tile guarded over
    block pointers made inline in its loads (v38, K = 1056, a multiple of 32 and not of 64), a row max's column block
    guarded over a block pointer's zero padding (v39, rows of 2944 columns), and a one-block sort's table over
    ``next_power_of_2`` where its fill sorts last (v36's written form: ``+inf``, rows of 16 to 1024)."""
    from kernelopt.tunables.guard import guard_edit

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    flipped = written_pick(_copy("flip_mirror", tmp_path), {"BLOCK": 256}, "if n_cols % 256 == 0:  # kernelopt: tuned")
    inline = written_pick(_copy("bp_inline", tmp_path), {"BLOCK_K": 64}, "if K % 64 == 0:  # kernelopt: tuned")
    padded = written_pick(_copy("bp_rowmax", tmp_path), {"BLOCK_N": 128}, "if N % 128 == 0:  # kernelopt: tuned")
    sort = _copy("sort_pow2", tmp_path)
    last = (sort / "kernel.py").read_text().replace("other=0.0", 'other=float("inf")')
    table = guard_edit(last, last.replace(_POW2, _POW2 + _POW2_ROWS)).new_source
    assert table is not None and "if n_cols <= 64:  # kernelopt: tuned" in table, table
    (sort / "kernel.py").write_text(table)
    cases = [
        (flipped, [{"n_rows": 64, "n_cols": 2944}, {"n_rows": 8, "n_cols": 8192}, {"n_rows": 3, "n_cols": 128}]),
        (inline, [{"M": 3001, "N": 100, "K": 1056}, {"M": 100, "N": 70, "K": 2048}, {"M": 7, "N": 5, "K": 32}]),
        (padded, [{"M": 3001, "N": 2944}, {"M": 64, "N": 8192}, {"M": 7, "N": 64}]),
        (sort, [{"n_rows": 300, "n_cols": 16}, {"n_rows": 64, "n_cols": 128}, {"n_rows": 8, "n_cols": 1024}]),
    ]
    for folder, shapes in cases:
        _correct_on_cuda(folder, shapes)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_twelfth_round_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): wrongkernel12's written forms, each correct at sizes the
    originals handle that the SHAPES do not name, every input in the middle of NaN: a grid counting programs of a
    product of settings guarded by the product (v41, ``UNROLL=6`` under ``if n % 768 == 0``, at 384 * 3001
    elements, a multiple of 384 and not of 768), a loop stepping by the product (v42, ``BLOCK=256`` under ``if
    n_cols % 768 == 0``, 3001 rows of 2688 columns), and a row covered by a fixed count of blocks (v43,
    ``CHUNKS=2`` under ``if n_cols <= 512``, 3001 rows of 1000 columns), and a block reshaped into rows of a
    size guarded by that size dividing it (v44, ``BLOCK=256`` under ``if 256 % n == 0``, 3001 rows of 1024 columns,
    compiled for the original's block there), and a split-K loop over ``K // SPLIT_K`` guarded by the step times
    the splits (v46, ``BLOCK_K=32`` under ``if K % 128 == 0``, N=4096 and K=4032, a multiple of 64 and not of 128);
    and what the rules wrote for v43 before the fix, ``CHUNKS=2`` plainly, wrong there."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    grid = written_pick(_copy("unroll_static", tmp_path), {"BLOCK": 128, "UNROLL": 6}, "if n % 768 == 0:")
    loop = written_pick(_copy("rowsum_unroll", tmp_path), {"BLOCK": 256, "UNROLL": 3}, "if n_cols % 768 == 0:")
    rows = written_pick(_copy("chunks_row", tmp_path), {"BLOCK": 256, "CHUNKS": 2}, "if n_cols <= 512:")
    shaped = written_pick(_copy("reshape_rows", tmp_path), {"BLOCK": 256}, "if 256 % n == 0:")
    split = written_pick(_copy("splitk_range", tmp_path), {"BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4}, "if K % 128")
    cases = [
        (grid, [{"n": 384 * 3001}, {"n": 768 * 4096}, {"n": 384}]),
        (loop, [{"n_rows": 3001, "n_cols": 2688}, {"n_rows": 64, "n_cols": 6144}, {"n_rows": 5, "n_cols": 384}]),
        (rows, [{"n_rows": 3001, "n_cols": 1000}, {"n_rows": 64, "n_cols": 700}, {"n_rows": 7, "n_cols": 300}]),
        (shaped, [{"n_rows": 3001, "n": 1024}, {"n_rows": 4097, "n": 512}, {"n_rows": 3001, "n": 64}]),
        (split, [{"N": 4096, "K": 4032}, {"N": 4000, "K": 8192}, {"N": 64, "K": 192}]),
    ]
    for folder, shapes in cases:
        _correct_on_cuda(folder, shapes)
    plain = _copy("chunks_row", tmp_path / "plain")
    (plain / "kernel.py").write_text((plain / "kernel.py").read_text().replace("CHUNKS=4)", "CHUNKS=2)"))
    got = correct_on_device(plain, [{"n_rows": 3001, "n_cols": 1000}], _close_padded, prepare=_padded)
    assert got["n_rows=3001,n_cols=1000"] is not True, got


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_thirteenth_round_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): wrongkernel13's written form, correct at sizes the
    original handles that the SHAPES do not name, every input in the middle of NaN: a two-stage sum's first tile
    guarded by the reach of the second stage's one block (v47; v48 with the count computed in the second kernel;
    v50 with the partials summed in a fixed count of blocks: ``BLOCK_SIZE = 512`` under ``if n <= 32768``, at 65536, 40001, 32768 and 3001 elements: the original's
    block above 32768, the pick's at and below; v49, a row's last program summing its tiles' partials with one block
    of ``TILES``: ``BLOCK_N=128`` under ``if N <= 2048``, 8192 rows of 4096 columns and 3001 of 3000, the atomics
    counting each row's programs on the GPU); and what the
    rules wrote before the fix, ``BLOCK_SIZE = 512`` plainly, wrong at 40001 elements there."""
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    for name in ("parts_capped", "parts_counted", "parts_chunked"):
        capped = written_pick(_copy(name, tmp_path), {"BLOCK": 512}, "if n <= 32768:  # kernelopt: tuned")
        _correct_on_cuda(capped, [{"n": 65536}, {"n": 40001}, {"n": 32768}, {"n": 3001}])
    last = written_pick(_copy("last_tile_sum", tmp_path), {"BLOCK_N": 128}, "if N <= 2048 and N <= 128 * 65535:")
    _correct_on_cuda(last, [{"M": 8192, "N": 4096}, {"M": 3001, "N": 3000}, {"M": 4096, "N": 2048}, {"M": 5, "N": 7}])
    plain = _copy("parts_capped", tmp_path / "plain")
    (plain / "kernel.py").write_text((plain / "kernel.py").read_text().replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 512"))
    got = correct_on_device(plain, [{"n": 40001}], _close_padded, prepare=_padded)
    assert got["n=40001"] is not True, got
