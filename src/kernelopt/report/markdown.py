"""The Markdown report (pure): summary, timeline, roofline, evidence -> action -> result, failures, memory, git."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum

from kernelopt.report import cells, sections
from kernelopt.report.model import REPORT_TITLE, ReportData


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
    out += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return out


class Section(StrEnum):
    """The report's sections, in order (``## <title>`` each)."""

    SUMMARY = "summary"
    TIMELINE = "timeline"
    ROOFLINE = "roofline"
    EVIDENCE = "evidence"
    FAILURES = "failures"
    MEMORY = "memory"
    GIT = "git"

    @property
    def title(self) -> str:
        return _TITLES[self]


_TITLES = {
    Section.SUMMARY: "Summary",
    Section.TIMELINE: "Version timeline",
    Section.ROOFLINE: "Roofline",
    Section.EVIDENCE: "Evidence -> action -> result",
    Section.FAILURES: "Failed attempts",
    Section.MEMORY: "Memory summary",
    Section.GIT: "Git history",
}


def markdown_report(
    data: ReportData, *, plot_href: str | None = None, search_hrefs: dict[str, str] | None = None
) -> str:
    """The whole report as Markdown.

    Args:
        data: what the workspace holds (see :func:`kernelopt.report.reader.collect`).
        plot_href: where the roofline image is (relative path or data URI); no image when None, the
            plotted numbers are always given as a table.
        search_hrefs: version label (``V1``) -> where its tuning session's search plot is
            (:func:`kernelopt.report.sessions.session_plots`), shown under its candidates.
    """
    card = ", ".join(f"{k} {cells.text(v)}" for k, v in sections.card_fields(data))
    out = [
        f"# {REPORT_TITLE}{data.name}",
        "",
        f"Workspace `{data.root}`: {card}.",
        "Sources: `memory/v<N>.json` (the records), `plans/v<N>_plan.md`, `profiles/v<N>/summary.json`"
        + (", `baseline_report.md`" if data.has_baseline_report else "")
        + " and the workspace's git history.",
    ]
    for section in Section:
        out.append("")
        out += markdown_section(data, section, plot_href=plot_href, search_hrefs=search_hrefs)
    return "\n".join(out).rstrip() + "\n"


def markdown_section(
    data: ReportData,
    section: Section,
    *,
    plot_href: str | None = None,
    search_hrefs: dict[str, str] | None = None,
    version: int | None = None,
) -> list[str]:
    """One section of the report as Markdown lines, its ``## <title>`` first (``version``: the evidence of that
    version alone; the other sections ignore it)."""
    body = _BODIES[section](data, plot_href, search_hrefs or {}, version)
    while body and not body[-1]:
        body.pop()
    return [f"## {section.title}", "", *body]


def _summary(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    return [f"- {line}" for line in sections.headline(data)] + [f"- Unreadable record {u}" for u in data.unreadable]


def _timeline(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    if not data.versions:
        return ["No memory records yet."]
    return [*table(sections.TIMELINE_COLUMNS, sections.timeline_rows(data)), "", sections.TIMELINE_NOTE]


def _roofline(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    out = []
    if plot_href:
        out += [f"![Roofline and latency per version]({plot_href})", ""]
    if data.ceilings:
        out += table(("roof", "value", "origin", "source"), sections.ceiling_rows(data))
        out.append("")
    notes = sections.ceiling_notes(data)
    if notes:
        out += [f"- {note}" for note in notes] + [""]
    points = sections.point_rows(data)
    if points:
        out += ["Plotted points:", ""]
        out += table(("version", "FLOP/byte", "TFLOP/s", "GB/s", "latency (us)"), points)
    return out


def _evidence(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    out = []
    for v, story in zip(data.versions, sections.version_stories(data), strict=True):
        if version is not None and v.record.number != version:
            continue
        out += [f"### {story.title}", ""]
        for key, lines in story.parts():
            out += [f"**{key}**", ""] + [f"- {line}" for line in lines] + [""]
            href = hrefs.get(v.label)
            if key == "Candidates" and href:
                out += [f"![{v.label}'s tuning session: each SHAPES entry's latencies and their sum]({href})", ""]
    if not out:
        return [f"No record of V{version}." if version is not None else "No memory records yet."]
    return out


def _failures(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    failures = sections.failure_rows(data)
    return table(("version", "action", "error", "reason"), failures) if failures else ["None recorded."]


def _memory(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    if not data.versions:
        return ["No memory records yet."]
    return table(sections.MEMORY_COLUMNS, sections.memory_rows(data))


def _git(data: ReportData, plot_href: str | None, hrefs: dict[str, str], version: int | None) -> list[str]:
    return [f"- `{h}` {_escape(subject)}" for h, subject in data.git_log] or ["No commits."]


_BODIES: dict[Section, Callable[[ReportData, str | None, dict[str, str], int | None], list[str]]] = {
    Section.SUMMARY: _summary,
    Section.TIMELINE: _timeline,
    Section.ROOFLINE: _roofline,
    Section.EVIDENCE: _evidence,
    Section.FAILURES: _failures,
    Section.MEMORY: _memory,
    Section.GIT: _git,
}
