"""Issue 32's twenty-third held-out trial, as a new user runs it (tests/data/breaker23/README.md: eight public Triton
kernels from torchao, vLLM, torchtitan, flash-linear-attention, SGLang, Liger-Kernel and tritonbench, one with its
settings in JSON files keyed by the device name). Each finding is a test: each original once in Triton's interpreter
at a small odd size against its reference (``_all_correct``: NaN around the inputs and the outputs), the defects' own
cases, the forms ``tune`` writes for picks checked at sizes the ``SHAPES`` do not name, and the GPU test the lead's
session runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker23"

#: one small size each original has not been checked at, odd where the kernel allows it (vLLM's batched MoE keeps its
#: tokens a multiple of its M tile, as its launcher asserts: 16 at E=4, N=64 through the CPU file's entry 16)
SMALL: dict[str, dict[str, int]] = {
    "ao_sparse_gemv": {"N": 37, "Z": 77},
    "vllm_batched_moe": {"E": 4, "T": 16, "K": 20, "N": 64},
    "tt_swiglu": {"T": 5, "F": 13},
    "fla_gdn_recurrent": {"B": 1, "T": 3, "H": 1, "K": 5, "V": 9},
    "sgl_ep_moe": {"T": 7, "K": 20, "N": 9, "E": 3, "TOPK": 2},
    "liger_sel_logp": {"B": 1, "L": 3, "V": 2049, "P": 1},
    "tb_welford_ln": {"S": 3, "D": 1025},
    "ao_fp8_rowwise_rhs": {"E": 1, "K": 7, "N": 13},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The eight kernels as their authors launch them, each once in the interpreter at a size no entry names (vLLM's
    batched MoE through its JSON file's entry for the CPU, torchao's split-K GEMV and tritonbench's layer norm through
    their autotune lists, SGLang's five kernels, torchao's two fp8 kernels)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defects


def test_q30_a_bool_argument_is_an_int1_in_the_interpreter() -> None:
    """Seen on 2026-12-07: every check of sgl_ep_moe, SGLang's expert-parallel MoE, failed on the CPU before any
    timing: its grouped GEMM takes ``use_fp8_w8a8`` as a parameter that is no constexpr and the launcher passes
    ``False``, which Triton's interpreter typed int1 over int32 data ("numpy data itemsize (32 bits) exceeds dtype
    primitive_bitwidth (1 bits)"); a GPU compiles it as an ``i1``. A bool argument is an int1 over numpy's bool (the
    whole kernel right in :func:`test_each_original_is_right_at_a_small_odd_size`)."""
    from tests.conftest import triton_interpreted

    with triton_interpreted():
        import triton.language as tl
        import triton.runtime.interpreter as interp

        for flag in (False, True):
            scalar = interp._implicit_cvt(flag)
            assert scalar.dtype == tl.int1 and bool(scalar.handle.data[0]) is flag
        assert interp._implicit_cvt(7).dtype == tl.int32  # an int stays what it was


def test_q31_a_dict_entry_two_launches_read_moves_for_both(tmp_path: Path) -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on sgl_ep_moe exited 70, "internal error: tunable edit touched more
    than planned: ['compute_m_num_tiles_indptr:BLOCK_SIZE_M changed 128 -> 16 but was not planned']". Its tiles are a
    dict literal ``config = {"BLOCK_SIZE_M": 128, ...}`` splatted ``**config`` into the grouped GEMM and read as
    ``config["BLOCK_SIZE_M"]`` by the kernel counting each expert's tiles: moving the GEMM's entry moves the count's
    too, as it must (the two agree on the tile). A setting computed from that literal alone moving with the knob of
    its name is no edit past the plan; the written kernel holds at sizes no entry names."""
    from kernelopt.tunables.edit import apply_source

    source = (DATA / "sgl_ep_moe" / "kernel.py").read_text()
    result = apply_source(source, {"BLOCK_SIZE_M": 16}, kernel="grouped_gemm_triton_kernel")
    assert result.diff.count("\n-") == 1 and '+        "BLOCK_SIZE_M": 16,' in result.diff, result.diff
    folder = Path(shutil.copytree(DATA / "sgl_ep_moe", tmp_path / "sgl_ep_moe"))
    (folder / "kernel.py").write_text(result.new_source or "")
    _all_correct(folder, [{"T": 21, "K": 20, "N": 9, "E": 3, "TOPK": 2}])  # 42 slots: segments past one 16-row tile


