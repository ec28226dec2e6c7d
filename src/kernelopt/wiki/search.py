"""``search``: find the wiki records that answer a query, within a hard hardware/framework scope.

Ranking, for the records that pass the scope filter (:mod:`kernelopt.wiki.scope`)::

    score = bm25 / max(bm25)                          # text relevance, 0..1 within this query
          + SYMPTOM_WEIGHT * sum(w(s)) / requested    # requested symptom ids the record answers
          + SPECIFICITY_WEIGHT * specificity          # 1 exact architecture, 0.5 vendor, 0 neutral

where ``w(s) = 1 / (1 + 0.25 * position of s in the record's symptom list)``: records list the
symptoms they answer most directly first, so a record whose *primary* symptom is requested outranks
one that mentions it third. The requested symptom ids are also added to the BM25 query text. A
record with neither text relevance nor a matched symptom is not a hit. The index is built once per
process for a given set of wiki directories and rebuilt only when a user record file changes (see
:func:`clear_cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kernelopt.errors import UsageError
from kernelopt.evidence.symptoms import Symptom
from kernelopt.wiki.index import WikiIndex
from kernelopt.wiki.loader import Wiki, dir_signature, load_wiki, wiki_dirs
from kernelopt.wiki.record import RecordKind, WikiRecord
from kernelopt.wiki.scope import QueryScope, applies, family_names, resolve_scope, specificity

SYMPTOM_WEIGHT = 2.0
"""A full symptom match outweighs the best text match (evidence-driven search: symptoms first)."""

SPECIFICITY_WEIGHT = 0.15
"""Prefer a record written for the queried architecture over a neutral one of equal relevance."""

_MAX_CACHED = 8


class SearchHit(BaseModel):
    """One search result.

    Attributes:
        record: the wiki record.
        score: ranking score (see module docstring); higher is better, comparable within one query.
        neutral: the record names no vendor and no architecture (architecture-neutral advice).
        matched_symptoms: the requested symptom ids the record answers, in request order.
    """

    model_config = ConfigDict(extra="forbid")
    record: WikiRecord
    score: float
    neutral: bool
    matched_symptoms: list[str]


class _Entry:
    def __init__(self, wiki: Wiki) -> None:
        self.wiki = wiki
        self.index = WikiIndex(wiki.records, family_names(wiki.specs))


_CACHE: dict[tuple[object, ...], _Entry] = {}


def clear_cache() -> None:
    """Forget every built index (the next search reads the wiki again)."""
    _CACHE.clear()


def _entry(extra_dirs: Sequence[Path] | None) -> _Entry:
    dirs = wiki_dirs(list(extra_dirs or ()))
    key = tuple((str(d.resolve()), dir_signature(d)) for d in dirs)
    entry = _CACHE.get(key)
    if entry is None:
        if len(_CACHE) >= _MAX_CACHED:
            _CACHE.pop(next(iter(_CACHE)))
        entry = _Entry(load_wiki(list(extra_dirs or ())))
        _CACHE[key] = entry
    return entry


def _check_symptoms(symptoms: Sequence[str]) -> list[str]:
    known = {s.value for s in Symptom}
    out = []
    for s in symptoms:
        if s not in known:
            raise UsageError(f"unknown symptom id {s!r}", hint="see kernelopt.evidence.symptoms.Symptom")
        if s not in out:
            out.append(s)
    return out


def symptom_weight(position: int) -> float:
    """Weight of a matched symptom listed at ``position`` (0 = primary) in a record's symptoms."""
    return 1.0 / (1.0 + 0.25 * position)


def rank(
    index: WikiIndex,
    query: str,
    scope: QueryScope,
    symptoms: Sequence[str] = (),
    kinds: Sequence[RecordKind] | None = None,
    limit: int = 10,
) -> list[SearchHit]:
    """Score, filter and order the records of ``index`` (pure; see the module docstring)."""
    bm25 = index.scores(" ".join([query, *symptoms]))
    wanted_kinds = set(kinds) if kinds else None
    candidates = [
        (r, s)
        for r, s in zip(index.records, bm25, strict=True)
        if (wanted_kinds is None or r.kind in wanted_kinds) and applies(r.scope, scope)
    ]
    top = max((s for _, s in candidates), default=0.0)
    scored: list[tuple[float, WikiRecord, list[str]]] = []
    for record, raw in candidates:
        matched = [s for s in symptoms if s in record.symptoms]
        text = raw / top if top > 0 else 0.0
        if text <= 0 and not matched:
            continue
        weights = sum(symptom_weight(record.symptoms.index(s)) for s in matched)
        score = text + (SYMPTOM_WEIGHT * weights / len(symptoms) if symptoms else 0.0)
        score += SPECIFICITY_WEIGHT * specificity(record.scope, scope)
        scored.append((round(score, 6), record, matched))
    scored.sort(key=lambda t: (-t[0], t[1].kind.value, t[1].id))
    return [
        SearchHit(record=record, score=score, neutral=record.scope.neutral, matched_symptoms=matched)
        for score, record, matched in scored[:limit]
    ]


def search(
    query: str,
    *,
    arch: str | None = None,
    vendor: str | None = None,
    framework: str | None = None,
    symptoms: list[str] | None = None,
    kinds: list[RecordKind] | None = None,
    extra_dirs: list[Path] | None = None,
    limit: int = 10,
) -> list[SearchHit]:
    """Search the gpu-wiki (built-in + configured + ``extra_dirs``) with BM25 and symptom boosts.

    Args:
        query: free text: metric names, stall reasons, symptom ids, words. May be empty when
            ``symptoms`` are given.
        arch: target architecture (``sm_90``, ``gfx942``), family (``hopper``) or GPU (``h200``);
            records scoped to other targets are never returned.
        vendor: ``nvidia`` or ``amd`` (implied by ``arch``).
        framework: ``triton``, ``cuda``, ``hip`` or ``torch``; records scoped to other frameworks are
            not returned.
        symptoms: :class:`~kernelopt.evidence.symptoms.Symptom` ids from Stage 1 findings; records
            answering them are boosted and report them in ``matched_symptoms``.
        kinds: record kinds to return; ``None`` for all (technique, pitfall, hardware_spec).
        extra_dirs: more user wiki directories, searched with the same priority as the built-in wiki.
        limit: at most this many hits.

    Returns:
        Hits, best first.

    Raises:
        UsageError: empty query and no symptoms, unknown symptom id, unknown arch/GPU/vendor/framework,
            or ``limit`` < 1.
        WikiError: a wiki directory or record file is unusable.
    """
    if limit < 1:
        raise UsageError(f"limit must be at least 1, not {limit}")
    wanted = _check_symptoms(symptoms or [])
    if not query.strip() and not wanted:
        raise UsageError("nothing to search for: give a query or at least one symptom id")
    entry = _entry(extra_dirs)
    scope = resolve_scope(arch=arch, vendor=vendor, framework=framework, sheets=entry.wiki.specs)
    return rank(entry.index, query, scope, wanted, kinds, limit)
