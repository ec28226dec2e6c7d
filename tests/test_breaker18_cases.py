"""Issue 32's eighteenth held-out trial, as a new user runs it (tests/data/breaker18/README.md: eight public Triton
kernels in forms earlier trials left out). Each finding is a test: the reading ``tunables`` gives, or the kernel.py
``tune`` writes for a pick, run in Triton's interpreter against the folder's reference at sizes its ``SHAPES`` do not
name (``_all_correct``: NaN around the inputs and the outputs), and the GPU test that the lead's session runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import Bucket, TunedTable, discover_source, write_table
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker18"


# ------------------------------------------------------------------------------------- legality


def test_d1_a_tile_width_named_like_a_thread_count_takes_triton_s_arange_rule() -> None:
    """Seen on 2026-12-06: sgl_moe_sum, SGLang's ``moe_sum_reduce_triton``, whose ``BLOCK_DIM = 2048`` is the width
    of a ``tl.arange(0, BLOCK_DIM)`` tile. ``tunables`` listed it ">= 32, <= 1024, multiple of 32" (the CUDA rule
    of threads a block, which the name matched), its own value outside, and ``tune`` searched widths no
    ``tl.arange`` takes. A name a kernel spans a ``tl.arange`` with is a power of two up to Triton's largest block,
    whatever rule its name matches that asks no power of two; a name rule that does (a vector width) stays."""
    knobs = {t.key: t for t in discover_source((DATA / "sgl_moe_sum" / "kernel.py").read_text())}
    legal = knobs["_moe_sum_reduce_kernel:BLOCK_DIM"].legality
    assert legal.power_of_two and legal.maximum == 1048576 and legal.multiple_of is None, legal
    assert legal.problem(2048) is None and legal.problem(96) is not None, legal
    # a CUDA-style thread count no arange spans keeps the thread rule
    src = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x, n, THREADS: tl.constexpr):\n"
        "    i = tl.program_id(0) * THREADS\n    tl.store(x + i, 1.0)\n\n\n"
        "def run(x):\n    k[(4,)](x, x.numel(), THREADS=256)\n    return x\n"
    )
    threads = {t.key: t for t in discover_source(src)}["k:THREADS"].legality
    assert threads.maximum == 1024 and threads.multiple_of == 32, threads


# ------------------------------------------------------------------------------------- tables


@pytest.mark.timeout(180)
def test_d2_an_entry_a_torch_fallback_serves_needs_no_size_for_the_table(tmp_path: Path) -> None:
    """Seen on 2026-12-06: tut_softmax_persist, the fused-softmax tutorial's persistent kernel behind a torch
    fallback for small rows (``if n_cols < 16: return torch.softmax(x, dim=-1)``; the entry ``N=9`` launches no
    kernel). ``tune`` exited 2 "no tunable knob ... computed (BLOCK_SIZE = triton.next_power_of_2(n_cols)) from
    n_cols, which no SHAPES entry names as a size": the run told ``n_cols`` at the two entries that launch, none at
    the fallback's. An entry whose run launched no kernel is idle, as one that launched another kernel is: the
    table is written over the entries that launch, correct at sizes no entry names, the fallback's included."""
    folder = Path(shutil.copytree(DATA / "tut_softmax_persist", tmp_path / "tut_softmax_persist"))
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 1024})
    assert written is not None and "if n_cols <= 781:  # kernelopt: tuned\n        BLOCK_SIZE = 1024" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 3, "N": 1025}, {"M": 5, "N": 15}, {"M": 2, "N": 16}])


