"""late27: the lock and the user's folder (docs/faults.md, "The lock and the user's folder (late27, 2026-12-07)")."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

LOOP = Path(__file__).parent / "data" / "loop"


def _project(tmp_path: Path) -> Path:
    """A user's project: a git repository whose kernel folder is tests/data/loop's torch add, all committed."""
    repo = tmp_path / "proj"
    folder = repo / "kernels" / "add"
    shutil.copytree(LOOP, folder, ignore=shutil.ignore_patterns("make_summaries.py", "summary_*"))
    git = ["git", "-c", "user.name=u", "-c", "user.email=u@example.com", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "kernel"], check=True)
    return folder


def _status(folder: Path) -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=folder, capture_output=True, text=True, check=True
    ).stdout


def test_z50_a_tune_s_lock_leaves_the_user_s_tree_as_it_was(tmp_path: Path) -> None:
    """z50 (newuser19's n136): ``tune`` locked a user's folder with ``.add.lock`` beside it, which ``git status``
    showed while it ran (and after a ``kill -9``, test_faults7's f3). The lock of a user's folder lies in the shared
    lock folder now, named by the folder's path; a workspace's stays where optimize takes it."""
    from kernelopt.workspace import folder_lock, kernel_locks, locks_folder

    folder = _project(tmp_path)
    lock = folder_lock(folder, command="tune", hint="")
    with kernel_locks(folder / "kernel.py", command="tune", hint=""):
        assert _status(folder) == ""  # nothing new in the user's tree, not even an ignored file
        assert lock.held_here() and lock.path.parent == locks_folder() and lock.path.read_text().endswith(" tune")
    assert not lock.path.exists()
    assert _status(folder) == "" and sorted(p.name for p in tmp_path.iterdir()) == ["proj"]
