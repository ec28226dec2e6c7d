"""wrongkernel23: new forms of a written kernel wrong at sizes the original handled (docs/faults.md, "Wrong written
kernels, twenty-third hunt"): a tile whose other side the launch computes from a size, past Triton's limit on a
tile's values at sizes ``SHAPES`` never names (v102), past the kernel's own ``tl.static_assert`` budget (v103, v109:
a side that is a size itself), or its side given by an autotune config, a heuristic or a helper (v108, v110, v111);
a per-bucket table's row over one size, where what the tile must meet is bounded by no one size (v104-v106) or by
another size than the row's (v107)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.interpreter import grid_problem
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
    triton.next_power_of_2(n_cols))`` with no assert, ``max(16, ...)`` of it, and breaker7's decode_split (``BLOCK = 64`` of 32 beside
    ``BLOCK_DMODEL = triton.next_power_of_2(Lk)``: head dims past 16384). refusals23 (u30): where the grown side is a
    local of the launching function, the plain value is written under the guard the tile needs (``if n_cols <= 1048576
    // 32:``), the original the fallback; a module constant (decode_split) and another size's row are still refused."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "rows_pow2_numel" / "kernel.py").read_text()
    plain = base.replace("    ROWS = 4\n", "    ROWS = 32\n")
    refused = guard_edit(base, plain)  # guarded since refusals23 (u30)
    assert refused.tests == ("n_cols <= 1048576 // 32",), refused.note
    assert "ROWS=32 only where n_cols <= 1048576 // 32, the original values elsewhere" in (refused.note or "")
    assert "BLOCK_N = triton.next_power_of_2(n_cols) stays within it where n_cols <= 32768" in (refused.note or ""), (
        refused.note
    )
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
    floored = base.replace("= triton.next_power_of_2(n_cols)", "= max(16, triton.next_power_of_2(n_cols))")
    floored_guard = guard_edit(floored, floored.replace("    ROWS = 4\n", "    ROWS = 32\n"))
    assert floored != base and floored_guard.tests == ("n_cols <= 1048576 // 32",), floored_guard.note
    capped_refused = guard_edit(capped, capped.replace("    ROWS = 4\n", "    ROWS = 64\n"))
    assert capped_refused.tests == ("n_cols <= 1048576 // 64",), capped_refused.note
    # a module constant passed as the side (breaker7's decode_split, BLOCK_N=BLOCK beside next_power_of_2(Lk))
    decode = (Path(__file__).parent / "data" / "breaker7" / "decode_split" / "kernel.py").read_text()
    grown = guard_edit(decode, decode.replace("\nBLOCK = 32\n", "\nBLOCK = 64\n"))
    assert (
        grown.new_source is None
        and "BLOCK=64 does not cover every size the original BLOCK=32 handled (the tile" in (grown.note or "")
        and "a module-level constant cannot be guarded by a size (the guard `if Lk <= 16384:`" in (grown.note or "")
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
    which the original (2 x 32768) sums. The kernel's budget is now the tile's limit: guarded by it since refusals23
    (``if n_cols <= 65536 // 8:``); a row over the columns within the budget (``if n_cols <= 3000:`` / ``ROWS = 16``,
    16 x 4096) written."""
    base = (VARIANTS / "rows_static_budget" / "kernel.py").read_text()
    refused = guard_edit(base, base.replace("    ROWS = 2\n", "    ROWS = 8\n"))
    assert refused.tests == ("n_cols <= 65536 // 8",), refused.note
    assert "holds at most 65536 values by its tl.static_assert, and BLOCK_N = triton.next_power_of_2(n_cols) stays" in (
        refused.note or ""
    ), refused.note
    row = "    ROWS = 2\n    if n_cols <= 3000:  # kernelopt: tuned\n        ROWS = 16\n"
    by_cols = guard_edit(base, base.replace("    ROWS = 2\n", row))
    assert by_cols.new_source is not None and row in by_cols.new_source, by_cols.note


