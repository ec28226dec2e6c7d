"""Issue 32's twenty-fourth held-out trial, as a new user runs it (tests/data/breaker24/README.md: five public Triton
kernels from AMD's AITER, torchao (twice), flash-linear-attention and Kakao Brain's trident: settings from JSON files
keyed by the device through ``lru_cache``d getters, a ``triton_op``, three kernels with eight launches from one
``run``, a chunked float32 scan whose chain a launch setting sets, a kernel that is a class's ``@staticmethod``). Each
finding is a test: each original once in Triton's interpreter at a small odd size against its reference
(``_all_correct``: NaN around the inputs and the outputs), the defects' own cases, the forms ``tune`` writes for picks
checked at sizes the ``SHAPES`` do not name, and the GPU test the lead's session runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker24"

#: one small size each original has not been checked at, odd where the kernel allows it (torchao's weight
#: quantization asserts both sizes are multiples of its 128 x 128 block)
SMALL: dict[str, dict[str, int | float]] = {
    "aiter_a8w8": {"M": 5, "N": 37, "K": 99},
    "ao_sdpa_fp8_quant": {"B": 1, "HQ": 2, "HKV": 1, "SQ": 45, "SKV": 3, "D": 24},
    "ao_fp8_weight_quant": {"M": 128, "N": 128},
    "fla_global_cumsum": {"B": 1, "T": 37, "H": 2, "S": 5, "NSEQ": 2},
    "trident_rms_norm": {"Y": 3, "X": 45, "P": 0.3},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The five kernels as their authors launch them, each once in the interpreter at a size no entry names (AITER's
    GEMM through its JSON file for the CPU, split along K by 4; torchao's QKV cast's eight launches; fla's two scans
    through their 48-config lists; trident's partial RMS norm)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defects


def test_q40_a_view_of_an_allocation_sizes_the_output_it_returns() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on ao_fp8_weight_quant, torchao's blockwise fp8 weight quantization
    (a ``triton_op``), searched ``BLOCK_SIZE`` (the launcher's ``block_size: int = 128``, the QUANTIZATION block:
    one scale per block) and never its autotune list: 16, 32 and 64 were wrong and 256 could not be written, so it
    exited 2 "BLOCK_SIZE cannot move without changing its results ... nothing to tune". The scales' buffer is
    ``x.new_empty(M_blocks, N_blocks).as_strided(...)`` (column major), ``M_blocks = triton.cdiv(M, block_size)``,
    and returned: the rule that holds a size of a returned tensor read only a bare allocation call, not a view of
    one. A view's allocation sizes what it returns; ``BLOCK_SIZE`` is held and the autotune list is the knob."""
    from kernelopt.tunables.analysis import discover_source

    found = {t.key: t for t in discover_source((DATA / "ao_fp8_weight_quant" / "kernel.py").read_text())}
    block = found["triton_fp8_blockwise_weight_quant_rhs_kernel:BLOCK_SIZE"]
    assert "sizes a tensor triton_fp8_blockwise_weight_quant_rhs() returns" in (block.refused_reason or ""), block
    source = (DATA / "ao_fp8_weight_quant" / "kernel.py").read_text()
    unreturned = source.replace("    return y, s\n", "    return y\n", 1)  # the scales no longer returned
    found = {t.key: t for t in discover_source(unreturned)}
    assert "sizes a tensor" not in (
        found["triton_fp8_blockwise_weight_quant_rhs_kernel:BLOCK_SIZE"].refused_reason or ""
    )


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): fla's 48-config comprehension
#: pinned to one chunk (the float32 carry ``cdiv(T, 64)`` long), torchao's chunked absmax list pinned (the cast
#: kernel keeping its own), trident's computed row block set for the rows SHAPES name and computed past them
GPU_PICKS = {
    "fla_global_cumsum": {"BT": 64},
    "ao_sdpa_fp8_quant": {"BLOCK_SIZE": 2048},
    "trident_rms_norm": {"x_block_size": 512},
}

