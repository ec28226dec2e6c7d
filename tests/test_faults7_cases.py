"""The seventh fault trial of the commands that write a user's file (docs/faults.md, "A fault trial of tune,
tunables --set and optimize on a user's file (faults7)", f1..): each test injects one fault the trial found and
holds its fix.

The invariant is docs/tuning-engine.md's: after any fault a user's kernel.py (and any file of theirs) is byte for
byte what they last wrote, or that text with only the knob edit applied, and the exit code says which. Where the
behaviour depends on a real process (a signal, a pipe whose reader is gone, a lock held by another process), the
test starts one; the kernels are tests/data/loop's torch add on the CPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from tests.conftest import without_since

LOOP = Path(__file__).parent / "data" / "loop"
SRC = str(Path(__file__).resolve().parents[1] / "src")


def _folder(tmp_path: Path) -> tuple[Path, bytes]:
    folder = tmp_path / "loop"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    return folder, (folder / "kernel.py").read_bytes()


def _env(*paths: Path | str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([*map(str, paths), SRC])}


@pytest.mark.timeout(60)
def test_f1_an_interrupt_that_an_import_wraps_is_an_interrupt(tmp_path: Path) -> None:
    """f1: a Ctrl-C while pydantic built a model at ``tune``'s import (Python 3.11 wraps what ``__set_name__``
    raises in a RuntimeError) ended in a traceback and exit 1. A real SIGINT, raised in a ``__set_name__`` while the
    command's module is imported."""
    folder, before = _folder(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import signal, sys

            class _Cut:  # the moment: a class body's __set_name__ while kernelopt.cli.tune is imported
                def find_spec(self, name, path=None, target=None):
                    if name == "kernelopt.cli.tune":
                        sys.meta_path.remove(self)

                        class Field:
                            def __set_name__(self, owner, attr):
                                signal.raise_signal(signal.SIGINT)

                        type("Model", (), {"x": Field()})
                    return None

            sys.meta_path.insert(0, _Cut())
            """
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cpu"],
        capture_output=True,
        text=True,
        env=_env(site),
        timeout=50,
    )
    assert (done.returncode, done.stderr) == (130, "kernelopt: interrupted\n"), done.stderr
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(60)
def test_f2_tunables_set_into_a_pipe_whose_reader_is_gone_says_it_wrote(tmp_path: Path) -> None:
    """f2: ``tunables FILE --set BLOCK=512 | head -1`` wrote the file and ended in exit 1 with no word. Now exit 0
    and one line on stderr saying what was written; with nothing written (``--dry-run``) stdout's exit 3."""
    folder, before = _folder(tmp_path)
    kernel = folder / "kernel.py"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader went away (`| head -1` done)
        try:
            return subprocess.run(
                [sys.executable, "-m", "kernelopt", "tunables", str(kernel), "--no-evaluate", *args],
                stdout=write_end,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
                timeout=50,
            )
        finally:
            os.close(write_end)

    dry = run("--set", "BLOCK=512", "--dry-run")
    assert dry.returncode == 3 and "could not print to stdout" in dry.stderr, dry.stderr
    assert kernel.read_bytes() == before
    done = run("--set", "BLOCK=512")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"kernelopt: wrote {kernel} (BLOCK: 64 -> 512); the summary could not be printed: stdout refused it "
        "(Broken pipe (errno 32))"
    ), done.stderr
    assert kernel.read_bytes() == before.replace(b"BLOCK = 64", b"BLOCK = 512")