def test_v109_a_tile_side_that_is_a_size_itself_keeps_within_the_kernel_s_budget() -> None:
    """v109 (tokens_budget: ``BLOCK_T = 32`` tokens of the whole head dimension, ``D`` a ``tl.constexpr`` passed as the
    size itself, ``T, D = x.shape`` under ``assert D <= 1024``, the tile held by ``tl.static_assert(BLOCK_T * D <=
    32768)``; SHAPES D 64 and 128): ``BLOCK_T = 64`` was written plainly with the rules on, the net "correct at
    T=129,D=128, ..., T=100,D=512" (its power size, 4 times the largest entry), and fails its own static assert at D
    = 1024, which the original (32 x 1024) scales. A side the launch passes as a size unpacked from a shape is read as
    the computed side, bounded by the launcher's assert: guarded since refusals23 (``if D <= 32768 // 64:``);
    ``BLOCK_T = 16`` written plainly."""
    base = (VARIANTS / "tokens_budget" / "kernel.py").read_text()
    refused = guard_edit(base, base.replace("    BLOCK_T = 32\n", "    BLOCK_T = 64\n"))
    assert refused.tests == ("D <= 32768 // 64",), refused.note
    assert "by its tl.static_assert, and D stays within it where D <= 512" in (refused.note or "")
    smaller = guard_edit(base, base.replace("    BLOCK_T = 32\n", "    BLOCK_T = 16\n"))
    assert smaller.new_source is not None and "    BLOCK_T = 16\n" in smaller.new_source, smaller.note


def test_v108_v111_a_tile_side_an_autotune_config_a_heuristic_or_a_helper_gives_is_read_as_the_launch_s() -> None:
    """v108 (rows_autotune_numel: v102's row sums with ``ROWS`` in an ``@triton.autotune`` list of one config,
    ``triton.Config({"ROWS": 4})``, beside ``BLOCK_N = triton.next_power_of_2(n_cols)`` at the launch): the pinned
    ``triton.Config({"ROWS": 32})`` was written plainly with the rules on (v102's rule read the values a launch
    passes), the net "correct at n_rows=65,n_cols=4097, ...", past Triton's limit from 32769 columns. A side the launch
    does not pass is read from the kernel's decorators (every config of a list: the autotuner may run any); a list
    holding ``ROWS = 64`` beside 4 is refused too, ``ROWS = 16`` written. v110 (rows_heuristic_numel): the computed side
    given by the kernel's own heuristic, ``lambda args: triton.next_power_of_2(args["n_cols"])``: ``ROWS = 32`` was
    written plainly; the heuristic is read in the launch's terms, refused. v111 (rows_helper_numel): the side a module
    helper returns, ``row_block(n_cols)`` over ``triton.next_power_of_2``, read through its one ``return``: refused.
    Since refusals23 (u30) v110's and v111's are guarded (``if n_cols <= 1048576 // 32:``); an autotune config is still
    refused (no guard by a size is written in a decorator)."""
    base = (VARIANTS / "rows_autotune_numel" / "kernel.py").read_text()
    config = 'triton.Config({"ROWS": 4})'
    assert config in base
    # v110 (rows_heuristic_numel: BLOCK_N by the kernel's heuristic, next_power_of_2(args["n_cols"])): the same reading
    heuristic = (VARIANTS / "rows_heuristic_numel" / "kernel.py").read_text()
    assert 'lambda args: triton.next_power_of_2(args["n_cols"])' in heuristic
    by_heuristic = guard_edit(heuristic, heuristic.replace("    ROWS = 4\n", "    ROWS = 32\n"))
    assert by_heuristic.tests == ("n_cols <= 1048576 // 32",) and "BLOCK_N = triton.next_power_of_2(n_cols) stays" in (
        by_heuristic.note or ""
    ), by_heuristic.note
    # v111 (rows_helper_numel: BLOCK_N = row_block(n_cols), a module helper returning next_power_of_2 under its assert)
    helper = (VARIANTS / "rows_helper_numel" / "kernel.py").read_text()
    by_helper = guard_edit(helper, helper.replace("    ROWS = 4\n", "    ROWS = 32\n"))
    assert by_helper.tests == ("n_cols <= 1048576 // 32",) and "BLOCK_N = row_block(n_cols) stays within" in (
        by_helper.note or ""
    )
    for moved, written in (
        ('triton.Config({"ROWS": 32})', False),
        ('triton.Config({"ROWS": 4}), triton.Config({"ROWS": 64})', False),
        ('triton.Config({"ROWS": 16})', True),
    ):
        guarded = guard_edit(base, base.replace(config, moved))
        assert (guarded.new_source is not None) is written, (moved, guarded.note)
        assert written or "does not cover every size the original ROWS=4 handled (the tile (ROWS, BLOCK_N)" in (
            guarded.note or ""
        ), guarded.note


