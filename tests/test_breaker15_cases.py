"""The fifteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker15 is a public Triton kernel written for the trial in a form the first fourteen trials did not try
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

DATA = Path(__file__).parent / "data" / "breaker15"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _source(name: str) -> str:
    return (DATA / name / "kernel.py").read_text()


# ------------------------------------------------------------------------------------- V0 on the CPU


@pytest.mark.timeout(60)
def test_python_s_and_of_two_block_masks_is_elementwise_in_the_interpreter(tmp_path: Path) -> None:
    """Seen on 2026-12-06: gems_cumsum, FlagGems' cumsum, joins its masks with Python's ``and`` (``mask =
    m_offset[:, None, None] < M and n_offset[None, :, None] < N``), which a GPU compile makes an elementwise
    ``logical_and``. Triton's interpreter ran Python's ``and``: a block is always true there, so the mask was the
    column mask alone, the rows past M were stored past the output, and ``validate --device cpu`` of the correct
    original died with the heap ("corrupted double-linked list", the worker aborted). ``and`` / ``or`` / ``not`` of
    blocks are rewritten as the compiler reads them; the kernel is right at its entries' forms and at M = 1."""
    _all_correct(DATA / "gems_cumsum", [{"A": 3, "N": 9, "K": 2}, {"A": 1, "N": 5, "K": 1}])
    # the rule's other forms, in one small kernel: ``or`` and ``not`` of blocks, a constexpr's short circuit before a
    # load that would fault, and scalars keeping Python's values
    kernel = DATA.parent / "interp_bool_ops"
    _all_correct(kernel, [{"N": 37}, {"N": 5}])


# ------------------------------------------------------------------------------------- knobs found

#: Kernl's one-block layer norm (``layer_norm_xformers``), beside the trial's looped one in the same file: its block
#: must cover the row (``cols < N``, no loop)
_XFORMERS = """

@triton.jit
def layer_norm_xformers(
    output_ptr, a_ptr, weight_ptr, bias_ptr, mean_ptr, rstd_ptr, output_row_stride, output_col_stride, a_row_stride,
    a_col_stride, N, eps, HAS_BIAS: tl.constexpr, IS_RMSNORM: tl.constexpr, BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(a_ptr + row * a_row_stride + cols * a_col_stride, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(weight_ptr + cols, mask=mask, other=1.0)
    b = tl.load(bias_ptr + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / N
    x_zm = tl.where(mask, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(x_zm * x_zm, axis=0) / N + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    tl.store(output_ptr + row * output_row_stride + cols * output_col_stride, x_zm * rstd * w + b, mask=mask)

"""


def test_a_kernel_a_launcher_takes_as_a_parameter_is_read_as_the_kernel_its_callers_pass() -> None:
    """Seen on 2026-12-06: kernl_ln, Kernl's layer norm, launches ``implementation[(M,)](...)`` in an
    ``autograd.Function``'s forward, the kernel a parameter ``layer_norm(..., implementation: JITFunction =
    _layer_norm_fwd_fused_single_pass)`` passes through ``LayerNorm.apply``. Discovery read the launch by the
    parameter's name (``implementation:BLOCK_SIZE``) and never the kernel's body: with Kernl's one-block kernel
    (``layer_norm(..., implementation=layer_norm_xformers)``) the block that must cover the row was searched from 16,
    and ``tune`` spent 4 of its 6 candidates on blocks that leave the row undone (each failing its check). The
    parameter is followed through the calls to the one kernel every call passes (or the default); two kernels, or
    a value built by code, leave it unknown as before."""
    source = _source("kernl_ln")
    found = {t.key: t for t in discover_source(source)}
    assert "_layer_norm_fwd_fused_single_pass:BLOCK_SIZE" in found and not any(
        k.startswith("implementation:") for k in found
    )
    assert found["_layer_norm_fwd_fused_single_pass:num_stages"].value == 3  # the kernel's launch default, read now
    # Kernl's other kernel beside it, chosen by the caller's keyword: its block covers N (the default is not run)
    both = source.replace("\n\nclass LayerNorm(", _XFORMERS + "\nclass LayerNorm(", 1)
    chosen = both.replace(
        "layer_norm(x, weight, bias, 1e-5)", "layer_norm(x, weight, bias, 1e-5, implementation=layer_norm_xformers)"
    )
    block = {t.key: t for t in discover_source(chosen)}["layer_norm_xformers:BLOCK_SIZE"]
    assert [(c.block, c.size) for c in block.covers] == [("BLOCK_SIZE", "N")], block.covers
    # both kernels run (two calls): which one a launch starts is unknown, read as before
    twice = chosen.replace(
        "return layer_norm(x, weight, bias, 1e-5, implementation=layer_norm_xformers)",
        "layer_norm(x, weight, bias, 1e-5)\n    return layer_norm(x, weight, bias, 1e-5, implementation=layer_norm_xformers)",
    )
    assert "implementation:BLOCK_SIZE" in {t.key for t in discover_source(twice)}


