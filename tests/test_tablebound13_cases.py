"""Table and bound leftovers (tablebound13, 2026-12-06): the fit estimate of a block pointer's tile whose second side
the launch computes (breaker12 f6), tables over a heuristic's ``args[...]``, a launch option beside them, and what
``tunables`` lists of GemLite's weight width. Each written kernel is checked against the reference at sizes no
``SHAPES`` entry names, loaded afresh with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SHAPES_LINE = 'SHAPES = [{"B": 2, "T": 37, "D": 64}, {"B": 1, "T": 5, "D": 1000}, {"B": 3, "T": 130, "D": 100}]'


def _copy(relative: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / relative, tmp_path / Path(relative).name))


# ------------------------------------------------------------------------------ block pointer tiles (f6)


@pytest.mark.timeout(120)
def test_a_block_pointer_tile_whose_second_side_is_computed_is_bounded_by_the_authors_largest(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (breaker12 f6): ``tune fla_l2norm --device cpu`` wrote ``triton.Config({"BT": 512},
    num_warps=1)``. The kernel holds ``tl.make_block_ptr(..., (BT, BD), ...)`` with ``BD = next_power_of_2(D)``
    computed by the launching function; the search ran BT up to 1024 since the estimate saw no 2-D tile, and at D = 512
    the written config is a 512 x 512 fp32 tile on one warp (8192 elements a thread), whose compile for sm_90 took
    8 min 52 s. The fit now reads the tile with BD's value at each SHAPES entry the kernel runs at (64 and 128) and
    refuses, up front and with the reason, a candidate keeping more a thread than both the registers and the authors'
    own largest there (``BT = 128`` on one warp, the written list's warps): BT 256 and up at D = 64."""
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = _copy("breaker12/fla_l2norm", tmp_path)
    reference = folder / "reference.py"  # one entry of each kernel: the interpreted autotuner times 25 configs a key
    text = reference.read_text()
    reference.write_text(text.replace(SHAPES_LINE, 'SHAPES = [{"B": 1, "T": 9, "D": 100}, {"B": 1, "T": 2, "D": 600}]'))
    space = prepare_folder(TuneRequest(folder=folder, device="cpu")).space
    fits = [v for v in space.knobs[0].values if space.fits(Config.of({"BT": v}))]
    assert space.names == ("BT",) and fits == [8, 16, 32, 64, 128], (fits, space.fit_rules)
    why = space.fit_problems(Config.of({"BT": 512}))
    assert any(
        "block_shape (BT, BD) = (512, 128) holds 65536 elements on 1 warp: 2048 a thread, more than the authors' own "
        "largest there (512 a thread: BT=128, BD=128, num_warps=1)" in w
        for w in why
    ), why
    assert any(r.startswith("block pointer tiles (BT, BD)") for r in space.fit_rules), space.fit_rules


def test_a_tile_is_refused_only_past_both_the_registers_and_the_authors_largest() -> None:
    """The rule itself, as a GPU session sees it (``num_warps`` a knob): at BD = 128 the authors' largest is BT = 128
    on one warp (512 a thread); BT = 256 on two warps keeps as much and fits, on one warp twice that and is refused;
    a tile within the registers fits whatever the authors wrote; an AMD GPU (no register cap known) refuses nothing;
    a kernel that multiplies its tiles with ``tl.dot`` is the GEMM estimate's, not this one's."""
    from kernelopt.tunables import ResourceLimits
    from kernelopt.tunables.block_tiles import HeldTiles, TileEntry, block_tiles, tile_problems

    source = (DATA / "breaker12" / "fla_l2norm" / "kernel.py").read_text()
    tiles = block_tiles(source, "l2norm_fwd_kernel")
    assert tiles == (("BT", "BD"),), tiles
    authors = tuple({"BT": bt, "num_warps": w} for w in (1, 2, 4, 8, 16) for bt in (8, 16, 32, 64, 128))
    held = HeldTiles(tiles, (TileEntry("D=100", {"BD": 128, "BT": 128, "num_warps": 1}, authors),))
    nvidia = ResourceLimits.portable("fp32")
    assert tile_problems(held, {"BT": 256, "num_warps": 2}, nvidia) == []
    assert "512 a thread: BT=128, BD=128, num_warps=1" in tile_problems(held, {"BT": 256, "num_warps": 1}, nvidia)[0]
    small = HeldTiles(tiles, (TileEntry("D=100", {"BD": 128}, ({"BT": 8, "num_warps": 16},)),))
    assert tile_problems(small, {"BT": 64, "num_warps": 4}, nvidia) == []  # 64 a thread: within the registers
    assert tile_problems(small, {"BT": 512, "num_warps": 1}, ResourceLimits(max_registers_per_thread=None)) == []
    gemm = source.replace("b_rstd = 1 / tl.sqrt(tl.sum(b_x * b_x, 1) + eps)", "b_rstd = tl.sum(tl.dot(b_x, b_x), 1)")
    assert block_tiles(gemm, "l2norm_fwd_kernel") == ()
