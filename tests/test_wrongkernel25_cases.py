"""wrongkernel25: a written kernel less accurate than the original (docs/faults.md, "Wrong written kernels,
twenty-fifth hunt"): a pick that lengthens the chain each program sums in reduced precision passes every entry
within tolerance and is wrong at a larger size the original handles (breaker21's split-K fp8 GEMM at 8192 on an
H100; v116's fp16 partial sums in Triton's interpreter). The tuner's check compares a candidate's error at each
entry with the original's on the same inputs (:mod:`kernelopt.tuning.accuracy`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.test_wrongkernel17_cases import VARIANTS

#: v116's knobs as its launch sets them, and the sizes its check runs past the entry (one row of 1.1 M columns: a
#: lane of the plain ``SPLIT=1`` pick adds 4297 values, its sum past fp16's 2048, where the original's adds 537)
V116_CURRENT = {"BLOCK": 256, "SPLIT": 8}
V116_LARGE = {"n_rows": 1, "n_cols": 1_100_000}


def _v116_text(block: int, split: int) -> str:
    text = (VARIANTS / "sums_fp16_split" / "kernel.py").read_text()
    return text.replace("BLOCK = 256", f"BLOCK = {block}").replace("SPLIT = 8", f"SPLIT = {split}")


def _checked_across(folder: Path, now: dict[str, int], picks: list[dict[str, int]], tmp_path: Path) -> dict[str, Any]:
    """Each of ``picks`` (changes to the original's ``now``) checked at every ``SHAPES`` entry of ``folder`` in
    Triton's interpreter by a session's evaluators, after the original ran there: {config key: its result}."""
    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, knob_editor
    from kernelopt.tuning.problem import Problem
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from kernelopt.tuning.shapes import session_shapes
    from tests.conftest import load_fresh

    base = (folder / "kernel.py").read_text()
    edit = knob_editor(base)
    settings = EvaluatorSettings(
        plan=BenchPlan(warmup_calls=1, repetitions=1, retime_rounds=1, extra_rounds=0),
        bench_timeout_s=90.0,
        startup_timeout_s=120.0,
    )
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    problem = Problem.from_folder(folder, device="cpu")
    entries = session_shapes(problem, load_fresh(folder / "reference.py", f"_wk25_{folder.name}").SHAPES)
    current = Config.of(now)
    with ShapesEvaluator(
        problem, entries, base, edit, session_dir=tmp_path / folder.name, settings=settings, env=env, original=current
    ) as ev:
        ev.never_cut([current.key()])
        got = {current.key(): ev.evaluate([current])[0]}
        for c in (current.with_values(p) for p in picks):
            got[c.key()] = ev.check_source(edit(c), c)  # type: ignore[arg-type]
    return got


@pytest.mark.timeout(400)
def test_v116_a_pick_whose_partial_sums_run_longer_in_fp16_is_refused_where_its_error_grows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v116 (sums_fp16_split: row sums whose lanes add ``n_cols / (SPLIT * BLOCK)`` values each in an fp16
    accumulator, ``SPLIT = 8``, ``BLOCK = 256``; entries 8 x 5000 and 8 x 20000): the plain ``SPLIT=1`` pick passes
    both within tolerance, and at one row of 1.1 M columns its lanes stop at fp16's 2048, which the original sums
    right. The session's check refuses it: its error rises along the row many times as fast as the original's on
    the same inputs; a pick that shortens the chain (``BLOCK=4096``,
    4096 lanes) passes."""
    from kernelopt.tuning.accuracy import LESS_ACCURATE
    from kernelopt.tuning.candidate import Config, Outcome
    from tests import gpu_correct
    from tests.conftest import triton_interpreted
    from tests.test_breaker7_cases import _outputs_checked

    folder = VARIANTS / "sums_fp16_split"
    picks = [{"BLOCK": 256, "SPLIT": 1}, {"BLOCK": 4096, "SPLIT": 1}]
    got = _checked_across(folder, V116_CURRENT, picks, tmp_path)
    current = Config.of(V116_CURRENT)
    assert got[current.key()].outcome is Outcome.OK, got[current.key()]
    plain = got[current.with_values(picks[0]).key()]
    assert plain.outcome is Outcome.WRONG_RESULT and plain.error_class == LESS_ACCURATE, plain
    assert "rises along n_cols" in (plain.reason or ""), plain.reason  # faster than the original's (leftovers24)
    kept = [got[current.with_values(p).key()] for p in picks[1:]]
    assert [r.outcome for r in kept] == [Outcome.OK], kept

    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    for block, split, right in ((256, 8, True), (256, 1, False)):
        path = tmp_path / f"k_{block}_{split}.py"
        path.write_text(_v116_text(block, split))
        with triton_interpreted():
            verdict = gpu_correct.correct_on_device(folder, [V116_LARGE], _outputs_checked, kernel_py=path)
        assert (verdict["n_rows=1,n_cols=1100000"] is True) is right, (block, split, verdict)


#: breaker21's applied-ai split-K fp8 GEMM as written, the pick that halves its ``split_k`` (each program's K chain
#: 4096 at 8192, twice the original's; ``block_m`` kept, so no guard is needed), and the pick ``tune`` wrote on an H100
#: (2026-12-07, /work/tmp/lead/gpu/run3/breaker21: ``split_k=16``, a chain of 512)
SPLITK_CURRENT = {
    "block_m": 64,
    "block_n": 64,
    "block_k": 512,
    "split_k": 4,
    "group_m": 8,
    "num_stages": 3,
    "num_warps": 8,
}
SPLITK_HALVED = {"block_k": 64, "split_k": 2, "num_stages": 2}
SPLITK_TUNED = {"block_m": 16, "block_k": 64, "split_k": 16, "num_stages": 2, "num_warps": 4}
SPLITK_LARGE = {"M": 8192, "N": 8192, "K": 8192}


@pytest.mark.gpu
@pytest.mark.timeout(450)
def test_on_cuda_split_k_halved_is_refused_at_the_entries_and_what_tune_writes_is_right_at_8192(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled): breaker21's split-K fp8 GEMM, whose ``tl.dot`` sums each program's K in
    the tensor cores' reduced-precision fp8 accumulator (Triton's default on sm90). Its entries checked by the session's
    evaluators (one per ``SHAPES`` entry, the original first): ``split_k=2`` (``block_k=64``) is refused as less
    accurate than the original, and wrong at 8192 x 8192 x 8192, where the original is right; the H100's own pick
    (``split_k=16``, a shorter chain) passes. v116's fp16 partial sums alike (its ``SPLIT=1`` refused at the entry,
    wrong at one row of 1.1 M columns). Then ``kernelopt tune`` (a 60 s wall) on a copy: what it writes is right at
    8192 and at sizes no entry names."""
    import shutil

    from kernelopt.tuning.accuracy import LESS_ACCURATE
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.kernel_evaluator import knob_editor
    from kernelopt.tuning.problem import Problem
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator
    from kernelopt.tuning.shapes import session_shapes
    from tests.conftest import load_fresh
    from tests.gpu_correct import assert_correct, correct_on_device, tuned_on_device
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker21_cases import DATA, GPU_WRITTEN_SIZES

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    # (folder, the original, a longer chain, a shorter one, a size the original handles, the longer chain asserted
    # wrong there: the split-K GEMM's 31 elements past the tolerance of 67 M were seen with block_m=128, and the
    # accumulator's rounding at 8192 is a matter of a few elements, so its verdict is printed; v116's is certain)
    cases = (
        (DATA / "ai_splitk", SPLITK_CURRENT, SPLITK_HALVED, SPLITK_TUNED, SPLITK_LARGE, False),
        (VARIANTS / "sums_fp16_split", V116_CURRENT, {"SPLIT": 1}, {"BLOCK": 4096, "SPLIT": 1}, V116_LARGE, True),
    )
    for folder, now, halved, shorter, large, certain in cases:
        base = (folder / "kernel.py").read_text()
        problem = Problem.from_folder(folder, device="cuda")
        entries = load_fresh(folder / "reference.py", f"_wk25_{folder.name}").SHAPES
        current = Config.of(now)
        longer, kept = current.with_values(halved), current.with_values(shorter)
        with ShapesEvaluator(
            problem, session_shapes(problem, entries), base, knob_editor(base),
            session_dir=tmp_path / folder.name, env=env, original=current,
        ) as ev:  # fmt: skip
            ev.never_cut([current.key()])
            got = {r.key: r for r in ev.evaluate([current, longer, kept])}
            # each entry's errors, for the thresholds' record (an entry's own check does not judge across entries)
            errors = {
                label: [r.rel_err for r in one.evaluate([current, longer, kept], timed=False)]
                for label, one in zip(ev.labels, ev.evaluators, strict=True)
            }
        print(folder.name, "rel_err (original, longer, shorter) by entry:", errors)
        print(folder.name, {k: (r.outcome.value, r.reason) for k, r in got.items()})
        assert got[current.key()].outcome is Outcome.OK, got[current.key()]
        assert got[longer.key()].error_class == LESS_ACCURATE, got[longer.key()]
        assert got[kept.key()].outcome is Outcome.OK, got[kept.key()]
        for config, right in ((current, True), (longer, False)):
            path = tmp_path / f"{folder.name}_{config.key().replace(',', '_').replace('=', '')}.py"
            text = knob_editor(base)(config)
            assert isinstance(text, str), text
            path.write_text(text)
            verdict = correct_on_device(folder, [large], _outputs_checked, kernel_py=path)
            print(folder.name, config.key(), verdict)
            if right or certain:
                assert (next(iter(verdict.values())) is True) is right, (folder.name, config.key(), verdict)

    copy = Path(shutil.copytree(DATA / "ai_splitk", tmp_path / "ai_splitk_tuned"))
    tuned_on_device(copy, wall_s=60)
    print((copy / "kernel.py").read_text())
    assert_correct(copy, GPU_WRITTEN_SIZES["ai_splitk"], _outputs_checked)


def test_v117_a_padded_row_stride_taken_from_the_buffer_keeps_to_divisors_of_the_original_tile() -> None:
    """v117 (pad_rows_stride: v113's rows copied into a 2-D buffer ``torch.zeros(n_rows, n_pad)``, ``n_pad =
    triton.cdiv(n_cols, BLOCK) * BLOCK``, the kernel given ``ws.stride(0)`` and storing at ``row * stride + cols`` in
    int32; ``BLOCK = 1024``): ``kernelopt tune --device cpu`` wrote ``BLOCK = 4096`` (main 2b0c20f0), which pads every
    row to 4096 and wraps past 2**31 at 524289 rows of 1025 columns, where the original's 2048 a row index right (v113's
    GPU test). The stride of a buffer the launcher allocates is read as the product of its later dimensions: refused
    as v113's padded size is (guarded by ``n_cols % 2048 == 0``, where it pads nothing, since refusals24's u41)."""
    from kernelopt.tunables.guard import guard_edit

    base = (VARIANTS / "pad_rows_stride" / "kernel.py").read_text()
    for grown in (2048, 4096):  # refusals24 (u41): guarded where the tile divides the size, padding nothing
        guarded = guard_edit(base, base.replace("    BLOCK = 1024\n", f"    BLOCK = {grown}\n"))
        assert guarded.tests == (f"n_cols % {grown} == 0",), guarded.note
        assert (
            "passes stride, a size padded to whole tiles of BLOCK, which pad_rows multiplies in int32 (row * stride)"
            in (guarded.note or "")
        ), guarded.note
    plain = base.replace("torch.zeros(n_rows, n_pad,", "torch.zeros(n_rows, n_cols,").replace(
        "n_pad // BLOCK)", "triton.cdiv(n_cols, BLOCK))"
    )  # a buffer of the rows themselves: its stride no tile pads
    assert guard_edit(plain, plain.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n")).new_source is not None


@pytest.mark.timeout(120)
def test_v114_a_column_tile_the_kernel_computes_from_the_row_tile_is_guarded_by_its_own_divisor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v114 (tile_tied: ``BLOCK_N: tl.constexpr = BLOCK_M // 16`` in the kernel, the grid ``(M // BLOCK_M, N //
    (BLOCK_M // 16))``, no masks, ``BLOCK_M = 64``: right where 64 divides M and 4 divides N): ``BLOCK_M = 128`` was
    guarded ``if M % 128 == 0`` only, its column tile of 8 wrong at N = 68, which the original's 4 covers (the net's
    M=256,N=68 held it, near the entries). The quotient of a tile on a grid's axis is read as the tile's part: the
    guard is ``M % 128 == 0 and N % 8 == 0``, right at 256 x 68 (the original's values) and 128 x 72 (the pick's)."""
    import torch

    from kernelopt.tunables.guard import guard_edit
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    base = (VARIANTS / "tile_tied" / "kernel.py").read_text()
    written = guard_edit(base, base.replace("    BLOCK_M = 64\n", "    BLOCK_M = 128\n"))
    assert written.tests == ("M % 128 == 0 and N % 8 == 0",), written.note
    assert written.new_source is not None
    assert guard_edit(base, base.replace("    BLOCK_M = 64\n", "    BLOCK_M = 32\n")).tests == ()  # 2 divides 4
    (tmp_path / "written.py").write_text(written.new_source)
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    with triton_interpreted():
        got = gpu_correct.correct_on_device(
            VARIANTS / "tile_tied",
            [{"M": 256, "N": 68}, {"M": 128, "N": 72}],
            lambda ran: bool(torch.equal(ran.got, ran.want)),
            kernel_py=tmp_path / "written.py",
        )
    assert got == {"M=256,N=68": True, "M=128,N=72": True}, got


