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
    for old in (local, alias):
        assert old != original
        refused = guard_edit(old, old.replace("block_size_y: int = 32,", "block_size_y: int = 128,"))
        assert refused.new_source is None, refused.new_source
        assert "so BLOCK_SIZE_Y must divide group_size" in (refused.note or ""), refused.note
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
