"""late29: the lock's holes (docs/faults.md, "The lock's holes (late29, 2026-12-07)"). Each case holds a lock file
through another open file of it, as another process's hold is to the kernel (``flock`` is per open file)."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

import pytest


def _hold(path: Path, how: int, said: bytes = b"") -> int:
    """Another holder of ``path``: a file descriptor of its own, ``how`` (``LOCK_SH``/``LOCK_EX``) taken, ``said``
    written as that holder writes its record."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    fcntl.flock(fd, how | fcntl.LOCK_NB)
    if said:
        os.write(fd, said)
    return fd


def test_z70_a_start_in_an_ending_reader_s_instant_alone_is_not_refused(tmp_path: Path) -> None:
    """z70: a run releasing its shared hold makes it exclusive for an instant, to tell whether it is the last (and may
    remove the file); a start in that instant was refused, naming the run that was ending. A start now tries again for
    a moment (``TAKE_WAIT_S``): the ending reader's instant (its exclusive hold, the file removed, the hold given back
    50 ms on) lets it in, on the file made after; a lock held on is still refused, that moment later."""
    from kernelopt.errors import UsageError
    from kernelopt.workspace import TAKE_WAIT_S, folder_lock

    folder = tmp_path / "add"
    lock = folder_lock(folder, command="optimize", hint="", reading=True)
    lock.path.parent.mkdir(parents=True, exist_ok=True)
    ending = _hold(lock.path, fcntl.LOCK_EX, f"{os.getpid()} optimize\n".encode())

    def end() -> None:
        lock.path.unlink()
        os.close(ending)

    ends = threading.Timer(0.05, end)
    ends.start()
    try:
        with lock:
            assert lock.held_here() and lock.path.exists()
    finally:
        ends.join()
    held = _hold(lock.path, fcntl.LOCK_EX, b"4242 tune\n")
    try:
        t0 = time.monotonic()
        with pytest.raises(UsageError, match=r"kernelopt tune is running on .* \(pid 4242\)"):
            lock.acquire()
        assert TAKE_WAIT_S <= time.monotonic() - t0 < TAKE_WAIT_S + 1.5
    finally:
        os.close(held)
        lock.path.unlink()


def test_z71_a_refusal_names_the_runs_that_hold_a_shared_lock_not_the_last_to_start(tmp_path: Path) -> None:
    """z71: runs of one folder share its lock file and each wrote its pid there over the other's: a writer refused
    while two held it named the one that started last, and went on naming it after it ended while the other ran on.
    Each holder now adds its record (pid, start, command) and a refusal names those whose pid holds the lock in the
    kernel's table: the run still holding it, or each of them when several do."""
    from kernelopt.errors import UsageError
    from kernelopt.workspace import folder_lock
    from tests.conftest import without_since

    folder = tmp_path / "add"
    lock = folder_lock(folder, command="tune", hint="")
    lock.path.parent.mkdir(parents=True, exist_ok=True)
    me, hour_ago = os.getpid(), int(time.time()) - 3600
    since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(hour_ago))
    first = _hold(lock.path, fcntl.LOCK_SH, f"{me} {hour_ago} optimize\n".encode())  # runs on
    try:
        later = _hold(lock.path, fcntl.LOCK_SH, f"4243 {time.time():.0f} optimize\n".encode())
        os.close(later)  # started last, ended: its record stays in the file the first still holds
        line = f"another kernelopt optimize is running on {folder} (pid {me}) since {since}"
        with pytest.raises(UsageError) as refused:
            lock.acquire()
        assert refused.value.one_line() == line
        assert lock.holder() == line
        second = _hold(lock.path, fcntl.LOCK_SH, f"{me} {time.time():.0f} optimize\n".encode())
        try:
            said = lock.holder()
            assert said is not None and without_since(said) == (
                f"2 kernelopt runs hold {folder}: optimize (pid {me}), optimize (pid {me})"
            )
        finally:
            os.close(second)
        with folder_lock(folder, command="optimize", hint="", reading=True):  # a start adds its record to the others'
            assert [line.split(" ")[0] for line in lock.path.read_text().splitlines()] == [
                str(me),
                "4243",
                str(me),
                str(me),
            ]
    finally:
        os.close(first)
        lock.path.unlink()


