"""newuser17: a new user's first hour on a fresh clone, seventeenth trial (docs/faults.md, "newuser17").

Each case is a fault the user met with a folder of KernelBench-style problems of their own (a good, a wrong, a
slow and a broken kernel, a reference that raises) and with workspaces they edited by hand between runs, replayed
on the CPU with real files, real git and the real commands."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import KERNELS

ROOT = Path(__file__).resolve().parents[1]
KERNELBENCH = ROOT / "tests" / "data" / "kernelbench"


def test_n101_a_problem_whose_files_changed_since_its_row_runs_again_on_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user's mixed folder: `kernelopt batch mix --device cpu --out mixout` gave `wrong` a FAIL ("output differs
    from the reference ... 8277 of 16384 elements"); they fixed its kernel.py and ran the same command again, as
    the docs say a rerun resumes: the table still said FAIL "output differs" for a kernel that was no longer
    there, and not a word (a finished row was skipped by its name alone); `--fresh` ran every problem again. Now
    a row keeps the digests of the files it ran from, and a problem whose files changed since runs again, said in
    one line; the others stand. A workspace of the old files holding recorded versions (`--optimize`: V0
    committed, which `kernelopt optimize` would refuse to continue from other files) is moved aside, never
    deleted."""
    import git

    from kernelopt.batch.model import BatchMode, BatchTable
    from kernelopt.batch.problems import BatchItem
    from kernelopt.batch.runner import BatchEvent, EventKind, resumed
    from kernelopt.cli.app import main
    from kernelopt.workspace import Workspace

    mix = tmp_path / "mix"
    for name in ("broken", "noref"):
        (mix / name).mkdir(parents=True)
        shutil.copy(KERNELBENCH / "relu" / "kernel.py", mix / name / "kernel.py")
    shutil.copy(KERNELBENCH / "relu" / "reference.py", mix / "broken" / "reference.py")
    (mix / "broken" / "kernel.py").write_text("import torch\nclass ModelNew(torch.nn.Module)\n    pass\n")
    out = tmp_path / "out"
    argv = ["batch", str(mix), "--device", "cpu", "--out", str(out)]
    assert main(argv) == 0
    first = {r["problem"]: r for r in json.loads((out / "batch.json").read_text())["rows"]}
    assert "syntax error at line 2" in first["broken"]["reason"] and set(first["broken"]["sources"]) == {
        "kernel.py",
        "reference.py",
    }
    capsys.readouterr()
    (mix / "broken" / "kernel.py").write_text("import torch\n\nclass ModelNew(torch.nn.Module:\n    pass\n")
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "note: broken: kernel.py changed since its row in batch.json: running it again" in err, err
    assert "noref" not in err, err  # its files are as they were: its row stands, unsaid
    again = {r["problem"]: r for r in json.loads((out / "batch.json").read_text())["rows"]}
    assert "syntax error at line 3" in again["broken"]["reason"] and again["noref"] == first["noref"]

    # --optimize: the old row's workspace holds V0; it is moved aside before the problem runs again
    ws = Workspace.create("broken", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=out)
    git.Repo(ws.root).git.commit("--allow-empty", "-m", "V0: baseline (the kernel as given)")
    row = BatchTable.model_validate(json.loads((out / "batch.json").read_text())).rows[0]
    table = BatchTable(
        directory=str(mix), mode=BatchMode.OPTIMIZE, rows=[row.model_copy(update={"workspace": str(ws.root)})]
    )
    item = BatchItem(problem="broken", folder=mix / "broken")
    (mix / "broken" / "reference.py").write_text((mix / "broken" / "reference.py").read_text() + "# edited\n")
    said: list[BatchEvent] = []
    assert resumed(table, [item], said.append) == set()
    kept = said.pop(0)  # late34 z112: the resume first says how many rows it kept
    assert kept.kind is EventKind.RESUMED and kept.note is not None and kept.note.startswith("1 row kept"), kept
    assert not ws.root.exists() and len(said) == 1 and said[0].note is not None
    aside = Path(said[0].note.rsplit("moved to ", 1)[1].rstrip(")"))
    assert said[0].note.startswith("reference.py changed since its row in batch.json: running it again")
    assert (
        aside.name.startswith("kernel_opt_broken.replaced-") and "V0: baseline" in git.Repo(aside).head.commit.message
    )


