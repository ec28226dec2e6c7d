"""leftovers19: the seventeenth session's behaviour leftovers (docs/faults.md, "The seventeenth session's leftovers"):
the search keeps the checks after it their time, the own-target check reads the compile pool's compile, discovery's
nested and indexed launch tuples, and one "no figure" line. Each test is cheap: a recorded sweep on a manual clock,
static discovery, or one line."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.pace import WALL_MARGIN_S
from kernelopt.tuning.replay import space_from_sweep
from kernelopt.tuning.session import tune
from kernelopt.tuning.tail_wall import NET_SIZES_KEPT, TAIL_SHARE, TARGET_COMPILE_S, TailCost, TailWall
from tests.test_pace12_cases import Paced, _sweep

DATA = Path(__file__).parent / "data"

# ------------------------------------------------------------------------------- l1: the checks after the search


def test_l1_the_tail_is_estimated_from_the_session_s_fastest_candidate_and_capped() -> None:
    """The estimate reads the fastest passing candidate's own seconds: its check for the net's sizes, across entries
    its check again and its re-time at one entry, its compile (at least the target's own) where a target is named;
    nothing before a candidate passed, never past the share of the wall."""
    fast = Result(config={"B": 1}, outcome=Outcome.OK, latency_us=10.0, check_s=4.0, bench_s=6.0, compile_s=1.0)
    slow = Result(config={"B": 2}, outcome=Outcome.OK, latency_us=20.0, check_s=90.0, bench_s=9.0)
    failed = Result.failed({"B": 3}, Outcome.RUN_TIMEOUT, "no reply within 60 s")
    one = TailCost(entries=1, target=False, wall_s=600.0)
    assert one.need_s([failed]) == 0.0
    assert one.need_s([slow, fast, failed]) == pytest.approx(NET_SIZES_KEPT * 4.0)
    two = TailCost(entries=2, target=True, wall_s=600.0)
    assert two.need_s([slow, fast]) == pytest.approx(NET_SIZES_KEPT * 4.0 + 4.0 + 2 * 10.0 / 2 + TARGET_COMPILE_S)
    assert TailCost(entries=2, target=True, wall_s=40.0).need_s([fast]) == pytest.approx(TAIL_SHARE * 40.0)


@pytest.mark.parametrize("kept", [True, False])
def test_l1_a_wall_bounded_session_leaves_its_checks_the_time_they_cost(kept: bool) -> None:
    """breaker18's h2 (inductor_scan, 2026-12-06 19:06 UTC): a session bounded by its 600 s wall spent it on its
    rounds and re-time, and the checks after it found no time: nothing written ("a rerun resumes"). Candidates of 40 s
    here (a check of 10 s, a timing of 30 s, two entries): the search now ends early enough that its checks fit at
    what this session's candidates cost (the entries' check, the net's sizes, the re-time at one entry), within the
    wall; without the tail, only the margin is left."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = Paced(s, clock, per_s=40.0, hung=set())
    cost = TailCost(entries=2, target=False, wall_s=600.0)
    budget = Budget(100, clock, wall_s=600.0)
    res = tune(space, ev, budget=budget, rng_seed=1, batch_size=4, tail=cost.need_s if kept else None)
    need = cost.need_s(res.results)
    assert need == pytest.approx(10.0 * NET_SIZES_KEPT + 10.0 + 2 * 40.0 / 2)  # 70 s
    assert res.retimed and res.best_config is not None
    wall = TailWall.of(budget)
    if kept:
        assert res.wall_s <= 600.0 - need and wall.left_s() >= need + WALL_MARGIN_S
        assert wall.cut("the written edit's check on the SHAPES entries", 10.0) is None
    else:
        assert wall.left_s() < need


# ------------------------------------------------------------------------- l2: the own-target check's compile


def test_l2_the_own_target_check_reads_the_session_s_compiles_and_says_how_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session on an NVIDIA GPU compiles its pick for the GPU's own target before the write; its compile pool and
    bench workers compiled that pick for that GPU already, into the session's Triton cache, which the check's compile
    process did not read (the pick compiled twice, about 5 s on the H100). The process is now given that cache (the
    same key: Triton serves it), each launch read from it is marked, and the line says how many. Here the process is
    stood in for (its environment caught, its report a launch Triton served from the cache); the cache hit itself is
    Triton's (``python3 benchmarks/own_target_cache.py``; the GPU phase gpu_leftovers19 on the H100)."""
    from kernelopt import proc
    from kernelopt.harness.target_compile import REPORT_MARK, LaunchCompile, TargetReport
    from kernelopt.tuning.compile_pool import CACHE_DIR
    from kernelopt.tuning.folder import TuneRequest, target_checked
    from tests.test_target18_cases import on_gpu

    envs: list[dict[str, str]] = []

    def compiled(argv, *, timeout_s, env=None, **_):  # type: ignore[no-untyped-def]
        envs.append(dict(env or {}))
        launch = LaunchCompile(kernel="add_kernel", shape={"n": 16384}, signature={"n": "i32"}, constexprs={"BLOCK": 512},
                               divisible=["n"], options={"num_warps": 4}, cached=True)  # fmt: skip
        report = TargetReport(folder=str(argv[-1]), launches=[launch])
        return proc.CommandResult(
            tuple(map(str, argv)), 0, REPORT_MARK + report.model_dump_json() + "\n", "", 0.1, False
        )

    monkeypatch.setattr(proc, "run_command", compiled)
    on_gpu(monkeypatch)
    folder = DATA / "tuning" / "add"
    base = (folder / "kernel.py").read_text()
    session = tmp_path / "session"
    prepared = SimpleNamespace(request=TuneRequest(folder=folder, device="cuda"), base_source=base,
                               problem=SimpleNamespace(reference_py=folder / "reference.py"), session_dir=session)  # fmt: skip
    checked = target_checked(prepared, base.replace("BLOCK=1024", "BLOCK=512"))  # type: ignore[arg-type]
    assert checked is not None and not checked.refused
    assert [e.get("TRITON_CACHE_DIR") for e in envs] == [str(session / CACHE_DIR)]
    assert ": 1 distinct launch(es) of add_kernel at the SHAPES entries, 1 of them read from the session's own " in (
        checked.line
    )


def test_l2_the_compile_process_hears_which_launches_triton_read_from_its_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The compile process tells a launch served from the cache by Triton's own word (``knobs.compilation.listener``,
    called by ``triton.compile`` with ``cache_hit``)."""
    import triton

    from kernelopt.harness.target_compile import _heard_cache_hits

    monkeypatch.setattr(triton.knobs.compilation, "listener", None)  # restored after: this process is pytest's
    hits = _heard_cache_hits()
    listener = triton.knobs.compilation.listener
    assert listener is not None
    listener(src=None, metadata={}, metadata_group={}, times=None, cache_hit=True)
    listener(src=None, metadata={}, metadata_group={}, times=None, cache_hit=False)
    assert hits == [True, False]


# ------------------------------------------------------------------- l3: nested and indexed tuples of launch settings

TUPLE_RUN = DATA / "leftovers17" / "tuple_run" / "kernel.py"
"""A 2-D scale whose tiles are a module tuple unpacked in ``run`` (``TILE = (16, 16)``, ``bm, bn = TILE``)."""
ROWS = "TILE = ((16, 16), (32, 8))"


def _found(source: str) -> dict[str, Any]:
    from kernelopt.tunables import discover_source

    return {t.key: t for t in discover_source(source)}


@pytest.mark.parametrize("read", ["    bm, bn = TILE[0]\n", "    bm = TILE[0][0]\n    bn = TILE[0][1]\n"])
def test_l3_a_nested_module_tuple_s_element_is_a_knob_written_where_it_is(read: str) -> None:
    """``TILE = ((16, 16), (32, 8))`` read as ``bm, bn = TILE[0]`` or ``TILE[0][0]`` was a computed setting, "tuned
    where it is computed", one value for every size. The element read by literal indices is now a knob keyed by its
    path (``TILE[0][1]``), written in the nested tuple; the guard reads a move of it through the unpacking (without
    masks, a tile that does not divide the original's is refused), and a launch option held so is read by the
    settings it computes (``BLOCK = nw * 32``), as a flat tuple's is (break17 b15, b16)."""
    from kernelopt.tunables import apply_source
    from kernelopt.tunables.guard import guard_edit
    from tests.test_break17_cases import TUPLE_NOMASK

    source = TUPLE_RUN.read_text().replace("TILE = (16, 16)", ROWS).replace("    bm, bn = TILE\n", read)
    found = _found(source)
    assert [(found[k].kind.value, found[k].value, found[k].location) for k in ("TILE[0][0]", "TILE[0][1]")] == [
        ("module_constant", 16, "kernel.py:8")
    ] * 2
    assert "scale_kernel:BLOCK_M" not in found
    written = apply_source(source, {"TILE[0][0]": 64, "TILE[0][1]": 8}).new_source
    assert "TILE = ((64, 8), (32, 8))\n" in written, written

    bare = source
    for old, new in TUPLE_NOMASK:
        bare = bare.replace(old, new)
    refused = guard_edit(bare, bare.replace(ROWS, "TILE = ((32, 16), (32, 8))"))
    assert refused.new_source is None and "does not divide every size the original" in (refused.note or ""), refused
    assert guard_edit(bare, bare.replace(ROWS, "TILE = ((16, 16), (64, 8))")).new_source is not None  # a row not read


def test_l3_a_launch_option_in_a_nested_tuple_is_read_by_what_it_computes(tmp_path: Path) -> None:
    """break17 b16's warps_tuple with its options a row of a nested tuple (``CFG = ((2, 3), (4, 1))``, ``nw, ns =
    CFG[0]``, ``BLOCK = nw * 32``): ``num_warps`` is the knob ``CFG[0][0]``, and a move of it moves ``BLOCK`` too (the
    net is cast), read through the unpacking, the element or the row read whole."""
    from kernelopt.tunables.readers import chained_values
    from tests.test_break17_cases import WARPS_TUPLE, _built

    source = (_built(tmp_path, "break16/warps_augmented", "t", WARPS_TUPLE) / "kernel.py").read_text()
    nested = source.replace("CFG = (2, 3)", "CFG = ((2, 3), (4, 1))").replace("nw, ns = CFG\n", "nw, ns = CFG[0]\n")
    found = _found(nested)
    assert (found["CFG[0][0]"].value, found["CFG[0][1]"].value) == (2, 3)

    def chained(text: str) -> dict[str, object]:
        return chained_values(list(_found(text).values()), text, ["num_warps"])

    assert chained(nested) == {"BLOCK": 64}
    assert chained(nested.replace("BLOCK = nw * 32", "BLOCK = CFG[0][0] * 32")) == {"line 19 (CFG[0][0])": None}
    assert chained(nested.replace("BLOCK = nw * 32", "BLOCK = block_of(CFG[0])")) == {"line 19 (CFG[0])": None}
    assert chained(nested.replace("BLOCK = nw * 32", "BLOCK = 64")) == {}


@pytest.mark.parametrize(
    ("read", "line"),
    [
        ("    i = 0\n    bm, bn = TILE[i]\n", "bm is read from TILE[i], a row picked by i at run time"),
        ("    bm, bn = TILE[int(M > 64)]\n", "bm is read from TILE[int(M > 64)], a row picked by int(M > 64) at run"),
        (
            "    i = 0\n    cfg = ((64, 4), (128, 8))[i]\n    bm, bn = cfg\n",
            "bm is read (through cfg) from ((64, 4), (128, 8))[i], a row picked by i at run time",
        ),
        (
            "    bm, bn = ((64, 4), (128, 8))[0]\n",
            "bm is read from ((64, 4), (128, 8))[0], a tuple written in the function",
        ),
    ],
)
def test_l3_a_tuple_read_by_a_run_time_index_is_no_knob_and_says_why(read: str, line: str) -> None:
    """``BLOCK, W = table[key]``, ``cfg = ((64, 4), (128, 8))[i]``: no one element is the value at every input (or the
    tuple is written where it is read), so none is a knob; the setting is tuned where it is computed, as before, and
    now a line says why the tuple's element is not the knob (``tunables`` prints it), never in silence."""
    source = TUPLE_RUN.read_text().replace("TILE = (16, 16)", ROWS).replace("    bm, bn = TILE\n", read)
    knob = _found(source)["scale_kernel:BLOCK_M"]
    assert knob.kind.value == "computed_setting" and (knob.helper_note or "").startswith(line), knob.helper_note
    assert not any(k.startswith("TILE[") for k in _found(source))


# ------------------------------------------------------------------------------------ l4: one "no figure" line


def test_l4_a_configuration_without_a_figure_is_said_in_one_wording_for_one_config_and_for_a_list() -> None:
    """``session.untimed_current`` (one configuration) and ``folder._lost_to_the_machine`` (a keyed list's entry) each
    worded "no figure" by hand, and the list's left out that its entry was timed again with the re-time's limit (it
    is, by the same ``_time_baseline``). Both are now ``session.no_figure_line``: the same words, naming what has no
    figure; ``--candidate-timeout-s`` is offered where a run went past its limit, not for the host's memory."""
    from kernelopt.tuning.folder import _lost_to_the_machine
    from kernelopt.tuning.session import SessionResult, StopReason, untimed_current

    current, other, pick = {"ROWS": 4}, {"ROWS": 1}, {"ROWS": 8}
    late = Result.failed(current, Outcome.RUN_TIMEOUT, "no reply within 60 s; cut at the session's pace")
    oom = Result.failed(other, Outcome.OUT_OF_MEMORY, "out of memory while timing: MemoryError: std::bad_alloc")
    late, oom = (r.model_copy(update={"failed_entry": "T=2,D=1030"}) for r in (late, oom))
    best = Result(config=pick, outcome=Outcome.OK, latency_us=10.0)
    result = SessionResult(best_config=pick, best_latency_us=10.0, current_config=current, current_latency_us=None,
                           results=[late, oom, best], retimed=[], evaluations=3, served=0, budget=3, space_size=3,
                           wall_s=1.0, stop=StopReason.CANDIDATES, strategy="exhaustive")  # fmt: skip
    one = untimed_current(result)
    listed = _lost_to_the_machine(result, [Config.of(other)])
    frame = "nor when timed again alone with the re-time's limit): a change is written only over a measured baseline"
    assert one == (
        "not written: the current configuration has no figure at T=2,D=1030 (the current ROWS=4 was not timed "
        f"(run_timeout: no reply within 60 s), {frame} (a loaded machine? run tune again, or give "
        "--candidate-timeout-s more)"
    )
    assert listed == (
        "not written: the current autotune list has no figure at T=2,D=1030 (ROWS=1 was not timed (out_of_memory: "
        f"out of memory while timing: MemoryError: std::bad_alloc), {frame} (a loaded machine? run tune again)"
    )
    timed = result.model_copy(
        update={"results": [late, oom, best, Result(config=other, outcome=Outcome.OK, latency_us=12.0)]}
    )
    assert _lost_to_the_machine(timed, [Config.of(other)]) is None  # timed again alone: it has its figure


# ------------------------------------------------------------------------------------------------ on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(330)
def test_on_cuda_a_wall_bounded_tune_writes_a_checked_pick_read_from_its_own_compiles(tmp_path: Path) -> None:
    """l1 and l2 on an NVIDIA GPU: ``tune --device cuda --json --budget-wall-s 45`` on examples/linear_bf16 (its
    space of six launch keywords far larger than 45 s can time) ends its search early enough that the checks after it
    run: no line says a check was not run for the wall, and the session ends within its wall and margin. Where it
    wrote, its pick's own-target check read the launches the session compiled (the json's ``target`` line counts
    them); that check is then timed again with the session's Triton cache and with an empty one, each printed."""
    import json
    import shutil
    import subprocess
    import sys
    import time

    from kernelopt.harness.target_compile import target_check
    from kernelopt.tuning.compile_pool import CACHE_DIR

    folder = Path(shutil.copytree(Path(__file__).parent.parent / "examples" / "linear_bf16", tmp_path / "linear"))
    before = (folder / "kernel.py").read_text()
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--budget-wall-s",
            "45"]  # fmt: skip
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    said = json.dumps(result)
    print(f"leftovers19 tune {took:.1f} s, stop {result.get('stop')}, written {result['written']}, "
          f"pace {result.get('pace')}")  # fmt: skip
    print(f"leftovers19 verdict: {result['verdict']}; edit_note: {result.get('edit_note')}; target: {result['target']}")
    assert "is spent" not in said and "a rerun resumes" not in said, said[-2000:]  # l1: every check after it ran
    assert result["wall_s"] <= 45.0 + 15.0
    if not result["written"]:
        return
    assert "read from the session's own compiles" in (result["target"] or ""), result["target"]  # l2
    written = (folder / "kernel.py").read_text()
    assert written != before
    session = folder / ".kernelopt"
    cache = next(session.rglob(CACHE_DIR))
    target = result["target"].split("compiled for ", 1)[1].split(" ", 1)[0]
    for name, used in (("the session's cache", cache), ("an empty cache", tmp_path / "empty")):
        t0 = time.monotonic()
        checked = target_check(written, folder / "reference.py", tmp_path / name.replace(" ", "_"), target, before,
                               asked=False, triton_cache=used)  # fmt: skip
        print(f"leftovers19 own-target check with {name}: {time.monotonic() - t0:.2f} s: {checked.line}")
