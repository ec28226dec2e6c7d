"""The eleventh new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker11
is a public Triton kernel written for the trial in a form the first ten trials did not try (its README lists them).
What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES`` entry and
at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the middle of NaN
(tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker11"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- knobs found


BRANCHES = """import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def run(x):
    n = x.numel()
    if n <= 32:
        BLOCK, warps = 64, 4
    else:
        BLOCK, warps = 128, 8
    y = torch.empty_like(x)
    _scale[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=warps)
    return y
"""


def test_tiles_chosen_by_branches_read_the_sizes_of_their_conditions() -> None:
    """Seen on 2026-12-06: scaled_mm, vLLM's ``triton_scaled_mm``, picks ``tile_shape = (64, 64, 256)`` under ``if
    next_power_of_2_M <= 32:`` (another tuple under each ``elif``, ``is_small_N`` refining the first), all inside
    ``if use_heuristic:``, then unpacks ``block_size_m, block_size_n, block_size_k = tile_shape``. ``tune`` exited 2,
    "no tunable knob: ... BLOCK_SIZE_M (computed ... from tile_shape, which no SHAPES entry names as a size: a table
    that falls back on the computation needs one, so it is left alone)": the tiles read ``M`` and ``N`` through the
    branches' conditions, not through an expression. A local bound only under conditions stands for what its
    conditions and values read; a setting chosen among literals by branches reads its conditions."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "scaled_mm" / "kernel.py").read_text())}
    for tile in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"):
        knob = found[f"scaled_mm_kernel:{tile}"]
        assert knob.editable and {"M", "N"} <= set(knob.size_names) and "tile_shape" not in knob.size_names, knob
    branches = {t.key: t for t in discover_source(BRANCHES)}
    assert branches["_scale:BLOCK"].size_names == ["n"] == branches["_scale:num_warps"].size_names


