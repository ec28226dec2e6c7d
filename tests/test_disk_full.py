"""A full disk is one line and exit 3 (documented in the README), wherever it is met: while the
workspace is made (issue 23: exit 70 with a crash log), or in a git command (raw git stderr before).

The full disk is a real one: a small tmpfs mounted for the module (skipped where mounting is not
allowed), filled to the brim.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.cli.app import main
from kernelopt.errors import DiskProblem, GitError
from kernelopt.workspace import Workspace, git_failure

from .conftest import fill_disk as _fill

KERNELS = Path(__file__).parent / "data" / "kernels"


def test_a_full_disk_while_the_workspace_is_made_is_one_line_exit_3(
    small_disk: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = tmp_path / "add"
    task.mkdir()
    shutil.copyfile(KERNELS / "add_kernel.py", task / "kernel.py")
    shutil.copyfile(KERNELS / "add_reference.py", task / "reference.py")
    _fill(small_disk)
    assert main(["optimize", str(task), "--root", str(small_disk), "--device", "cpu", "--max-iters", "0"]) == 3
    err = capsys.readouterr().err
    assert err == (
        f"kernelopt: error: no space left on the device writing {small_disk}/kernel_opt_add (errno 28); "
        "free some space (or pass --root to put the workspace elsewhere)\n"
    )
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]  # no staging folder, no lock


def test_a_full_disk_in_a_git_command_is_one_line_exit_3(small_disk: Path) -> None:
    ws = Workspace.create(
        "add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=small_disk
    )
    ws.kernel_py.write_text(ws.kernel_py.read_text() + "# edited\n")
    _fill(small_disk)
    with pytest.raises(DiskProblem) as full:
        ws.commit(["kernel.py"], "V1: an edit")
    assert full.value.exit_code == 3 and "\n" not in full.value.one_line()
    assert full.value.one_line().startswith(f"no space left on the device writing {ws.root} (errno 28)")


def test_a_full_disk_while_git_restores_a_file_is_one_line_exit_3(small_disk: Path) -> None:
    """The fresh-clone trial of 2026-12-03: a full disk while the loop reverted kernel.py printed git's own
    line ("fatal: sha1 file '.../index.lock' write error. Out of diskspace"), not the disk-full line."""
    ws = Workspace.create(
        "add", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=small_disk
    )
    ws.kernel_py.write_text(ws.kernel_py.read_text() + "# edited\n")
    _fill(small_disk)
    with pytest.raises(DiskProblem) as full:
        ws.reset_hard(["kernel.py"])
    assert full.value.exit_code == 3
    assert full.value.one_line().startswith(f"no space left on the device writing {ws.root} (errno 28)")


def test_a_full_disk_met_by_the_gate_worker_is_exit_3_not_a_fail(small_disk: Path, tmp_path: Path) -> None:
    """The fresh-clone trial of 2026-12-03: the disk filled while the V1 gate's worker ran; it could not
    write its progress ("OSError: [Errno 28] No space left on device"), V1 was recorded as a FAIL and
    reverted, and the next run said the launch configuration had converged, at V0. A real worker on a
    real disk, which the reference's import fills."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings

    reference = tmp_path / "reference.py"
    reference.write_text(
        (KERNELS / "add_reference.py").read_text()
        + f"\nwith open({str(small_disk / 'filler')!r}, 'wb', buffering=0) as _fh:\n"
        "    try:\n        while True:\n            _fh.write(bytes(4096))\n    except OSError:\n        pass\n"
    )
    settings = HarnessSettings(device="cpu", seeds=1, bench_seconds=0.05, case_timeout_s=30.0)
    with pytest.raises(DiskProblem) as full:
        check_files(KERNELS / "add_kernel.py", reference, small_disk / "state", settings=settings)
    assert full.value.exit_code == 3 and "\n" not in full.value.one_line()
    assert full.value.one_line().startswith(f"no space left on the device writing {small_disk}/state/runs/")


def test_git_failures_are_one_line() -> None:
    # git's own words, as `git init` printed them on a full tmpfs
    stderr = (
        "'error: copy-fd: write returned: No space left on device\n"
        "fatal: cannot copy '/usr/share/git-core/templates/hooks/post-update.sample' to '/x/.git/hooks/"
        "post-update.sample': No space left on device'"
    )
    assert isinstance(git_failure("git init", stderr, Path("/x")), DiskProblem)
    other = git_failure("git commit", "error: pathspec 'nope' did not match\nfatal: bad revision\n", Path("/x"))
    assert isinstance(other, GitError) and other.one_line() == "git commit failed in /x: fatal: bad revision"
