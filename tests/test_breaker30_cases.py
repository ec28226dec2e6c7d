"""Issue 32's thirtieth held-out trial, as a new user runs it (tests/data/breaker30/README.md: five Triton kernels
written for it, in forms people write and in no public file: a ragged MoE GEMM over a per-expert offsets table, a 2-D
five-point stencil whose settings are a dataclass built by a classmethod, a fused QK RMS norm and rotary embedding
launched in a loop, a scatter-add of rows by atomics with its tiles picked by a ``match``, a per-row fp8 quantization
through a ``@triton.jit`` helper with its settings in a ``NamedTuple``). Each finding is a test: each original once in
Triton's interpreter at a small odd size against its reference (``_all_correct``: NaN around the inputs and the
outputs), the defects' own cases, and the GPU test the lead's session runs at realistic sizes."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker30"

#: one small size each original has not been checked at, odd where the kernel allows it
SMALL: dict[str, dict[str, int]] = {
    "ragged_moe": {"E": 3, "R": 9, "K": 17, "N": 33},
    "stencil_cfg": {"B": 1, "H": 9, "W": 17},
    "qk_norm_rope": {"T": 2, "HQ": 9, "HK": 3, "D": 18},
    "scatter_rows": {"R": 33, "C": 65, "V": 5},
    "fp8_rowquant": {"M": 3, "N": 513},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The five kernels as written, each once in the interpreter at a size no entry names (an expert's rows one past a
    tile, K short of a step; a plane of 9 x 17; nine query heads past the cap of 8, a head of 18 in a block of 16 a
    half; a row of 65 past a tile of 64; a row of 513 past a block of 512)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defects


def test_q100_a_grid_bound_above_the_launch_from_the_settings_object_moves_with_the_tile(tmp_path: Path) -> None:
    """Seen on 2026-12-07: stencil_cfg's ``cfg = StencilTiles.for_width(W)``, then ``grid = (triton.cdiv(W,
    cfg.BLOCK_W), triton.cdiv(H, cfg.BLOCK_H), B)`` and the launch's ``BLOCK_W=cfg.BLOCK_W``. ``tunables`` listed both
    tiles "not editable: the grid of BLOCK_W reads cfg.BLOCK_W, ...; read the tile there (BLOCK_W) or write the grid
    at the launch" (no ``BLOCK_W`` exists in the user's code), and ``tune`` exited 2 "no tunable knob". The hoisted
    line goes above the grid's statement, whose copies read it (l17's rule for a grid written at the launch), where
    the grid is bound once, in the launch's block, and nothing between binds what the expression reads."""
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import TunableError

    kernel = Path(shutil.copytree(DATA / "stencil_cfg", tmp_path / "stencil_cfg")) / "kernel.py"
    done = apply(kernel, {"_jacobi5:BLOCK_W": 32}, write=False)
    want = (
        "    BLOCK_W = cfg.BLOCK_W\n    BLOCK_W = 32  # kernelopt: tuned\n"
        "    grid = (triton.cdiv(W, BLOCK_W), triton.cdiv(H, cfg.BLOCK_H), B)\n"
    )
    assert want in done.new_source, done.diff
    assert "BLOCK_H=cfg.BLOCK_H, BLOCK_W=BLOCK_W, num_warps=cfg.num_warps)" in done.new_source

    source = kernel.read_text()  # cfg bound again between the grid and the launch: the grid counts the first one's
    kernel.write_text(source.replace("    _jacobi5[grid]", "    cfg = StencilTiles(BLOCK_W=16)\n    _jacobi5[grid]"))
    with pytest.raises(TunableError, match="the grid of BLOCK_W reads cfg.BLOCK_W"):
        apply(kernel, {"_jacobi5:BLOCK_W": 32}, write=False)
    changed = source.replace("@dataclass(frozen=True)", "@dataclass")  # changed in place between: the same
    kernel.write_text(changed.replace("    _jacobi5[grid]", "    cfg.BLOCK_W = 32\n    _jacobi5[grid]"))
    with pytest.raises(TunableError, match="the grid of BLOCK_W reads cfg.BLOCK_W"):
        apply(kernel, {"_jacobi5:BLOCK_W": 128}, write=False)


