"""Prompts for agent backends, rendered from package templates and workspace state.

A prompt carries what the spec's subagent must read: the task card, the Stage 1 evidence summary,
the knobs of ``kernel.py``, the history of what was tried (unmasked records only), the knowledge
gathered for the iteration, the plan (Stage 3), and the spec's rules of the stage. Two channels:

- ``agent``: a coding agent that works in the workspace (reads files, runs commands, writes the plan
  or edits ``kernel.py`` itself);
- ``api``: a chat model that only sees the prompt, so the kernel source is inlined and the reply is
  the artifact (plan markdown, or a whole ``kernel.py`` / a unified diff).

Templates live in ``kernelopt/templates/prompts/*.md`` (``string.Template`` syntax, ``$name``).
"""

from __future__ import annotations

from enum import StrEnum
from importlib import resources
from string import Template
from typing import Any

import yaml

from kernelopt.actions import ActionCategory
from kernelopt.backends.protocol import StageContext
from kernelopt.destination import FileKind
from kernelopt.digits import sig
from kernelopt.errors import UsageError
from kernelopt.fileio import read_python
from kernelopt.memory.model import IterationRecord, SearchLogEntry
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import Plan
from kernelopt.stagenames import BACKEND_STAGES, Stage

MAX_EVIDENCE_CHARS = 16000
MAX_README_CHARS = 4000


class PromptChannel(StrEnum):
    """Who receives the prompt."""

    AGENT = "agent"
    API = "api"


PROMPT_TITLE = "# kernelopt Stage "
"""How every stage prompt begins (``plan.md``, ``implement.md``): how kernelopt knows a prompt it wrote."""

PROMPT_FILE = FileKind("prompt", (".md", ".txt"), lambda head: head.startswith(PROMPT_TITLE))
"""A prompt written where ``kernelopt prompt --out`` names: a .md / .txt file that replaces only a prompt."""


def template(name: str) -> str:
    """The text of the prompt template ``name`` (``plan.md``, ``implement.md``, ...)."""
    return resources.files("kernelopt.templates").joinpath("prompts").joinpath(name).read_text(encoding="utf-8")


def _sub(name: str, **values: Any) -> str:
    return Template(template(name)).safe_substitute({k: str(v) for k, v in values.items()})


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters; read the file for the rest]"


def render_task_card(ctx: StageContext) -> str:
    """The task card's front matter (YAML) and free text."""
    card = ctx.workspace.task_card()
    front = yaml.safe_dump(card.model_dump(mode="json", exclude_none=True), sort_keys=False).strip()
    body = _truncate(card.body.strip(), MAX_README_CHARS)
    return f"```yaml\n{front}\n```\n\n{body}".strip()


def render_evidence(ctx: StageContext) -> str:
    """The Stage 1 summary as text, or why there is none."""
    if ctx.summary is None:
        return (
            f"No Stage 1 summary for v{ctx.version} (profiles/v{ctx.version}/summary.json is missing). "
            "Plan only from what can be verified; say so in the plan."
        )
    from kernelopt.evidence.summary import render_text

    text = "```text\n" + _truncate(render_text(ctx.summary).rstrip(), MAX_EVIDENCE_CHARS) + "\n```"
    if not ctx.summary.counters_available:
        text += (
            "\n\nHardware counters were unavailable for this version: the evidence is timing-only. A plan must "
            "say so (front matter `counters_available: false`) and cite only what was measured."
        )
    return text


def render_tunables(ctx: StageContext) -> str:
    """The knobs of ``kernel.py`` as a table (or why they could not be read)."""
    from kernelopt.tunables import TunableError, discover

    try:
        ts = discover(ctx.workspace.kernel_py)
    except TunableError as exc:
        return f"(kernel.py could not be analyzed: {exc.message})"
    if not ts:
        return "(no tunable literal found: launch options, autotune configs or `# kernelopt: tunable` constants)"
    rows = ["| key | value | kind | location | legal | categories | note |", "|---|---|---|---|---|---|---|"]
    for t in ts:
        legal = ", ".join(t.constraints) or "-"
        cats = ", ".join(c.value for c in t.categories) or "-"
        note = f"refused: {t.refused_reason}" if t.refused_reason else ""
        rows.append(f"| {t.key} | {t.value} | {t.kind.value} | {t.location} | {legal} | {cats} | {note} |")
    return "\n".join(rows)


