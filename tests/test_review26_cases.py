"""review26: this session's landings reread and tried as a user would (docs/faults.md, "Review, twenty-sixth round").
Each test failed before its fix."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kernelopt.tunables.guard import guard_edit

DATA = Path(__file__).parent / "data"
SILU = DATA / "breaker19" / "lmd_silu" / "kernel.py"
COMPUTED = "    BLOCK_SIZE_N = min(BLOCK_SIZE_N, 512)\n"
ASSERT = "    assert grid_size0 < 65536 and grid_size1 < 65536\n"
CHECK = "def _check_grid(size0, size1=1):\n    assert size0 < 65536 and size1 < 65536\n\n\n"
#: r69: the helper's own local bound to the count
COUNTED = "def _check_grid(n, b):\n    tiles = triton.cdiv(n, b)\n    assert tiles < 65536\n\n\n"


@pytest.mark.parametrize(
    ("helper", "call", "row"),
    [
        (CHECK, "_check_grid(grid_size0, grid_size1)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        (CHECK, "_check_grid(size1=grid_size1, size0=grid_size0)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        (CHECK, "_check_grid(grid_size0)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        (CHECK, "_check_grid(1, grid_size1)", "N <= 2 ** 24"),  # the helper bounds no count of tiles
        (COUNTED, "_check_grid(N, BLOCK_SIZE_N)", "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535"),
        # r69: the launcher's own assert on an element of the grid's tuple
        (
            "",
            "grid = (grid_size0, grid_size1)\n    assert grid[0] < 65536",
            "N <= 2 ** 24 and triton.cdiv(N, 16) <= 65535",
        ),
    ],
    ids=["positional", "keywords", "default", "no-count", "r69-helper-local", "r69-grid-element"],
)
def test_r60_a_count_a_helper_asserts_on_is_bounded_as_the_launcher_s_own_assert(
    helper: str, call: str, row: str
) -> None:
    """r60: lmd_silu's ``assert grid_size0 < 65536`` moved into a module helper the launcher calls
    (``_check_grid(grid_size0, grid_size1)``) was unread: a table's row ``if N <= 2 ** 24:`` / ``BLOCK_SIZE_N = 16``
    was written as it is, where at N = 2**24 its 1048576 tiles fail the helper's assert and the original's 512 (32768
    tiles) passes. The helper's asserts are read with what the call passes (by position, by keyword, a default) and
    (r69) through the helper's own locals bound once (``tiles = triton.cdiv(n, b)``): the count's limit is added to
    the row, as for the launcher's own assert (l80)."""
    base = SILU.read_text(encoding="utf-8")
    assert ASSERT in base
    grid = "    grid = (grid_size0, grid_size1)\n"
    assert ASSERT + grid in base
    called = f"    {call}\n" + ("" if "grid = " in call else grid)
    base = base.replace(ASSERT + grid, called).replace("@functools.lru_cache\n", helper + "@functools.lru_cache\n")
    rows = "    if {}:  # kernelopt: tuned\n        BLOCK_SIZE_N = 16\n"
    guarded = guard_edit(base, base.replace(COMPUTED, COMPUTED + rows.format("N <= 2 ** 24")))
    assert guarded.new_source == base.replace(COMPUTED, COMPUTED + rows.format(row)), guarded.note


#: A kernel copying ``X`` in sub-blocks of ``SUB`` of each block of ``BLOCK`` (``BLOCK // SUB`` of them), and the
#: launcher; each case below fills in the body and the launch.
_SUBS = """
import torch
import triton
import triton.language as tl


@triton.jit
def k(X, Y, n, BLOCK: tl.constexpr, SUB: tl.constexpr):
    pid = tl.program_id(0)
{body}


def scale(x):
    n = x.numel()
    y = torch.empty_like(x)
    BLOCK = 64
    SUB = 16
    {launch}
    return y
"""
_COPY = "offs = pid * BLOCK + j * SUB + tl.arange(0, SUB)\n{0}tl.store(Y + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)"
_LOOP = "    for j in tl.static_range(BLOCK // SUB):\n        " + _COPY.format("        ")
_ELSE = (
    "    if BLOCK >= SUB:\n        for j in tl.static_range(BLOCK // SUB):\n            " + _COPY.format("            ")
    + "\n    else:\n        j = 0\n        " + _COPY.format("        ").replace("tl.arange(0, SUB)", "tl.arange(0, BLOCK)")
)  # fmt: skip
_GRID = "    j = tl.program_id(1)\n    " + _COPY.format("    ")
_LAUNCH = "k[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, SUB=SUB)"


