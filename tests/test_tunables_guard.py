"""Tiles that must divide a size (kernelopt.tunables.guard): a tuned tile is a plain literal only where it is legal
at every size the original handled; else it is guarded by the sizes, or not written (issue 32 item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tunables import apply_source, discover_source
from kernelopt.tunables.guard import guard_edit, strip_stale_guards

BREAKER = Path(__file__).parent / "data" / "breaker"
TUNING = Path(__file__).parent / "data" / "tuning"

LAUNCHER = """import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs{mask})


def run(x, y):
    n = x.numel()
    BLOCK = 256
    grid = ({grid},)
    copy_kernel[grid](x, y, BLOCK=BLOCK, num_warps=4)
    return y
"""


def _guarded(source: str, changes: dict[str, int]) -> tuple[str, str | None, str]:
    """(plain edit, guard note, text to write) of moving ``changes`` in ``source``."""
    plain = apply_source(source, changes).new_source
    guarded = guard_edit(source, plain)
    return plain, guarded.note, guarded.new_source or ""


@pytest.mark.timeout(30)
def test_a_smaller_tile_that_divides_the_original_is_a_plain_literal() -> None:
    """32 -> 16 is legal at every multiple of 32: no divisibility to guard (and warps never are); BLOCK_M's is a plain
    literal, and BLOCK_N's is bounded only by the grid's second axis, ``N // BLOCK_N`` programs, at most 65535 on a
    GPU (wrongkernel21, v91)."""
    source = (BREAKER / "mm_nomask" / "kernel.py").read_text()
    plain, note, text = _guarded(source, {"BLOCK_M": 16, "num_warps": 8})
    assert text == plain and note is None
    plain, note, text = _guarded(source, {"BLOCK_N": 16, "num_warps": 8})
    assert "    if N <= 16 * 65535:  # kernelopt: tuned\n        BLOCK_N = 16\n" in text and "% 16" not in text, text
    assert note is not None and "N // BLOCK_N programs, at most 65535 on a GPU" in note, note


@pytest.mark.timeout(30)
def test_asserted_tiles_are_guarded_after_their_assignment_the_original_left_above() -> None:
    source = (BREAKER / "mm_nomask" / "kernel.py").read_text()
    _, note, text = _guarded(source, {"BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 8})
    want = (
        "    BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32\n"
        "    if M % 64 == 0 and N % 64 == 0:  # kernelopt: tuned\n"
        "        BLOCK_M, BLOCK_N = 64, 64\n"
        "    assert M % BLOCK_M"
    )
    assert want in text and "num_warps=8" in text, text
    assert note is not None and note.startswith("BLOCK_M=64, BLOCK_N=64 only where M % 64 == 0 and N % 64 == 0")
    found = {t.name: t.value for t in discover_source(text)}  # the guard reads as tuned lines: 32 stays the knob
    assert found["BLOCK_M"] == 32 and found["BLOCK_N"] == 32 and found["num_warps"] == 8


@pytest.mark.timeout(120)  # 15 s at load 10, past 30 s at load 17 (2026-12-05): a hang guard, not a speed bound
def test_a_launch_literal_over_an_unmasked_cdiv_grid_gets_a_line_and_a_guard_and_a_retune_replaces_it() -> None:
    """tests/data/tuning/gemm_nomask: ``BM=16`` at the launch, ``triton.cdiv(M, meta["BM"])``, no masks."""
    source = (TUNING / "gemm_nomask" / "kernel.py").read_text()
    _, note, text = _guarded(source, {"BM": 32})
    hoisted = "    BM = 16\n    if M % 32 == 0:  # kernelopt: tuned\n        BM = 32\n    mm_kernel[grid](a, b, c, M, N, K, BM=BM,"
    assert hoisted in text, text
    assert note is not None and "kernel without masks" in note
    assert {t.name: t.value for t in discover_source(text)}["BM"] == 16  # the fallback stays the knob
    # a second session on the written text: its candidates run what they name, its write replaces the guard
    again = apply_source(text, {"BM": 64}).new_source
    assert "% 32" not in strip_stale_guards(text, again) and "    BM = 64\n    mm_kernel" in strip_stale_guards(
        text, again
    )
    _, note, rewritten = _guarded(text, {"BM": 64})
    assert "    BM = 16\n    if M % 64 == 0:  # kernelopt: tuned\n        BM = 64\n    mm_kernel" in rewritten, (
        rewritten
    )
    _, note, smaller = _guarded(text, {"BM": 8})
    assert note is None and "kernelopt: tuned" not in smaller and "    BM = 8\n    mm_kernel" in smaller
    # the function already names BM: the guard goes inline at the launch
    taken = source.replace("    M, K = a.shape\n", "    M, K = a.shape\n    BM = None\n")
    assert "BM=32 if M % 32 == 0 else 16, BN=16)" in _guarded(taken, {"BM": 32})[2]


@pytest.mark.timeout(30)
def test_a_masked_kernel_needs_no_guard_and_a_ceiling_grid_is_read_as_cdiv() -> None:
    """A kernel whose every load and store is masked needs no guard. A masked load beside a store without a mask
    (the variants trial, case v2) leaves the store's block unchecked: its grid of ``triton.cdiv(n, BLOCK)`` programs
    needs a block that divides ``n``. A ceiling grid ``(n + BLOCK - 1) // BLOCK`` over a kernel without masks is the
    same count of programs as ``triton.cdiv`` (variants v6: it was read as covering the tail, and ``BLOCK=1024``
    went out plainly over an original that handled every multiple of 256)."""
    masked = LAUNCHER.format(mask=", mask=offs < n), mask=offs < n)", grid="triton.cdiv(n, BLOCK)")
    masked = masked.replace("offs < n), mask=offs < n))", "offs < n), mask=offs < n)")
    plain, note, text = _guarded(masked, {"BLOCK": 1024})
    assert text == plain and note is None
    for mask, grid in ((", mask=offs < n)", "triton.cdiv(n, BLOCK)"), (")", "(n + BLOCK - 1) // BLOCK")):
        _, note, text = _guarded(LAUNCHER.format(mask=mask, grid=grid), {"BLOCK": 1024})
        assert "    if n % 1024 == 0:  # kernelopt: tuned\n" in text, (mask, grid, text)
        assert note is not None and ("unchecked" in note or "kernel without masks" in note), note


@pytest.mark.timeout(30)
def test_an_unmasked_floor_grid_is_guarded_and_a_module_constant_is_not_written() -> None:
    source = LAUNCHER.format(mask=")", grid="n // BLOCK")
    _, note, text = _guarded(source, {"BLOCK": 1024})
    assert note is not None and "the grid at line" in note
    assert "    BLOCK = 256\n    if n % 1024 == 0:  # kernelopt: tuned\n        BLOCK = 1024\n" in text, text
    module = source.replace("    BLOCK = 256\n", "").replace("import triton\n", "import triton\nBLOCK = 256\n", 1)
    plain = apply_source(module, {"BLOCK": 1024}).new_source
    refused = guard_edit(module, plain)
    assert refused.new_source is None
    assert refused.note is not None and "module-level constant cannot be guarded" in refused.note


@pytest.mark.timeout(30)
def test_a_size_bound_after_the_tile_is_not_written() -> None:
    """The guard goes right after the tile's assignment: a size computed later is not known there."""
    late = "    BLOCK = 256\n    n = x.numel()\n"
    source = LAUNCHER.format(mask=")", grid="n // BLOCK").replace("    n = x.numel()\n    BLOCK = 256\n", late)
    plain = apply_source(source, {"BLOCK": 512}).new_source
    refused = guard_edit(source, plain)
    assert refused.new_source is None and refused.note is not None
    assert "n is not known where BLOCK is set: not written" in refused.note