def test_n102_a_kernel_py_committed_by_hand_between_runs_is_refused_and_the_hint_puts_it_back(ws_root: Path) -> None:
    """The README's CPU demo (V1 `BLOCK 64 -> 4096`, V2 converged); the user set `BLOCK = 128` by hand and ran
    `optimize` again, which said "kernel.py has uncommitted changes; commit them (git commit kernel.py) or discard
    them"; they committed it, and the next run stopped "converged: the launch configuration of this kernel.py was
    tuned in v2" over a kernel.py no session had seen, then committed "end of run: kernel.py = V1", their change
    replaced; after V0 alone, V1's record said "autotune: BLOCK 1024 -> 4096", 49.2x over V0 (BLOCK 64): the hand
    change credited to the version's one action. Now a new run refuses a kernel.py changed by hand since the loop
    last set it, naming the commit, and the hint's own command line puts the loop's back; an uncommitted edit is no
    longer told to be committed."""
    import subprocess

    from kernelopt.errors import WorkspaceError
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest

    from .loop_fakes import DATA, make_fakes, subjects

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    loops = subjects(ws)
    mine = re.sub(r"BLOCK = \d+ ", "BLOCK = 1000 ", ws.kernel_py.read_text())
    assert mine != ws.kernel_py.read_text()
    ws.kernel_py.write_text(mine)
    with pytest.raises(WorkspaceError) as uncommitted:
        OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    assert "commit them" not in uncommitted.value.one_line() and "discard them (git -C " in uncommitted.value.one_line()
    ws.commit(["kernel.py"], "mine: BLOCK 1000")
    with pytest.raises(WorkspaceError) as by_hand:
        OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    line = by_hand.value.one_line()
    assert f"{ws.kernel_py} was changed by hand since the loop last set it (" in line and "mine: BLOCK 1000" in line
    assert subjects(ws) == [*loops, "mine: BLOCK 1000"] and ws.kernel_py.read_text() == mine
    put_back = line.split("put the loop's back (", 1)[1].split("), or start", 1)[0]
    subprocess.run(["bash", "-c", put_back], check=True, capture_output=True)
    assert subjects(ws) == [*loops, "mine: BLOCK 1000", "kernel.py as the loop left it"]
    OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()  # the loop goes on from its own
    assert subjects(ws)[len(loops) + 2].startswith("V2: ")


def test_n103_report_writes_the_version_timeline_as_csv_for_a_spreadsheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The user wanted the versions of their workspace in a spreadsheet, as `kernelopt batch` gives its table as
    batch.csv: `kernelopt report` wrote Markdown, HTML and `--json` (the whole records, 33 kB for three versions,
    no speedup over V0 in it), no table a spreadsheet or pandas opens. Now `--csv OUT` writes the timeline, one row
    a version, the records' figures unrounded; it replaces only an earlier timeline, as a report does."""
    import csv

    from kernelopt.cli.app import main
    from tests.test_report_render import build_report_workspace

    ws = build_report_workspace(tmp_path / "ws")
    out = tmp_path / "t.csv"
    assert main(["report", str(ws.root), "--csv", str(out)]) == 0
    assert f"wrote csv: {out}" in capsys.readouterr().out
    rows = {r["version"]: r for r in csv.DictReader(out.open(newline=""))}
    assert list(rows) == ["V0", "V1", "V2", "V3", "V4"]
    assert float(rows["V1"]["latency_us"]) == 200.0 and float(rows["V1"]["speedup_vs_v0"]) == 2.0
    assert json.loads(rows["V1"]["knob_changes"]) == {"BLOCK_SIZE": [128, 1024]} and rows["V1"]["commit"]
    assert rows["V2"]["status"] == "TIMEOUT_FAIL" and rows["V2"]["failure"] == "case 0 ran past its 30 s limit | killed"
    assert rows["V2"]["latency_us"] == "" and rows["V4"]["masked"] == "True" and rows["V4"]["speedup_vs_v0"] == ""
    assert main(["report", str(ws.root), "--csv", str(out)]) == 0  # an earlier timeline is replaced
    mine = tmp_path / "mine.csv"
    mine.write_text("a,b\n1,2\n")
    assert main(["report", str(ws.root), "--csv", str(mine)]) == 2 and mine.read_text() == "a,b\n1,2\n"
    assert "is not a kernelopt timeline" in capsys.readouterr().err