def _record_line(r: IterationRecord) -> str:
    o, p, q = r.optimization, r.performance, r.quality_gate
    parts = [r.version, q.result.value if q.result else "no gate result"]
    if o.action_category:
        parts.append(f"category {o.action_category.value}")
    if o.action_description:
        parts.append(o.action_description)
    if o.knob_changes:
        parts.append("knobs " + ", ".join(f"{k} {v[0]} -> {v[-1]}" for k, v in o.knob_changes.items()))
    if p.latency_us is not None:
        parts.append(f"latency {sig(p.latency_us)} us")
    from kernelopt.report.headline import previous_latency_change  # the report package's import, only when used

    cmp = p.comparison_with_previous
    if (delta := previous_latency_change(cmp)) is not None:  # the report's one figure (claims21 w5)
        parts.append(f"latency delta {delta:+.1f} %")
    if cmp.verdict:
        parts.append(cmp.verdict)
    if p.roofline_utilization_pct is not None:
        parts.append(f"{p.roofline_utilization_pct:.1f} % of roofline")
    if q.failure_reason:
        parts.append(f"failed: {q.failure_reason}")
    line = "- " + " | ".join(parts)
    for pit in r.pitfalls_and_fixes:
        line += f"\n  - pitfall ({pit.error_type}): {pit.error_message}" + (
            f"; lesson: {pit.lesson}" if pit.lesson else ""
        )
    return line


def render_history(ctx: StageContext) -> str:
    """One line per unmasked record, plus the plan files of those versions."""
    records = [r for r in ctx.history if not r.masked]
    if not records:
        return "No earlier iteration (this is the first plan after the baseline)."
    lines = [_record_line(r) for r in records]
    plans = [f"plans/v{r.number}_plan.md" for r in records if ctx.workspace.plan_path(r.number).is_file()]
    if plans:
        lines.append("\nPast plans (read them before choosing): " + ", ".join(plans))
    return "\n".join(lines)


def render_knowledge(ctx: StageContext, channel: PromptChannel) -> str:
    if ctx.knowledge:
        return "\n".join(f"- {k}" for k in ctx.knowledge)
    if channel is PromptChannel.AGENT:
        return "None gathered yet: search the gpu-wiki first (`kernelopt wiki search ...`)."
    return "None gathered: plan from the evidence and the categories' usual remedies; say so in the Search Log."


def render_plan_text(ctx: StageContext) -> str:
    """The plan as the planner wrote it (``plans/v<N>_plan.md``), else the typed plan as YAML."""
    path = ctx.workspace.plan_path(ctx.version)
    if path.is_file():
        return "```markdown\n" + path.read_text(encoding="utf-8").rstrip() + "\n```"
    if ctx.plan is not None:
        dumped = yaml.safe_dump(ctx.plan.model_dump(mode="json", exclude_none=True), sort_keys=False)
        return "```yaml\n" + dumped.rstrip() + "\n```"
    raise UsageError(f"no plan for v{ctx.version}: plans/v{ctx.version}_plan.md is missing", hint="run Stage 2 first")


