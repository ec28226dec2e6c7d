"""Bad input and a broken environment end in one line and a documented exit code, never an internal error.

Exit 2 is bad input (a truncated report, a header-only CSV, a task card that is not UTF-8); exit 3 is the
environment (a full disk, a read-only workspace). Each case runs the real command through ``main``.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

import kernelopt.memory.store as store
from kernelopt.cli.app import main
from kernelopt.errors import EXIT_BAD_INPUT, EXIT_ENVIRONMENT, disk_problem
from kernelopt.workspace import Workspace

from .conftest import KERNELS
from .nvidia_data import NVIDIA, report

pytestmark = pytest.mark.timeout(120)

AMD_DATA = Path(__file__).parent / "data" / "amd"


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("kernelopt: error: ") and "internal error" not in lines[0]
    return lines[0]


def test_truncated_real_ncu_rep_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = report("h200_softmax").read_bytes()
    cut = tmp_path / "cut.ncu-rep"
    cut.write_bytes(whole[: len(whole) // 3])
    assert main(["evidence", str(cut)]) == EXIT_BAD_INPUT
    line = _one_error_line(capsys.readouterr().err)
    assert "cut.ncu-rep" in line and "truncated" in line


@pytest.mark.parametrize(
    "source",
    [
        NVIDIA / "h200_softmax_details.csv",
        NVIDIA / "h200_softmax_raw.csv",
        AMD_DATA / "amd_mi300x_bmm_pmc_kernel_top.csv",
        AMD_DATA / "amd_mi300x_vcopy_pmc_perf_rocprofv2.csv",
        AMD_DATA / "amd_mi300x_vcopy_timestamps.csv",
    ],
    ids=lambda p: p.name,
)
def test_header_only_csv_is_bad_input_for_both_vendors(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    header_only = tmp_path / source.name
    header_only.write_text(source.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    assert main(["evidence", str(header_only)]) == EXIT_BAD_INPUT
    line = _one_error_line(capsys.readouterr().err)
    assert "no profiled" in line or "only a header" in line


def test_task_card_that_is_not_utf8_is_bad_input(
    add_workspace: Workspace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = tmp_path / "README.md"
    card.write_bytes("---\ngpu: H200\n---\n# Noyau acc\u00e9l\u00e9r\u00e9\n".encode("latin-1"))
    argv = ["init", "x", "--kernel", str(KERNELS / "add_kernel.py"), "--reference", str(KERNELS / "add_reference.py")]
    assert main([*argv, "--root", str(tmp_path / "root"), "--task-card", str(card)]) == EXIT_BAD_INPUT
    assert "not UTF-8" in _one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "root" / "kernel_opt_x").exists()
    # the same card inside an existing workspace: every command that reads it says the same
    add_workspace.readme.write_bytes(card.read_bytes())
    assert main(["validate", str(add_workspace.root), "--device", "cpu"]) == EXIT_BAD_INPUT
    assert "README.md: not UTF-8 text" in _one_error_line(capsys.readouterr().err)


def _full_disk(path: Path, text: str) -> None:
    with open("/dev/full", "w", encoding="utf-8") as fh:  # the kernel's own ENOSPC
        fh.write(text)
        fh.flush()


def _read_only(path: Path, text: str) -> None:
    raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("writer", "words"), [(_full_disk, "no space left"), (_read_only, "read-only")], ids=["ENOSPC", "EROFS"]
)
def test_full_disk_and_read_only_workspace_are_environment_errors(
    writer: object,
    words: str,
    add_workspace: Workspace,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(store, "atomic_write_text", writer)
    assert main(["memory", "create", "--version", "0", "--workspace", str(add_workspace.root)]) == EXIT_ENVIRONMENT
    line = _one_error_line(capsys.readouterr().err)
    assert words in line
    assert not add_workspace.memory.exists(0)  # nothing half-written


def test_disk_problem_covers_only_disk_errors() -> None:
    assert disk_problem(OSError(errno.ENOENT, "No such file", "x")) is None
    p = disk_problem(OSError(errno.EDQUOT, "Disk quota exceeded", "/w/memory/v1.json"))
    assert p is not None and p.exit_code == EXIT_ENVIRONMENT and "/w/memory/v1.json" in p.one_line()
