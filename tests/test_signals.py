"""SIGTERM / SIGHUP stop a hung candidate too, not only Ctrl-C (fresh-user test, 2026-11-29)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelopt.workspace import Workspace

from .conftest import KERNELS

# the candidate says it is inside run() (a file) and spins there
HANG = "def run(x, y):\n    open({marker!r}, 'w').close()\n    while True:\n        pass\n"


def _workers(ws_root: str) -> list[int]:
    """The harness workers of the workspace: the processes that hold its run folder's files open (the
    worker's stdout and stderr). A worker on the CPU is forked from the fork server, so its command line is
    the server's: it is found by what it has open, as a fresh ``python -m kernelopt.harness.worker`` is."""
    runs = f"{ws_root}/.kernelopt/runs/"
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                targets = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
            except OSError:
                continue
            if any(t.startswith(runs) for t in targets):
                pids.append(int(entry.name))
    return pids


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_signal_kills_the_hung_worker(ws_root: Path, tmp_path: Path, sig: signal.Signals) -> None:
    kernel, marker = tmp_path / "hang.py", tmp_path / "hanging"
    kernel.write_text(HANG.format(marker=str(marker)))
    ws = Workspace.create(f"hang{int(sig)}", kernel=kernel, reference=KERNELS / "add_reference.py", root=ws_root)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src"), "TEST_TIMEOUT_SEC": "60"}
    proc = subprocess.Popen(
        [sys.executable, "test_kernel.py", "--device", "cpu"],
        cwd=ws.root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _workers(str(ws.root)), "the worker never started"
    assert marker.exists(), "the worker never reached the hang"
    try:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        deadline = time.monotonic() + 10  # a survivor still spins when this ends
        while (left := _workers(str(ws.root))) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.returncode == 130 and b"interrupted" in err
        assert left == [], "the hung worker outlived test_kernel.py"
    finally:  # never leave a spinning worker behind, even when the test fails
        proc.kill()
        for pid in _workers(str(ws.root)):
            os.kill(pid, signal.SIGKILL)
