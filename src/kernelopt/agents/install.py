"""``kernelopt agent install claude|codex``: put the kernel-optimization skill where each coding agent finds it.

Where each CLI reads skills (checked against their documentation, 2026-12):

* Claude Code: ``<project>/.claude/skills/<dir>/SKILL.md``; for the user ``~/.claude/skills/<dir>/SKILL.md``.
* Codex: ``<project>/.agents/skills/<dir>/SKILL.md``; for the user ``~/.agents/skills/<dir>/SKILL.md``
  (Codex's current user scope; its older ``~/.codex/skills`` is still read for compatibility).

The skill's text is package data (``kernelopt/agents/skills/``), a byte-for-byte copy of the repository's
``plugins/kernelopt/skills/`` folder (the plugins' copy; a test holds them equal), so an install from PyPI has it.
Install writes only the skill's files; ``--uninstall`` removes exactly those (and the skill folder, and
the CLI's skills folders, when they are left empty), and refuses to remove a file that is no longer what
kernelopt wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path

from kernelopt.errors import UsageError
from kernelopt.fileio import atomic_write_text

SKILL_NAME = "kernel-optimization"
"""The skill's folder name (and the ``name`` in its front matter)."""


class AgentCli(StrEnum):
    CLAUDE = "claude"
    CODEX = "codex"


class Scope(StrEnum):
    PROJECT = "project"
    USER = "user"


_SKILLS_DIR: dict[tuple[AgentCli, Scope], tuple[str, ...]] = {
    (AgentCli.CLAUDE, Scope.PROJECT): (".claude", "skills"),
    (AgentCli.CLAUDE, Scope.USER): (".claude", "skills"),
    (AgentCli.CODEX, Scope.PROJECT): (".agents", "skills"),
    (AgentCli.CODEX, Scope.USER): (".agents", "skills"),
}
"""The skills folder of each CLI, under the project folder or the user's home."""


@dataclass
class InstallResult:
    """What an install or uninstall did.

    Attributes:
        cli: the agent CLI.
        scope: project or user.
        skill_dir: the skill's folder.
        written: files written (install) or removed (uninstall).
        unchanged: files already as kernelopt ships them (install) or already absent (uninstall).
    """

    cli: AgentCli
    scope: Scope
    skill_dir: Path
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)


def skill_files() -> dict[str, str]:
    """The shipped skill: relative path -> content."""
    base = resources.files("kernelopt.agents").joinpath("skills", SKILL_NAME)
    out: dict[str, str] = {}

    def walk(node: resources.abc.Traversable, prefix: str) -> None:
        for child in node.iterdir():
            rel = f"{prefix}{child.name}"
            if child.is_dir():
                walk(child, rel + "/")
            elif child.name != "__pycache__":
                out[rel] = child.read_text(encoding="utf-8")

    walk(base, "")
    return out


def skill_dir(cli: AgentCli, scope: Scope, project: Path | None, home: Path | None = None) -> Path:
    """The folder the skill goes to: ``<project or home>/<the CLI's skills folder>/kernel-optimization``.

    Raises:
        UsageError: a project folder that does not exist.
    """
    if scope is Scope.USER:
        base = home if home is not None else Path.home()
    else:
        base = (project or Path.cwd()).expanduser()
        if not base.is_dir():
            raise UsageError(f"--project {base}: {'not a folder' if base.exists() else 'no such folder'}")
    return base.resolve().joinpath(*_SKILLS_DIR[(cli, scope)], SKILL_NAME)


def _in_the_way(target: Path, files: dict[str, str]) -> tuple[Path, str] | None:
    """The first path on the way to a skill file that exists but is not what the install needs there, and
    what it needs: a file where a folder must be (``.claude`` a file), or a folder where a skill file must be."""
    for rel in sorted(files):
        path = target / rel
        for folder in reversed(path.parents):
            if folder.exists() and not folder.is_dir():
                return folder, "a folder"
        if path.is_dir():
            return path, "a file"
    return None


def install(cli: AgentCli, scope: Scope, project: Path | None = None, *, home: Path | None = None) -> InstallResult:
    """Write the skill's files into the CLI's skills folder.

    Raises:
        UsageError: a file of that name exists with other content (edited, or another skill): left alone.
    """
    target = skill_dir(cli, scope, project, home)
    result = InstallResult(cli=cli, scope=scope, skill_dir=target)
    files = skill_files()
    blocking = _in_the_way(target, files)
    if blocking is not None:
        path, needed = blocking
        raise UsageError(f"{path} is in the way: the skill needs {needed} there", hint="move it away and install again")
    differing = _differing_file(target, files)
    if differing is not None:
        raise UsageError(
            f"{differing} exists and differs from kernelopt's skill: left as it is",
            hint="move it away (or `kernelopt agent install ... --uninstall` after restoring it) and install again",
        )
    for rel, content in sorted(files.items()):
        path = target / rel
        if path.is_file():
            result.unchanged.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, content)
        result.written.append(path)
    return result


def uninstall(cli: AgentCli, scope: Scope, project: Path | None = None, *, home: Path | None = None) -> InstallResult:
    """Remove exactly the files :func:`install` writes, then the skill folder when nothing else is left in it.

    Raises:
        UsageError: one of those files was edited since (nothing is removed).
    """
    target = skill_dir(cli, scope, project, home)
    result = InstallResult(cli=cli, scope=scope, skill_dir=target)
    files = skill_files()
    differing = _differing_file(target, files)
    if differing is not None:
        raise UsageError(
            f"{differing} was edited since kernelopt installed it: nothing removed", hint="remove it by hand"
        )
    for rel in sorted(files):
        path = target / rel
        if path.is_file():
            path.unlink()
            result.written.append(path)
        else:
            result.unchanged.append(path)
    base = target.parents[len(_SKILLS_DIR[(cli, scope)])]  # the project folder or the home folder
    folders = {(target / rel).parent for rel in files} | {target} | set(target.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_relative_to(base) and folder != base and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()  # the folders install made (.claude/skills/...), when nothing else is in them
    return result


def _differing_file(target: Path, files: Mapping[str, str]) -> Path | None:
    """The first of the skill's ``files`` (relative path -> content) that stands under ``target`` with other
    content than kernelopt ships (edited, or another skill's), or ``None``."""
    for rel, content in files.items():
        path = target / rel
        if path.is_file() and _text(path) != content:
            return path
    return None


def _text(path: Path) -> str | None:
    """The file's text, ``None`` when it is not UTF-8 (then it is not kernelopt's)."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None