def _table_edit(tmp_path: Path, variant: str, bests: list[dict[str, int]]) -> tuple[str | None, str | None]:
    """The text ``tune`` writes (and its note) for a session on a copy of ``variant`` whose every ``SHAPES`` entry
    timed its own best (``bests``, in the entries' order; the original slower everywhere): a per-bucket table,
    :func:`kernelopt.tuning.folder.shaped_edit` as ``_checked_edit`` calls it before the entries' check and the net."""
    import shutil

    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape, total

    folder = Path(shutil.copytree(VARIANTS / variant, tmp_path / variant))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    labels = [s.label() for s in prepared.shapes]
    current = prepared.space.current().as_dict()

    def timed(config: dict[str, Any], latencies: list[float]) -> Result:
        by = dict(zip(labels, latencies, strict=True))
        return Result(
            config=config, outcome=Outcome.OK, latency_us=total(latencies), latency_us_by_shape=by, retimed=True
        )

    results = [timed(current, [200.0] * len(labels))]
    results += [
        timed({**current, **b}, [1.0 if j == i else 100.0 for j in range(len(labels))]) for i, b in enumerate(bests)
    ]
    best = min(results, key=lambda r: r.latency_us or 0.0)
    result = SessionResult(
        best_config=best.config, best_latency_us=best.latency_us, current_config=current,
        current_latency_us=results[0].latency_us, results=results, retimed=results, evaluations=len(results), served=0,
        budget=4, space_size=8, wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, results, best.config, current)
    choice = choose(shapes)
    assert choice.kind is ChoiceKind.TABLE, choice
    tuning = tf.judge_choice(
        tf.FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choice)
    )
    edit, note = tf.shaped_edit(tuning)
    return (edit.new_source if edit is not None else None), note


