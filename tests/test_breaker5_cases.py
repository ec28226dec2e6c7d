"""The fifth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize``, held out (issue 32:
"kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker5 is a Triton kernel
written for the trial in a form public kernel libraries use and the first four trials did not try (its README lists
them). What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES``
entry and at sizes not in ``SHAPES`` (one between, one above, one odd) that the original handled, loaded afresh in
this process with Triton's interpreter. A strict xfail is a defect found and not yet fixed."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.gpu_correct import Ran, assert_correct
from tests.test_breaker_cases import _correct_at

DATA = Path(__file__).parent / "data" / "breaker5"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_at((folder, shapes))
    assert got == {",".join(f"{k}={v}" for k, v in s.items()): True for s in shapes}, got


# ------------------------------------------------------------------------------------- a wrong kernel written

GEMV_K = "    BLOCK_K = 32\n"


@pytest.mark.timeout(120)
def test_a_block_pointer_axis_without_a_boundary_check_keeps_its_block_a_divisor(tmp_path: Path) -> None:
    """Seen on 2026-12-05: bp_gemv walks K through block pointers with ``tl.advance``; its rows are bounds-checked
    (``boundary_check=(0,)``), its K axis is not (``assert K % 32 == 0`` in run). The guard read the kernel as masked
    (it has a boundary check) and the loop (``range(0, tl.cdiv(K, BLOCK_K))``) as no step over K, so ``BLOCK_K =
    64`` went out as a literal: right at the SHAPES' K of 64 and 256, wrong at K = 96 and 32, which the original
    handled. An axis a block pointer loads or stores without a boundary check needs a block that divides it:
    ``if K % 64 == 0:  # kernelopt: tuned`` / ``BLOCK_K = 64``."""
    old = (DATA / "bp_gemv" / "kernel.py").read_text()
    guarded = guard_edit(old, old.replace(GEMV_K, "    BLOCK_K = 64\n"))
    assert guarded.new_source is not None
    assert "    BLOCK_K = 32\n    if K % 64 == 0:  # kernelopt: tuned\n        BLOCK_K = 64\n" in guarded.new_source
    assert guarded.note is not None and "K" in guarded.note
    folder = _copy("bp_gemv", tmp_path)
    (folder / "kernel.py").write_text(guarded.new_source)
    _all_correct(folder, [{"M": 40, "K": 64}, {"M": 100, "K": 256}, {"M": 70, "K": 96}, {"M": 7, "K": 32}])


@pytest.mark.timeout(60)
def test_a_block_pointer_block_set_by_a_heuristic_is_not_written_wider() -> None:
    """Beside it: bp_heur, bp_gemv with ``BLOCK_K`` from ``@triton.heuristics({"BLOCK_K": lambda args: 32})``. The
    block-pointer rule read only blocks the launch passes, so a heuristic's 64 went out unguarded (wrong at K = 96,
    as i1). A decorator's setting cannot be guarded by a size: a wider one is not written (one line), a divisor
    is."""
    old = (DATA / "bp_heur" / "kernel.py").read_text()
    wider = guard_edit(old, old.replace("lambda args: 32", "lambda args: 64"))
    assert wider.new_source is None and wider.note is not None
    assert "BLOCK_K=64 does not divide every size the original BLOCK_K=32 handled" in wider.note
    assert "without a boundary check on axis 1 (BLOCK_K over K)" in wider.note
    lower = old.replace("lambda args: 32", "lambda args: 16")
    assert guard_edit(old, lower).new_source == lower


PERSIST_TILES = "    BLOCK_M, BLOCK_N = 8, 32\n"


