"""The fourth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize``, held out (issue 32:
"kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker4 is a Triton kernel
written for the trial in a form public kernel libraries use and the first three trials did not try (its README lists
them). What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES``
entry and at sizes not in ``SHAPES`` (one between, one above) that the original handled, loaded afresh in this process
with Triton's interpreter. A strict xfail is a defect found and not yet fixed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import apply_source, discover_source
from kernelopt.tunables.guard import guard_edit
from kernelopt.tunables.model import TunableError
from tests.test_breaker_cases import _correct_at

DATA = Path(__file__).parent / "data" / "breaker4"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_at((folder, shapes))
    assert got == {",".join(f"{k}={v}" for k, v in s.items()): True for s in shapes}, got


# ------------------------------------------------------------------------------------- a wrong kernel written

ATTN_TILES = "    BLOCK_M, BLOCK_N = 32, 16\n"


@pytest.mark.timeout(120)
def test_a_key_loop_without_masks_keeps_its_step_a_divisor_of_the_sequence(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``kernelopt tune attn_causal --device cpu`` (an attention forward whose queries are masked
    and whose keys are loaded without masks, ``for start_n in range(0, hi, BLOCK_N)``, ``hi = seq``; SHAPES seq 32
    and 64) wrote ``BLOCK_M, BLOCK_N = 64, 32``, "2.78x faster": wrong at seq = 48 and 80, which the original (16)
    handled. The guard read the kernel as masked (its query load has a mask) and the loop's stop as no parameter.
    Now a loop whose own loads carry no mask, in a kernel masked elsewhere, needs a step that divides its stop (a
    parameter, or a local first bound to one): ``if seq % 32 == 0:  # kernelopt: tuned`` / ``BLOCK_N = 32``."""
    old = (DATA / "attn_causal" / "kernel.py").read_text()
    guarded = guard_edit(old, old.replace(ATTN_TILES, "    BLOCK_M, BLOCK_N = 64, 32\n"))
    assert guarded.new_source is not None
    assert "    BLOCK_M, BLOCK_N = 64, 16\n    if seq % 32 == 0:  # kernelopt: tuned\n        BLOCK_N = 32\n" in (
        guarded.new_source
    )
    assert guard_edit(old, old.replace(ATTN_TILES, "    BLOCK_M, BLOCK_N = 64, 16\n")).note is None  # keys untouched
    folder = _copy("attn_causal", tmp_path)
    (folder / "kernel.py").write_text(guarded.new_source)
    _all_correct(folder, [{"BH": 2, "seq": 32}, {"BH": 2, "seq": 64}, {"BH": 2, "seq": 48}, {"BH": 1, "seq": 80}])