@pytest.mark.timeout(60)
def test_f3_tunables_set_under_a_running_tune_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f3: ``tunables --set`` took no lock: under a running ``tune`` it wrote kernel.py, and the session then ended
    "changed during the session: nothing written", exit 2. Now it takes the folder's lock (the one tune and optimize
    take) and is refused in one line naming the holder; once the holder is gone (killed: a stale lock file), it
    writes."""
    folder, before = _folder(tmp_path)
    holder = subprocess.Popen(  # another process holding the folder's lock as a running tune does
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from kernelopt.workspace import folder_lock; "
            "folder_lock(Path(sys.argv[1]), command='tune', hint='').acquire(); print('held', flush=True); "
            "time.sleep(60)",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        code = main(["tunables", str(folder / "kernel.py"), "--no-evaluate", "--set", "BLOCK=512"])
        err = capsys.readouterr().err
        assert code == 2, err
        assert without_since(err) == (
            f"kernelopt: error: another kernelopt tune is running on {folder.resolve()} (pid {holder.pid}); wait "
            "for it to end, then set the knob\n"
        )
        assert (folder / "kernel.py").read_bytes() == before
    finally:
        holder.kill()
        holder.wait()
    from kernelopt.workspace import folder_lock, locks_folder

    stale = folder_lock(folder, command="tune", hint="").path
    assert stale.parent == locks_folder() and stale.exists()  # killed: its lock file stays, and holds nobody
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop"]  # never in the user's tree (late27, z50)
    deadline = time.monotonic() + 10
    while (code := main(["tunables", str(folder / "kernel.py"), "--no-evaluate", "--set", "BLOCK=512"])) != 0:
        assert time.monotonic() < deadline, capsys.readouterr().err
        time.sleep(0.1)
    assert (folder / "kernel.py").read_bytes() == before.replace(b"BLOCK = 64", b"BLOCK = 512")


@pytest.mark.timeout(60)
def test_f4_a_stale_git_index_lock_is_removed_under_the_run_lock_and_a_held_one_is_not(tmp_path: Path) -> None:
    """f4: a git command killed with SIGKILL (a run killed with its process group) leaves ``.git/index.lock``; the
    next ``optimize`` ran a whole iteration, then failed at its commit with git's last line ("remove the file
    manually to continue."). Under the run lock, a lock file nobody has open is removed and the command runs again;
    one a process holds open, or met outside a run, is git's refusal as before."""
    from kernelopt.errors import GitError
    from kernelopt.workspace import RunLock, Workspace

    ws = Workspace.create("f4", kernel=LOOP / "kernel.py", reference=LOOP / "reference.py", root=tmp_path)
    lock = ws.root / ".git" / "index.lock"
    lock.write_bytes(b"")  # what a git killed between taking the index's lock and its rename leaves
    (ws.root / "notes.md").write_text("a\n", encoding="utf-8")
    with pytest.raises(GitError, match=r"index\.lock"):  # no run lock: nobody says it is stale
        ws.commit(["notes.md"], "notes outside a run")
    assert lock.exists()
    with RunLock(ws.root):
        with lock.open("rb"), pytest.raises(GitError):  # a git command that holds it (its file open): not stale
            ws.commit(["notes.md"], "notes while git holds its lock")
        assert lock.exists()
        ws.commit(["notes.md"], "notes after a killed git")  # stale: removed, the commit made
    assert not lock.exists()
    assert ws.log(1)[0][1] == "notes after a killed git" and ws.is_clean()


@pytest.mark.timeout(60)
def test_f5_an_edit_saved_during_the_gate_is_kept_and_said(ws_root: Path) -> None:
    """f5: an edit of the workspace's kernel.py (or reference.py) saved while the gate ran was taken for a write of
    the gate's: reverted from git (reference.py from its recorded content) and lost, the version failed. The guard
    cannot tell a user's save from a stage's stray write, so both are undone as before, but what the file held is
    kept first under ``.kernelopt/backups/`` and one line says where."""
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.protocols import EventKind, LoopEvent, Stage
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.workspace import Workspace

    from .loop_fakes import make_fakes

    ws = open_or_create(LOOP, name="f5", root=ws_root).workspace
    fakes = make_fakes()
    edits = {"kernel.py": "\n# the user's edit of kernel.py\n", "reference.py": "\n# the user's edit of reference.py\n"}

    def save_during_the_gate(event: LoopEvent) -> None:
        if event.kind is EventKind.STAGE_START and event.stage is Stage.GATE and event.version == 1:
            for name, text in edits.items():
                with (ws.root / name).open("a", encoding="utf-8") as fh:
                    fh.write(text)

    fakes.sink.hooks.append(save_during_the_gate)
    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=1)).run()
    said = [e.message for e in fakes.sink.events if e.kind is EventKind.WARNING and "kept in" in e.message]
    assert len(said) == 2, said
    for name, text in edits.items():
        assert text not in (ws.root / name).read_text(encoding="utf-8")  # put back, as the guard does
        line = next(m for m in said if m.startswith(f"V1: {name} changed during the gate stage"))
        kept = Path(line.rsplit("kept in ", 1)[1])
        assert kept.parent == ws.root / ".kernelopt" / "backups" and kept.read_text(encoding="utf-8").endswith(text)


