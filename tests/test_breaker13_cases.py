"""The thirteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker13 is a public Triton kernel written for the trial in a form the first twelve trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker13"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _source(name: str) -> str:
    return (DATA / name / "kernel.py").read_text()


# ------------------------------------------------------------------------------------- never a wrong kernel


def test_a_tile_whose_program_picks_one_group_s_scales_must_divide_the_group() -> None:
    """Seen on 2026-12-06: vllm_awq_dequant, vLLM's AWQ dequantization, reads ONE row of zeros and scales a tile,
    ``pid_y * BLOCK_SIZE_Y // group_size + tl.arange(0, 1)``, the group read off the tensors at runtime. With
    ``SHAPES`` of one checkpoint's group (128), ``tune`` wrote ``block_size_y: int = 128`` (3.39x on the
    interpreter), wrong for every checkpoint of group 32 or 64 that the original's 32 served (1.9 off at K=96,
    G=32): its check held G, "kept G (divides a dimension)". A tile whose program's first index the kernel
    divides by a size given at runtime must divide that size: moved to a value that does not divide the original,
    it is not written; the other tile still moves."""
    from kernelopt.tunables.guard import guard_edit

    old = _source("vllm_awq_dequant")
    wide = old.replace("block_size_x: int = 32,", "block_size_x: int = 16,").replace(
        "block_size_y: int = 32,", "block_size_y: int = 128,"
    )
    refused = guard_edit(old, wide)
    assert refused.new_source is None, refused.new_source
    assert "BLOCK_SIZE_Y must divide group_size" in (refused.note or ""), refused.note
    kept = guard_edit(old, old.replace("block_size_x: int = 32,", "block_size_x: int = 64,"))
    assert kept.new_source is not None, kept.note


@pytest.mark.timeout(120)
def test_the_written_awq_tile_is_correct_at_every_group_the_original_served(tmp_path: Path) -> None:
    """What ``tune`` may still write for vllm_awq_dequant (the column tile), correct at groups of 32 and 64 (the whole
    K), odd column counts included."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("vllm_awq_dequant", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE_X": 16, "BLOCK_SIZE_Y": 32})
    assert written is not None and "block_size_x: int = 16," in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"K": 96, "N": 40, "G": 32}, {"K": 64, "N": 24, "G": 64}])