@pytest.mark.timeout(120)
def test_a_pinned_autotune_list_keeps_the_pre_hook_its_configs_carry(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``kernelopt tune prehook_at --device cpu`` (atomic adds into an output each
    ``triton.Config(..., pre_hook=_zero_out)`` zeroes; run allocates it with ``torch.empty``) pinned every candidate,
    the current included, to ``[triton.Config({"BLOCK": 64}, num_warps=2)]``: the hook gone, each failed "output not
    written: 1 of 1 elements still hold the poison pattern" and nothing ran; with ``torch.zeros`` it wrote
    ``configs=[triton.Config({"BLOCK": 8192}, num_warps=2)]``, the hook lost from the user's file. A pin now keeps
    the arguments every config of a literal list writes alike; configs whose hooks differ are not pinned (one
    line)."""
    from kernelopt.tunables import pin_configs
    from kernelopt.tunables.model import AutotuneConfig

    old = (DATA / "prehook_at" / "kernel.py").read_text()
    pinned = pin_configs(old, "_sumsq", [AutotuneConfig(kwargs={"BLOCK": 1024}, num_warps=2)]).new_source
    assert 'configs=[triton.Config({"BLOCK": 1024}, num_warps=2, pre_hook=_zero_out)],' in pinned
    folder = _copy("prehook_at", tmp_path)
    (folder / "kernel.py").write_text(pinned)
    _all_correct(folder, [{"n": 300}, {"n": 5000}, {"n": 1000}, {"n": 20000}])
    differ = old.replace("num_warps=4, pre_hook=_zero_out", "num_warps=4")
    with pytest.raises(TunableError, match="pre_hook kernelopt cannot carry into a pinned list"):
        pin_configs(differ, "_sumsq", [AutotuneConfig(kwargs={"BLOCK": 1024}, num_warps=2)])


@pytest.mark.timeout(120)
def test_a_helper_default_every_call_overrides_is_not_what_is_edited(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``kernelopt tune op_int64 --device cpu`` (a ``torch.library.custom_op`` calling
    ``_LAUNCH = lambda x, y, s: _launch(x, y, s, block=512, warps=4)``, ``def _launch(x, y, scale, block=512,
    warps=4)``) wrote ``def _launch(x, y, scale, block=2048, ...)`` "1.31x faster": the lambda still passes 512, so
    every candidate ran the same kernel and the gain was noise. The value is the call's: it is edited there (a
    default several calls override is refused, naming them)."""
    old = (DATA / "op_int64" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(old)}
    assert found["_scaled_silu:BLOCK"].value == 512
    new = apply_source(old, {"BLOCK": 2048}, kernel="_scaled_silu").new_source
    assert "_launch(x, y, s, block=2048, warps=4)" in new and "def _launch(x, y, scale, block=512, warps=4):" in new
    assert "pid = tl.program_id(0).to(tl.int64)" in new
    folder = _copy("op_int64", tmp_path)
    (folder / "kernel.py").write_text(new)
    _all_correct(folder, [{"n": 700}, {"n": 5000}, {"n": 2000}, {"n": 20000}])
    twice = old.replace("def run(x):\n", "def run_twice(x, y):\n    _launch(x, y, 1.0, block=256)\n\n\ndef run(x):\n")
    found = {t.key: t for t in discover_source(twice)}
    assert "which 2 of its 2 call(s) pass" in str(found["_scaled_silu:BLOCK"].refused_reason)


BARE_SILU = "    x = tl.load(x_ptr + offs)\n    tl.store(y_ptr + offs, scale * x * tl.sigmoid(x))"
MASKED_SILU = "    mask = offs < n\n    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n    tl.store(y_ptr + offs, scale * x * tl.sigmoid(x), mask=mask)"  # fmt: skip


@pytest.mark.parametrize(
    ("before", "after"),
    [("block=512, warps=4)  #", "block=1024, warps=4)  #"), ("block=512, warps=4):", "block=1024, warps=4):")],
)
def test_a_helper_argument_a_grid_without_masks_divides_by_is_not_written_wider(before: str, after: str) -> None:
    """Beside it: op_int64 without masks (a grid of ``n // block`` programs in the helper). Moving the call's
    literal, or a helper's default that no call overrides, to 1024 went out unguarded (the guard read only
    statements, and ``block`` as a launch keyword, not the helper's parameter), wrong at 1536 elements. Now it is
    not written, one line; a divisor of the original (256) is."""
    old = (DATA / "op_int64" / "kernel.py").read_text()
    bare = old.replace(MASKED_SILU, BARE_SILU).replace("triton.cdiv(n, block)", "n // block")
    assert BARE_SILU in bare and "n // block" in bare
    wider = guard_edit(bare, bare.replace(before, after))
    assert wider.new_source is None
    assert wider.note is not None and "an argument of _launch() is not guarded by a size: not written" in wider.note
    lower = bare.replace(before, before.replace("512", "256"))
    assert guard_edit(bare, lower).new_source == lower


# ----------------------------------------------------------------------------------- a correct kernel refused


@pytest.mark.timeout(120)
def test_an_autotune_with_its_own_warmup_and_rep_runs_on_the_cpu() -> None:
    """Seen on 2026-12-05: ``kernelopt validate`` on prehook_at (``@triton.autotune(configs=[two], key=["n"],
    warmup=5, rep=20)``): "FAIL: correctness: case 0 (n=300): the kernel raised RuntimeError: 0 active drivers". The
    autotuner builds its own ``do_bench`` from ``warmup``/``rep``, which asks the GPU driver; kernelopt's CPU
    benchmark replaced only the default one. Now it replaces that one too (a ``do_bench`` the kernel passes is
    kept)."""
    _all_correct(DATA / "prehook_at", [{"n": 300}, {"n": 5000}])


# ------------------------------------------------------------------------------------------- silent misses


@pytest.mark.timeout(120)
def test_stacked_heuristics_are_all_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seen on 2026-12-05: heur_two stacks ``@triton.heuristics({"BLOCK_N": lambda args: _row_block(args["N"]),
    "num_warps": ...})`` over ``@triton.heuristics({"EVEN_N": ...})``. ``tune`` said "no tunable knob: discovery
    lists only knobs it cannot edit: _row_norm.heuristics.EVEN_N (semantic)": the outer decorator's block and warps
    were neither listed nor named, and ``num_warps`` was offered as a launch default the heuristic overrides. Every
    ``@triton.heuristics`` is read now; a pick of 64 is written as a table in the lambda, the helper its fallback,
    correct at 300 and 2000 columns (``EVEN_N`` follows the block)."""
    from tests.test_breaker_cases import _edit_for

    found = {t.key: t for t in discover_source((DATA / "heur_two" / "kernel.py").read_text())}
    block = found["_row_norm.heuristics.BLOCK_N"]
    assert block.editable and block.computed == '_row_block(args["N"])'
    assert "_row_norm.heuristics.num_warps" in found and "_row_norm:num_warps" not in found
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _copy("heur_two", tmp_path)
    written = _edit_for(folder, {"BLOCK_N": 64})
    assert '"BLOCK_N": lambda args: 64 if args["N"] <= 640 else _row_block(args["N"]),' in written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 4, "N": 96}, {"M": 3, "N": 640}, {"M": 2, "N": 300}, {"M": 2, "N": 2000}])


@pytest.mark.timeout(120)
def test_a_block_kept_as_a_class_attribute_is_a_knob(tmp_path: Path) -> None:
    """Seen on 2026-12-05: module_attr's ``class TritonRMSNorm(nn.Module)`` keeps ``BLOCK = 1024`` as a class
    attribute and launches with ``BLOCK=self.BLOCK``; ``tune`` said "computed (self.BLOCK) from self, which no SHAPES
    entry names as a size": the literal is in the file. It is a knob at the class attribute now; the guard reads
    ``self.BLOCK`` as that tile, so a lower block (one block covers the row) is not written, one line, where it
    went out unguarded once found (wrong at 1000 columns); a wider one is written."""
    old = (DATA / "module_attr" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(old)}
    assert found["_rms_norm:BLOCK"].editable and found["_rms_norm:BLOCK"].value == 1024
    lower = guard_edit(old, apply_source(old, {"BLOCK": 256}, kernel="_rms_norm").new_source)
    assert lower.new_source is None and lower.note is not None
    assert "a class attribute or a field of a settings class cannot be guarded by a size: not written" in lower.note
    wider = apply_source(old, {"BLOCK": 2048}, kernel="_rms_norm").new_source
    assert "    BLOCK = 2048  # the widest row supported\n" in wider and guard_edit(old, wider).new_source == wider
    folder = _copy("module_attr", tmp_path)
    (folder / "kernel.py").write_text(wider)
    _all_correct(folder, [{"rows": 4, "cols": 100}, {"rows": 3, "cols": 200}, {"rows": 2, "cols": 1000}])


@pytest.mark.timeout(120)
def test_tiles_kept_in_a_dataclass_of_launch_settings_are_knobs(tmp_path: Path) -> None:
    """Seen on 2026-12-05: dc_config reads its tiles from ``cfg: LaunchConfig = DEFAULT``, a frozen dataclass with
    ``BLOCK_M: int = 16``; ``tune`` said "computed (cfg.BLOCK_M) from cfg, which no SHAPES entry names as a size".
    The fields' defaults are knobs now, edited in the dataclass; over a kernel without masks (a grid of ``M //
    cfg.BLOCK_M``) a wider field is not written (the guard read no annotated assignment and no ``cfg.BLOCK_M``)."""
    old = (DATA / "dc_config" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(old)}
    assert found["_bias_relu:BLOCK_M"].editable and found["_bias_relu:BLOCK_M"].value == 16
    assert found["_bias_relu:BLOCK_N"].value == 32 and found["_bias_relu:num_warps"].value == 4
    new = apply_source(old, {"BLOCK_M": 64, "BLOCK_N": 128}, kernel="_bias_relu").new_source
    assert "    BLOCK_M: int = 64\n    BLOCK_N: int = 128\n" in new and guard_edit(old, new).new_source == new
    folder = _copy("dc_config", tmp_path)
    (folder / "kernel.py").write_text(new)
    _all_correct(folder, [{"M": 20, "N": 50}, {"M": 70, "N": 130}, {"M": 40, "N": 90}, {"M": 150, "N": 300}])
    bare = old.replace(", mask=mask, other=0.0)", ")").replace(", mask=rn < N, other=0.0)", ")")
    bare = bare.replace(", mask=mask)", ")").replace(
        "triton.cdiv(M, cfg.BLOCK_M), triton.cdiv(N, cfg.BLOCK_N)", "M // cfg.BLOCK_M, N // cfg.BLOCK_N"
    )
    assert "mask=" not in bare and "M // cfg.BLOCK_M" in bare
    wider = guard_edit(bare, bare.replace("BLOCK_M: int = 16", "BLOCK_M: int = 64"))
    assert wider.new_source is None and wider.note is not None and "M // cfg.BLOCK_M" in wider.note
    divisor = bare.replace("BLOCK_M: int = 16", "BLOCK_M: int = 8")
    assert guard_edit(bare, divisor).new_source == divisor
    # the field given at the construction (``DEFAULT = LaunchConfig(BLOCK_M=16)``): edited there, guarded the same
    built = bare.replace("DEFAULT = LaunchConfig()", "DEFAULT = LaunchConfig(BLOCK_M=16)")
    moved = apply_source(built, {"BLOCK_M": 64}, kernel="_bias_relu").new_source
    assert "DEFAULT = LaunchConfig(BLOCK_M=64)\n" in moved
    refused = guard_edit(built, moved)
    assert refused.new_source is None and "a field given to LaunchConfig() is not guarded by a size" in str(
        refused.note
    )


def test_a_group_size_that_sizes_the_output_is_not_a_knob() -> None:
    """Seen on 2026-12-05: quant_group's ``GROUP_SIZE = 32`` (the quantization format: one scale per 32 elements, the
    scales returned) was listed as a module constant of category l2_rasterization; ``tune`` spent 8 candidates moving
    it ("output has shape (216,); the reference's is (198,)") and set 5 more aside. It is what the kernel computes:
    a name that sizes a tensor the launching function returns is refused as such, one line; ``GROUPS`` (groups a
    program) and ln_bwd2's ``ROWS`` (which sizes only a buffer of partials) stay knobs."""
    found = {t.key: t for t in discover_source((DATA / "quant_group" / "kernel.py").read_text())}
    assert not found["GROUP_SIZE"].editable and found["GROUP_SIZE"].semantic
    assert "'GROUP_SIZE' sizes a tensor run() returns (allocated at kernel.py:30)" in str(
        found["GROUP_SIZE"].refused_reason
    )
    assert found["_quant_groups:GROUPS"].editable
    assert {t.key: t for t in discover_source((DATA / "ln_bwd2" / "kernel.py").read_text())}["_ln_bwd_dx:ROWS"].editable