def test_q32_a_lower_case_group_is_a_quantization_block_not_a_tile_order() -> None:
    """Seen on 2026-12-07: ``tunables`` on vllm_batched_moe, vLLM's batched-experts MoE GEMM, listed
    ``batched_triton_kernel:group_n`` (block-wise quantization's group along N: ``offs_n // group_n`` picks B's scale
    in the ``moe_mmk`` helper) as a computed setting to tune, its name read as the grouped tile order's
    ``GROUP_N`` by a rule matched in any case; its twin ``group_k`` was refused. A tuned ``group_n`` would change
    which scale every fp8 block-quantized call reads. The tile order's rule is upper case (``GROUP_M``,
    ``GROUP_SIZE_M``); a lower-case ``group_n`` / ``group_k`` / ``group_size`` is the data's format."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.knobs import knob_rule

    assert knob_rule("GROUP_M") is not None and knob_rule("GROUP_SIZE_M") is not None
    assert knob_rule("group_n") is None and knob_rule("group_size") is None
    found = {t.key: t for t in discover_source((DATA / "vllm_batched_moe" / "kernel.py").read_text())}
    assert "not a known performance knob" in (found["batched_triton_kernel:group_n"].refused_reason or ""), found
    assert found["batched_triton_kernel:BLOCK_M"].refused_reason is None  # the tiles are still knobs


def test_q33_a_block_whose_program_index_comes_from_its_own_tile_count_still_tiles_its_size() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on fla_gdn_recurrent, fla's fused recurrent gated delta rule, exited
    2 "no tunable knob": ``BV = min(8, triton.next_power_of_2(V))`` "not a known performance knob". The kernel steps
    by it (``o_v = i_v * BV + tl.arange(0, BV)``) and masks it against V (``o_v < V``), the rule that makes fla's
    blocks knobs whatever their names (table14), but its program's tile along V is ``i_v = pid % NV`` with ``NV =
    tl.cdiv(V, BV)``: the offsets' base read V, and a size the base reads is no size the mask compares with. A size
    read only inside a count of the block's own tiles is no base. ``BK`` (the whole key in one block, never
    stepped) stays refused."""
    import libcst as cst

    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.blocks import compared_sizes

    text = (DATA / "fla_gdn_recurrent" / "kernel.py").read_text()
    kernel = next(
        n
        for n in cst.parse_module(text).body
        if isinstance(n, cst.FunctionDef) and n.name.value == "fused_recurrent_gated_delta_rule_fwd_kernel"
    )
    assert compared_sizes(kernel) == {"BK": {"K"}, "BV": {"V"}}
    found = {t.key: t for t in discover_source(text)}
    bv = found["fused_recurrent_gated_delta_rule_fwd_kernel:BV"]
    assert bv.refused_reason is None and bv.kind.value == "computed_setting", bv
    assert found["fused_recurrent_gated_delta_rule_fwd_kernel:BK"].refused_reason is not None


def test_q34_a_loaded_value_divided_by_a_constexpr_is_no_index_it_divides() -> None:
    """Seen on 2026-12-07: ``tunables`` on liger_sel_logp, Liger's selective log-softmax, held ``TEMPERATURE``
    (rightly) with the reason "'TEMPERATURE' divides an index of another block (tl.load(LOGITS + cols, ...) /
    TEMPERATURE): a grain of what the kernel reads (a quantization block ...)": the grain rule read the load's pointer
    as the dividend. What a load returns is data; the reason is now the true division's ("it scales values"), and a
    real grain (an index divided: ``offs_n // group_n``) is still one."""
    import libcst as cst

    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.grains import grain_sizes

    found = {t.key: t for t in discover_source((DATA / "liger_sel_logp" / "kernel.py").read_text())}
    why = found["_selective_log_softmax_kernel:TEMPERATURE"].refused_reason or ""
    assert "true division" in why and "index" in why and "divides an index" not in why, why
    quant = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def k(b_s, out, BLOCK_N: tl.constexpr, group_n: tl.constexpr):\n"
        "    offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)\n"
        "    tl.store(out + offs_n, tl.load(b_s + offs_n // group_n))\n"
    )
    kernel = next(n for n in cst.parse_module(quant).body if isinstance(n, cst.FunctionDef))
    assert "divides an index of another block" in grain_sizes(kernel)["group_n"]


