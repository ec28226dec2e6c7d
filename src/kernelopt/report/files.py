"""Where a report may be written, and which files are reports: one rule for ``kernelopt report --markdown /
--html`` and the MCP server's ``report(markdown=, html=)`` (the rule itself: :mod:`kernelopt.destination`).

A report is a ``.md`` (``.markdown``) or ``.html`` (``.htm``) file outside every workspace; it replaces only an
earlier report (its title begins with :data:`~kernelopt.report.model.REPORT_TITLE`); the version timeline as CSV is
a ``.csv`` file there, replacing only an earlier timeline (its header's first columns). The plots a Markdown
report links are written beside it (``<stem>.roofline.png``, ``<stem>.v<N>.search.png``) and replace only a PNG.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from kernelopt.destination import FileKind, output_file
from kernelopt.errors import UsageError
from kernelopt.report.model import REPORT_TITLE
from kernelopt.report.timeline_csv import CSV_COLUMNS

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
"""The first 8 bytes of every PNG file (the PNG specification, section 5.2)."""


class ReportFormat(StrEnum):
    MARKDOWN = "markdown"
    HTML = "html"
    CSV = "csv"


def _markdown_report(head: str) -> bool:
    return head.startswith(f"# {REPORT_TITLE}")


def _html_report(head: str) -> bool:
    return head.lstrip().lower().startswith("<!doctype html>") and f"<title>{REPORT_TITLE}" in head


def _timeline_csv(head: str) -> bool:
    return head.startswith(",".join(CSV_COLUMNS[:3]))


KINDS = {
    ReportFormat.MARKDOWN: FileKind("report", (".md", ".markdown"), _markdown_report),
    ReportFormat.HTML: FileKind("report", (".html", ".htm"), _html_report),
    ReportFormat.CSV: FileKind("timeline", (".csv",), _timeline_csv),
}


def report_file(path: str | Path, what: str, fmt: ReportFormat, *, given: str | Path | None = None) -> Path:
    """``path`` resolved, when a ``fmt`` report may be written there (:func:`kernelopt.destination.output_file`).

    Args:
        what: the caller's name for it (``--markdown``; ``markdown`` through MCP).
        given: the path as the caller gave it, when ``path`` is already resolved (quoted in a refusal).

    Raises:
        UsageError: not a ``fmt`` name, in a workspace, a folder, or an existing file that is not a report.
    """
    return output_file(path, what, KINDS[fmt], given=given)


def check_plot_file(png: Path) -> None:
    """Refuse writing a report's plot over an existing file that is not a PNG.

    Raises:
        UsageError: ``png`` exists and is a folder or another kind of file.
    """
    if not png.exists() and not png.is_symlink():
        return
    try:
        with png.open("rb") as f:
            ours = f.read(len(PNG_SIGNATURE)) == PNG_SIGNATURE
    except OSError:
        ours = False
    if not ours:
        raise UsageError(
            f"{png} exists and is not a PNG: the report's plot goes there; move it away or name the report otherwise"
        )
