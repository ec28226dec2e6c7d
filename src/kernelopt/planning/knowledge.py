"""Stage 2 knowledge search in the spec's strict order: gpu-wiki, then the reference project, then the web.

The spec (Stage 2, "Search Priority"): search gpu-wiki first; fall back to the reference project only
when gpu-wiki has no new path and README.md names one; fall back to the public web only when neither
gave an actionable path; stop after the first actionable, non-duplicate path. :class:`KnowledgeSearch`
runs the queries of one source, hands every hit (an :class:`Idea`) to the caller's ``choose`` function,
and moves to the next source only when ``choose`` found nothing; every query, and every source skipped
because it is not configured, becomes a search-log row.

The gpu-wiki search (``kernelopt.wiki.search.search``) is the default and can be injected (tests
use a small fake). Web text never carries hardware figures (see :mod:`kernelopt.planning.web`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from kernelopt.actions import ActionCategory
from kernelopt.memory.model import SearchLogEntry
from kernelopt.oneline import one_line
from kernelopt.planning.reference import ReferenceIndex
from kernelopt.planning.web import Runner, WebSearchConfig, web_search
from kernelopt.proc import run_command
from kernelopt.wiki.search import search

T = TypeVar("T")


class KnowledgeSource(StrEnum):
    """The knowledge sources, in the order the spec requires."""

    GPU_WIKI = "gpu-wiki"
    REFERENCE_PROJECT = "reference-project"
    WEB = "web"


SEARCH_ORDER = (KnowledgeSource.GPU_WIKI, KnowledgeSource.REFERENCE_PROJECT, KnowledgeSource.WEB)

#: Words in code or web text that point at an action category (first match in text order wins).
CATEGORY_KEYWORDS: dict[ActionCategory, tuple[str, ...]] = {
    ActionCategory.NUM_WARPS: ("num_warps",),
    ActionCategory.SOFTWARE_PIPELINING: ("num_stages", "software pipelin", "multistage", "double buffer", "cp.async"),
    ActionCategory.L2_RASTERIZATION: ("group_size_m", "group_m", "rasteriz", "l2 swizzl", "tile swizzl"),
    ActionCategory.TMA_ASYNC_COPY: ("tma", "tensor_descriptor", "tensordescriptor", "cp.async.bulk"),
    ActionCategory.PERSISTENT_KERNEL: ("persistent", "num_sms"),
    ActionCategory.SPLIT_K: ("split_k", "splitk", "split-k", "stream-k", "stream_k"),
    ActionCategory.WARP_SPECIALIZATION: ("warp_specializ", "warp specializ", "producer warp", "consumer warp"),
    ActionCategory.VECTORIZED_ACCESS: (
        "tl.multiple_of",
        "max_contiguous",
        "float4",
        "vectoriz",
        "dwordx4",
        "128-bit load",
        "ld.global.v4",
    ),
    ActionCategory.COALESCING: ("coalesc",),
    ActionCategory.SMEM_SWIZZLE_PADDING: ("bank conflict", "swizzle", "padding"),
    ActionCategory.LDS_LAYOUT: ("lds layout", "lds bank"),
    ActionCategory.TENSOR_CORE_USE: ("tl.dot", "wgmma", "wmma", "mma.sync", "tensor core"),
    ActionCategory.MFMA_USE: ("mfma", "matrix core"),
    ActionCategory.REGISTER_PRESSURE: ("maxnreg", "launch_bounds", "register pressure", "spill"),
    ActionCategory.OCCUPANCY: ("occupancy",),
    ActionCategory.WAVE_OCCUPANCY: ("waves_per_eu",),
    ActionCategory.FUSION: ("fused", "fusion", "fuse "),
    ActionCategory.PRECISION: ("fp8", "bf16", "float16", "mixed precision"),
    ActionCategory.LAUNCH_OVERHEAD: ("cuda graph", "cudagraph", "launch overhead"),
    ActionCategory.AUTOTUNE: ("triton.autotune", "autotune"),
    ActionCategory.BLOCK_SIZE: ("block_size", "xblock", "blockdim", "threads per block"),
    ActionCategory.TILING: ("block_m", "block_n", "block_k", "tile size", "tiling"),
    ActionCategory.REDUCE_BYTES: ("online softmax", "single pass", "recompute", "fewer bytes"),
    ActionCategory.DIVERGENCE: ("divergen",),
    ActionCategory.ATOMICS: ("atomic_add", "atomicadd", "tl.atomic", "atomics"),
}


def categories_in(text: str) -> list[ActionCategory]:
    """Categories whose keywords occur in ``text``, in order of first occurrence."""
    low = text.lower()
    found: list[tuple[int, int, ActionCategory]] = []
    order = list(ActionCategory)
    for cat, words in CATEGORY_KEYWORDS.items():
        positions = [low.find(w) for w in words if w in low]
        if positions:
            found.append((min(positions), order.index(cat), cat))
    return [c for _, _, c in sorted(found)]


class WikiHitLike(Protocol):
    """What the planner reads of a :class:`kernelopt.wiki.search.SearchHit`."""

    record: Any
    score: float
    neutral: bool
    matched_symptoms: Any


WikiSearchFn = Callable[..., Sequence[WikiHitLike]]


@dataclass(frozen=True)
class Query:
    """One search: free text plus the symptom ids it stands for (the wiki boosts records that answer them)."""

    text: str
    symptoms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Idea:
    """One knowledge hit, whatever its source.

    Attributes:
        source: where it was found.
        query: the query that found it.
        ref: ``wiki:<record id>``, ``path:line`` in the reference project, or the URL of a web result.
        title: record title, code line or page title.
        category: the action category it points at (``None`` when none can be read from it).
        kind: ``technique``, ``pitfall``, ``code`` or ``web``.
        score: the source's relevance score (comparable only within one source).
        neutral: an architecture-neutral wiki record.
        matched_symptoms: symptom ids of the query that the record answers.
        text: the concrete change (wiki), the code snippet, or the web snippet (figures removed).
        record: the wiki record, for wiki ideas.
    """

    source: KnowledgeSource
    query: str
    ref: str
    title: str
    category: ActionCategory | None
    kind: str
    score: float
    neutral: bool = False
    matched_symptoms: tuple[str, ...] = ()
    text: str = ""
    record: Any = None


@dataclass(frozen=True)
class Decision(Generic[T]):
    """What the caller's ``choose`` made of one source's ideas.

    Attributes:
        chosen: the chosen path (the caller's own type), or ``None``.
        chosen_refs: refs of the ideas behind the chosen path (their query's row says "chosen").
        notes: category -> why it is not actionable (``"tried in v2"``, ``"no knob to move"``).
        chosen_text: one line describing the chosen path for the search log.
    """

    chosen: T | None
    chosen_refs: frozenset[str] = frozenset()
    notes: dict[ActionCategory, str] = field(default_factory=dict)
    chosen_text: str = ""


@dataclass
class SearchOutcome(Generic[T]):
    """The result of a knowledge search: the chosen path, its source, every idea seen and the log."""

    chosen: T | None
    source: KnowledgeSource | None
    ideas: list[Idea]
    log: list[SearchLogEntry]


class KnowledgeSearch:
    """The three knowledge sources and their order.

    Args:
        wiki_search: the gpu-wiki search function (``kernelopt.wiki.search.search`` when ``None``,
            imported on first use).
        arch: architecture filter for the wiki (``sm_90``, ``gfx942``), when known.
        vendor: vendor filter (``nvidia``, ``amd``).
        framework: framework filter (``triton``, ``cuda``, ``hip``).
        wiki_dirs: user wiki folders searched with the built-in one.
        reference_project: the README's reference project folder, or ``None`` when it names none.
        web: the web-search command, or ``None`` (off, the default).
        runner: the subprocess gateway used for the web command (tests inject a fake).
        limit: hits asked of each source per query.
    """

    def __init__(
        self,
        *,
        wiki_search: WikiSearchFn | None = None,
        arch: str | None = None,
        vendor: str | None = None,
        framework: str | None = None,
        wiki_dirs: Sequence[Path] | None = None,
        reference_project: Path | None = None,
        web: WebSearchConfig | None = None,
        runner: Runner = run_command,
        limit: int = 10,
    ) -> None:
        self._wiki_search = wiki_search
        self.arch = arch
        self.vendor = vendor
        self.framework = framework
        self.wiki_dirs = list(wiki_dirs or [])
        self.reference_project = reference_project
        self.web = web
        self.runner = runner
        self.limit = limit
        self._reference_index: ReferenceIndex | None = None

    # -- the three sources ---------------------------------------------------------------------

    def _wiki(self) -> WikiSearchFn | None:
        if self._wiki_search is None:
            self._wiki_search = search
        return self._wiki_search

    def search_wiki(self, query: Query) -> tuple[list[Idea], str | None]:
        """Technique and pitfall records for ``query`` (spec sheets are not ideas); a note when unavailable."""
        fn = self._wiki()
        if fn is None:
            return [], "gpu-wiki search unavailable (kernelopt.wiki.search is not installed)"
        hits = fn(
            query.text,
            arch=self.arch,
            vendor=self.vendor,
            framework=self.framework,
            symptoms=list(query.symptoms) or None,
            kinds=["technique", "pitfall"],
            extra_dirs=self.wiki_dirs or None,
            limit=self.limit,
        )
        ideas = []
        for hit in hits:
            rec = hit.record
            kind = str(getattr(rec.kind, "value", rec.kind))
            if kind not in ("technique", "pitfall"):
                continue
            change = getattr(rec, "change", None)
            how = None
            if change is not None:
                fw = (self.framework or "").lower()
                how = getattr(change, fw, None) if fw in ("triton", "cuda", "hip") else None
                how = how or change.triton or change.cuda or change.hip
            text = how or getattr(rec, "why", None) or getattr(rec, "fails_when", None) or ""
            ideas.append(
                Idea(
                    source=KnowledgeSource.GPU_WIKI,
                    query=query.text,
                    ref=f"wiki:{rec.id}",
                    title=rec.title,
                    category=rec.action_category,
                    kind=kind,
                    score=float(hit.score),
                    neutral=bool(hit.neutral),
                    matched_symptoms=tuple(str(s) for s in (hit.matched_symptoms or ())),
                    text=one_line(text, 400),
                    record=rec,
                )
            )
        return ideas, None

    def search_reference(self, query: Query) -> tuple[list[Idea], str | None]:
        """``path:line`` places of the reference project for ``query``; a note when it cannot be searched."""
        if self.reference_project is None:
            return [], "not configured (README.md reference_project is none)"
        if self._reference_index is None:
            try:
                self._reference_index = ReferenceIndex.build(self.reference_project)
            except FileNotFoundError:
                return [], f"reference project folder {self.reference_project} not found"
        ideas = []
        for hit in self._reference_index.search(query.text, limit=min(self.limit, 5)):
            cats = categories_in(hit.snippet) or categories_in(hit.text)
            ideas.append(
                Idea(
                    source=KnowledgeSource.REFERENCE_PROJECT,
                    query=query.text,
                    ref=hit.ref,
                    title=hit.text,
                    category=cats[0] if cats else None,
                    kind="code",
                    score=hit.score,
                    text=one_line(hit.snippet, 300),
                )
            )
        return ideas, None

    def search_web(self, query: Query) -> tuple[list[Idea], str | None]:
        """Web results for ``query`` (ideas only: hardware figures removed); a note when off or failing."""
        if self.web is None:
            return [], "not configured (off by default)"
        results, note = web_search(self.web, query.text, runner=self.runner)
        ideas = []
        for r in results:
            cats = categories_in(f"{r.title} {r.snippet}")
            removed = f" ({len(r.removed)} hardware figure(s) removed)" if r.removed else ""
            ideas.append(
                Idea(
                    source=KnowledgeSource.WEB,
                    query=query.text,
                    ref=r.url or r.title or "web",
                    title=r.title,
                    category=cats[0] if cats else None,
                    kind="web",
                    score=0.0,
                    text=one_line(f"{r.snippet}{removed}", 300),
                )
            )
        return ideas, note

    # -- the order -----------------------------------------------------------------------------

    def run(
        self,
        queries: Sequence[Query],
        choose: Callable[[KnowledgeSource, list[Idea]], Decision[T]],
    ) -> SearchOutcome[T]:
        """Search the sources in order; stop at the first source where ``choose`` finds a path.

        Args:
            queries: the queries, most important first; each is sent to each source searched.
            choose: given a source and all its ideas, decides (ranks, checks history); pure.
        """
        searchers = {
            KnowledgeSource.GPU_WIKI: self.search_wiki,
            KnowledgeSource.REFERENCE_PROJECT: self.search_reference,
            KnowledgeSource.WEB: self.search_web,
        }
        log: list[SearchLogEntry] = []
        every: list[Idea] = []
        for source in SEARCH_ORDER:
            if (source is KnowledgeSource.REFERENCE_PROJECT and self.reference_project is None) or (
                source is KnowledgeSource.WEB and self.web is None
            ):
                what = "off by default" if source is KnowledgeSource.WEB else "README.md reference_project is none"
                log.append(
                    SearchLogEntry(
                        source=source.value,
                        query="(not searched)",
                        finding=f"not configured ({what})",
                        actionability="skipped",
                    )
                )
                continue
            per_query = [(q, *searchers[source](q)) for q in queries]
            ideas_here = [i for _, ideas, _ in per_query for i in ideas]
            every += ideas_here
            decision: Decision[T] = choose(source, ideas_here) if ideas_here else Decision(None)
            for q, ideas, note in per_query:
                log.append(self._row(source, q, ideas, note, decision))
            if decision.chosen is not None:
                return SearchOutcome(decision.chosen, source, every, log)
        return SearchOutcome(None, None, every, log)

    @staticmethod
    def _row(
        source: KnowledgeSource, q: Query, ideas: list[Idea], note: str | None, decision: Decision[Any]
    ) -> SearchLogEntry:
        query = q.text
        if note is not None and not ideas:
            return SearchLogEntry(source=source.value, query=query, finding=note, actionability="none")
        if not ideas:
            return SearchLogEntry(source=source.value, query=query, finding="no hits", actionability="none")
        shown = ", ".join(f"{i.ref} ({i.category.value if i.category else '-'})" for i in ideas[:4])
        more = f" +{len(ideas) - 4} more" if len(ideas) > 4 else ""
        cats = list(dict.fromkeys(i.category for i in ideas if i.category is not None))
        reasons = [f"{c.value} ({decision.notes[c]})" for c in cats if c in decision.notes]
        if any(i.ref in decision.chosen_refs for i in ideas):
            actionability = f"actionable, chosen: {decision.chosen_text}"
            if reasons:
                actionability += "; not actionable: " + "; ".join(reasons)
        else:
            actionability = "not actionable: " + "; ".join(reasons) if reasons else "no category to act on"
        return SearchLogEntry(
            source=source.value,
            query=query,
            finding=one_line(shown + more, 300),
            actionability=one_line(actionability, 400),
        )


def query_text(*parts: str) -> str:
    """Join query words: symptom ids and metric names become plain words, duplicates dropped."""
    words: list[str] = []
    for p in parts:
        for w in re.split(r"\s+", p.strip()):
            if w and w not in words:
                words.append(w)
    return " ".join(words)