def test_a_list_whose_pick_the_host_reads_back_is_searched_from_its_least_block() -> None:
    """Seen on 2026-12-06: mamba_state_bwd, Mamba-2's state-passing backward, sizes its per-block partials by a host
    constant (``BLOCK_SIZE_min = 64``: ``cdiv(dim, 64)`` columns) and sums ``cdiv(dim, best_config.kwargs[
    "BLOCK_SIZE"])`` of them after the launch. ``tune --kernel _state_passing_bwd_kernel`` searched BLOCK_SIZE from
    16: its 16 and 32 wrote past the buffer, each crashed the worker ("died with SIGABRT") and was refused, two of the
    six candidates spent. Where the host reads ``<kernel>.best_config``, the list's settings start at the least value
    the authors listed, said in one line; the forward's list, whose pick nothing reads, keeps its range."""
    from kernelopt.tuning.launch import space_from_tunables

    source = _source("mamba_state_bwd")
    found = discover_source(source)
    bwd = space_from_tunables(found, kernel="_state_passing_bwd_kernel", held_options={}, source=source)
    assert min(v for v in bwd.knob("BLOCK_SIZE").values if isinstance(v, int)) == 64
    (note,) = bwd.domain_notes
    assert note.startswith("BLOCK_SIZE starts at 64: the host reads _state_passing_bwd_kernel.best_config"), note
    fwd = space_from_tunables(found, kernel="_state_passing_fwd_kernel", held_options={}, source=source)
    assert min(v for v in fwd.knob("BLOCK_SIZE").values if isinstance(v, int)) == 16 and not fwd.domain_notes


# ------------------------------------------------------------------------------------- compiled for sm_90, no GPU


@pytest.mark.timeout(300)
def test_host_code_reading_the_autotuner_s_pick_runs_on_in_a_compile_for_a_target(tmp_path: Path) -> None:
    """Seen on 2026-12-06: mamba_state_bwd, Mamba-2's state passing, sums the backward's per-block partials over
    ``cdiv(dim, _state_passing_bwd_kernel.best_config.kwargs["BLOCK_SIZE"])`` after the launch. Compiled for sm_90
    without a GPU (``compile_for_target``, which compiles every config instead of timing them), the folder reported
    no launch at all, only "AttributeError: 'Autotuner' object has no attribute 'best_config'". The compile sets
    the pick Triton's timing would (the first config it kept): both kernels compile, the host code runs on."""
    import re

    from kernelopt.harness.target_compile import compile_for_target
    from tests.conftest import skip_without

    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    folder = _copy("mamba_state_bwd", tmp_path)
    # one config a list and one size: two compiles (the rule is the same for six)
    kernel = folder / "kernel.py"
    kernel.write_text(
        re.sub(r'\n\s+triton\.Config\(\{"BLOCK_SIZE": (128|256|512|1024|2048)\}\),', "", kernel.read_text())
    )
    ref = folder / "reference.py"
    ref.write_text(re.sub(r"^SHAPES = .*$", 'SHAPES = [{"B": 1, "C": 2, "H": 1, "D": 3}]', ref.read_text(), flags=re.M))
    (report,) = compile_for_target([folder], "sm_90")
    assert report.problem is None, report.problem
    assert (
        sorted(launch.kernel for launch in report.launches)
        == [
            "_state_passing_bwd_kernel",
            "_state_passing_fwd_kernel",
        ]
        and not report.failed
    )


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for four of the trial's kernels when its session picks these, checked on the GPU: Mamba-2's
#: forward list pinned to one block, bitsandbytes' two configs to the CPU tune's pick (2026-12-06), Liger-Kernel's
#: token tile in a table over the tokens, Kernl's list pinned to one column tile
GPU_PICKS = {
    "mamba_state_bwd": {"BLOCK_SIZE": 1024},
    "bnb_global_t": {"BLOCK_M": 256, "BLOCK_N": 128, "GROUP_M": 1},
    "liger_embed": {"BLOCK_SIZE_M": 32},
    "kernl_vecmat": {"SIZE_N": 16},
}

