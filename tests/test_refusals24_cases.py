"""refusals24: refusals that cost speed, a second round (docs/faults.md, "Refusals, second round"): a tile that pads a
size to whole tiles further than the original did was refused whole (v97's, v113's and v117's rules: its index or
its workspace passes a limit the original's stayed within at some size), where a guard by the tile dividing the size
(``if H % 16 == 0 and W % 32 == 0:``) keeps the padded size the size itself, no larger than the original's padding,
at every size the original handled (u41)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_refusals23_cases import _Recorded, _right_in_the_interpreter
from tests.test_wrongkernel17_cases import VARIANTS

DATA = Path(__file__).parent / "data"

_TILES = "    BLOCK_H, BLOCK_W = 8, 16\n"


def test_u41_a_larger_tile_of_a_padded_size_is_guarded_by_dividing_the_size(tmp_path: Path) -> None:
    """u41 (refusals23's seen item; breaker6's stencil_pad: ``Hp = triton.cdiv(H, BLOCK_H) * BLOCK_H`` passed to a
    kernel storing at ``c * Hp * Wp + ...`` in int32; v113's pad_rows_int32, ``row * n_pad``): a larger tile pads
    further, past 2**31 at fewer rows than the original's, so it was refused whole, "the guard it needs ... tests a
    size computed from BLOCK_H itself", though where the new tile divides the size it pads nothing: ``Hp`` is ``H``
    there, no larger than the original's padding, its every index within the original's. Now ``BLOCK_H, BLOCK_W =
    16, 32`` is written under ``if H % 16 == 0 and W % 32 == 0:`` (a tile the original's does not divide alike), the
    original the fallback; ``BLOCK = 2048`` of pad_rows_int32 under ``if n_cols % 2048 == 0:``. In Triton's interpreter
    both are right on both sides of their guards at sizes ``SHAPES`` never names (32 x 64 and 31 x 32, 17 x 33, 16 x
    31; 2048, 2047, 2049 and 4096 columns), and the launches recorded take the pick exactly where the tile divides."""
    import torch

    folder = DATA / "breaker6" / "stencil_pad"
    base = (folder / "kernel.py").read_text()
    guarded = guard_edit(base, base.replace(_TILES, "    BLOCK_H, BLOCK_W = 16, 32\n"))
    block = "    if H % 16 == 0 and W % 32 == 0:  # kernelopt: tuned\n        BLOCK_H, BLOCK_W = 16, 32\n"
    assert guarded.new_source == base.replace(_TILES, _TILES + block), guarded.note
    assert "where the tile divides H it pads nothing, no further than the original's" in (guarded.note or "")
    odd = guard_edit(base, base.replace(_TILES, "    BLOCK_H, BLOCK_W = 12, 16\n"))  # 12 pads 9 to 12, 8 to 16
    assert odd.tests == ("H % 12 == 0",), odd.note
    images = [{"C": 1, "H": 32, "W": 64}, {"C": 1, "H": 31, "W": 32}, {"C": 1, "H": 17, "W": 33}]
    _, ker = _right_in_the_interpreter(
        folder, guarded.new_source, tmp_path, [*images, {"C": 1, "H": 16, "W": 31}], 1e-5
    )
    recorded = _Recorded(("BLOCK_H", "BLOCK_W"))
    ker._dw3x3 = recorded
    for image in images:
        ker.run(torch.zeros(image["C"], image["H"], image["W"]), torch.zeros(image["C"], 3, 3))
    assert recorded.seen == [
        ((1, 2, 2), {"BLOCK_H": 16, "BLOCK_W": 32}),
        ((1, 4, 2), {"BLOCK_H": 8, "BLOCK_W": 16}),
        ((1, 3, 3), {"BLOCK_H": 8, "BLOCK_W": 16}),
    ], recorded.seen

    rows = VARIANTS / "pad_rows_int32"
    text = (rows / "kernel.py").read_text()
    wide = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 2048\n"))
    assert wide.tests == ("n_cols % 2048 == 0",) and wide.new_source is not None, wide.note
    sizes = [{"n_rows": 2, "n_cols": 2048}, {"n_rows": 3, "n_cols": 2047}, {"n_rows": 1, "n_cols": 2049}]
    (tmp_path / "rows").mkdir()
    more = [*sizes, {"n_rows": 1, "n_cols": 4096}]
    _, padded = _right_in_the_interpreter(rows, wide.new_source, tmp_path / "rows", more, 1e-3)
    recorded = _Recorded(("BLOCK",))
    padded.pad_rows = recorded
    for size in sizes:
        padded.run(torch.zeros(size["n_rows"], size["n_cols"]))
    assert recorded.seen == [((2, 1), {"BLOCK": 2048}), ((3, 2), {"BLOCK": 1024}), ((1, 3), {"BLOCK": 1024})]


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_u41_a_guarded_padded_tile_is_right_where_the_plain_pick_wraps(tmp_path: Path) -> None:
    """u41 on a GPU, compiled: pad_rows_int32's ``BLOCK = 4096`` as ``guard_edit`` writes it now (``if n_cols % 4096
    == 0:``) sums 524289 rows of 1025 columns right (2.15 GB of float32: the guard falls back to the original's 1024,
    a row stride of 2048, where the plain pick's 4096 wraps ``row * n_pad`` past 2**31: v113's GPU test) and 262144
    rows of 4096 (4.3 GB, the pick itself, its stride 4096 within int32 to the last row); stencil_pad's guarded 16 x 32
    tiles are right at an image of 64 x 1024 x 1024 (256 MB, the pick) and 64 x 1023 x 1025 (the fallback)."""
    import shutil

    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    rows = Path(shutil.copytree(VARIANTS / "pad_rows_int32", tmp_path / "pad_rows_int32"))
    text = (rows / "kernel.py").read_text()
    guarded = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n")).new_source
    assert guarded is not None and "if n_cols % 4096 == 0:" in guarded
    (rows / "guarded.py").write_text(guarded)
    wide = correct_on_device(rows, [{"n_rows": 524289, "n_cols": 1025}], judge, kernel_py=rows / "guarded.py")
    torch.cuda.empty_cache()
    wide |= correct_on_device(rows, [{"n_rows": 262144, "n_cols": 4096}], judge, kernel_py=rows / "guarded.py")
    torch.cuda.empty_cache()
    pad = Path(shutil.copytree(DATA / "breaker6" / "stencil_pad", tmp_path / "stencil_pad"))
    base = (pad / "kernel.py").read_text()
    tiles = guard_edit(base, base.replace(_TILES, "    BLOCK_H, BLOCK_W = 16, 32\n")).new_source
    assert tiles is not None and "if H % 16 == 0 and W % 32 == 0:" in tiles
    (pad / "guarded.py").write_text(tiles)
    images = [{"C": 64, "H": 1024, "W": 1024}, {"C": 64, "H": 1023, "W": 1025}]
    stencil = correct_on_device(pad, images, judge, kernel_py=pad / "guarded.py")
    print("u41 pad_rows", wide, "stencil_pad", stencil)
    assert len(wide) == 2 and all(v is True for v in wide.values()), wide
    assert all(v is True for v in stencil.values()), stencil
