"""Issue 32's twentieth held-out trial, as a new user runs it (tests/data/breaker20/README.md: eight public Triton
kernels from Liger-Kernel, torchtitan, tritonbench, bitsandbytes, unsloth, flash-linear-attention, vLLM and
PyTorch's own Triton tests, in forms earlier trials left out). Each finding is a test: each original once in Triton's
interpreter at a small odd size against its reference (``_all_correct``: NaN around the inputs and the outputs),
the defects' own cases, the forms ``tune`` writes for picks checked at sizes the ``SHAPES`` do not name, and the GPU
test the lead's session runs."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kernelopt.errors import InputFileError
from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker20"

#: one small size each original has not been checked at (odd, off every SHAPES entry)
SMALL: dict[str, dict[str, int]] = {
    "liger_softmax": {"B": 1, "T": 3, "V": 37},
    "titan_indices": {"R": 3, "E": 5, "L": 200},
    "tb_jagged_sum": {"B": 3, "L": 9, "M": 5},
    "bnb_8bit_quant": {"R": 5, "C": 100},
    "unsloth_xent": {"N": 3, "V": 37},
    "fla_mean_pool": {"B": 1, "T": 19, "H": 2, "D": 20},
    "torch_add2d": {"X": 7, "Y": 130},
    "vllm_block_fp8": {"M": 3, "N": 130, "K": 200},
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_each_original_is_right_at_a_small_odd_size(name: str) -> None:
    """The eight kernels as their authors launch them, once each in the interpreter at a size no entry names (e1:
    the jagged sum builds a nested tensor in ``run``; e2: PyTorch's test kernel annotates its constexprs by strings;
    vLLM's reads no settings file off a GPU, and ``tune`` refuses it before it runs, e3)."""
    _all_correct(DATA / name, [SMALL[name]])


# ------------------------------------------------------------------------------------- the defects


@pytest.mark.timeout(60)
def test_e1_fenced_outputs_leave_torch_s_own_allocations_alone() -> None:
    """Seen on 2026-12-06: tb_jagged_sum, tritonbench's jagged sum, whose ``run`` builds a nested tensor
    (``torch.nested.nested_tensor_from_jagged``). The net's check of it (and every interpreter run of the trials'
    tests) never returned: its shape is computed by torch's meta functions, which allocate with ``torch.empty`` in
    turn, and the fence around each allocation (``padded``'s ``torch.full``) went back through the patched
    ``torch.empty`` without end. An allocation made while one is fenced, or of no memory (a meta or fake tensor, a
    subclass), is left as it is; what ``run`` allocates itself is still fenced and a store past it still seen."""
    import torch

    from kernelopt.harness.fences import PAD, Fences, fenced_outputs, trespassed

    fences: Fences = []
    values, offsets = torch.randn(7, 3), torch.tensor([0, 2, 7])
    with fenced_outputs(fences):
        nested = torch.nested.nested_tensor_from_jagged(values, offsets)
        meta = torch.empty(5, device="meta")
        out = torch.empty(4)
    assert nested.shape[0] == 2 and meta.device.type == "meta" and len(fences) == 1, fences
    assert fences[0][1] == out.numel() and not trespassed(fences)
    buf = fences[0][0]
    buf[PAD + 4] = 0.0  # one element past the output's end
    assert trespassed(fences)


def test_e3_a_table_of_settings_read_beside_the_kernel_is_refused_with_a_data_hint() -> None:
    """Seen on 2026-12-06: vllm_block_fp8, vLLM's block-scaled fp8 GEMM, whose ``get_w8a8_block_fp8_configs``
    reads ``configs/N=...,K=...,device_name=...,dtype=fp8_w8a8,block_shape=[...].json`` beside the module. ``tune``
    refused it (rightly: each candidate loads from a folder of its own, where the file is not) with the hint "put
    it in kernel.py (a C++ or CUDA source as a string, built by torch.utils.cpp_extension.load_inline)": a table of
    settings is no source to build. A file that is no C++ or CUDA source, or a folder, is said to go in as a
    literal (a folder may hold either); a source still as ``load_inline``'s string (newuser16's n87)."""
    from kernelopt.kernelsource import KernelForm, _inlined, check_kernel

    with pytest.raises(InputFileError, match=re.escape("reads configs (line 123) from its own folder")) as err:
        check_kernel(DATA / "vllm_block_fp8" / "kernel.py", KernelForm.FUNCTION)
    line = err.value.one_line()
    assert "a table of settings it reads (JSON) as a dict literal" in line and "\n" not in line, line
    assert "load_inline" in _inlined(["gelu.cu"]) and "dict literal" not in _inlined(["gelu.cu"])
    assert _inlined(["settings.json"]) == "a table of settings it reads (JSON) as a dict literal"


def test_e4_a_sorted_table_among_the_inputs_keeps_its_order_in_the_gate_s_other_seeds() -> None:
    """Seen on 2026-12-06: ``tune --device cpu --kernel quantize_8bit_blockwise_kernel`` on bnb_8bit_quant, whose
    inputs are the values and bitsandbytes' sorted 256-level code (a binary search reads it): the session's pick
    ``SPLIT_NUM_BLOCKS=4`` (1.75x on the CPU) "fails the gate's correctness check: case 0 (R=40,C=96), seed 1 ...
    this seed's floating-point inputs are seed 0's with their rows (first dimension) permuted; kernel.py as it is
    fails it too": the gate's seed 1 permuted the code's entries, which is then no code (the kernel's search and
    the reference's ``searchsorted`` both need it in order), so a correct kernel failed. A vector in sorted order
    keeps it; the values are permuted as before, and so is a vector in no order."""
    import torch

    from kernelopt.harness.inputs import rerandomize, same_values
    from tests.conftest import load_fresh, triton_interpreted

    ref = load_fresh(DATA / "bnb_8bit_quant" / "reference.py", "_breaker20_bnb_ref")
    values, code = ref.get_inputs(R=5, C=100)
    loose = torch.tensor([0.3, -1.0, 2.0, 0.5])
    got = rerandomize([values, code, loose], seed=1)
    assert torch.equal(got[1], code) and not same_values(got[:1], [values]), got[1]
    assert not torch.equal(got[2], loose) and sorted(got[2].tolist()) == sorted(loose.tolist())
    assert torch.equal(rerandomize([values, code.flip(0)], seed=2)[1], code.flip(0))  # descending is an order too
    with triton_interpreted():  # the gate's seed 1: the kernel as written right on the permuted values
        ker = load_fresh(DATA / "bnb_8bit_quant" / "kernel.py", "_breaker20_bnb_ker")
        got_out, want = ker.run(*got[:2]), ref.reference(*got[:2])
    assert all(torch.allclose(g, w, atol=ref.ATOL, rtol=ref.RTOL) for g, w in zip(got_out, want, strict=True))


@pytest.mark.timeout(120)
def test_e5_discovery_and_the_candidates_read_a_kernel_alike_whatever_it_imports(tmp_path: Path) -> None:
    """Seen on 2026-12-06: a first draft of unsloth_xent read ``tl.extra.libdevice.tanh`` at import without importing
    the library. Discovery's worker loaded the module before the interpreter fixes (whose import of the library binds
    the attribute) and failed, while the candidates' workers ran it, and ``tune`` said only "BLOCK_SIZE computed from
    vocab_size, which the SHAPES entries do not name". Every worker now applies the fixes before it imports kernel.py
    (late20's z8), so discovery reads the sizes the candidates run at and the table is written. (e5's first fix,
    importing the library unbound, broke every later ``import triton.language.extra.libdevice`` in the process,
    Inductor's included: the lead's m10.)"""
    from tests.test_breaker_cases import _tune_edit

    folder = Path(shutil.copytree(DATA / "unsloth_xent", tmp_path / "draft"))
    text = (folder / "kernel.py").read_text()
    draft = text.replace("from triton.language.extra import libdevice\n", "").replace(
        "triton_tanh = libdevice.tanh", "triton_tanh = tl.extra.libdevice.tanh"
    )
    assert draft != text
    (folder / "kernel.py").write_text(draft)
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 2048})
    assert written is not None and "tuned in a table over vocab_size" in (note or ""), note


