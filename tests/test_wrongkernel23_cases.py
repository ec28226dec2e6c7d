"""wrongkernel23: new forms of a written kernel wrong at sizes the original handled (docs/faults.md, "Wrong written
kernels, twenty-third hunt"): a tile whose other side the launch computes from a size, past Triton's limit on a
tile's values at sizes ``SHAPES`` never names (v102), or past the kernel's own ``tl.static_assert`` budget (v103)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel17_cases import VARIANTS


def test_v102_a_tile_of_rows_times_a_computed_row_block_keeps_within_triton_s_limit_where_the_original_ran(
    tmp_path: Path,
) -> None:
    """v102 (rows_pow2_numel: row sums, ``ROWS = 4`` rows a program, each row one block of ``BLOCK_N =
    triton.next_power_of_2(n_cols)``, ``assert n_cols <= 65536``): ``ROWS = 32`` was written plainly with the rules
    on, the net "correct at n_rows=65,n_cols=4097, ..., n_rows=63,n_cols=4095", and its tile of 32 x 65536 values
    passes Triton's 1048576 from 32769 columns, which the original (4 x 65536) sums. Now a tile's fixed sides grown
    past what its computed side leaves room for are refused with a line; ``ROWS = 16`` (16 x 65536, the limit) is
    written. A table's row bound by another size (``if n_rows <= 64:`` / ``ROWS = 32``) is refused alike, a row over
    the columns (``if n_cols <= 3000:``, 32 x 4096 at most) written. The same reading holds a ``tl.zeros((ROWS, BLOCK_N))`` accumulator beside ``min(MAX_FUSED,
    triton.next_power_of_2(n_cols))`` with no assert, and breaker7's decode_split (``BLOCK = 64`` of 32 beside
    ``BLOCK_DMODEL = triton.next_power_of_2(Lk)``: head dims past 16384)."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "rows_pow2_numel" / "kernel.py").read_text()
    plain = base.replace("    ROWS = 4\n", "    ROWS = 32\n")
    refused = guard_edit(base, plain)
    assert refused.new_source is None, refused.new_source
    assert (
        "ROWS=32 does not cover every size the original ROWS=4 handled (the tile (ROWS, BLOCK_N) of rowsum_kernel"
        in (refused.note or "")
    )
    assert "BLOCK_N = triton.next_power_of_2(n_cols) reaches 65536 where the original runs: 2097152 values" in (
        refused.note or ""
    ), refused.note
    written = guard_edit(base, base.replace("    ROWS = 4\n", "    ROWS = 16\n"))
    assert written.new_source is not None and "    ROWS = 16\n" in written.new_source, written.note
    # a table's row over another size lets the same tile through; a row over the columns keeps it within the limit
    by_rows = guard_edit(
        base,
        base.replace("    ROWS = 4\n", "    ROWS = 4\n    if n_rows <= 64:  # kernelopt: tuned\n        ROWS = 32\n"),
    )
    assert by_rows.new_source is None and "ROWS=32 where n_rows <= 64 does not cover" in (by_rows.note or "")
    row = "    ROWS = 4\n    if n_cols <= 3000:  # kernelopt: tuned\n        ROWS = 32\n"
    by_cols = guard_edit(base, base.replace("    ROWS = 4\n", row))
    assert by_cols.new_source is not None and row in by_cols.new_source, by_cols.note
    capped = (
        base.replace('    assert n_cols <= 65536, "one block a row"\n', "")
        .replace("BLOCK_N = triton.next_power_of_2(n_cols)", "BLOCK_N = min(MAX_FUSED, triton.next_power_of_2(n_cols))")
        .replace("import triton.language as tl\n", "import triton.language as tl\n\nMAX_FUSED = 65536\n")
        .replace("    x = tl.load(", "    acc = tl.zeros((ROWS, BLOCK_N), dtype=tl.float32)\n    x = acc + tl.load(")
    )
    assert "MAX_FUSED = 65536" in capped and "acc = tl.zeros((ROWS, BLOCK_N)" in capped
    capped_refused = guard_edit(capped, capped.replace("    ROWS = 4\n", "    ROWS = 64\n"))
    assert capped_refused.new_source is None and "reaches 65536 where the original runs: 4194304 values" in (
        capped_refused.note or ""
    )
    # a module constant passed as the side (breaker7's decode_split, BLOCK_N=BLOCK beside next_power_of_2(Lk))
    decode = (Path(__file__).parent / "data" / "breaker7" / "decode_split" / "kernel.py").read_text()
    grown = guard_edit(decode, decode.replace("\nBLOCK = 32\n", "\nBLOCK = 64\n"))
    assert (
        grown.new_source is None
        and "BLOCK=64 does not cover every size the original BLOCK=32 handled (the tile" in (grown.note or "")
    )
    # the plain pick at one row of 32769 columns: past Triton's limit, where the original sums it
    (tmp_path / "plain.py").write_text(plain)
    (tmp_path / "base.py").write_text(base)
    x = torch.ones(1, 32769)
    with triton_interpreted():
        original = load_fresh(tmp_path / "base.py", "wrongkernel23_v102_base")
        assert original.run(x).tolist() == [32769.0]
        written_plain = load_fresh(tmp_path / "plain.py", "wrongkernel23_v102_plain")
        with pytest.raises(Exception, match=r"numel \(2097152\) exceeds triton maximum tensor numel"):
            written_plain.run(x)


