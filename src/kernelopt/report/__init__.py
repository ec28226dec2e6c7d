"""Reports of a finished (or running) workspace: Markdown, one self-contained HTML page, a roofline plot.

The entry points read the workspace once (:func:`~kernelopt.report.reader.collect`) and render with
the pure modules: :mod:`~kernelopt.report.markdown`, :mod:`~kernelopt.report.html`,
:mod:`~kernelopt.report.roofline` (matplotlib, imported only when a plot is drawn).
:mod:`~kernelopt.report.baseline` renders ``baseline_report.md`` for the loop's V0.
"""

from __future__ import annotations

from pathlib import Path

from kernelopt.errors import EnvironmentProblem, write_refusal
from kernelopt.fileio import atomic_write_text
from kernelopt.report.files import ReportFormat, check_plot_file, report_file
from kernelopt.report.html import html_report
from kernelopt.report.markdown import markdown_report
from kernelopt.report.model import ReportData
from kernelopt.report.reader import NOT_GIVEN, Ceilings, NotGiven, collect
from kernelopt.report.roofline import roofline_plot, roofline_points
from kernelopt.report.sections import plot_title
from kernelopt.report.sessions import session_plots
from kernelopt.report.timeline_csv import timeline_csv
from kernelopt.workspace import Workspace

__all__ = [
    "ReportData",
    "collect",
    "plot",
    "render_html",
    "render_markdown",
    "roofline_plot",
    "write_reports",
]


def plot(data: ReportData, *, image_format: str = "png") -> bytes:
    """The roofline + latency figure of ``data`` (PNG bytes by default, or SVG)."""
    return roofline_plot(
        roofline_points(data),
        data.ceilings,
        title=plot_title(data),
        image_format=image_format,
    )


def render_markdown(
    ws: Workspace, *, plot_href: str | None = None, measured: Ceilings | NotGiven | None = NOT_GIVEN
) -> str:
    """The Markdown report of ``ws`` (``plot_href``: where the roofline image is, when written)."""
    data = collect(ws, measured=measured)
    return markdown_report(data, plot_href=plot_href)


def render_html(ws: Workspace, *, measured: Ceilings | NotGiven | None = NOT_GIVEN) -> str:
    """The report of ``ws`` as one self-contained HTML page with the roofline plot embedded."""
    data = collect(ws, measured=measured)
    image, missing = _plot_or_reason(data)
    return html_report(data, image=image, image_format="png", image_missing=missing)


def _plot_or_reason(data: ReportData) -> tuple[bytes | None, str | None]:
    try:
        return plot(data), None
    except EnvironmentProblem as exc:
        return None, exc.one_line()


def _write_image(png: Path, image: bytes) -> None:
    png.parent.mkdir(parents=True, exist_ok=True)
    tmp = png.with_name(f".{png.name}.tmp")
    tmp.write_bytes(image)
    tmp.replace(png)


REPORT_HINT = "name a file in a folder this user can write, on a disk with space"
"""The fix a disk error writing a report (or a plot beside it) names: the report's own path, never the workspace
(the generic "copy the workspace ... or pass --root" was the wrong fix, and `report` has no --root)."""


def write_reports(
    data: ReportData, *, markdown: Path | None = None, html: Path | None = None, csv: Path | None = None
) -> dict[str, Path]:
    """Write the reports of ``data`` atomically; returns what was written by kind (:func:`_write_reports`).

    Raises:
        UsageError: a path where no report (or plot) may be written; nothing is written then.
        DiskProblem: the file system refused a write (full, read-only, no permission), naming the report's path.
    """
    try:
        return _write_reports(data, markdown=markdown, html=html, csv=csv)
    except OSError as exc:
        problem = write_refusal(exc, hint=REPORT_HINT)
        if problem is None:
            raise
        raise problem from None


def _write_reports(
    data: ReportData, *, markdown: Path | None = None, html: Path | None = None, csv: Path | None = None
) -> dict[str, Path]:
    """Write the reports of ``data`` atomically; returns what was written by kind.

    The Markdown report gets its plot as ``<name>.roofline.png`` beside it, linked relatively, and each
    version's tuning session as ``<name>.v<N>.search.png``; the HTML report embeds them. Without matplotlib
    the reports are written without the plots and say so. Every path is checked before anything is written
    (:mod:`kernelopt.report.files`; the caller checks its own first, to refuse in its own words).

    Raises:
        UsageError: a path where no report (or plot) may be written; nothing is written then.
    """
    written: dict[str, Path] = {}
    if markdown is not None:
        markdown = report_file(markdown, "markdown", ReportFormat.MARKDOWN)
    if html is not None:
        html = report_file(html, "html", ReportFormat.HTML)
    if csv is not None:
        csv = report_file(csv, "csv", ReportFormat.CSV)
    image, missing = _plot_or_reason(data) if (markdown or html) else (None, None)
    searches, _ = session_plots(data) if (markdown or html) else ({}, None)
    if markdown is not None:
        png = markdown.with_name(markdown.stem + ".roofline.png") if image is not None else None
        search_pngs = {label: markdown.with_name(f"{markdown.stem}.{label.lower()}.search.png") for label in searches}
        for plot_png in (png, *search_pngs.values()):
            if plot_png is not None:
                check_plot_file(plot_png)
        href = None
        if png is not None and image is not None:
            _write_image(png, image)
            written["plot"], href = png, png.name
        hrefs = {}
        for label, search in searches.items():  # each version's tuning session, beside the report
            _write_image(search_pngs[label], search)
            written[f"search {label}"], hrefs[label] = search_pngs[label], search_pngs[label].name
        text = markdown_report(data, plot_href=href, search_hrefs=hrefs)
        if missing:
            text = text.replace("## Roofline\n", f"## Roofline\n\nNo plot: {missing}.\n", 1)
        atomic_write_text(markdown, text)
        written["markdown"] = markdown
    if html is not None:
        page = html_report(data, image=image, image_format="png", image_missing=missing, search_images=searches)
        atomic_write_text(html, page)
        written["html"] = html
    if csv is not None:  # the version timeline, for a spreadsheet or pandas
        atomic_write_text(csv, timeline_csv(data))
        written["csv"] = csv
    for path in written.values():
        path.chmod(0o644)  # reports are for reading and sharing (the atomic temp file is 0600)
    return written