# ------------------------------------------------------------------------------------- what tune writes

#: picks of ``tune`` sessions (a GPU's space) and the line each written form holds: torchtitan's block a keyword
#: default of the wrapper; bitsandbytes' split guarded by the block count (its absmax store is unmasked); Liger's
#: looped softmax block computed from MAX_FUSED_SIZE; unsloth's backward block an annotated local; the autotune
#: lists of tritonbench, fla and PyTorch's test pinned
PICKS = {
    "titan_indices": ({"BLOCK_SIZE": 32, "num_warps": 2}, None, "    block_size: int = 32,\n"),
    "bnb_8bit_quant": (
        {"SPLIT_NUM_BLOCKS": 2}, "quantize_8bit_blockwise_kernel",
        "    if blocksize <= 256 and blocks % 2 == 0:  # kernelopt: tuned\n        split_num_blocks = 2\n",
    ),
}  # fmt: skip

#: sizes no SHAPES entry names, odd ones (an odd block count for bitsandbytes' split of two)
WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "titan_indices": [{"R": 1, "E": 1, "L": 3}, {"R": 3, "E": 5, "L": 500}],
    "bnb_8bit_quant": [{"R": 3, "C": 256}, {"R": 5, "C": 100}],
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(PICKS))
def test_a_written_pick_holds_at_sizes_no_entry_names(name: str, tmp_path: Path) -> None:
    """The kernel.py ``tune`` writes for each pick of :data:`PICKS`, in the interpreter at :data:`WRITTEN_SIZES`:
    bitsandbytes' split of two blocks a program is written only where the block count is even (its absmax store
    has no mask) and up to the entries' block of 256 (its tile ``SPLIT_NUM_BLOCKS * BLOCK_SIZE``, late44's l140), the
    original's split elsewhere."""
    from tests.test_breaker_cases import _tune_edit

    pick, kernel, form = PICKS[name]
    folder = Path(shutil.copytree(DATA / name, tmp_path / name))
    written, note = _tune_edit(folder, pick, kernel)
    assert written is not None and form in written, (note, written)
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, WRITTEN_SIZES[name])


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for six of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): torchtitan's keyword default,
#: bitsandbytes' dequantization split, unsloth's forward warps, the lists of tritonbench, fla and PyTorch's test pinned
GPU_PICKS = {
    "titan_indices": {"BLOCK_SIZE": 512, "num_warps": 8},
    "bnb_8bit_quant": {"SPLIT_SIZE": 1024, "num_warps": 8},
    "unsloth_xent": {"num_warps": 16},
    "tb_jagged_sum": {"BLOCK_SIZE_RAGGED": 32, "BLOCK_SIZE_M": 64, "num_warps": 4, "num_stages": 2},
    "fla_mean_pool": {"BD": 32, "num_warps": 4, "num_stages": 3},
    "torch_add2d": {"BLOCK_SIZE_X": 128, "BLOCK_SIZE_Y": 128, "num_warps": 8, "num_stages": 3},
}