def test_a_session_of_one_launch_names_the_other_launches_it_leaves_alone() -> None:
    """Seen on 2026-12-05: ``kernelopt tune ln_bwd2 --device cpu`` (a layer-norm backward in two launches) tuned
    ``_ln_bwd_dx`` and never said that ``_ln_bwd_dwdb`` (``BLOCK_P``, ``BLOCK_COL``) was there too, left alone: a
    user reads "kept the current" as the whole file converged. ``tune`` now says "not tuned in this session:
    launch _ln_bwd_dwdb (kernel.py:63) (--kernel NAME tunes one)"."""
    from kernelopt.tuning.launch import choice_line, space_from_tunables

    found = discover_source((DATA / "ln_bwd2" / "kernel.py").read_text())
    space = space_from_tunables(found)
    # the two launches tie on knobs and neither has an autotune list: the first in source order is tuned first
    # (tunables.launches.tuned_first, breaker8 m3), the other is named
    assert space.launch == "launch _ln_bwd_dx (kernel.py:59)"
    assert "and leaves launch _ln_bwd_dwdb (kernel.py:63) as it is: --kernel NAME" in (
        choice_line(found, space, None) or ""
    )
    second = space_from_tunables(found, kernel="_ln_bwd_dwdb")
    assert "and leaves launch _ln_bwd_dx (kernel.py:59) as it is" in (choice_line(found, second, None) or "")
    single = discover_source((DATA / "op_int64" / "kernel.py").read_text())
    assert choice_line(single, space_from_tunables(single), None) is None