@pytest.mark.timeout(30)
def test_a_loop_step_of_a_kernel_without_masks_must_divide_the_size_it_steps_over() -> None:
    """mm_nomask without its assert: ``for _ in range(0, K, BLOCK_K)`` over unmasked loads covers K only in whole
    steps, so BLOCK_K=64 is guarded by K (passed at the launch as the kernel's K); 16 divides 32 and is not (the
    original's K tile lowered to 16, as 32 itself is illegal below 32: the dot's K of 8-bit operands, v138)."""
    source = (BREAKER / "mm_nomask" / "kernel.py").read_text()
    source = "".join(line for line in source.splitlines(keepends=True) if "assert M %" not in line)
    _, note, text = _guarded(source, {"BLOCK_K": 64})
    assert "    if K % 64 == 0:  # kernelopt: tuned\n        BLOCK_K = 64\n" in text, text
    assert note is not None and "steps range(.., K, BLOCK_K) over loads without masks" in note
    sixteen = source.replace("BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 32", "BLOCK_M, BLOCK_N, BLOCK_K = 32, 32, 16")
    assert sixteen != source
    plain, note, text = _guarded(sixteen, {"BLOCK_K": 32})
    assert "    if K % 32 == 0:  # kernelopt: tuned\n        BLOCK_K = 32\n" in text, text
    plain, note, text = _guarded(source.replace("= 32, 32, 32", "= 32, 32, 64"), {"BLOCK_K": 32})
    assert text == plain and note is None


