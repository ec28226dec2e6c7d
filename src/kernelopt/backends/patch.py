"""Unified diffs against one file: parse and apply strictly (pure; no I/O).

A model's diff must apply *cleanly*: every hunk's context and removed lines must match the file
exactly. Line numbers in ``@@`` headers are a hint only (models miscount): a hunk that does not match
at its stated line is accepted at the single place where it matches exactly, and refused when it
matches nowhere or at several places. There is no fuzz.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kernelopt.errors import KerneloptError
from kernelopt.oneline import one_line

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(KerneloptError):
    """A diff is malformed, targets another file, or does not apply cleanly."""

    exit_code = 2


@dataclass
class Hunk:
    old_start: int
    lines: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", text without newline)

    @property
    def old(self) -> list[str]:
        return [t for op, t in self.lines if op in " -"]

    @property
    def new(self) -> list[str]:
        return [t for op, t in self.lines if op in " +"]


@dataclass
class FilePatch:
    old_path: str | None
    new_path: str | None
    hunks: list[Hunk]


def _strip_prefix(path: str) -> str:
    path = path.split("\t", 1)[0].strip()
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def parse_diff(text: str) -> list[FilePatch]:
    """The file patches of a unified diff (``diff --git`` headers and ``index`` lines are skipped).

    Raises:
        PatchError: no hunk, or a hunk line that is not context, removal or addition.
    """
    patches: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: Hunk | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old = _strip_prefix(line[4:])
            new = _strip_prefix(lines[i + 1][4:])
            current = FilePatch(None if old == "/dev/null" else old, None if new == "/dev/null" else new, [])
            patches.append(current)
            hunk = None
            i += 2
            continue
        m = _HUNK.match(line)
        if m:
            if current is None:  # a bare hunk list: the file is implied
                current = FilePatch(None, None, [])
                patches.append(current)
            hunk = Hunk(old_start=int(m.group(1)))
            current.hunks.append(hunk)
            i += 1
            continue
        if hunk is not None:
            if line.startswith("\\"):  # "\ No newline at end of file"
                i += 1
                continue
            if line == "":
                hunk.lines.append((" ", ""))  # an empty context line whose leading space was lost
            elif line[0] in " -+":
                hunk.lines.append((line[0], line[1:]))
            elif line.startswith(("diff --git", "index ")):
                hunk = None
            else:
                raise PatchError(f"diff line {i + 1} is not context, removal or addition: {one_line(line, 80)!r}")
        i += 1
    for p in patches:
        for h in p.hunks:  # trailing empty "context" lines that were really the end of the reply
            while h.lines and h.lines[-1] == (" ", ""):
                h.lines.pop()
    if not any(p.hunks for p in patches):
        raise PatchError("the diff has no hunk")
    return patches


def _find(lines: list[str], block: list[str], hint: int, start: int) -> int:
    if not block:
        return min(max(hint, start), len(lines))
    if lines[hint : hint + len(block)] == block and hint >= start:
        return hint
    found = [i for i in range(start, len(lines) - len(block) + 1) if lines[i : i + len(block)] == block]
    if not found:
        raise PatchError(f"hunk at line {hint + 1} does not apply: its context/removed lines are not in the file")
    if len(found) > 1:
        raise PatchError(f"hunk at line {hint + 1} matches {len(found)} places; add context lines")
    return found[0]


def apply_diff(original: str, diff: str, *, target: str = "kernel.py") -> str:
    """Apply a unified diff of ``target`` to ``original`` and return the new text.

    Raises:
        PatchError: the diff is malformed, touches another file (or creates/deletes ``target``),
            or a hunk does not apply cleanly.
    """
    patches = parse_diff(diff)
    for p in patches:
        for path in (p.old_path, p.new_path):
            if path is not None and path != target:
                raise PatchError(f"the diff touches {path}; only {target} may change")
        if p.hunks and (p.old_path is None) != (p.new_path is None):
            raise PatchError(f"the diff creates or deletes a file; only edits of {target} are allowed")
    ends_with_newline = original.endswith("\n")
    lines = original.splitlines()
    out: list[str] = []
    pos = 0
    for p in patches:
        for h in p.hunks:
            at = _find(lines, h.old, max(h.old_start - 1, 0), pos)
            out += lines[pos:at]
            out += h.new
            pos = at + len(h.old)
    out += lines[pos:]
    text = "\n".join(out)
    return text + "\n" if ends_with_newline or not original else text