#: (folder, sizes) of the originals on the GPU: a small odd size each, and a realistic one (256 MB - 1 GB a tensor)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "liger_kldiv": [{"BT": 3, "V": 17}, {"BT": 4096, "V": 32768}],
    "bnb_global_t": [{"M": 7, "N": 5}, {"M": 16384, "N": 8192}],
    "liger_embed": [
        {"V": 5, "D": 3, "B": 1, "T": 3},
        {"V": 1000, "D": 600, "B": 2, "T": 33},
        {"V": 32000, "D": 4096, "B": 4, "T": 8192},
    ],
    "kernl_ln": [{"B": 1, "T": 3, "N": 5}, {"B": 4, "T": 8192, "N": 4096}],
    "kernl_vecmat": [{"B": 1, "H": 1, "S": 3, "D": 5}, {"B": 64, "H": 32, "S": 1024, "D": 128}],
    "mamba_state_bwd": [
        {"B": 1, "C": 2, "H": 1, "D": 3},
        {"B": 2, "C": 1, "H": 3, "D": 65},
        {"B": 4, "C": 64, "H": 64, "D": 8192},
    ],
    "gems_cumsum": [{"A": 1, "N": 1, "K": 1}, {"A": 33, "N": 129, "K": 2}, {"A": 65536, "N": 1024, "K": 4}],
    "gems_embed_bwd": [{"V": 5, "D": 3, "B": 1, "T": 3}, {"V": 32000, "D": 4096, "B": 4, "T": 8192}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included, and a realistic one
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "mamba_state_bwd": [{"B": 1, "C": 4, "H": 2, "D": 2049}, {"B": 4, "C": 32, "H": 32, "D": 16384}],
    "bnb_global_t": [{"M": 129, "N": 257}, {"M": 8192, "N": 16384}],
    "liger_embed": [{"V": 9, "D": 257, "B": 2, "T": 37}, {"V": 32000, "D": 4096, "B": 4, "T": 8192}],
    "kernl_vecmat": [{"B": 2, "H": 2, "S": 257, "D": 16}, {"B": 32, "H": 32, "S": 2048, "D": 128}],
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_fifteenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at a small odd size and at a realistic
    one (:data:`GPU_SIZES`: Liger-Kernel's KL divergence and embedding, bitsandbytes' quantize-transpose (its int8
    one step off at a tie, the harness's rule), Kernl's layer norm and one-token attention, Mamba-2's state passing
    forward and backward over 64 chunks, FlagGems' cumsum (masks joined by Python's ``and``, which the compiler makes
    elementwise; its reference's 1e-3 for an fp32 scan of 1024) and embedding backward (rows added by
    ``tl.atomic_add`` in any order), each at 256 MB - 1 GB a tensor; no ``tl.dot``, so no TF32), and the forms
    ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    written = written_files(DATA, GPU_PICKS, tmp_path)
    for name, shapes in GPU_SIZES.items():
        assert_correct(DATA / name, shapes, _outputs_checked)
    for name, shapes in GPU_WRITTEN_SIZES.items():
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=written[name])