@pytest.mark.parametrize(
    ("settings", "launch", "target"),
    [
        ("    block, warps = pick(n)\n", "copy_kernel[(n // block,)](x, y, BLOCK=block, num_warps=warps)", "block"),
        ("    cfg = pick_dict(n)\n", 'copy_kernel[(n // cfg["BLOCK"],)](x, y, **cfg)', 'cfg["BLOCK"]'),
    ],
    ids=["tuple_helper", "dict_helper"],
)
def test_a_tuned_table_for_a_computed_tile_a_size_must_divide_is_not_written(
    settings: str, launch: str, target: str
) -> None:
    """A settings helper's block (a tuple or a dict) over a kernel without masks and a grid of ``n // block``
    programs: the tuned table ``if n <= 5000: block = 128`` passed the entries checked (256, 1024) and was
    written, wrong at 192 where the helper gave 64 (issue 32: "never write a wrong kernel"). The value it overrides
    is computed, so the sizes it handled are known only where checked: not written, one line. A warp count is."""
    from kernelopt.tunables import Bucket, TunedTable, write_config, write_table

    helpers = 'def pick(n):\n    return 64, 4\n\n\ndef pick_dict(n):\n    return {"BLOCK": 64, "num_warps": 4}\n\n\n'
    kernel = LAUNCHER.format(mask=")", grid="1")
    old = kernel[: kernel.index("def run")] + helpers + f"def run(x, y):\n    n = x.numel()\n{settings}    {launch}\n"
    table = write_table(old, TunedTable(size="n", buckets=[Bucket(upto=5000, values={"BLOCK": 128})])).new_source
    refused = guard_edit(old, table)
    assert refused.new_source is None and refused.note is not None
    assert refused.note.startswith(f"{target}=128 must divide n (the grid at line ") and "\n" not in refused.note
    warps = write_config(old, {"num_warps": 8}).new_source
    assert guard_edit(old, warps).new_source == warps


#: A row sum whose K loop counts its blocks with math.ceil (K a constexpr): the loads check the rows, and the K axis
#: only where ``KMASK`` is spliced in.
_CEIL_LOOP = """import math

import torch
import triton
import triton.language as tl


@triton.jit
def rowsum(x_ptr, out_ptr, R, K: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    acc = tl.zeros([BLOCK_R], dtype=tl.float32)
    for i in range(math.ceil(K / BLOCK_K)):
        cols = i * BLOCK_K + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + rows[:, None] * K + cols[None, :], mask=(rows[:, None] < R)KMASK, other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(out_ptr + rows, acc, mask=rows < R)


def run(x):
    R, K = x.shape
    out = torch.empty(R, dtype=torch.float32)
    rowsum[(triton.cdiv(R, 16),)](x, out, R, K, BLOCK_R=16, BLOCK_K=32)
    return out
"""


def test_a_loop_counted_by_math_ceil_is_a_ceiling_not_a_floor(tmp_path: Path) -> None:
    """``range(math.ceil(K / BLOCK_K))`` covers K's tail as ``tl.cdiv`` does (one recogniser, blocks.ceil_count): it
    was read as a floor ("the floor drops the tail, masks or not"), so a kernel checking K on every load had
    ``BLOCK_K=64`` guarded by ``K % 64 == 0`` for nothing. Now it is written plainly there, right at K=96; where the
    loads leave K unchecked, the guard stays, for the loads' reason."""
    from .conftest import load_fresh, triton_interpreted

    checked = _CEIL_LOOP.replace("KMASK", " & (cols[None, :] < K)")
    plain = guard_edit(checked, checked.replace("BLOCK_K=32", "BLOCK_K=64"))
    assert plain.new_source == checked.replace("BLOCK_K=32", "BLOCK_K=64") and plain.note is None, plain
    unchecked = _CEIL_LOOP.replace("KMASK", "")
    kept = guard_edit(unchecked, unchecked.replace("BLOCK_K=32", "BLOCK_K=64"))
    assert kept.new_source is not None and "if K % 64 == 0:  # kernelopt: tuned" in kept.new_source, kept
    assert "over loads that leave BLOCK_K unchecked" in (kept.note or ""), kept.note
    written = tmp_path / "kernel.py"
    written.write_text(plain.new_source)
    with triton_interpreted():
        import torch

        x = torch.randn(20, 96)
        got = load_fresh(written, "ceil_loop_kernel").run(x)
    assert torch.allclose(got, x.sum(1), atol=1e-4)
