"""Check a plan against the Stage 2 rules before Stage 3 may use it.

A plan is refused (one-line :class:`~kernelopt.planning.plan.PlanError`) when:

* it holds zero actions or several: no category, an empty action, or knob parameters (or candidates)
  that belong to another category's knobs (``num_warps`` plan also moving ``BLOCK_SIZE`` is two actions);
* its category is not in the controlled vocabulary;
* an evidence line is not ``evidence -> inference -> action``, or cites no value measured in
  ``profiles/v<N>/`` (a value of ``summary.json`` named with its metric, or a line of a text artifact
  there, see :mod:`kernelopt.planning.citations`);
* counters were unavailable for ``v<N>`` but the plan does not say it is planned from timing-only
  evidence;
* the search log skips gpu-wiki, breaks the order gpu-wiki -> reference project -> web, or a web row
  states a hardware figure (spec values come only from the wiki spec sheets or a measurement);
* its action (category + parameters) was already tried in unmasked memory (records and their plans).
"""

from __future__ import annotations

import re
from pathlib import Path

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import SUMMARY_JSON, SummaryError, read_summary
from kernelopt.memory.model import IterationRecord
from kernelopt.planning.citations import cited_fact, cites_text_artifact, summary_facts
from kernelopt.planning.history import build_history, load_past_plans, plan_signature
from kernelopt.planning.knobs import knob_categories, may_move
from kernelopt.planning.knowledge import KnowledgeSource
from kernelopt.planning.plan import Plan, PlanError
from kernelopt.planning.web import hardware_figures
from kernelopt.stagenames import is_backend_file
from kernelopt.tunables.model import PLAN_KNOB_CATEGORIES
from kernelopt.workspace import Workspace

MAX_ARTIFACT_BYTES = 8 * 1024 * 1024
_ARROW_RE = re.compile(r"\s*(?:->|→|=>)\s*")
_TIMING_ONLY_RE = re.compile(r"timing[- ]only", re.IGNORECASE)


