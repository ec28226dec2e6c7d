"""Write guard: snapshot a workspace before a backend runs, find and undo writes outside its allowance.

Backends are never trusted (DESIGN.md, "may write" column). :func:`snapshot` hashes every file of the
workspace except ``.git/`` and ``.kernelopt/``; :func:`changes` compares two snapshots;
:func:`enforce` reverts every change whose path matches none of the allowed patterns (tracked files
from git, new files deleted, deleted files restored) and reports them. :func:`capture` and
:func:`restore` put a failed stage's allowed files back; :func:`violation_pitfall` is the memory entry
that records a violation.
"""

from __future__ import annotations

import fnmatch
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from kernelopt.memory.model import PitfallAndFix
from kernelopt.workspace import Workspace

IGNORED_DIRS = (".git", ".kernelopt", "__pycache__", ".triton_cache")
# Backend transcripts (``profiles/v<N>/agent_plan.log``, ``llm_implement.log``, ...) are written by the
# backend wrappers after the agent exits, and rewritten on every run: the orchestrator's record of the
# stage, not a change the stage made. Every guard skips them.
TRANSCRIPT_RE = re.compile(r"^profiles/v\d+/(agent|llm)_(plan|implement)\.log$")


def snapshot(root: Path) -> dict[str, str]:
    """Map of relative path -> sha256 of every file under ``root`` (ignored folders and backend
    transcripts skipped)."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if any(part in IGNORED_DIRS for part in rel.parts) or not p.is_file():
            continue
        if TRANSCRIPT_RE.match(rel.as_posix()):
            continue
        out[rel.as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@dataclass(frozen=True)
class Change:
    path: str
    kind: str  # "added" | "modified" | "deleted"


def changes(before: dict[str, str], after: dict[str, str]) -> list[Change]:
    """Files added, modified or deleted between two snapshots, sorted by path."""
    out = [Change(p, "added") for p in after.keys() - before.keys()]
    out += [Change(p, "deleted") for p in before.keys() - after.keys()]
    out += [Change(p, "modified") for p in before.keys() & after.keys() if before[p] != after[p]]
    return sorted(out, key=lambda c: c.path)


def allowed(path: str, patterns: list[str]) -> bool:
    """True when ``path`` matches one of the glob ``patterns`` (``profiles/v3/**``, ``kernel.py``)."""
    return any(fnmatch.fnmatch(path, pat) for pat in patterns)


def enforce(ws: Workspace, before: dict[str, str], patterns: list[str]) -> list[Change]:
    """Revert every change since ``before`` that ``patterns`` do not allow; return those violations.

    Tracked files are restored from HEAD; untracked files that were added are deleted; an untracked
    file that was modified or deleted cannot be recovered from git and is reported all the same.
    """
    violations = [c for c in changes(before, snapshot(ws.root)) if not allowed(c.path, patterns)]
    tracked = set(ws.repo.git.ls_files().splitlines())
    for c in violations:
        target = ws.root / c.path
        if c.path in tracked:
            ws.reset_hard([c.path])
        elif c.kind == "added":
            target.unlink(missing_ok=True)
    return violations


def capture(root: Path, paths: list[str]) -> dict[str, bytes | None]:
    """The bytes of each of ``paths`` (relative to ``root``) now; ``None`` for a missing file.

    Used to put a stage's *allowed* files back when the stage fails (:func:`restore`).
    """
    out: dict[str, bytes | None] = {}
    for rel in paths:
        p = root / rel
        out[rel] = p.read_bytes() if p.is_file() else None
    return out


def restore(root: Path, captured: dict[str, bytes | None]) -> list[str]:
    """Write back files captured by :func:`capture` (deleting those that did not exist); returns the
    paths that had to be restored."""
    restored = []
    for rel, content in captured.items():
        p = root / rel
        now = p.read_bytes() if p.is_file() else None
        if now == content:
            continue
        if content is None:
            p.unlink(missing_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content)
        restored.append(rel)
    return restored


def describe(violations: list[Change]) -> str:
    """``reference.py (modified), notes.txt (added)``."""
    return ", ".join(f"{c.path} ({c.kind})" for c in violations)


def violation_pitfall(
    violations: list[Change], *, stage: str, backend: str, allowed_patterns: list[str]
) -> PitfallAndFix:
    """The memory ``pitfalls_and_fixes`` entry that records a backend writing outside its allowance."""
    return PitfallAndFix(
        error_type="write_guard_violation",
        error_message=f"{stage} backend '{backend}' wrote outside its allowance: {describe(violations)}",
        root_cause=f"the {stage} stage may write only {', '.join(allowed_patterns)}",
        fix_applied="writes reverted (tracked files restored from git, new files deleted); the stage failed",
        lesson="backends must keep to the stage's write allowance; the orchestrator enforces it",
    )
