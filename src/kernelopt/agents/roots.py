"""The folders an MCP server may touch: workspaces, kernels, reports and output paths lie under a ``--root``."""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import UsageError


class OutsideRoots(UsageError):
    """A path outside every root the server was started with."""


class Roots:
    """The ``--root`` folders of ``kernelopt mcp``, resolved (links followed) once at start.

    Args:
        folders: the roots; each must be an existing folder.

    Raises:
        UsageError: no root, or one that is not a folder.
    """

    def __init__(self, folders: list[Path]) -> None:
        if not folders:
            raise UsageError("kernelopt mcp needs at least one --root DIR")
        resolved = []
        for folder in folders:
            path = Path(folder).expanduser()
            if not path.is_dir():
                raise UsageError(f"--root {folder}: no such folder")
            resolved.append(path.resolve())
        self.folders = resolved

    def confine(self, path: str | Path, what: str) -> Path:
        """``path`` resolved (a relative one against the first root), when it lies under a root.

        Raises:
            OutsideRoots: it does not (links are followed first, so a link out of a root is outside).
        """
        given = Path(path).expanduser()
        resolved = (given if given.is_absolute() else self.folders[0] / given).resolve()
        if not any(resolved.is_relative_to(root) for root in self.folders):
            roots = ", ".join(str(r) for r in self.folders)
            raise OutsideRoots(f"{what} {path}: outside the server's roots ({roots})")
        return resolved
