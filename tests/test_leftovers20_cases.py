"""leftovers20: the eighteenth session's "Left" items (docs/faults.md, "Leftovers (leftovers20, 2026-12-06)"):
discovery through another name, the net's wording, a user's own linked kernel.py in Stage 3, the guard's one reader
of links. Each test is cheap: static discovery, a stand-in evaluator, or one in-process stage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tuning.candidate import Outcome
from kernelopt.tuning.net import DerivedSize, SizeClass, cast
from kernelopt.tuning.problem import ProblemShape
from tests.test_break17_cases import TUPLE_NOMASK

DATA = Path(__file__).parent / "data"
TUPLE_RUN = DATA / "leftovers17" / "tuple_run" / "kernel.py"
"""A 2-D scale whose tiles are a module tuple unpacked in ``run`` (``TILE = (16, 16)``, ``bm, bn = TILE``)."""
ROWS = "TILE = ((16, 16), (32, 8))"


def _found(source: str, evaluation: Any = None) -> dict[str, Any]:
    from kernelopt.tunables import discover_source

    return {t.key: t for t in discover_source(source, evaluation=evaluation)}


def _bare(source: str) -> str:
    """``source`` without masks, its grid ``M // bm`` by ``N // bn``: a tile must divide its size (break17's b15)."""
    for old, new in TUPLE_NOMASK:
        source = source.replace(old, new)
    return source


# ------------------------------------------------------------------------ l5: discovery through another name


@pytest.mark.parametrize(
    ("tiles", "read", "grid", "keys"),
    [
        (ROWS, "    row = TILE[0]\n    bm, bn = row\n", None, ("TILE[0][0]", "TILE[0][1]")),
        (ROWS, "    cfg = TILE[0]\n    bm, bn = cfg[0], cfg[1]\n", None, ("TILE[0][0]", "TILE[0][1]")),
        (
            ROWS,
            "    cfg = TILE\n    row = cfg[0]\n    bm = row[0]\n    bn = row[1]\n",
            None,
            ("TILE[0][0]", "TILE[0][1]"),
        ),
        (None, "    bm, bn = TILE[0], TILE[1]\n", None, ("TILE[0]", "TILE[1]")),
        (None, "    cfg = TILE\n    bm, bn = cfg[0], cfg[1]\n", "(M // cfg[0], N // cfg[1])", ("TILE[0]", "TILE[1]")),
    ],
    ids=["row-unpacked", "row-paired", "chain", "paired", "paired-grid-through-cfg"],
)
def test_l5_a_tuple_read_through_another_name_is_a_knob_the_guard_reads_alike(
    tiles: str | None, read: str, grid: str | None, keys: tuple[str, str]
) -> None:
    """``row = TILE[0]; bm, bn = row`` and ``bm, bn = cfg[0], cfg[1]`` were computed settings with no line. The tuple
    read through a name bound once to it is now the knob, written in the tuple; and the guard names the element so
    too: without masks, a tile that does not divide the original's is refused (``bm, bn = TILE[0], TILE[1]`` was
    offered as the knob TILE[0] while the guard read no ``bm``: ``TILE = (32, 16)`` passed it, a wrong kernel at
    M = 48), through ``bm`` or through the grid's ``M // cfg[0]``."""
    from kernelopt.tunables import apply_source
    from kernelopt.tunables.guard import guard_edit

    text = TUPLE_RUN.read_text()
    old_tiles = tiles or "TILE = (16, 16)"
    source = text.replace("TILE = (16, 16)", old_tiles).replace("    bm, bn = TILE\n", read)
    found = _found(source)
    assert [(found[k].kind.value, found[k].value, found[k].location) for k in keys] == [
        ("module_constant", 16, "kernel.py:8")
    ] * 2
    assert "scale_kernel:BLOCK_M" not in found
    moved, kept = ("TILE = ((32, 16), (32, 8))", "TILE = ((16, 16), (64, 8))") if tiles else ("TILE = (32, 16)", None)
    written = apply_source(source, {keys[0]: 32}).new_source
    assert f"{moved}\n" in written, written
    bare = _bare(source)
    if grid is not None:
        bare = bare.replace("(M // bm, N // bn)", grid)
    refused = guard_edit(bare, bare.replace(old_tiles, moved))
    assert refused.new_source is None and "does not divide every size the original" in (refused.note or ""), refused
    if kept is not None:
        assert guard_edit(bare, bare.replace(old_tiles, kept)).new_source is not None  # a row not read


