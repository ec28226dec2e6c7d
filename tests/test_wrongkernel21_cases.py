"""wrongkernel21: a tile whose count of programs sits on a grid's second axis, where a GPU launch takes at most 65535,
read by the grid rule only where the axis was ``triton.cdiv(n, BLOCK)`` itself (variants v33): the count bound to a
local first (v88: ``n_blocks = triton.cdiv(n_cols, BLOCK)``, ``(n_rows, n_blocks)``) or multiplied by another size
(v89: ``(B, H * n_blocks)``) was written plainly with the rules on, a smaller tile past the limit where the original
launches (docs/faults.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.harness.interpreter import grid_problem
from kernelopt.tunables.guard import guard_edit
from tests.test_wrongkernel17_cases import VARIANTS, _checked


@pytest.mark.timeout(120)
def test_v88_a_count_of_column_tiles_bound_to_a_local_is_guarded_by_the_grid_s_limit_with_the_rules_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v88 (grid_axis1_local: v33's row scale with the column tiles counted into a local, ``n_blocks =
    triton.cdiv(n_cols, BLOCK)`` beside ``BLOCK = 1024``, the grid ``(n_rows, n_blocks)``): ``BLOCK = 256`` was
    written plainly with the rules on, "correct at n_rows=5,n_cols=8193, ..." (the net's sizes are far under the
    limit), and a GPU refuses its launch from 256 * 65535 + 1 columns, which the original (65535 tiles of 1024 up to
    64 times as many) launches. Now the local is read as the count it is bound to, and the pick is written under
    v33's guard, ``if n_cols <= 256 * 65535``, the net passing it."""
    done = _checked(tmp_path, monkeypatch, "grid_axis1_local", {"BLOCK": 256})
    assert done.edit is not None and done.net is not None and done.net.failed is None, done.edit_note
    assert "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        BLOCK = 256\n" in done.edit.new_source, (
        done.edit.new_source
    )
    assert "the grid's axis 1 at line 25 has n_blocks programs, at most 65535 on a GPU" in (done.edit_note or "")


def test_v89_a_tile_counted_in_a_product_on_the_grid_s_second_axis_is_not_shrunk(tmp_path: Path) -> None:
    """v89 (grid_heads_product: each head of ``(B, H, L)`` scaled, the grid ``(B, H * n_blocks)`` with ``n_blocks =
    triton.cdiv(L, BLOCK)`` beside ``BLOCK = 1024``): ``BLOCK = 256`` was written plainly with the rules on,
    "correct at B=3,H=9,L=8193, ..., B=2,H=8,L=11000", and its launch at one batch of 32 heads of 600000 holds 75008
    programs on the second axis, which a GPU refuses (the interpreter patched as the workers run it says so before any
    program), where the original's holds 18752. No one size bounds a product (a guard over ``L`` alone lets 40000
    heads of 257 through), so a smaller tile is not written, the line naming the product; a larger one still is."""
    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "grid_heads_product" / "kernel.py").read_text()
    plain = base.replace("    BLOCK = 1024\n", "    BLOCK = 256\n")
    guarded = guard_edit(base, plain)
    assert guarded.new_source is None and guarded.note is not None, guarded.new_source
    assert "a product of H and triton.cdiv(L, BLOCK)" in guarded.note and guarded.note.endswith("not written")
    grown = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
    assert grown.new_source is not None and "kernelopt: tuned" not in grown.new_source, grown.note
    # what the plain pick launches where the original's grid fits
    assert grid_problem((1, 32 * 586, 1)) is None  # the original: 32 heads of cdiv(600000, 1024) tiles
    (tmp_path / "kernel.py").write_text(plain)
    import torch

    with triton_interpreted():
        module = load_fresh(tmp_path / "kernel.py", "wrongkernel21_v89_plain")
        x = torch.empty(1, 32, 600000)
        with pytest.raises(ValueError, match="the grid's axis 1 has 75008 programs, more than the 65535"):
            module.run(x, torch.ones(32))


