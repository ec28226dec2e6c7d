"""late27: the lock and the user's folder (docs/faults.md, "The lock and the user's folder (late27, 2026-12-07)")."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

LOOP = Path(__file__).parent / "data" / "loop"


def _project(tmp_path: Path) -> Path:
    """A user's project: a git repository whose kernel folder is tests/data/loop's torch add, all committed."""
    repo = tmp_path / "proj"
    folder = repo / "kernels" / "add"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "kernel"], check=True)
    return folder


def _status(folder: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=folder, capture_output=True, text=True, check=True
    ).stdout


def test_z50_a_tune_s_lock_leaves_the_user_s_tree_as_it_was(tmp_path: Path) -> None:
    """z50 (newuser19's n136): ``tune`` locked a user's folder with ``.add.lock`` beside it, which ``git status``
    showed while it ran (and after a ``kill -9``, test_faults7's f3). The lock of a user's folder lies in the shared
    lock folder now, named by the folder's path; a workspace's stays where optimize takes it."""
    from kernelopt.workspace import folder_lock, kernel_locks, locks_folder

    folder = _project(tmp_path)
    lock = folder_lock(folder, command="tune", hint="")
    with kernel_locks(folder / "kernel.py", command="tune", hint=""):
        assert _status(folder) == ""  # nothing new in the user's tree, not even an ignored file
        assert lock.held_here() and lock.path.parent == locks_folder() and lock.path.read_text().endswith(" tune\n")
    assert not lock.path.exists()
    assert _status(folder) == "" and sorted(p.name for p in tmp_path.iterdir()) == ["proj"]


def test_z51_optimize_and_tune_of_one_folder_exclude_each_other_and_the_refusal_says_since_when(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """z51 (newuser19's seen item): ``optimize DIR`` locked its workspace, ``tune DIR`` the folder, so both ran and
    the tune wrote DIR/kernel.py under the run. Now optimize holds the folder's lock too, the very one tune takes, for
    the whole run: under a tune's hold (another open file of the lock, as another process's) it is refused in one
    line naming the tune, its pid and since when, before anything is made; running, it holds the lock tune asks."""
    import fcntl
    import os
    import time

    import kernelopt.cli.optimize as optimize_cli
    from kernelopt.cli.app import main
    from kernelopt.errors import UsageError
    from kernelopt.workspace import folder_lock

    folder = _project(tmp_path)
    root = tmp_path / "root"
    lock = folder_lock(folder, command="tune", hint="")
    fd = os.open(lock.path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, b"4242 tune")
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(os.fstat(fd).st_mtime))
        assert main(["optimize", str(folder), "--root", str(root), "--device", "cpu"]) == 2
        assert capsys.readouterr().err == (
            f"kernelopt: error: another kernelopt tune is running on {folder} (pid 4242) since {since}; wait for it "
            "to end, or stop it: a run reads the kernel.py it writes\n"
        )
        assert not list(root.iterdir()) and _status(folder) == ""  # no workspace made
    finally:
        os.close(fd)  # the tune ends
        lock.path.unlink()

    held: list[bool] = []

    def run(*_: object) -> None:
        held.append(lock.held_here())
        raise UsageError("the run's end")

    monkeypatch.setattr(optimize_cli, "_run", run)
    assert main(["optimize", str(folder), "--root", str(root), "--device", "cpu"]) == 2
    assert held == [True] and not lock.path.exists()


def test_z54_two_runs_of_one_folder_share_its_lock_and_a_writer_waits_for_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """z54: z51's lock taken alone refused a second `optimize DIR --name other` (two workspaces of one folder, which
    ran at once before). A run takes the folder's lock shared: beside another run's hold (another open file of the
    lock, as another process's) it runs, leaves the lock file to the other, and `tunables --set` (a writer, as `tune`)
    is refused naming the run still holding it."""
    import fcntl
    import os

    import kernelopt.cli.optimize as optimize_cli
    from kernelopt.cli.app import main
    from kernelopt.errors import UsageError
    from kernelopt.workspace import folder_lock
    from tests.conftest import without_since

    folder = _project(tmp_path)
    lock = folder_lock(folder, command="optimize", hint="")
    held: list[bool] = []

    def run(*_: object) -> None:
        held.append(lock.held_here())
        raise UsageError("the run's end")

    monkeypatch.setattr(optimize_cli, "_run", run)
    fd = os.open(lock.path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # the other run, into its own workspace
        os.write(fd, b"4243 optimize")
        root = str(tmp_path / "root")
        assert main(["optimize", str(folder), "--root", root, "--name", "other", "--device", "cpu"]) == 2
        assert held == [True] and lock.path.exists(), capsys.readouterr().err  # the other's hold, left to it
        os.ftruncate(fd, 0)  # as the other run wrote it (this one's start wrote its own pid there)
        os.pwrite(fd, b"4243 optimize", 0)
        capsys.readouterr()
        assert main(["tunables", str(folder / "kernel.py"), "--no-evaluate", "--set", "BLOCK=512"]) == 2
        assert without_since(capsys.readouterr().err) == (
            f"kernelopt: error: another kernelopt optimize is running on {folder} (pid 4243); wait for it to end, "
            "then set the knob\n"
        )
        assert _status(folder) == ""
    finally:
        os.close(fd)
        lock.path.unlink()


def test_z52_the_compiled_figure_keeps_and_says_the_mode_it_was_measured_against() -> None:
    """z52 (newuser19's seen item): `KERNELOPT_COMPILE_MODE` chose torch.compile's mode (n128), and the record kept
    no word of it: a `compiled` speedup against max-autotune read as one against the default. The gate's figure is
    recorded with the backend and mode, and said with them where it is printed: the headline (optimize's summary,
    the report's), the report's reference line, validate's table. A timing as a gate reads it, no kernel run."""
    from kernelopt.cli.validate import _against
    from kernelopt.harness.gate import _performance
    from kernelopt.memory.model import IterationRecord, ReferenceSpeedup
    from kernelopt.report.headline import reference_headline
    from kernelopt.report.sections import reference_line
    from tests.test_break22_cases import reference_timed_case

    case, report = reference_timed_case()
    perf = _performance(report, case, None, None, None, None, [], compiled_with=("inductor", "max-autotune"))
    record = IterationRecord.model_validate({"version": "v0", "performance": perf.model_dump()})  # as stored
    vs = record.performance.speedup_vs_reference
    assert vs is not None and vs.compiled is not None
    assert (vs.compile_backend, vs.compile_mode) == ("inductor", "max-autotune")
    said = "over torch.compile (mode max-autotune), 95 % interval"
    assert said in (reference_headline(vs) or "") and said in (_against(vs, "compiled") or "")
    assert said in (reference_line(record.performance) or "")
    eager = vs.model_copy(update={"compile_backend": "eager", "compile_mode": "default"})
    assert "over torch.compile (eager backend, mode default)," in (reference_headline(eager) or "")
    before = ReferenceSpeedup.model_validate(vs.model_dump(exclude={"compile_backend", "compile_mode"}))
    assert "x over torch.compile, 95 % interval" in (reference_headline(before) or "")  # a record that kept none


def test_z53_a_candidate_moving_one_name_of_a_two_name_table_drops_that_name_from_every_row() -> None:
    """z53 (newuser19's seen item on n126): a per-bucket table an edit wrote setting BLOCK and num_warps, under a
    candidate that moves BLOCK alone (or num_warps alone), was kept whole: the candidate ran the table's BLOCK at
    every size a row reaches, its own BLOCK only above them, and was timed as the table. Now each row loses the moved
    name, for the candidate and for the write alike; a row left with nothing says `pass` (its sizes keep the
    fallback's other settings) and is still the table's at the next candidate; both names moved: the table goes."""
    from kernelopt.tunables.guard import guard_edit, strip_stale_guards
    from tests.test_newuser19_cases import TABLE_KERNEL

    table = TABLE_KERNEL.replace("    BLOCK = 128\n", "    BLOCK = 128\n    num_warps = 4\n").replace(
        "num_warps=4)", "num_warps=num_warps)"
    )
    two = table.replace("        BLOCK = 4096\n", "        BLOCK = 4096\n        num_warps = 16\n").replace(
        "        BLOCK = 1024\n", "        BLOCK = 1024\n        num_warps = 8\n"
    )
    rows = "    if n <= 1000:  # kernelopt: tuned\n{}    elif n <= 4096:  # kernelopt: tuned\n{}    scale_kernel["
    block = two.replace("BLOCK = 128", "BLOCK = 32")
    assert rows.format("        num_warps = 8\n", "        num_warps = 16\n") in strip_stale_guards(two, block)
    warps = two.replace("num_warps = 4", "num_warps = 2")
    assert rows.format("        BLOCK = 1024\n", "        BLOCK = 4096\n") in strip_stale_guards(two, warps)
    both = strip_stale_guards(two, block.replace("num_warps = 4", "num_warps = 2"))
    assert "kernelopt: tuned" not in both and "BLOCK = 32\n    num_warps = 2\n    scale_kernel[" in both
    written = guard_edit(two, two.replace("BLOCK = 128", "BLOCK = 256")).new_source
    assert written is not None and rows.format("        num_warps = 8\n", "        num_warps = 16\n") in written
    # a row that set BLOCK alone: `pass`, and still a row of the table for the candidate after
    one = table.replace("        BLOCK = 4096\n", "        BLOCK = 4096\n        num_warps = 16\n")
    emptied = strip_stale_guards(one, one.replace("BLOCK = 128", "BLOCK = 32"))
    assert rows.format("        pass\n", "        num_warps = 16\n") in emptied
    later = emptied.replace("num_warps = 4", "num_warps = 2")
    assert "kernelopt: tuned" not in strip_stale_guards(emptied, later)
