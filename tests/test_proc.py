"""The subprocess gateway: timeouts kill the whole process group."""

from __future__ import annotations

import sys
import time

import pytest

from kernelopt.proc import run_command


def test_captures_output_and_status() -> None:
    r = run_command([sys.executable, "-c", "import sys; print('hi'); sys.exit(3)"], timeout_s=30)
    assert r.returncode == 3 and r.stdout.strip() == "hi" and not r.timed_out and not r.ok


def test_timeout_kills_group_including_grandchildren(tmp_path) -> None:
    marker = tmp_path / "grandchild_alive"
    child = f"import time; time.sleep(3); open({str(marker)!r}, 'w')"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}])\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    t0 = time.monotonic()
    r = run_command([sys.executable, "-c", code], timeout_s=1.0)
    assert r.timed_out and r.returncode is None
    assert time.monotonic() - t0 < 10
    assert "started" in r.stdout
    time.sleep(3.5)
    assert not marker.exists(), "grandchild survived the process-group kill"


def test_missing_program() -> None:
    with pytest.raises(FileNotFoundError):
        run_command(["/nonexistent/tool"], timeout_s=5)


def test_signal_exit_code() -> None:
    r = run_command([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"], timeout_s=30)
    assert r.returncode == -11