@pytest.mark.parametrize(
    ("tiles", "read", "line"),
    [
        (
            ROWS,
            "    cfg = TILE[int(M > 64)]\n    bm, bn = cfg[0], cfg[1]\n",
            "bm is read (through cfg) from TILE[int(M > 64)], a row picked by int(M > 64) at run time",
        ),
        (
            "TILE = [16, 16]\nx = TILE\nx[0] = 32",
            "    bm, bn = TILE\n",
            "bm is read from TILE, so no element of it is its knob: 'TILE' is changed in place at line(s) 10 (through x)",
        ),
        (
            "TILE = [16, 16]\ncfgs = TILE\ncfgs.append(8)",
            "    cfg = TILE\n    bm, bn = cfg[0], cfg[1]\n",
            "bm is read from TILE, so no element of it is its knob: 'TILE' is changed in place at line(s) 10 (through "
            "cfgs)",
        ),
        (
            "TILE = [16, 16]",
            "    t = TILE\n    t[0] = 32\n    bm, bn = TILE\n",
            "bm is read from TILE, so no element of it is its knob: 'TILE' is changed in place at line(s) 24 (in run(), "
            "through t)",
        ),
    ],
    ids=["paired-run-time-row", "changed-through-x", "appended-through-cfgs", "changed-in-run"],
)
def test_l5_a_tuple_no_element_of_which_is_the_value_says_why(tiles: str, read: str, line: str) -> None:
    """A row picked at run time and read pairwise, or a list changed in place through another name (at the module or
    in ``run``, where loses20's l2 read only the module's own ``TILE[0] = 32``), was no knob with no line, or (the
    last three) the knob TILE[0] offered at 16 while every launch ran 32. Now no element is a knob, and the line says
    why; the setting is tuned where it is computed."""
    source = TUPLE_RUN.read_text().replace("TILE = (16, 16)", tiles).replace("    bm, bn = TILE\n", read)
    found = _found(source)
    assert not any(k.startswith("TILE[") for k in found), sorted(found)
    knob = found["scale_kernel:BLOCK_M"]
    assert knob.kind.value == "computed_setting" and (knob.helper_note or "").startswith(line), knob.helper_note


_CONFIGS = """CONFIGS = [
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}, num_warps=4, num_stages=2),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32}, num_warps=2, num_stages=2),
]
"""
_ADDED = 'triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32}, num_warps=2, num_stages=2)'


MM_AUTOTUNE = DATA / "breaker" / "mm_autotune" / "kernel.py"


def mm_with(change: str) -> str:
    """breaker's mm_autotune with its list bound as ``CONFIGS`` (two configs), ``change`` after it, and the autotune
    reading ``configs=CONFIGS``."""
    text = MM_AUTOTUNE.read_text()
    written = text[text.index("@triton.autotune(") : text.index("    key=")]
    return text.replace(written, f"{_CONFIGS}{change}\n\n\n@triton.autotune(\n    configs=CONFIGS,\n")


def refused_or_read_back(source: str, line: str, *, at_run_time: bool) -> None:
    """``configs=CONFIGS`` of ``source`` (:func:`mm_with`), changed in place so that its autotuner holds three configs:
    refused statically with ``line`` in its reason; with the import's read-back (the three configs), read as built,
    unless a function changes it as it runs (``at_run_time``): still refused."""
    from kernelopt.tunables import AutotuneConfig, AutotuneEvaluation, AutotuneSpace

    listed = _found(source)
    assert not any(".configs[" in k for k in listed), sorted(listed)
    refusal = listed["matmul_kernel.configs"].refused_reason or ""
    assert refusal.startswith("configs=CONFIGS: 'CONFIGS' is changed in place ") and line in refusal, refusal
    held = [
        AutotuneConfig(kwargs={"BLOCK_M": m, "BLOCK_N": 32, "BLOCK_K": k}, num_warps=w, num_stages=2)
        for m, k, w in ((32, 16, 4), (16, 32, 2), (64, 32, 2))
    ]
    evaluation = AutotuneEvaluation(spaces={"matmul_kernel": AutotuneSpace(kernel="matmul_kernel", configs=held)})
    read = _found(source, evaluation)
    if at_run_time:
        assert "as it runs, after the import's list is read back" in (
            read["matmul_kernel.configs"].refused_reason or ""
        )
        assert not any(".configs[" in k for k in read)
    else:
        assert read["matmul_kernel.configs[2].BLOCK_M"].value == 64
        assert (read["matmul_kernel.configs[2].BLOCK_M"].value_source or "").startswith("evaluated")


