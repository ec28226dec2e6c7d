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
    """What ``tune`` may still write for vllm_awq_dequant (the column tile), correct at groups of 32, 64 and 128 and
    at the whole K, odd column counts included."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("vllm_awq_dequant", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE_X": 16, "BLOCK_SIZE_Y": 32})
    assert written is not None and "block_size_x: int = 16," in written, note
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"K": 96, "N": 40, "G": 32}, {"K": 192, "N": 8, "G": 64}, {"K": 64, "N": 24, "G": 64}])


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
    at its value, said in one line."""
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
    rejection = space_from_tunables(
        discover_source(_source("vllm_rejection")),
        covered={("expand_kernel", "cu_num_tokens_ptr"): 12},
        held_options={},
    )
    assert min(v for v in rejection.knob("MAX_NUM_TOKENS").values if isinstance(v, int)) == 32


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