#: past 2**31 elements: fla's varlen gate of 2**27 steps x 17 heads in 64 sequences (its program ids and sequence
#: starts int64, each sequence's ``o_t * H`` within int32), beside a short k
PAST_2_31 = {"B": 1, "T": 2**27, "H": 17, "S": 1, "NSEQ": 64, "TK": 64}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (256 MB - 4.6 GB a tensor where
#: memory matters; AITER's M <= 16 splits K = 8192 by 4 through the file for compute capability 90)
GPU_SIZES: dict[str, list[dict[str, int | float]]] = {
    "aiter_a8w8": [SMALL["aiter_a8w8"], {"M": 16, "N": 8192, "K": 8192}, {"M": 4095, "N": 8191, "K": 8192}],
    "ao_sdpa_fp8_quant": [
        SMALL["ao_sdpa_fp8_quant"],
        {"B": 4, "HQ": 32, "HKV": 8, "SQ": 8192, "SKV": 8192, "D": 128},
        {"B": 1, "HQ": 12, "HKV": 4, "SQ": 4097, "SKV": 333, "D": 96},
    ],
    "ao_fp8_weight_quant": [SMALL["ao_fp8_weight_quant"], {"M": 8192, "N": 16384}],
    "fla_global_cumsum": [
        SMALL["fla_global_cumsum"],
        {"B": 4, "T": 8192, "H": 16, "S": 128, "NSEQ": 8},
        PAST_2_31,
    ],
    "trident_rms_norm": [
        SMALL["trident_rms_norm"],
        {"Y": 16384, "X": 8192, "P": -1.0},
        {"Y": 4097, "X": 4095, "P": 0.7},
    ],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones, realistic ones, fla's past 2**31
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int | float]]] = {
    "fla_global_cumsum": [{"B": 2, "T": 65537, "H": 4, "S": 33, "NSEQ": 5}, PAST_2_31],
    "ao_sdpa_fp8_quant": [SMALL["ao_sdpa_fp8_quant"], {"B": 2, "HQ": 16, "HKV": 16, "SQ": 8191, "SKV": 8191, "D": 128}],
    "trident_rms_norm": [{"Y": 5, "X": 199, "P": 0.5}, {"Y": 8192, "X": 8192, "P": -1.0}],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects, and each written kernel holds
    in the interpreter at a size no entry names (odd sizes, one past a block)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    scan = written["fla_global_cumsum"].read_text()
    assert scan.count('configs=[triton.Config({"BT": 64}, num_warps=2, num_stages=1)]') == 1, scan
    assert "for BT in [16, 32, 64, 128]" in scan  # the vector kernel's list, another launch, kept
    quant = written["ao_sdpa_fp8_quant"].read_text()
    assert quant.count('configs=[triton.Config({"BLOCK_SIZE": 2048}, num_warps=8)]') == 1, quant
    norm = written["trident_rms_norm"].read_text()
    assert "        if x_size <= 200:  # kernelopt: tuned\n            x_block_size = 512\n" in norm, norm
    small = {
        "fla_global_cumsum": [{"B": 1, "T": 129, "H": 1, "S": 3, "NSEQ": 3}],
        "ao_sdpa_fp8_quant": [{"B": 1, "HQ": 2, "HKV": 2, "SQ": 65, "SKV": 9, "D": 40}],
        "trident_rms_norm": [{"Y": 2, "X": 511, "P": -1.0}],  # past the SHAPES' rows: the computed block
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_fourth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the five originals (:data:`GPU_SIZES`: AITER's int8 GEMM
    through its JSON file for compute capability 90, split along K by 4 at M <= 16; torchao's fp8 QKV quantization,
    eight launches, its chunks from the SM count; torchao's blockwise fp8 weight quantization in a ``triton_op``;
    fla's two chunked scans, one past 2**31 elements; trident's RMS norm), and the forms ``tune`` writes
    (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
