"""Two ``kernelopt optimize`` started at the same instant on a new folder: one run, one exit-2 refusal,
every time, over three rounds (issue 23: the run lock was taken after the workspace was made; two starts crashed,
failed the baseline or left a task card without ``gpu``, ``platform`` and its body)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelopt.errors import UsageError, WorkspaceError
from kernelopt.taskcard import TaskCard
from kernelopt.workspace import RunLock, Workspace
from tests.conftest import without_since

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "data" / "kernels"
CARD = "---\nplatform: nvidia\ngpu: H200\ndtype: fp32\n---\n# Racing add\n\nThe body the card must keep.\n"

pytestmark = pytest.mark.timeout(180)


def task(folder: Path) -> Path:
    folder.mkdir()
    (folder / "kernel.py").write_bytes((KERNELS / "add_kernel.py").read_bytes())
    (folder / "reference.py").write_bytes((KERNELS / "add_reference.py").read_bytes())
    (folder / "README.md").write_text(CARD)
    return folder


def start(folder: Path, root: Path, name: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "KERNELOPT_BENCH_S": "0.05", "KERNELOPT_SEEDS": "1"}
    argv = [sys.executable, "-m", "kernelopt", "optimize", str(folder), "--root", str(root), "--name", name]
    return subprocess.Popen(
        [*argv, "--device", "cpu", "--max-iters", "0", "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def first_exit(procs: list[subprocess.Popen[str]]) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for i, p in enumerate(procs):
            if p.poll() is not None:
                return i
        time.sleep(0.02)
    raise AssertionError("neither start exited")


def test_two_starts_on_a_new_folder_give_one_run_and_one_refusal(tmp_path: Path) -> None:
    folder, root = task(tmp_path / "add"), tmp_path / "root"
    for round_ in range(3):
        name = f"race{round_}"
        procs = [start(folder, root, name), start(folder, root, name)]
        loser = first_exit(procs)
        winner = procs[1 - loser]
        _, err = procs[loser].communicate()
        assert procs[loser].returncode == 2, err
        assert without_since(err).splitlines() == [
            f"kernelopt: error: another kernelopt optimize is running on {root.resolve()}/kernel_opt_{name} "
            f"(pid {winner.pid}); wait for it or stop it; the journal lets the next run continue"
        ]
        if round_ > 0:  # one whole run is enough; the other rounds stop the winner once the race is decided
            winner.send_signal(signal.SIGTERM)
        w_out, w_err = winner.communicate(timeout=120)
        assert winner.returncode == (0 if round_ == 0 else 130), w_err
        if round_ == 0:
            assert '"best_version": "v0"' in w_out
        ws_dir = root / f"kernel_opt_{name}"
        if ws_dir.is_dir():  # the winner may be stopped before it made the workspace
            ws = Workspace(ws_dir)
            init = ws.repo.git.rev_list("--max-parents=0", "HEAD").strip()
            card = TaskCard.parse(ws.file_at(init, "README.md"))
            assert (card.platform, card.gpu, "The body the card must keep." in card.body) == ("nvidia", "H200", True)
        assert not (root / f".kernel_opt_{name}.lock").exists()


def test_the_lock_is_reentrant_in_a_process_and_released_with_its_file(tmp_path: Path) -> None:
    target = tmp_path / "kernel_opt_x"  # need not exist
    lock = RunLock(target)
    with lock, RunLock(target):
        pid, _, command = lock.path.read_text().split(" ")  # the holder, its start and command, for a refusal
        assert (pid, command) == (str(os.getpid()), "optimize\n")
        other = subprocess.run(
            [sys.executable, "-c", f"from kernelopt.workspace import RunLock; RunLock({str(target)!r}).acquire()"],
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert other.returncode == 1 and "UsageError: another kernelopt optimize is running" in other.stderr
    assert not lock.path.exists()
    (tmp_path / "afile").write_text("")
    with pytest.raises(WorkspaceError, match="is not a folder"):
        RunLock(tmp_path / "afile" / "kernel_opt_y").acquire()


def test_a_refusal_in_the_instant_before_the_holder_writes_its_pid_still_names_it(tmp_path: Path) -> None:
    """The holder writes ``<pid> <command>`` just after it takes the lock: a start refused in that instant read an
    empty file and said "pid ?" (a fresh clone under load, 2026-12-06). It reads the file again until the pid is
    there, up to a second."""
    import fcntl
    import threading

    lock = RunLock(tmp_path / "kernel_opt_x")
    fd = os.open(lock.path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held, nothing written yet
    writer = threading.Timer(0.2, lambda: os.write(fd, b"4242 tune"))
    writer.start()
    try:
        with pytest.raises(UsageError) as refused:
            lock.acquire()
    finally:
        writer.join()
        os.close(fd)
    assert f"another kernelopt tune is running on {lock.target} (pid 4242)" in str(refused.value)
