"""refusals23: refusals that cost speed where a guard keeps the written kernel right (docs/faults.md, "Refusals that
cost speed"): v102's tile-size rule refused a grown tile outright where a guard on the size its computed side rises
with (``if n_cols <= 1048576 // 32:`` over ``ROWS = 32``, the original the fallback) keeps it within its limit (u30);
the refusal stays, with the guard it lacked named, where no guard can be placed."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kernelopt.tunables.guard import guard_edit, guarded_values, strip_stale_guards
from kernelopt.tunables.inline_guard import read_inline_guard, read_statement_guard
from tests.test_wrongkernel17_cases import VARIANTS

DATA = Path(__file__).parent / "data"


def test_u30_a_tile_past_its_limit_at_large_sizes_is_guarded_by_the_size_its_computed_side_rises_with(
    tmp_path: Path,
) -> None:
    """u30 (v102's rule, rows_pow2_numel: ``ROWS = 4`` rows of ``BLOCK_N = triton.next_power_of_2(n_cols)`` columns,
    ``assert n_cols <= 65536``): ``ROWS = 32`` was refused outright, "no guard by a size is written for a bound that
    falls as the tile grows", though 32 x ``BLOCK_N`` stays within Triton's 1048576 values at every row up to 32768
    columns. Now the guard is written, ``if n_cols <= 1048576 // 32:  # kernelopt: tuned`` / ``ROWS = 32``, read back
    by the guard's readers (marked, unmarked, inline) as a tuned line, and the written kernel, run by Triton's
    interpreter, sums rows right on both sides of its bound and at sizes ``SHAPES`` does not name (1 x 32769, the
    original's 4 x 65536 tile; 32 x 32768, the guarded tile at the limit; 65 x 4097; 3 x 5). The same guard for the
    budget of a ``tl.static_assert`` (v103), a side that is a size itself (v109), a heuristic's (v110), a helper's
    (v111) and a settings tuple's (v112): tests/test_wrongkernel23_cases.py. Refused still, each line naming the
    guard it lacked: an autotune config (v108), a row over another size, a floor no size brings within the limit, a
    size not known where the tile is set (a module constant, breaker7's decode_split: tests/test_wrongkernel23_cases.py)."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    base = (VARIANTS / "rows_pow2_numel" / "kernel.py").read_text()
    grown = base.replace("    ROWS = 4\n", "    ROWS = 32\n")
    guarded = guard_edit(base, grown)
    block = "    ROWS = 4\n    if n_cols <= 1048576 // 32:  # kernelopt: tuned\n        ROWS = 32\n"
    assert guarded.new_source == base.replace("    ROWS = 4\n", block), guarded.note
    assert guarded.tests == ("n_cols <= 1048576 // 32",)
    assert "stays within it where n_cols <= 32768" in (guarded.note or ""), guarded.note
    written = guarded.new_source
    assert guarded_values(written) == {"ROWS": 32}
    # unmarked (a user deleted the comment) and inline, the guard's other forms read it alike
    import libcst as cst

    unmarked = cst.parse_statement("if n_cols <= 1048576 // 32:\n    ROWS = 32\n")
    assert read_statement_guard(unmarked) == [("ROWS", 32)]
    inline = cst.parse_expression("32 if n_cols <= 1048576 // 32 else 4")
    assert read_inline_guard(inline) is not None and read_inline_guard(inline).fallback == 4  # type: ignore[union-attr]
    # a later edit of the fallback takes the stale guard out; a smaller tile within the limit needs none
    assert strip_stale_guards(written, written.replace("    ROWS = 4\n", "    ROWS = 8\n")) == base.replace(
        "    ROWS = 4\n", "    ROWS = 8\n"
    )
    assert guard_edit(base, base.replace("    ROWS = 4\n", "    ROWS = 16\n")).tests == ()

    listed = (VARIANTS / "rows_autotune_numel" / "kernel.py").read_text()
    floored = base.replace("= triton.next_power_of_2(n_cols)", "= max(65536, triton.next_power_of_2(n_cols))")
    head = '    n_rows, n_cols = x.shape\n    assert n_cols <= 65536, "one block a row"\n'
    head += "    BLOCK_N = triton.next_power_of_2(n_cols)\n"
    late = base.replace(head + "    ROWS = 4\n", "    ROWS = 4\n" + head)
    assert late.index("ROWS = 4") < late.index("n_rows, n_cols = x.shape"), late
    for text, edited, said in (
        (listed, listed.replace('{"ROWS": 4}', '{"ROWS": 32}'), "an autotune config is not guarded by a size"),
        (
            base,
            base.replace(
                "    ROWS = 4\n", "    ROWS = 4\n    if n_rows <= 64:  # kernelopt: tuned\n        ROWS = 32\n"
            ),
            "its row's test does not bound n_cols to 32768 (the row needs `and n_cols <= 32768`)",
        ),
        (floored, floored.replace("    ROWS = 4\n", "    ROWS = 32\n"), "no size keeps it within the limit"),
        (late, late.replace("    ROWS = 4\n", "    ROWS = 32\n"), "n_cols is not known where ROWS is set"),
    ):
        refused = guard_edit(text, edited)
        assert refused.new_source is None and said in (refused.note or ""), refused.note
        assert (refused.note or "").endswith("not written"), refused.note

    # the written kernel in Triton's interpreter: right on both sides of its bound, at sizes SHAPES never names
    sizes = [(1, 32769), (32, 32768), (65, 4097), (3, 5)]
    shapes = [{"n_rows": rows, "n_cols": cols} for rows, cols in sizes]
    _right_in_the_interpreter(VARIANTS / "rows_pow2_numel", written, tmp_path, shapes, 1e-3)
    plain = tmp_path / "plain.py"
    plain.write_text(grown)
    with triton_interpreted(), pytest.raises(Exception, match=r"numel \(2097152\) exceeds triton maximum tensor numel"):
        load_fresh(plain, "refusals23_u30_plain").run(torch.ones(1, 32769))


def _right_in_the_interpreter(
    folder: Path, text: str, tmp_path: Path, shapes: list[dict[str, int]], tol: float
) -> tuple[ModuleType, ModuleType]:
    """``folder``'s reference and the kernel ``text`` (written under ``tmp_path``), the kernel run by Triton's
    interpreter at each of ``shapes`` and found right against the reference there (``tol``: its atol and rtol)."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    written = tmp_path / "kernel.py"
    written.write_text(text)
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", f"refusals23_{folder.name}_ref")
        ker = load_fresh(written, f"refusals23_{folder.name}_ker")
        for shape in shapes:
            inputs = ref.get_inputs(**shape)
            assert torch.allclose(ker.run(*inputs), ref.reference(*inputs), atol=tol, rtol=tol), shape
    return ref, ker


class _Recorded:
    """A kernel's launches recorded, not run: the grid and the settings ``names`` of each (the settings a launching
    function gives at a size too large for the interpreter)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.seen: list[tuple[tuple[int, ...], dict[str, int]]] = []

    def __getitem__(self, grid: tuple[int, ...]) -> Any:
        def launch(*_args: object, **kwargs: int) -> None:
            self.seen.append((tuple(grid), {k: kwargs[k] for k in self.names}))

        return launch


_HELPER = "    BLOCK_DMODEL, BLOCK_DPE, BLOCK_DV, BLOCK_M, BLOCK_N, num_warps = _get_block_sizes_for_extend_attention(Lq, Lv)\n"


def test_u31_a_table_row_over_a_computation_counted_on_the_grid_s_third_axis_gets_its_bound_with_its_companions(
    tmp_path: Path,
) -> None:
    """u31 (v115's rule, breaker10's extend_attn, the H100's pick ``BLOCK_M=16, BLOCK_N=64, num_stages=6`` tabled over
    ``Lq`` up to 48 beside the settings helper's tiles): the row ``if Lq <= 48:`` / ``BLOCK_M = 16`` was refused whole
    (``triton.cdiv(max_len_extend, 16)`` programs on the grid's third axis pass 65535 from 1048561 tokens), so the
    pick's speed was lost at every size. Now the row and its companion (``num_stages = 6`` under the same test) get
    ``and max_len_extend <= 16 * 65535``: a longer extend runs the original whole. In Triton's interpreter the written
    kernel is right at head dims on both sides of the row (D 32 and 40, the pick; 65, the original; 40 and 65 are no
    ``SHAPES`` entry), and a launch recorded (not run) at extends of 16 * 65535 and one token more gets the pick and
    the original's settings, the grid's third axis within 65535 both times. A row in a chain (``elif``) is still
    refused, its line naming the test it lacked."""
    import torch

    folder = DATA / "breaker10" / "extend_attn"
    base = (folder / "kernel.py").read_text()
    row = "    if Lq <= 48:  # kernelopt: tuned\n        BLOCK_M = 16\n        BLOCK_N = 64\n"
    stages = "    num_stages = 1\n"
    table = base.replace(_HELPER, _HELPER + row).replace(
        stages, stages + "    if Lq <= 48:  # kernelopt: tuned\n        num_stages = 6\n"
    )
    guarded = guard_edit(base, table)
    bound = "    if Lq <= 48 and max_len_extend <= 16 * 65535:  # kernelopt: tuned\n"
    assert guarded.new_source is not None, guarded.note
    assert f"{_HELPER}{bound}        BLOCK_M = 16\n        BLOCK_N = 64\n" in guarded.new_source
    assert f"{stages}{bound}        num_stages = 6\n" in guarded.new_source
    assert "BLOCK_M=16 only where max_len_extend <= 16 * 65535 (the grid's axis 2" in (guarded.note or "")
    chain = base.replace(_HELPER, _HELPER + row + "    elif Lq <= 64:  # kernelopt: tuned\n        BLOCK_M = 32\n")
    refused = guard_edit(base, chain)
    assert (
        refused.new_source is None
        and "its row's test does not bound max_len_extend (`and max_len_extend <= 16 *" in (refused.note or "")
    ), refused.note

    shapes = [
        {"B": 1, "H": 2, "G": 1, "D": 32, "P": 6, "E": 20},
        {"B": 2, "H": 2, "G": 2, "D": 40, "P": 5, "E": 9},
        {"B": 1, "H": 2, "G": 1, "D": 65, "P": 6, "E": 20},
    ]
    ref, ker = _right_in_the_interpreter(folder, guarded.new_source, tmp_path, shapes, 1e-2)
    recorded = _Recorded(("BLOCK_M", "BLOCK_N", "num_stages"))
    ker._fwd_kernel = recorded
    q, k, v, kb, vb, qo, kvp, kvi = ref.get_inputs(B=1, H=2, G=1, D=32, P=6, E=20)
    for extend in (16 * 65535, 16 * 65535 + 1):
        ker.extend_attention_fwd(q, k, v, torch.empty_like(q), kb, vb, qo, kvp, kvi, True, extend)
    seen = recorded.seen
    helper = ker._get_block_sizes_for_extend_attention(32, 32)
    assert seen[0] == ((1, 2, 65535), {"BLOCK_M": 16, "BLOCK_N": 64, "num_stages": 6}), seen
    assert seen[1][1] == {"BLOCK_M": helper[3], "BLOCK_N": helper[4], "num_stages": 1}, (seen, helper)
    assert seen[1][0][2] <= 65535, seen


def test_u32_a_smaller_tile_of_a_padded_image_is_guarded_by_the_unpadded_size_on_the_grid_s_axis(
    tmp_path: Path,
) -> None:
    """u32 (breaker6's stencil_pad: a 3 x 3 depthwise stencil over an image padded to whole ``BLOCK_H x BLOCK_W``
    tiles, ``Hp = triton.cdiv(H, BLOCK_H) * BLOCK_H``, the grid ``(C, Hp // BLOCK_H, Wp // BLOCK_W)``, the store at
    ``c * Hp * Wp + ...`` in int32): no tile moved. A larger one pads further (v113's int32 rule; guarded by the tile
    dividing ``H`` since refusals24's u41, where it pads nothing), and a smaller one was refused
    by v33's axis limit, "Hp is not known where BLOCK_H is set", though ``Hp // BLOCK_H`` is ``triton.cdiv(H,
    BLOCK_H)``: ``H`` is known there. Now a smaller tile is guarded by the unpadded size (``if H <= 4 * 65535 and W <=
    8 * 65535:``; a divisor of the original pads no further, so its int32 index stays within the original's). In
    Triton's interpreter the written kernel is right at images ``SHAPES`` does not name (9 x 37, 3 x 5), and a launch
    recorded (not run) at H = 4 * 65535 + 1 falls back to the original's 8 rows, 32768 programs on the axis."""
    import torch

    folder = DATA / "breaker6" / "stencil_pad"
    base = (folder / "kernel.py").read_text()
    tiles = "    BLOCK_H, BLOCK_W = 8, 16\n"
    guarded = guard_edit(base, base.replace(tiles, "    BLOCK_H, BLOCK_W = 4, 8\n"))
    block = "    if H <= 4 * 65535 and W <= 8 * 65535:  # kernelopt: tuned\n        BLOCK_H, BLOCK_W = 4, 8\n"
    assert guarded.new_source == base.replace(tiles, tiles + block), guarded.note
    larger = guard_edit(base, base.replace(tiles, "    BLOCK_H, BLOCK_W = 16, 32\n"))  # refusals24's u41
    assert larger.tests == ("H % 16 == 0 and W % 32 == 0",), larger.note

    _, ker = _right_in_the_interpreter(
        folder, guarded.new_source, tmp_path, [{"C": 2, "H": 9, "W": 37}, {"C": 1, "H": 3, "W": 5}], 1e-5
    )
    recorded = _Recorded(("BLOCK_H", "BLOCK_W"))
    ker._dw3x3 = recorded
    for rows in (4 * 65535, 4 * 65535 + 1):
        ker.run(torch.zeros(1, rows, 3), torch.zeros(1, 3, 3))
    seen = recorded.seen
    assert seen == [((1, 65535, 1), {"BLOCK_H": 4, "BLOCK_W": 8}), ((1, 32768, 1), {"BLOCK_H": 8, "BLOCK_W": 16})]


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_u30_u32_the_guarded_kernels_compile_and_run_right_on_both_sides_of_their_guards(
    tmp_path: Path,
) -> None:
    """On a GPU, compiled: u30's guarded ``ROWS = 32`` (rows_pow2_numel as ``guard_edit`` writes it) sums 4096 rows
    of 32768 columns (512 MB, the guarded 32 x 32768 tile at Triton's limit), one row of 32769 (the original's 4 x
    65536 past the guard) and 65 rows of 4097 right; the plain ``ROWS = 32`` fails at 32769 columns. u32's guarded 4 x
    8 tiles (stencil_pad) are right at an image of 64 x 1024 x 1024 (256 MB), at H = 4 * 65535 (65535 programs on
    the grid's second axis, the guarded tile) and at H = 4 * 65535 + 1 (the original's 8 rows past the guard)."""
    import shutil

    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    rows = Path(shutil.copytree(VARIANTS / "rows_pow2_numel", tmp_path / "rows_pow2_numel"))
    base = (rows / "kernel.py").read_text()
    guarded = guard_edit(base, base.replace("    ROWS = 4\n", "    ROWS = 32\n")).new_source
    assert guarded is not None and "if n_cols <= 1048576 // 32:" in guarded
    (rows / "guarded.py").write_text(guarded)
    (rows / "plain.py").write_text(base.replace("    ROWS = 4\n", "    ROWS = 32\n"))
    sizes = [{"n_rows": 4096, "n_cols": 32768}, {"n_rows": 1, "n_cols": 32769}, {"n_rows": 65, "n_cols": 4097}]
    u30 = correct_on_device(rows, sizes, judge, kernel_py=rows / "guarded.py")
    torch.cuda.empty_cache()
    plain = correct_on_device(rows, [{"n_rows": 1, "n_cols": 32769}], judge, kernel_py=rows / "plain.py")
    pad = Path(shutil.copytree(DATA / "breaker6" / "stencil_pad", tmp_path / "stencil_pad"))
    text = (pad / "kernel.py").read_text()
    small = guard_edit(text, text.replace("BLOCK_H, BLOCK_W = 8, 16", "BLOCK_H, BLOCK_W = 4, 8")).new_source
    assert small is not None and "if H <= 4 * 65535 and W <= 8 * 65535:" in small
    (pad / "guarded.py").write_text(small)
    images = [{"C": 64, "H": 1024, "W": 1024}, {"C": 1, "H": 4 * 65535, "W": 3}, {"C": 1, "H": 4 * 65535 + 1, "W": 3}]
    u32 = correct_on_device(pad, images, judge, kernel_py=pad / "guarded.py")
    print("u30", u30, "plain", plain, "u32", u32)
    assert all(v is True for v in u30.values()), u30
    assert all(v is not True for v in plain.values()), plain  # a 32 x 65536 tile: past Triton's limit
    assert all(v is True for v in u32.values()), u32