def test_d3_a_heuristic_s_table_row_the_next_row_repeats_is_left_to_it() -> None:
    """Seen on 2026-12-06: gems_index_select, FlagGems' index_select, whose ``tune`` wrote ``"BLOCK_M": lambda args:
    64 if args["N"] <= 40 else 64 if args["N"] <= 300 else heur_block_m(args)`` (its two shapes' own bests agreed on
    BLOCK_M, not on the rest): right, but a row that says what the next says. A row whose value the next row repeats
    is left to that row; the table reads back the same below and above its bound."""
    src = (DATA / "gems_index_select" / "kernel.py").read_text()
    same = {"BLOCK_M": 64, "BLOCK_N": 128}
    table = TunedTable(size='args["N"]', buckets=[Bucket(upto=40, values=same), Bucket(upto=300, values=same)])
    new = write_table(src, table).new_source
    assert 'lambda args: 64 if args["N"] <= 300 else heur_block_m(args)' in new and "<= 40" not in new, new
    back = {t.key: t for t in discover_source(new)}["index_select_kernel.heuristics.BLOCK_M"]
    assert back.tuned_table is not None and [(b.upto, b.values) for b in back.tuned_table.buckets] == [
        (300, {"BLOCK_M": 64})
    ]


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for five of the trial's kernels when its session picks these, checked on the GPU (the
#: autotune lists pinned, Inductor's, torchao's and the triton_op's, are forms earlier trials' GPU runs hold): FlagGems'
#: heuristics dict in a table over ``N``, Unsloth's computed block in a table over ``n_cols`` (the backward takes it
#: through ``ctx``), GemLite's cached dict copied and set in a table over ``M``, SGLang's local ``BLOCK_M``, the
#: tutorial's block in a table beside its fallback (d2)
GPU_PICKS = {
    "gems_index_select": {"BLOCK_M": 2, "BLOCK_N": 64},
    "unsloth_rms_bwd": {"BLOCK_SIZE": 4096},
    "gemlite_a16w8": {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 4},
    "sgl_moe_sum": {"BLOCK_M": 8},
    "tut_softmax_persist": {"BLOCK_SIZE": 1024},
}

#: (folder, sizes) of the originals on the GPU: a small odd size and a realistic one (256 MB - 1 GB a tensor),
#: compiled for sm_90 on the CPU first (``compile_for_target``, 2026-12-06)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "gems_index_select": [{"M": 3, "N": 5, "L": 7}, {"M": 8192, "N": 16384, "L": 8192}],
    "unsloth_rms_bwd": [{"B": 1, "S": 3, "D": 5}, {"B": 4, "S": 8192, "D": 4096}],
    "inductor_scan": [{"X": 3, "R": 5}, {"X": 65536, "R": 2048}],
    "gemlite_a16w8": [{"M": 3, "N": 5, "K": 7}, {"M": 8192, "N": 16384, "K": 16384}],
    "ao_fp8_atomic": [{"M": 3, "K": 5}, {"M": 16384, "K": 16384}],
    "vllm_add_rms_op": [{"T": 3, "D": 5}, {"T": 32768, "D": 8192}],
    "sgl_moe_sum": [{"T": 3, "TOPK": 2, "H": 5}, {"T": 16384, "TOPK": 8, "H": 4096}],
    "tut_softmax_persist": [{"M": 3, "N": 17}, {"M": 65536, "N": 4096}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included, and a realistic one (inside the tables)
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "gems_index_select": [{"M": 7, "N": 301, "L": 99}, {"M": 131072, "N": 999, "L": 512}],
    "unsloth_rms_bwd": [{"B": 3, "S": 5, "D": 1027}, {"B": 4, "S": 16384, "D": 2048}],
    "gemlite_a16w8": [{"M": 17, "N": 65, "K": 15}, {"M": 32, "N": 16384, "K": 16384}],
    "sgl_moe_sum": [{"T": 7, "TOPK": 3, "H": 5000}, {"T": 16384, "TOPK": 8, "H": 4096}],
    "tut_softmax_persist": [{"M": 5, "N": 15}, {"M": 67, "N": 700}, {"M": 262144, "N": 777}],
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_eighteenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: FlagGems'
    index_select on a strided view, Unsloth's RMS norm forward and backward through autograd, Inductor's persistent
    scan, a GemLite-style A16W8 GEMM (fp16 dots, fp32 sums), torchao's atomic-max fp8 cast, a triton_op add + RMS
    norm with ``restore_value``, SGLang's MoE sum into a column slice, the persistent softmax tutorial), each at
    256 MB - 1 GB a tensor, and the forms ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names
    (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