@pytest.mark.timeout(60)
def test_f6_a_full_disk_under_tunables_set_names_no_flag_and_leaves_the_file(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f6: ``tunables --set`` on a full disk said "free some space (or pass --root to put the workspace elsewhere)":
    it has no --root, and writes the user's file where it lives. A real full tmpfs."""
    from .conftest import fill_disk

    kernel = small_disk / "kernel.py"
    shutil.copyfile(LOOP / "kernel.py", kernel)
    before = kernel.read_bytes()
    fill_disk(small_disk)
    code = main(["tunables", str(kernel), "--no-evaluate", "--set", "BLOCK=256"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert err == (
        f"kernelopt: error: no space left on the device writing {kernel} (errno 28); free some space and run again "
        "(the file is as it was)\n"
    )
    assert kernel.read_bytes() == before and sorted(p.name for p in small_disk.iterdir() if "kernel" in p.name) == [
        "kernel.py"
    ]


@pytest.mark.timeout(60)
def test_f7_optimize_into_a_pipe_whose_reader_is_gone_ends_with_the_run_s_status_and_says_so(
    ws_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """f7: ``optimize ... | head -1`` ran V1 to PASS and committed it, then ended in exit 1 with no word: the summary
    met the closed pipe (rich's broken-pipe answer). Now the run's own exit status (0: it stopped at
    ``--max-iters``) and one line on stderr saying so and where to read the summary. The loop runs with the test
    collaborators of tests/loop_fakes.py (the CLI's checks, lock and printing are the real ones)."""
    import kernelopt.cli.optimize as cli_optimize
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.settings import LoopRequest

    from .loop_fakes import make_fakes

    def loop_of_fakes(path: Path, name: str | None, root: Path | None, request: LoopRequest, *args: object):
        ws = open_or_create(path, name=name, root=root).workspace
        return OptimizeLoop(ws, make_fakes().collaborators(), LoopRequest(max_iterations=1)).run()

    monkeypatch.setattr(cli_optimize, "_run", loop_of_fakes)
    monkeypatch.setattr(cli_optimize, "nvidia_gpu_present", lambda: False)
    folder, _ = _folder(tmp_path)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away (`| head -1` done)
    with open(write_end, "w", encoding="utf-8") as gone:
        monkeypatch.setattr("sys.stdout", gone)
        code = main(["optimize", str(folder), "--device", "cpu", "--max-iters", "1", "--root", str(ws_root)])
        monkeypatch.undo()
    err = capsys.readouterr().err
    ws = ws_root / "kernel_opt_loop"
    assert code == 0, err
    assert err.splitlines()[-1] == (
        f"kernelopt: the run on {ws} ended (max_iterations: 1 iteration(s) run, limit 1); the summary could not be "
        f"printed: stdout refused it (Broken pipe (errno 32)); `kernelopt report {ws}` shows it"
    ), err


@pytest.mark.timeout(60)
def test_f8_batch_into_a_pipe_whose_reader_is_gone_says_where_its_table_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """f8: ``batch DIR --out OUT | head -1`` wrote every row to OUT/batch.json and batch.csv, then ended in exit 1 with
    no word (the table met the closed pipe). Now exit 0 (every row is there) and one line naming the files. The
    batch's run is the test's (its table as ``run_batch`` returns it); the CLI's checks and printing are real."""
    import kernelopt.cli.batch as cli_batch
    from kernelopt.batch.model import BatchMode, BatchTable

    problems = tmp_path / "problems"
    shutil.copytree(LOOP, problems / "add", ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    out = tmp_path / "out"
    monkeypatch.setattr(cli_batch, "_run", lambda *a, **k: BatchTable(directory=str(problems), mode=BatchMode.VALIDATE))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away (`| head -1` done)
    with open(write_end, "w", encoding="utf-8") as gone:
        monkeypatch.setattr("sys.stdout", gone)
        code = main(["batch", str(problems), "--device", "cpu", "--out", str(out)])
        monkeypatch.undo()
    err = capsys.readouterr().err
    assert code == 0, err
    assert err.splitlines()[-1] == (
        f"kernelopt: the batch is done, its table is in {out / 'batch.json'} and {out / 'batch.csv'}; it could not be "
        "printed: stdout refused it (Broken pipe (errno 32))"
    ), err


@pytest.mark.timeout(120)
def test_f9_the_loop_s_tuning_writes_only_over_the_bytes_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f9, the write: the loop's tuning session wrote its best over kernel.py with a plain atomic write, so a save made
    during the session (the user's, in the workspace) was replaced in silence. A real session (two candidates of the
    loop kernel on the CPU); the verdict is forced "better" so that the write is attempted whatever the timing."""
    import kernelopt.tuning.folder as tuning_folder
    from kernelopt.backends.launch_tuning import apply_best
    from kernelopt.fileio import SourceChanged
    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.folder import TuneRequest, prepare_folder, tune_folder
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings
    from kernelopt.tuning.session import GainJudgement

    verdict = GainJudgement(better=True, gain_pct=100.0, min_gain_pct=2.0, reason="the test's verdict")
    monkeypatch.setattr(tuning_folder, "judge_gain", lambda *args, **kwargs: verdict)
    folder, before = _folder(tmp_path)
    plan = BenchPlan(warmup_calls=1, repetitions=3, retime_rounds=1)
    request = TuneRequest(folder=folder, device="cpu", budget=2, evaluator=EvaluatorSettings(plan=plan))
    tuning = tune_folder(prepare_folder(request))
    assert tuning.result.best_config is not None and tuning.result.best_config != tuning.result.current_config
    saved = before + b"\n# the user's save during the session\n"
    (folder / "kernel.py").write_bytes(saved)
    with pytest.raises(SourceChanged):
        apply_best(tuning)
    assert (folder / "kernel.py").read_bytes() == saved


@pytest.mark.timeout(60)
def test_f9_a_save_during_stage_3_stops_the_run_and_is_kept_and_said(ws_root: Path) -> None:
    """f9, the loop: Stage 3 took the refused write for a failure of the implementer's ("the implementer failed:
    ... changed during the session"), failed V1 and put the last good kernel.py back over the user's save: lost. Now
    the run stops on it (exit 2 at the CLI), the stage is rolled back, and what kernel.py held is kept and said. The
    implementer is the test's: it reads kernel.py, the user saves, it writes as ``apply_best`` does."""
    from kernelopt.backends.protocol import ImplementOutcome, StageContext
    from kernelopt.fileio import SourceChanged, read_source, replace_source
    from kernelopt.loop.machine import OptimizeLoop
    from kernelopt.loop.opening import open_or_create
    from kernelopt.loop.protocols import EventKind
    from kernelopt.loop.settings import LoopRequest
    from kernelopt.workspace import Workspace

    from .loop_fakes import make_fakes

    ws = open_or_create(LOOP, name="f9", root=ws_root).workspace
    good = ws.kernel_py.read_bytes()
    save = "\n# the user's save during Stage 3\n"

    class SavedMeanwhile:
        name = "rules"

        def implement(self, ctx: StageContext) -> ImplementOutcome:
            source = read_source(ctx.workspace.kernel_py)
            with ctx.workspace.kernel_py.open("a", encoding="utf-8") as fh:
                fh.write(save)
            replace_source(source, source.text.replace("BLOCK = 64", "BLOCK = 128"))
            return ImplementOutcome(changed=True, description="launch_configuration: BLOCK 64 -> 128")

    fakes = make_fakes()
    collaborators = fakes.collaborators()
    collaborators.implementer = SavedMeanwhile()
    with pytest.raises(SourceChanged):
        OptimizeLoop(Workspace(ws.root), collaborators, LoopRequest(max_iterations=1)).run()
    said = [e.message for e in fakes.sink.events if e.kind is EventKind.WARNING and "kept in" in e.message]
    assert len(said) == 1 and said[0].startswith("V1: kernel.py was put back as the implement stage found it"), said
    kept = Path(said[0].rsplit("kept in ", 1)[1])
    assert kept.read_text(encoding="utf-8").endswith(save) and ws.kernel_py.read_bytes() == good
    assert [s for _, s in ws.log(5) if s.startswith("V1")] == []  # no version recorded the save as a failure


@pytest.mark.timeout(60)
def test_f10_a_kernel_linked_from_another_folder_is_locked_where_it_lives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f10: two folders whose kernel.py is one file (B/kernel.py a symbolic link to A/kernel.py) were tuned at once,
    each under its own folder's lock; the second to end found the file changed and its session was spent for
    nothing. A write through the link now takes the lock of the folder the file lives in too: refused in one line
    naming the holder of A, for ``tune B`` and for ``tunables B/kernel.py --set``."""
    a, before = _folder(tmp_path)
    b = tmp_path / "b"
    b.mkdir()
    (b / "kernel.py").symlink_to(a / "kernel.py")
    shutil.copyfile(a / "reference.py", b / "reference.py")
    holder = subprocess.Popen(  # a tune running on A
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from kernelopt.workspace import folder_lock; "
            "folder_lock(Path(sys.argv[1]), command='tune', hint='').acquire(); print('held', flush=True); "
            "time.sleep(60)",
            str(a),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        running = f"another kernelopt tune is running on {a.resolve()} (pid {holder.pid})"
        assert main(["tunables", str(b / "kernel.py"), "--no-evaluate", "--set", "BLOCK=512"]) == 2
        assert without_since(capsys.readouterr().err).startswith(f"kernelopt: error: {running}; ")
        assert main(["tune", str(b), "--device", "cpu", "--budget", "2"]) == 2
        assert without_since(capsys.readouterr().err).startswith(f"kernelopt: error: {running}; ")
    finally:
        holder.kill()
        holder.wait()
    assert (a / "kernel.py").read_bytes() == before and (b / "kernel.py").is_symlink()
    assert not (b / ".kernelopt").exists()  # refused before any session folder


@pytest.mark.timeout(60)
def test_f11_a_file_named_kernelopt_in_the_folder_is_one_line_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f11: a file named ``.kernelopt`` in the kernel's folder (where tune keeps its session folders) ended ``tune`` in
    exit 70 and a crash log (NotADirectoryError from the session lock's mkdir). Now one line naming the file, exit 2,
    the file and kernel.py untouched."""
    folder, before = _folder(tmp_path)
    (folder / ".kernelopt").write_text("the user's own file\n", encoding="utf-8")
    assert main(["tune", str(folder), "--device", "cpu", "--budget", "2", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        f"kernelopt: error: {folder.resolve() / '.kernelopt'}: is a file, not a folder, and kernelopt tune keeps its "
        f"run lock (and its state) in {folder.resolve() / '.kernelopt' / 'tune'}; move or rename that file and run "
        "again"
    ), err
    assert (folder / ".kernelopt").read_text(encoding="utf-8") == "the user's own file\n"
    assert (folder / "kernel.py").read_bytes() == before


@pytest.mark.timeout(60)
def test_f12_a_second_optimize_that_reads_the_workspace_mid_write_names_the_holder(
    ws_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f12: a second ``optimize`` read the workspace before taking the run lock; when the running one's git was
    restoring kernel.py (unlinked, then written) it said "not a kernelopt workspace (no kernel.py)" instead of naming
    the holder (tests/test_starts.py failed so once in four rounds under load). The moment held still: kernel.py
    away while another process holds the lock."""
    from kernelopt.loop.opening import open_or_create

    ws = open_or_create(LOOP, name="f12", root=ws_root).workspace
    holder = subprocess.Popen(  # the running optimize
        [
            sys.executable,
            "-c",
            "import sys, time; from kernelopt.workspace import RunLock; RunLock(sys.argv[1]).acquire(); "
            "print('held', flush=True); time.sleep(60)",
            str(ws.root),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    kernel = ws.kernel_py.read_bytes()
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        ws.kernel_py.unlink()  # git's checkout between its unlink and its write
        code = main(["optimize", str(LOOP), "--root", str(ws_root), "--name", "f12", "--device", "cpu"])
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.startswith(
            f"kernelopt: error: another kernelopt optimize is running on {ws.root} (pid {holder.pid})"
        )
    finally:
        holder.kill()
        holder.wait()
        ws.kernel_py.write_bytes(kernel)
