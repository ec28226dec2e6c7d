"""The fourteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker14 is a public Triton kernel written for the trial in a form the first thirteen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker14"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _source(name: str) -> str:
    return (DATA / name / "kernel.py").read_text()


# ------------------------------------------------------------------------------------- V0 on the CPU


@pytest.mark.timeout(60)
def test_a_language_builtin_bound_to_a_module_name_runs_in_the_interpreter() -> None:
    """Seen on 2026-12-06: fla_softmax, flash-linear-attention's ``softmax_fwd``, binds ``exp = tl.exp`` at module
    level (fla's fast-ops switch) and calls ``exp(...)`` in the kernel. ``validate --device cpu`` judged the correct
    original FAILED: "the kernel raised InterpreterError: ValueError('Did you forget to add @triton.jit ?')" (the
    interpreter patches ``tl.exp`` on the module, never a name bound to it before). Such a name is patched in the
    kernel's module as libdevice's imported functions are; the kernel is right at its entries and at D = 1."""
    _all_correct(DATA / "fla_softmax", [{"B": 2, "T": 9, "D": 100}, {"B": 1, "T": 3, "D": 1}])


# ------------------------------------------------------------------------------------- knobs found


def test_an_autotune_list_whose_block_a_helper_names_is_read_as_built() -> None:
    """Seen on 2026-12-06: attorch_glu, attorch's GLU forward, autotunes over ``element_wise_kernel_configs()``,
    whose entries name the block by the helper's parameter (``triton.Config({block_name: 64}, num_warps=2)``,
    ``block_name: str = "BLOCK_SIZE"``). Read as a literal list, each entry showed its ``num_warps`` only, the block
    (the knob attorch's users tune) was lost, and ``tune --device cpu`` exited 2 "no tunable knob on the CPU: the
    kernel's autotune list holds launch options only". A list an entry of which names a setting by code is a list
    built by code: read from the module as built, BLOCK_SIZE 64..1024 with it."""
    from kernelopt.tunables.evaluate import discover_evaluated

    (static,) = [t for t in discover_source(_source("attorch_glu")) if t.kind.value == "autotune_config"]
    assert static.key == "glu_forward_kernel.configs" and "built by code" in (static.refused_reason or "")
    found, _ = discover_evaluated(DATA / "attorch_glu" / "kernel.py", device="cpu")
    blocks = {t.key: t.value for t in found if t.name == "BLOCK_SIZE" and t.refused_reason is None}
    assert blocks == {f"glu_forward_kernel.configs[{i}].BLOCK_SIZE": 64 << i for i in range(5)}, blocks


def test_a_constexpr_read_only_as_a_divisor_is_no_knob() -> None:
    """Seen on 2026-12-06: ds_residual, DeepSpeed's ``residual_add_bias``, passes the model-parallel size as a
    ``tl.constexpr`` (``mp_size``, an int literal of the launch) that the body reads only as ``(...) / mp_size``.
    ``tune`` searched it beside the block (``BLOCK_SIZE=16, mp_size=8``); every such candidate changed the sums and
    failed its check, spending the budget. A constexpr read only under a true division scales values, never an index
    or a shape: it is held as what the kernel computes, and the search moves the block alone."""
    from kernelopt.tuning.launch import space_from_tunables

    found = {t.key: t for t in discover_source(_source("ds_residual"))}
    mp = found["residual_add_bias_kernel:mp_size"]
    assert mp.semantic and "only as an operand of a true division" in (mp.refused_reason or ""), mp.refused_reason
    assert not found["residual_add_bias_kernel:BLOCK_SIZE"].semantic
    space = space_from_tunables(list(found.values()), held_options={})
    assert [k.name for k in space.knobs if k.name not in ("num_warps", "num_stages")] == ["BLOCK_SIZE"]


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for four of the trial's kernels when its session picks these, checked on the GPU: the picks it
#: wrote on the CPU (2026-12-06) for ao_mx_dequant (one of its per-bucket list), mamba_gated_norm and lightllm_rotary;
#: for attorch_glu, the block its search now reaches (it kept its list on the CPU)
GPU_PICKS = {
    "ao_mx_dequant": {"ROW_TILE_SIZE": 256, "COL_TILE_SIZE": 64, "num_warps": 4, "num_stages": 2},
    "mamba_gated_norm": {"BLOCK_N": 128},
    "lightllm_rotary": {"BLOCK_HEAD": 32, "BLOCK_SEQ": 32},
    "attorch_glu": {"BLOCK_SIZE": 2048, "num_warps": 8},
}

#: (folder, sizes) of the originals on the GPU: a small odd size each, and a realistic one (256 MB - 1 GB a tensor)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "ao_mx_dequant": [{"M": 7, "K": 96}, {"M": 8192, "K": 32768}],
    "ao_swizzle": [{"R": 33, "C": 7}, {"R": 1048576, "C": 256}],
    "fla_softmax": [{"B": 3, "T": 4, "D": 513}, {"B": 8, "T": 8192, "D": 4096}],
    "mamba_gated_norm": [{"M": 3, "N": 300, "G": 100}, {"M": 32768, "N": 4096, "G": 256}],
    "lightllm_rotary": [{"T": 37, "HQ": 8, "HK": 2, "D": 64}, {"T": 65536, "HQ": 32, "HK": 8, "D": 128}],
    "liger_gn_bwd": [{"B": 3, "C": 8, "H": 50, "G": 4}, {"B": 32, "C": 256, "H": 16384, "G": 32}],
    "attorch_glu": [{"B": 1, "T": 5, "N": 66}, {"B": 4, "T": 8192, "N": 8192}],
    "ds_residual": [{"B": 1, "T": 3, "H": 1000}, {"B": 8, "T": 4096, "H": 4096}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included, and a realistic one
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "ao_mx_dequant": [{"M": 257, "K": 320}, {"M": 1, "K": 32}, {"M": 4096, "K": 16384}],
    "mamba_gated_norm": [{"M": 5, "N": 7, "G": 7}, {"M": 2, "N": 130, "G": 65}, {"M": 16384, "N": 8192, "G": 64}],
    "lightllm_rotary": [{"T": 33, "HQ": 5, "HK": 3, "D": 16}, {"T": 16384, "HQ": 40, "HK": 40, "D": 128}],
    "attorch_glu": [{"B": 3, "T": 7, "N": 34}, {"B": 2, "T": 8192, "N": 8192}],
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_fourteenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at a small odd size and at a realistic
    one (:data:`GPU_SIZES`: torchao's MX fp8 dequantization to a 1 GB fp32 output and its scale swizzle of 256 MB,
    fla's softmax, Mamba-2's gated norm, LightLLM's rotary embedding, Liger-Kernel's group-norm backward (its dW / dB
    added by ``tl.atomic_add`` in any order: the reference's 1e-4), attorch's GLU and DeepSpeed's residual add, each
    at 256 MB - 1 GB a tensor; no ``tl.dot``, so no TF32), and the forms ``tune`` writes (:data:`GPU_PICKS`), correct
    at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    written = written_files(DATA, GPU_PICKS, tmp_path)
    for name, shapes in GPU_SIZES.items():
        assert_correct(DATA / name, shapes, _outputs_checked)
    for name, shapes in GPU_WRITTEN_SIZES.items():
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=written[name])


def test_a_tile_the_body_divides_to_size_a_range_starts_at_the_divisor() -> None:
    """Seen on 2026-12-06: ao_mx_dequant, torchao's MX fp8 dequantization, derives ``SCALE_BLOCKS_PER_COL_TILE:
    tl.constexpr = COL_TILE_SIZE // SCALE_BLOCK_SIZE`` in its body (``SCALE_BLOCK_SIZE=32`` at the launch) and walks
    the tile's scales with ``tl.arange(0, SCALE_BLOCKS_PER_COL_TILE)``. ``tune`` searched COL_TILE_SIZE from 16,
    where the quotient is 0 and ``tl.arange(0, 0)`` fails every size (it would not compile on a GPU either): a
    candidate that can never run. The search starts at the divisor, said in one line; ROW_TILE_SIZE, which no
    quotient reads, keeps its range; the divisor, a setting of the launch, is held as the data's grain."""
    from kernelopt.tuning.launch import space_from_tunables

    source = _source("ao_mx_dequant").replace(
        "configs=_get_mxfp8_quant_autotune_configs(),",
        'configs=[triton.Config({"ROW_TILE_SIZE": 32, "COL_TILE_SIZE": 64}, num_warps=4, num_stages=2)],',
    )
    space = space_from_tunables(discover_source(source), held_options={}, source=source)
    assert min(v for v in space.knob("COL_TILE_SIZE").values if isinstance(v, int)) == 32
    assert min(v for v in space.knob("ROW_TILE_SIZE").values if isinstance(v, int)) == 16
    (note,) = space.domain_notes
    assert note.startswith("COL_TILE_SIZE starts at 32:") and "COL_TILE_SIZE // SCALE_BLOCK_SIZE (32)" in note, note
    # the divisor is the data's grain (one scale per 32 values): held, not a knob of the launch that passes it
    grain = {t.key: t for t in discover_source(source)}["_dequant_mxfp8_kernel:SCALE_BLOCK_SIZE"]
    assert grain.semantic and "a grain of the data" in (grain.refused_reason or ""), grain.refused_reason


def test_the_tiles_a_store_scatters_into_a_layout_are_no_knobs() -> None:
    """Seen on 2026-12-06: ao_swizzle, torchao's MX scale swizzle, stores each 128 x 4 tile as 32 x 16 at
    ``(rows % 32) * 16 + (rows // 32) * 4 + cols`` (``rows``, ``cols`` the aranges of ``BLOCK_ROWS, BLOCK_COLS = 128,
    4``). ``tune`` searched both tiles and spent its five candidates on them, each refused by its check ("output not
    written: 460 of 1024 elements still hold the poison pattern"): no other tile is right at any size. A tile whose
    arange a store scatters by an integer literal's ``//`` or ``%`` is the layout's: held, with the reason."""
    found = {t.key: t for t in discover_source(_source("ao_swizzle"))}
    for name in ("BLOCK_ROWS", "BLOCK_COLS"):
        t = found[f"triton_scale_swizzle:{name}"]
        assert t.semantic and "scatters by an integer literal's // or %" in (t.refused_reason or ""), t.refused_reason
    # a tile whose store is linear stays a knob (the neighbour of the trial: DeepSpeed's flat residual add)
    assert not {t.key: t for t in discover_source(_source("ds_residual"))}[
        "residual_add_bias_kernel:BLOCK_SIZE"
    ].semantic