INIT_BLOCK = ("num_warps: int = 4):", "num_warps: int = 4, block: int = 1024):")


@pytest.mark.timeout(120)
def test_a_block_passed_to_a_module_s_init_is_a_knob_where_it_is_given(tmp_path: Path) -> None:
    """Beside case h6: the block an ``__init__`` argument (``def __init__(self, eps, num_warps=4, block=1024)``,
    ``self.BLOCK = block``), the module built once in the file (``_NORM = TritonRMSNorm(num_warps=4)``). Discovery
    said of ``self.num_warps`` "it comes from the forward pass: ... (tuned here on its own, the two passes would
    disagree)", the wording of a backward reading ``ctx``. Now the value is the construction's keyword, else the
    argument's default: ``TritonRMSNorm(num_warps=8)`` is written; a lower block is not written (one block covers
    the row), at the default or at the construction; a wider one is, correct at 1000 columns."""
    old = (DATA / "module_attr" / "kernel.py").read_text()
    warps = apply_source(old, {"num_warps": 8}, kernel="_rms_norm").new_source
    assert "_NORM = TritonRMSNorm(num_warps=8)\n" in warps
    by_init = old.replace("    BLOCK = 1024  # the widest row supported\n\n", "").replace(*INIT_BLOCK)
    by_init = by_init.replace("        self.num_warps = num_warps\n", "        self.num_warps = num_warps\n        self.BLOCK = block\n")  # fmt: skip
    built = by_init.replace("TritonRMSNorm(num_warps=4)", "TritonRMSNorm(num_warps=4, block=1024)")
    for text in (by_init, built):
        assert {t.key: t for t in discover_source(text)}["_rms_norm:BLOCK"].value == 1024
        lower = guard_edit(text, apply_source(text, {"BLOCK": 256}, kernel="_rms_norm").new_source)
        assert lower.new_source is None and "an argument of __init__() is not guarded by a size" in str(lower.note)
    wider = apply_source(built, {"BLOCK": 2048}, kernel="_rms_norm").new_source
    assert "_NORM = TritonRMSNorm(num_warps=4, block=2048)\n" in wider and guard_edit(built, wider).new_source == wider
    folder = _copy("module_attr", tmp_path)
    (folder / "kernel.py").write_text(wider)
    _all_correct(folder, [{"rows": 3, "cols": 200}, {"rows": 2, "cols": 1000}, {"rows": 1, "cols": 2000}])


