"""The workspace a command names: positionally or by ``--workspace``, as a folder or a name under ``--root``."""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import UsageError, WorkspaceError
from kernelopt.workspace import PREFIX, Workspace, made_from


def chosen_workspace(positional: Path | None, option: Path | None, *, usage: str) -> Path:
    """The workspace named positionally or by ``--workspace`` (the spec's spelling); one of them.

    Raises:
        UsageError: neither, or two different ones.
    """
    if positional is not None and option is not None and Path(positional) != Path(option):
        raise UsageError(f"two workspaces given: {positional} and --workspace {option}")
    chosen = positional if positional is not None else option
    if chosen is None:
        raise UsageError("no workspace given", hint=f"{usage} WS (or --workspace WS)")
    return chosen


def resolve_workspace(ws: str, root: Path) -> Workspace:
    """``ws`` as a folder, else as a workspace name under ``root`` (``<root>/kernel_opt_<ws>``).

    Raises:
        WorkspaceError: neither is a workspace.
    """
    path = Path(ws).expanduser()
    bare = len(path.parts) == 1 and ws not in (".", "..")  # a name: <root>/kernel_opt_<ws> may be meant
    named = Path(root).expanduser() / f"{PREFIX}{ws}" if bare else None
    if path.is_dir():
        try:
            return Workspace(path)
        except WorkspaceError as exc:
            # a folder of that name here that is no workspace (`examples/softmax`, run from examples/) does
            # not hide the workspace the name means under --root
            if named is None or not named.is_dir():
                made = made_from(path, root) if (path / "kernel.py").is_file() else None
                if made is not None and made not in (exc.hint or ""):  # the kernel folder optimize ran on (n138)
                    raise WorkspaceError(exc.message, hint=f"{exc.hint}; {made}" if exc.hint else made) from None
                raise
            return Workspace(named)
    if named is None:  # a path, not a name: no <root>/kernel_opt_<ws> to look for
        raise WorkspaceError(f"{ws}: no such workspace folder")
    if named.is_dir():
        return Workspace(named)
    raise WorkspaceError(f"{ws}: no such workspace (looked for {path} and {named})")