@pytest.mark.parametrize(
    ("change", "line"),
    [
        (f"CONFIGS.append({_ADDED})", "at line(s) 12 after its binding"),
        (f"cfgs = CONFIGS\ncfgs.append({_ADDED})", "at line(s) 13 (through cfgs) after its binding"),
        (f"x = CONFIGS\nx[0] = {_ADDED}", "at line(s) 13 (through x) after its binding"),
        (f"\n\ndef more():\n    x = CONFIGS\n    x.append({_ADDED})", "at line(s) 16 (in more(), through x) after"),
    ],
    ids=["appended", "appended-through-cfgs", "set-through-x", "appended-in-a-function"],
)
def test_l5_an_autotune_list_changed_in_place_is_read_back_or_refused(change: str, line: str) -> None:
    """``configs=CONFIGS`` of a list changed in place (directly or through another name) offered the literal's two
    configs as the list, while the autotuner held three. Statically it is refused with the line that changes it; with
    the import's read-back it is a list built by code (its three configs, written as an explicit list), unless a
    function changes it as it runs (after the read-back): still refused."""
    refused_or_read_back(mm_with(change), line, at_run_time="in more()" in line)
    plain = _found(mm_with(""))
    assert plain["matmul_kernel.configs[1].BLOCK_M"].value == 16 and "matmul_kernel.configs" not in plain


# ------------------------------------------------------------------------------------------- l6: the net's words

WRONG = "output not written: 1024 of 1536 elements still hold the poison pattern"


@pytest.mark.parametrize(("kind", "bisect"), [(SizeClass.FLOOR, False), (SizeClass.RESIDUE, True)])
@pytest.mark.parametrize(
    ("stop", "words"),
    [
        ((Outcome.RUN_TIMEOUT, "no reply within 60 s"), "no reply within the limit (the written kernel)"),
        ((Outcome.WRONG_RESULT, WRONG), "reference.py did not build it again: run_error: ValueError: n too small"),
    ],
    ids=["no-reply", "not-built-again"],
)
def test_l6_a_ladder_stopped_after_a_passing_try_says_it_was_checked_up_to_that_try(
    kind: SizeClass, bisect: bool, stop: tuple[Outcome, str], words: str
) -> None:
    """A floor ladder (and the joint residue's search) that passed n=3072 and then stopped with no verdict at n=1536
    reported the size "correct at n=3072", the stop unnamed and nothing unchecked beside a kernel written. It is now
    checked up to that try and unchecked past it, said in the line and in the unchecked line, with the stop's cure."""
    tries = (_n(3072), _n(1536)) if bisect else (_n(3072), _n(1536), _n(768))  # the search tries 3072, then 1536
    sizes = [DerivedSize(kind=kind, tries=tries, bisect=bisect)]
    built: list[int] = []

    def build_at(shape: ProblemShape) -> tuple[Outcome, str | None]:
        built.append(shape.kwargs["n"])
        again = shape.kwargs["n"] == 1536 and built.count(1536) > 1
        return (Outcome.RUN_ERROR, "ValueError: n too small") if again else (Outcome.OK, None)

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        return stop if (source, shape.kwargs["n"]) == ("written", 1536) else (Outcome.OK, None)

    net = cast(sizes, "original", "written", check_at, build_at=build_at)
    check = net.checks[0]
    assert (check.passed, check.unchecked, check.shape.kwargs["n"]) == (True, True, 3072), net
    assert f"correct at n=3072 (checked up to that try, unchecked past it: n=1536: {words}" in net.line(), net.line()
    cure = "a longer --candidate-timeout-s" if stop[0] is Outcome.RUN_TIMEOUT else "reference.py building its inputs"
    line = net.unchecked_line() or ""
    assert "(past n=3072, checked up to it)" in line and cure in line and "--budget-wall-s" not in line, line
    assert [c.unchecked_label() for c in net.unchecked] == ["past n=3072, checked up to it"]  # the json's net_unchecked


def test_l6_reference_py_not_building_a_size_again_is_not_called_want_of_time() -> None:
    """The line "reference.py did not build it again" (the written kernel failed, and reference.py, which had built the size,
    raised building it for the original's run) was counted "for want of time", its cure "a longer --budget-wall-s":
    untrue of a build's own failure. It is its own cause with its own cure; a rebuild with no reply is a request's
    limit, and one the machine failed is the machine's."""
    calls: dict[str, int] = {}

    def net_with(again: tuple[Outcome, str]) -> Any:
        calls.clear()

        def build_at(shape: ProblemShape) -> tuple[Outcome, str | None]:
            calls["built"] = calls.get("built", 0) + 1
            return again if calls["built"] > 1 else (Outcome.OK, None)

        def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
            return (Outcome.WRONG_RESULT, WRONG) if source == "written" else (Outcome.OK, None)

        return cast(
            [DerivedSize(kind=SizeClass.PAST, tries=(_n(3073),))], "original", "written", check_at, build_at=build_at
        )

    own = net_with((Outcome.RUN_ERROR, "ValueError: n too small"))
    assert own.failed is None and own.checks[0].rebuilt and not own.checks[0].limit, own
    assert own.unchecked_line() == (
        "the net did not check the written kernel at 1 of its 1 sizes where reference.py, which had built the size, "
        "failed to build it again for the original's run (n=3073): it is unchecked there, where the original may run; "
        "reference.py building its inputs there every time (its own failure, which no longer wall cures) checks them"
    )
    late = net_with((Outcome.RUN_TIMEOUT, "no reply within 60 s"))
    assert late.checks[0].limit and "a longer --candidate-timeout-s" in (late.unchecked_line() or "")
    crashed = net_with((Outcome.WORKER_CRASH, "the worker died (SIGKILL) without a reply"))
    assert crashed.checks[0].machine and "a rerun on a machine less loaded" in (crashed.unchecked_line() or "")


