"""The subprocess gateway: timeouts, interrupts and the end of a watched command kill the whole process group."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelopt.proc import TerminationSignal, kill_strays, run_command, start_command


def test_captures_output_and_status() -> None:
    r = run_command([sys.executable, "-c", "import sys; print('hi'); sys.exit(3)"], timeout_s=30)
    assert r.returncode == 3 and r.stdout.strip() == "hi" and not r.timed_out and not r.ok


def test_timeout_kills_group_including_grandchildren() -> None:
    t0 = time.monotonic()
    r = run_command([sys.executable, "-c", SPAWNER], timeout_s=1.0)
    assert r.timed_out and r.returncode is None
    assert time.monotonic() - t0 < 10
    assert _gone(_grandchild(r.stdout)), "grandchild survived the process-group kill"


def test_exit_process_keeps_the_code_the_output_and_the_atexit_hooks() -> None:
    code = (
        "import atexit, gc, sys; from kernelopt.proc import exit_process\n"
        "atexit.register(lambda: print('atexit ran,', gc.get_freeze_count() > 0))\n"
        "print('output', end=' '); exit_process(3)\n"
    )
    r = run_command([sys.executable, "-c", code], timeout_s=30)
    assert r.returncode == 3 and r.stdout.split() == ["output", "atexit", "ran,", "True"], r.stdout


def test_missing_program() -> None:
    with pytest.raises(FileNotFoundError):
        run_command(["/nonexistent/tool"], timeout_s=5)


def test_signal_exit_code() -> None:
    r = run_command([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], timeout_s=30)
    assert r.returncode == -11


SPAWNER = (
    "import subprocess, sys, time\n"
    "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print('started', p.pid, flush=True)\n"
    "time.sleep(60)\n"
)
"""A command that starts a grandchild that sleeps a minute, prints ``started PID`` (the grandchild's), then
sleeps itself."""


def _grandchild(stdout: str) -> int:
    assert stdout.startswith("started "), stdout
    return int(stdout.split()[1])


def _gone(pid: int, deadline_s: float = 10.0) -> bool:
    """True once ``pid`` has ended (a zombie has), within ``deadline_s``: a killed process is gone in
    milliseconds, a survivor sleeps on for a minute."""
    t0 = time.monotonic()
    while _alive(pid):
        if time.monotonic() - t0 > deadline_s:
            os.kill(pid, signal.SIGKILL)
            return False
        time.sleep(0.02)
    return True


def _wait_for_output(path, deadline_s: float = 10.0) -> None:
    """Until ``path`` holds a whole line (under PYTHONUNBUFFERED a print is several writes)."""
    t0 = time.monotonic()
    while not path.read_text().endswith("\n") and time.monotonic() - t0 < deadline_s:
        time.sleep(0.02)


def test_started_command_writes_files_and_exits(tmp_path) -> None:
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    code = "import sys; print('hi'); print('oops', file=sys.stderr); sys.exit(3)"
    with start_command([sys.executable, "-c", code], timeout_s=30, stdout_path=out, stderr_path=err) as cmd:
        while cmd.running():
            time.sleep(0.02)
    assert cmd.returncode == 3 and not cmd.timed_out
    assert out.read_text().strip() == "hi" and err.read_text().strip() == "oops"


def test_started_command_timeout_kills_group(tmp_path) -> None:
    out = tmp_path / "out.txt"
    argv = [sys.executable, "-c", SPAWNER]
    t0 = time.monotonic()
    with start_command(argv, timeout_s=1.0, stdout_path=out, stderr_path=tmp_path / "err.txt") as cmd:
        while cmd.running():
            time.sleep(0.02)
    assert cmd.timed_out and cmd.returncode is None
    assert time.monotonic() - t0 < 10
    assert _gone(_grandchild(out.read_text())), "grandchild survived the process-group kill"


def test_allow_exit_lifts_the_timeout_and_kills_a_lingering_command(tmp_path) -> None:
    out = tmp_path / "out.txt"
    argv = [sys.executable, "-c", "import time; print('done', flush=True); time.sleep(60)"]
    with start_command(argv, timeout_s=0.3, stdout_path=out, stderr_path=tmp_path / "err.txt") as cmd:
        cmd.allow_exit(0.8)  # its work is done: no timeout, only a grace to exit
        t0 = time.monotonic()
        while cmd.running():
            time.sleep(0.02)
    assert 0.6 < time.monotonic() - t0 < 5
    assert not cmd.timed_out and cmd.returncode == -signal.SIGKILL


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt(), TerminationSignal(signal.SIGTERM)])
def test_leaving_the_block_kills_the_group(tmp_path, interrupt: KeyboardInterrupt) -> None:
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    argv = [sys.executable, "-c", SPAWNER]
    with pytest.raises(KeyboardInterrupt), start_command(argv, timeout_s=30, stdout_path=out, stderr_path=err) as cmd:
        _wait_for_output(out)
        raise interrupt
    assert not cmd.running() and cmd.returncode == -signal.SIGKILL
    assert _gone(_grandchild(out.read_text())), "grandchild survived leaving the block"


def test_start_command_rejects_no_timeout(tmp_path) -> None:
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with pytest.raises(ValueError), start_command(["true"], timeout_s=0, stdout_path=out, stderr_path=err):
        pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_worker_dies_with_its_parent_even_in_a_group_of_its_own(tmp_path) -> None:
    """A harness worker leads its own process group, so a parent killed at a batch's time limit cannot
    reach it with a group kill; die_with_parent() ends it with the parent all the same."""
    import os
    import subprocess

    pid_file = tmp_path / "worker.pid"
    worker = (
        "import os, pathlib, time\n"
        "from kernelopt.proc import die_with_parent\n"
        "die_with_parent()\n"
        f"pathlib.Path({str(pid_file)!r}).write_text(str(os.getpid()))\n"
        "time.sleep(120)\n"
    )
    parent = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {worker!r}], start_new_session=True)\n"
        "time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", parent], start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not pid_file.is_file() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.05)
        child = int(pid_file.read_text())
        proc.kill()
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        os.kill(child, signal.SIGKILL)
        pytest.fail("the worker outlived its parent")
    finally:
        if proc.poll() is None:
            proc.kill()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rfind(")") + 2] != "Z"  # a zombie is dead


def _pids(folder: Path) -> list[int]:
    return sorted(int(p.name.split(".")[1]) for p in folder.glob("pid.*"))


SETSID_SLEEPER = (
    "import os, subprocess, sys; from pathlib import Path\n"
    "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
    "Path(sys.argv[1]).write_text(str(p.pid))\n"
)


def test_what_a_command_starts_in_another_session_is_killed_with_it(tmp_path: Path) -> None:
    """setsid escapes the process-group kill; the command's token in its environment does not."""
    pid_file = tmp_path / "pid"
    argv = [sys.executable, "-c", SETSID_SLEEPER, str(pid_file)]
    with start_command(argv, timeout_s=30, stdout_path=tmp_path / "o", stderr_path=tmp_path / "e") as cmd:
        while cmd.running():
            time.sleep(0.02)
    pid = int(pid_file.read_text())
    assert cmd.strays == [pid] and not _alive(pid)
    run_command([sys.executable, "-c", SETSID_SLEEPER, str(pid_file)], timeout_s=30, kill_leftovers=True)
    assert not _alive(int(pid_file.read_text()))
    assert kill_strays(cmd.token) == []


@pytest.mark.parametrize("ending", ["", "from kernelopt.proc import exit_process; exit_process(0)\n"])
def test_a_worker_adopts_and_kills_what_it_orphaned(tmp_path: Path, ending: str) -> None:
    """PR_SET_CHILD_SUBREAPER: a double-forked daemon is handed to the worker, which kills it at exit (also
    when the worker ends through exit_process, as kernelopt's workers do)."""
    pid_file = tmp_path / "pid"
    code = (
        "import subprocess, sys; from kernelopt.proc import adopt_descendants; adopt_descendants()\n"
        f"subprocess.run([sys.executable, '-c', {SETSID_SLEEPER!r}, sys.argv[1]], check=True)\n"
    ) + ending
    src = str(Path(__file__).resolve().parents[1] / "src")
    subprocess.run([sys.executable, "-c", code, str(pid_file)], env={**os.environ, "PYTHONPATH": src}, timeout=60)
    assert not _alive(int(pid_file.read_text()))


def test_nothing_a_kernel_leaves_running_survives_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    data = Path(__file__).parent / "data"
    strays = tmp_path / "strays"
    strays.mkdir()
    monkeypatch.setenv("HYGIENE_DAEMON_DIR", str(strays))
    settings = HarnessSettings(device="cpu", seeds=1)
    report = check_files(
        data / "harness" / "daemon.py", data / "kernels" / "add_reference.py", tmp_path / "state", settings=settings
    )
    assert report.passed, report.message
    pids = _pids(strays)
    assert len(pids) == 2 and not any(_alive(p) for p in pids)
    # a stray would write 2 s after its pid file: wait until 2.5 s after the last one (not after the check)
    time.sleep(max(0.0, max(p.stat().st_mtime for p in strays.glob("pid.*")) + 2.5 - time.time()))
    assert not list(strays.glob("late.*"))  # no stray wrote after the check


def test_a_silent_command_is_waited_for_not_polled(monkeypatch: pytest.MonkeyPatch) -> None:
    """review24 r40: a command run without a token was served with a tick period and no tick, so past its first half
    second each wait was a select(0) in a loop: a silent ncu or bench worker spun a core until it ended."""
    import selectors

    waits: list[float | None] = []

    class Counted(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
        def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            waits.append(timeout)
            return super().select(timeout)

    monkeypatch.setattr(selectors, "DefaultSelector", Counted)
    r = run_command([sys.executable, "-c", "import time; time.sleep(1.2)"], timeout_s=30)
    assert r.ok and r.silent_s is not None and r.silent_s >= 1.0
    assert len(waits) < 10, f"{len(waits)} waits for one silent second: the gateway polled"


def test_input_that_cannot_be_encoded_starts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """review24 r41: stdin_text was encoded once the child ran, outside the guard that kills it, so a lone surrogate
    raised and left the command running with its pipes open."""
    import kernelopt.proc as proc

    started: list[list[str]] = []
    real = proc._start
    monkeypatch.setattr(proc, "_start", lambda args, **kw: started.append(args) or real(args, **kw))
    with pytest.raises(UnicodeEncodeError):
        run_command([sys.executable, "-c", "import time; time.sleep(30)"], timeout_s=30, stdin_text="x \udc80")
    assert started == []