def _short(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def check_action(plan: Plan) -> None:
    """Exactly one action of one known category.

    Raises:
        PlanError: unknown category, no action text, or parameters that move another category's knobs.
    """
    try:
        category = ActionCategory(plan.action_category)
    except ValueError:
        raise PlanError(f"plan v{plan.version}: unknown action category '{plan.action_category}'") from None
    if not plan.action.strip():
        raise PlanError(f"plan v{plan.version}: the action section describes no change (zero actions)")
    if category in PLAN_KNOB_CATEGORIES:
        for knob in plan.parameters:
            cats = knob_categories(knob)
            if cats is None or may_move(category, knob, cats):
                continue  # a knob the tables do not know is the plan's own business
            owners = "/".join(sorted(c.value for c in cats))
            raise PlanError(
                f"plan v{plan.version}: parameter '{knob}' is a {owners} knob, which '{category.value}' does not "
                f"move: several actions in one plan"
            )


def _text_artifacts(profile_dir: Path) -> dict[str, str]:
    """Relative path -> text of every readable text file of the profile folder (summary.json excluded, and the files a
    backend may write there: a planner printed a metric line and cited its own transcript, a10)."""
    out: dict[str, str] = {}
    if not profile_dir.is_dir():
        return out
    for p in sorted(profile_dir.rglob("*")):
        if not p.is_file() or p.name == SUMMARY_JSON or p.stat().st_size > MAX_ARTIFACT_BYTES:
            continue
        if is_backend_file(p.relative_to(profile_dir).as_posix()):
            continue
        raw = p.read_bytes()
        if b"\x00" in raw[:8192]:
            continue
        try:
            out[p.relative_to(profile_dir).as_posix()] = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return out


def check_evidence(plan: Plan, profile_dir: Path, summary: ProfileSummary | None) -> None:
    """Every evidence line is ``evidence -> inference -> action`` and cites a value measured in ``profile_dir``.

    Raises:
        PlanError: no evidence line, a line without the three parts, or a line citing nothing there.
    """
    label = f"profiles/{profile_dir.name}/"
    if not plan.evidence:
        raise PlanError(f"plan v{plan.version}: Input Evidence has no evidence line (evidence -> inference -> action)")
    facts = summary_facts(summary) if summary is not None else []
    artifacts: dict[str, str] | None = None
    for i, line in enumerate(plan.evidence, start=1):
        parts = [p for p in _ARROW_RE.split(line) if p.strip()]
        if len(parts) < 3:
            raise PlanError(
                f"plan v{plan.version}: Input Evidence line {i} is not 'evidence -> inference -> action': "
                f"'{_short(line)}'"
            )
        claim = " -> ".join(parts[:-1])  # the action part may hold new knob values: they prove nothing
        if cited_fact(claim, facts) is not None:
            continue
        if artifacts is None:
            artifacts = _text_artifacts(profile_dir)
        if any(
            cites_text_artifact(claim, (f"{label}{rel}", rel, Path(rel).name), text) for rel, text in artifacts.items()
        ):
            continue
        where = "summary.json" if summary is not None else "an artifact (there is no summary.json)"
        raise PlanError(
            f"plan v{plan.version}: Input Evidence line {i} cites no metric value found in {label} "
            f"({where} or a text artifact there): '{_short(line)}'"
        )


def check_counters(plan: Plan, summary: ProfileSummary | None) -> None:
    """When counters were unavailable, the plan says it is planned from timing-only evidence.

    Raises:
        PlanError: the summary says counters were unavailable and the plan claims counter evidence.
    """
    if summary is None or summary.counters_available:
        return
    if plan.counters_available:
        why = f" ({summary.counters_unavailable_reason})" if summary.counters_unavailable_reason else ""
        raise PlanError(
            f"plan v{plan.version}: hardware counters were unavailable for this version{why}; the plan must say it is "
            "planned from timing-only evidence (counters_available: false)"
        )


def _source_kind(source: str) -> KnowledgeSource | None:
    low = source.strip().lower()
    if "wiki" in low:
        return KnowledgeSource.GPU_WIKI
    if "reference" in low or low.startswith("ref"):
        return KnowledgeSource.REFERENCE_PROJECT
    if "web" in low or "internet" in low or low.startswith("http"):
        return KnowledgeSource.WEB
    return None


def check_search_log(plan: Plan, reference_configured: bool) -> None:
    """gpu-wiki first, then the reference project, then the web; no hardware figure from the web.

    Raises:
        PlanError: no gpu-wiki row, a later source before an earlier one, the web before the configured
            reference project, or a web row stating a hardware figure.
    """
    kinds = [_source_kind(e.source) for e in plan.search_log]
    if KnowledgeSource.GPU_WIKI not in kinds:
        raise PlanError(f"plan v{plan.version}: the Search Log has no gpu-wiki row (gpu-wiki is searched first)")
    order = {KnowledgeSource.GPU_WIKI: 0, KnowledgeSource.REFERENCE_PROJECT: 1, KnowledgeSource.WEB: 2}
    seen = -1
    for row, kind in enumerate(kinds, start=1):
        if kind is None:
            continue
        if order[kind] < seen:
            raise PlanError(
                f"plan v{plan.version}: Search Log row {row} searches {kind.value} after a later source "
                "(order: gpu-wiki, reference project, web)"
            )
        seen = max(seen, order[kind])
    searched_web = [
        e
        for e, k in zip(plan.search_log, kinds, strict=True)
        if k is KnowledgeSource.WEB and e.query != "(not searched)"
    ]
    if searched_web and reference_configured and KnowledgeSource.REFERENCE_PROJECT not in kinds:
        raise PlanError(
            f"plan v{plan.version}: the Search Log searches the web but not the reference project README.md names"
        )
    for e in searched_web:
        figures = hardware_figures(e.finding)
        if figures:
            raise PlanError(
                f"plan v{plan.version}: web Search Log row states hardware figure '{figures[0]}': spec values come "
                "only from the gpu-wiki spec sheets or a measurement"
            )


def check_new(plan: Plan, workspace: Workspace, history: list[IterationRecord]) -> None:
    """The action was not tried in unmasked memory (records and their plans); masked ones do not count.

    Raises:
        PlanError: same category and same parameters as an unmasked earlier iteration.
    """
    records = [r for r in history if not r.masked and r.number != plan.version]
    past, _ = load_past_plans(workspace, records)
    tried = build_history(records, past)
    sig = plan_signature(plan)
    if tried.was_tried(sig):
        params = ", ".join(f"{k}={v}" for k, v in sig[1]) or "no parameters"
        by = ", ".join(tried.tried_by.get(sig, []))
        raise PlanError(
            f"plan v{plan.version}: action {sig[0]} ({params}) was already tried in {by} (unmasked memory); "
            "plan a new action"
        )


def validate_plan(
    plan: Plan, workspace: Workspace, history: list[IterationRecord], summary: ProfileSummary | None
) -> None:
    """Refuse a plan that breaks a Stage 2 rule (see the module docstring).

    Args:
        plan: the plan (usually parsed from ``plans/v<N>_plan.md``).
        workspace: the workspace (for ``profiles/v<N>/`` artifacts, past plans and the task card).
        history: iteration records; masked ones are ignored.
        summary: ``profiles/v<N>/summary.json``; ``None`` reads it from the workspace when present.

    Raises:
        PlanError: the first rule broken, in one line.
    """
    profile_dir = workspace.profile_dir(plan.version)
    if summary is None and (profile_dir / SUMMARY_JSON).is_file():
        try:
            summary = read_summary(profile_dir)
        except SummaryError as exc:
            raise PlanError(f"plan v{plan.version}: {exc.message}") from None
    check_action(plan)
    check_evidence(plan, profile_dir, summary)
    check_counters(plan, summary)
    check_search_log(plan, workspace.task_card().reference_project_path is not None)
    check_new(plan, workspace, history)
