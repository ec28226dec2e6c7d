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

HANG = "def run(x, y):\n    while True:\n        pass\n"


def _workers(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "kernelopt.harness.worker" in cmd and marker in cmd:
                pids.append(int(entry.name))
    return pids


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_signal_kills_the_hung_worker(ws_root: Path, tmp_path: Path, sig: signal.Signals) -> None:
    kernel = tmp_path / "hang.py"
    kernel.write_text(HANG)
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
    while not _workers(str(ws.root)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _workers(str(ws.root)), "the worker never started"
    time.sleep(1.0)
    try:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        time.sleep(0.5)
        left = _workers(str(ws.root))
        assert proc.returncode == 130 and b"interrupted" in err
        assert left == [], "the hung worker outlived test_kernel.py"
    finally:  # never leave a spinning worker behind, even when the test fails
        proc.kill()
        for pid in _workers(str(ws.root)):
            os.kill(pid, signal.SIGKILL)