def plan_format(version: int, *, counters_available: bool = True) -> str:
    """An example plan in the plan file format (rendered by :func:`kernelopt.planning.markdown.render_plan`)."""
    example = Plan(
        version=version,
        bottleneck_type="memory_bound",
        action_category=ActionCategory.NUM_WARPS,
        targets=["num_warps"],
        parameters={"num_warps": 8},
        action="Raise num_warps of the launch from 4 to 8 to hide DRAM latency.",
        evidence=[
            f"dram__throughput.avg.pct_of_peak_sustained_elapsed = 62.1 % [profiles/v{version}/ncu.ncu-rep] "
            "-> memory latency is not hidden with 4 warps -> raise num_warps to 8"
        ],
        search_log=[
            SearchLogEntry(
                source="gpu-wiki",
                query="long_scoreboard memory latency num_warps",
                finding="more warps per program hide DRAM latency when occupancy allows",
                actionability="actionable: num_warps 4 -> 8 not tried yet",
            )
        ],
        expected_impact="DRAM throughput 62% -> ~80% of peak; latency about -15%",
        risks_and_rollback="more warps may raise register pressure; revert kernel.py to the previous commit",
        counters_available=counters_available,
    )
    return "```markdown\n" + render_plan(example).rstrip() + "\n```"


def _contract(ctx: StageContext) -> str:
    form = ctx.workspace.task_card().kernel_form
    if form == "kernelbench":
        return "`kernel.py` defines `class ModelNew(nn.Module)` with the same constructor as `Model`."
    return "`kernel.py` defines `run(*inputs)` returning what `reference(*inputs)` returns."


def _kernel_section(ctx: StageContext, channel: PromptChannel) -> str:
    if channel is PromptChannel.AGENT:
        return f"## kernel.py\n\nThe current kernel is `{ctx.workspace.kernel_py}`; read it before you start."
    source = read_python(ctx.workspace.kernel_py)  # in the encoding it declares (PEP 263)
    return f"## kernel.py (current)\n\n```python\n{source.rstrip()}\n```"


def render_prompt(ctx: StageContext, stage: Stage | str, channel: PromptChannel | str = PromptChannel.AGENT) -> str:
    """The full prompt of ``stage`` (``plan`` or ``implement``) for ``channel`` (``agent`` or ``api``).

    Raises:
        UsageError: unknown stage or channel; Stage 3 without a plan.
    """
    try:
        st = Stage(stage)
        ch = PromptChannel(channel)
        if st not in BACKEND_STAGES:
            raise ValueError(st)
    except ValueError:
        raise UsageError(f"unknown stage {stage!r} or channel {channel!r}", hint="stage: plan|implement") from None
    ws = ctx.workspace
    common = {
        "workspace": ws.root,
        "workspace_name": ws.name,
        "version": ctx.version,
        "task_card": render_task_card(ctx),
        "evidence": render_evidence(ctx),
        "tunables": render_tunables(ctx),
        "history": render_history(ctx),
        "kernel_section": _kernel_section(ctx, ch),
    }
    if st is Stage.PLAN:
        output = _sub(f"plan_output_{ch.value}.md", workspace=ws.root, version=ctx.version)
        counters = ctx.summary.counters_available if ctx.summary is not None else True
        output = Template(output).safe_substitute(plan_format=plan_format(ctx.version, counters_available=counters))
        return (
            _sub(
                "plan.md",
                **common,
                knowledge=render_knowledge(ctx, ch),
                categories=", ".join(c.value for c in ActionCategory),
                output=output,
            ).rstrip()
            + "\n"
        )
    plan_text = render_plan_text(ctx)
    category = ctx.plan.action_category.value if ctx.plan else "the plan's category"
    aux = ctx.aux_files
    editable = "`kernel.py`" + (f" and the files the plan names ({', '.join(aux)})" if aux else "")
    repair = ""
    if ctx.attempt > 0 and ctx.failure:
        repair = (
            f"\n## Repair attempt {ctx.attempt}\n\nThe previous implementation of this plan failed:\n\n"
            f"```text\n{_truncate(ctx.failure.strip(), 6000)}\n```\n\nFix it within the same category.\n"
        )
    output = _sub(f"implement_output_{ch.value}.md", workspace=ws.root, version=ctx.version)
    return (
        _sub(
            "implement.md",
            **common,
            category=category,
            editable=editable,
            contract=_contract(ctx),
            repair=repair,
            plan=plan_text,
            output=output,
        ).rstrip()
        + "\n"
    )