@pytest.mark.timeout(120)
def test_a_kernel_counting_its_own_whole_tiles_keeps_its_tiles_divisors(tmp_path: Path) -> None:
    """Seen on 2026-12-05: persist_nomask, a persistent kernel without masks that counts its own tiles
    (``num_tiles = (M // BLOCK_M) * (N // BLOCK_N)`` in the kernel; the grid ``(NUM_SMS,)`` names no size). The guard
    read divisions only in the launching function, so ``BLOCK_M, BLOCK_N = 16, 64`` went out unguarded: right at
    the SHAPES' 16 x 64 and 64 x 256, wrong at 24 x 96, which the original (8, 32) handled. A kernel without masks
    that floors a size by a block it is passed needs that block to divide the size."""
    old = (DATA / "persist_nomask" / "kernel.py").read_text()
    guarded = guard_edit(old, old.replace(PERSIST_TILES, "    BLOCK_M, BLOCK_N = 16, 64\n"))
    assert guarded.new_source is not None and guarded.note is not None
    assert f"{PERSIST_TILES}    if M % 16 == 0 and N % 64 == 0:  # kernelopt: tuned\n" in guarded.new_source
    assert "the kernel _affine_persist counts M // BLOCK_M whole tiles over loads without masks" in guarded.note
    folder = _copy("persist_nomask", tmp_path)
    (folder / "kernel.py").write_text(guarded.new_source)
    _all_correct(folder, [{"M": 16, "N": 64}, {"M": 64, "N": 256}, {"M": 24, "N": 96}])


@pytest.mark.timeout(60)
def test_a_block_pointer_axis_with_its_boundary_check_is_free() -> None:
    """Beside it: the rows of bp_gemv are bounds-checked, so ``BLOCK_M`` moves as a literal, and bp_gemm (every
    axis checked) is not guarded at all."""
    old = (DATA / "bp_gemv" / "kernel.py").read_text()
    moved = old.replace("    BLOCK_M = 16\n", "    BLOCK_M = 64\n")
    assert guard_edit(old, moved) == type(guard_edit(old, moved))(moved, None)
    gemm = (DATA / "bp_gemm" / "kernel.py").read_text()
    wide = gemm.replace("BLOCK_M=32, BLOCK_N=32, BLOCK_K=16", "BLOCK_M=128, BLOCK_N=128, BLOCK_K=64")
    assert guard_edit(gemm, wide).new_source == wide


SPLITK_WIDE = {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 2, "num_warps": 4}


@pytest.mark.timeout(120)
def test_a_pinned_autotune_list_keeps_what_the_user_s_prune_falls_back_on(tmp_path: Path) -> None:
    """Seen on 2026-12-05: splitk_strict prunes its autotune list with ``early_config_prune`` keeping the configs
    with ``BLOCK_K * SPLIT_K <= K`` (no fallback), its configs 32 and 128 wide in K. ``tune`` pinned the list to
    ``BLOCK_K=32, SPLIT_K=2`` (64 wide), right at the SHAPES' K of 96 and 200; at K = 40 and 33, which the original
    served with its 32-wide config, the prune kept nothing: "AutotunerError: No valid autotuner configs after
    pruning". Now the original configs stay after the pinned ones where a user's prune reads the list."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("splitk_strict", tmp_path)
    written, note = _tune_edit(folder, SPLITK_WIDE)
    assert written is not None and note is not None and "early_config_prune" in note
    assert 'triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 2}, num_warps=4),' in written
    assert 'triton.Config({"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 16, "SPLIT_K": 8}, num_warps=2),' in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 24, "N": 40, "K": 96}, {"M": 20, "N": 30, "K": 40}, {"M": 7, "N": 13, "K": 33}])
    loose = _copy("splitk_prune", tmp_path / "loose")  # no early_config_prune reading K: the list is pinned alone
    text = (loose / "kernel.py").read_text().replace('"early_config_prune": _prune, ', "")
    (loose / "kernel.py").write_text(text)
    alone, _ = _tune_edit(loose, SPLITK_WIDE)
    assert alone is not None and '"SPLIT_K": 8' not in alone


@pytest.mark.timeout(120)
def test_a_table_over_a_settings_dict_copies_the_dict_before_setting_its_entries(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``tune moe_table --device cpu`` (``config = _get_config(T)`` returns an entry of the
    module's ``MOE_CONFIGS`` table, nearest number of tokens; splatted ``**config``) wrote ``if T <= 12:  #
    kernelopt: tuned`` / ``config["BLOCK_M"] = 64``: the entry of the user's table set in place, so after one call
    at T = 12 every later call served by that entry, above the tuned sizes too, ran the tuned values, not the
    original computation the table falls back on. The rows now copy the dict first (``config = dict(config)``),
    which discovery reads back as the same computed settings."""
    import torch

    from kernelopt.tunables import Bucket, TunedTable, discover_source, write_table
    from tests.conftest import load_fresh, triton_interpreted

    folder = _copy("moe_table", tmp_path)
    old = (folder / "kernel.py").read_text()
    rows = [Bucket(upto=12, values={"BLOCK_M": 64, "BLOCK_N": 128}), Bucket(upto=40, values={"BLOCK_M": 32})]
    new = write_table(old, TunedTable(size="T", buckets=rows), kernel="_moe_mm").new_source
    assert '    if T <= 12:  # kernelopt: tuned\n        config = dict(config)\n        config["BLOCK_M"] = 64\n' in new
    found = {t.key: t for t in discover_source(new)}
    assert found["_moe_mm:BLOCK_M"].tuned_table is not None
    assert [b.upto for b in found["_moe_mm:BLOCK_M"].tuned_table.buckets] == [12, 40]
    (folder / "kernel.py").write_text(new)
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_b5_moe_ref")
        ker = load_fresh(folder / "kernel.py", "_b5_moe_ker")
        before = {m: dict(c) for m, c in ker.MOE_CONFIGS.items()}
        for T in (12, 30, 100):
            torch.manual_seed(0)
            inputs = ref.get_inputs(T=T, D=32, N=48)
            got = ker.run(*[t.clone() for t in inputs])
            assert torch.allclose(got, ref.reference(*inputs), atol=ref.ATOL, rtol=ref.RTOL), T
        assert before == ker.MOE_CONFIGS


