"""The rule-based planner (``rules``, the default): Stage 2 with no LLM, deterministic.

From the Stage 1 evidence of ``profiles/v<N>/summary.json`` (findings, the profiler's own rules and
estimates), the kernel's tunables, and unmasked history, it searches knowledge in the spec's order
(gpu-wiki, reference project, web; :mod:`kernelopt.planning.knowledge`), ranks the candidate actions
each source supports (:mod:`kernelopt.planning.ranking`), stops at the first source with an
actionable action that was not tried, and writes ``plans/v<N>_plan.md``. When no source gives one,
the Stage 1 rules' own candidate categories are ranked last. When nothing new and actionable remains
it writes nothing and says why (the loop stops with that reason).

Options (``RulePlanner(options)``):
    knob_only (bool): only knob moves are actionable (set it when the rule-based implementer runs
        Stage 3: it can apply nothing else). Default False.
    wiki_dirs (list of paths): user gpu-wiki folders searched with the built-in one.
    reference_project (path): overrides README.md's ``reference_project``.
    web_command (list of str): the web-search argv template (off when absent); ``web_timeout_s``.
    max_queries (int): symptoms turned into queries, most important first (default 4).
    wiki_search (callable): replaces ``kernelopt.wiki.search.search`` (tests).
    knobs (list of Knob or {name, value, location} mappings): replaces tunable discovery (tests).
    runner (callable): replaces the subprocess gateway for the web command (tests).
    search (bool): plan one tuning session of the launch configuration per version (category
        :data:`~kernelopt.actions.LAUNCH_CONFIGURATION`; Stage 3 runs the tuning engine, docs/tuning-engine.md).
        Default: on when ``knob_only`` is (the rules implementer runs Stage 3); off for agent implementers,
        which get one concrete knob move.

A tuning session is planned once per launch of a kernel.py (issue 32, case h11): the plan names the launch by
its identity (``launch _ln_bwd_dx in run()``, no line number: the same after a version moved lines), the first,
in :func:`~kernelopt.tunables.launches.session_order`, that no session tuned since another launch last changed
the kernel, and the launches left untuned after it. When every launch with a knob had such a session that kept
nothing, the launch configuration has converged and the planner says so (the loop itself stops when a session
finds nothing better and its plan leaves no launch untuned).
Without ``search``, a category whose last measured search gained
nothing waits until another category changes the kernel
(:attr:`~kernelopt.planning.history.History.waiting`); when every actionable category waits, it has
converged. This module does not import :mod:`kernelopt.backends`: the ``rules`` planner backend
(:class:`kernelopt.backends.rules.RulePlanner`) calls :func:`plan_version`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelopt.actions import (
    LAUNCH_CONFIGURATION,
    SEARCH_LIMIT_SHORT,
    SEARCH_NO_GAIN,
    SEARCH_TOO_NOISY,
    ActionCategory,
)
from kernelopt.digits import sig
from kernelopt.errors import KerneloptError, UsageError
from kernelopt.evidence.model import BottleneckType, Finding, KernelEvidence, ProfileSummary
from kernelopt.evidence.summary import KEY_METRICS
from kernelopt.evidence.symptoms import Symptom
from kernelopt.fileio import atomic_write_text, read_python
from kernelopt.kernelsource import detect_framework, entry_imported, plain_torch_note
from kernelopt.memory.model import GateResult, IterationRecord, SearchLogEntry
from kernelopt.oneline import one_line
from kernelopt.planning.history import History, build_history, load_past_plans, plan_signature
from kernelopt.planning.knobs import LINEAR_FAMILIES, Knob
from kernelopt.planning.knowledge import Decision, Idea, KnowledgeSearch, KnowledgeSource, Query, query_text
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import Plan, RiskLevel
from kernelopt.planning.ranking import Candidate, Fits, Ranking, rank, rule_categories
from kernelopt.planning.web import WebSearchConfig
from kernelopt.proc import run_command
from kernelopt.tunables import (
    LAUNCH_OPTIONS,
    ResourceLimits,
    Tunable,
    TunableError,
    TunableFitError,
    apply_source,
    discover,
    resource_problems,
)
from kernelopt.tunables.evaluate import discover_evaluated, should_evaluate
from kernelopt.tunables.knobs import sizeless_reason
from kernelopt.tunables.launches import Launch, launches, loop_kernels, same_launch, session_order
from kernelopt.vocabulary import COMPUTED, Framework
from kernelopt.workspace import Workspace

PLANNER_NAME = "rules"
PROFILE_RULES_SOURCE = "profile-rules"
MAX_EVIDENCE_LINES = 5
CODE_BACKENDS = "agent-cli or llm-api (--planner agent-cli --implementer agent-cli, or llm-api)"

_A = ActionCategory
# Code changes that restructure the kernel: high risk of a wrong result or a regression.
_HIGH_RISK = frozenset(
    {
        _A.TILING,
        _A.PERSISTENT_KERNEL,
        _A.WARP_SPECIALIZATION,
        _A.TMA_ASYNC_COPY,
        _A.SPLIT_K,
        _A.PRECISION,
        _A.FUSION,
        _A.TENSOR_CORE_USE,
        _A.MFMA_USE,
        _A.ATOMICS,
    }
)
# Symptom to search for when no finding fired, by bottleneck class.
_BOTTLENECK_SYMPTOM = {
    BottleneckType.MEMORY_BOUND: Symptom.DRAM_BANDWIDTH_BOUND,
    BottleneckType.COMPUTE_BOUND: Symptom.COMPUTE_BOUND,
    BottleneckType.LATENCY_BOUND: Symptom.LATENCY_BOUND,
    BottleneckType.LAUNCH_OCCUPANCY_BOUND: Symptom.SMALL_GRID,
}
_ARROWS = re.compile(r"\s*(?:->|→|=>)\s*")


@dataclass
class RuleOptions:
    """Typed settings of the rule planner (see the module docstring)."""

    knob_only: bool = False
    wiki_dirs: list[Path] = field(default_factory=list)
    reference_project: Path | None = None
    web_command: list[str] | None = None
    web_timeout_s: float = 30.0
    max_queries: int = 4
    wiki_search: Callable[..., Any] | None = None
    knobs: list[Knob] | None = None
    runner: Callable[..., Any] = run_command
    search: bool | None = None

    @property
    def searching(self) -> bool:
        """True when plans are tuning sessions of the launch configuration (see the module docstring)."""
        return self.knob_only if self.search is None else self.search

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> RuleOptions:
        """Build from a plain mapping.

        Raises:
            UsageError: an unknown option or a value of the wrong kind.
        """
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise UsageError(
                f"unknown option(s) for the rules planner: {', '.join(unknown)}", hint=f"known: {sorted(known)}"
            )
        out = cls()
        for key, value in options.items():
            if value is None:
                continue
            if key == "knob_only":
                out.knob_only = bool(value)
            elif key == "wiki_dirs":
                out.wiki_dirs = [Path(v) for v in value]
            elif key == "reference_project":
                out.reference_project = Path(value)
            elif key == "web_command":
                if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                    raise UsageError("rules planner option web_command must be a list of strings (an argv)")
                out.web_command = list(value)
            elif key == "web_timeout_s":
                out.web_timeout_s = float(value)
            elif key == "max_queries":
                out.max_queries = max(1, int(value))
            elif key == "knobs":
                out.knobs = knobs_from_tunables(value)
            elif key == "search":
                out.search = bool(value)
            else:
                setattr(out, key, value)
        return out


# -- tunables -------------------------------------------------------------------------------------


def _int_value(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def knobs_from_tunables(tunables: Iterable[Any]) -> list[Knob]:
    """Knobs from what tunable discovery returns (objects or mappings with ``name`` and ``value``).

    Reads ``name``; the current value from ``value`` (or ``current``): an integer, another literal, or
    ``None`` for a computed setting no run has read; the place from ``location`` (or ``line`` ->
    ``kernel.py:<line>``); legal values from ``legal_values`` / ``allowed`` / ``choices`` when given.
    Everything discovery lists as editable is a knob (what ``kernelopt tunables`` lists, the loop can tune);
    a tunable marked not editable (``editable`` False, or a ``refused`` / ``refused_reason`` text) is left
    out. The first tunable of a name wins.
    """
    out: dict[str, Knob] = {}
    for t in tunables:
        if isinstance(t, Knob):
            out.setdefault(t.name, t)
            continue

        def get(key: str, t: Any = t) -> Any:
            return t.get(key) if isinstance(t, Mapping) else getattr(t, key, None)

        name = get("name")
        if not isinstance(name, str) or not name:
            continue
        if get("editable") is False or get("refused") or get("refused_reason"):
            continue
        raw = get("value") if get("value") is not None else get("current")
        value: int | float | str | bool | None = _int_value(raw)
        if value is None and isinstance(raw, float | str | bool):
            value = raw
        elif value is None and raw is not None:
            continue  # not one value (a whole autotune list)
        location = get("location")
        if location is None and isinstance(get("line"), int):
            location = f"kernel.py:{get('line')}"
        allowed = None
        for key in ("legal_values", "allowed", "choices"):
            vals = get(key)
            if isinstance(vals, Iterable) and not isinstance(vals, str | bytes):
                ints = [_int_value(v) for v in vals]
                if ints and all(i is not None for i in ints):
                    allowed = tuple(i for i in ints if i is not None)
                    break
        cats = get("categories")
        categories: tuple[ActionCategory, ...] | None = None
        if isinstance(cats, Iterable) and not isinstance(cats, str | bytes):
            try:
                categories = tuple(ActionCategory(c) for c in cats)
            except ValueError:
                categories = None
        computed = get("computed")
        out.setdefault(
            name,
            Knob(
                name,
                value,
                str(location) if location is not None else None,
                allowed,
                categories,
                computed if isinstance(computed, str) and computed else None,
            ),
        )
    return list(out.values())


def unread_knobs(tunables: Iterable[Any]) -> frozenset[str]:
    """Names of tunables whose value discovery could not read (``num_warps=nw`` with ``nw`` computed).

    The knob is there but its value is unknown, which is not the same as absent: a resource estimate
    must not fill it with a default (Triton's ``num_warps=4``).
    """
    out: set[str] = set()
    for t in tunables:
        name = t.get("name") if isinstance(t, Mapping) else getattr(t, "name", None)
        value = t.get("value") if isinstance(t, Mapping) else getattr(t, "value", None)
        if isinstance(name, str) and name and value is None:
            out.add(name)
    return frozenset(out)


def discover_tunables(kernel_py: Path, device: str | None = None) -> tuple[list[Tunable] | None, str | None]:
    """What ``kernelopt tunables`` lists for kernel.py (a run discovery needs on ``device``), or ``(None, why)``
    when discovery fails: the one discovery the planner's knobs and launches come from."""
    try:
        # autotune lists built by code and computed knobs are read by importing kernel.py (and running the
        # task once) in a worker, only when static reading cannot see them
        ref = kernel_py.with_name("reference.py")
        reference = ref if ref.is_file() else None
        if should_evaluate(kernel_py, reference=reference):
            found, _ = discover_evaluated(kernel_py, reference=reference, device=device or "auto")
        else:
            found = discover(kernel_py)
    except KerneloptError as exc:
        return None, f"tunable discovery failed ({exc.one_line()}): planning without knob targets"
    # a setting computed from no size of the problem is one the tuning session leaves alone: no target of a plan
    # (discovery's own Tunables; what a fake discovery gives is read by name and value, as knobs_from_tunables reads it)
    return [
        t.model_copy(update={"refused_reason": why}) if isinstance(t, Tunable) and (why := sizeless_reason(t)) else t
        for t in found
    ], None


def discover_knob_values(
    kernel_py: Path, device: str | None = None
) -> tuple[list[Knob] | None, frozenset[str], str | None]:
    """The kernel's knobs, the names of its knobs of unknown value (:func:`unread_knobs`), and why there
    are none (``(None, {}, why)`` when discovery is unavailable or fails). A run of the task that discovery
    needs runs on ``device`` (``cpu``: Triton interpreted, as the loop's ``--device cpu`` runs it; ``None``:
    CUDA when present)."""
    found, why = discover_tunables(kernel_py, device)
    if found is None:
        return None, frozenset(), why
    knobs = knobs_from_tunables(found)
    known = {k.name for k in knobs if k.value is not None}
    return knobs, unread_knobs(found) - known, None


def discover_knobs(kernel_py: Path, device: str | None = None) -> tuple[list[Knob] | None, str | None]:
    """The kernel's knobs via ``kernelopt.tunables`` (a run discovery needs on ``device``); ``(None, why)``
    when discovery fails."""
    knobs, _, why = discover_knob_values(kernel_py, device)
    return knobs, why


def resource_check(gpu: str | None, dtype: str | None, unread: frozenset[str] = frozenset()) -> Fits | None:
    """Why a knob configuration cannot fit ``gpu`` with ``dtype`` operands (the tunables' estimate).

    The same check the rule-based implementer applies (:func:`kernelopt.tunables.resource_problems`
    with :meth:`~kernelopt.tunables.ResourceLimits.for_gpu`), so the planner does not spend an iteration
    on a move Stage 3 would refuse. An unknown GPU or dtype keeps the limits that need no spec sheet;
    ``None`` when tunables are unavailable. Knobs named in ``unread`` exist with a value discovery could
    not read: the estimate treats them as unknown, never as their default.
    """
    limits = ResourceLimits.for_target(gpu, dtype)

    def fits(values: dict[str, int]) -> list[str]:
        return resource_problems({**dict.fromkeys(unread), **values}, limits)

    return fits


def stage3_check(
    kernel_py: Path, knobs: list[Knob], gpu: str | None, dtype: str | None, unread: frozenset[str] = frozenset()
) -> Fits | None:
    """Why Stage 3 would refuse to set the knobs to a configuration because it cannot fit the GPU.

    The check the rule-based implementer makes, made the same way: the change against ``knobs`` (the
    values discovered in ``kernel_py``) is applied to the text of ``kernel_py`` by
    :func:`kernelopt.tunables.apply_source` with the GPU's limits, which estimates each launch group with
    its own knobs (a CUDA kernel's marked constants belong to no Triton launch and are not estimated as
    one). Only its "cannot fit" refusals (:class:`~kernelopt.tunables.TunableFitError`) count here;
    anything else is Stage 3's to say. Falls back to :func:`resource_check` when the kernel cannot be
    read, and is ``None`` when tunables are unavailable.
    """
    try:
        source = read_python(kernel_py)  # in the encoding it declares (PEP 263)
    except (OSError, KerneloptError):
        return resource_check(gpu, dtype, unread)
    limits = ResourceLimits.for_target(gpu, dtype)
    current = {k.name: k.value for k in knobs}

    def fits(values: dict[str, int]) -> list[str]:
        changes = {k: v for k, v in values.items() if k in current and current[k] != v}
        if not changes:
            return []
        try:
            apply_source(source, changes, filename="kernel.py", limits=limits)
        except TunableFitError as exc:
            return [exc.message]
        except TunableError:
            return []  # not a question of fit: Stage 3 says what is wrong
        return []

    return fits


# -- the planner ----------------------------------------------------------------------------------


def _no_arrows(text: str) -> str:
    return _ARROWS.sub(" to ", " ".join(text.split()))


def _arch(names: Iterable[str | None]) -> str | None:
    from kernelopt.hardware.specs import lookup

    for name in names:
        if not name:
            continue
        try:
            return lookup(name).arch
        except UsageError:
            continue
    return None


def build_queries(kernel: KernelEvidence, summary: ProfileSummary, framework: str | None, limit: int) -> list[Query]:
    """One query per symptom (most important first): symptom words, bottleneck, metric names, framework."""
    queries: list[Query] = []
    extra = (Symptom.TIMING_ONLY.value,) if not summary.counters_available else ()
    findings_by_symptom: dict[str, Finding] = {}
    for f in kernel.findings:
        findings_by_symptom.setdefault(f.symptom, f)
    symptoms = list(findings_by_symptom)[:limit]
    if not symptoms and kernel.bottleneck in _BOTTLENECK_SYMPTOM:
        symptoms = [_BOTTLENECK_SYMPTOM[kernel.bottleneck].value]
    for sym in symptoms:
        found = findings_by_symptom.get(sym)
        metrics = [e.metric for e in found.evidence[:2]] if found else []
        text = query_text(sym.replace("_", " "), kernel.bottleneck.value.replace("_", " "), *metrics, framework or "")
        queries.append(Query(text, (sym, *extra)))
    if not queries:
        queries.append(Query(query_text(kernel.bottleneck.value.replace("_", " "), framework or ""), extra))
    return queries


@dataclass
class _Planning:
    """What one call of :func:`plan_version` works with."""

    ws: Workspace
    n: int
    summary: ProfileSummary
    kernel: KernelEvidence
    options: RuleOptions
    records: list[IterationRecord]
    history: History
    knobs: list[Knob] | None
    knob_note: str | None
    fits: Fits | None
    triton: bool
    reference: Path | None
    web: WebSearchConfig | None
    #: the launches with a knob, in the order the loop tunes them (:func:`session_order`); ``None`` when the
    #: knobs were given (tests) or discovery failed
    launches: list[Launch] | None = None


def plan_version(
    ws: Workspace,
    n: int,
    summary: ProfileSummary | None,
    history_records: list[IterationRecord],
    options: RuleOptions,
) -> tuple[Plan | None, str | None]:
    """Plan iteration ``n``: write ``plans/v<N>_plan.md`` and return (plan, notes), or (None, why not).

    With ``options.searching`` (the rules implementer runs Stage 3) the plan is one tuning session of the
    launch configuration (:data:`~kernelopt.actions.LAUNCH_CONFIGURATION`): the knowledge search and the
    ranking still choose what the evidence favours, which the plan cites and the session's seeds follow.

    Args:
        ws: the workspace.
        n: the version being planned.
        summary: its Stage 1 evidence (``profiles/v<N>/summary.json``).
        history_records: the unmasked iteration records, oldest first.
        options: the planner's settings.

    Raises:
        PlanError: the plan built breaks a Stage 2 rule (a bug of this planner).
    """
    if summary is None:
        return None, f"no Stage 1 evidence for v{n} (profiles/v{n}/summary.json)"
    kernel = summary.primary()
    if kernel is None:
        return None, f"profiles/v{n}/summary.json lists no profiled kernel"
    p = _planning(ws, n, summary, kernel, history_records, options)
    if options.knob_only and p.knobs is not None and not p.knobs:
        return None, (
            f"the rules backend has nothing it can move in v{n}: kernel.py has no tunable knob (a literal launch "
            "argument, a triton.Config value or a '# kernelopt: tunable' constant)"
            # what it left out, and why (halfrope: its one literal, num_warps=2, is ignored by the interpreter)
            + (f" ({p.knob_note})" if p.knob_note else "")
            + _imported_entry_note(ws)
            + f"; a code change needs a backend that writes code: {CODE_BACKENDS}"
        )
    chosen, ideas, log = _choose(p)
    if chosen is None and options.searching and p.knobs:
        chosen = Candidate(category=LAUNCH_CONFIGURATION)  # the session needs no move the history allows
    if chosen is None:
        return None, _no_plan_reason(p)
    if options.searching and p.knobs and p.launches:
        # one tuning session a launch: the next launch of this kernel.py no session has tuned (issue 32, h11)
        sha = hashlib.sha256(ws.kernel_py.read_bytes()).hexdigest()
        launch, stop, rejected, noisy, untuned = _next_launch(p, sha)
        if launch is None:
            return None, stop
        names = set(launch.knob_names())
        tuning = [k for k in p.knobs if k.name in names] or p.knobs
        if chosen.knob is not None and chosen.knob.name not in names:
            chosen = Candidate(category=LAUNCH_CONFIGURATION)  # the evidence favours a knob of another launch
        plan = build_plan(n, summary, kernel, chosen, ideas, log, p.history, tuning)
        plan.base_kernel_sha256, plan.launch = sha, launch.identity
        plan.excluding, plan.retrying, plan.untuned_launches = rejected, noisy, untuned
    else:
        plan = build_plan(n, summary, kernel, chosen, ideas, log, p.history, p.knobs if options.searching else None)
    if options.searching and plan.launch is None:
        plan.base_kernel_sha256 = hashlib.sha256(ws.kernel_py.read_bytes()).hexdigest()
        if p.history.was_tried(plan_signature(plan)):
            stop, rejected, noisy = _tuned_before(p, _sha_sessions(p, plan.base_kernel_sha256))
            if stop is not None:
                return None, stop
            plan.excluding, plan.retrying = rejected, noisy
    if not plan.evidence:
        return None, (
            f"no measured value in profiles/v{n}/summary.json to cite for {chosen.describe()}: "
            "a plan needs evidence (re-run Stage 1)"
        )
    from kernelopt.planning.validate import validate_plan  # the plan must pass what Stage 2 checks

    validate_plan(plan, ws, history_records, summary)
    atomic_write_text(ws.plan_path(n), render_plan(plan))
    past_notes = load_past_plans(ws, p.records)[1]
    notes_out = [x for x in (p.knob_note, *past_notes) if x]
    return plan, "; ".join(notes_out) or None


def _planning(
    ws: Workspace,
    n: int,
    summary: ProfileSummary,
    kernel: KernelEvidence,
    history_records: list[IterationRecord],
    options: RuleOptions,
) -> _Planning:
    """History, knobs, the fit check and the knowledge sources of one call."""
    card = ws.task_card()
    records = [r for r in history_records if not r.masked and r.number != n]
    past, _ = load_past_plans(ws, records)
    knobs, knob_note, unread = options.knobs, None, frozenset[str]()
    found: list[Tunable] | None = None
    if knobs is None:
        # Stage 1 timed the kernel on the CPU: a run discovery needs is made there too (Triton interpreted)
        found, knob_note = discover_tunables(ws.kernel_py, "cpu" if summary.timed_on_cpu else None)
        if found is not None:
            knobs = knobs_from_tunables(found)
            unread = unread_knobs(found) - {k.name for k in knobs if k.value is not None}
    interpreted = summary.timed_on_cpu and detect_framework(ws.kernel_py) is Framework.TRITON
    if knobs and interpreted:
        # Triton's interpreter runs one program at a time and ignores the launch options: a move of one
        # would time the same kernel twice (the tuning engine leaves them out on the CPU too)
        # so does it a loop's options (``tl.range(..., num_stages=NUM_STAGES)``)
        held = LAUNCH_OPTIONS + tuple(t.name for t in found or [] if t.loop_option is not None)
        ignored = sorted({k.name for k in knobs if k.name in held})
        knobs = [k for k in knobs if k.name not in held]
        if ignored:
            note = f"on the CPU Triton's interpreter ignores {', '.join(ignored)}: not planned"
            knob_note = f"{knob_note}; {note}" if knob_note else note
    reference = options.reference_project or card.reference_project_path
    if reference is not None and not reference.is_absolute():
        reference = ws.root / reference
    web = WebSearchConfig(tuple(options.web_command), timeout_s=options.web_timeout_s) if options.web_command else None
    gpu, dtype = card.gpu or summary.gpu, card.dtype
    fits = (
        stage3_check(ws.kernel_py, knobs, gpu, dtype, unread)
        if options.knobs is None and knobs is not None
        else resource_check(gpu, dtype, unread)
    )
    triton = (card.framework or "").lower() == "triton"
    ordered = None
    if found is not None and all(isinstance(t, Tunable) for t in found):
        # the launches as the tuning engine groups them, from the same discovery (a stand-in discovery of
        # bare name/value records names no launch: one session of the whole configuration, as before)
        kept = [t for t in found if not (interpreted and t.name in LAUNCH_OPTIONS)]
        ordered = session_order(launches(kept, loop_kernels(read_python(ws.kernel_py))), kernel.kernel_name)
    return _Planning(
        ws, n, summary, kernel, options, records, build_history(records, past), knobs, knob_note, fits, triton,
        reference, web, ordered,
    )  # fmt: skip


def _choose(p: _Planning) -> tuple[Candidate | None, list[Idea], list[SearchLogEntry]]:
    """The knowledge search in the spec's order, then the Stage 1 rules' own categories: the chosen action,
    the ideas of the source that gave it, and the search log."""
    card = p.ws.task_card()
    search = KnowledgeSearch(
        wiki_search=p.options.wiki_search,
        arch=_arch([card.gpu, p.summary.gpu]),
        vendor=p.summary.vendor.value,
        framework=card.framework,
        wiki_dirs=p.options.wiki_dirs,
        reference_project=p.reference,
        web=p.web,
        runner=p.options.runner,
    )
    queries = build_queries(p.kernel, p.summary, card.framework, p.options.max_queries)

    def ranked(ideas: list[Idea] | None) -> Ranking:
        return rank(p.kernel, ideas, p.knobs, p.history, knob_only=p.options.knob_only, fits=p.fits, triton=p.triton)

    def choose(source: KnowledgeSource, ideas: list[Idea]) -> Decision[Candidate]:
        ranking = ranked(ideas)
        notes = dict(ranking.notes)
        for idea in ideas:
            cat = idea.category
            if cat is not None and cat not in notes and not any(c.category is cat for c in ranking.candidates):
                notes[cat] = "not supported by this kernel's evidence"
        best = ranking.candidates[0] if ranking.candidates else None
        if best is None:
            return Decision(None, notes=notes)
        return Decision(best, frozenset(best.refs), notes, _verdict_text(best, ranking))

    found = search.run(queries, choose)
    log = list(found.log)
    ideas = [i for i in found.ideas if found.source is not None and i.source is found.source]
    if found.chosen is not None:
        return found.chosen, ideas, log
    ranking = ranked(None)
    cats = list(dict.fromkeys(c for f in p.kernel.findings for c in f.action_categories))
    chosen = ranking.candidates[0] if ranking.candidates else None
    if chosen is not None:
        verdict = f"actionable, chosen: {_verdict_text(chosen, ranking)}"
    else:
        notes = ranking.notes
        verdict = "not actionable: " + (
            "; ".join(f"{c.value} ({notes.get(c, 'no path')})" for c in cats) or "no candidates"
        )
    log.append(
        SearchLogEntry(
            source=PROFILE_RULES_SOURCE,
            query=f"candidate actions of the Stage 1 findings (profiles/v{p.n}/summary.json)",
            finding=", ".join(c.value for c in cats) or "no finding names an action",
            actionability=one_line(verdict, 300),
        )
    )
    return chosen, ideas, log


def _verdict_text(chosen: Candidate, ranking: Ranking) -> str:
    text = chosen.describe()
    if ranking.skipped.get(chosen.category):
        text += f" (skipped: {'; '.join(ranking.skipped[chosen.category])})"
    return text


def _no_plan_reason(p: _Planning) -> str:
    """Why there is no plan: converged (every category waits), or nothing new and actionable."""
    history = p.history
    if history.waiting:
        waits = "; ".join(f"{c.value}: {why}" for c, why in history.waiting.items())
        since = f" since {history.last_change}" if history.last_change else ""
        return (
            f"converged: a full round over every actionable category gained nothing{since} ({waits}); "
            "each waits until another category changes the kernel, and none is left"
        )
    tried = sorted({sig[0] for sig in history.tried})
    reason = f"no new actionable path for v{p.n}: every candidate from gpu-wiki"
    reason += ", the reference project" if p.reference is not None else ""
    reason += ", the web" if p.web is not None else ""
    reason += " and the Stage 1 findings was tried, banned by an earlier failure, or has no knob to move"
    if tried:
        reason += f" (tried: {', '.join(tried)})"
    if p.options.knob_only:
        reason += f"; the rules backend only moves knobs: a code change needs {CODE_BACKENDS}"
    if p.knob_note:
        reason += f"; {p.knob_note}"
    return reason


def _sha_sessions(p: _Planning, sha: str | None) -> list[str]:
    """The versions whose tuning session ran on this kernel.py (``sha``), oldest first (a plan that names no launch:
    one session of the whole configuration)."""
    base = ("base_kernel", (sha or "")[:16])
    out = {v for sig, vs in p.history.tried_by.items() if base in sig[1] for v in vs}
    return sorted(out, key=lambda v: int(v[1:]))


@dataclass(frozen=True)
class _LaunchSessions:
    """The tuning sessions of one launch that count for kernel.py as it is (:func:`_session_versions`), oldest
    first, and the last of them that kept a change (``None``: none did)."""

    versions: list[str]
    kept: str | None

    def since_kept(self) -> list[str]:
        """The sessions on kernel.py as it is: after the launch's own last kept change."""
        if self.kept is None:
            return list(self.versions)
        return [v for v in self.versions if int(v[1:]) > int(self.kept[1:])]


def _session_versions(p: _Planning, sha: str) -> dict[str, _LaunchSessions]:
    """Launch identity -> its tuning sessions that count for kernel.py as it is: a session on this very kernel.py
    (``sha``), and a session after which only sessions of the same launch changed the kernel (a kept version of
    another launch, or any other kept change, starts the launch afresh). So a launch whose session just kept
    nothing is not tuned again until another launch changes the kernel, and a kept version that moved lines does
    not hide it: sessions are matched by the launch's identity (:func:`~kernelopt.tunables.launches.same_launch`),
    not by its line. A session whose plan and record name no launch (before sessions named their launch) tuned the
    first launch."""
    assert p.launches
    records = {r.version: r for r in p.records}
    first = p.launches[0].identity

    def resolve(stored: str | None) -> str:
        if stored is None:
            return first
        return next((la.identity for la in p.launches or [] if same_launch(stored, la.identity)), stored)

    tuned: dict[str, tuple[str, bool]] = {}  # version -> (the launch its session tuned, on this kernel.py)
    for signature, vs in p.history.tried_by.items():
        pairs = dict(signature[1])
        if "base_kernel" not in pairs:
            continue  # not a tuning session
        for v in vs:
            r = records.get(v)
            stored = pairs.get("launch") or (r.optimization.launch if r is not None else None)
            tuned[v] = (resolve(stored), pairs["base_kernel"] == sha[:16])
    kept = [r for r in p.records if r.number > 0 and r.quality_gate.result is GateResult.PASS]
    out: dict[str, _LaunchSessions] = {}
    for la in p.launches:
        others = [r.number for r in kept if tuned.get(r.version, ("", False))[0] != la.identity]
        since = max(others, default=0)
        versions = [v for v, (which, here) in tuned.items() if which == la.identity and (here or int(v[1:]) > since)]
        versions.sort(key=lambda v: int(v[1:]))
        own = [r.version for r in kept if r.version in versions]
        out[la.identity] = _LaunchSessions(versions, own[-1] if own else None)
    return out


def _next_launch(p: _Planning, sha: str) -> tuple[Launch | None, str | None, list[str], list[str], list[str]]:
    """The launch the next tuning session of this kernel.py tunes, or ``None`` and why none is planned; with
    the versions whose rejected winners it excludes, those whose sessions were too noisy to rank, and the
    launches after it that no session tuned yet (the loop does not stop "converged" while one is left).

    The launches go in :func:`~kernelopt.tunables.launches.session_order`, the sessions that count for this kernel.py
    by :func:`_session_versions`: first a launch no session tuned, or one to tune again (:func:`_tuned_before`: a
    rejected winner, a session too noisy to rank); then a launch whose last session kept a change and that no
    session since confirmed (it is tuned again, but after the launches still untuned, so the loop never tunes the
    launch the previous version just tuned while another waits). "Converged" only when every launch with a knob
    had a session that ran and kept nothing since it or another launch last changed the kernel; a launch whose
    session failed otherwise is not tuned again unchanged, and then the loop says so, never converged.
    """
    assert p.launches
    sessions = _session_versions(p, sha)
    converged: list[str] = []
    failed: list[str] = []
    stops: list[str] = []
    confirm: list[Launch] = []
    for la in p.launches:
        s = sessions[la.identity]
        current = s.since_kept()
        if not s.versions:
            return la, None, [], [], _untuned(p, sessions, la)
        if not current:  # its last session kept a change: tuned again once the others had theirs
            confirm.append(la)
            continue
        stop, rejected, noisy = _tuned_before(p, current)
        if stop is None:
            return la, None, rejected, noisy, _untuned(p, sessions, la)
        stops.append(stop)
        (converged if stop.startswith("converged") else failed).append(f"{la.identity} in {', '.join(current)}")
    if confirm:
        return confirm[0], None, [], [], [x.identity for x in confirm[1:]]
    if len(stops) == 1:  # one launch: its session's word
        return None, stops[0], [], [], []
    if failed:
        kept = f" (tuned and kept nothing: {'; '.join(converged)})" if converged else ""
        why = (
            f"no new actionable path for v{p.n}: the tuning session of {'; '.join(failed)} failed without a "
            f"result{kept}; not converged: fix what failed and run again"
        )
        return None, why, [], [], []
    why = (
        f"converged: the launch configuration of this kernel.py was tuned launch by launch ({'; '.join(converged)}) "
        f"and nothing it found was kept; further gains need a code change: {CODE_BACKENDS}"
    )
    return None, why, [], [], []


def _untuned(p: _Planning, sessions: Mapping[str, _LaunchSessions], la: Launch) -> list[str]:
    """The launches other than ``la`` still to tune before the loop may stop converged: those after it that no
    session tuned, and those whose last session kept a change no session has confirmed since."""
    assert p.launches
    after = p.launches[p.launches.index(la) + 1 :]
    before = p.launches[: p.launches.index(la)]
    untuned = [x.identity for x in after if not sessions[x.identity].versions]
    unconfirmed = [
        x.identity for x in [*before, *after] if sessions[x.identity].versions and not sessions[x.identity].since_kept()
    ]
    return [*untuned, *unconfirmed]


def _tuned_before(p: _Planning, versions: list[str]) -> tuple[str | None, list[str], list[str]]:
    """Why the tuning session of one launch of this kernel.py, tried in ``versions``, is not planned again, or
    ``None``, the versions whose rejected winners it excludes (issue 32, item 4) and those whose sessions were
    too noisy to rank (it times again).

    "Converged" only after a session that ran and kept nothing (its version's ``error_type`` is
    :data:`~kernelopt.actions.SEARCH_NO_GAIN`). When every earlier session of this launch wrote a winner
    that the gate rejected, the next session tunes again among the configurations outside the rejected
    regions (the rules implementer excludes them); a session too noisy to rank
    (:data:`~kernelopt.actions.SEARCH_TOO_NOISY`) is run again too, and so is one whose every candidate, the kernel
    as written too, ran past its time limit (:data:`~kernelopt.actions.SEARCH_LIMIT_SHORT`: the machine's pace, no
    verdict on the action). A session that failed otherwise (the
    implementer's error) is not repeated unchanged, and that is said, never called converged. A session whose
    winner passed and whose kernel.py came back is the same convergence.
    """
    by = ", ".join(versions) or "an earlier version"
    tried = [r for r in p.records if r.version in versions]
    gated = (GateResult.FAIL, GateResult.TIMEOUT_FAIL)
    kept_nothing = any(x.error_type == SEARCH_NO_GAIN for r in tried for x in r.pitfalls_and_fixes)
    if kept_nothing or any(r.quality_gate.result is GateResult.PASS for r in tried) or not tried:
        return (
            (
                f"converged: the launch configuration of this kernel.py was tuned in {by} and nothing it found was "
                f"kept; further gains need a code change: {CODE_BACKENDS}"
            ),
            [],
            [],
        )
    rejected = [
        r for r in tried if r.quality_gate.result in gated and any(c.chosen and not c.current for c in r.candidates)
    ]
    # a session too noisy to rank measured no order: it neither converged nor failed, so it may run again
    # and one whose every candidate, the kernel as written too, ran past its limit met the machine's pace (l201)
    again = (SEARCH_TOO_NOISY, SEARCH_LIMIT_SHORT)
    noisy = [r for r in tried if any(x.error_type in again for x in r.pitfalls_and_fixes)]
    if len(rejected) + len(noisy) == len(tried):  # tune again, outside the regions of rejected winners
        return None, [r.version for r in rejected], [r.version for r in noisy]
    failed = [r for r in tried if r not in rejected and r not in noisy]
    why = "; ".join(
        f"{r.version}: {one_line(r.quality_gate.failure_reason or 'no reason recorded', 160)}" for r in failed
    )
    return (
        (
            f"no new actionable path for v{p.n}: the tuning session of this kernel.py failed in {by} without a "
            f"result ({why or 'no record'}); not converged: fix what failed and run again"
        ),
        [],
        [],
    )


# -- plan text ------------------------------------------------------------------------------------


def _supporting_findings(kernel: KernelEvidence, chosen: Candidate, ideas: list[Idea]) -> list[Finding]:
    matched = {s for i in ideas if i.ref in chosen.refs for s in i.matched_symptoms}
    out = [f for f in kernel.findings if chosen.category in f.action_categories]
    out += [f for f in kernel.findings if f.symptom in matched and f not in out]
    return out


def _action_phrase(chosen: Candidate, tuning: list[Knob] | None = None) -> str:
    if tuning:
        names = ", ".join(k.name for k in tuning)
        seed = f", seeded toward {chosen.describe()}" if chosen.knob is not None else ""
        return f"{LAUNCH_CONFIGURATION.value}: tune {names} jointly in one session{seed}"
    if chosen.knob is not None:
        return f"{chosen.category.value}: set {chosen.knob.name}={chosen.new_value} (now {chosen.knob.value})"
    return f"{chosen.category.value} change"


def evidence_lines(
    kernel: KernelEvidence, chosen: Candidate, ideas: list[Idea], artifact: str, tuning: list[Knob] | None = None
) -> list[str]:
    """``evidence -> inference -> action`` lines citing measured values of the summary.

    The finding that drove the plan (the highest-ranked finding naming the category) comes first, so
    that the commit's bottleneck fact is that finding, not a side metric.
    """
    phrase = _action_phrase(chosen, tuning)
    lines: list[str] = []
    for f in _supporting_findings(kernel, chosen, ideas):
        items = [e for e in f.evidence if e.value is not None]
        if not any(isinstance(e.value, int | float) or re.search(r"\d", str(e.value)) for e in items):
            continue
        facts = "; ".join(_no_arrows(e.render()) for e in items)
        lines.append(f"{facts} -> {_no_arrows(f.inference)} ({f.rule_id}) -> {phrase}")
    for r in kernel.profiler_rules:
        if r.estimated_speedup_pct is None or chosen.category not in rule_categories(r, kernel):
            continue
        message = one_line(_no_arrows(r.message).split(". ")[0], 200)
        kind = f" {r.speedup_type}" if r.speedup_type else ""
        lines.append(
            f"profiler rule {r.rule_id}: estimated_speedup_pct = {sig(r.estimated_speedup_pct)} %{kind} [{artifact}]"
            f" -> {message} -> {phrase}"
        )
    if not lines:  # no finding names the category: cite the key metrics behind the bottleneck class
        names = [n for n in KEY_METRICS if n in kernel.metrics] + sorted(
            n for n in kernel.metrics if n not in KEY_METRICS
        )
        for name in names:
            m = kernel.metrics[name]
            if m.value is None:
                continue
            unit = f" {m.unit}" if m.unit else ""
            lines.append(
                f"{name} = {sig(m.value)}{unit} [{m.source or 'summary.json'}] -> the kernel is "
                f"{kernel.bottleneck.value} -> {phrase}"
            )
            if len(lines) >= 2:
                break
    return lines[:MAX_EVIDENCE_LINES]


def _estimate(kernel: KernelEvidence, chosen: Candidate) -> tuple[float | None, str | None]:
    best: tuple[float | None, str | None] = (None, None)
    for f in kernel.findings:
        est = f.estimated_speedup_pct
        if chosen.category in f.action_categories and est is not None and (best[0] is None or est > best[0]):
            best = (est, f"finding {f.rule_id}")
    for r in kernel.profiler_rules:
        est = r.estimated_speedup_pct
        if est is not None and chosen.category in rule_categories(r, kernel) and (best[0] is None or est > best[0]):
            best = (est, f"profiler rule {r.rule_id}")
    return best


def risk_level(chosen: Candidate) -> RiskLevel:
    """Knob moves are low risk (tiling and occupancy moves medium); code restructures are high."""
    if chosen.knob is not None:
        return RiskLevel.MEDIUM if chosen.category in (_A.TILING, _A.OCCUPANCY, _A.SPLIT_K) else RiskLevel.LOW
    return RiskLevel.HIGH if chosen.category in _HIGH_RISK else RiskLevel.MEDIUM


def build_plan(
    version: int,
    summary: ProfileSummary,
    kernel: KernelEvidence,
    chosen: Candidate,
    ideas: list[Idea],
    log: list[SearchLogEntry],
    history: History,
    tuning: list[Knob] | None = None,
) -> Plan:
    """The Plan of ``chosen`` with its evidence, search log, impact, risks and references.

    With ``tuning`` (the kernel's knobs, when the rules implementer runs Stage 3) the plan is one tuning
    session of the launch configuration: its category is :data:`~kernelopt.actions.LAUNCH_CONFIGURATION`,
    its targets the knobs with their current values; ``chosen`` is what the evidence favours (cited, and
    the direction the session's seeds take).
    """
    artifact = next((a for a in summary.artifacts if a.endswith((".ncu-rep", ".csv"))), "summary.json")
    backing = [i for i in ideas if i.ref in chosen.refs]
    technique = next((i for i in backing if i.kind != "pitfall"), None)
    action, targets = _action_text(kernel, chosen, tuning)
    if technique is not None and technique.text:
        how = technique.text if technique.text.endswith((".", "!", "?")) else technique.text + "."
        action += f" How ({technique.ref}, {technique.title}): {how}"
    elif technique is not None:
        action += f" See {technique.ref} ({technique.title})."
    est, est_source = _estimate(kernel, chosen)
    impact = f"Lower latency of `{kernel.kernel_name}` ({kernel.bottleneck.value})."
    if est is not None:
        impact += f" The profiler estimates up to {est:.1f} % for the issue addressed ({est_source})."
    else:
        impact += " The size is not estimated by the profiler; Stage 4 measures it against the previous version."
    if technique is not None and technique.record is not None and getattr(technique.record, "expected_impact", None):
        impact += f" gpu-wiki {technique.ref}: {' '.join(str(technique.record.expected_impact).split())}"
    if tuning:
        current: dict[str, str | int | float | bool] = {
            k.name: COMPUTED if k.computed else k.value for k in tuning if k.value is not None or k.computed
        }
    else:
        current = {chosen.knob.name: chosen.knob.value} if chosen.knob is not None else {}
    references: list[str] = list(chosen.refs)
    for i in backing:
        for src in getattr(i.record, "sources", None) or []:
            if getattr(src, "url", None):
                references.append(str(src.url))
    return Plan(
        version=version,
        bottleneck_type=kernel.bottleneck.value,
        action_category=LAUNCH_CONFIGURATION if tuning else chosen.category,
        targets=targets,
        parameters={} if tuning else dict(chosen.parameters),
        current_values=current,
        action=action,
        evidence=evidence_lines(kernel, chosen, ideas, artifact, tuning),
        search_log=log,
        expected_impact=impact,
        expected_speedup_pct=est,
        risk_level=RiskLevel.MEDIUM if tuning else risk_level(chosen),
        risks_and_rollback="\n".join(_risks(chosen, backing, history, tuning)),
        enabling_step=False,
        counters_available=summary.counters_available,
        planner=PLANNER_NAME,
        references=list(dict.fromkeys(references))[:8],
    )


def _action_text(kernel: KernelEvidence, chosen: Candidate, tuning: list[Knob] | None) -> tuple[str, list[str]]:
    """The plan's action and its targets."""
    if tuning:
        names = ", ".join(f"`{k.name}`" for k in tuning)
        now = ", ".join(f"{k.name}={_shown(k)}" for k in tuning)
        favours = f" (the evidence favours {chosen.describe()}: those seeds go first)" if chosen.knob else ""
        action = (
            f"Tune the launch configuration of `{kernel.kernel_name}` as one category: {names}, now {now}. One "
            f"tuning session compiles, checks and times candidates within the budget: the current configuration, "
            f"the configurations the evidence favours{favours}, then a local descent with single and paired "
            "moves; the fastest few are re-timed interleaved and the fastest correct one is applied when it beats "
            "the current one by the minimum gain. Change nothing else."
        )
        return action, [k.name for k in tuning]
    if chosen.knob is not None:
        knob = chosen.knob
        where = f" at {knob.location}" if knob.location else ""
        way = "up" if chosen.direction > 0 else "down"
        new = chosen.new_value or 0
        ratio = max(new, knob.value) // max(min(new, knob.value), 1)
        stride = "one step" if ratio <= 2 or knob.family in LINEAR_FAMILIES else f"a x{ratio} step"
        why = "" if stride == "one step" else ", since its last move this way improved"
        action = (
            f"Change `{knob.name}` from {knob.value} to {chosen.new_value}{where} ({chosen.category.value}, "
            f"{stride} {way}{why}); change nothing else."
        )
        return action, [knob.name]
    locations = [f.location for f in kernel.findings if f.location and chosen.category in f.action_categories]
    locations += [h.location for h in kernel.hotspots[:1]]
    targets = list(dict.fromkeys(locations))[:3]
    on = f" at {', '.join(targets)}" if targets else ""
    return f"Apply one {chosen.category.value} change to `{kernel.kernel_name}`{on}; change nothing else.", targets


def _shown(knob: Knob) -> str:
    """A knob's value as a plan writes it: a setting computed from the problem is its computation
    (``computed (block = triton.next_power_of_2(n_cols); 64 at the first SHAPES entry)``), never the one value a
    run read, which a rollback must not restore (issue 32: a literal in place of a computation is wrong at
    other sizes); a computed setting whose value no run read: ``computed``."""
    if knob.computed:
        read = f"; {knob.value} at the first SHAPES entry" if knob.value is not None else ""
        return f"{COMPUTED} ({one_line(knob.computed, 120)}{read})"
    return COMPUTED if knob.value is None else str(knob.value)


def _risks(chosen: Candidate, backing: list[Idea], history: History, tuning: list[Knob] | None) -> list[str]:
    """The plan's risks and rollback, one line each."""
    technique = next((i for i in backing if i.kind != "pitfall"), None)
    risks = []
    if technique is not None and technique.record is not None and getattr(technique.record, "risks", None):
        risks.append(f"Risks ({technique.ref}): {' '.join(str(technique.record.risks).split())}")
    for p in backing:
        if p.kind == "pitfall":
            risks.append(f"Pitfall {p.ref}: {p.title}.")
    if chosen.category in history.failed_categories:
        risks.append(
            f"This category failed or regressed before ({', '.join(history.failed_categories[chosen.category])})."
        )
    if tuning:
        now = ", ".join(f"`{k.name}` = {_shown(k)}" for k in tuning)
        risks.append(
            "A candidate that fails to compile, hangs, crashes, runs out of memory or is wrong is recorded with its "
            f"reason and the session goes on. Rollback: restore {now}; when the gate fails, Stage 5 resets kernel.py "
            "to the last good commit."
        )
    elif chosen.knob is not None:
        risks.append(
            f"Rollback: restore `{chosen.knob.name}` = {chosen.knob.value}; when the gate fails, Stage 5 resets "
            "kernel.py to the last good commit."
        )
    else:
        risks.append("Rollback: when correctness or the gate fails, Stage 5 resets kernel.py to the last good commit.")
    return risks


def _imported_entry_note(ws: Workspace) -> str:
    """Where kernel.py imports its entry point and launches nothing itself: that its kernel's knobs are in a module
    the loop never edits, and what to do (newuser19 n133); where it is PyTorch calls alone, that it has no launch
    to tune and what can be (newuser20 n150); empty otherwise."""
    try:
        source = read_python(ws.kernel_py)
    except (OSError, KerneloptError):
        return ""
    imported = entry_imported(source)
    if imported is None:
        torch_only = plain_torch_note(source)
        return f"; {torch_only}" if torch_only else ""
    return (
        f"; kernel.py imports its entry point ({imported}) and launches no kernel of its own: that kernel's knobs are "
        "in a module the loop never edits; put its code (its launch and the kernel it launches) in kernel.py"
    )
