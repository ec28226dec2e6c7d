"""The plan file format: render a :class:`~kernelopt.planning.plan.Plan` to ``plans/v<N>_plan.md`` and parse it back.

Layout (what :func:`render_plan` writes; :func:`parse_plan` reads it back to an equal ``Plan``)::

    ---
    version: 3
    bottleneck_type: memory_bound
    action_category: num_warps
    targets: [num_warps]
    parameters: {num_warps: 8}
    current_values: {num_warps: 4}
    expected_impact: ...
    risk_level: low
    enabling_step: false
    counters_available: true
    planner: rules
    ---
    # Plan v3: num_warps

    ## Input Evidence
    - <evidence> -> <inference> -> <action>

    ## Search Log
    | Source | Query | Finding | Actionability |
    | --- | --- | --- | --- |
    | gpu-wiki | ... | ... | ... |

    ## This Iteration's Optimization Action
    - **Category:** `num_warps`
    - **Targets:** `num_warps`
    - **Change:** `num_warps` 4 -> 8

    <the action in one or two sentences>

    ## Expected Impact
    ## Risks and Rollback

An older plan's candidate set (a ``## Candidates`` section, and ``candidates``, ``candidate_budget``,
``pruned`` in the front matter) is read and dropped: one tuning session replaced it
(:meth:`~kernelopt.planning.plan.Plan.is_tuning_session`).

Plans are also written by agents and people, so parsing is tolerant: front matter keys in any case
with spaces or hyphens (``Bottleneck Type``), common aliases (``category``, ``risk``, ``knobs``),
headings at any level with apostrophe and case variants, ``*``/``+``/numbered bullets, a missing
separator row in the table, the category, targets and change given only in the action section, the
version only in the title or file name. What cannot be read as one plan is refused with a
:class:`~kernelopt.planning.plan.PlanError` naming the problem: a missing section, an unknown
category, several categories or several actions, a malformed table row, bad front matter.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from kernelopt import frontmatter
from kernelopt.actions import ActionCategory
from kernelopt.memory.model import SearchLogEntry
from kernelopt.numeric import is_number
from kernelopt.planning.plan import Plan, PlanError, RiskLevel

# Section keys -> heading text written by render_plan.
EVIDENCE = "Input Evidence"
SEARCH_LOG = "Search Log"
ACTION = "This Iteration's Optimization Action"
IMPACT = "Expected Impact"
RISKS = "Risks and Rollback"
CANDIDATES = "Candidates"  # an older plan's candidate set: read so that it is not taken for part of another section
SECTIONS = (EVIDENCE, SEARCH_LOG, ACTION, IMPACT, RISKS)
TABLE_COLUMNS = ("Source", "Query", "Finding", "Actionability")
TIMING_ONLY_NOTE = "Planned from timing-only evidence: hardware counters were unavailable for this version."

_SECTION_ALIASES = {
    EVIDENCE: ("inputevidence", "evidence", "profileevidence"),
    SEARCH_LOG: ("searchlog", "search", "knowledgesearch"),
    ACTION: (
        "thisiterationsoptimizationaction",
        "thisiterationoptimizationaction",
        "optimizationaction",
        "action",
        "thisiterationsaction",
    ),
    IMPACT: ("expectedimpact", "impact"),
    RISKS: ("risksandrollback", "riskandrollback", "risksrollback", "risks", "rollback"),
    CANDIDATES: ("candidates", "candidateset", "candidateconfigurations"),
}
_HEADING_TO_SECTION = {alias: sec for sec, aliases in _SECTION_ALIASES.items() for alias in aliases}

_FRONT_ALIASES = {
    "version": "version",
    "bottleneck_type": "bottleneck_type",
    "bottleneck": "bottleneck_type",
    "action_category": "action_category",
    "category": "action_category",
    "optimization_category": "action_category",
    "targets": "targets",
    "target": "targets",
    "target_knobs": "targets",
    "knobs": "targets",
    "regions": "targets",
    "target_knobs_regions": "targets",
    "parameters": "parameters",
    "params": "parameters",
    "current_values": "current_values",
    "current": "current_values",
    "expected_impact": "expected_impact",
    "impact": "expected_impact",
    "expected_speedup_pct": "expected_speedup_pct",
    "risk_level": "risk_level",
    "risk": "risk_level",
    "enabling_step": "enabling_step",
    "enabling": "enabling_step",
    "counters_available": "counters_available",
    "counters": "counters_available",
    "planner": "planner",
    "references": "references",
    "sources": "references",
    "base_kernel_sha256": "base_kernel_sha256",
    "excluding": "excluding",
    "retrying": "retrying",
    "launch": "launch",
    "untuned_launches": "untuned_launches",
}

_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_BULLET_RE = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$")
_LABEL_RE = re.compile(r"^(?:\*\*|__)?\s*([A-Za-z][A-Za-z ]*?)\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$")
_ARROW_RE = re.compile(r"\s*(?:->|→|=>)\s*")
_MULTI_ACTION_HEADING_RE = re.compile(r"^(action|option|alternative|candidate)\b", re.IGNORECASE)
_CATEGORY_SPLIT_RE = re.compile(r"\s*(?:,|\+|/|&|;|\band\b|\bplus\b)\s*", re.IGNORECASE)
_PLAN_FILE_RE = re.compile(r"v(\d+)_plan\.md$")
_TITLE_VERSION_RE = re.compile(r"\b[vV](\d+)\b")
_CELL_SPLIT_RE = re.compile(r"(?<!\\)\|")
_STRUCTURED_LABELS = {
    "category": "category",
    "action category": "category",
    "optimization category": "category",
    "targets": "targets",
    "target": "targets",
    "knobs": "targets",
    "change": "change",
    "changes": "change",
    "parameters": "change",
    "parameter": "change",
}


# -- rendering ------------------------------------------------------------------------------------


def _value(v: str | int | float | bool) -> str:
    return f"{v}" if not isinstance(v, str) else v


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\r\n", "\n").replace("\n", "<br>")


def change_lines(plan: Plan) -> list[str]:
    """``knob before -> after`` (or ``knob = after``) for each parameter, in parameter order."""
    out = []
    for k, v in plan.parameters.items():
        if k in plan.current_values:
            out.append(f"`{k}` {_value(plan.current_values[k])} -> {_value(v)}")
        else:
            out.append(f"`{k}` = {_value(v)}")
    return out


def render_plan(plan: Plan) -> str:
    """The text of ``plans/v<N>_plan.md`` for ``plan`` (parse_plan of it gives an equal Plan)."""
    front: dict[str, Any] = {
        "version": plan.version,
        "bottleneck_type": plan.bottleneck_type,
        "action_category": plan.action_category.value,
        "targets": list(plan.targets),
        "parameters": dict(plan.parameters),
    }
    if plan.current_values:
        front["current_values"] = dict(plan.current_values)
    front["expected_impact"] = plan.expected_impact
    if plan.expected_speedup_pct is not None:
        front["expected_speedup_pct"] = plan.expected_speedup_pct
    front["risk_level"] = plan.risk_level.value
    front["enabling_step"] = plan.enabling_step
    front["counters_available"] = plan.counters_available
    if plan.planner is not None:
        front["planner"] = plan.planner
    if plan.references:
        front["references"] = list(plan.references)
    if plan.base_kernel_sha256:
        front["base_kernel_sha256"] = plan.base_kernel_sha256
    if plan.excluding:
        front["excluding"] = list(plan.excluding)
    if plan.retrying:
        front["retrying"] = list(plan.retrying)
    if plan.launch:
        front["launch"] = plan.launch
    if plan.untuned_launches:
        front["untuned_launches"] = list(plan.untuned_launches)

    body: list[str] = [f"# Plan v{plan.version}: {plan.action_category.value}", "", f"## {EVIDENCE}", ""]
    if not plan.counters_available:
        body += [f"> {TIMING_ONLY_NOTE}", ""]
    for line in plan.evidence:
        first, *rest = line.split("\n")
        body.append(f"- {first}")
        body += [f"  {r}" for r in rest]
    body += ["", f"## {SEARCH_LOG}", ""]
    body.append("| " + " | ".join(TABLE_COLUMNS) + " |")
    body.append("| " + " | ".join("---" for _ in TABLE_COLUMNS) + " |")
    for e in plan.search_log:
        body.append("| " + " | ".join(_cell(x) for x in (e.source, e.query, e.finding, e.actionability)) + " |")
    body += ["", f"## {ACTION}", "", f"- **Category:** `{plan.action_category.value}`"]
    if plan.targets:
        body.append("- **Targets:** " + ", ".join(f"`{t}`" for t in plan.targets))
    for c in change_lines(plan):
        body.append(f"- **Change:** {c}")
    body += ["", plan.action.strip(), "", f"## {IMPACT}", "", plan.expected_impact.strip(), ""]
    body += [f"## {RISKS}", "", plan.risks_and_rollback.strip(), ""]
    return frontmatter.join(front, "\n".join(body))


# -- parsing --------------------------------------------------------------------------------------


def _norm_key(key: str) -> str:
    return re.sub(r"[\s\-]+", "_", str(key).strip().lower())


def _norm_heading(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower().replace("’", "'").replace("&", "and"))


def normalize_category(text: str, *, where: str) -> ActionCategory:
    """``"Num Warps"``, ``"num-warps"``, ``"`num_warps`"`` -> ``ActionCategory.NUM_WARPS``.

    Raises:
        PlanError: not a known category (the message suggests the closest one).
    """
    key = re.sub(r"[\s\-]+", "_", text.strip().strip("`*_ ").strip().lower())
    try:
        return ActionCategory(key)
    except ValueError:
        known = [c.value for c in ActionCategory]
        close = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"
        raise PlanError(f"{where}: unknown action category '{text.strip()}'{hint}") from None


def _split_sections(body: str, origin: str) -> tuple[str, dict[str, list[str]], dict[str, list[str]]]:
    """(title, section -> lines, section -> sub-headings) of a plan body."""
    title = ""
    sections: dict[str, list[str]] = {}
    subheads: dict[str, list[str]] = {}
    current: str | None = None
    in_fence = False
    for raw in body.splitlines():
        if _FENCE_RE.match(raw):
            in_fence = not in_fence
        m = None if in_fence else _HEADING_RE.match(raw)
        if m:
            key = _HEADING_TO_SECTION.get(_norm_heading(m.group(2)))
            if key is not None:
                if key in sections:
                    raise PlanError(f"{origin}: section '{key}' appears twice")
                sections[key] = []
                subheads[key] = []
                current = key
                continue
            if current is None:
                if not title:
                    title = m.group(2)
                continue
            subheads[current].append(m.group(2))
            continue
        if current is not None:
            sections[current].append(raw)
    return title, sections, subheads


def _scalar(value: Any, where: str) -> str | int | float | bool:
    if isinstance(value, bool | int | float | str):
        return value
    raise PlanError(f"{where} must be a number, a boolean or a word, got {type(value).__name__}")


def _scalar_text(text: str) -> str | int | float | bool:
    try:
        loaded = yaml.safe_load(text.strip().strip("`"))
    except yaml.YAMLError:
        return text.strip()
    return loaded if isinstance(loaded, bool | int | float | str) else text.strip()


def _mapping(value: Any, where: str) -> dict[str, str | int | float | bool]:
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(k): _scalar(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):  # ["num_warps=8", ...]
        out: dict[str, str | int | float | bool] = {}
        for item in value:
            if isinstance(item, dict):
                out.update(_mapping(item, where))
            elif isinstance(item, str) and "=" in item:
                k, _, v = item.partition("=")
                out[k.strip().strip("`")] = _scalar_text(v)
            else:
                raise PlanError(f"{where}: cannot read {item!r} as name=value")
        return out
    raise PlanError(f"{where} must be a mapping of name: value")


def _str_list(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p.strip().strip("`") for p in value.split(",") if p.strip()]
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return [str(v) for v in value]
    raise PlanError(f"{where} must be a list of names")


def _bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    raise PlanError(f"{where} must be true or false, got {value!r}")


def _front(front: dict[str, Any], origin: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in front.items():
        key = _FRONT_ALIASES.get(_norm_key(raw_key))
        if key is None:
            continue  # hand-written plans carry extra keys (title, date, author): not ours to judge
        if key in out:
            raise PlanError(f"{origin}: front matter gives '{key}' twice (as '{raw_key}')")
        out[key] = value
    return out


def _evidence_lines(lines: list[str]) -> tuple[list[str], bool]:
    """Evidence entries (bullets, with indented continuation lines) and whether timing-only is said."""
    out: list[str] = []
    timing_only = False
    open_item = False
    for raw in lines:
        if re.search(r"timing[- ]only", raw, re.IGNORECASE):
            timing_only = True
        if not raw.strip():
            open_item = False
            continue
        if raw.lstrip().startswith(">"):
            open_item = False
            continue
        m = _BULLET_RE.match(raw)
        if m and not m.group(1):
            out.append(m.group(2).strip())
            open_item = True
        elif open_item and raw.startswith((" ", "\t")):
            out[-1] += "\n" + raw.strip()
        elif _ARROW_RE.search(raw):
            out.append(raw.strip())
            open_item = True
        else:
            open_item = False
    return out, timing_only


def _table(lines: list[str], origin: str) -> list[SearchLogEntry]:
    rows = [ln.strip() for ln in lines if ln.strip().startswith("|")]
    prose = [ln for ln in lines if ln.strip() and not ln.strip().startswith("|")]
    if not rows:
        if any(not re.fullmatch(r"[_*(]*(none|no searches?)[_*).]*", p.strip(), re.IGNORECASE) for p in prose):
            raise PlanError(f"{origin}: {SEARCH_LOG} must be a table with columns {' | '.join(TABLE_COLUMNS)}")
        return []

    def cells(row: str) -> list[str]:
        inner = row.strip()
        inner = inner[1:] if inner.startswith("|") else inner
        inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
        return [c.strip().replace("\\|", "|").replace("<br>", "\n") for c in _CELL_SPLIT_RE.split(inner)]

    header = [_norm_heading(c) for c in cells(rows[0])]
    index = {}
    for col in TABLE_COLUMNS:
        key = _norm_heading(col)
        if key not in header:
            raise PlanError(f"{origin}: {SEARCH_LOG} table has no '{col}' column (header: {rows[0]})")
        index[col] = header.index(key)
    out = []
    body_rows = rows[1:]
    first = [c for c in cells(body_rows[0]) if c] if body_rows else []
    if first and all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in first):
        body_rows = body_rows[1:]
    for i, row in enumerate(body_rows, start=1):
        cs = cells(row)
        if len(cs) != len(header):
            raise PlanError(f"{origin}: {SEARCH_LOG} row {i} has {len(cs)} cells, the header has {len(header)}")
        out.append(
            SearchLogEntry(
                source=cs[index["Source"]],
                query=cs[index["Query"]],
                finding=cs[index["Finding"]],
                actionability=cs[index["Actionability"]],
            )
        )
    return out


_Change = tuple[str, str | int | float | bool, Any]
"""``(knob, after, before)`` of a ``name before -> after`` item (``before`` None when not given)."""


def _parse_change(text: str) -> list[_Change] | None:
    """``"`num_warps` 4 -> 8"`` / ``"num_warps = 8"`` / ``"num_warps: 4 -> 8"`` -> [(name, after, before)].

    ``None`` when the text is prose rather than ``name before -> after`` items.
    """
    out: list[_Change] = []
    for part in re.split(r"\s*[,;]\s*", text):
        part = part.strip()
        if not part:
            continue
        m = re.match(r"^`?([A-Za-z_][\w.]*)`?\s*(?::|=)?\s*(.*)$", part)
        if not m or not m.group(2):
            return None
        name, rest = m.group(1), m.group(2)
        pieces = [p.strip("`") for p in _ARROW_RE.split(rest.strip())]
        if not all(re.fullmatch(r"[^\s]+", p) for p in pieces):
            return None
        if len(pieces) == 2:
            out.append((name, _scalar_text(pieces[1]), _scalar_text(pieces[0])))
        elif len(pieces) == 1:
            out.append((name, _scalar_text(pieces[0]), None))
        else:
            return None
    return out or None


def parse_plan(text: str, origin: str = "plan") -> Plan:
    """Parse a plan file (``plans/v<N>_plan.md``) into a :class:`Plan`.

    Args:
        text: the Markdown text.
        origin: the file name used in error messages (and to read ``v<N>`` when the plan gives no version).

    Raises:
        PlanError: one line naming what is wrong: bad front matter, a missing section, zero or several
            actions or categories, an unknown category, a table row that cannot be read.
    """
    try:
        raw_front, body = frontmatter.split(text)
    except frontmatter.FrontMatterError as exc:
        raise PlanError(f"{origin}: {exc}") from None
    front = _front(raw_front, origin)
    title, sections, subheads = _split_sections(body, origin)
    for sec in (EVIDENCE, SEARCH_LOG, ACTION, RISKS):
        if sec not in sections:
            raise PlanError(f"{origin}: missing section '## {sec}'")
    act = _action_section(sections[ACTION], subheads[ACTION], origin)
    category = _category(front, act.declared, origin)
    action = act.text(category, origin)
    version = _version(front, title, origin)
    bottleneck = front.get("bottleneck_type")
    if bottleneck is None or not str(bottleneck).strip():
        raise PlanError(f"{origin}: front matter has no bottleneck_type")
    evidence, says_timing_only = _evidence_lines(sections[EVIDENCE])
    search_log = _table(sections[SEARCH_LOG], origin)
    impact, risks = _impact_and_risks(front, sections, origin)
    risk = _risk_level(front, origin)
    parameters, current, targets = _knobs(front, act, origin)
    speedup = front.get("expected_speedup_pct")
    if speedup is not None and not is_number(speedup):
        raise PlanError(f"{origin}: expected_speedup_pct must be a number, got {speedup!r}")
    counters = (
        _bool(front["counters_available"], f"{origin}: counters_available")
        if "counters_available" in front
        else not says_timing_only
    )
    planner = front.get("planner")
    return Plan(
        version=version,
        bottleneck_type=str(bottleneck).strip(),
        action_category=category,
        targets=targets,
        parameters=parameters,
        current_values=current,
        action=action,
        evidence=evidence,
        search_log=search_log,
        expected_impact=impact,
        expected_speedup_pct=float(speedup) if speedup is not None else None,
        risk_level=risk,
        risks_and_rollback=risks,
        enabling_step=_bool(front.get("enabling_step", False), f"{origin}: enabling_step"),
        counters_available=counters,
        planner=str(planner) if planner is not None else None,
        references=_str_list(front.get("references"), f"{origin}: references"),
        base_kernel_sha256=str(front["base_kernel_sha256"]) if front.get("base_kernel_sha256") else None,
        excluding=_str_list(front.get("excluding"), f"{origin}: excluding"),
        retrying=_str_list(front.get("retrying"), f"{origin}: retrying"),
        launch=str(front["launch"]) if front.get("launch") else None,
        untuned_launches=_str_list(front.get("untuned_launches"), f"{origin}: untuned_launches"),
    )


@dataclass
class _ActionSection:
    """What the ``## Optimization Action`` section says: its Category lines, Targets, the changes written
    as ``name before -> after`` items, and the prose that describes the action."""

    declared: list[ActionCategory] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    changes: list[_Change] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)

    def text(self, category: ActionCategory, origin: str) -> str:
        """The action in words: the prose, else the changes.

        Raises:
            PlanError: neither.
        """
        action = "\n".join(self.prose).strip()
        if not action and self.changes:
            action = "; ".join(f"{n} {b} -> {a}" if b is not None else f"{n} = {a}" for n, a, b in self.changes)
        if not action:
            raise PlanError(f"{origin}: {ACTION} names category '{category.value}' but describes no change")
        return action


def _action_section(lines: list[str], subheads: list[str], origin: str) -> _ActionSection:
    """Read the action section: labelled bullets (Category, Targets, a change) and the prose around them.

    Raises:
        PlanError: several actions (sub-headings), an empty or unknown category, several categories.
    """
    several = [h for h in subheads if _MULTI_ACTION_HEADING_RE.match(h.strip())]
    if len(several) >= 2:
        raise PlanError(f"{origin}: {ACTION} holds several actions ({', '.join(several)}); a plan has exactly one")
    out = _ActionSection()
    for raw in lines:
        m = _BULLET_RE.match(raw)
        label = _LABEL_RE.match(m.group(2)) if m else None
        kind = _STRUCTURED_LABELS.get(label.group(1).strip().lower()) if label else None
        if label is None or kind is None:
            out.prose.append(raw)
            continue
        value = label.group(2).strip()
        if kind == "category":
            plain = re.sub(r"\(.*?\)", "", value.replace("`", ""))
            names = [n for n in _CATEGORY_SPLIT_RE.split(plain) if n.strip()]
            if not names:
                raise PlanError(f"{origin}: {ACTION}: empty Category line")
            out.declared += [normalize_category(n, where=f"{origin}: {ACTION}") for n in names]
        elif kind == "targets":
            out.targets += [t.strip().strip("`") for t in value.split(",") if t.strip().strip("`")]
        else:
            parsed = _parse_change(value)
            if parsed is None:
                out.prose.append(raw)
            else:
                out.changes += parsed
    if len(out.declared) > 1:
        what = "several categories" if len(set(out.declared)) > 1 else "several Category lines"
        listed = ", ".join(c.value for c in out.declared)
        raise PlanError(f"{origin}: {ACTION} names {what} ({listed}); a plan has exactly one action")
    return out


def _category(front: dict[str, Any], declared: list[ActionCategory], origin: str) -> ActionCategory:
    """The one action category: the front matter's and the section's, which must agree; one of them.

    Raises:
        PlanError: several in the front matter, a disagreement, or none at all.
    """
    fm_cat = front.get("action_category")
    if isinstance(fm_cat, list):
        if len(fm_cat) != 1:
            raise PlanError(
                f"{origin}: front matter action_category lists {len(fm_cat)} categories; a plan has exactly one"
            )
        fm_cat = fm_cat[0]
    front_category = None
    if fm_cat is not None:
        front_category = normalize_category(str(fm_cat), where=f"{origin}: front matter action_category")
    if front_category is not None and declared and declared[0] != front_category:
        raise PlanError(
            f"{origin}: front matter action_category '{front_category.value}' but {ACTION} says '{declared[0].value}'"
        )
    category = front_category or (declared[0] if declared else None)
    if category is None:
        raise PlanError(
            f"{origin}: no optimization action: neither front matter action_category nor a 'Category:' line in {ACTION}"
        )
    return category


def _version(front: dict[str, Any], title: str, origin: str) -> int:
    """N: the front matter's version, else the title's ``Plan v<N>``, else the file name's ``v<N>_plan.md``.

    Raises:
        PlanError: none of them, or not a number >= 0.
    """
    version_raw = front.get("version")
    if version_raw is None:
        m = _TITLE_VERSION_RE.search(title) or _PLAN_FILE_RE.search(origin)
        if m is None:
            raise PlanError(
                f"{origin}: no version (front matter 'version', a title 'Plan v<N>' or a v<N>_plan.md name)"
            )
        version_raw = m.group(1)
    try:
        version = int(str(version_raw).strip().lstrip("vV"))
    except ValueError:
        raise PlanError(f"{origin}: front matter version {version_raw!r} is not v<N> or a number") from None
    if version < 0:
        raise PlanError(f"{origin}: front matter version must be >= 0, got {version}")
    return version


def _impact_and_risks(front: dict[str, Any], sections: dict[str, list[str]], origin: str) -> tuple[str, str]:
    """The expected impact (its section, else the front matter's) and the risks section; neither empty."""
    impact = "\n".join(sections.get(IMPACT, [])).strip()
    if not impact:
        fm_impact = front.get("expected_impact")
        impact = str(fm_impact).strip() if fm_impact is not None else ""
    if not impact:
        raise PlanError(f"{origin}: no expected impact (section '## {IMPACT}' or front matter expected_impact)")
    risks = "\n".join(sections[RISKS]).strip()
    if not risks:
        raise PlanError(f"{origin}: section '{RISKS}' is empty")
    return impact, risks


def _risk_level(front: dict[str, Any], origin: str) -> RiskLevel:
    risk_raw = front.get("risk_level") or RiskLevel.MEDIUM.value
    try:
        return RiskLevel(str(risk_raw).strip().lower())
    except ValueError:
        raise PlanError(
            f"{origin}: risk_level {risk_raw!r} is not one of {', '.join(r.value for r in RiskLevel)}"
        ) from None


def _knobs(front: dict[str, Any], act: _ActionSection, origin: str) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """``(parameters, current_values, targets)``: the front matter's, else what the action's changes and
    Targets line say (the targets default to the changed knobs)."""
    parameters = _mapping(front.get("parameters"), f"{origin}: parameters")
    current = _mapping(front.get("current_values"), f"{origin}: current_values")
    if "parameters" not in front and act.changes:
        parameters = {n: a for n, a, _ in act.changes}
        current = current or {n: b for n, _, b in act.changes if b is not None}
    targets = _str_list(front.get("targets"), f"{origin}: targets") if "targets" in front else act.targets
    if not targets and parameters:
        targets = list(parameters)
    return parameters, current, targets
