"""A fresh clone broken by hand, fourteenth trial (2026-12-06): the thirteenth session's changes (the first-call
check, a reference's faults, the net's power size, v47 and breaker13's rules, block pointers' fit, args tables, a tile
beside a guarded tile, the one-round re-time, SHAPES of bools and floats, and the refactors said to change no
behaviour) tried on neighbours of the kernels they were made for; one test per fix (docs/faults.md, "A fresh clone
broken, fourteenth trial")."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

DATA = Path(__file__).parent / "data"
AWQ = DATA / "breaker13" / "vllm_awq_dequant" / "kernel.py"
ZERO_ROW = "    zero_offsets_y = pid_y * BLOCK_SIZE_Y // group_size + tl.arange(0, 1)\n"
SCALE_ROW = "    scale_offsets_y = pid_y * BLOCK_SIZE_Y // group_size + tl.arange(0, 1)\n"


def test_b4_a_tile_s_first_row_read_through_a_local_must_still_divide_the_group() -> None:
    """b4: vLLM's AWQ dequantization with the program's first row named once (``row0 = pid_y * BLOCK_SIZE_Y``, then
    ``row0 // group_size`` picks the tile's one row of zeros and scales; or the group under a name of the body's own,
    ``gs = group_size``) was written with ``block_size_y = 128`` from SHAPES of group 128 (breaker13's rule read only
    the product written in the division): wrong at groups of 32 and 64, which the original's 32 served (checked in the
    interpreter, NaN-padded, at K=96, G=32 and K=192, G=64). The local is read for its value; the column tile still
    moves."""
    from kernelopt.tunables.guard import guard_edit

    original = AWQ.read_text()
    local = original.replace(ZERO_ROW, "    row0 = pid_y * BLOCK_SIZE_Y\n    zero_offsets_y = row0 // group_size\n")
    local = local.replace(SCALE_ROW, "    scale_offsets_y = row0 // group_size + tl.arange(0, 1)\n")
    alias = original.replace("pid_y * BLOCK_SIZE_Y // group_size", "pid_y * BLOCK_SIZE_Y // gs").replace(
        "    pid_x = tl.program_id(axis=0)\n", "    pid_x = tl.program_id(axis=0)\n    gs = group_size\n"
    )
    for old, group in ((local, "group_size"), (alias, "gs")):
        assert old != original
        refused = guard_edit(old, old.replace("block_size_y: int = 32,", "block_size_y: int = 128,"))
        assert refused.new_source is None, refused.new_source
        assert f"so BLOCK_SIZE_Y must divide {group}" in (refused.note or ""), refused.note
        assert guard_edit(old, old.replace("block_size_x: int = 32,", "block_size_x: int = 64,")).new_source


def test_b4_a_constexpr_group_divided_through_a_local_is_held_as_a_grain() -> None:
    """b4's other reader: a constexpr group dividing a program's first index along another tile is the data's grain
    (GemLite's ``(pid_k * BLOCK_SIZE_K) // group_size``), held; named once first (``k0 = pid_k * BLOCK_SIZE_K``) it
    was read as a tile, free to move. A local bound twice stands for no one value and is not followed."""
    from kernelopt.tunables.grains import grain_sizes

    kernel = (
        "@triton.jit\ndef k(x, s, BLOCK_SIZE_K: tl.constexpr, group_size: tl.constexpr):\n"
        "    pid_k = tl.program_id(1)\n    k0 = pid_k * BLOCK_SIZE_K\n    g = tl.load(s + k0 // group_size)\n"
    )
    node = cst.parse_module(kernel).body[0]
    assert isinstance(node, cst.FunctionDef)
    assert set(grain_sizes(node)) == {"group_size"}
    twice = cst.parse_module(kernel + "    k0 = 0\n").body[0]
    assert isinstance(twice, cst.FunctionDef)
    assert grain_sizes(twice) == {}


PARTS = DATA / "variants" / "parts_capped"
SECOND = "final_sum[(1,)](parts, out, num_parts, MAX_PARTS=64)"


def test_b5_a_count_of_partials_read_off_their_tensor_or_in_another_spelling_is_guarded(tmp_path: Path) -> None:
    """b5: v47's two-stage sum (variants/parts_capped: one block of ``MAX_PARTS=64`` sums the partials of tiles of
    ``BLOCK_SIZE=1024``) with its second stage passed the count read off the partials' tensor (``parts.numel()``,
    ``parts.shape[0]``) or counted as ``math.ceil(n / BLOCK_SIZE)`` or ``-(-n // BLOCK_SIZE)``: ``BLOCK_SIZE = 512``
    was written plainly, wrong at 40000 elements (the 64 partials past the first never summed; checked
    NaN-padded), which the original handled. Each is read as the count it is, guarded ``if n <= 32768``, and the
    guarded text is right on both sides of the bound."""
    import shutil

    from kernelopt.tunables.guard import guard_edit
    from tests.test_breaker7_cases import _all_correct

    original = (PARTS / "kernel.py").read_text()
    forms = [
        original.replace(SECOND, SECOND.replace("out, num_parts,", "out, parts.numel(),")),
        original.replace(SECOND, SECOND.replace("out, num_parts,", "out, parts.shape[0],")),
        original.replace("triton.cdiv(n, BLOCK_SIZE)", "math.ceil(n / BLOCK_SIZE)").replace(
            "import torch\n", "import math\n\nimport torch\n"
        ),
        original.replace("triton.cdiv(n, BLOCK_SIZE)", "-(-n // BLOCK_SIZE)"),
    ]
    for old in forms:
        assert old != original
        guarded = guard_edit(old, old.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 512"))
        assert guarded.new_source is not None and "    if n <= 32768:  # kernelopt: tuned\n" in guarded.new_source, (
            guarded.note
        )
    folder = Path(shutil.copytree(PARTS, tmp_path / "parts_numel"))
    (folder / "kernel.py").write_text(
        guard_edit(forms[0], forms[0].replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 512")).new_source or ""
    )
    _all_correct(folder, [{"n": 33000}, {"n": 5000}])  # 65 partials of 512 past the bound, the pick below


def test_b5_a_second_stage_block_held_by_a_module_constant_is_never_shrunk_past_it() -> None:
    """b5's neighbour: the second stage's block a module-level constant (``MAX_PARTS=MAXP``, ``MAXP = 64``) was not
    read as fixed, and ``BLOCK_SIZE = 512`` went out plainly, wrong past 32768 elements. It is fixed: the smaller
    tile is not written (the constant's value is not read, so no bound is computed), and a larger one, which covers
    more with the same block, still is."""
    from kernelopt.tunables.guard import guard_edit

    old = (PARTS / "kernel.py").read_text().replace(SECOND, SECOND.replace("MAX_PARTS=64", "MAX_PARTS=MAXP"))
    old = old.replace("def run(x):", "MAXP = 64\n\n\ndef run(x):")
    smaller = guard_edit(old, old.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 512"))
    assert smaller.new_source is None and "BLOCK_SIZE * MAXP reaches n" in (smaller.note or ""), smaller.note
    wider = old.replace("BLOCK_SIZE = 1024", "BLOCK_SIZE = 2048")
    assert guard_edit(old, wider).new_source == wider


def test_b6_a_tile_beside_a_guarded_one_is_not_set_under_a_size_its_grid_reads_unbound(tmp_path: Path) -> None:
    """b6: tablebound13's rule (a tile legal at every size falls back with a guarded tile beside it, its grid's copy
    named) on variants/tile_lse_zero with its grid made before the guard's size is bound (``M = x.shape[0]``, ``grid =
    (triton.cdiv(M, 16),)``, then ``N = x.shape[1]``): the pick ``BLOCK_M=32, BLOCK_N=64`` was written with ``if N %
    64 == 0:`` above the grid, before ``N`` is bound, an UnboundLocalError at every size (tune's check of the edit
    then lost the pick). Where the condition reads a name bound below the grid, the tile stays as the guard writes
    it, legal at every size; correct on both sides of the guard, NaN-padded."""
    import shutil

    from tests.test_breaker7_cases import _all_correct
    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(DATA / "variants" / "tile_lse_zero", tmp_path / "tile_lse_late_n"))
    text = (folder / "kernel.py").read_text()
    text = text.replace(
        "    M, N = x.shape\n", "    M = x.shape[0]\n    grid = (triton.cdiv(M, 16),)\n    N = x.shape[1]\n"
    )
    text = text.replace("tile_lse[(triton.cdiv(M, 16),)](", "tile_lse[grid](")
    (folder / "kernel.py").write_text(text)
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None, note
    assert "    grid = (triton.cdiv(M, 32),)\n    N = x.shape[1]\n" in written, written
    assert "    if N % 64 == 0:  # kernelopt: tuned\n        BLOCK_N = 64\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 9, "N": 96}, {"M": 33, "N": 128}])


def test_b7_a_group_the_kernel_computes_from_what_the_launch_passes_is_divided_by_the_tile() -> None:
    """b7: vLLM's AWQ dequantization given the count of groups (``num_groups``, the launch's ``scales.shape[0]``)
    and computing the group in its body (``group_size = num_rows // num_groups``): breaker13's rule read only a group
    the launch passes by name, and ``block_size_y = 128`` from SHAPES of group 128 was written, wrong at K=96, G=32
    (checked in the interpreter, NaN-padded). A local bound once to an expression of runtime parameters is that
    expression in the launch's arguments: the tile must divide it; the column tile still moves."""
    from kernelopt.tunables.guard import guard_edit

    old = AWQ.read_text().replace(
        "    group_size,  # Should always be one of the supported group sizes\n", "    num_groups,\n"
    )
    old = old.replace(
        "    pid_x = tl.program_id(axis=0)\n",
        "    pid_x = tl.program_id(axis=0)\n    group_size = num_rows // num_groups\n",
    )
    old = old.replace(
        "        zeros,\n        group_size,\n        result,",
        "        zeros,\n        scales.shape[0],\n        result,",
    )
    assert old.count("num_groups") == 2
    refused = guard_edit(old, old.replace("block_size_y: int = 32,", "block_size_y: int = 128,"))
    assert refused.new_source is None, refused.new_source
    assert "so BLOCK_SIZE_Y must divide group_size" in (refused.note or ""), refused.note
    assert guard_edit(old, old.replace("block_size_x: int = 32,", "block_size_x: int = 64,")).new_source