@pytest.mark.timeout(120)
def test_v118_a_tensor_descriptor_s_last_block_side_keeps_the_bytes_every_dtype_the_original_takes_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v118 (desc_last_side: a 2-D scale through ``tl.make_tensor_descriptor`` tiles of ``BLOCK_M = 32`` by
    ``BLOCK_N = 8``, fp32 entries, bf16 as a model calls it): ``tunables --set BLOCK_N=4`` wrote it (4 fp32 values
    hold the 16 bytes a descriptor's last side must), and under bf16, which the original scales, Triton refuses the
    descriptor ("at least 16 bytes in the last dimension, but got 4 * 2 = 8 bytes"), in the interpreter as in a GPU
    compile. A descriptor's last block side is legal from the original's value (or 16) up."""
    import torch

    from kernelopt.tunables import discover_source
    from tests import gpu_correct
    from tests.conftest import triton_interpreted

    folder = VARIANTS / "desc_last_side"
    base = (folder / "kernel.py").read_text()
    side = next(t for t in discover_source(base) if t.key == "scale_kernel:BLOCK_N")
    assert side.legality is not None and side.legality.problem(8) is None and side.legality.problem(16) is None
    assert "must be >= 8" in (side.legality.problem(4) or ""), side.legality
    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    bf16 = {"M": 33, "N": 40, "dtype": "bfloat16"}
    for value, right in ((8, True), (4, False)):
        (tmp_path / f"k{value}.py").write_text(base.replace("    BLOCK_N = 8\n", f"    BLOCK_N = {value}\n"))
        with triton_interpreted():
            got = gpu_correct.correct_on_device(
                folder, [bf16], lambda ran: bool(torch.equal(ran.got, ran.want)), kernel_py=tmp_path / f"k{value}.py"
            )
        verdict = got["M=33,N=40,dtype=bfloat16"]
        assert (verdict is True) is right and (right or "at least 16 bytes" in str(verdict)), (value, got)


def test_an_excess_over_the_original_s_error_that_does_not_grow_with_the_size_is_no_refusal() -> None:
    """The errors of breaker21's split-K GEMM in Triton's interpreter at its three entries (``||out - A B|| / ||A
    B||`` against the fp64 product, 2026-12-07 08:25 UTC): the H100's pick, ``split_k=16``, adds four times the
    original's fp16 atomics, 1.7 to 2.4 times its error at every entry, an excess flat in K (2.9e-4 at K = 512, 2.8e-4
    at 2500): not refused, where one entry alone would refuse it. An excess rising with the size (v116's shape: twice
    the original's at the small entry, five times at the large; the H100's ``split_k=2`` as estimated, 1.44 times at
    K = 2500 and less than the original's at 512) is refused, naming the largest entry it is past at; entries of one
    size say nothing of growth."""
    from kernelopt.tuning.accuracy import EntryError, across_entries, entry_values
    from kernelopt.tuning.candidate import Outcome, Result

    def entry(values: dict[str, int], err: float, original: float, worst: float = 0.2) -> EntryError:
        label = ",".join(f"{k}={v}" for k, v in values.items())
        result = Result(config={}, outcome=Outcome.OK, rel_err=err, worst_ratio=worst)
        return EntryError(label, result, original, entry_values(values))

    splitk = [
        entry({"M": 64, "N": 128, "K": 1000}, 6.70e-4, 3.11e-4),
        entry({"M": 128, "N": 64, "K": 512}, 4.99e-4, 2.06e-4),
        entry({"M": 64, "N": 64, "K": 2500}, 6.76e-4, 3.95e-4),
    ]
    assert across_entries(splitk) is None
    assert across_entries(splitk[1:2]) is not None  # one entry: the ratio alone
    growing = [entry({"n_rows": 16, "n_cols": 5000}, 2e-5, 1e-5), entry({"n_rows": 16, "n_cols": 20000}, 5e-5, 1e-5)]
    found = across_entries(growing)
    assert found is not None and found[0] == "n_rows=16,n_cols=20000", found
    assert "rises along n_cols where the original's does not" in found[1], found
    # the H100's split_k=2 as estimated from its 8192 failure (a chain's error linear in K beside the atomics' and the
    # output's rounding): 1.44 times the original's at K = 2500, less than it at 512, refused there
    h100 = [
        entry({"M": 128, "N": 64, "K": 512}, 4.8e-4, 5.7e-4),
        entry({"M": 64, "N": 128, "K": 1000}, 7.5e-4, 6.4e-4),
        entry({"M": 64, "N": 64, "K": 2500}, 1.08e-3, 7.5e-4),
    ]
    found = across_entries(h100)
    assert found is not None and found[0] == "M=64,N=64,K=2500" and "K 3.3 times as fast as" in found[1], found
    same = [entry({"n_rows": 16, "n_cols": 5000}, 3e-5, 1e-5), entry({"n_cols": 5000, "n_rows": 16}, 3e-5, 1e-5)]
    assert across_entries(same) is not None  # one size: the ratio alone
    assert across_entries([entry({"n": 100}, 3e-5, 0.0)]) is None  # an original exact there: nothing to compare