@pytest.mark.parametrize(
    ("body", "launch", "rule"),
    [
        (_LOOP, _LAUNCH, "BLOCK // SUB (tl.static_range(BLOCK // SUB) in k)"),
        # r62: the else branch computes where the count is 0: no rule, SUB > BLOCK proposed again
        (_ELSE, _LAUNCH, None),
        # r63: a grid written as a lambda over META reads its count as a tuple's does
        (_GRID, "k[lambda META: (triton.cdiv(n, META['BLOCK']), META['BLOCK'] // META['SUB'])](x, y, n, BLOCK=BLOCK, SUB=SUB)",
         "axis 1 = BLOCK // SUB (axis 1 of k's grid in scale())"),
    ],
    ids=["loop", "r62-else", "r63-lambda"],
)  # fmt: skip
def test_r62_r63_a_count_tested_around_its_loop_is_no_rule_and_a_lambda_grid_s_count_is_one(
    body: str, launch: str, rule: str | None
) -> None:
    """late42's l100 rule (a count of pieces the knobs compute is never 0 in a proposal) tried on the CPU. r62: a
    kernel whose loop over ``BLOCK // SUB`` sits under ``if BLOCK >= SUB:`` and whose ``else`` copies the block whole
    lost every ``SUB > BLOCK`` (78 of 169 pairs), right as the interpreter runs them, "runs over nothing" said of a
    branch that never runs there; a loop under an ``if`` that tests the count or an operand is the author's case of
    0. r63: the same count as a grid's axis written ``lambda META: (..., META['BLOCK'] // META['SUB'])`` had no rule, so
    ``SUB > BLOCK`` was proposed at 0 programs (nothing launched, every output unwritten), where the tuple's is read."""
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.launch import space_from_tunables

    source = _SUBS.format(body=body, launch=launch)
    space = space_from_tunables(discover_source(source), kernel="k", held_options={}, source=source)
    rules = [r for r in space.fit_rules if r.startswith("a count of pieces")]
    pairs = {(c["BLOCK"], c["SUB"]) for c in space.configs()}
    assert (rule is None) == (not rules) and (rule is None or rule in rules[0]), rules
    assert any(b < s for b, s in pairs) == (rule is None) and (64, 16) in pairs


def test_r64_a_hook_factory_s_infinite_argument_is_written_so_it_reads_back(tmp_path: Path) -> None:
    """breaker27's q70 (a pre_hook a module-level factory's call rebuilds is carried into a pinned list, by that call's
    text) tried with a factory that fills an output with a value: ``init_to_value("M", float("-inf"))``, a max
    reduction's start, was written back as ``init_to_value('M', -inf)``, a NameError where the pinned file is
    imported (or another ``inf``'s value). Each argument is written so it reads back as the value the hook holds."""
    import torch

    from kernelopt.tunables.autotune_worker import _hook_name
    from tests.conftest import load_fresh

    path = tmp_path / "hooks.py"
    path.write_text(
        "def init_to_value(name, value):\n    def hook(nargs):\n        nargs[name].fill_(value)\n\n    return hook\n\n\n"
        "LOW = init_to_value('M', float('-inf'))\nODD = init_to_value('M', float('nan'))\n"
    )
    module = load_fresh(path, "_review26_hooks")
    for hook, want in ((module.LOW, float("-inf")), (module.ODD, float("nan"))):
        text = _hook_name(hook)
        assert text is not None and text.startswith("init_to_value('M', float("), text
        out = {"M": torch.zeros(2)}
        eval(text, vars(module))(out)  # the written call rebuilds the hook: it fills what the original fills
        assert bool(out["M"].isnan().all()) if math.isnan(want) else bool((out["M"] == want).all()), out


_MOVED = DATA / "variants" / "pad_rows_moved" / "kernel.py"
_MADE = "    ws = torch.zeros(n_rows, n_pad, dtype=x.dtype).to(x.device)\n"


