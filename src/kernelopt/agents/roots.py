"""The folders an MCP server may touch: workspaces, kernels, reports and output paths lie under a ``--root``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kernelopt.destination import NAME_MAX, PATH_MAX, may_be_path, shown_path
from kernelopt.errors import UsageError
from kernelopt.oneline import shell_word

if TYPE_CHECKING:
    from kernelopt.report.files import ReportFormat


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
                raise UsageError(f"--root {folder}: {'is a file, not a folder' if path.exists() else 'no such folder'}")
            resolved.append(path.resolve())
        self.folders = resolved

    def confine(self, path: str | Path, what: str) -> Path:
        """``path`` resolved (a relative one against the first root), when it lies under a root.

        Raises:
            OutsideRoots: it does not (links are followed first, so a link out of a root is outside).
        """
        roots = ", ".join(str(r) for r in self.folders)
        text = str(path)
        if not text.strip():
            raise UsageError(f"{what}: empty; give a path under the server's roots ({roots})")
        shown = shown_path(text)
        if "\0" in text:  # no path holds one: the system call refuses it (Python raised ValueError, unsaid)
            raise UsageError(f"{what} {shown!r}: holds a NUL character, which no path can")
        if not may_be_path(text):
            limits = f"at most {PATH_MAX - 1}, and {NAME_MAX} a name"
            size = len(text.encode("utf-8", "surrogatepass"))
            raise UsageError(f"{what} {shown}: too long for a path ({size} bytes; {limits})")
        given = Path(text).expanduser()
        resolved = (given if given.is_absolute() else self.folders[0] / given).resolve()
        if not any(resolved.is_relative_to(root) for root in self.folders):
            # a kernel of the user's own project, outside the folder of workspaces (newuser19 n134)
            raise OutsideRoots(
                f"{what} {shown}: outside the server's roots ({roots})",
                hint="start the server with a root that holds it too (kernelopt mcp --root "
                f"{shell_word(self.folders[0])} --root YOUR_PROJECT: new workspaces go under the first root)",
            )
        return resolved

    def output(self, path: str | Path, what: str) -> Path:
        """A folder the server fills that no stage owns (a profiled command's folder, a new workspace's parent):
        under a root (:meth:`confine`) and where the CLI may write one (:func:`kernelopt.destination.output_folder`:
        outside every workspace). A report file: :meth:`report`.

        Raises:
            OutsideRoots: ``path`` is outside the roots.
            UsageError: it lies in a workspace, or is a file.
        """
        from kernelopt.destination import output_folder

        return output_folder(self.confine(path, what), what, given=path)

    def report(self, path: str | Path, what: str, fmt: ReportFormat) -> Path:
        """A report file the server writes: under a root, and where ``kernelopt report`` may write one
        (:func:`kernelopt.report.files.report_file`: a ``.md`` / ``.html`` file outside every workspace, new or an
        earlier report). ``report(markdown=<ws>/kernel.py)`` replaced the kernel with the report.

        Raises:
            OutsideRoots: ``path`` is outside the roots.
            UsageError: it may not be written there.
        """
        from kernelopt.report.files import report_file

        return report_file(self.confine(path, what), what, fmt, given=path)