@pytest.mark.timeout(180)
def test_a_table_of_tiles_chosen_by_branches_is_written_and_correct_at_other_sizes(tmp_path: Path) -> None:
    """The table ``tune`` writes for scaled_mm after the rule above: ``if M <= 150:  # kernelopt: tuned`` after the
    branches, inside ``if use_heuristic:`` (the caller's own tiles, ``use_heuristic=False``, kept: breaker22's p5),
    the tiles' computation the fallback above it and the scale blocks (``block_size_sa = ... else block_size_m``)
    following the tuned tile; correct at sizes no entry names, odd ones and one above the table."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("scaled_mm", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64})
    assert written is not None, note
    assert "        if M <= 150:  # kernelopt: tuned\n            block_size_m = 32\n" in written, written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 3, "N": 33, "K": 77}, {"M": 200, "N": 130, "K": 129}])


def test_a_table_row_of_what_the_original_computed_is_not_refused_by_the_fit_estimate() -> None:
    """Seen on 2026-12-06 after the rule above: ``tune scaled_mm --device cpu`` timed 6 candidates, then exited 2
    "the new configuration cannot fit: estimated shared memory 393216 B (stages x (BM*BK + BK*BN) x 4 B) > 102400 B
    per SM" writing its per-bucket table: the row of the smallest shape, whose best was the computation itself,
    holds what vLLM computes there (64 x 64 x 256), which the portable estimate (no GPU, no dtype: 4 B an element)
    refuses though the operands are int8 (96 KiB). A row of the original's own values is no new configuration;
    the others are still held to the estimate."""
    from kernelopt.tunables import ResourceLimits, TunableFitError
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.model import Bucket, TunedTable

    source = (DATA / "scaled_mm" / "kernel.py").read_text()
    limits = ResourceLimits.portable(None)
    ran = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256}
    new = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64}
    table = TunedTable(size="M", buckets=[Bucket(upto=5, values=ran), Bucket(upto=150, values=new)])
    written = write_table(source, table, limits=limits, ran=[5], kernel="scaled_mm_kernel")
    assert "        if M <= 5:  # kernelopt: tuned\n            block_size_m = 64\n" in written.new_source
    with pytest.raises(TunableFitError, match="393216 B"):
        write_table(source, table, limits=limits, kernel="scaled_mm_kernel")
    too_big = TunedTable(size="M", buckets=[Bucket(upto=5, values=new), Bucket(upto=150, values=ran)])
    with pytest.raises(TunableFitError, match="393216 B"):
        write_table(source, too_big, limits=limits, ran=[5], kernel="scaled_mm_kernel")


# ------------------------------------------------------------------------------------- on a GPU


def _fp8_gemm_close(ran: object) -> bool | str:
    """fp8_block_gemm's output on a GPU: within 1e-3 of the output's largest magnitude. An H100's fp8 tensor cores
    accumulate a 128-wide K block in fewer than fp32's bits (why DeepSeek-V3 scales and sums each block in fp32,
    as this kernel does), so a block's partial sum is good to about 2^-13 of itself, not to the reference's fp64."""
    got, want = ran.got.float(), ran.want.float()  # type: ignore[attr-defined]
    if got.shape != want.shape:
        return f"output {tuple(got.shape)}, expected {tuple(want.shape)}"
    off, top = float((got - want).abs().max()), float(want.abs().max())
    return off <= 1e-3 * max(top, 1.0) or f"off by {off:.3g} where the output reaches {top:.3g}"


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_eleventh_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at their SHAPES' kind and at realistic
    sizes (256 MB to 1 GB a tensor where the kernel allows: vLLM's int8 scaled_mm with a 256 MB activation,
    DeepSeek-V3's fp8 block GEMM at 16384 x 16384 and its fp8 quantization of a 1 GB activation, Liger's TVD over
    4096 x 65536 probabilities and mrope of 32 heads x 8192 tokens in place, xformers' RMS norm of 1 GB, Unsloth's
    GEGLU backward of three 1 GB tensors in place, SGLang's moe_align of 64 K tokens x 8 experts), fp8 as the GPU
    rounds it (one step of tolerance, breaker10's rule), and the forms ``tune`` wrote on the CPU: scaled_mm's tile
    table over ``M`` after vLLM's branches, xformers' ``BLOCK_SIZE`` table over ``N`` after three reassignments,
    Unsloth's ``BLOCK_SIZE = 8192``, Liger's ``MAX_FUSED_SIZE = 32768``, correct at sizes no entry names."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker10_cases import _fp8_within_a_step

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    picks = {
        "scaled_mm": {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 64},
        "xformers_rms": {"BLOCK_SIZE": 2048},
        "unsloth_geglu": {"BLOCK_SIZE": 8192},
        "liger_tvd": {"MAX_FUSED_SIZE": 32768},
    }
    written = written_files(DATA, picks, tmp_path)
    mm = {"M": 16384, "N": 4096, "K": 16384}
    cases: list[tuple[str, Path | None, list[dict[str, int]]]] = [
        ("scaled_mm", None, [{"M": 333, "N": 1000, "K": 777}, mm]),
        ("scaled_mm", written["scaled_mm"], [{"M": 3, "N": 33, "K": 77}, {"M": 150, "N": 4096, "K": 16384}, mm]),
        ("liger_tvd", None, [{"BT": 9, "V": 17}, {"BT": 4096, "V": 65536}]),
        ("liger_tvd", written["liger_tvd"], [{"BT": 5, "V": 40000}, {"BT": 2048, "V": 131072}]),
        (
            "liger_mrope",
            None,
            [{"B": 1, "HQ": 7, "HK": 1, "S": 9, "D": 48}, {"B": 4, "HQ": 32, "HK": 8, "S": 8192, "D": 128}],
        ),
        ("xformers_rms", None, [{"B": 3, "T": 1, "D": 777}, {"B": 8, "T": 8192, "D": 4096}]),
        ("xformers_rms", written["xformers_rms"], [{"B": 1, "T": 3, "D": 99}, {"B": 4, "T": 4096, "D": 16384}]),
        ("unsloth_geglu", None, [{"T": 7, "H": 300}, {"T": 16384, "H": 16384}]),
        ("unsloth_geglu", written["unsloth_geglu"], [{"T": 3, "H": 3}, {"T": 8192, "H": 8193}]),
        ("moe_align", None, [{"T": 5, "TOPK": 1, "E": 3, "BM": 64}, {"T": 65536, "TOPK": 8, "E": 64, "BM": 64}]),
    ]
    for name, kernel_py, shapes in cases:
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=kernel_py)
    assert_correct(DATA / "fp8_block_gemm", [{"M": 7, "N": 384, "K": 640}, mm], _fp8_gemm_close)
    assert_correct(DATA / "fp8_act_quant", [{"T": 5, "D": 384}, {"T": 16384, "D": 16384}], _fp8_within_a_step)


# ------------------------------------------------------------------------------------- the gate's inputs


@pytest.mark.timeout(120)
def test_the_gate_s_permuted_inputs_keep_a_view_s_layout() -> None:
    """Seen on 2026-12-06: ``batch`` FAIL on liger_mrope, Liger's Qwen2-VL mrope, which takes q and k as the attention
    hands them over (transposed views of (batch, seq, heads, dim) storage) and rotates that storage in place, as its
    reference does: seed 0 passed, seeds 1+ "kernel left input 0 as it was, which the reference modifies in place".
    The gate's seeds 1+ permute seed 0's rows (``rerandomize``) into contiguous tensors, so the kernel's
    ``q.transpose(1, 2).contiguous()`` copied and the rotation never reached the input. A permuted input keeps the
    layout it was given."""
    import torch

    from kernelopt.harness.inputs import rerandomize
    from tests.conftest import load_fresh, triton_interpreted

    with triton_interpreted():
        ref = load_fresh(DATA / "liger_mrope" / "reference.py", "_b11_mrope_ref")
        ker = load_fresh(DATA / "liger_mrope" / "kernel.py", "_b11_mrope_ker")
        inputs = ref.get_inputs(B=2, HQ=4, HK=2, S=5, D=32)
        permuted = rerandomize(inputs, 1)
        assert [t.stride() for t in permuted] == [t.stride() for t in inputs]
        mine = [t.clone() for t in permuted]
        theirs = [t.clone() for t in permuted]
        ker.run(*mine)
        ref.reference(*theirs)
    for got, want, before in zip(mine[:2], theirs[:2], permuted[:2], strict=True):
        assert not torch.equal(got, before) and torch.allclose(got, want, atol=1e-5, rtol=1e-5)


# ------------------------------------------------------------------------------------- the net


@pytest.mark.timeout(300)
def test_the_net_tries_a_whole_grain_past_where_the_format_refuses_every_half_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 2026-12-06: fp8_block_gemm, DeepSeek-V3's block-scaled fp8 GEMM, with SHAPES at one quantization block
    of N and K (128: the checkpoint's format, get_inputs asserts multiples of it). Its autotune list holds
    ``BLOCK_SIZE_K = 128`` in every config (the K tile is the scale block: ``offs_n // BLOCK_SIZE_K`` indexes b's
    scales); a pick of ``BLOCK_SIZE_K = 256`` passes both entries and is wrong at N = 256 and K = 384, which the
    original handles. The net's sizes moving N and K were 129 and 192, both refused by the format, so it checked
    only M = 65 and let the pick through. Its last try is now a whole grain past (N = K = 256): the original passes
    there, the pick does not, and nothing is written."""
    from kernelopt.tunables.guard import Guarded
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(tf, "guard_edit", lambda old, new: Guarded(new_source=new, note=None))
    folder = _copy("fp8_block_gemm", tmp_path)
    ref = folder / "reference.py"
    entries = '[{"M": 5, "N": 128, "K": 128}, {"M": 33, "N": 128, "K": 128}]'
    ref.write_text(ref.read_text().replace('[{"M": 5, "N": 256, "K": 256}, {"M": 33, "N": 128, "K": 384}]', entries))
    kernel = folder / "kernel.py"  # two configs of the 36, for time: the interpreter benchmarks each at every launch
    kernel.write_text(
        kernel.read_text()
        .replace("[16, 32, 64]", "[32]")
        .replace("[3, 4, 5, 6]", "[3]")
        .replace("[32, 64, 128]", "[64, 128]")
    )
    wrong = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 256}
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    current = ({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128}, 20.0)
    with _evaluator(prepared) as evaluator:
        done = tf._checked_edit(_session(prepared, [(wrong, 10.0)], current), evaluator)
    assert done.edit is None and done.edit_note is not None, done.edit_note
    assert "the written kernel fails at M=33,N=256,K=256" in done.edit_note, done.edit_note
