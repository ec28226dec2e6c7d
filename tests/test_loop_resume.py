"""Resume after Ctrl-C, an exception or kill -9 at every stage: no committed version lost, no version
number reused, no half-applied edit left in kernel.py, and the same history as an uninterrupted run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kernelopt.errors import UsageError, WorkspaceError
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.loop.stop import StopReason
from kernelopt.loop.summary import LoopSummary
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, Fakes, block_of, commit_card, journal, make_fakes, subjects

REPO = Path(__file__).resolve().parents[1]
SCENARIO = {2: "regress"}  # V1 passes, V2 fails (revert marker)


def setup(ws_root: Path) -> tuple[Workspace, Fakes]:
    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    fakes.implementer.modes.update(SCENARIO)
    return ws, fakes


def run(ws: Workspace, fakes: Fakes, **request: object) -> LoopSummary:
    return OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(**request)).run()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str, list[str]]:
    """The uninterrupted run: commit subjects, kernel.py, record files."""
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    ws, fakes = setup(tmp_path_factory.mktemp("ref"))
    s = run(ws, fakes, max_iterations=2)
    assert s.stop is not None and s.stop.reason is StopReason.MAX_ITERATIONS
    return subjects(ws), ws.kernel_py.read_text(), sorted(p.name for p in ws.memory_dir.glob("v*.json"))


def check_same_as_reference(ws: Workspace, reference: tuple[list[str], str, list[str]]) -> None:
    log, kernel, records = reference
    assert subjects(ws) == log
    assert ws.kernel_py.read_text() == kernel
    assert sorted(p.name for p in ws.memory_dir.glob("v*.json")) == records
    versions = [s.split(":")[0] for s in subjects(ws)[1:]]
    assert versions == sorted(set(versions), key=lambda v: int(v[1:]))  # no version reused
    for n in range(len(records)):
        r = ws.memory.read(n)
        assert r.git_commit_hash is not None
        assert ws.file_at(r.git_commit_hash, f"memory/v{n}.json")  # the named commit exists
    assert ws.is_clean()


KILL_POINTS = [
    ("gate", 0),  # V0: baseline gate
    ("profile", 0),  # V0: profile
    ("committed", 0),  # V0: between the commit and the hash amend
    ("profile", 1),
    ("plan", 1),
    ("implement", 1),
    ("correctness", 1),
    ("gate", 1),
    ("record", 1),
    ("committed", 1),
    ("stop", 1),
    ("gate", 2),  # the failing iteration: before its revert marker
    ("committed", 2),  # the revert marker committed, hash not yet amended
]


INTERRUPTS = [(p, v, KeyboardInterrupt) for p, v in KILL_POINTS] + [
    ("implement", 1, SystemExit),
    ("committed", 2, SystemExit),
]


@pytest.mark.parametrize(("point", "version", "exc"), INTERRUPTS)
def test_interrupt_then_resume(
    ws_root: Path, reference: tuple[list[str], str, list[str]], point: str, version: int, exc: type[BaseException]
) -> None:
    ws, fakes = setup(ws_root)
    fakes.killer.arm(point, version, exc=exc)
    with pytest.raises(exc):
        run(ws, fakes, max_iterations=2)
    assert fakes.killer.fired == [(point, version)]
    # After Ctrl-C the in-flight stage is rolled back: kernel.py is the last committed version.
    assert ws.is_clean(paths=["kernel.py"])
    assert journal(ws)["status"] == "running"
    s = run(ws, fakes, resume=True)
    assert s.stop is not None and s.stop.reason is StopReason.MAX_ITERATIONS
    check_same_as_reference(ws, reference)


def test_rerun_without_resume_flag_continues_too(ws_root: Path, reference: tuple[list[str], str, list[str]]) -> None:
    ws, fakes = setup(ws_root)
    fakes.killer.arm("plan", 2)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=2)
    run(ws, fakes)  # plain re-run: the interrupted run's settings (max_iterations=2) still hold
    check_same_as_reference(ws, reference)


def test_half_written_kernel_is_rolled_back_on_interrupt(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    fakes.implementer.modes[1] = "half"
    fakes.killer.arm("implement", 1)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=1)
    assert ws.kernel_py.read_text() == ws.file_at("HEAD", "kernel.py")
    fakes.implementer.modes[1] = ""
    run(ws, fakes, resume=True)
    assert block_of(ws) == 128 and subjects(ws)[-1].startswith("V1: ")


CHILD = """
import sys
sys.path[:0] = [{src!r}, {repo!r}]
from tests.loop_fakes import make_fakes
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.settings import LoopRequest
from kernelopt.workspace import Workspace