def test_q101_a_settings_object_built_by_a_helper_stands_for_the_sizes_it_is_built_from() -> None:
    """Seen on 2026-12-07: fp8_rowquant's ``tiles = _pick(N)`` (a ``NamedTuple``) read at the launch as
    ``BLOCK=tiles.block, num_warps=tiles.warps``: ``tunables`` said "tuned ... or a table by size, by tiles", and
    ``tune`` exited 2: "computed (tiles.block) from tiles, which no SHAPES entry names as a size: ... so it is left
    alone", one value for every size not tried either. A local bound once to a call of the file's own helper or
    class (``StencilTiles.for_width(W)`` too) stands for the sizes its arguments read: a table by ``N``, by ``W``
    (``tune`` then wrote ``if N <= 300: BLOCK = 1024`` below ``BLOCK = tiles.block``, right at 5 sizes past it)."""
    from kernelopt.tunables import discover_source

    fp8 = {t.key: t for t in discover_source((DATA / "fp8_rowquant" / "kernel.py").read_text())}
    assert fp8["_fp8_rows:BLOCK"].size_names == ["N"]
    assert fp8["_fp8_rows:num_warps"].size_names == ["N"]
    stencil = {t.key: t for t in discover_source((DATA / "stencil_cfg" / "kernel.py").read_text())}
    assert stencil["_jacobi5:BLOCK_W"].size_names == ["W"]
    library = (DATA / "fp8_rowquant" / "kernel.py").read_text().replace("tiles = _pick(N)", "tiles = torch.Size(N)")
    assert {t.key: t for t in discover_source(library)}["_fp8_rows:BLOCK"].size_names == ["tiles"]  # not this file's


def test_q102_a_short_re_time_read_as_the_first_round_reads_its_shapes_there_too() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on stencil_cfg (after q100, at a load of 12) re-timed the current
    (933.8 ms at first, 1151 re-timed) and ``BLOCK_W=128`` (1030, then 997.3) in two rounds, slower than at first:
    ``_load_only_adds`` gave each its first total, but kept the re-time's figure at each shape. The per-shape table
    then showed ``BLOCK_W=128`` faster at every shape (248.6 against 249.1 ms, 522.9 against 601.3, 225.8 against
    300.8), under the verdict "was 9.4 % slower, so it is not written", and the per-bucket choice read those shapes.
    The first round is read whole: its totals and its shapes."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import _load_only_adds

    def ran(block: int, by_shape: dict[str, float], samples: int, *, retimed: bool) -> Result:
        total = sum(by_shape.values())
        return Result(config={"BLOCK_W": block}, outcome=Outcome.OK, latency_us=total, samples_us=[total] * samples,
                      latency_us_by_shape=by_shape, retimed=retimed)  # fmt: skip

    first = [ran(0, {"a": 200.4, "b": 569.4, "c": 164.0}, 5, retimed=False),
             ran(128, {"a": 310.1, "b": 503.7, "c": 216.6}, 5, retimed=False)]  # fmt: skip
    again = [ran(0, {"a": 249.1, "b": 601.3, "c": 300.8}, 2, retimed=True),
             ran(128, {"a": 248.6, "b": 522.9, "c": 225.8}, 2, retimed=True)]  # fmt: skip
    read = _load_only_adds(again, first)
    assert [r.latency_us_by_shape for r in read] == [r.latency_us_by_shape for r in first]
    assert [r.latency_us for r in read] == [r.latency_us for r in first]
    assert all(r.retimed for r in read)