def test_v103_a_tile_the_kernel_s_static_assert_budgets_keeps_within_it_where_the_original_ran() -> None:
    """v103 (rows_static_budget: v102's row sums with ``tl.static_assert(ROWS * BLOCK_N <= 65536)``, ``ROWS = 2``,
    ``assert n_cols <= 32768``): ``ROWS = 8`` was written plainly with the rules on (v102's rule read Triton's limit
    alone), the net "correct at n_rows=65,n_cols=4097, ...", and fails its own static assert from 8193 columns,
    which the original (2 x 32768) sums. The kernel's budget is now the tile's limit: refused; a row over the columns
    within the budget (``if n_cols <= 3000:`` / ``ROWS = 16``, 16 x 4096) written."""
    base = (VARIANTS / "rows_static_budget" / "kernel.py").read_text()
    refused = guard_edit(base, base.replace("    ROWS = 2\n", "    ROWS = 8\n"))
    assert refused.new_source is None, refused.new_source
    assert (
        "holds at most 65536 values by its tl.static_assert, and BLOCK_N = triton.next_power_of_2(n_cols) reaches"
        in (refused.note or "")
    ), refused.note
    row = "    ROWS = 2\n    if n_cols <= 3000:  # kernelopt: tuned\n        ROWS = 16\n"
    by_cols = guard_edit(base, base.replace("    ROWS = 2\n", row))
    assert by_cols.new_source is not None and row in by_cols.new_source, by_cols.note


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_v102_the_plain_pick_fails_to_compile_where_the_original_sums(tmp_path: Path) -> None:
    """On a GPU, compiled: v102's plain ``ROWS = 32`` at one row of 32769 columns (a 32 x 65536 tile) fails, Triton's
    limit on a tile's values as its interpreter says, where the original (4 x 65536) sums the row right; ``ROWS = 16``
    (the largest the rule writes) sums 64 rows of 4097 right. v103's plain ``ROWS = 8`` at one row of 8193 columns fails
    its own ``tl.static_assert`` (a compile-time assertion on a GPU), where the original sums it."""
    import shutil

    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    folder = Path(shutil.copytree(VARIANTS / "rows_pow2_numel", tmp_path / "rows_pow2_numel"))
    base = (folder / "kernel.py").read_text()
    (folder / "plain.py").write_text(base.replace("    ROWS = 4\n", "    ROWS = 32\n"))
    (folder / "sixteen.py").write_text(base.replace("    ROWS = 4\n", "    ROWS = 16\n"))
    past = {"n_rows": 1, "n_cols": 32769}
    original = correct_on_device(folder, [past], judge)
    plain = correct_on_device(folder, [past], judge, kernel_py=folder / "plain.py")
    sixteen = correct_on_device(folder, [{"n_rows": 64, "n_cols": 4097}], judge, kernel_py=folder / "sixteen.py")
    budget = Path(shutil.copytree(VARIANTS / "rows_static_budget", tmp_path / "rows_static_budget"))
    (budget / "plain.py").write_text((budget / "kernel.py").read_text().replace("    ROWS = 2\n", "    ROWS = 8\n"))
    past_budget = {"n_rows": 1, "n_cols": 8193}
    budget_original = correct_on_device(budget, [past_budget], judge)
    budget_plain = correct_on_device(budget, [past_budget], judge, kernel_py=budget / "plain.py")
    print("original", original, "plain", plain, "sixteen", sixteen, "v103", budget_original, budget_plain)
    assert all(v is True for v in original.values()), original
    assert all(v is True for v in sixteen.values()), sixteen
    assert all(v is not True and "numel" in str(v) for v in plain.values()), plain
    assert all(v is True for v in budget_original.values()), budget_original
    assert all(v is not True for v in budget_plain.values()), budget_plain  # its own static assert
