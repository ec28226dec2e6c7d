"""The third new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` (issue 32: "kernels, shapes and
clients we have never seen are the test"). Each folder of tests/data/breaker3 is a Triton kernel written for the
trial the way public projects write theirs (its README lists the patterns). What tuning writes is judged as a user
would: the written kernel against the reference at every ``SHAPES`` entry and at sizes not in ``SHAPES`` (one
between, one above) that the original handled. A strict xfail is a defect found and not yet fixed."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from kernelopt.tunables.guard import guard_edit
from tests.test_breaker_cases import _correct_at

DATA = Path(__file__).parent / "data" / "breaker3"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------- a correct kernel refused or crashed


@pytest.mark.timeout(120)
def test_a_backward_kernel_tested_through_autograd_is_checked_by_tune(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on 2026-12-05: ctx_softmax's ``run`` takes the gradient of a Triton softmax through
    ``torch.autograd.grad`` (its backward launched from an ``autograd.Function`` with ``ctx.BLOCK_SIZE``), and so
    does its reference, as kernel libraries test a backward. ``kernelopt tune --device cpu`` stopped with "error:
    the SHAPES entry rows=3,cols=20: reference.py: RuntimeError: element 0 of tensors does not require grad": the
    bench worker ran the reference and every candidate under ``torch.no_grad()``. The function form now runs with
    autograd on (its inputs require no grad, so nothing is held); the KernelBench form keeps ``no_grad``."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import LoadedProblem, run_candidate
    from kernelopt.tuning.problem import Problem, ProblemShape

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = DATA / "ctx_softmax"
    problem = Problem(reference_py=folder / "reference.py", kernel_py=folder / "kernel.py", device="cpu")
    loaded = LoadedProblem.load(problem, "cpu")
    for shape in loaded.shapes:
        loaded.build(ProblemShape(kwargs=shape))
        candidate, verdict = run_candidate(loaded, folder / "kernel.py")
        assert verdict.outcome is Outcome.OK, verdict.reason
        assert candidate is not None
        candidate.release()


@pytest.mark.timeout(120)
def test_a_backward_kernel_tested_through_autograd_passes_validate_s_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same kernel in ``kernelopt validate --device cpu``: V0 was "FAIL: correctness: case 0 (rows=3,cols=20):
    the reference raised RuntimeError: element 0 of tensors does not require grad" (the gate's worker ran the whole
    job under ``torch.no_grad()``). Now its check passes on both entries and every seed."""
    from kernelopt.harness.model import JobMode, KernelSource, WorkerJob
    from kernelopt.harness.progress import ProgressWriter
    from kernelopt.harness.worker import run_job

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path / "ext"))
    folder = DATA / "ctx_softmax"
    job = WorkerJob(
        mode=JobMode.CHECK,
        reference_py=str(folder / "reference.py"),
        kernels=[KernelSource(label="v0", kernel_py=str(folder / "kernel.py"), build_dir=str(tmp_path / "build"))],
        progress_path=str(tmp_path / "progress.jsonl"),
        result_path=str(tmp_path / "result.json"),
        device="cpu",
    )
    writer = ProgressWriter(tmp_path / "progress.jsonl", time.monotonic)
    try:
        result = run_job(job, writer)
    finally:
        writer.close()
    assert result.failure is None, result.failure.message if result.failure else ""


def test_the_kernelbench_form_still_runs_without_gradients() -> None:
    """The other side of the rule: a KernelBench ``Model`` (parameters that require grad) is checked and timed under
    ``no_grad``, as KernelBench's own evaluation runs it; the function form with autograd on."""
    from kernelopt.kernelsource import KernelForm

    assert KernelForm.FUNCTION.takes_gradients and not KernelForm.KERNELBENCH.takes_gradients


# ------------------------------------------------------------------------------------- a wrong kernel written

CAPPED = "        MAX_FUSED_SIZE = 65536 // x.element_size()\n        BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(n_cols))\n"  # fmt: skip