def test_q103_a_table_of_literals_refused_says_which_size_each_literal_lacks() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on ragged_moe (the entries' own bests differ: ``BLOCK_M=128,
    BLOCK_N=128`` and ``64, 256``), ``tunables`` having said "_ragged_gemm:BLOCK_M = 32 is a literal bound beside
    offsets ...: tune tunes it ... where the entries' bests differ, as a table by size written after it": the session
    said "BLOCK_M, BLOCK_N, BLOCK_K are not computed from a size (a literal or a cap), which no table can hold". A
    table of literals needs one size every entry gives that each literal is read beside; ``BLOCK_M`` is read beside the
    offsets tensor, ``BLOCK_N`` beside ``N``. The line says so."""
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.folder import _table_literal, size_table_unheld

    found = discover_source((DATA / "ragged_moe" / "kernel.py").read_text())
    best = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}
    prepared = SimpleNamespace(
        space=SimpleNamespace(origins={}, names=["BLOCK_M", "BLOCK_N", "BLOCK_K"]),
        table_plans={(Config.of(best), True): None},
        tabled={},
        literal_tabled={t.name: t for t in found if _table_literal(t)},
        evaluation=None,
    )
    why = size_table_unheld(prepared, best, literal=True)  # type: ignore[arg-type]
    assert why is not None and "not computed from a size" not in why, why
    assert "BLOCK_M, BLOCK_N, BLOCK_K are literals; a table holds literals bound beside a size" in why, why
    assert "(BLOCK_M beside offsets; BLOCK_N beside N), and none is both" in why, why


def _stencil_in_a_class(call_tiles: bool) -> str:
    """stencil_cfg launched by a class holding its settings (``self.tiles``, the dataclass) through
    ``functools.partial(_jacobi5[grid], num_warps=t.num_warps)``, the tiles passed where the partial is called
    (``call_tiles``) or in the partial itself."""
    source = (DATA / "stencil_cfg" / "kernel.py").read_text()
    head = source.partition("def run(x, alpha=0.2):")[0].replace(
        "from dataclasses", "import functools\nfrom dataclasses"
    )
    at_call, in_partial = ("BLOCK_H=t.BLOCK_H, BLOCK_W=t.BLOCK_W", "") if call_tiles else ("", ", BLOCK_H=t.BLOCK_H")
    return head + (
        "class Jacobi:\n"
        "    def __init__(self, tiles: StencilTiles = StencilTiles()):\n"
        "        self.tiles = tiles\n\n"
        "    def __call__(self, x, alpha=0.2):\n"
        "        B, H, W = x.shape\n"
        "        out = torch.empty_like(x)\n"
        "        t = self.tiles\n"
        "        grid = (triton.cdiv(W, t.BLOCK_W), triton.cdiv(H, t.BLOCK_H), B)\n"
        f"        launch = functools.partial(_jacobi5[grid], num_warps=t.num_warps{in_partial})\n"
        f"        launch(x, out, H, W, x.stride(0), x.stride(1), alpha, {at_call or 'BLOCK_W=t.BLOCK_W'})\n"
        "        return out\n\n\n"
        "def run(x, alpha=0.2):\n"
        "    return Jacobi()(x, alpha)\n"
    )


def test_q104_a_setting_passed_where_a_partial_launch_is_called_is_said() -> None:
    """Seen on 2026-12-07: stencil_cfg moved into a class (``t = self.tiles``) and launched through ``launch =
    functools.partial(_jacobi5[grid], num_warps=t.num_warps)`` then ``launch(x, out, ..., BLOCK_H=t.BLOCK_H,
    BLOCK_W=t.BLOCK_W)``: ``tunables`` listed ``num_warps`` and ``num_stages`` alone, the two tiles nowhere and
    unsaid. Discovery reads the partial's arguments; a kernel's constexpr or a launch option passed only where the
    partial's variable is called is listed, not editable, with why and what to change."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source(_stencil_in_a_class(call_tiles=True))}
    for tile in ("BLOCK_H", "BLOCK_W"):
        why = found[f"_jacobi5:{tile}"].refused_reason or ""
        assert why.startswith("passed where the partial launch is called (kernel.py:57), not in its functools"), why
        assert f"pass {tile} in the partial, or launch the kernel directly, to tune it" in why
    split = {t.key: t for t in discover_source(_stencil_in_a_class(call_tiles=False))}  # BLOCK_H in the partial
    assert (
        split["_jacobi5:BLOCK_H"].refused_reason is None
        or "passed where" not in split["_jacobi5:BLOCK_H"].refused_reason
    )
    assert (split["_jacobi5:BLOCK_W"].refused_reason or "").startswith("passed where the partial launch is called")