def test_v90_a_grid_function_the_launcher_defines_or_a_helper_returns_keeps_its_second_axis_within_the_limit() -> None:
    """v90 (grid_def_axis1: v33's row scale, its grid a function of the launcher, ``def grid(meta): return (n_rows,
    triton.cdiv(n_cols, meta["BLOCK"]))`` beside ``BLOCK=1024``): ``BLOCK=256`` was written plainly with the rules on
    (the net "correct at n_rows=5,n_cols=8193, ..."), a launch a GPU refuses past 256 * 65535 columns; so was the same
    grid in a module helper a ``lambda meta:`` calls (``lambda meta: _grid(n_rows, n_cols, meta)``), and, in a list
    of one autotune config ``{"BLOCK": 1024}``, the config ``{"BLOCK": 256}``. Now the function's returned tuple is
    the grid read: the launch literal is guarded ``if n_cols <= 256 * 65535``, the decorator's setting refused."""
    base = (VARIANTS / "grid_def_axis1" / "kernel.py").read_text()
    nested = '\n    def grid(meta):\n        return (n_rows, triton.cdiv(n_cols, meta["BLOCK"]))\n\n    row_scale[grid]'
    helper = base.replace(nested, "\n    row_scale[lambda meta: _grid(n_rows, n_cols, meta)]").replace(
        "def run(x, s):",
        'def _grid(n_rows, n_cols, meta):\n    return (n_rows, triton.cdiv(n_cols, meta["BLOCK"]))\n\n\ndef run(x, s):',
    )
    assert nested in base and "_grid(n_rows" in helper
    guard = "    BLOCK = 1024\n    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        BLOCK = 256\n"
    for text in (base, helper):
        guarded = guard_edit(text, text.replace("n_cols, BLOCK=1024)", "n_cols, BLOCK=256)"))
        assert guarded.new_source is not None and guard in guarded.new_source, (guarded.note, guarded.new_source)
    listed = base.replace("@triton.jit\n", '@triton.autotune(configs=[triton.Config({"BLOCK": 1024})], key=["n_cols"])\n@triton.jit\n', 1).replace(
        "n_cols, BLOCK=1024)", "n_cols)"
    )  # fmt: skip
    refused = guard_edit(listed, listed.replace('{"BLOCK": 1024}', '{"BLOCK": 256}'))
    assert refused.new_source is None and refused.note is not None, refused.new_source
    assert "at most 65535 on a GPU), and a setting in row_scale's decorator cannot be guarded" in refused.note