@pytest.mark.parametrize(
    ("made", "stride"),
    [
        ("    ws = x.new_zeros(n_rows, n_pad)\n", "ws.stride(0)"),
        ("    ws = x.new_empty((n_rows, n_pad)).zero_()\n", "ws.stride(0)"),
        ("    ws = x.new_full((n_rows, n_pad), 0.0)\n", "ws.stride(0)"),
        (_MADE, "ws.stride()[0]"),
        (_MADE, "ws.stride(-2)"),
        # r67: the buffer bound again to itself moved
        ("    ws = torch.zeros(n_rows, n_pad, dtype=x.dtype)\n    ws = ws.to(x.device).contiguous()\n", "ws.stride(0)"),
    ],
)
def test_r65_r67_a_padded_stride_made_by_new_zeros_or_rebound_or_read_as_stride_0_keeps_to_the_tile_s_guard(
    made: str, stride: str
) -> None:
    """wrongkernel27's v142 (a padded buffer moved or cast keeps the strides its making shows) tried with the other
    spellings a user writes: ``x.new_zeros(n_rows, n_pad)`` (``new_empty``, ``new_full``), the stride passed as
    ``ws.stride()[0]`` or ``ws.stride(-2)``, and (r67) the buffer bound again, ``ws = ws.to(x.device).contiguous()``. Each was unread, and ``BLOCK = 4096`` over the original 1024 was written
    plainly: at 1025 columns its rows pad to 4096, not 2048, so ``row * stride`` passes 2**31 in int32 at half the
    rows where the original's stays within. Each is now the padded size, and the tile is guarded where it divides
    the columns (it pads nothing there)."""
    base = _MOVED.read_text(encoding="utf-8")
    assert _MADE in base and "ws.stride(0), BLOCK=BLOCK)" in base
    base = base.replace(_MADE, made).replace("ws.stride(0), BLOCK=BLOCK)", f"{stride}, BLOCK=BLOCK)")
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
    assert guarded.tests == ("n_cols % 4096 == 0",), guarded.note


@pytest.mark.parametrize(("value", "test"), [(512, None), (2048, "n_cols % 2048 == 0")])
def test_r66_a_size_rounded_down_as_n_minus_its_remainder_keeps_a_divisor_out(value: int, test: str | None) -> None:
    """leftovers25's l83 (a size rounded down to whole tiles, ``n_cols // BLOCK * BLOCK``, holds a multiple of the
    original, not a divisor) with the size spelt ``n_cols - n_cols % BLOCK``: read as no product, so ``BLOCK = 512``
    over 1024 was written plainly, where 1536 columns round down to 1536, not 1024, and ``row * n_whole`` passes 2**31
    in int32 at 1.4 million rows where the original's stays within. It is the same size: 512 refused, 2048 guarded."""
    base = (DATA / "leftovers25" / "whole_rows" / "kernel.py").read_text(encoding="utf-8")
    spelt = "    n_whole = n_cols // BLOCK * BLOCK\n"
    assert spelt in base
    base = base.replace(spelt, "    n_whole = n_cols - n_cols % BLOCK\n")
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", f"    BLOCK = {value}\n"))
    if test is None:
        assert guarded.new_source is None and "rounded down to whole tiles" in (guarded.note or ""), guarded.note
    else:
        assert guarded.tests == (test,), guarded.note


def test_r68_a_descriptor_a_module_helper_makes_keeps_its_last_side_s_floor() -> None:
    """wrongkernel27's v140 (a host descriptor's block shape read through the launcher's locals) tried with the
    descriptors made in a module helper, ``_desc(x, BLOCK_M, BLOCK_N)`` over ``def _desc(t, bm, bn): return
    TensorDescriptor.from_tensor(t, [bm, bn])``: the side was the helper's parameter ``bn``, no knob, so ``BLOCK_N=4``
    was legal, a 4-wide last side of 8 bytes in bf16 (as a model calls it), under the 16 a descriptor needs. The
    helper's parameter is each call's argument: 4 is refused, 8 (the original's) stays."""
    from kernelopt.tunables import discover_source

    base = (DATA / "variants" / "desc_host_local" / "kernel.py").read_text(encoding="utf-8")
    made = (
        "    block = [BLOCK_M, BLOCK_N]\n    x_desc = TensorDescriptor.from_tensor(x, block)\n"
        "    o_desc = TensorDescriptor.from_tensor(out, block)\n"
    )
    assert made in base
    source = base.replace(
        made, "    x_desc = _desc(x, BLOCK_M, BLOCK_N)\n    o_desc = _desc(out, BLOCK_M, bn=BLOCK_N)\n"
    )
    source = source.replace(
        "def run(x):", "def _desc(t, bm, bn):\n    return TensorDescriptor.from_tensor(t, [bm, bn])\n\n\ndef run(x):"
    )
    legal = {t.name: t for t in discover_source(source)}["BLOCK_N"].legality
    assert legal is not None and "must be >= 8" in (legal.problem(4) or ""), legal
    assert legal.problem(8) is None
