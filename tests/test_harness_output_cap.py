"""Captured output is capped: the head and tail of each run's stdout/stderr are kept, the drop is stated."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelopt.harness.gate import check_files
from kernelopt.harness.settings import HarnessSettings
from kernelopt.proc import start_command
from kernelopt.worker import output
from kernelopt.worker.output import OutputCap

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
    note = f"\n[kernelopt: at least {dropped} bytes of output dropped here; the first 1000 and the last 1000 bytes are kept]\n"
    assert text.startswith("line 00000 ") and note in text
    head, tail = text.split(note)
    assert len(head) == len(tail) == 1000
    # the newest lines are kept: a cut made in place while the writer writes loses nothing (where the file
    # system cannot, tmpfs, what the writer wrote in the instant of the last cut may be missing)
    assert tail.endswith("line 01999 " + "y" * 88 + "\n") or not cap.in_place
    # a lower bound of what was cut, never more than that (exact where the file system removes the range
    # in place; elsewhere output written in the instant of a cut goes uncounted)
    assert 0 < dropped <= total - len(head) - len(tail)


def _lines(first: int, count: int) -> bytes:
    return b"".join(f"line {i:05d} ".encode() + b"y" * 88 + b"\n" for i in range(first, first + count))


@pytest.mark.parametrize("in_place", [True, False], ids=["collapse-range", "read-and-truncate"])
def test_every_cut_keeps_the_head_and_the_newest_tail_and_counts_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_place: bool
) -> None:
    """Both ways of cutting (in place where the file system can, else the tail read and the file cut back
    to its head), written to between cuts as a child would: head + note + the newest tail, the count exact."""
    if not in_place:
        monkeypatch.setattr(output, "_collapse", lambda fd, offset, length: False)
    path = tmp_path / "stdout.txt"
    path.write_bytes(b"")
    cap = OutputCap(path, head_bytes=1000, tail_bytes=1000)
    block = path.stat().st_blksize
    written = b""
    for first, count in ((0, 300), (300, 10), (310, 290), (600, 300)):
        chunk = _lines(first, count)
        with path.open("ab") as fh:
            fh.write(chunk)
        written += chunk
        cap.trim()
        assert path.stat().st_size <= -(-1000 // block) * block + 1000 + 2 * block  # head in whole blocks, tail
        if in_place and not cap.in_place:
            pytest.skip(f"the file system of {tmp_path} cannot remove a range from a file (tmpfs?)")
    dropped = cap.finish()
    assert cap.in_place is in_place and dropped == len(written) - 2000
    note = f"\n[kernelopt: at least {dropped} bytes of output dropped here; the first 1000 and the last 1000 bytes are kept]\n"
    assert path.read_bytes() == written[:1000] + note.encode() + written[-1000:]


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