@pytest.mark.timeout(30)
def test_a_chunk_the_operator_is_defined_by_is_named_as_such_when_every_move_changes_the_results() -> None:
    """Seen on 2026-12-05 and right: ``tune chunk_cumsum --device cpu`` (a chunk-gated cumulative sum whose ``BT=CHUNK``
    is the chunk its reference uses too) failed every other ``BT`` (4, 8, 32, 64: wrong_result) and exited 2, kernel.py
    unchanged; but its one line guessed "a block that must cover the row?". It now names the other reason too."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.session import SessionResult, StopReason, changing_results_line

    ok = Result(config={"BT": 16}, outcome=Outcome.OK, latency_us=10.0)
    wrong = [Result(config={"BT": b}, outcome=Outcome.WRONG_RESULT, latency_us=None) for b in (4, 32)]
    result = SessionResult(
        best_config={"BT": 16}, best_latency_us=10.0, current_config={"BT": 16}, current_latency_us=10.0,
        results=[ok, *wrong], retimed=[], evaluations=3, served=0, budget=3, space_size=5, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    line = changing_results_line(result)
    assert line is not None and "(BT = 4, 32: all wrong_result)" in line
    assert "or a chunk the operator is defined by, as its reference's own?" in line


@pytest.mark.timeout(60)
def test_a_program_count_from_the_device_is_no_size_in_tunables_and_tune(capsys: pytest.CaptureFixture[str]) -> None:
    """Seen on 2026-12-05: persist_gemm's ``NUM_SMS = _sm_count(a.device)``. ``tunables`` said "it is tuned where it
    is computed (kernel.py:49): one value for every size, or a table by size, by a that falls back on the
    computation" (``a`` a tensor read for its device), and ``tune`` said "not tuned: ... from a, which no SHAPES
    entry names as a size". A name read only for its device or dtype is no size: both now say it reads none."""
    from kernelopt.cli.app import main
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "persist_gemm" / "kernel.py").read_text())}
    assert found["_mm_persistent:NUM_SMS"].size_names == []
    assert found["_mm_persistent:BLOCK_M"].value == 32  # the tiles beside it are untouched
    assert main(["tunables", str(DATA / "persist_gemm")]) == 0
    captured = capsys.readouterr()
    out = " ".join((captured.out + captured.err).split())  # the console folds long lines
    assert "_mm_persistent:NUM_SMS is computed (NUM_SMS = _sm_count(a.device)) from no size of the problem" in out
    assert "by a that falls back" not in out


# ----------------------------------------------------------------------------------- a correct kernel refused