@pytest.mark.timeout(120)
def test_a_literal_keyed_autotune_list_gets_each_shape_s_own_best(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen on 2026-12-05: ``kernelopt tune prehook_at --device cpu`` (a literal list of two configs, ``key=["n"]``;
    SHAPES n of 300 and 5000, each with its own best) said "a per-bucket table, each shape its own best", then "one
    configuration written: a per-bucket table needs a setting computed from the size": the keyed list of breaker3's
    case 36 is read from an imported module, and a literal list is never imported. Its key is read from the file now:
    the list is pinned to each shape's own best, ``pre_hook`` kept, correct at 1000 and 20000."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder, shaped_edit
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shapes import choose, per_shape

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _copy("prehook_at", tmp_path)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    small, large = (s.label() for s in prepared.shapes)

    def timed(block: int, a: float, b: float) -> Result:
        config = {"BLOCK": block}
        return Result(config=config, outcome=Outcome.OK, latency_us=a + b, latency_us_by_shape={small: a, large: b})

    results = [timed(64, 30.0, 400.0), timed(512, 10.0, 60.0), timed(8192, 20.0, 20.0)]
    result = SessionResult(
        best_config={"BLOCK": 8192}, best_latency_us=40.0, current_config={"BLOCK": 64}, current_latency_us=430.0,
        results=results, retimed=[], evaluations=3, served=0, budget=3, space_size=10, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, [], result.best_config, result.current_config)
    tuning = FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))
    edit, note = shaped_edit(tuning)
    assert edit is not None and note is not None and "one picked per key (n) at run time" in note
    listed = (  # one config a line, as the user wrote the list
        '    configs=[\n        triton.Config({"BLOCK": 512}, num_warps=2, pre_hook=_zero_out),\n'
        '        triton.Config({"BLOCK": 8192}, num_warps=2, pre_hook=_zero_out),\n    ],\n'
    )
    assert listed in edit.new_source and 'key=["n"],' in edit.new_source
    (folder / "kernel.py").write_text(edit.new_source)
    _all_correct(folder, [{"n": 300}, {"n": 5000}, {"n": 1000}, {"n": 20000}])