def test_n104_a_committed_record_deleted_by_hand_is_said_and_refused_not_taken_for_a_version_never_run(
    ws_root: Path,
) -> None:
    """The README's CPU demo (V1 `BLOCK 64 -> 4096`, 47.7x); the user deleted memory/v1.json by hand and ran
    `optimize` again: it stopped converged and committed "end of run: kernel.py = V0, the fastest passing version
    (234.1 us)", V1's kernel replaced by the 47x slower V0, and `report` said "Final V0 ... Versions: 2 recorded"
    without a word of V1 (a corrupt record was said, "Unreadable record v1: ... restore it from git"; a missing one
    was a version never run). Now the loop refuses a committed record deleted, naming it and the command that
    restores it, and the report lists it as unreadable."""
    import subprocess

    from kernelopt.errors import WorkspaceError
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.report import collect

    from .loop_fakes import DATA, make_fakes, subjects

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    assert ws.memory.exists(1)
    kernel, loops = ws.kernel_py.read_bytes(), subjects(ws)
    ws.memory.path(1).unlink()
    with pytest.raises(WorkspaceError) as deleted:
        OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    line = deleted.value.one_line()
    assert f"{ws.root}: memory/v1.json deleted since committed" in line and "mask --workspace" in line
    assert ws.kernel_py.read_bytes() == kernel and subjects(ws) == loops  # nothing committed, kernel.py kept
    said = collect(ws).unreadable
    held = ws.repo.git.log("-n1", "--format=%h", "--", "memory/v1.json")  # the commit that holds it
    assert said == [
        f"v1: {ws.memory.path(1)}: deleted since committed; restore it (git -C {ws.root} checkout {held} -- "
        "memory/v1.json)"
    ]
    restore = line.split("restore it (", 1)[1].split("); to set", 1)[0]
    subprocess.run(["bash", "-c", restore], check=True, capture_output=True)
    assert ws.memory.read(1).quality_gate.result is not None and collect(ws).unreadable == []


def test_n105_a_session_served_from_its_record_is_drawn_as_timed_before_not_as_fresh_timings(tmp_path: Path) -> None:
    """The report of the README demo's workspace: V2's session timed nothing ("0 candidate(s) evaluated, 9 from the
    record"), and its search plot, titled "tuning session, 9 candidates", drew the nine as blue "candidate" dots,
    V1's timings shown as V2's own (`SearchPoint.recorded` was filled and never drawn). Now a served candidate is a
    grey dot, "from the session record (timed before)", and the title says how many were."""
    pytest.importorskip("matplotlib")
    from kernelopt.memory.model import CandidateResult, CandidateStatus
    from kernelopt.report import collect
    from kernelopt.report.search_plot import search_plot
    from kernelopt.report.sessions import search_points, session_title
    from tests.test_report_render import build_report_workspace

    ws = build_report_workspace(tmp_path / "ws")
    record = ws.memory.read(3)
    record.candidates = [
        CandidateResult(parameters={"BLOCK": b}, status=CandidateStatus.OK, latency_us=lat, served=b != 256)
        for b, lat in ((64, 250.0), (128, 180.0), (256, 120.0))
    ]
    ws.memory.write(record)
    data = collect(ws)
    v3 = next(v for v in data.versions if v.label == "V3")
    assert (
        session_title(data, v3)
        == "softmax V3: tuning session, 3 candidates, timed on NVIDIA H200\n2 of them from the session record, timed "
        "before"  # where it was timed: newuser18's n113
    )
    record.candidates = [c.model_copy(update={"served": True}) for c in record.candidates]  # V2's: all served
    svg = search_plot(search_points(record), title="t", image_format="svg").decode()
    assert "from the session record (timed before)" in svg and "candidate (timed)" not in svg


