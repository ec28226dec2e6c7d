"""Write a profile folder atomically: build ``profiles/.v<N>.<random>/``, rename to ``profiles/v<N>/``.

Nothing half-written is left behind: on any failure the staging folder is removed. Logs that explain a
failure live outside it, in the workspace's untracked ``.kernelopt/logs/``.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kernelopt.errors import WorkspaceError
from kernelopt.fileio import new_folder_mode
from kernelopt.workspace import Workspace


def log_path(workspace: Workspace, version: int, name: str) -> Path:
    """``.kernelopt/logs/profile-v<N>-<name>.log`` (the folder is created)."""
    folder = workspace.state_dir / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"profile-v{version}-{name}.log"


@contextmanager
def staged_profile_dir(workspace: Workspace, version: int, *, force: bool) -> Iterator[Path]:
    """Yield a fresh staging folder that becomes ``profiles/v<version>/`` when the block succeeds.

    Raises:
        WorkspaceError: ``profiles/v<version>/`` exists with content and ``force`` is False (profile
            artifacts are never reused across versions or silently replaced).
    """
    target = workspace.profile_dir(version)
    if target.exists() and any(target.iterdir()) and not force:
        raise WorkspaceError(
            f"{target} already holds a profile",
            hint="profile a new version (--version), or pass --force to replace it",
        )
    workspace.profiles_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".v{version}.", dir=workspace.profiles_dir))
    staging.chmod(new_folder_mode())  # mkdtemp's 0700 would become profiles/v<N>'s mode
    try:
        yield staging
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
