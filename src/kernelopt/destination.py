"""Where kernelopt writes a file or folder that a user (or an agent) names: a report, a prompt, a result, an
output folder. One rule for the CLI and the MCP server.

A slip of the path replaced what it named: ``kernelopt report WS --markdown WS/kernel.py`` wrote the report over
the kernel, ``--html WS/reference.py`` over the ground truth, ``--markdown WS/memory/v0.json`` over a record and
``--markdown WS/.git/HEAD`` over the workspace's git (every later command: "not a kernelopt workspace");
``prompt --out``, ``test_kernel.py --json`` and a report named after a user's own ``README.md`` did the same.
So a path named for output:

- lies outside every workspace: a workspace's files are written by its stages only, under the write guard (an
  output folder may lie in the workspace's own ``.kernelopt/`` where the command's default does, as ``tune``'s);
- is a file of the kind written (:class:`FileKind`'s suffixes: a report is ``.md`` / ``.html``, never ``.py``);
- replaces only a file kernelopt wrote of that kind (its opening says so), never another file: a new path, or
  an earlier report, prompt or result.

Each check happens before anything is read or run: a refusal is one line (exit 2) and nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kernelopt.errors import UsageError
from kernelopt.oneline import one_line
from kernelopt.workspace import STATE_DIR, enclosing_workspace

PATH_MAX = 4096
"""Bytes of a path, its terminating NUL included (Linux's ``PATH_MAX``): a longer one fails every system call
with ``ENAMETOOLONG``, which reached the agent as the SDK's bare "Error executing tool status"."""

NAME_MAX = 255
"""Bytes of one name in a path (Linux's ``NAME_MAX``)."""

SHOWN_CHARS = 200
"""A refusal quotes at most this many characters of a text given as a path that no path can be (:func:`may_be_path`:
an agent's whole text passed as one); a path that can be one is quoted whole (:func:`shown_path`)."""

HEAD_BYTES = 4096
"""How much of an existing file is read to tell whether kernelopt wrote it."""


@dataclass(frozen=True)
class FileKind:
    """A kind of file kernelopt writes where it is told.

    Attributes:
        noun: what it is called in a refusal ("report", "prompt").
        suffixes: the names it may have, lower case, with the dot.
        is_ours: whether an existing file's first :data:`HEAD_BYTES` (decoded, bad bytes replaced) are one that
            kernelopt wrote of this kind: only such a file is replaced.
    """

    noun: str
    suffixes: tuple[str, ...]
    is_ours: Callable[[str], bool]


def shown_path(path: str | Path) -> str:
    """``path`` as a refusal quotes it: whole (whitespace folded) where it can name a file, cut to :data:`SHOWN_CHARS`
    where it is too long to be a path. Cut at 200 characters, a refusal named ``/work/tmp/.../pytest-of-roo...``
    for a path of 259: its file's name, the part that says which file, was what the cut took (leftovers28 l185)."""
    text = str(path)
    return one_line(text, max(len(text), 1) if may_be_path(text) else SHOWN_CHARS)


def may_be_path(text: str) -> bool:
    """Whether ``text`` is short enough to name a file: under :data:`PATH_MAX` bytes, and no name in it over
    :data:`NAME_MAX` (UTF-8, any lone surrogate an agent's JSON may hold counted as its three bytes, never raised
    on)."""
    encoded = text.encode("utf-8", "surrogatepass")
    return len(encoded) < PATH_MAX and all(len(name) <= NAME_MAX for name in encoded.split(b"/"))


def _resolved(path: str | Path, what: str) -> Path:
    text = str(path)
    if not text.strip():
        raise UsageError(f"{what}: empty; name a path")
    return Path(text).expanduser().resolve()


def outside_workspaces(path: str | Path, what: str, *, state_ok: bool = False, given: str | Path | None = None) -> Path:
    """``path`` resolved, when it lies outside every workspace (``state_ok``: or in a workspace's ``.kernelopt/``,
    where a command's own default lies): the parent of a new workspace, an output folder.

    Raises:
        UsageError: an empty path, or one in a workspace.
    """
    target = _resolved(path, what)
    ws = enclosing_workspace(target)
    if ws is None or (state_ok and target.is_relative_to(ws / STATE_DIR)):
        return target
    shown = shown_path(path if given is None else given)
    where = f"name a path outside it{f' (or in its {STATE_DIR}/)' if state_ok else ''}"
    raise UsageError(f"{what} {shown}: inside the workspace {ws}, whose files only its stages write; {where}")


def output_file(
    path: str | Path, what: str, kind: FileKind, *, state_ok: bool = False, given: str | Path | None = None
) -> Path:
    """``path`` resolved (links followed, ``~`` expanded), when kernelopt may write a ``kind`` file there.

    Args:
        path: the path as the caller gave it (quoted in a refusal: :func:`shown_path`).
        what: how the caller named it: ``--markdown`` (the CLI), ``markdown`` (an MCP argument).
        kind: what is written there.
        state_ok: a path in a workspace's ``.kernelopt/`` is allowed (its own state: a result of its harness).
        given: the path as the user gave it, when ``path`` is already resolved (quoted in a refusal).

    Raises:
        UsageError: an empty path, a folder, a name without one of ``kind``'s suffixes, a path in a workspace, or
            an existing file that kernelopt did not write as a ``kind``.
    """
    target = _resolved(path, what)
    shown = shown_path(path if given is None else given)
    if target.is_dir():
        raise UsageError(f"{what} {shown}: is a folder; give a file name (e.g. {shown}/{kind.noun}{kind.suffixes[0]})")
    if target.suffix.lower() not in kind.suffixes:
        kinds = " or ".join(kind.suffixes)
        raise UsageError(f"{what} {shown}: name a {kinds} file (a {kind.noun} replaces no other kind of file)")
    outside_workspaces(target, what, state_ok=state_ok, given=shown)
    if target.exists() and not _written_as(target, kind):
        raise UsageError(
            f"{what} {shown}: {target} exists and is not a kernelopt {kind.noun}; name a new file "
            f"(a {kind.noun} replaces only an earlier one)"
        )
    return target


def _written_as(target: Path, kind: FileKind) -> bool:
    """True when the existing ``target`` is a regular file whose opening is ``kind``'s (unreadable: False)."""
    if not target.is_file():
        return False
    try:
        with target.open("rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return False
    return kind.is_ours(head.decode("utf-8", errors="replace"))


def output_folder(
    path: str | Path,
    what: str,
    *,
    state_ok: bool = False,
    given: str | Path | None = None,
    hint: str | None = None,
) -> Path:
    """``path`` resolved, when kernelopt may make or fill an output folder there: not a file (nor under one),
    and :func:`outside_workspaces`.

    Args:
        hint: what the folder is for, said after a refusal for a file.

    Raises:
        UsageError: an empty path, a file (or a path under one), or a path in a workspace.
    """
    target = _resolved(path, what)
    shown = shown_path(path if given is None else given)
    for part in (target, *target.parents):
        if part.exists():
            if not part.is_dir():
                said = "is a file" if part == target else f"{part} is a file"
                raise UsageError(f"{what} {shown}: {said}, not a folder", hint=hint)
            break
    return outside_workspaces(target, what, state_ok=state_ok, given=shown)