def test_q35_a_module_list_two_decorators_name_is_pinned_in_both(tmp_path: Path) -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on ao_fp8_rowwise_rhs, torchao's fp8 cast, whose two kernels' decorators
    both name the module list ``atomic_kernel_configs_2D``. The session's candidates move that list in place (both
    kernels ran each candidate), but the pick was written as a one-config list in the scales kernel's decorator alone,
    the cast kernel left on the module list: the file written was not the configuration timed. A module list other
    decorators name too is pinned in each of them; the written kernel holds at sizes no entry names."""
    from kernelopt.tunables.edit import pin_configs
    from kernelopt.tunables.model import AutotuneConfig

    source = (DATA / "ao_fp8_rowwise_rhs" / "kernel.py").read_text()
    pick = AutotuneConfig(kwargs={"BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=4, num_stages=4)
    written = pin_configs(source, "_triton_fp8_rowwise_3d_transpose_scales_rhs_kernel", [pick]).new_source or ""
    pinned = (
        '@triton.autotune(configs=[triton.Config({"BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=4, num_stages=4)]'
    )
    assert written.count(pinned) == 2 and "configs=atomic_kernel_configs_2D" not in written, written
    folder = Path(shutil.copytree(DATA / "ao_fp8_rowwise_rhs", tmp_path / "ao_fp8_rowwise_rhs"))
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"E": 2, "K": 33, "N": 65}])


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): SGLang's dict literal read by
#: two launches (q31), Liger's dict of a block and two launch options, torchao's split-K list pinned inside the
#: ``triton_op`` (its fp16 chain ``cdiv(Z, 32)`` long)
GPU_PICKS = {
    "sgl_ep_moe": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_K": 64},
    "liger_sel_logp": {"BLOCK_N": 4096},
    "ao_sparse_gemv": {"BLOCK_M": 32, "BLOCK_N": 128},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (128 MB - 5 GB a tensor where
#: memory matters; Liger's logits and torchao's fp8 weights past 2**31 elements, their int64 offsets)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "ao_sparse_gemv": [SMALL["ao_sparse_gemv"], {"N": 4096, "Z": 8192}, {"N": 14336, "Z": 4096}],
    "vllm_batched_moe": [
        SMALL["vllm_batched_moe"],
        {"E": 4, "T": 256, "K": 2048, "N": 64},
        {"E": 8, "T": 512, "K": 4096, "N": 1408},
    ],
    "tt_swiglu": [SMALL["tt_swiglu"], {"T": 16384, "F": 8192}],
    "fla_gdn_recurrent": [SMALL["fla_gdn_recurrent"], {"B": 4, "T": 1024, "H": 8, "K": 128, "V": 128}],
    "sgl_ep_moe": [SMALL["sgl_ep_moe"], {"T": 4096, "K": 4096, "N": 2816, "E": 8, "TOPK": 2}],
    "liger_sel_logp": [SMALL["liger_sel_logp"], {"B": 2, "L": 8191, "V": 151936, "P": 0}],
    "tb_welford_ln": [SMALL["tb_welford_ln"], {"S": 8192, "D": 8192}],
    "ao_fp8_rowwise_rhs": [
        SMALL["ao_fp8_rowwise_rhs"],
        {"E": 8, "K": 4096, "N": 8192},
        {"E": 16, "K": 8192, "N": 16385},
    ],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones, realistic ones, and Liger's logits of 2 x 8192 x
#: 151936 = 2.49e9 elements (its int64 program offsets kept under the pinned block)
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "sgl_ep_moe": [SMALL["sgl_ep_moe"], {"T": 3001, "K": 4095, "N": 2817, "E": 8, "TOPK": 2}],
    "liger_sel_logp": [{"B": 1, "L": 3, "V": 4097, "P": 1}, {"B": 2, "L": 8191, "V": 151936, "P": 0}],
    "ao_sparse_gemv": [SMALL["ao_sparse_gemv"], {"N": 4097, "Z": 8191}],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects (breaker19's GPU test failed on
    2026-12-06 on a pick the CPU logic no longer wrote), and each written kernel holds in the interpreter at a size no
    entry names (odd sizes, one past a block)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    moe = written["sgl_ep_moe"].read_text()  # q31: the one dict both launches read
    assert '"BLOCK_SIZE_M": 64,\n        "BLOCK_SIZE_N": 128,\n        "BLOCK_SIZE_K": 64,' in moe, moe
    logp = written["liger_sel_logp"].read_text()
    assert 'kwargs = {"BLOCK_N": 4096, "num_stages": 4, "num_warps": 1}' in logp, logp
    gemv = written["ao_sparse_gemv"].read_text()
    assert '    configs=[triton.Config({"BLOCK_M": 32, "BLOCK_N": 128}, num_warps=2)],\n' in gemv, gemv
    assert 'reset_to_zero=["Y"]' in gemv and '@triton_op("torchao::splitk_sparse_gemv"' in gemv, gemv
    small = {
        "sgl_ep_moe": [{"T": 40, "K": 70, "N": 9, "E": 3, "TOPK": 2}],
        "liger_sel_logp": [{"B": 1, "L": 2, "V": 4097, "P": 1}],
        "ao_sparse_gemv": [{"N": 129, "Z": 65}],
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_third_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: torchao's split-K
    GEMV through its autotune list inside a ``triton_op`` and fp8 row-wise cast (two kernels, one grid); vLLM's batched
    MoE through its JSON file for the GPU's name at E=4, N=64 and its default config elsewhere; torchtitan's SiLU-and-mul
    forward and backward on strided views; fla's gated delta rule; SGLang's five expert-parallel kernels; Liger's
    selective log-softmax; tritonbench's Welford layer norm), and the forms ``tune`` writes (:data:`GPU_PICKS`),
    correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`, two past 2**31 elements)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