def test_v104_v106_a_table_s_row_over_one_size_keeps_a_limit_no_one_size_bounds(tmp_path: Path) -> None:
    """v104 (grid_heads_product, v89's ``(B, H * n_blocks)`` grid): a session whose 1 x 8 x 5000 entry timed ``BLOCK =
    256`` best wrote the table ``elif L <= 5000:  # kernelopt: tuned`` / ``BLOCK = 256``, the net "correct at
    B=3,H=5,L=4097, ..."; at 4000 heads of 5000 it launches 80000 programs on the grid's second axis, which a GPU
    refuses, where the original launches 20000. v89's refusal of a plain 256 read no table's row, whose bound is one
    size of the product. v105 (parts_workspace, v93's ``assert n_rows * n_parts <= WORKSPACE``): the row ``if n_cols <=
    3000:`` / ``BLOCK = 256`` was written, its assert raised from 87382 rows of 3000, the original's from 349526. v106
    (pad_workspace, v97's padded size under an assert): the row ``BLOCK = 2048`` made ``guard_edit`` raise
    AttributeError (a divisor of no one size, read as a size). Now a row whose value does not meet, where the original
    did, what no one size bounds is refused with a line; a larger tile (v104) or a divisor (v106's 512) is written.
    Since configs24's c44 a row of a grid axis's count holds the count's limit as a test (where it fails, the original
    runs): v104's row of 256 is written so."""
    text, note = _table_edit(tmp_path, "grid_heads_product", [{}, {"BLOCK": 256}])
    assert text is not None, note
    assert "    elif L <= 5000 and H * triton.cdiv(L, 256) <= 65535:  # kernelopt: tuned\n        BLOCK = 256\n" in text
    assert note is not None and "BLOCK=256 only where H * triton.cdiv(L, 256) <= 65535" in note, note
    # the row's launch at 4000 heads of 5000 past the axis's limit, the original's within (the patched interpreter)
    assert grid_problem((1, 4000 * -(-5000 // 256), 1)) is not None
    assert grid_problem((1, 4000 * -(-5000 // 1024), 1)) is None
    row = "    BLOCK = 1024\n    if {} <= 5000:  # kernelopt: tuned\n        BLOCK = {}\n"
    for variant, size, value, written in (
        ("grid_heads_product", "L", 4096, True),
        ("parts_workspace", "n_cols", 256, False),
        ("parts_workspace", "n_cols", 2048, True),
        ("pad_workspace", "n_cols", 512, True),
    ):
        base = (VARIANTS / variant / "kernel.py").read_text()
        tabled = base.replace("    BLOCK = 1024\n", row.format(size, value))
        guarded = guard_edit(base, tabled)
        assert (guarded.new_source == tabled) is written, (variant, value, guarded.note)
        assert written or f"BLOCK={value} where {size} <= 5000 does not" in (guarded.note or ""), guarded.note
    # refusals24 (u41): v106's row of 2048 gets the padded size's test, where the tile pads nothing
    base = (VARIANTS / "pad_workspace" / "kernel.py").read_text()
    padded = guard_edit(base, base.replace("    BLOCK = 1024\n", row.format("n_cols", 2048))).new_source or ""
    assert "    if n_cols <= 5000 and n_cols % 2048 == 0:  # kernelopt: tuned\n        BLOCK = 2048\n" in padded
    # v105's row at 87382 rows of 3000 (one row expanded): its assert raises before any launch
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "parts_workspace" / "kernel.py").read_text()
    (tmp_path / "v105.py").write_text(base.replace("    BLOCK = 1024\n", row.format("n_cols", 256)))
    with triton_interpreted():
        module = load_fresh(tmp_path / "v105.py", "wrongkernel23_v105_row")
        with pytest.raises(AssertionError, match="the partials fit the workspace"):
            module.run(torch.ones(1, 3000).expand(87382, 3000))
    assert 87382 * -(-3000 // 1024) <= 2**20  # the original's partials there fit


def test_v107_a_literal_table_over_another_size_keeps_its_column_tiles_within_the_grid_s_second_axis(
    tmp_path: Path,
) -> None:
    """v107 (scale2d_axis1: a 2-D masked scale, the grid ``(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))`` beside
    ``BLOCK_N = 1024``; SHAPES 64 x 3000 and 512 x 1000): a session whose 512 x 1000 entry timed ``BLOCK_N = 256``
    best wrote a literal table over ``M``, ``elif M <= 512:`` / ``BLOCK_N = 256``, a launch a GPU refuses at one row
    of 256 * 65535 + 1 columns (64 MB), which the original's 16385 column tiles cover. The table path took every cover
    as bounded by its row; a row over another size now gets v33's test as a conjunct, ``elif M <= 512 and N <= 256 *
    65535:``, where the row falls to the literal beyond it (as a divisibility is added)."""
    text, note = _table_edit(tmp_path, "scale2d_axis1", [{}, {"BLOCK_N": 256}])
    assert text is not None, note
    assert "    elif M <= 512 and N <= 256 * 65535:  # kernelopt: tuned\n        BLOCK_N = 256\n" in text, text
    assert "BLOCK_N=256 only where N <= 256 * 65535 (the grid's axis 1 at line 22" in (note or ""), note
    assert grid_problem((1, -(-(256 * 65535 + 1) // 256), 1)) is not None  # the row as written before, one row past
    assert grid_problem((1, -(-(256 * 65535 + 1) // 1024), 1)) is None  # the literal it falls to


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_v102_the_plain_pick_fails_to_compile_where_the_original_sums(tmp_path: Path) -> None:
    """On a GPU, compiled: v102's plain ``ROWS = 32`` at one row of 32769 columns (a 32 x 65536 tile) fails, Triton's
    limit on a tile's values as its interpreter says, where the original (4 x 65536) sums the row right; ``ROWS = 16``
    (the largest the rule writes) sums 64 rows of 4097 right; v108's pinned ``triton.Config({"ROWS": 32})``, as ``tune``
    wrote it, fails there alike. v103's plain ``ROWS = 8`` at one row of 8193 columns fails
    its own ``tl.static_assert`` (a compile-time assertion on a GPU), where the original sums it; v109's ``BLOCK_T = 64``
    at a head dimension of 1024 alike, where the original scales it. v104's table (``elif L
    <= 5000:`` / ``BLOCK = 256`` over grid_heads_product) at 4000 heads of 5000 (80 MB) launches 80000 programs on the
    grid's second axis, which CUDA refuses, where the original's 20000 scale it right. v107's row over ``M`` as written
    before (``BLOCK_N = 256``) at one row of 256 * 65535 + 1 columns (64 MB) launches 65536 column tiles, refused; the
    row as ``guard_edit`` writes it now (``and N <= 256 * 65535``) falls to the literal there and runs right."""
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
    listed = Path(shutil.copytree(VARIANTS / "rows_autotune_numel", tmp_path / "rows_autotune_numel"))
    pinned = (listed / "kernel.py").read_text().replace('{"ROWS": 4}', '{"ROWS": 32}')
    (listed / "plain.py").write_text(pinned)
    listed_plain = correct_on_device(listed, [past], judge, kernel_py=listed / "plain.py")
    budget = Path(shutil.copytree(VARIANTS / "rows_static_budget", tmp_path / "rows_static_budget"))
    (budget / "plain.py").write_text((budget / "kernel.py").read_text().replace("    ROWS = 2\n", "    ROWS = 8\n"))
    past_budget = {"n_rows": 1, "n_cols": 8193}
    budget_original = correct_on_device(budget, [past_budget], judge)
    budget_plain = correct_on_device(budget, [past_budget], judge, kernel_py=budget / "plain.py")
    tokens = Path(shutil.copytree(VARIANTS / "tokens_budget", tmp_path / "tokens_budget"))
    (tokens / "plain.py").write_text(
        (tokens / "kernel.py").read_text().replace("    BLOCK_T = 32\n", "    BLOCK_T = 64\n")
    )
    head = {"T": 3, "D": 1024}
    tokens_original = correct_on_device(tokens, [head], judge)
    tokens_plain = correct_on_device(tokens, [head], judge, kernel_py=tokens / "plain.py")
    heads = Path(shutil.copytree(VARIANTS / "grid_heads_product", tmp_path / "grid_heads_product"))
    table = "    BLOCK = 1024\n    if L <= 3000:  # kernelopt: tuned\n        BLOCK = 1024\n"
    table += "    elif L <= 5000:  # kernelopt: tuned\n        BLOCK = 256\n"
    (heads / "table.py").write_text((heads / "kernel.py").read_text().replace("    BLOCK = 1024\n", table))
    many = {"B": 1, "H": 4000, "L": 5000}
    heads_original = correct_on_device(heads, [many], judge)
    heads_table = correct_on_device(heads, [many], judge, kernel_py=heads / "table.py")
    print("original", original, "plain", plain, "sixteen", sixteen, "v103", budget_original, budget_plain)
    tiles = Path(shutil.copytree(VARIANTS / "scale2d_axis1", tmp_path / "scale2d_axis1"))
    tiled = (tiles / "kernel.py").read_text()
    row = "    BLOCK_N = 1024\n    if M <= 512:  # kernelopt: tuned\n        BLOCK_N = 256\n"
    (tiles / "before.py").write_text(tiled.replace("    BLOCK_N = 1024\n", row))
    (tiles / "now.py").write_text(guard_edit(tiled, tiled.replace("    BLOCK_N = 1024\n", row)).new_source or "")
    wide = {"M": 1, "N": 256 * 65535 + 1}
    v107 = {k: correct_on_device(tiles, [wide], judge, kernel_py=tiles / f"{k}.py") for k in ("before", "now")}
    print(
        "v104", heads_original, heads_table, "v107", v107, "v108", listed_plain, "v109", tokens_original, tokens_plain
    )
    assert all(v is not True for v in v107["before"].values()), v107  # 65536 programs on the second axis
    assert all(v is True for v in v107["now"].values()), v107
    assert all(v is True for v in heads_original.values()), heads_original
    assert all(v is not True for v in heads_table.values()), heads_table  # 80000 programs on the second axis
    assert all(v is True for v in original.values()), original
    assert all(v is True for v in sixteen.values()), sixteen
    assert all(v is not True for v in plain.values()), plain  # a 32 x 65536 tile: past Triton's limit
    assert all(v is not True for v in listed_plain.values()), listed_plain  # v108, as tune wrote it
    assert all(v is True for v in budget_original.values()), budget_original
    assert all(v is not True for v in budget_plain.values()), budget_plain  # its own static assert
    assert all(v is True for v in tokens_original.values()), tokens_original
    assert all(v is not True for v in tokens_plain.values()), tokens_plain  # v109: 64 x 1024 past its budget


def test_v112_a_row_block_unpacked_from_a_settings_helper_s_tuple_keeps_the_tile_within_triton_s_limit() -> None:
    """v112 (rows_settings_tuple: v102's row sums with ``BLOCK_N, num_warps = calculate_settings(n_cols)``, Unsloth's
    helper returning ``BLOCK_SIZE, num_warps`` after ``if BLOCK_SIZE > MAX_FUSED_SIZE: raise``, ``ROWS = 4``):
    ``ROWS = 32`` was written plainly (v111's reading took a helper's one value, not an item of its tuple), past
    Triton's limit from 32769 columns, which the original (4 x 65536) sums. The item is read through the helper's
    return, its local bounded by the raising check: refused, ``ROWS = 16`` (16 x 65536, the limit) written. Since
    refusals23 (u30) ``ROWS = 32`` is written under ``if n_cols <= 1048576 // 32:``, the original the fallback."""
    base = (VARIANTS / "rows_settings_tuple" / "kernel.py").read_text()
    assert "BLOCK_N, num_warps = calculate_settings(n_cols)" in base
    refused = guard_edit(base, base.replace("    ROWS = 4\n", "    ROWS = 32\n"))
    assert refused.tests == ("n_cols <= 1048576 // 32",), refused.note
    assert "BLOCK_N = calculate_settings(n_cols) stays within it where n_cols <= 32768" in (refused.note or ""), (
        refused.note
    )
    written = guard_edit(base, base.replace("    ROWS = 4\n", "    ROWS = 16\n"))
    assert written.new_source is not None and "    ROWS = 16\n" in written.new_source, written.note


def test_v113_a_padded_size_a_kernel_multiplies_in_int32_keeps_to_divisors_of_the_original_tile() -> None:
    """v113 (pad_rows_int32: rows copied into a buffer of ``n_rows * n_pad`` values, ``n_pad = triton.cdiv(n_cols,
    BLOCK) * BLOCK`` passed to the kernel, which stores at ``row * n_pad + cols`` in int32; ``BLOCK = 1024``, no bound
    on the buffer): ``tunables --set BLOCK=4096`` wrote it, the net "correct" at every size it runs, and at 524289
    rows of 1025 columns (2 GB of float32) ``row * n_pad`` reaches 2**31 and wraps, where the original's 2048 a row
    index right. As v97's padded size under an assert, a padded size multiplied in int32 keeps a tile to divisors of
    the original's: 2048 and 4096 refused with the line (guarded by ``n_cols % 2048 == 0``, where they pad nothing,
    since refusals24's u41), 512 (under v33's axis limit there) no longer refused by it."""
    base = (VARIANTS / "pad_rows_int32" / "kernel.py").read_text()
    for grown in (2048, 4096):  # refusals24 (u41): guarded where the tile divides the size, padding nothing
        guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", f"    BLOCK = {grown}\n"))
        assert guarded.tests == (f"n_cols % {grown} == 0",), guarded.note
        assert (
            "passes n_pad, a size padded to whole tiles of BLOCK, which pad_rows multiplies in int32 (row * n_pad)"
            in (guarded.note or "")
        ), guarded.note
    halved = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 512\n"))
    assert "multiplies in int32" not in (halved.note or ""), halved.note


@pytest.mark.gpu
def test_on_cuda_v113_a_padded_stride_past_int32_wraps_where_the_original_indexed_right(tmp_path: Path) -> None:
    """On a GPU: v113's ``BLOCK = 4096`` (as ``tunables --set`` wrote it before the rule) at 524289 rows of 1025
    columns (2.15 GB of float32, a buffer of 8.6 GB) indexes row 524288 at ``row * n_pad`` = 2**31 in int32, wrapped:
    not right (an illegal address, or a wrong sum); the original (``n_pad`` 2048, 4.3 GB) sums every row right. The
    wrong kernel runs last: an illegal address spoils the process's CUDA context."""
    import shutil

    import torch

    from tests.gpu_correct import StickyFault, correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    folder = Path(shutil.copytree(VARIANTS / "pad_rows_int32", tmp_path / "pad_rows_int32"))
    (folder / "grown.py").write_text(
        (folder / "kernel.py").read_text().replace("    BLOCK = 1024\n", "    BLOCK = 4096\n")
    )
    rows = {"n_rows": 524289, "n_cols": 1025}
    original = correct_on_device(folder, [rows], judge)
    torch.cuda.empty_cache()
    print("v113 original", original)
    assert all(v is True for v in original.values()), original
    try:
        grown = correct_on_device(folder, [rows], judge, kernel_py=folder / "grown.py")
    except StickyFault as fault:  # the wrapped store's illegal address: wrong there, as a wrong sum would be
        grown = fault.out
    print("v113 grown", grown)
    assert all(v is not True for v in grown.values()), grown