def test_a_constexpr_the_kernel_body_binds_covers_its_row_and_never_shrinks() -> None:
    """Seen on 2026-12-06: inductor_per, PyTorch Inductor's persistent reduction, binds ``RBLOCK: tl.constexpr = 64``
    in its body and covers the row with it (``rindex = tl.arange(0, RBLOCK)[None, :]``, ``rmask = rindex <
    rnumel``). Read as a knob with no cover, ``tune`` searched RBLOCK down to 16; with ``SHAPES`` rows of at most
    32 it picked RBLOCK=32 (with XBLOCK=256), which only the net refused ("fails at M=257,N=33"), the XBLOCK gain
    lost with it. A body's constexpr literal is a block as a parameter is: it covers ``rnumel``, no guard by a size
    can be written for it, so its search starts at its value and the guard refuses a smaller one."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.guard import guard_edit

    old = _source("inductor_per")
    found = {t.name: t for t in discover_source(old)}
    (cover,) = found["RBLOCK"].covers
    assert (cover.block, cover.size, cover.test, cover.held) == ("RBLOCK", "rnumel", "rindex < rnumel", True)
    assert not found["XBLOCK"].covers
    refused = guard_edit(old, old.replace("RBLOCK: tl.constexpr = 64", "RBLOCK: tl.constexpr = 32"))
    assert refused.new_source is None and "body cannot be guarded by a size" in (refused.note or ""), refused.note
    assert guard_edit(old, old.replace("RBLOCK: tl.constexpr = 64", "RBLOCK: tl.constexpr = 128")).new_source


@pytest.mark.timeout(30)
def test_the_search_of_a_block_no_guard_can_serve_starts_at_its_value() -> None:
    """The space ``tune`` searches for inductor_per at rows of at most 32 and for vllm_rejection's module constant
    ``MAX_SPEC_LEN = 32`` (``tl.arange(0, MAX_NUM_TOKENS)`` covers a request's draft tokens): before, RBLOCK ran
    from 16 and MAX_NUM_TOKENS from 16 (the session's best, MAX_NUM_TOKENS=16, then "not written"); now each starts
    at its value, said in one line, the count of tokens (loaded from memory: no run tells it) read or not."""
    from kernelopt.tunables import discover_source
    from kernelopt.tuning.launch import space_from_tunables

    space = space_from_tunables(
        discover_source(_source("inductor_per")),
        problem_sizes={"M": 37, "N": 32},
        covered={("triton_per_fused_add_mean_mul_pow_rsqrt_0", "rnumel"): 32},
        held_options={},
    )
    assert min(v for v in space.knob("RBLOCK").values if isinstance(v, int)) == 64
    (note,) = space.domain_notes
    assert note.startswith("RBLOCK starts at 64:") and "no guard by a size can be written for RBLOCK" in note
    rejection = space_from_tunables(discover_source(_source("vllm_rejection")), covered={}, held_options={})
    assert min(v for v in rejection.knob("MAX_NUM_TOKENS").values if isinstance(v, int)) == 32
    (note,) = rejection.domain_notes
    # a count the kernel reads from the pointer (breaker16 c4: the note named the pointer as the size covered)
    assert (
        "covers a size it reads from cu_num_tokens_ptr with one block of MAX_NUM_TOKENS (offset < num_tokens)" in note
    )


@pytest.mark.timeout(120)
def test_the_written_persistent_reduction_is_correct_at_other_rows(tmp_path: Path) -> None:
    """What ``tune`` wrote for inductor_per on the CPU (2026-12-06): ``XBLOCK=128`` (5.04x on the interpreter, rows
    of at most 32 in its SHAPES), RBLOCK left at 64: correct at 257 rows of 64, 3 of 33 and one of one."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("inductor_per", tmp_path)
    written, note = _tune_edit(folder, {"XBLOCK": 128, "RBLOCK": 64})
    assert written is not None and "XBLOCK=128" in written and "RBLOCK: tl.constexpr = 64" in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 257, "N": 64}, {"M": 3, "N": 33}, {"M": 1, "N": 1}])


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes (or wrote on the CPU, 2026-12-06) for seven of the trial's kernels, checked on the GPU
GPU_PICKS = {
    "inductor_per": {"XBLOCK": 256, "RBLOCK": 64},
    "sgl_group_quant": {"BLOCK": 512},
    "vllm_awq_dequant": {"BLOCK_SIZE_X": 16, "BLOCK_SIZE_Y": 32},
    "mamba_bmm": {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "num_warps": 4, "num_stages": 2},
    "gems_layernorm": {"TILE_N": 512, "num_warps": 8},
    "sgl_decode_grouped": {"BLOCK_N": 64, "BLOCK_H": 32},
    "fla_recurrent": {"BK": 16, "BV": 32},  # table14: BK and BV computed tiles, a table over K up to 96
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_thirteenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at their SHAPES' kind and at realistic
    sizes (256 MB to 1 GB a tensor where the kernel allows: SGLang's fp8 group quantization of a 1 GB activation
    (fp8 within one step of the format, breaker10's rule) and its grouped decode attention over a 1 GB cache, vLLM's
    AWQ dequantization to a 256 MB fp16 weight and its rejection sampler over 1 GB of logits, Mamba-2's bmm_chunk
    to a 1 GB output, Inductor's persistent RMS norm of 4 M rows of 64 (1 GB), fla's fused_recurrent of 256 MB
    inputs, FlagGems' layer norm at 512 MB - 1 GB on each of its three kernels; ``tl.dot`` of fp32 is TF32 there:
    the references' 1e-2), and the forms ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker10_cases import _fp8_within_a_step

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    written = written_files(DATA, GPU_PICKS, tmp_path)
    assert_correct(
        DATA / "sgl_group_quant", [{"T": 5, "H": 384, "G": 128}, {"T": 16384, "H": 16384, "G": 128}], _fp8_within_a_step
    )
    assert_correct(
        DATA / "sgl_group_quant",
        [{"T": 3, "H": 192, "G": 48}, {"T": 2, "H": 1024, "G": 256}, {"T": 4096, "H": 7168, "G": 128}],
        _fp8_within_a_step,
        kernel_py=written["sgl_group_quant"],
    )
    cases: list[tuple[str, Path | None, list[dict[str, int]]]] = [
        ("vllm_awq_dequant", None, [{"K": 96, "N": 72, "G": 32}, {"K": 8192, "N": 16384, "G": 128}]),
        (
            "vllm_awq_dequant",
            written["vllm_awq_dequant"],
            [{"K": 96, "N": 40, "G": 32}, {"K": 192, "N": 8, "G": 64}, {"K": 4096, "N": 4096, "G": 64}],
        ),
        (
            "mamba_bmm",
            None,
            [{"B": 3, "L": 45, "G": 1, "N": 16, "C": 16}, {"B": 8, "L": 16384, "G": 8, "N": 128, "C": 256}],
        ),
        (
            "mamba_bmm",
            written["mamba_bmm"],
            [{"B": 1, "L": 77, "G": 3, "N": 40, "C": 32}, {"B": 2, "L": 4096, "G": 4, "N": 64, "C": 256}],
        ),
        ("inductor_per", None, [{"M": 130, "N": 17}, {"M": 4194304, "N": 64}]),
        # not N = 1: Triton makes an int argument of 1 a constexpr, and the original's ``rnumel.to(tl.float32)`` fails
        # to compile there too (H100, 2026-12-06; Inductor marks such sizes do_not_specialize)
        ("inductor_per", written["inductor_per"], [{"M": 257, "N": 64}, {"M": 3, "N": 33}, {"M": 1, "N": 2}]),
        (
            "fla_recurrent",
            None,
            [{"B": 1, "T": 5, "H": 3, "K": 96, "V": 20}, {"B": 8, "T": 4096, "H": 16, "K": 128, "V": 128}],
        ),
        (  # six K blocks summed at K = 96, a V of 200 in seven blocks; K = 128 past the table, the computation
            "fla_recurrent",
            written["fla_recurrent"],
            [
                {"B": 2, "T": 64, "H": 4, "K": 40, "V": 200},
                {"B": 8, "T": 2048, "H": 16, "K": 96, "V": 128},
                {"B": 1, "T": 33, "H": 2, "K": 128, "V": 64},
            ],
        ),
        ("vllm_rejection", None, [{"B": 9, "S": 2, "V": 33}, {"B": 512, "S": 32, "V": 32000}]),
        (
            "gems_layernorm",
            None,
            [
                {"B": 1, "T": 3, "N": 4500},
                {"B": 64, "T": 16384, "N": 128},
                {"B": 16, "T": 4096, "N": 4096},
                {"B": 8, "T": 4096, "N": 8192},
            ],
        ),
        ("gems_layernorm", written["gems_layernorm"], [{"B": 1, "T": 2, "N": 5001}, {"B": 8, "T": 4096, "N": 8192}]),
        (
            "sgl_decode_grouped",
            None,
            [
                {"B": 4, "HQ": 6, "HK": 3, "D": 32, "S": 100, "P": 3},
                {"B": 64, "HQ": 32, "HK": 8, "D": 128, "S": 8192, "P": 8},
            ],
        ),
        (
            "sgl_decode_grouped",
            written["sgl_decode_grouped"],
            [  # the pick within late44's bound (head blocks up to 128), the original's blocks past it (late48, l171)
                {"B": 2, "HQ": 64, "HK": 2, "D": 96, "S": 130, "P": 3},
                {"B": 1, "HQ": 4, "HK": 4, "D": 16, "S": 1, "P": 1},
                {"B": 2, "HQ": 16, "HK": 2, "D": 192, "S": 300, "P": 4},
            ],
        ),
    ]
    for name, kernel_py, shapes in cases:
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=kernel_py)
