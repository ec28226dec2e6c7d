"""The eleventh new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker11
is a public Triton kernel written for the trial in a form the first ten trials did not try (its README lists them).
What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES`` entry and
at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the middle of NaN
(tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker11"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- knobs found


BRANCHES = """import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def run(x):
    n = x.numel()
    if n <= 32:
        BLOCK, warps = 64, 4
    else:
        BLOCK, warps = 128, 8
    y = torch.empty_like(x)
    _scale[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=warps)
    return y
"""


def test_tiles_chosen_by_branches_read_the_sizes_of_their_conditions() -> None:
    """Seen on 2026-12-06: scaled_mm, vLLM's ``triton_scaled_mm``, picks ``tile_shape = (64, 64, 256)`` under ``if
    next_power_of_2_M <= 32:`` (another tuple under each ``elif``, ``is_small_N`` refining the first), all inside
    ``if use_heuristic:``, then unpacks ``block_size_m, block_size_n, block_size_k = tile_shape``. ``tune`` exited 2,
    "no tunable knob: ... BLOCK_SIZE_M (computed ... from tile_shape, which no SHAPES entry names as a size: a table
    that falls back on the computation needs one, so it is left alone)": the tiles read ``M`` and ``N`` through the
    branches' conditions, not through an expression. A local bound only under conditions stands for what its
    conditions and values read; a setting chosen among literals by branches reads its conditions."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "scaled_mm" / "kernel.py").read_text())}
    for tile in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"):
        knob = found[f"scaled_mm_kernel:{tile}"]
        assert knob.editable and {"M", "N"} <= set(knob.size_names) and "tile_shape" not in knob.size_names, knob
    branches = {t.key: t for t in discover_source(BRANCHES)}
    assert branches["_scale:BLOCK"].size_names == ["n"] == branches["_scale:num_warps"].size_names


@pytest.mark.timeout(180)
def test_a_table_of_tiles_chosen_by_branches_is_written_and_correct_at_other_sizes(tmp_path: Path) -> None:
    """The table ``tune`` writes for scaled_mm after the rule above: ``if M <= 150:  # kernelopt: tuned`` after the
    branches, the tiles' computation the fallback above it and the scale blocks (``block_size_sa = ... else
    block_size_m``) following the tuned tile; correct at sizes no entry names, odd ones and one above the table."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("scaled_mm", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64})
    assert written is not None, note
    assert "    if M <= 150:  # kernelopt: tuned\n        block_size_m = 32\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 3, "N": 33, "K": 77}, {"M": 129, "N": 17, "K": 300}, {"M": 200, "N": 130, "K": 129}])


def test_a_table_row_of_what_the_original_computed_is_not_refused_by_the_fit_estimate() -> None:
    """Seen on 2026-12-06 after the rule above: ``tune scaled_mm --device cpu`` timed 6 candidates, then exited 2
    "the new configuration cannot fit: estimated shared memory 393216 B (stages x (BM*BK + BK*BN) x 4 B) > 102400 B
    per SM" writing its per-bucket table: the row of the smallest shape, whose best was the computation itself,
    holds what vLLM computes there (64 x 64 x 256), which the portable estimate (no GPU, no dtype: 4 B an element)
    refuses though the operands are int8 (96 KiB). A row of the original's own values is no new configuration;
    the others are still held to the estimate."""
    from kernelopt.tunables import ResourceLimits, TunableFitError
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.model import Bucket, TunedTable

    source = (DATA / "scaled_mm" / "kernel.py").read_text()
    limits = ResourceLimits.portable(None)
    ran = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256}
    new = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64}
    table = TunedTable(size="M", buckets=[Bucket(upto=5, values=ran), Bucket(upto=150, values=new)])
    written = write_table(source, table, limits=limits, ran=[5], kernel="scaled_mm_kernel")
    assert "    if M <= 5:  # kernelopt: tuned\n        block_size_m = 64\n" in written.new_source
    with pytest.raises(TunableFitError, match="393216 B"):
        write_table(source, table, limits=limits, kernel="scaled_mm_kernel")
    too_big = TunedTable(size="M", buckets=[Bucket(upto=5, values=new), Bucket(upto=150, values=ran)])
    with pytest.raises(TunableFitError, match="393216 B"):
        write_table(source, too_big, limits=limits, ran=[5], kernel="scaled_mm_kernel")