def test_v91_v92_a_count_of_tiles_by_floor_or_by_a_product_of_settings_keeps_the_second_axis_within_the_limit() -> None:
    """v91 (grid_floor_axis1: no masks, rows a multiple of 1024, the grid ``(n_rows, n_cols // BLOCK)`` beside
    ``BLOCK = 1024``) and v92 (grid_unroll_axis1: each program ``UNROLL = 4`` masked blocks of ``BLOCK = 256``, the grid
    ``(n_rows, triton.cdiv(n_cols, BLOCK * UNROLL))``): ``BLOCK = 256`` (a divisor: no test of divisibility), and
    ``BLOCK = 64`` or ``UNROLL = 1``, were written plainly with the rules on, the net "correct at ...", each launch
    refused by a GPU past 256 * 65535 columns where the original's holds at most 65535 programs up to 1024 * 65535.
    Now a floor's count and a product's (each setting with its partners' values) are read as v33's: guarded ``if
    n_cols <= 256 * 65535``; a larger product (``BLOCK = 512``) is written plainly, as before."""
    floor = (VARIANTS / "grid_floor_axis1" / "kernel.py").read_text()
    guarded = guard_edit(floor, floor.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
    assert (
        guarded.new_source is not None and "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n" in guarded.new_source
    )
    assert "n_cols // BLOCK programs, at most 65535 on a GPU" in (guarded.note or ""), guarded.note
    unroll = (VARIANTS / "grid_unroll_axis1" / "kernel.py").read_text()
    for old, new, guard in (
        (
            "    BLOCK = 256\n",
            "    BLOCK = 64\n",
            "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        BLOCK = 64\n",
        ),
        (
            "    UNROLL = 4\n",
            "    UNROLL = 1\n",
            "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        UNROLL = 1\n",
        ),
    ):
        guarded = guard_edit(unroll, unroll.replace(old, new))
        assert guarded.new_source is not None and guard in guarded.new_source, (guarded.note, guarded.new_source)
    grown = guard_edit(unroll, unroll.replace("    BLOCK = 256\n", "    BLOCK = 512\n"))
    assert grown.new_source is not None and "kernelopt: tuned" not in grown.new_source, grown.note


def test_v93_a_tile_a_host_assert_counts_against_a_workspace_is_not_shrunk(tmp_path: Path) -> None:
    """v93 (parts_workspace: row sums in two stages, ``n_parts = triton.cdiv(n_cols, BLOCK)`` partials a row beside
    ``BLOCK = 1024``, ``assert n_rows * n_parts <= WORKSPACE`` with ``WORKSPACE = 2**20``): ``BLOCK = 256`` was written
    (under v88's guard of the grid, ``if n_cols <= 256 * 65535``), the net "correct at n_rows=5,n_cols=8193, ...,
    n_rows=4,n_cols=21000", and raises the assert at 4096 rows of 65537 columns, which the original sums (266240
    partials): no rule read a host assert, and the net's sizes in the interpreter stay far under a million partials.
    Now a host assert bounding a count of tiles from above keeps a smaller tile out (no one size bounds the test); a
    larger one, which counts fewer, is written."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "parts_workspace" / "kernel.py").read_text()
    shrunk = base.replace("    BLOCK = 1024\n", "    BLOCK = 256\n")
    refused = guard_edit(base, shrunk)
    assert refused.new_source is None and refused.note is not None, refused.new_source
    assert "(line 35 asserts n_rows * n_parts <= WORKSPACE, a count of tiles bounded from above)" in refused.note
    grown = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n"))
    assert grown.new_source is not None and "kernelopt: tuned" not in grown.new_source, grown.note
    # the shrunk pick as it was written, at a size the original's assert passes (4096 * 65 partials of 2**20): one row
    # of memory, expanded (the assert runs before any allocation or launch)
    (tmp_path / "kernel.py").write_text(shrunk)
    assert 4096 * -(-65537 // 1024) <= 2**20 < 4096 * -(-65537 // 256)
    with triton_interpreted():
        module = load_fresh(tmp_path / "kernel.py", "wrongkernel21_v93_plain")
        with pytest.raises(AssertionError, match="the partials fit the workspace"):
            module.run(torch.empty(1, 65537).expand(4096, 65537))


# ------------------------------------------------------------------------------------- on a GPU

#: variant -> (the literal line, the pick's line, a size where the plain pick fails and the original runs)
_ON_CUDA: dict[str, tuple[str, str, dict[str, int]]] = {
    "grid_axis1_local": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"n_rows": 1, "n_cols": 256 * 65535 + 1}),
    "grid_heads_product": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"B": 1, "H": 32, "L": 600000}),
    "grid_def_axis1": ("n_cols, BLOCK=1024)", "n_cols, BLOCK=256)", {"n_rows": 1, "n_cols": 256 * 65535 + 1}),
    "grid_floor_axis1": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"n_rows": 1, "n_cols": 2**24}),
    "grid_unroll_axis1": ("    BLOCK = 256\n", "    BLOCK = 64\n", {"n_rows": 1, "n_cols": 256 * 65535 + 1}),
    "parts_workspace": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"n_rows": 4096, "n_cols": 65537}),
    "grid_ceil_helper": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"n_rows": 1, "n_cols": 256 * 65535 + 1}),
    # wrongkernel22's v96 and v97 (tests/test_wrongkernel22_cases.py): the same proof
    "grid_max_count": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"n_rows": 1, "n_cols": 256 * 65535 + 1}),
    "pad_workspace": ("    BLOCK = 1024\n", "    BLOCK = 2048\n", {"n_rows": 1, "n_cols": 2999296}),
    # late24's v99 and v101 (tests/test_late24_cases.py): a method's count, a product under max
    "grid_method_count": ("        BLOCK = 1024\n", "        BLOCK = 256\n", {"n_rows": 1, "n_cols": 256 * 65535 + 1}),
    "grid_heads_max": ("    BLOCK = 1024\n", "    BLOCK = 256\n", {"B": 1, "H": 32, "L": 600000}),
}


@pytest.mark.gpu
@pytest.mark.timeout(400)
def test_on_cuda_v88_v94_each_plain_pick_fails_where_the_original_and_the_kernel_written_now_run(
    tmp_path: Path,
) -> None:
    """On a GPU, compiled, at one size each past the plain pick's limit (64-1100 MB of float32): the pick as it was
    written before wrongkernel21 (plainly) fails there, a launch CUDA refuses (65536 or more programs on the grid's
    second axis: "invalid argument") or v93's assert, where the original runs right; the text ``guard_edit`` writes
    now (the guard, or the original where the pick is refused) runs right there and at the first entry."""
    import shutil

    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    seen: dict[str, dict[str, object]] = {}
    for variant, (old, new, size) in _ON_CUDA.items():
        folder = Path(shutil.copytree(VARIANTS / variant, tmp_path / variant))
        base = (folder / "kernel.py").read_text()
        (folder / "plain.py").write_text(base.replace(old, new))
        (folder / "written.py").write_text(guard_edit(base, base.replace(old, new)).new_source or base)
        entry = {k: int(v) for k, v in load_entry(folder).items()}
        seen[variant] = {
            "original": correct_on_device(folder, [size], judge),
            "plain": correct_on_device(folder, [size], judge, kernel_py=folder / "plain.py"),
            "written": correct_on_device(folder, [size, entry], judge, kernel_py=folder / "written.py"),
        }
        print(variant, seen[variant])
    for variant, got in seen.items():
        assert all(v is True for v in got["original"].values()), (variant, got)
        assert all(v is True for v in got["written"].values()), (variant, got)
        assert all(v is not True for v in got["plain"].values()), (variant, got)  # an error, or a wrong output


def load_entry(folder: Path) -> dict[str, object]:
    """The first ``SHAPES`` entry of ``folder``'s reference.py."""
    from tests.conftest import load_fresh

    return dict(load_fresh(folder / "reference.py", f"_entry_{folder.name}").SHAPES[0])


def test_the_other_ceiling_spellings_of_a_count_on_the_second_axis_are_read_as_v88_s() -> None:
    """v88's count written ``(n_cols - 1) // BLOCK + 1`` or ``-(-n_cols // BLOCK)`` (authors' spellings of a ceiling
    beside ``triton.cdiv`` and ``(n + BLOCK - 1) // BLOCK``): ``BLOCK = 256`` was written plainly with the rules on,
    the net "correct at n_rows=5,n_cols=8193, ...", a launch a GPU refuses past 256 * 65535 columns; now guarded."""
    base = (VARIANTS / "grid_axis1_local" / "kernel.py").read_text()
    count = "    n_blocks = triton.cdiv(n_cols, BLOCK)\n"
    assert count in base
    for spelled in ("(n_cols - 1) // BLOCK + 1", "-(-n_cols // BLOCK)"):
        text = base.replace(count, f"    n_blocks = {spelled}\n")
        guarded = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
        assert guarded.new_source is not None, guarded.note
        assert "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        BLOCK = 256\n" in guarded.new_source, spelled


def test_v94_a_count_by_the_module_s_own_ceiling_helper_is_read_as_triton_cdiv_s() -> None:
    """v94 (grid_ceil_helper: v88 with the count taken by the module's own ``def ceil_div(a, b): return (a + b - 1) //
    b``, vLLM's spelling, ``n_blocks = ceil_div(n_cols, BLOCK)``): ``BLOCK = 256`` was written plainly with the rules
    on, a launch a GPU refuses past 256 * 65535 columns. A helper of two parameters whose one return rounds the first
    over the second up is now read as ``triton.cdiv`` (any name); one that floors and adds one is no count the rules
    read, and its smaller tile is refused (late24, v100)."""
    base = (VARIANTS / "grid_ceil_helper" / "kernel.py").read_text()
    guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
    assert guarded.new_source is not None, guarded.note
    assert "    if n_cols <= 256 * 65535:  # kernelopt: tuned\n        BLOCK = 256\n" in guarded.new_source
    floored = base.replace("return (a + b - 1) // b", "return a // b + 1")
    plain = guard_edit(floored, floored.replace("    BLOCK = 1024\n", "    BLOCK = 256\n"))
    # no count the rules read, yet one that rises as the tile shrinks: refused since late24 (v100), not guarded
    assert plain.new_source is None and "ceil_div(n_cols, BLOCK), a call whose count no rule reads" in (
        plain.note or ""
    )
