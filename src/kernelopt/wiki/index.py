"""The BM25 text index over wiki records (pure: no I/O; ``bm25s`` is imported when an index is built).

Tokens are what a profiler user types: profiler metric names (``dram__throughput.avg.pct_of_peak_...``),
symptom ids (``smem_bank_conflicts``), AMD counters (``SQ_LDS_BANK_CONFLICT``), stall reasons
(``long_scoreboard``) and plain words. A compound token is indexed whole *and* split into its parts, so
``long_scoreboard`` matches a record naming ``smsp__average_warps_issue_stalled_long_scoreboard_...``
and a query for ``bank conflicts`` matches ``SQ_LDS_BANK_CONFLICT``. Plural ``s`` is folded
(``conflicts`` -> ``conflict``); a short list of English stop words is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from kernelopt.wiki.record import WikiRecord

STOP_WORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "when",
        "which",
        "with",
        "will",
        "can",
        "may",
        "more",
        "than",
        "then",
        "there",
        "these",
        "those",
        "not",
        "no",
        "use",
        "used",
        "using",
        "your",
        "you",
    }
)

_SPLIT = re.compile(r"[^a-z0-9_]+")


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss") and not word.endswith("us"):
        return word[:-1]
    return word


def tokenize(text: str) -> list[str]:
    """Lower-cased tokens of ``text``: compounds whole plus their ``_``-separated parts, stop words out."""
    out: list[str] = []
    for raw in _SPLIT.split(text.lower()):
        word = raw.strip("_")
        if not word:
            continue
        parts = [p for p in word.split("_") if p]
        if len(parts) > 1:
            out.append(_fold(word))
        for p in parts:
            if len(p) > 1 and p not in STOP_WORDS:
                out.append(_fold(p))
    return out


def record_text(record: WikiRecord, family_by_arch: Mapping[str, str] | None = None) -> str:
    """The text indexed for ``record``: title and symptoms twice (they name the problem), then the
    scope (with architecture family names such as Hopper or CDNA3), metrics, category, changes,
    impact, risks, the pitfall fields and the body."""
    families = family_by_arch or {}
    change = record.change.model_dump() if record.change else {}
    parts: list[str] = [
        record.title,
        record.title,
        record.id.replace("-", " "),
        " ".join(record.symptoms),
        " ".join(record.symptoms),
        " ".join(record.scope.vendor),
        " ".join(record.scope.arch),
        " ".join(families[a] for a in record.scope.arch if a in families),
        " ".join(record.scope.framework),
        " ".join(record.metrics),
        record.action_category.value if record.action_category else "",
        *(v for v in change.values() if v),
        record.expected_impact or "",
        record.risks or "",
        record.tried or "",
        record.fails_when or "",
        record.why or "",
        record.body,
    ]
    return "\n".join(p for p in parts if p)


class WikiIndex:
    """BM25 scores of a fixed list of records (Lucene BM25 variant, k1=1.5, b=0.75, bm25s defaults).

    Attributes:
        records: the indexed records, in index order.
    """

    def __init__(self, records: Sequence[WikiRecord], family_by_arch: Mapping[str, str] | None = None) -> None:
        import bm25s  # lazy: numpy/scipy stay out of `import kernelopt`

        self.records: tuple[WikiRecord, ...] = tuple(records)
        corpus = [tokenize(record_text(r, family_by_arch)) or ["_empty_"] for r in self.records]
        self._bm25: Any = bm25s.BM25()
        self._bm25.index(corpus, show_progress=False)
        self._vocab: frozenset[str] = frozenset(t for doc in corpus for t in doc)

    def scores(self, query: str) -> list[float]:
        """BM25 score of every record for ``query`` (0 for all when no query token is in the index)."""
        tokens = [t for t in tokenize(query) if t in self._vocab]
        if not tokens:
            return [0.0] * len(self.records)
        return [float(x) for x in self._bm25.get_scores(tokens)]