def test_q105_a_setting_read_from_the_object_s_settings_is_no_table_by_that_local() -> None:
    """Seen on 2026-12-07 (the class form of q104): ``t = self.tiles`` then ``num_warps=t.num_warps`` was offered as
    "one value for every size, or a table by size, by t" (a dataclass, no size). A local bound once to an attribute of
    the method's object stands for the method's own sizes, as a settings object handed in does (newuser22's n168)."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source(_stencil_in_a_class(call_tiles=True))}
    assert found["_jacobi5:num_warps"].size_names == []


def test_q106_a_setting_reading_a_name_bound_by_walrus_in_the_launch_is_not_moved_above_it(tmp_path: Path) -> None:
    """Seen on 2026-12-07: fp8_rowquant's launch written as ``BLOCK=(b := _pick(N)).block, num_warps=b.warps``.
    ``tunables kernel.py --set _fp8_rows:num_warps=8`` wrote ``num_warps = b.warps`` / ``num_warps = 8  # kernelopt:
    tuned`` above the launch and exited 0: ``b`` is bound by the launch's own ``:=``, so every call raised
    ``UnboundLocalError: cannot access local variable 'b'``. A value reading a name that ``:=`` binds elsewhere in the
    statement is not moved above it; the walrus's own expression still is (``BLOCK = (b := _pick(N)).block``)."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import TunableError

    source = (DATA / "fp8_rowquant" / "kernel.py").read_text()
    source = source.replace("    tiles = _pick(N)\n", "").replace(
        "BLOCK=tiles.block, num_warps=tiles.warps)", "BLOCK=(b := _pick(N)).block, num_warps=b.warps)"
    )
    found = {t.key: t for t in discover_source(source)}
    why = found["_fp8_rows:num_warps"].refused_reason or ""
    assert "which reads b, bound by := in the same statement: not moved above it" in why, why
    kernel = tmp_path / "kernel.py"
    kernel.write_text(source)
    with pytest.raises(TunableError, match="bound by := in the same statement"):
        apply(kernel, {"_fp8_rows:num_warps": 8}, write=False)
    done = apply(kernel, {"_fp8_rows:BLOCK": 1024}, write=False)
    assert "    BLOCK = (b := _pick(N)).block\n    BLOCK = 1024  # kernelopt: tuned\n" in done.new_source, done.diff


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for the trial's kernels when its session picks these (the CPU sessions' own bests: ragged_moe's
#: 128 x 128 tiles, stencil_cfg's ``BLOCK_W=128`` since q100, qk_norm_rope's cap of 128 heads, scatter_rows' 64 rows
#: a program, fp8_rowquant's block of 1024 since q101), checked on the GPU and written on the CPU too
#: (:func:`test_the_gpu_picks_are_written_on_the_cpu`)
GPU_PICKS = {
    "ragged_moe": {"BLOCK_M": 128, "BLOCK_N": 128},
    "stencil_cfg": {"BLOCK_W": 128},
    "qk_norm_rope": {"HEADS_CAP": 128},
    "scatter_rows": {"BLOCK_R": 64},
    "fp8_rowquant": {"BLOCK": 1024},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (256 MB - 1 GB a tensor)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    # about 65536 fp16 rows of 4096 (512 MB) times 64 experts' 4096 x 1024 weights (512 MB); 7 experts, odd sides
    "ragged_moe": [SMALL["ragged_moe"], {"E": 64, "R": 1024, "K": 4096, "N": 1024}, {"E": 7, "R": 3001, "K": 1000, "N": 777}],
    # 16 planes of 4096 x 4096 fp32 (1 GB); 2 of 8191 x 12289 (805 MB)
    "stencil_cfg": [SMALL["stencil_cfg"], {"B": 16, "H": 4096, "W": 4096}, {"B": 2, "H": 8191, "W": 12289}],
    # 65536 tokens of 32 query heads of 128 fp16 (512 MB); 30001 tokens of 40 heads of 96, 5 KV heads
    "qk_norm_rope": [SMALL["qk_norm_rope"], {"T": 65536, "HQ": 32, "HK": 8, "D": 128}, {"T": 30001, "HQ": 40, "HK": 5, "D": 96}],
    # 2**20 rows of 256 fp32 (1 GB) into 50000; 300007 rows of 1000 (1.2 GB) into 5000 (about 60 adds a row)
    "scatter_rows": [SMALL["scatter_rows"], {"R": 1 << 20, "C": 256, "V": 50000}, {"R": 300007, "C": 1000, "V": 5000}],
    # 65536 fp16 rows of 4096 (512 MB); 4099 rows of 65537 (537 MB)
    "fp8_rowquant": [SMALL["fp8_rowquant"], {"M": 65536, "N": 4096}, {"M": 4099, "N": 65537}],
}  # fmt: skip

