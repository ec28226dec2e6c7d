"""Search a local reference project (second knowledge source): BM25 over its source code and comments.

README.md's ``reference_project`` names a folder (an optimized kernel library, a tuned fork, ...). Its
source files are cut into overlapping windows of lines, tokenized as code (identifiers, their
``snake_case`` and ``camelCase`` parts, comment words), and ranked with BM25 (the ``bm25s`` library)
against the same query as the gpu-wiki. A hit is reported as ``path:line`` (path relative to the project
folder; the line of the window that shares most query words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SOURCE_SUFFIXES = frozenset(
    {".py", ".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hip", ".cl", ".triton", ".mlir"}
)
SKIP_DIRS = frozenset({".git", "__pycache__", "build", "dist", "node_modules", ".venv", "venv", ".tox", ".mypy_cache"})
MAX_FILE_BYTES = 512 * 1024
MAX_FILES = 5000
WINDOW_LINES = 12
WINDOW_STRIDE = 6
_STOPWORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "is",
        "are",
        "be",
        "by",
        "with",
        "as",
        "at",
        "it",
        "this",
        "that",
        "from",
        "if",
        "else",
        "return",
        "def",
        "import",
        "self",
        "int",
        "float",
        "void",
        "const",
        "auto",
        "while",
        "not",
        "none",
        "true",
        "false",
    }
)
_WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+")
_CAMEL_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def tokenize(text: str) -> list[str]:
    """Code-aware tokens: ``num_warps`` -> ``num_warps, num, warps``; ``loadTile`` -> ``loadtile, load, tile``."""
    out: list[str] = []
    for word in _WORD_RE.findall(text):
        low = word.lower()
        parts = [p.lower() for piece in word.split("_") if piece for p in _CAMEL_RE.findall(piece)]
        for tok in (low, *parts) if len(parts) > 1 else (low,):
            if len(tok) >= 2 and tok not in _STOPWORDS:
                out.append(tok)
    return out


@dataclass(frozen=True)
class ReferenceHit:
    """One place in the reference project.

    Attributes:
        path: file path relative to the project folder (POSIX separators).
        line: 1-based line number of the best-matching line of the window.
        text: that line, stripped.
        snippet: the window's text (at most a few lines around the line).
        score: BM25 score of the window.
    """

    path: str
    line: int
    text: str
    snippet: str
    score: float

    @property
    def ref(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class _Window:
    path: str
    start: int  # 0-based index of the first line
    lines: tuple[str, ...]


class ReferenceIndex:
    """A BM25 index over the source files of one folder.

    Args:
        root: the reference project folder.
        windows: the indexed windows (built by :meth:`build`).
    """

    def __init__(self, root: Path, windows: list[_Window], skipped: int = 0) -> None:
        self.root = root
        self._windows = windows
        self.skipped_files = skipped
        self._bm25 = None
        if windows:
            import bm25s  # imported here: importing kernelopt stays light

            self._bm25 = bm25s.BM25()
            corpus = [tokenize("\n".join(w.lines)) or ["_empty_"] for w in windows]
            self._bm25.index(corpus, show_progress=False)

    @classmethod
    def build(cls, root: Path) -> ReferenceIndex:
        """Index the source files under ``root`` (hidden and build folders skipped, large files skipped).

        Raises:
            FileNotFoundError: ``root`` is not a folder.
        """
        root = Path(root)
        if not root.is_dir():
            raise FileNotFoundError(f"{root}: no such folder")
        windows: list[_Window] = []
        skipped = 0
        files = 0
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
                continue
            if path.suffix.lower() not in SOURCE_SUFFIXES or not path.is_file():
                continue
            if files >= MAX_FILES or path.stat().st_size > MAX_FILE_BYTES:
                skipped += 1
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                skipped += 1
                continue
            files += 1
            lines = text.splitlines()
            for start in range(0, max(len(lines), 1), WINDOW_STRIDE):
                chunk = tuple(lines[start : start + WINDOW_LINES])
                if any(ln.strip() for ln in chunk):
                    windows.append(_Window(rel.as_posix(), start, chunk))
                if start + WINDOW_LINES >= len(lines):
                    break
        return cls(root, windows, skipped)

    def __len__(self) -> int:
        return len(self._windows)

    def search(self, query: str, limit: int = 5) -> list[ReferenceHit]:
        """The best ``limit`` places for ``query``, best first (ties by path and line); none when nothing matches."""
        q = tokenize(query)
        if self._bm25 is None or not q:
            return []
        k = min(len(self._windows), max(limit * 4, limit))
        docs, scores = self._bm25.retrieve([q], k=k, show_progress=False)
        qset = set(q)
        seen: set[tuple[str, int]] = set()
        ranked = []
        for idx, score in zip(docs[0].tolist(), scores[0].tolist(), strict=True):
            if score <= 0:
                continue
            w = self._windows[int(idx)]
            best, best_n = 0, -1
            for i, ln in enumerate(w.lines):
                n = len(qset & set(tokenize(ln)))
                if n > best_n:
                    best, best_n = i, n
            line = w.start + best + 1
            if (w.path, line) in seen:
                continue
            seen.add((w.path, line))
            lo = max(0, best - 2)
            snippet = "\n".join(w.lines[lo : best + 3]).strip()
            ranked.append(ReferenceHit(w.path, line, w.lines[best].strip(), snippet, round(float(score), 6)))
        ranked.sort(key=lambda h: (-h.score, h.path, h.line))
        return ranked[:limit]