def _n(n: int) -> ProblemShape:
    return ProblemShape(kwargs={"n": n})


# ------------------------------------------------------------------ l7: the user's own linked kernel.py in Stage 3

_EDIT_IN_PLACE = (
    "from pathlib import Path; p = Path('kernel.py'); p.write_text(p.read_text().replace('num_warps=4', 'num_warps=8'))"
)


def test_l7_a_user_s_linked_kernel_is_edited_through_its_link_and_a_link_the_agent_makes_is_still_refused(
    ws_root: Path, tmp_path: Path
) -> None:
    """A workspace whose kernel.py the user keeps as a link to their project's file (which loses20 keeps) failed every
    Stage 3 of the agent path, "the agent made kernel.py a symbolic link", untrue: the link was theirs, present at the
    snapshot. An agent that edits kernel.py through it passes (the user's file holds the edit, the link the same); one
    that points it at a copy of its own is refused as before (agents19's a6) and the user's link pointed back."""
    import shlex
    import sys

    from kernelopt.backends.agent_cli import AgentCliImplementer
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import run_implement

    from .backends_support import AGENTS, make_plan, make_ws, write_plan

    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    mine.write_bytes(ws.kernel_py.read_bytes())
    assert "num_warps=4" in mine.read_text()
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    python = shlex.quote(sys.executable)

    def stage_3(command: str, env: dict[str, str] | None = None) -> Any:
        backend = AgentCliImplementer({"command": command, "env": env or {}, "timeout_s": 20})
        return run_implement(
            ws, 1, make_plan(), backend, guard=RunGuard(ws), check=None, summary=None, history=[], repair_attempts=0
        )

    edited = stage_3(f"{python} -c {shlex.quote(_EDIT_IN_PLACE)}")
    assert edited.ok and not edited.violations, (edited.reason, edited.violations)
    assert "+" in edited.diff and "num_warps=8" in edited.diff
    assert ws.kernel_py.is_symlink() and Path(ws.kernel_py.readlink()) == mine
    assert "num_warps=8" in mine.read_text()
    before = mine.read_bytes()
    linked = stage_3(f"{python} {shlex.quote(str(AGENTS / 'linker19.py'))}", {"LINK_OUT": str(tmp_path / "copy.py")})
    assert not linked.ok and linked.violations == ["kernel.py (made a symbolic link)"], linked.violations
    assert ws.kernel_py.is_symlink() and Path(ws.kernel_py.readlink()) == mine and mine.read_bytes() == before


# ------------------------------------------------------------------------------- l8: the guard's one link reader


def test_l8_the_snapshot_the_backup_and_the_stage_s_links_read_a_link_alike(ws_root: Path, tmp_path: Path) -> None:
    """The guard read a workspace link in three places its own way (the snapshot's digest, ``GuardPoint.links``,
    ``capture``'s ``Link``); one reader now, ``Link.of``. A linked kernel.py and a dangling link: the snapshot's entry
    is the link's digest (where it points and what it holds, unchanged: a file re-pointed is a change), the backup the
    same link, the stage's links its target; a plain file is no link."""
    import hashlib
    import os

    from kernelopt.stages.guard import Link, RunGuard, snapshot

    from .backends_support import make_ws

    ws = make_ws(ws_root)
    mine = tmp_path / "kernel.py"
    mine.write_bytes(ws.kernel_py.read_bytes())
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    (ws.root / "gone.py").symlink_to(tmp_path / "nothing.py")
    point = RunGuard(ws).begin(["kernel.py", "gone.py", "reference.py"], git_state=False)
    kept = point.kept["kernel.py"]
    assert kept == Link(str(mine), mine.read_bytes()) and point.kept["gone.py"] == Link(
        str(tmp_path / "nothing.py"), None
    )
    assert point.links == {"kernel.py": str(mine), "gone.py": str(tmp_path / "nothing.py")}
    written = "link:" + hashlib.sha256(os.fsencode(str(mine)) + b"\0" + mine.read_bytes()).hexdigest()
    assert point.snapshot["kernel.py"] == kept.digest == written  # the digest as the snapshot wrote it before
    assert isinstance(point.kept["reference.py"], bytes) and Link.of(ws.reference_py) is None
    mine.write_text("# the user's edit\n")
    assert snapshot(ws.root)["kernel.py"] != point.snapshot["kernel.py"]  # what it holds is part of its entry