#: past 2**31 elements, by reading: every kernel's row or token base is int64 (ragged_moe's ``rm * s_xm``, stencil's
#: plane ``b * s_b`` but ``r * s_h`` int32 inside a plane, qk_norm_rope's ``t * s_t``, scatter's rows both sides,
#: fp8's ``pid * s_x``); no written form changes index arithmetic

#: the written forms' sizes: none a SHAPES entry names, odd ones, realistic ones
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "ragged_moe": [{"E": 5, "R": 129, "K": 33, "N": 129}, {"E": 64, "R": 1024, "K": 4096, "N": 1024}],
    "stencil_cfg": [{"B": 1, "H": 33, "W": 129}, {"B": 2, "H": 8191, "W": 12289}],
    "qk_norm_rope": [{"T": 3, "HQ": 129, "HK": 1, "D": 64}, {"T": 65536, "HQ": 32, "HK": 8, "D": 128}],
    "scatter_rows": [{"R": 129, "C": 1001, "V": 7}, {"R": 1 << 20, "C": 256, "V": 50000}],
    "fp8_rowquant": [{"M": 3, "N": 1025}, {"M": 65536, "N": 4096}, {"M": 4099, "N": 65537}],
}


@costly_picks
@pytest.mark.timeout(400)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects, and each written kernel holds
    in the interpreter at a size no entry names (an expert one past a tile of 128, a plane past the block, 129 query
    heads under a cap of 128, a row past a band of 64, a row of 1025 past a block)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    assert "    BLOCK_M = 128\n    BLOCK_N = 128\n" in written["ragged_moe"].read_text()
    assert "grid = (triton.cdiv(W, BLOCK_W), " in written["stencil_cfg"].read_text()
    assert "HEADS_CAP = 128\n" in written["qk_norm_rope"].read_text()
    assert "BLOCK = tiles.block\n" in written["fp8_rowquant"].read_text()
    small = {
        "ragged_moe": [{"E": 3, "R": 129, "K": 33, "N": 129}],
        "stencil_cfg": [{"B": 1, "H": 9, "W": 200}],
        "qk_norm_rope": [{"T": 2, "HQ": 129, "HK": 1, "D": 16}],
        "scatter_rows": [{"R": 129, "C": 65, "V": 5}],
        "fp8_rowquant": [{"M": 3, "N": 1025}],
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_thirtieth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the five originals (:data:`GPU_SIZES`: the ragged MoE GEMM
    over about 65536 fp16 rows of 4096 and 64 experts, the stencil over 1 GB of planes, QK-norm + rotary over 65536
    tokens, the scatter-add of 2**20 rows, the fp8 quantization of 512 MB; each also at odd sizes), and the forms ``tune``
    writes (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`); fp8 codes within one fp8
    step (a GPU's ``x / scale`` may round an ulp off torch's)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker28_cases import _within_an_fp8_step

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _within_an_fp8_step, tmp_path)