def test_n106_two_problem_folders_of_one_workspace_name_get_a_workspace_each(tmp_path: Path) -> None:
    """The user's folder held `relu v1` (a good ReLU) and `relu_v1` (the 3 ms one): both make the workspace name
    `relu_v1`, so `kernelopt batch` ran them in one workspace, `OUT/workspaces/kernel_opt_relu_v1`; the next
    problem, prepared ahead, replaced it while `relu v1` was checked, and the good ReLU FAILed "validation changed
    kernel.py (the candidate writes to workspace files)". Now a folder whose name gives another problem's workspace
    name gets its own (the name and 8 hex digits of the folder's); a folder named as its workspace keeps it."""
    from kernelopt.batch.problems import folder_items
    from kernelopt.loop.opening import open_or_create

    mix = tmp_path / "mix"
    for name in ("relu v1", "relu_v1", "relu+v1", "other"):
        shutil.copytree(KERNELBENCH / "relu", mix / name)
    items = {item.problem: item for item in folder_items(mix)}
    assert items["relu_v1"].workspace_name is None and items["other"].workspace_name is None
    roots = {
        name: open_or_create(item.folder, name=item.workspace_name, root=tmp_path / "ws").workspace.root.name
        for name, item in items.items()
    }
    assert roots["relu_v1"] == "kernel_opt_relu_v1" and roots["other"] == "kernel_opt_other"
    assert len(set(roots.values())) == 4 and roots["relu v1"].startswith("kernel_opt_relu_v1_")


@pytest.mark.parametrize("deleted", ["kernel.py", "reference.py"])
def test_n107_a_workspace_whose_kernel_py_was_deleted_is_said_so_with_the_command_that_restores_it(
    deleted: str, ws_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README demo's workspace with kernel.py (or reference.py) deleted by hand: `optimize` said "h9: has no
    kernel.py; a task folder holds kernel.py and reference.py [+ README.md]" (taken for a folder to make a
    workspace from), `validate` and `report` "not a kernelopt workspace (no kernel.py)", `tune` "no kernel.py; PATH
    holds kernel.py and reference.py": a workspace, with its records and git, called none. Now each says the file
    was deleted from the workspace and names the git command that restores it; a plain folder is said as before."""
    import subprocess

    from kernelopt.cli.app import main
    from kernelopt.workspace import Workspace

    ws = Workspace.create("h9", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    (ws.root / deleted).unlink()
    said = f"{ws.root}: {deleted} deleted from the workspace (its git history holds it); restore it (git -C {ws.root} "
    for argv in (["optimize", str(ws.root), "--device", "cpu"], ["validate", str(ws.root)], ["report", str(ws.root)]):
        assert main(argv) == 2, argv
        assert said in capsys.readouterr().err, argv
    if deleted == "kernel.py":  # tune reads a folder's kernel.py first
        assert main(["tune", str(ws.root), "--device", "cpu"]) == 2 and said in capsys.readouterr().err
    restore = f"git -C {ws.root} checkout -- {deleted}"
    subprocess.run(restore.split(), check=True, capture_output=True)
    assert Workspace(ws.root).kernel_py.is_file() and (ws.root / deleted).is_file()
    plain = ws_root / "plain"
    plain.mkdir()
    shutil.copy(KERNELS / "add_reference.py", plain / "reference.py")
    assert main(["optimize", str(plain), "--device", "cpu"]) == 2
    assert "has no kernel.py; a task folder holds kernel.py and reference.py" in capsys.readouterr().err


def test_n108_a_workspace_left_on_a_detached_head_is_refused_and_the_hint_goes_back(ws_root: Path) -> None:
    """The README demo's workspace: the user looked at V0 with `git -C WS checkout <V0's hash>` and ran `optimize`
    again: it ran a new "V1" on the detached HEAD (the working tree had only V0's record), a commit on no branch
    beside the branch's own V1 and V2, which `git checkout main` then leaves behind. Now a run refuses a detached
    HEAD, naming the commit and the branch to go back to; the hint's command puts it back and the run goes on."""
    import subprocess

    import git

    from kernelopt.errors import WorkspaceError
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import baseline_commit, open_or_create
    from kernelopt.loop.settings import LoopRequest

    from .loop_fakes import DATA, make_fakes, subjects

    ws = open_or_create(DATA, name="loop", root=ws_root).workspace
    fakes = make_fakes()
    OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    loops = subjects(ws)
    repo = git.Repo(ws.root)
    every = repo.git.log("--all", "--format=%H")
    repo.git.checkout(baseline_commit(ws))
    with pytest.raises(WorkspaceError) as detached:
        OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    line = detached.value.one_line()
    assert f"{ws.root}: HEAD is detached at {baseline_commit(ws)} (V0: baseline" in line
    assert repo.head.is_detached and repo.git.log("--all", "--format=%H") == every  # nothing committed
    back = line.split("go back to the branch (", 1)[1].split(")", 1)[0]
    subprocess.run(back.split(), check=True, capture_output=True)
    OptimizeLoop(ws, fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    assert subjects(ws)[: len(loops)] == loops and len(subjects(ws)) > len(loops)
