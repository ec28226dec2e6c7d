"""late32's lane (2026-12-07): ``kernelopt tunables --set`` writes what ``kernelopt tune`` writes for the value set
(z95). The written kernel is judged as a user would: against the reference at a size ``SHAPES`` does not name that
the original handled, on the CPU with Triton's interpreter, in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker_cases import _correct_at

DATA = Path(__file__).parent / "data" / "breaker2"


@pytest.mark.timeout(120)
def test_z95_tunables_set_writes_the_guard_tune_writes_and_the_kernel_is_right_off_shapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """breaker2's flat_nomask (``_scale[(n // 64,)](.., BLOCK=64)``, no mask; SHAPES of 256 and 1024 elements):
    ``--set _scale:BLOCK=128`` wrote ``n // 128`` with a warning naming the guard tune would write, wrong at 192
    elements (3 x 64, not in SHAPES), which the original handles. Now it writes the guard's text (``guard_edit``'s),
    one line saying so, ``--dry-run`` showing that text; the written kernel is right at 192, the plain one is not."""
    from kernelopt.cli.app import main
    from kernelopt.tunables.edit import apply_source
    from kernelopt.tunables.guard import guard_edit

    folder = Path(shutil.copytree(DATA / "flat_nomask", tmp_path / "flat_nomask"))
    kernel = folder / "kernel.py"
    original = kernel.read_text()
    plain = apply_source(original, {"_scale:BLOCK": 128}).new_source
    guarded = guard_edit(original, plain).new_source
    assert guarded is not None and guarded != plain
    argv = ["tunables", str(kernel), "--no-evaluate", "--set", "_scale:BLOCK=128"]
    assert main([*argv, "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert kernel.read_text() == original
    assert "+    if n % 128 == 0:  # kernelopt: tuned" in out and "+    _scale[(n // BLOCK,)]" in out, out
    said = [line for line in err.splitlines() if line.startswith("warning")]
    assert len(said) == 1 and "shown (--dry-run) as kernelopt tune writes it, BLOCK=128 only where n % 128" in said[0]
    assert main(argv) == 0
    assert "written as kernelopt tune writes it" in capsys.readouterr().err
    assert kernel.read_text() == guarded

    off = [{"rows": 3, "cols": 64}]  # 192 elements: SHAPES names 256 and 1024
    (tmp_path / "plain").mkdir()
    shutil.copy(folder / "reference.py", tmp_path / "plain" / "reference.py")
    (tmp_path / "plain" / "kernel.py").write_text(plain)
    # the plain kernel first: its unwritten 64 values are whatever `torch.empty_like` hands back, and after the
    # guarded run that was the guarded run's freed output, right by reuse (a fresh clone failed so, 2026-12-07)
    assert _correct_at((tmp_path / "plain", off)) == {"rows=3,cols=64": False}  # what --set wrote before
    assert _correct_at((folder, off)) == {"rows=3,cols=64": True}


@pytest.mark.timeout(60)
def test_z96_status_of_a_kernel_folder_finds_the_run_made_into_another_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``kernelopt status DIR`` read only ``<root>/kernel_opt_<DIR's name>``: a run of ``optimize DIR --name other``
    was "a kernel folder no run has started from yet", and beside an older workspace of DIR's own name it was that
    one's ("run: stopped") while it ran. Now every workspace whose first commit holds DIR's two files is found: the
    one a run holds is told, else the one of DIR's name, the others named in a note."""
    import fcntl
    import os

    from kernelopt.cli.app import main
    from kernelopt.workspace import Workspace

    folder = Path(shutil.copytree(DATA / "flat_nomask", tmp_path / "mine"))
    root = tmp_path / "root"
    files = {"kernel": folder / "kernel.py", "reference": folder / "reference.py"}
    other = Workspace.create("other", root=root, **files)
    argv = ["status", str(folder), "--root", str(root), "--json"]
    assert main(argv) == 0  # the run into another name alone: found
    assert '"workspace": "' + str(other.root) in capsys.readouterr().out
    own = Workspace.create("mine", root=root, **files)
    Workspace.create("stranger", root=root, kernel=files["kernel"], reference=DATA / "global_tile" / "reference.py")
    assert main(argv) == 0  # none running: the folder's own name's, the other named
    out, err = capsys.readouterr()
    assert f'"workspace": "{own.root}"' in out and f"also made from {folder}: {other.root} " in err, err
    lock = os.open(other.root.parent / f".{other.root.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a run holds the other (its pid is this test's: /proc/locks tells it)
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert f'"workspace": "{other.root}"' in out and '"run": "running"' in out, out
        assert f"also made from {folder}: {own.root} " in err and "stranger" not in err
    finally:
        os.close(lock)