@pytest.mark.timeout(120)
def test_the_loop_does_not_call_two_launches_converged_after_tuning_one(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``kernelopt optimize ln_bwd2 --device cpu --max-iters 1`` tuned ``_ln_bwd_dx``, kept
    nothing, and stopped: "converged: the launch configuration has converged ... further gains need a code
    change". ``_ln_bwd_dwdb`` (``BLOCK_P``, ``BLOCK_COL``) was never tuned: a tuning session is planned once per
    kernel.py, not per launch. The plan names its launch now, and the next version tunes the launch left alone
    before any "converged"."""
    from kernelopt.actions import LAUNCH_CONFIGURATION, SEARCH_NO_GAIN
    from kernelopt.backends.protocol import StageContext
    from kernelopt.backends.rules import RulePlanner
    from kernelopt.loop.wiring import cpu_timing_summary
    from kernelopt.memory.model import GateResult, IterationRecord, PitfallAndFix
    from kernelopt.workspace import Workspace
    from tests.data.planning import fakes

    root = tmp_path / "root"
    root.mkdir()
    folder = DATA / "ln_bwd2"
    ws = Workspace.create("ln", kernel=folder / "kernel.py", reference=folder / "reference.py", root=root)
    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    v0.performance.latency_us = 5000.0
    ws.memory.write(v0)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    first = planner.plan(StageContext(workspace=ws, version=1, summary=cpu_timing_summary(ws, 1), history=[v0]))
    assert first.plan is not None and first.plan.action_category is LAUNCH_CONFIGURATION
    v1 = IterationRecord(version="v1")
    v1.optimization.action_category = LAUNCH_CONFIGURATION
    v1.quality_gate.result = GateResult.FAIL
    v1.quality_gate.failure_reason = "the tuning session of launch _ln_bwd_dx (kernel.py:59) kept nothing"
    v1.pitfalls_and_fixes = [PitfallAndFix(error_type=SEARCH_NO_GAIN, error_message="kept nothing")]
    ws.memory.write(v1)
    ctx = StageContext(workspace=ws, version=2, summary=cpu_timing_summary(ws, 2), history=[v0, v1])
    second = planner.plan(ctx)
    assert second.plan is not None, second.reason
    assert first.plan.launch is not None and first.plan.launch.startswith("launch _ln_bwd_dx ")
    assert second.plan.launch is not None and second.plan.launch.startswith("launch _ln_bwd_dwdb ")
    assert set(second.plan.targets) == {"BLOCK_P", "BLOCK_COL"}, second.plan.targets
    # V1's plan says a launch is left untuned, so its session keeping nothing does not stop the loop "converged"
    assert first.plan.untuned_launches == [second.plan.launch] and second.plan.untuned_launches == []
    # the record keeps the launch; once every launch's session kept nothing, the loop says converged
    v2 = IterationRecord(version="v2")
    v2.optimization.action_category, v2.optimization.launch = LAUNCH_CONFIGURATION, second.plan.launch
    v2.quality_gate.result = GateResult.FAIL
    v2.pitfalls_and_fixes = [PitfallAndFix(error_type=SEARCH_NO_GAIN, error_message="kept nothing")]
    ws.memory.write(v2)
    ctx = StageContext(workspace=ws, version=3, summary=cpu_timing_summary(ws, 3), history=[v0, v1, v2])
    third = planner.plan(ctx)
    assert third.plan is None and third.reason is not None
    assert third.reason.startswith("converged: the launch configuration of this kernel.py was tuned launch by launch")
    assert "_ln_bwd_dx" in third.reason and "_ln_bwd_dwdb" in third.reason, third.reason


def test_a_setting_read_from_the_environment_keeps_the_variable_when_tuned() -> None:
    """Seen on 2026-12-05: dc_config's ``NUM_STAGES = int(os.environ.get("B4_NUM_STAGES", "2"))``, passed as
    ``num_stages=NUM_STAGES``, was listed as computed with "--set _bias_relu:num_stages=VALUE overrides it with a
    literal": a tuned ``num_stages=3`` at the launch, after which the user's ``B4_NUM_STAGES`` did nothing. The
    default inside the quotes is the knob now: ``int(os.environ.get("B4_NUM_STAGES", "3"))``, the variable kept."""
    old = (DATA / "dc_config" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(old)}
    assert found["NUM_STAGES"].editable and found["NUM_STAGES"].value == 2
    new = apply_source(old, {"num_stages": 3}, kernel="_bias_relu").new_source
    assert 'NUM_STAGES = int(os.environ.get("B4_NUM_STAGES", "3"))\n' in new and "num_stages=NUM_STAGES)" in new
    assert {t.key: t for t in discover_source(new)}["NUM_STAGES"].value == 3
