"""Captured output is capped: the head and tail of each run's stdout/stderr are kept, the drop is stated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelopt.harness.gate import check_files
from kernelopt.harness.runner import OutputCap
from kernelopt.harness.settings import HarnessSettings
from kernelopt.proc import start_command

from .conftest import DATA, KERNELS

pytestmark = pytest.mark.timeout(120)

WRITER = """
import sys
for i in range(2000):
    sys.stdout.write(f"line {i:05d} " + "y" * 88 + "\\n")
    sys.stdout.flush()
"""


def test_cap_keeps_head_and_tail_of_a_flooding_command(tmp_path: Path) -> None:
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    cap = OutputCap(out, head_bytes=1000, tail_bytes=1000)
    with start_command([sys.executable, "-c", WRITER], timeout_s=60, stdout_path=out, stderr_path=err) as cmd:
        while cmd.running():
            cap.trim()
    dropped = cap.finish()
    text = out.read_text()
    total = 2000 * 100
    assert len(text.encode()) < 1000 + 1000 + 200  # head + note + tail
    assert text.startswith("line 00000 ")
    assert text.rstrip("\n").endswith("line 01999 " + "y" * 88)
    assert f"[kernelopt: at least {dropped} bytes of output dropped here;" in text
    # a lower bound of what was cut, never more than that (how close it comes depends on how often trim ran
    # while the writer wrote: on a loaded machine it may count only the last cuts)
    assert 0 < dropped <= total - len(text.encode())


def test_small_output_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "stdout.txt"
    path.write_text("hello\n")
    cap = OutputCap(path, head_bytes=1000, tail_bytes=1000)
    cap.trim()
    assert cap.finish() == 0 and path.read_text() == "hello\n"


def test_a_kernel_that_prints_100kb_per_call_is_capped(tmp_path: Path) -> None:
    settings = HarnessSettings(device="cpu", seeds=3)
    report = check_files(DATA / "harness" / "noisy.py", KERNELS / "add_reference.py", tmp_path, settings=settings)
    assert report.passed, report.message
    runs = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    assert len(runs) == 1
    for name in ("stdout.txt", "stderr.txt"):
        data = (runs[0] / name).read_bytes()
        assert len(data) <= 2 * 256 * 1024 + 300
        assert b"bytes of output dropped here" in data
    assert sum(f.stat().st_size for f in runs[0].iterdir()) < 2 * 1024 * 1024
