"""leftovers22: the twenty-first session's closing note's "Left" items (docs/faults.md, "Leftovers (leftovers22,
2026-12-07)"): knob discovery for the launch patterns people write (a config list local to the launcher, l15), ..."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "leftovers22"


# ------------------------------------------------- l15: a grid reading cfg[0], the value BLOCK is computed from

_CFG_FORMS = {
    "list": ("cfg = [1024, 4]", "cfg[0]", "cfg[1]"),
    "dict": ('cfg = {"BLOCK": 1024, "warps": 4}', 'cfg["BLOCK"]', 'cfg["warps"]'),
}


@pytest.mark.parametrize("form", sorted(_CFG_FORMS))
def test_l15_a_grid_reading_the_config_element_moves_with_the_tuned_block(form: str, tmp_path: Path) -> None:
    """``cfg = [1024, 4]`` local to ``run()``, launched ``scale_kernel[(triton.cdiv(n, cfg[0]),)](.., BLOCK=cfg[0])``:
    on main a BLOCK of 512 hoisted ``BLOCK = cfg[0]`` and overrode it, but the grid kept ``cfg[0]``, counting tiles
    of 1024 for a kernel stepping by 512 (half the values never written, at every size). Now the grid's copy is
    replaced by the variable too, and the written kernel doubles every value in Triton's interpreter at sizes no
    SHAPES entry names; a constant list is no size a table reads."""
    import torch

    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit
    from tests.conftest import load_fresh, triton_interpreted

    bind, block, warps = _CFG_FORMS[form]
    source = (DATA / "cfg_index" / "kernel.py").read_text()
    source = source.replace("cfg = [1024, 4]", bind).replace("cfg[0]", block).replace("cfg[1]", warps)
    found = {t.key: t for t in discover_source(source)}
    assert found["scale_kernel:BLOCK"].editable and found["scale_kernel:BLOCK"].size_names == []
    written = apply_source(source, {"scale_kernel:BLOCK": 512}).new_source
    assert "scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK," in written, written
    assert guard_edit(source, written).new_source == written
    (tmp_path / "kernel.py").write_text(written)
    with triton_interpreted():
        module = load_fresh(tmp_path / "kernel.py", f"leftovers22_l15_{form}")
        for n in (1, 513, 4097):
            x = torch.randn(n)
            assert torch.equal(module.run(x), x * 2.0), n


# ------------------------------------------------- l16: a grid counted by a helper the launch does not hand the tile


@pytest.mark.parametrize(
    ("folder", "said"),
    [
        ("grid_helper_module", "counted by grid_for(n), imported from .launch, whose body is not read here"),
        ("grid_module_object", "counted by launch.grid(n), imported from .launch, whose body is not read here"),
        ("grid_class", "counted by Cfg.grid(n), a method of class Cfg reading Cfg.BLOCK, not the launch's BLOCK"),
    ],
)
def test_l16_a_grid_counted_by_a_helper_not_handed_the_tile_refuses_the_edit(folder: str, said: str) -> None:
    """A launch whose grid another module's helper (``from .launch import grid_for``, a module object's
    ``launch.grid(n)``) or a class's static method (``Cfg.grid(n)`` over ``Cfg.BLOCK``) counts, the tile not handed
    to it: on main ``BLOCK = 512`` (of 1024) was written plainly at the launch, its grid still counting tiles of 1024
    (half the values unwritten at every size; grid_class's plain text shows it below). Now nothing is written, the
    line names the helper and what to change, a larger tile too (the helper's count is not read)."""
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    source = (DATA / folder / "kernel.py").read_text()
    for value in (512, 2048):
        written = apply_source(source, {"scale_kernel:BLOCK": value}).new_source
        guarded = guard_edit(source, written)
        assert guarded.new_source is None and said in (guarded.note or ""), guarded.note
        assert "and the launch does not hand it BLOCK" in guarded.note and guarded.note.endswith("not written")


def test_l16_the_plain_edit_is_wrong_and_a_helper_handed_the_tile_is_written_right(tmp_path: Path) -> None:
    """grid_class's plain ``BLOCK = 512`` doubles only the values of the first half of each 1024 in the interpreter
    (what main wrote); the same class handing the tile to its grid (``Cfg.grid(n, BLOCK)``, the tile computed by
    ``Cfg.block(n)`` as before) is written, and right at sizes no SHAPES entry names. A grid bound to a local before
    the launch that reads the config element the tile was computed from (``grid = (triton.cdiv(n, cfg[0]),)``) was
    refused (the hoisted line followed it); since breaker30's q100 the line goes above the grid, which reads it,
    right at sizes no entry names."""
    import torch

    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit
    from tests.conftest import load_fresh, triton_interpreted

    source = (DATA / "grid_class" / "kernel.py").read_text()
    handed = source.replace("def grid(n):\n        return (triton.cdiv(n, Cfg.BLOCK),)", "def grid(n, block):\n")
    handed = handed.replace("def grid(n, block):\n", "def grid(n, block):\n        return (triton.cdiv(n, block),)")
    handed = handed.replace(
        "scale_kernel[Cfg.grid(n)](x, y, n, BLOCK=Cfg.block(n))",
        "BLOCK = Cfg.block(n)\n    scale_kernel[Cfg.grid(n, BLOCK)](x, y, n, BLOCK=BLOCK)",
    )
    plain = apply_source(source, {"scale_kernel:BLOCK": 512}).new_source
    written = apply_source(handed, {"scale_kernel:BLOCK": 512}).new_source
    assert guard_edit(handed, written).new_source == written
    (tmp_path / "plain.py").write_text(plain)
    (tmp_path / "written.py").write_text(written)
    with triton_interpreted():
        wrong = load_fresh(tmp_path / "plain.py", "leftovers22_l16_plain")
        right = load_fresh(tmp_path / "written.py", "leftovers22_l16_written")
        x = torch.randn(4097)
        assert not torch.equal(wrong.run(x), x * 2.0)
        for n in (1, 513, 4097):
            x = torch.randn(n)
            assert torch.equal(right.run(x), x * 2.0), n
    cfg = (DATA / "cfg_index" / "kernel.py").read_text()
    bound = cfg.replace(
        "    scale_kernel[(triton.cdiv(n, cfg[0]),)](", "    grid = (triton.cdiv(n, cfg[0]),)\n    scale_kernel[grid]("
    )
    guarded = guard_edit(bound, apply_source(bound, {"scale_kernel:BLOCK": 512}).new_source)
    assert guarded.new_source is not None, guarded.note  # breaker30's q100: the hoisted line above the grid
    assert "BLOCK = 512  # kernelopt: tuned\n    grid = (triton.cdiv(n, BLOCK),)\n" in guarded.new_source
    (tmp_path / "bound.py").write_text(guarded.new_source)
    with triton_interpreted():
        above = load_fresh(tmp_path / "bound.py", "leftovers22_l16_bound")
        for n in (1, 513, 4097):
            x = torch.randn(n)
            assert torch.equal(above.run(x), x * 2.0), n


def test_l16_tune_refuses_a_folder_whose_kernel_imports_its_helpers_from_beside_it() -> None:
    """``tune`` and ``optimize`` load a candidate from a folder of its own, which holds no launch.py: the folder form
    refuses the kernel with one line saying what to change (unchanged by l16; the guard's line above is for a
    package installed elsewhere, which does load)."""
    from kernelopt.errors import InputFileError
    from kernelopt.kernelsource import KernelForm, check_kernel

    for folder in ("grid_helper_module", "grid_module_object"):
        with pytest.raises(InputFileError, match=r"imports \.launch from its own folder"):
            check_kernel(DATA / folder / "kernel.py", KernelForm.FUNCTION)


# ------------------------------------------------- l17: a launch from a cache of compiles says what to change

VARIANTS = Path(__file__).parent / "data" / "variants"


def test_l17_a_launch_from_a_compile_cache_says_what_to_change_and_the_plain_launch_has_its_knobs() -> None:
    """wrongkernel22's v98 (``_compiled[x.dtype] = bias_gelu_kernel.warmup(..., BLOCK_SIZE=BLOCK_SIZE, num_warps=4,
    grid=(1,))``, launched ``_compiled[x.dtype][(ceil_div(n, BLOCK_SIZE), 1, 1)](...)``): on main `tunables` said "no
    tunable found (launch literals, ...)" and `tune` "discovery lists nothing", naming neither the cache nor a cure.
    Now both name the compile and the launch to write; written so (the cache gone), BLOCK_SIZE and num_warps are
    knobs, and a smaller BLOCK_SIZE is written as before (it divides every size the assert lets in)."""
    from kernelopt.errors import UsageError
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.compile_cache import cached_launch_note
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tuning.launch import space_from_tunables

    source = (VARIANTS / "gelu_cached_compile" / "kernel.py").read_text()
    assert discover_source(source) == []
    with pytest.raises(UsageError) as err:
        space_from_tunables([], source=source)
    said = (  # the why, since discovery23's d32: tests/test_discovery23_cases.py
        "bias_gelu_kernel is launched from a compile kept in _compiled[x.dtype] (bias_gelu_kernel.warmup(..., "
        "BLOCK_SIZE=BLOCK_SIZE, num_warps=4)): its settings are not tuned"
    )
    assert "launch it as bias_gelu_kernel[grid](..., BLOCK_SIZE=BLOCK_SIZE, num_warps=4)" in str(err.value)
    assert said in str(err.value) and said in (cached_launch_note(source) or "")
    plain = source.replace(
        "    if x.dtype not in _compiled:\n        _compiled[x.dtype] = bias_gelu_kernel.warmup(\n"
        "            y, x, bias, n, x.shape[-1], BLOCK_SIZE=BLOCK_SIZE, num_warps=4, grid=(1,)\n        )\n"
        "    _compiled[x.dtype][(ceil_div(n, BLOCK_SIZE), 1, 1)](y, x, bias, n, x.shape[-1], BLOCK_SIZE)\n",
        "    bias_gelu_kernel[(ceil_div(n, BLOCK_SIZE),)](y, x, bias, n, x.shape[-1], BLOCK_SIZE=BLOCK_SIZE, "
        "num_warps=4)\n",
    )
    assert plain != source and cached_launch_note(plain) is None
    found = {t.key: t for t in discover_source(plain)}
    assert found["bias_gelu_kernel:BLOCK_SIZE"].editable and found["bias_gelu_kernel:num_warps"].editable
    written = apply_source(plain, {"bias_gelu_kernel:BLOCK_SIZE": 64}).new_source
    assert "BLOCK_SIZE = 64" in written and guard_edit(plain, written).new_source == written


# ------------------------------------------------- l18: the net's failure of an agent's rewrite gets its repair


def test_l18_an_agent_s_rewrite_wrong_at_a_net_size_is_repaired_with_the_size_named(
    ws_root: Path, rows_baseline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """seen21's u26: b43's net failed an agent's rewrite right only at the timed sizes in Stage 4, after its timing,
    where a failure only reverts: the agent never heard which size it was wrong at. Now the net runs in Stage 3's
    check of a rewrite that passes the SHAPES entries, so the failure, naming ``rows=65,cols=129``, is the repair
    attempt's prompt: the scripted agent (narrow.py's kernel first, the whole-row single pass when the size is
    named) passes V1, its first attempt a pitfall of the record; the gate reads the net's verdict of those bytes
    once more (no second session folder)."""
    import json

    from kernelopt.cli.app import main
    from kernelopt.memory.model import GateResult
    from kernelopt.workspace import Workspace
    from tests.conftest import with_baseline
    from tests.test_break21_cases import AGENTS, agent

    for name, value in (("OMP_NUM_THREADS", "1"), ("KERNELOPT_SEEDS", "1")):  # KERNELOPT_BENCH_S: conftest's
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("KERNELOPT_AGENT_COMMAND", raising=False)
    with_baseline(rows_baseline, ws_root)
    argv = ["optimize", str(AGENTS / "rows"), "--root", str(ws_root), "--device", "cpu", "--json", "--max-iters", "1"]
    argv += ["--planner", "agent-cli", "-P", agent("planner.py"), "--implementer", "agent-cli"]
    code = main([*argv, "-I", agent("narrow_repaired.py")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [(o["version"], o["result"]) for o in json.loads(out)["this_run"]] == [(1, "PASS")], out
    ws = Workspace(ws_root / "kernel_opt_rows")
    record = ws.memory.read(1)
    assert record.quality_gate.result is GateResult.PASS
    first = [p for p in record.pitfalls_and_fixes if p.root_cause.startswith("implementation attempt 1 of")]
    assert first and first[0].error_message.startswith(
        "correctness FAIL: correct at the timed sizes only: the kernel fails at rows=65,cols=129"
    ), record.pitfalls_and_fixes
    assert first[0].fix_applied == "repair attempt by the implementer"
    assert "amax(dim=1" in ws.kernel_py.read_text() and "[:, :128]" not in ws.kernel_py.read_text()
    made = sorted(p.name for p in (ws.state_dir / "net").iterdir())
    assert len(made) == 2 and all(m.startswith("check-") for m in made), made  # the narrow text's, the repair's


# ------------------------------------------------- l19: a paused run whose kernelopt mcp server is gone


def test_l19_a_paused_run_whose_server_was_killed_between_calls_is_said_so(tmp_path: Path) -> None:
    """seen21's u23 left: a run the MCP server paused between two calls said ``"running": true`` after the server
    was SIGKILLed, as while it waits for its client. Now a server's stage call marks the workspace as served for its
    life (a shared flock the kernel lets go of when it dies): a forked server after a stage call that returned keeps
    the run running while it lives (a refused call writes nothing, agentleft6's rule); killed, the status says the run is
    paused and no server serves it, and that the next stage call continues it. A paused run no server ever marked
    (u23's test, a journal written by hand) still reads as running."""
    import os
    import signal

    from kernelopt.agents import drive
    from kernelopt.agents.served import served
    from kernelopt.errors import UsageError
    from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
    from kernelopt.stagenames import Stage
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    journal = Journal(ws.state_dir)
    it = IterationState(version=1, stage=Stage.IMPLEMENT, base_commit=ws.head(), good_version=0)
    settings = RunSettings(planner=drive.AGENT, implementer=drive.AGENT)
    journal.save(RunState(settings=settings, current=it, paused=True))
    assert drive.status(ws).running and drive.status(ws).interrupted is None  # never served: as before
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server: a stage call returns (drive's wrapper of every stage call), a refused one, then idle
        try:
            drive._held(lambda _ws: None)(ws)
            try:
                drive.submit_plan(ws, "# not a plan", device="cpu")
            except UsageError:
                pass
            os.write(write, b"x")
            signal.pause()
        finally:
            os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 1) == b"x"
        assert served(ws.state_dir).holders == (pid,)
        live = drive.status(ws)
        assert live.running and live.interrupted is None and live.held_by is None, live
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    now = drive.status(ws)  # main said running: true here
    assert not now.running and now.next is drive.NextStep.IMPLEMENT_THEN_VALIDATE, now
    assert now.interrupted == (
        "the run is paused in V1's implement stage between two calls of a kernelopt mcp server, and that server has "
        "ended (killed, or closed by its client): nothing serves it now; the next stage call below, from any server, "
        "continues it where it paused"
    )
    assert now.why.startswith(now.interrupted)


# ------------------------------------------------- l20: one overflow-safe norm in the checker


def test_l20_the_reference_s_rms_past_1e154_is_the_norm_of_its_finite_elements() -> None:
    """``duplicates`` paired ``compare._scaled_squares`` (b46: the reference's sum of squares over its finite elements
    scaled by their largest, where the plain squares overflow) with ``_norm`` (u25: the errors' 2-norm, scaled where
    the squares overflow): one quantity, the 2-norm of finite values. The reference's RMS now comes from ``_norm`` of
    each chunk's finite elements (``math.hypot`` across chunks, as the errors' norm is summed): 3e300 and 4e300 beside
    an Inf, in two chunks, give the norm 5e300 and the RMS 5e300 / sqrt(2), and values in range are read as before
    (the plain sum of squares, untouched)."""
    import math

    import torch

    from kernelopt.harness.compare import _reference_stats

    huge = torch.tensor([3e300, float("inf"), 4e300], dtype=torch.float64)
    stats = _reference_stats(huge, huge, [(0, 2), (2, 3)], dtype_hint=None, atol=None, rtol=None)
    assert stats.finite == 2 and math.isclose(stats.norm, 5e300, rel_tol=1e-15), stats.norm
    plain = torch.tensor([3.0, 4.0], dtype=torch.float64)
    stats = _reference_stats(plain, plain, [(0, 1), (1, 2)], dtype_hint=None, atol=None, rtol=None)
    assert stats.squares == 25.0 and math.isclose(stats.norm, 5.0, rel_tol=1e-15)


# ------------------------------------------------- l21: a config chosen by size is tuned by the size it is chosen by

_CHOICES = {
    "conditional": "cfg = configs[0] if n < 8192 else configs[1]",
    "indexed": "cfg = configs[int(n >= 8192)]",
    "module-table": "cfg = CONFIGS[int(n >= 8192)]",
}


@pytest.mark.parametrize("form", sorted(_CHOICES))
def test_l21_a_config_chosen_by_size_is_a_table_by_that_size(form: str, tmp_path: Path) -> None:
    """``cfg = configs[0] if n < 8192 else configs[1]`` (or an index computed from ``n``, or a module table's row):
    on main the hoisted ``cfg[0]`` read ``cfg`` as its size, "a table by size, by cfg" (a tuple), and `tune` refused
    it, "computed (cfg[0]) from cfg, which no SHAPES entry names as a size". Now the sizes a choice reads are the
    setting's (``n``); a table by ``n`` over the choice is written with the grid over ``BLOCK`` (l15), right in the
    interpreter."""
    from kernelopt.tunables import discover_source

    source = (DATA / "cfg_chosen" / "kernel.py").read_text().replace(_CHOICES["conditional"], _CHOICES[form])
    if form == "module-table":
        source = source.replace("    configs = [(1024, 4), (4096, 8)]\n", "").replace(
            "\n\n@triton.jit", "\nCONFIGS = [(1024, 4), (4096, 8)]\n\n\n@triton.jit"
        )
    found = {t.key: t for t in discover_source(source)}
    assert found["scale_kernel:BLOCK"].size_names == ["n"], found["scale_kernel:BLOCK"]
    assert found["scale_kernel:num_warps"].size_names == ["n"]
    if form == "conditional":  # the table tune wrote on the CPU (its session: BLOCK 4096 up to 3000, 8192 up to 70000)
        import torch

        from kernelopt.tunables.edit import write_table
        from kernelopt.tunables.guard import guard_edit
        from kernelopt.tunables.model import Bucket, TunedTable
        from tests.conftest import load_fresh, triton_interpreted

        rows = [Bucket(upto=3000, values={"BLOCK": 4096}), Bucket(upto=70000, values={"BLOCK": 8192})]
        written = write_table(source, TunedTable(size="n", buckets=rows), kernel="scale_kernel").new_source
        assert "    if n <= 3000:  # kernelopt: tuned\n        BLOCK = 4096\n" in written, written
        assert "scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=cfg[1])" in written
        assert guard_edit(source, written).new_source == written
        (tmp_path / "kernel.py").write_text(written)
        with triton_interpreted():
            module = load_fresh(tmp_path / "kernel.py", "leftovers22_l21_table")
            for n in (1, 3001, 8193, 70001):
                x = torch.randn(n)
                assert torch.equal(module.run(x), x * 2.0), n
    shape = (DATA / "cfg_index" / "kernel.py").read_text()  # a shape (x.shape's n) stays a size as before
    shape = shape.replace("    n = x.numel()\n", "    n = x.shape[0]\n").replace("BLOCK=cfg[0]", "BLOCK=min(cfg[0], n)")
    assert {t.key: t for t in discover_source(shape)}["scale_kernel:BLOCK"].size_names == ["n"]


# ------------------------------------------------- l22: a setting read from literals alone is tuned as one value


def test_l22_a_setting_read_from_a_local_table_of_literals_is_one_value_for_every_size() -> None:
    """cfg_index's ``BLOCK=cfg[0]`` of ``cfg = [1024, 4]``: after l15 `tune` still left it, "computed (cfg[0]) from no
    size of the problem ..., which no SHAPES entry names as a size: a table ... needs one" (a table's fallback is
    for a value computed from the problem; this one is the same at every size). Now discovery reads its value (1024,
    ``CONSTANT_SOURCE``), the session's pick is one value written after the hoisted line as a literal's is (not a
    table), and the written text reads back the same way, so a second tune moves it again."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.knobs import CONSTANT_SOURCE
    from kernelopt.tuning.folder import _computed

    source = (DATA / "cfg_index" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(source)}
    block, warps = found["scale_kernel:BLOCK"], found["scale_kernel:num_warps"]
    assert (block.value, warps.value) == (1024, 4)
    assert block.value_source == warps.value_source == CONSTANT_SOURCE
    assert not _computed(block) and not _computed(warps)
    written = apply_source(source, {"scale_kernel:BLOCK": 8192}).new_source
    again = {t.key: t for t in discover_source(written)}["scale_kernel:BLOCK"]
    assert again.value == 8192 and again.value_source == CONSTANT_SOURCE and again.size_names == []
    assert not _computed(again)
    chosen = (DATA / "cfg_chosen" / "kernel.py").read_text()  # chosen by size: a table's, as l21 says
    assert _computed({t.key: t for t in discover_source(chosen)}["scale_kernel:BLOCK"])
