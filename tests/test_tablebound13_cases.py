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
    a kernel that multiplies its tiles with ``tl.dot``, itself or in a helper it calls (fa2's ``_attn_fwd_inner``), is
    the GEMM estimate's, not this one's."""
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
    fa2 = (DATA / "breaker8" / "fa2_causal" / "kernel.py").read_text()  # its tl.dot in the helper _attn_fwd calls
    assert block_tiles(fa2, "_attn_fwd") == ()


# ------------------------------------------------------------------------------ a table over args[...]


def _heuristic_launches(folder: Path, shapes: list[dict[str, int]]) -> list[dict[str, object]]:
    """The ``num_warps`` each shape's launch of heur_falling's ``_rsum`` passes and the ``BLOCK`` its heuristic gives
    there (Triton's interpreter)."""
    from tests.conftest import load_fresh, triton_interpreted

    seen: list[dict[str, object]] = []
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_tablebound13_ref")
        ker = load_fresh(folder / "kernel.py", "_tablebound13_ker")
        heuristic = ker._rsum

        class Spy:
            def __getitem__(self, grid: object) -> object:
                def launch(*args: object, **kwargs: object) -> object:
                    R, N = args[2], args[3]
                    block = heuristic.values["BLOCK"]({"R": R, "N": N})
                    seen.append({"num_warps": kwargs.get("num_warps"), "BLOCK": block})
                    return heuristic[grid](*args, **kwargs)

                return launch

        ker._rsum = Spy()
        for shape in shapes:
            ker.run(*ref.get_inputs(**shape))
    return seen


@pytest.mark.timeout(120)
def test_a_launch_option_beside_a_heuristic_s_table_over_args_is_set_under_the_launch_s_own_argument(
    tmp_path: Path,
) -> None:
    """tablebound11's leftover: a pick of ``BLOCK=512, num_warps=8`` for variants/heur_falling, whose block is a
    ``@triton.heuristics`` lambda of ``args["R"]``, wrote nothing: the table goes into the lambda over ``args["N"]``
    up to 100 (the sizes checked), and ``num_warps=8`` "cannot be set under args["N"] <= 100 (args is not known where
    it is set)". The launch ``_rsum[(R,)](x, y, R, N)`` passes its local ``N`` as the kernel's ``N``, bound once
    before it: the option is set under ``N <= 100`` there, Triton's four warps above, so above the sizes checked the
    launch gets every one of the original's settings and below every one of the pick's; correct at sizes no entry
    names, NaN-padded, on both sides of the bound."""
    from tests.test_breaker7_cases import _all_correct
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("variants/heur_falling", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK": 512, "num_warps": 8})
    assert written is not None, note
    assert '{"BLOCK": lambda args: 512 if args["N"] <= 100 else 4096 // triton.next_power_of_2(args["R"])}' in written
    assert "    num_warps = 4\n    if N <= 100:  # kernelopt: tuned\n        num_warps = 8\n" in written, written
    assert 'num_warps=8 only where N <= 100 (args["N"] <= 100 at the launch)' in (note or ""), note
    (folder / "kernel.py").write_text(written)
    shapes = [{"R": 7, "N": 33}, {"R": 3, "N": 101}, {"R": 2, "N": 1000}]
    assert _heuristic_launches(folder, shapes) == [
        {"num_warps": 8, "BLOCK": 512},
        {"num_warps": 4, "BLOCK": 1024},  # the original's 4096 // next_power_of_2(3), with Triton's four warps
        {"num_warps": 4, "BLOCK": 2048},
    ]
    _all_correct(folder, shapes)


def test_a_launch_argument_not_read_again_the_same_keeps_the_option_unbounded_and_says_why() -> None:
    """Where the launch passes the kernel's ``N`` through a call that may differ when called again (a helper of the
    file, not a pure size), or a name it binds twice, ``args["N"]`` cannot be written where the option is set: nothing
    is written, one line."""
    from kernelopt.tunables.guard import bound_moves

    source = (DATA / "variants" / "heur_falling" / "kernel.py").read_text()
    for launch in ("_rsum[(R,)](x, y, R, cols(x))", "_rsum[(R,)](x, y, R, N)\n    N = N + 1"):
        old = source.replace("_rsum[(R,)](x, y, R, N)", launch) + "\n\ndef cols(x):\n    return x.shape[1]\n"
        new = old.replace("_rsum[(R,)](x, y, R, N", "_rsum[(R,)](x, y, R, N, num_warps=8").replace(
            "_rsum[(R,)](x, y, R, cols(x))", "_rsum[(R,)](x, y, R, cols(x), num_warps=8)"
        )
        bounded = bound_moves(old, new, 'args["N"] <= 100')
        assert bounded.new_source is None, bounded
        assert 'num_warps=8 cannot be set under args["N"] <= 100 (args is not known where it is set' in (
            bounded.note or ""
        ), bounded.note


# ------------------------------------------------------------------------------ a tile beside a guarded tile


@pytest.mark.timeout(120)
def test_a_tile_legal_at_every_size_falls_back_with_a_guarded_tile_beside_it(tmp_path: Path) -> None:
    """tablebound11's leftover: a pick of ``BLOCK_M=32, BLOCK_N=64`` for variants/tile_lse_zero (rows of N a multiple
    of 32, a column loop whose loads leave BLOCK_N unchecked) guards BLOCK_N by ``N % 64 == 0`` and wrote BLOCK_M=32,
    legal at every size, for every size: where N % 64 != 0 it ran 32 rows a program with the original 32 columns, a
    combination no session timed. It now falls back with the guard, its grid's copy named (``triton.cdiv(M,
    BLOCK_M)``); correct, NaN-padded, on both sides of the guard at sizes no entry names, and a re-tune reads
    BLOCK_M as the literal 16."""
    from kernelopt.tunables import discover_source
    from tests.test_breaker7_cases import _all_correct
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("variants/tile_lse_zero", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_M": 32, "BLOCK_N": 64})
    assert written is not None, note
    # one block under the guard's condition, BLOCK_M beside the guarded BLOCK_N (rounds13: one block per condition)
    assert (
        "    BLOCK_N, BLOCK_M = 32, 16\n    if N % 64 == 0:  # kernelopt: tuned\n        BLOCK_N, BLOCK_M = 64, 32\n"
        in (written)
    ), written
    assert "tile_lse[(triton.cdiv(M, BLOCK_M),)](x, y, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)" in written
    assert "BLOCK_M=32 only where N % 64 == 0, the original values elsewhere" in (note or ""), note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 9, "N": 96}, {"M": 17, "N": 128}])
    assert {t.key: t.value for t in discover_source(written)}["tile_lse:BLOCK_M"] == 16


def test_an_absent_num_stages_is_bounded_on_an_amd_gpu_with_its_backend_s_default() -> None:
    """tablebound11's leftover: ``num_stages`` left to Triton beside a table or a guard was bounded only on NVIDIA
    (3, CUDAOptions); on an AMD GPU the pick wrote nothing ("num_stages is not passed at the launch (Triton's
    default, which differs between backends)"). Triton 3.6's HIPOptions give 2, the value the original ran with where
    an AMD session timed it: the option falls back on it there. With no GPU named nothing is written, as before."""
    from kernelopt.tunables.guard import bound_moves, option_defaults

    old = "def run(x, n):\n    k[(1,)](x, n, BLOCK=64)\n"
    new = old.replace("BLOCK=64)", "BLOCK=64, num_stages=4)")
    for gpu, stages in (("MI300X", 2), ("MI355X", 2), ("H100", 3)):
        assert bound_moves(old, new, "n <= 64", option_defaults(gpu)).new_source == (
            f"def run(x, n):\n    num_stages = {stages}\n    if n <= 64:  # kernelopt: tuned\n        num_stages = 4\n"
            "    k[(1,)](x, n, BLOCK=64, num_stages=num_stages)\n"
        ), gpu
    assert bound_moves(old, new, "n <= 64", option_defaults(None)).new_source is None


# ------------------------------------------------------------------------------ GemLite's W_nbits


def test_a_bit_width_the_launcher_derives_a_held_grain_from_is_held_with_it() -> None:
    """Seen on 2026-12-06 (breaker12, "seen, not changed"): ``tunables gemlite_gemv`` listed ``W_nbits`` (4, the
    packed weights' bit width) as an editable knob with no category, beside ``elements_per_sample`` held as a grain and
    ``unpack_mask`` computed, both derived from it at the launch (``32 // W_nbits``, ``2**W_nbits - 1``). ``tunables
    --set W_nbits=8`` then wrote a kernel reading every weight wrong. A launch argument from which the launching
    function computes another argument the kernel holds as a grain of its data is held too, saying which."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "breaker12" / "gemlite_gemv" / "kernel.py").read_text())}
    bits = found["gemv_A16fWnO16f_int32packing_kernel:W_nbits"]
    assert bits.semantic and not bits.editable, bits
    assert (bits.refused_reason or "").startswith(
        "'W_nbits' gives elements_per_sample (elements_per_sample = 32 // W_nbits), which is held: 'elements_per_sample'"
        " divides an index of another block"
    ), bits.refused_reason
    assert found["gemv_A16fWnO16f_int32packing_kernel:elements_per_sample"].semantic
    assert found["gemv_A16fWnO16f_int32packing_kernel:group_size"].semantic


# ------------------------------------------------------------------------------ on a GPU


def _compiled_registers(folder: Path, configs: list[dict[str, int]], shape: dict[str, int]) -> list[dict[str, int]]:
    """fla_l2norm's narrow kernel compiled for the GPU with each of ``configs`` (``BT``, ``num_warps``) at ``shape``:
    its registers and spills a thread (Triton's compiled kernel's ``n_regs`` / ``n_spills``)."""
    import torch
    import triton

    from tests.conftest import load_fresh

    ker = load_fresh(folder / "kernel.py", "_tablebound13_fla")
    ref = load_fresh(folder / "reference.py", "_tablebound13_fla_ref")
    (x,) = ref.get_inputs(**shape, device="cuda")
    x = x.view(-1, x.shape[-1])
    T, D = x.shape
    y, rstd = torch.empty_like(x), torch.empty(T, device="cuda", dtype=torch.float32)
    out = []
    for c in configs:
        jitted = ker.l2norm_fwd_kernel.fn  # the autotuner's kernel, one config at a time
        grid = (triton.cdiv(T, c["BT"]),)
        compiled = jitted[grid](x, y, rstd, 1e-6, T, D, triton.next_power_of_2(D), 1, c["BT"], num_warps=c["num_warps"])
        out.append({**c, "n_regs": compiled.n_regs, "n_spills": compiled.n_spills})
    return out


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_bounded_forms_hold_on_a_gpu_and_the_refused_tile_spills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the forms tb2 and tb3 write (heur_falling's ``num_warps =
    8`` under ``N <= 100``, tile_lse_zero's ``BLOCK_N, BLOCK_M = 64, 32`` under the guard ``N % 64 == 0``, on its twin) correct at sizes no
    entry names, on both sides of each bound, up to 64 MB; and fla_l2norm at D = 128 compiled with the authors'
    largest (BT = 128, one warp, 512 elements a thread), a config tb1's fit keeps (BT = 256 on two warps, as many) and
    one it refuses (BT = 256 on one warp, 1024 a thread): the refused one spills (its registers and spills written to
    $OUT/tablebound13_registers.json where OUT is set)."""
    import json
    import os

    from tests.gpu_correct import assert_correct, written_pick
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    falling = written_pick(
        _copy("variants/heur_falling", tmp_path), {"BLOCK": 512, "num_warps": 8}, "if N <= 100:  # kernelopt: tuned"
    )
    assert_correct(
        falling, [{"R": 7, "N": 33}, {"R": 3, "N": 101}, {"R": 2, "N": 1000}, {"R": 64, "N": 64}], _outputs_checked
    )
    from tests.test_variants_cases import _running_max_as_a_tile

    twin = _copy("variants/tile_lse_zero", tmp_path)  # the original fails Triton 3.6's sm_90 compile: its twin runs
    (twin / "kernel.py").write_text(_running_max_as_a_tile((twin / "kernel.py").read_text()))
    guarded = "    if N % 64 == 0:  # kernelopt: tuned\n        BLOCK_N, BLOCK_M = 64, 32\n"
    tiles = written_pick(twin, {"BLOCK_M": 32, "BLOCK_N": 64}, guarded)
    shapes = [{"M": 9, "N": 96}, {"M": 17, "N": 128}, {"M": 4097, "N": 4096}, {"M": 2049, "N": 4064}]
    assert_correct(tiles, shapes, _outputs_checked)
    configs = [{"BT": 128, "num_warps": 1}, {"BT": 256, "num_warps": 2}, {"BT": 256, "num_warps": 1}]
    got = _compiled_registers(DATA / "breaker12" / "fla_l2norm", configs, {"B": 4, "T": 1000, "D": 128})
    if os.environ.get("OUT"):
        (Path(os.environ["OUT"]) / "tablebound13_registers.json").write_text(json.dumps(got, indent=1))
    assert got[2]["n_spills"] > 0, got
