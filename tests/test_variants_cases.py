"""Variants of kernels the tuner already handled, changed the way users change their own copies (issue 32: "on
variants of such kernels it wrote kernels that are wrong at a size it had not timed"). Each folder of
tests/data/variants is one change (its README lists source and change). What tuning writes is judged as a user
would: the written kernel against the reference at every ``SHAPES`` entry and at sizes ``SHAPES`` never names that
the original handled, loaded afresh in this process with Triton's interpreter. The written text is asserted before
any wrong kernel could run (an unmasked store out of bounds corrupts the process's heap in the interpreter). A
strict xfail is a defect found and not yet fixed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker_cases import _correct_at, _tune_edit

DATA = Path(__file__).parent / "data" / "variants"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_at((folder, shapes))
    assert got == {",".join(f"{k}={v}" for k, v in s.items()): True for s in shapes}, got


# ------------------------------------------------------------------------------------- a wrong kernel written


@pytest.mark.xfail(strict=True, reason="v1: a K loop whose loads mask only the rows and columns is not guarded")
@pytest.mark.timeout(120)
def test_a_k_loop_whose_loads_mask_only_rows_and_columns_keeps_its_step_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05: mm_evenk, a GEMM whose loads in ``for k in range(0, K, BLOCK_K)`` check the rows of A
    and the columns of B but not K (``assert K % 16 == 0`` in run). The guard's loop rule read only loops whose
    loads carry no mask at all, so ``BLOCK_K=32`` went out as a literal: right at the SHAPES' K of 32 and 64, wrong
    at K = 48 and 16, which the original handled."""
    folder = _copy("mm_evenk", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 32})
    assert written is not None and note is not None
    assert "if K % 32 == 0:  # kernelopt: tuned" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 10, "N": 12, "K": 32}, {"M": 20, "N": 24, "K": 48}, {"M": 7, "N": 13, "K": 16}])


@pytest.mark.xfail(strict=True, reason="v2: a 2-D kernel masking only its rows: the column tile is not guarded")
@pytest.mark.timeout(120)
def test_a_tile_kernel_masking_only_its_rows_keeps_its_column_tile_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05: transpose_rowmask, a transpose whose loads and stores check ``offs_m < M`` and not N
    (``assert N % 16 == 0``), its grid ``triton.cdiv(N, meta["BLOCK_N"])``. The grid rule read only kernels with no
    mask at all, so ``BLOCK_N=32`` went out as a literal: right at the SHAPES' N of 32 and 64; at N = 48 the last
    column tile stores out of bounds (the interpreter's process aborts: "free(): invalid next size")."""
    folder = _copy("transpose_rowmask", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 16, "BLOCK_N": 32})
    assert written is not None and note is not None
    assert "if N % 32 == 0:  # kernelopt: tuned" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 20, "N": 32}, {"M": 33, "N": 48}, {"M": 7, "N": 16}])