def test_z72_a_killed_holder_s_lock_file_is_removed_by_a_later_take_and_a_held_one_is_not(tmp_path: Path) -> None:
    """z72: a holder killed (``kill -9``) leaves its file in the shared lock folder, holding nobody, for good: one a
    folder ever tuned. A later take of any folder's lock removes the files held by nobody and untouched for
    ``STALE_AFTER_S``: a killed holder's goes; one another holder holds (as old) stays, as does one just made."""
    from kernelopt.workspace import STALE_AFTER_S, folder_lock

    killed, held, new = (folder_lock(tmp_path / name, command="tune", hint="").path for name in ("a", "b", "c"))
    killed.parent.mkdir(parents=True, exist_ok=True)
    old = time.time() - 2 * STALE_AFTER_S
    os.close(_hold(killed, fcntl.LOCK_EX, f"4244 {old:.0f} tune\n".encode()))  # its holder gone, the file left
    holder = _hold(held, fcntl.LOCK_SH, f"{os.getpid()} {old:.0f} optimize\n".encode())
    new.touch()
    try:
        for path in (killed, held):
            os.utime(path, (old, old))
        with folder_lock(tmp_path / "d", command="tune", hint=""):
            assert not killed.exists() and held.exists() and new.exists()
        assert held.read_text() == f"{os.getpid()} {old:.0f} optimize\n"  # not touched
    finally:
        os.close(holder)
        for path in (killed, held, new):
            path.unlink(missing_ok=True)


def test_z73_batch_opens_a_problem_s_workspace_under_its_lock_and_the_folder_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """z73: `batch` made and re-made each problem's workspace under no lock: a workspace with no V0 yet, whose folder's
    kernel.py changed since, was removed and made again under a `tune WS` holding it, and DIR was read under a `tune
    DIR`. It now opens each under the workspace's lock and, shared, the folder's (`loop.opening.run_locks`, optimize
    DIR's): under either holder the problem's row says who holds it, and nothing is made or removed. The child run is
    never started here (`run_command` stands in)."""
    import shutil

    import kernelopt.batch.cold as cold
    from kernelopt.batch.problems import BatchItem
    from kernelopt.batch.rows import BatchOptions
    from kernelopt.workspace import RunLock, Workspace, folder_lock
    from tests.conftest import without_since

    def no_child(*_: object, **__: object) -> object:
        raise AssertionError("the problem ran")

    monkeypatch.setattr(cold, "run_command", no_child)
    folder = tmp_path / "add"
    shutil.copytree(Path(__file__).parent / "data" / "loop", folder)
    options = BatchOptions(out_dir=tmp_path / "out", device="cpu")
    item = BatchItem(problem="add", folder=folder)
    ws = Workspace.create(
        "add", kernel=folder / "kernel.py", reference=folder / "reference.py", root=options.workspace_root
    )
    made = (ws.root / "kernel.py").read_bytes()
    (folder / "kernel.py").write_bytes(made + b"# edited since\n")  # a workspace made again at its next opening
    tune_ws = _hold(RunLock(ws.root).path, fcntl.LOCK_EX, b"4245 tune\n")
    try:
        row = cold.run_problem(item, options)
        assert without_since(row.reason or "").startswith(f"another kernelopt tune is running on {ws.root} (pid 4245);")
        assert (ws.root / "kernel.py").read_bytes() == made and (ws.root / ".git").is_dir()  # neither removed nor made
    finally:
        os.close(tune_ws)
    shutil.rmtree(options.workspace_root)
    lock = folder_lock(folder, command="tune", hint="")
    lock.path.parent.mkdir(parents=True, exist_ok=True)
    tune_dir = _hold(lock.path, fcntl.LOCK_EX, b"4246 tune\n")
    try:
        row = cold.run_problem(item, options)
        assert without_since(row.reason or "").startswith(f"another kernelopt tune is running on {folder} (pid 4246);")
        assert not options.workspace_root.exists() or not any(options.workspace_root.iterdir())
    finally:
        os.close(tune_dir)
        lock.path.unlink()
