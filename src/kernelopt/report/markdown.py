"""The Markdown report (pure): summary, timeline, roofline, evidence -> action -> result, failures, memory, git."""

from __future__ import annotations

from collections.abc import Sequence

from kernelopt.report import cells, sections
from kernelopt.report.model import ReportData


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A GitHub-flavoured Markdown table (pipes in cells escaped)."""
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
    out += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return out


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
        f"# kernelopt report: {data.name}",
        "",
        f"Workspace `{data.root}`: {card}.",
        "Sources: `memory/v<N>.json` (the records), `plans/v<N>_plan.md`, `profiles/v<N>/summary.json`"
        + (", `baseline_report.md`" if data.has_baseline_report else "")
        + " and the workspace's git history.",
        "",
        "## Summary",
        "",
    ]
    out += [f"- {line}" for line in sections.headline(data)]
    out += [f"- Unreadable record {u}" for u in data.unreadable]

    out += ["", "## Version timeline", ""]
    if data.versions:
        out += table(sections.TIMELINE_COLUMNS, sections.timeline_rows(data))
        out += [
            "",
            sections.TIMELINE_NOTE,
        ]
    else:
        out.append("No memory records yet.")

    out += ["", "## Roofline", ""]
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

    out += ["", "## Evidence -> action -> result", ""]
    for v, story in zip(data.versions, sections.version_stories(data), strict=True):
        out += [f"### {story.title}", ""]
        for key, lines in story.parts():
            out += [f"**{key}**", ""] + [f"- {line}" for line in lines] + [""]
            href = (search_hrefs or {}).get(v.label)
            if key == "Candidates" and href:
                out += [f"![{v.label}'s tuning session: each SHAPES entry's latencies and their sum]({href})", ""]

    out += ["## Failed attempts", ""]
    failures = sections.failure_rows(data)
    if failures:
        out += table(("version", "action", "error", "reason"), failures)
    else:
        out.append("None recorded.")

    out += ["", "## Memory summary", ""]
    if data.versions:
        out += table(sections.MEMORY_COLUMNS, sections.memory_rows(data))
    else:
        out.append("No memory records yet.")

    out += ["", "## Git history", ""]
    out += [f"- `{h}` {_escape(subject)}" for h, subject in data.git_log] or ["No commits."]
    return "\n".join(out).rstrip() + "\n"