fakes = make_fakes()
fakes.implementer.modes.update({{2: "regress", **{modes!r}}})
fakes.killer.arm({point!r}, {version!r}, hard=True)
OptimizeLoop(Workspace({ws!r}), fakes.collaborators(), LoopRequest(max_iterations=2)).run()
"""


@pytest.mark.parametrize(
    ("point", "version", "modes", "dirty"),
    [
        ("implement", 1, {1: "half"}, True),  # kill -9 with a half-written kernel.py on disk
        ("gate", 2, {}, True),  # the candidate is in kernel.py while the gate runs
        ("committed", 1, {}, False),  # committed, hash not yet amended
        ("plan", 2, {}, False),
    ],
)
def test_kill_9_then_resume(
    ws_root: Path,
    reference: tuple[list[str], str, list[str]],
    point: str,
    version: int,
    modes: dict[int, str],
    dirty: bool,
) -> None:
    ws, fakes = setup(ws_root)
    code = textwrap.dedent(CHILD).format(
        src=str(REPO / "src"), repo=str(REPO), modes=modes, point=point, version=version, ws=str(ws.root)
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=os.environ)
    assert proc.returncode == -9, proc.stderr
    state = journal(ws)
    assert state["status"] == "running" and state["current"]["version"] == version
    assert ws.is_clean(paths=["kernel.py"]) is not dirty  # nothing could clean up after kill -9
    fakes.implementer.modes.update({k: "" for k in modes if k != 2})
    run(ws, fakes, resume=True)
    check_same_as_reference(ws, reference)


# -- run boundaries ---------------------------------------------------------------------------------


def test_resume_flag_needs_an_interrupted_run(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    with pytest.raises(UsageError, match="nothing to resume"):
        run(ws, fakes, resume=True)
    run(ws, fakes, max_iterations=1)
    with pytest.raises(UsageError, match=r"already stopped \(max_iterations: 1 iteration\(s\) run, limit 1\)"):
        run(ws, fakes, resume=True)


def test_a_new_run_continues_the_version_numbers(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    run(ws, fakes, max_iterations=1)
    s = run(ws, fakes, max_iterations=1)
    assert [o.version for o in s.this_run] == [2] and s.iterations == 1
    assert [x.split(":")[0] for x in subjects(ws)[1:]] == ["V0", "V1", "V2"]
    assert fakes.profiler.calls == [0, 1, 2]  # V0 is not redone


def test_a_number_only_a_profile_holds_is_taken_and_a_plan_s_is_never_reused(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    run(ws, fakes, max_iterations=1)
    (ws.profile_dir(2)).mkdir()  # e.g. a manual `kernelopt profile` left profiles/v2/: no plan took it (late57 l272)
    (ws.profile_dir(2) / "summary.json").write_text("{}")
    s = run(ws, fakes, max_iterations=1)
    assert [o.version for o in s.this_run] == [2]  # the next version takes it and profiles it again
    ws.plan_path(3).write_text("# a plan written by hand\n")  # a plan's number is never reused
    s = run(ws, fakes, max_iterations=1)
    assert [o.version for o in s.this_run] == [4]


def test_flags_override_an_interrupted_runs_settings(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    fakes.killer.arm("plan", 1)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=3, repair_attempts=0)
    s = run(ws, fakes, max_iterations=1)
    assert s.iterations == 1
    assert journal(ws)["settings"]["repair_attempts"] == 0
    assert journal(ws)["settings"]["stop_overrides"] == {"max_iterations": 1}


def test_wall_time_accumulates_across_sessions(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    profile = fakes.profiler.profile

    def slow_profile(workspace: Workspace, version: int):  # type: ignore[no-untyped-def]
        fakes.clock.now += 4 * 60  # every profile takes four minutes of (fake) wall time
        return profile(workspace, version)

    fakes.profiler.profile = slow_profile  # type: ignore[method-assign]
    fakes.killer.arm("plan", 1)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_wall_time_min=10.0)
    assert journal(ws)["elapsed_s"] == pytest.approx(8 * 60)  # V0 and V1 profiles
    fakes.clock.now += 3600  # the hour between the sessions does not count
    s = run(ws, fakes)
    assert s.stop is not None and s.stop.reason is StopReason.MAX_WALL_TIME
    # V1's profile (4 min, taken in the first session) is what another version costs: 2 min are left
    assert s.stop.detail.startswith("8.0 min elapsed: another version needs at least 240 s") and s.iterations == 1
    assert s.stop.detail.endswith("120 s are left of the 10 min limit")
    assert journal(ws)["sessions"] == 2


def test_lock_refuses_a_second_loop(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    code = (
        "import sys, time; from kernelopt.loop.journal import Journal; "
        f"Journal(__import__('pathlib').Path({str(ws.state_dir)!r})).acquire(); print('held', flush=True); "
        "sys.stdin.read()"
    )
    src = str(Path(__file__).resolve().parents[1] / "src")
    holder = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": src},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(UsageError, match=f"another kernelopt optimize is running on .* \\(pid {holder.pid}\\)"):
            run(ws, fakes, max_iterations=1)
    finally:
        holder.communicate("")
    run(ws, fakes, max_iterations=1)


def test_uncommitted_kernel_edit_refuses_a_new_run(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    ws.kernel_py.write_text(ws.kernel_py.read_text() + "# my edit\n")
    with pytest.raises(WorkspaceError, match="kernel.py has uncommitted changes"):
        run(ws, fakes, max_iterations=1)
    assert "# my edit" in ws.kernel_py.read_text()


def test_head_moved_during_an_interrupted_iteration(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    fakes.killer.arm("gate", 1, hard=False)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=1)
    (ws.root / "kernel.py").write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 256"))
    ws.commit(["kernel.py"], "user: hand edit")
    s = run(ws, fakes)
    warnings = [e.message for e in fakes.sink.events if "HEAD moved" in e.message]
    assert warnings and s.stop is not None
    # the abandoned V1's profile summaries go into the end-of-run commit
    assert subjects(ws)[-3] == "user: hand edit" and subjects(ws)[-2].startswith("V2: ")
    assert subjects(ws)[-1].startswith("end of run: profile summaries")
    assert not ws.memory.exists(1)  # the abandoned V1 left no record (its plan and profile stay, unused)
    assert ws.plan_path(1).is_file()


def test_interrupted_gate_leaves_no_active_record(ws_root: Path) -> None:
    """Ctrl-C in the gate: the uncommitted record is masked, so readers of unmasked memory skip it."""
    ws, fakes = setup(ws_root)
    fakes.killer.arm("gate", 1)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=1)
    assert ws.memory.read(1).masked is True
    assert ws.latest_unmasked() == 0
    run(ws, fakes, resume=True)
    rec = ws.memory.read(1)
    assert rec.masked is False and rec.quality_gate.result is not None


def test_resume_keeps_edits_the_loop_did_not_make(ws_root: Path) -> None:
    """Someone edits kernel.py while the run is interrupted: the resume saves the edit before restoring."""
    ws, fakes = setup(ws_root)
    fakes.killer.arm("gate", 1)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=1)
    ws.kernel_py.write_text(ws.kernel_py.read_text() + "\n# MY PRECIOUS EDIT\n")
    run(ws, fakes, resume=True)
    backups = list((ws.root / ".kernelopt" / "backups").glob("kernel.py.v1.*"))
    assert len(backups) == 1 and "MY PRECIOUS EDIT" in backups[0].read_text()


def test_a_task_card_edit_while_stopped_is_kept_on_resume(ws_root: Path) -> None:
    ws, fakes = setup(ws_root)
    fakes.killer.arm("gate", 1)
    with pytest.raises(KeyboardInterrupt):
        run(ws, fakes, max_iterations=2)
    edited = ws.readme.read_text() + "\nA note the user adds while the run is stopped.\n"
    ws.readme.write_text(edited)
    s = run(ws, fakes, resume=True, max_iterations=2)
    assert s.stop is not None and ws.readme.read_text() == edited
    assert not any(p.error_type == "write_violation" for r in ws.memory.records() for p in r.pitfalls_and_fixes)
    assert any("README.md (the task card) was edited: accepted" in e.message for e in fakes.sink.events)


def test_a_protected_file_changed_between_runs_is_refused_in_one_line(ws_root: Path) -> None:
    """Issue 23: a reference.py changed between runs was used as the truth with no warning."""
    ws, fakes = setup(ws_root)
    run(ws, fakes, max_iterations=1)
    commits = subjects(ws)
    for rel, what in (
        ("reference.py", "V0's"),
        ("test_kernel.py", "the committed one"),
        ("README.md", "the committed one"),
    ):
        original = (ws.root / rel).read_text()
        (ws.root / rel).write_text(original + "\n# changed between runs\n")
        with pytest.raises(WorkspaceError) as refused:
            run(ws, fakes, max_iterations=1)
        line = refused.value.one_line()
        assert line.startswith(f"{ws.root / rel} differs from {what}") and "refusing to use it" in line
        assert refused.value.exit_code == 2 and "\n" not in line and subjects(ws) == commits
        (ws.root / rel).write_text(original)
    commit_card(ws, max_iterations=5)  # a committed task-card edit is the user's: accepted
    assert run(ws, fakes, max_iterations=1).stop is not None