#: (folder, sizes) of the originals on the GPU: a small odd size and realistic ones (256 MB - 1 GB a tensor; Liger's
#: and unsloth's looped / chunked paths past 65536 columns; vLLM's configs file read at N=512, K=384 on an H100)
#: bitsandbytes' kept near 8000 values: its normalization is Triton's fp32 ``/`` (``div.full.f32`` on sm_90, within 2
#: ulp), which puts about 4 values in a million on the other side of a code level's midpoint from the reference's IEEE
#: division (one level apart: far beyond any tolerance), as bitsandbytes' kernel does on every GPU
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "liger_softmax": [SMALL["liger_softmax"], {"B": 2, "T": 4096, "V": 16384}, {"B": 1, "T": 512, "V": 100000}],
    "titan_indices": [SMALL["titan_indices"], {"R": 8, "E": 64, "L": 200000}],
    "tb_jagged_sum": [SMALL["tb_jagged_sum"], {"B": 1024, "L": 1024, "M": 256}],
    "bnb_8bit_quant": [SMALL["bnb_8bit_quant"], {"R": 64, "C": 130}],
    "unsloth_xent": [SMALL["unsloth_xent"], {"N": 4096, "V": 32000}, {"N": 2048, "V": 128256}],
    "fla_mean_pool": [SMALL["fla_mean_pool"], {"B": 8, "T": 8192, "H": 16, "D": 128}],
    "vllm_block_fp8": [{"M": 5, "N": 200, "K": 300}, {"M": 64, "N": 512, "K": 384}, {"M": 4096, "N": 7168, "K": 7168}],
    "torch_add2d": [SMALL["torch_add2d"], {"X": 16384, "Y": 16384}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included, and a realistic one
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "titan_indices": [{"R": 1, "E": 1, "L": 3}, {"R": 8, "E": 63, "L": 200001}],
    "bnb_8bit_quant": [{"R": 1, "C": 1}, {"R": 63, "C": 131}],
    "unsloth_xent": [{"N": 2, "V": 3}, {"N": 4095, "V": 50257}],
    "tb_jagged_sum": [{"B": 1, "L": 1, "M": 1}, {"B": 1023, "L": 1025, "M": 255}],
    "fla_mean_pool": [{"B": 1, "T": 1, "H": 1, "D": 1}, {"B": 8, "T": 8191, "H": 16, "D": 129}],
    "torch_add2d": [{"X": 1, "Y": 1}, {"X": 16383, "Y": 16385}],
}