@pytest.mark.timeout(120)
def test_a_table_buckets_on_the_row_length_not_on_a_cap_from_the_element_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found on 2026-12-05 from lse_fused's table (``MAX_FUSED_SIZE = 65536 // x.element_size()``, ``BLOCK_SIZE =
    min(MAX_FUSED_SIZE, triton.next_power_of_2(n_cols))``): the engine's table bucketed on the first name the
    computation reads, the cap, ``if MAX_FUSED_SIZE <= 16384:  # kernelopt: tuned`` / ``BLOCK_SIZE = 64``: 16384
    for every float32 row, so the pick held at every row length. Looped, lse_fused stays correct; ctx_softmax's
    one-block forward capped the same way (SHAPES 20 and 100 columns, a pick of 128) was wrong at 300 columns
    (maximum error 5e36). The table now buckets on the size that tells the SHAPES entries apart (``n_cols``)."""
    from tests.test_breaker_cases import _edit_for

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _copy("ctx_softmax", tmp_path)
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("        BLOCK_SIZE = triton.next_power_of_2(n_cols)\n", CAPPED))
    written = _edit_for(folder, {"BLOCK_SIZE": 128})
    assert CAPPED + "        if n_cols <= 100:  # kernelopt: tuned\n            BLOCK_SIZE = 128\n" in written
    kernel.write_text(written)
    shapes = [{"rows": 3, "cols": 20}, {"rows": 2, "cols": 100}, {"rows": 2, "cols": 50}, {"rows": 2, "cols": 300}]
    assert _correct_at((folder, shapes)) == {f"rows={s['rows']},cols={s['cols']}": True for s in shapes}


LITERAL = "        BLOCK_SIZE = 2048\n"
COMPUTED_BLOCK = "        BLOCK_SIZE = triton.next_power_of_2(n_cols)\n"


@pytest.mark.timeout(120)
def test_a_one_block_kernel_s_literal_block_lowered_is_guarded_by_the_size_it_covers(tmp_path: Path) -> None:
    """Found on 2026-12-05 beside ctx_softmax: a one-block row softmax with a literal block (``BLOCK_SIZE=2048``
    at the launch, ``assert n_cols <= 2048``; SHAPES 100 and 300 columns). ``kernelopt tune --device cpu`` wrote
    ``BLOCK_SIZE=512``, "1.09x faster", wrong at 1000 and 2000 columns (the mask left columns 512.. unwritten):
    the guard read only tiles that must divide a size, never a block that must cover one. Now the kernel's
    ``cols = tl.arange(0, BLOCK_SIZE)`` / ``cols < n_cols`` with no loop says the block covers ``n_cols``, and a
    lower block is written under ``if n_cols <= 512:  # kernelopt: tuned``: here ctx_softmax with its forward's
    block a literal, correct at 20, 100, 300 and 2000 columns (the backward reads it through ``ctx``)."""
    folder = _copy("ctx_softmax", tmp_path)
    old = (folder / "kernel.py").read_text().replace(COMPUTED_BLOCK, LITERAL)
    guarded = guard_edit(old, old.replace(LITERAL, "        BLOCK_SIZE = 512\n"))
    assert guarded.new_source is not None
    assert (
        LITERAL + "        if n_cols <= 512:  # kernelopt: tuned\n            BLOCK_SIZE = 512\n" in guarded.new_source
    )
    assert guarded.note is not None and "covers n_cols with one block of BLOCK_SIZE" in guarded.note
    (folder / "kernel.py").write_text(guarded.new_source)
    shapes = [{"rows": 3, "cols": 20}, {"rows": 2, "cols": 300}, {"rows": 2, "cols": 2000}]
    assert _correct_at((folder, shapes)) == {f"rows={s['rows']},cols={s['cols']}": True for s in shapes}
    assert guard_edit(old, old.replace(LITERAL, "        BLOCK_SIZE = 4096\n")).note is None  # wider: legal


def test_a_one_block_kernel_s_block_passed_positionally_is_not_written_lower() -> None:
    """The same block passed positionally (``_softmax_fwd[(n_rows,)](x, y, x.stride(0), n_cols, 2048, ...)``):
    no guard is written for a positional literal, so a lower one is not written, with one line."""
    text = DATA.joinpath("ctx_softmax", "kernel.py").read_text()
    old = text.replace("n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)", "n_cols, 2048, num_warps=num_warps)")
    assert old != text
    lower = guard_edit(old, old.replace("n_cols, 2048,", "n_cols, 512,"))
    assert lower.new_source is None
    assert lower.note is not None and "a block passed positionally is not guarded: not written" in lower.note


@pytest.mark.parametrize(
    "entry",
    ['torch.float32: {"BLOCK_SIZE": 2048, "num_warps": 4}', "torch.float32: dict(BLOCK_SIZE=2048, num_warps=4)"],
)
def test_a_one_block_kernel_s_block_in_a_dict_of_settings_is_not_written_lower(entry: str) -> None:
    """Beside case 34: the block of that one-block softmax set per dtype in a dict of settings splatted at the
    launch (``**configs[x.dtype]``): a lower entry was written unguarded (the guard read no dict entry, and no
    keyword of a call on an assigned line), wrong above it. An entry cannot be guarded by a size: not written, one
    line; a higher one is written."""
    text = DATA.joinpath("ctx_softmax", "kernel.py").read_text()
    launch = "n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)"
    old = text.replace(launch, "n_cols, **configs[x.dtype])").replace(
        "\n\n@triton.jit\ndef _softmax_fwd", f"\n\nconfigs = {{{entry}}}\n\n\n@triton.jit\ndef _softmax_fwd", 1
    )
    assert "**configs[x.dtype]" in old and "configs = {" in old
    lower = guard_edit(old, old.replace("2048", "512"))
    assert lower.new_source is None
    assert lower.note is not None and "an entry of a dict of settings is not guarded by a size" in lower.note
    higher = old.replace("2048", "4096")
    assert guard_edit(old, higher).new_source == higher


# ------------------------------------------------------------------------------------ the current not timed


def test_the_current_configuration_of_a_name_two_launches_share_is_the_file_itself() -> None:
    """Seen on 2026-12-05: ``kernelopt tune splitk_gemv --device cpu`` (two launches, ``_partial_rows`` with
    ``BLOCK_N = 32`` and ``_sum_slices`` with ``BLOCK_N=64``) recorded the current configuration as "invalid:
    _partial_rows:BLOCK_N is already 32: the change does nothing", then said "the current BLOCK_N=32 did not run"
    and wrote ``BLOCK_N = 128`` with no baseline timed beside it. The name's values differ between the launches,
    so the current was read as a change; the knob's own key says it is not."""
    from kernelopt.tuning.kernel_evaluator import knob_editor
    from kernelopt.tuning.launch import space_from_tunables

    source = DATA.joinpath("splitk_gemv", "kernel.py").read_text()
    space = space_from_tunables(discover_source(source), kernel="_partial_rows")
    apply = knob_editor(source, kernel="_partial_rows", origins=space.origins)
    assert apply({"BLOCK_N": 32, "SPLIT_K": 64}) == source
    moved = apply({"BLOCK_N": 64, "SPLIT_K": 64})
    assert isinstance(moved, str) and "    BLOCK_N = 64\n" in moved and "BLOCK_S=BLOCK_S, BLOCK_N=64)" in moved