def _check_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: Path, reference: Path, device: str = "cpu"
) -> Any:
    """The gate's correctness check of ``kernel`` (validate's and optimize's V0), run in this process."""
    from kernelopt.harness.model import JobMode, KernelSource, WorkerJob
    from kernelopt.harness.progress import ProgressWriter
    from kernelopt.harness.worker import run_job

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    tmp_path.mkdir(parents=True, exist_ok=True)
    spec = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(reference),
        kernels=[KernelSource(label="t", kernel_py=str(kernel), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        device=device,
    )
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        return run_job(spec, writer)
    finally:
        writer.close()


@pytest.mark.timeout(30)
def test_an_autotuner_on_the_cpu_times_each_config_with_one_call() -> None:
    """Seen on 2026-12-05: ``validate splitk_prune --device cpu`` (an autotune list, ``top_k=2``) said V0
    "TIMEOUT_FAIL: timing of case 1 (M=64,N=48,K=200) [v0] ran past the per-case limit of 30 s ... the kernel hangs
    or is far too slow": the autotuner's first call benchmarked each kept config with 4 calls in the interpreter
    (17-25 s on the loaded machine), then ran at 0.8 s a call. On the CPU its benchmark is one call a config (the
    interpreter compiles nothing and times nothing a GPU would): the first call took 5 s, and V0 passes."""
    from kernelopt.tunables.autotune_worker import cpu_bench

    calls: list[int] = []
    got = cpu_bench(lambda: calls.append(1), quantiles=[0.5, 0.2, 0.8])
    assert len(calls) == 1 and len(got) == 3 and got[0] == got[1] == got[2] >= 0.0


@pytest.mark.timeout(60)
def test_an_in_place_op_whose_reference_is_in_place_too_passes_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 2026-12-05: rope_inplace rotates q in place and returns it, as Liger-Kernel and unsloth write RoPE;
    its reference does the same (``q.copy_(...)``, the op's contract). ``validate`` said V0 "FAIL: ... kernel
    modified input 0 in place; inputs must be left untouched" and ``tune`` failed every candidate the same way:
    the reference modifies that input too, so the kernel is right to. An input the reference modifies may be
    modified by the kernel, to what the reference leaves in it, and must be (harnessleft6); one it leaves alone
    may not."""
    folder = DATA / "inplace_torch"
    ok = _check_in_process(tmp_path / "ok", monkeypatch, folder / "kernel.py", folder / "reference.py")
    assert ok.failure is None, ok.failure
    # a kernel returning the right values but leaving q as it was breaks the op's contract: the caller sees q
    # after the call (harnessleft6; before, it passed: only a reference returning nothing had its inputs checked)
    pure = _check_in_process(tmp_path / "pure", monkeypatch, folder / "kernel_pure.py", folder / "reference.py")
    assert pure.failure is not None and pure.failure.error_class == "InputNotWritten"
    assert "kernel left input 0 as it was, which the reference modifies in place besides" in pure.failure.message
    wrong = _check_in_process(tmp_path / "wrong", monkeypatch, folder / "kernel_wrong.py", folder / "reference.py")
    assert wrong.failure is not None and wrong.failure.error_class == "InputMutated"
    assert "the reference leaves" in wrong.failure.message


@pytest.mark.timeout(60)
def test_an_in_place_op_that_returns_nothing_is_checked_by_its_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 2026-12-05 after i2's fix: a reference that works in place and returns nothing (``x.mul_(2).add_(1)``,
    as an optimizer step or a KV-cache update) with a kernel doing the same: the gate's worker died, "RuntimeError:
    Could not infer dtype of NoneType" from the output comparison of two ``None``. The inputs it modifies are then
    the result: compared with what the reference leaves in them, and a kernel leaving them as they were (the work
    skipped) fails, naming the input; the tuning check says the same."""
    from kernelopt.tuning.checks import LoadedProblem, check_run, load_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    folder = DATA / "inplace_torch"
    ref = folder / "reference_none.py"
    ok = _check_in_process(tmp_path / "ok", monkeypatch, folder / "kernel_none.py", ref)
    assert ok.failure is None, ok.failure
    skip = _check_in_process(tmp_path / "skip", monkeypatch, folder / "kernel_skip.py", ref)
    assert skip.failure is not None and skip.failure.error_class == "InputNotWritten"
    assert "kernel left input 0 as it was, which the reference modifies in place" in skip.failure.message
    wrong = _check_in_process(tmp_path / "wrong", monkeypatch, folder / "kernel_wrong.py", ref)
    assert wrong.failure is not None and wrong.failure.error_class == "InputMutated"
    loaded = LoadedProblem.load(Problem(kernel_py=folder / "kernel_none.py", reference_py=ref), "cpu")
    loaded.build(ProblemShape(kwargs={"n": 64}))
    for name, ok_ in (("kernel_none.py", True), ("kernel_skip.py", False), ("kernel_wrong.py", False)):
        candidate, verdict = load_candidate(loaded, folder / name)
        assert candidate is not None
        verdict = check_run(loaded, candidate, verdict)
        assert (verdict.reason is None) is ok_, (name, verdict.reason)


@pytest.mark.timeout(60)
def test_the_tuning_check_lets_an_in_place_op_modify_what_its_reference_modifies() -> None:
    """The same rule in the tuning engine's check (``tune``'s candidates): the in-place kernel is OK, one that
    zeroes the input the reference rotates is a wrong result naming it."""
    from kernelopt.tuning.checks import LoadedProblem, check_run, load_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    folder = DATA / "inplace_torch"
    problem = Problem(kernel_py=folder / "kernel.py", reference_py=folder / "reference.py")
    loaded = LoadedProblem.load(problem, "cpu")
    loaded.build(ProblemShape(kwargs={"n": 64}))
    for name, ok in (("kernel.py", True), ("kernel_pure.py", False), ("kernel_wrong.py", False)):
        candidate, verdict = load_candidate(loaded, folder / name)
        assert candidate is not None
        verdict = check_run(loaded, candidate, verdict)
        assert (verdict.reason is None) is ok, (name, verdict.reason)


# ----------------------------------------------------------------------------------------- on a real GPU


def _close_tf32(ran: Ran) -> bool:
    """The output within ``max(ATOL, 2e-2)``: fp32 ``tl.dot`` runs in TF32 on the GPU; a wrong tile is off by O(1)."""
    import torch

    tol = max(ran.ref.ATOL, 2e-2)
    return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=tol, rtol=tol))


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_fifth_trial_s_written_kernels_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the forms the fixes write are correct at the SHAPES and
    at sizes between, above and odd that the originals handled: bp_gemv guarded (i1), persist_nomask guarded (i7),
    splitk_strict's list with the original configs after the tuned one (i4: the autotuner benchmarks on the GPU and
    its prune keeps a config at K = 40), moe_table's table copying the dict (i5); and the gate passes RoPE in place
    (i2) on the GPU."""
    from tests.test_breaker_cases import _tune_edit

    gemv = _copy("bp_gemv", tmp_path)
    old = (gemv / "kernel.py").read_text()
    written = guard_edit(old, old.replace(GEMV_K, "    BLOCK_K = 64\n")).new_source
    assert written is not None
    (gemv / "kernel.py").write_text(written)
    persist = _copy("persist_nomask", tmp_path)
    old = (persist / "kernel.py").read_text()
    written = guard_edit(old, old.replace(PERSIST_TILES, "    BLOCK_M, BLOCK_N = 16, 64\n")).new_source
    assert written is not None
    (persist / "kernel.py").write_text(written)
    split = _copy("splitk_strict", tmp_path)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernels are loaded
    pinned, _ = _tune_edit(split, SPLITK_WIDE)
    assert pinned is not None
    (split / "kernel.py").write_text(pinned)
    cases = {
        gemv: [{"M": 40, "K": 64}, {"M": 100, "K": 256}, {"M": 70, "K": 96}, {"M": 4000, "K": 4096}, {"M": 7, "K": 32}],
        persist: [{"M": 16, "N": 64}, {"M": 64, "N": 256}, {"M": 24, "N": 96}, {"M": 1024, "N": 4096}],
        split: [{"M": 24, "N": 40, "K": 96}, {"M": 20, "N": 30, "K": 40}, {"M": 7, "N": 13, "K": 33}],
        DATA / "moe_table": [{"T": 12, "D": 32, "N": 48}, {"T": 40, "D": 64, "N": 96}, {"T": 300, "D": 256, "N": 512}],
    }
    for folder, shapes in cases.items():
        assert_correct(folder, shapes, _close_tf32)
    rope = DATA / "rope_inplace"
    res = _check_in_process(tmp_path / "rope", monkeypatch, rope / "kernel.py", rope / "reference.py", device="cuda")
    assert res.failure is None, res.failure
