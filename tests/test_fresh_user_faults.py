"""The faults of the fresh-user trial of 2026-12-04 on the CPU, one test each (see docs/faults.md)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
KERNELS = DATA / "kernels"


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_atomic_write_keeps_the_mode_and_gives_a_new_file_the_umask_s(tmp_path: Path, umask_022: None) -> None:
    """`kernelopt tune` rewrote kernel.py with mode 600 (mkstemp's), record.jsonl too."""
    from kernelopt.fileio import atomic_write_text, new_file_mode

    new = tmp_path / "record.jsonl"
    atomic_write_text(new, "{}\n")
    assert _mode(new) == 0o644 == new_file_mode()
    kernel = tmp_path / "kernel.py"
    kernel.write_text("BLOCK = 64\n")
    kernel.chmod(0o664)
    atomic_write_text(kernel, "BLOCK = 4096\n")
    assert _mode(kernel) == 0o664 and kernel.read_text() == "BLOCK = 4096\n"
    os.umask(0o077)
    atomic_write_text(tmp_path / "private.json", "{}")
    assert _mode(tmp_path / "private.json") == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_a_workspace_and_its_profile_folder_get_the_umask_s_mode(ws_root: Path, umask_022: None) -> None:
    """Built in a mkdtemp staging folder (0700) and moved into place: they kept 0700."""
    from kernelopt.profiling.staging import staged_profile_dir
    from kernelopt.workspace import Workspace

    ws = Workspace.create("add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root)
    assert _mode(ws.root) == 0o755
    with staged_profile_dir(ws, 1, force=False) as staging:
        (staging / "summary.txt").write_text("x")
    assert _mode(ws.profile_dir(1)) == 0o755


def _help_of(command: str, option: str) -> str:
    import typer

    from kernelopt.cli.app import build_app

    group = typer.main.get_command(build_app())
    cmd = group.commands[command]  # type: ignore[attr-defined]
    return " ".join(next(p.help for p in cmd.params if option in p.opts).split())


def test_tune_dry_run_says_what_it_writes() -> None:
    """The help said "write nothing", but the session folder (record, plot) is written: resume needs it.
    That it is written, and kernel.py left: tests/test_tuning_folder.py::test_triton_kernel_dry_run_then_resume..."""
    said = _help_of("tune", "--dry-run")
    assert "write nothing" not in said
    assert "leave kernel.py unchanged; the session's record and plot are still written" in said
    root = Path(__file__).resolve().parents[1]
    for doc in (root / "README.md", root / "docs" / "tuning-engine.md"):
        text = " ".join(doc.read_text().split())
        assert "`--dry-run` only prints" not in text and "kernel.py unchanged" in text, doc