@pytest.mark.timeout(120)
def test_a_table_of_the_computation_s_own_values_claims_no_gain(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on 2026-12-05: ``kernelopt tune lse_fused --device cpu`` (``BLOCK_SIZE = min(MAX_FUSED_SIZE,
    triton.next_power_of_2(n_cols))``; SHAPES 40 and 300 columns) first said "the per-bucket table is 56.5 % slower
    than the current configuration on rows=2,cols=300"; resumed from its record it wrote ``if n_cols <= 40:
    BLOCK_SIZE = 64`` / ``elif n_cols <= 300: BLOCK_SIZE = 512``, the values the computation gives at both entries
    (64 and 512), judged "better" on two timings of the same kernel, and less general between them (512 at 50
    columns). A shape whose row gives the computation's own value now takes the current's timing; a table that
    does so at every shape gains nothing and is not written."""
    from kernelopt.tuning.candidate import COMPUTED, Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, judge_choice, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import choose, per_shape

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = prepare_folder(TuneRequest(folder=DATA / "lse_fused", device="cpu"))
    small, large = (s.label() for s in prepared.shapes)

    def timed(value: object, a: float, b: float) -> Result:
        by_shape = {small: a, large: b}
        return Result(config={"BLOCK_SIZE": value}, outcome=Outcome.OK, latency_us=a + b, latency_us_by_shape=by_shape)

    now, lit64, lit512 = timed(COMPUTED, 36.4, 36.9), timed(64, 25.0, 50.0), timed(512, 40.0, 29.0)
    results = [now, lit64, lit512]
    result = SessionResult(
        best_config={"BLOCK_SIZE": 512}, best_latency_us=69.0, current_config={"BLOCK_SIZE": COMPUTED},
        current_latency_us=73.3, results=results, retimed=[], evaluations=3, served=0, budget=3, space_size=7,
        wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, [], result.best_config, result.current_config)
    tuning = FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))
    judged = judge_choice(tuning).judgement
    assert not judged.better and "the values the computation gives there: the same kernel" in judged.reason


@pytest.mark.timeout(120)
def test_a_keyed_autotune_list_gets_each_shape_s_own_best_not_one_pin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on 2026-12-05: ``kernelopt tune at_atomic --device cpu`` (six configs from a comprehension,
    ``key=["n"]``; SHAPES n of 100 and 3000) said "a per-bucket table: the best configuration for all shapes is
    44.8 % slower than n=100's own best" and then "one configuration written: a per-bucket table needs a setting
    computed from the size": the list became ``[triton.Config({"BLOCK": 4096}, num_warps=2)]``, no longer picked
    per ``n``. An autotune list keyed on the problem is the table Triton users keep: it is now pinned to each
    shape's own best, the autotuner picking one per ``n`` (``tune`` wrote ``BLOCK`` 256 and 4096, correct at 1000
    and 9000)."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder, shaped_edit
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import choose, per_shape

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = prepare_folder(TuneRequest(folder=DATA / "at_atomic", device="cpu"))
    small, large = (s.label() for s in prepared.shapes)

    def timed(block: int, a: float, b: float) -> Result:
        config = {"BLOCK": block, "num_warps": 4}
        return Result(config=config, outcome=Outcome.OK, latency_us=a + b, latency_us_by_shape={small: a, large: b})

    results = [timed(1024, 30.0, 40.0), timed(128, 10.0, 60.0), timed(4096, 20.0, 20.0)]
    result = SessionResult(
        best_config={"BLOCK": 4096, "num_warps": 4}, best_latency_us=40.0, current_config=None,
        current_latency_us=None, results=results, retimed=[], evaluations=3, served=0, budget=3, space_size=12,
        wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, [], result.best_config)
    tuning = FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))
    edit, note = shaped_edit(tuning)
    assert edit is not None and note is not None and "one picked per key (n) at run time" in note
    # the list is pruned by the user's early_config_prune: the original configs stay after the pinned ones
    # (breaker5 i4: a prune without a fallback kept none of the pinned configs at a size SHAPES does not name)
    listed = (
        '    configs=[\n        triton.Config({"BLOCK": 128}, num_warps=4),\n        triton.Config({"BLOCK": 4096}, '
        'num_warps=4),\n        *[triton.Config({"BLOCK": b}, num_warps=w) for b in (128, 256, 1024) for w in (2, 4)],\n'
        "    ],\n"
    )
    assert listed in edit.new_source and 'key=["n"],' in edit.new_source


def test_a_launch_whose_knobs_are_all_held_is_named_with_why() -> None:
    """Seen on 2026-12-05: ``kernelopt tune ctx_softmax --kernel _softmax_bwd`` (the backward launched with
    ``BLOCK_SIZE=ctx.BLOCK_SIZE``, which ``tunables`` lists) said "no launch named '_softmax_bwd'": the launch is
    there, its one knob refused. Now the refusal is the line."""
    from kernelopt.errors import UsageError
    from kernelopt.tuning.launch import space_from_tunables

    found = [
        t.model_copy(update={"refused_reason": "computed (ctx.BLOCK_SIZE) from ctx, which no SHAPES entry names"})
        if t.kernel == "_softmax_bwd"
        else t
        for t in discover_source(DATA.joinpath("ctx_softmax", "kernel.py").read_text())
    ]
    with pytest.raises(UsageError, match=r"launch _softmax_bwd has no knob tune can move: .*_softmax_bwd:BLOCK_SIZE"):
        space_from_tunables(found, kernel="_softmax_bwd")
    with pytest.raises(UsageError, match="no launch named 'nope'"):
        space_from_tunables(found, kernel="nope")


# ---------------------------------------------------------------------------- a claim the file does not hold


@pytest.mark.timeout(120)
def test_an_even_k_flag_is_not_read_as_a_tile_that_must_divide(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``kernelopt tune evenk_nospec --device cpu`` (a masked GEMV passed
    ``EVEN_K=K % BLOCK_K == 0``; SHAPES K of 64 and 100) said "best BLOCK_K=128, BLOCK_M=128: 3.57x faster ...
    written to kernel.py", but wrote ``if K % 128 == 0:  # kernelopt: tuned`` / ``BLOCK_K = 128``: at neither
    entry does the written kernel run the configuration timed. The ``%`` of a flag the kernel branches on says
    nothing a tile must divide: BLOCK_K=128 is written plainly, correct at K = 100 and 300 (passed inline
    or through a name); an ``assert K % BLOCK_K == 0`` is still a requirement."""
    old = DATA.joinpath("evenk_nospec", "kernel.py").read_text()
    new = old.replace("BLOCK_K = 32", "BLOCK_K = 128").replace("BLOCK_M = 32", "BLOCK_M = 128")
    assert guard_edit(old, new).new_source == new
    folder = _copy("evenk_nospec", tmp_path)
    (folder / "kernel.py").write_text(new)
    shapes = [{"M": 9, "K": 100}, {"M": 130, "K": 300}]
    assert _correct_at((folder, shapes)) == {f"M={s['M']},K={s['K']}": True for s in shapes}
    named = old.replace("EVEN_K=K % BLOCK_K == 0", "EVEN_K=even").replace("    out_dtype", "    even = K % BLOCK_K == 0\n    out_dtype")  # fmt: skip
    assert guard_edit(named, named.replace("BLOCK_K = 32", "BLOCK_K = 128")).note is None
    asserted = old.replace("    out_dtype", "    assert K % BLOCK_K == 0\n    out_dtype")
    guarded = guard_edit(asserted, asserted.replace("BLOCK_K = 32", "BLOCK_K = 128"))
    assert guarded.new_source is not None and "    if K % 128 == 0:  # kernelopt: tuned\n" in guarded.new_source


# ------------------------------------------------------------------------------------------- silent misses


@pytest.mark.timeout(120)
def test_a_launch_through_functools_partial_is_read_and_tuned(tmp_path: Path) -> None:
    """Seen on 2026-12-05: partial_act takes its kernel from a dict by name and launches it through
    ``functools.partial(kernel[(triton.cdiv(n, 512),)], BLOCK=512, num_warps=4)``: ``kernelopt tunables`` printed
    "no tunable found" and ``tune`` "no tunable knob: discovery lists nothing": neither the two settings nor a word
    about the launch it could not read. Now the partial is read as the launch it binds: BLOCK and num_warps are
    listed, and an edit moves the block with the grid's copy of it (``tune --device cpu`` wrote ``BLOCK=4096``,
    correct at 1000 and 9000 elements)."""
    from kernelopt.tunables import apply_source

    old = DATA.joinpath("partial_act", "kernel.py").read_text()
    found = {t.key: t for t in discover_source(old)}
    assert found["kernel:BLOCK"].value == 512 and found["kernel:num_warps"].value == 4
    written = apply_source(old, {"BLOCK": 4096}, kernel="kernel").new_source
    assert "functools.partial(kernel[(triton.cdiv(n, 4096),)], BLOCK=4096, num_warps=4)" in written
    assert guard_edit(old, written).new_source == written  # masked: legal at every size
    folder = _copy("partial_act", tmp_path)
    (folder / "kernel.py").write_text(written)
    shapes = [{"n": 200}, {"n": 1000}, {"n": 9000}]
    assert _correct_at((folder, shapes)) == {f"n={s['n']}": True for s in shapes}


@pytest.mark.timeout(120)
def test_a_partial_launch_of_a_kernel_without_masks_keeps_its_grid_divisor(tmp_path: Path) -> None:
    """Beside it: the same partial launch of a kernel without masks (``_silu[(triton.cdiv(n, 512),)]``): read as a
    launch, its block moved to 1024 was written unguarded (the guard saw only ``kernel[grid](...)`` calls, and no
    keyword of a call on an assigned line), wrong at 1536 elements. Now it is guarded like a direct launch:
    ``BLOCK = 512`` / ``if n % 1024 == 0:  # kernelopt: tuned`` / ``BLOCK = 1024``, the partial passing ``BLOCK``,
    correct at 1024, 1536 and 3072 elements."""
    old = DATA.joinpath("partial_act", "kernel.py").read_text()
    masked = "    mask = offs < n\n    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)\n    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=mask)"  # fmt: skip
    bare = "    x = tl.load(x_ptr + offs).to(tl.float32)\n    tl.store(y_ptr + offs, x * tl.sigmoid(x))"
    unmasked = old.replace(masked, bare).replace("    kernel = _ACTIVATIONS[name]\n", "").replace("kernel[(", "_silu[(")
    assert bare in unmasked and "_silu[(triton.cdiv(n, 512),)]" in unmasked
    guarded = guard_edit(unmasked, unmasked.replace("512", "1024")).new_source
    assert guarded is not None
    assert (
        "    BLOCK = 512\n    if n % 1024 == 0:  # kernelopt: tuned\n        BLOCK = 1024\n"
        "    launch = functools.partial(_silu[(triton.cdiv(n, BLOCK),)], BLOCK=BLOCK, num_warps=4)\n"
    ) in guarded
    folder = _copy("partial_act", tmp_path)
    (folder / "kernel.py").write_text(guarded)
    shapes = [{"n": 1024}, {"n": 1536}, {"n": 3072}]
    assert _correct_at((folder, shapes)) == {f"n={s['n']}": True for s in shapes}


def test_tiles_chosen_by_dtype_in_a_conditional_expression_are_offered() -> None:
    """Seen on 2026-12-05: dtype_tiles writes ``BLOCK_M, BLOCK_N = (64, 64) if x.dtype == torch.float16 else (32,
    32)``, the way kernels pick tiles per dtype. ``tune`` exited 2: "computed ... from x, which no SHAPES entry names
    as a size: a table that falls back on the computation needs one, so it is left alone". The literals of the
    branch a dtype takes are that dtype's settings, as the entry of ``**configs[x.dtype]`` is: offered once a run
    of the task tells the branch in use (``tune --device cpu`` then wrote ``else (128, 256)``, the float16 branch
    kept; correct at 70 x 50 and 300 x 520); said in one line without a run. A condition on a size stays a
    computed setting (its table falls back on the user's computation)."""
    from kernelopt.tunables import apply_source
    from kernelopt.tunables.model import AutotuneEvaluation

    source = DATA.joinpath("dtype_tiles", "kernel.py").read_text()
    ran = AutotuneEvaluation(launch_values={"_transpose": {"BLOCK_M": 32, "BLOCK_N": 32}})
    found = {t.key: t for t in discover_source(source, evaluation=ran)}
    assert found["_transpose:BLOCK_M"].editable and found["_transpose:BLOCK_M"].value == 32
    written = apply_source(source, {"BLOCK_M": 128, "BLOCK_N": 256}, kernel="_transpose", evaluation=ran)
    assert "BLOCK_M, BLOCK_N = (64, 64) if x.dtype == torch.float16 else (128, 256)\n" in written.new_source
    unrun = {t.key: t for t in discover_source(source)}["_transpose:BLOCK_M"]
    assert not unrun.editable and "the branch in use (x.dtype == torch.float16) is known only from a run" in str(
        unrun.refused_reason
    )
    by_size = {t.key: t for t in discover_source(source.replace("x.dtype == torch.float16", "M > 4096"))}
    assert by_size["_transpose:BLOCK_M"].computed is not None


def test_a_dtype_branch_of_a_kernel_without_masks_is_not_written_wider() -> None:
    """Beside it: the same tiles over a kernel without masks (grid ``(M // BLOCK_M, N // BLOCK_N)``): the guard read
    no change in a conditional expression, so a branch moved from 32 to 64 went out unguarded, wrong at M = 96.
    Now such a branch is written only as a divisor of the original (16), one line saying why not otherwise (a guard
    would move the other dtype's branch too)."""
    old = DATA.joinpath("dtype_tiles", "kernel.py").read_text()
    bare = old.replace("    mask = (rm[:, None] < M) & (rn[None, :] < N)\n", "").replace(", mask=mask)", ")")
    bare = bare.replace("triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)", "M // BLOCK_M, N // BLOCK_N")
    assert "mask" not in bare
    wider = guard_edit(bare, bare.replace("else (32, 32)", "else (64, 32)"))
    assert wider.new_source is None
    assert wider.note is not None and "a branch of a conditional expression is not guarded by a size" in wider.note
    narrower = bare.replace("else (32, 32)", "else (16, 32)")
    assert guard_edit(bare, narrower).new_source == narrower