#: the quantizer's split of two blocks a program (guarded by an even block count) and unsloth's backward block and
#: warps (an annotated local and a literal at the call), each a pick of its own launch
GPU_LAUNCH_PICKS = {
    "bnb_8bit_quant": ({"SPLIT_NUM_BLOCKS": 2}, "quantize_8bit_blockwise_kernel", [{"R": 3, "C": 256}, {"R": 61, "C": 129}]),
    "unsloth_xent": ({"BLOCK_SIZE": 1024, "num_warps": 4}, "_cross_entropy_backward", [{"N": 2, "V": 3}, {"N": 2047, "V": 128257}]),
}  # fmt: skip


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects (breaker19's GPU test failed on
    2026-12-06 on a pick the CPU logic no longer wrote), and torchtitan's written default holds in the interpreter at
    sizes no entry names (bitsandbytes' guard: :func:`test_a_written_pick_holds_at_sizes_no_entry_names`)."""
    from tests.gpu_correct import written_files

    written = written_files(DATA, GPU_PICKS, tmp_path)
    assert "    block_size: int = 512,\n" in written["titan_indices"].read_text()
    assert '"BLOCK_SIZE_RAGGED": 32, "BLOCK_SIZE_M": 64}, num_warps=4, num_stages=2)]' in (
        written["tb_jagged_sum"].read_text()
    )
    folder = Path(shutil.copytree(DATA / "titan_indices", tmp_path / "titan_check"))
    shutil.copy(written["titan_indices"], folder / "kernel.py")
    _all_correct(folder, GPU_WRITTEN_SIZES["titan_indices"][:1] + WRITTEN_SIZES["titan_indices"][1:])


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twentieth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: Liger's softmax
    through autograd, its looped kernels past 65536 columns; torchtitan's indices; tritonbench's jagged sum over a
    nested tensor; bitsandbytes' quantization and dequantization; unsloth's cross-entropy forward (one block and
    chunked) and in-place backward; fla's mean pooling; vLLM's block fp8 GEMM, its configs file read on an H100 at
    N=512, K=384; PyTorch's string-annotated 2-D add), and the forms ``tune`` writes (:data:`GPU_PICKS`,
    :data:`GPU_LAUNCH_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import assert_correct, trial_holds
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker_cases import _tune_edit

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
    for name, (pick, kernel, sizes) in GPU_LAUNCH_PICKS.items():
        folder = Path(shutil.copytree(DATA / name, tmp_path / f"{name}_launch"))
        text, note = _tune_edit(folder, pick, kernel)
        assert text is not None, note
        written = tmp_path / f"{name}_launch_written.py"
        written.write_text(text)
        assert_correct(DATA / name, sizes, _outputs_checked, kernel_py=written)
