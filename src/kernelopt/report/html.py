"""The HTML report (pure): one self-contained page with inline CSS and the roofline plot embedded.

Nothing is fetched when the page is opened: no external stylesheet, script, font or image; the plot
is a base64 ``data:`` URI (PNG) or inline SVG. Every text from the workspace is HTML-escaped.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from html import escape

from kernelopt.report import cells, sections
from kernelopt.report.model import REPORT_TITLE, ReportData

CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 2rem auto;
       max-width: 1280px; padding: 0 1.5rem; color: #1c2833; line-height: 1.45; }
h1 { font-size: 1.6rem; border-bottom: 2px solid #d5d8dc; padding-bottom: .3rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #e5e8e8; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
p.meta { color: #566573; font-size: .92rem; }
table { border-collapse: collapse; font-size: .86rem; margin: .5rem 0 1rem; }
th, td { border: 1px solid #d5d8dc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f6f7; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.fail td { background: #fdedec; }
tr.masked td { color: #909497; }
.badge { display: inline-block; padding: 0 .4rem; border-radius: .3rem; font-size: .8rem; font-weight: 600; }
.PASS { background: #d4efdf; color: #1e8449; }
.FAIL, .TIMEOUT_FAIL { background: #fadbd8; color: #922b21; }
.none { background: #eaecee; color: #566573; }
.story { border-left: 3px solid #d5d8dc; padding-left: .8rem; margin-bottom: 1rem; }
.story.fail { border-left-color: #e74c3c; }
.story ul { margin: .2rem 0; padding-left: 1.1rem; }
.story li { margin: .1rem 0; }
.k { font-weight: 600; color: #2e4053; font-size: .9rem; margin-top: .3rem; }
img.plot { max-width: 100%; border: 1px solid #e5e8e8; }
code { background: #f4f6f7; padding: 0 .2rem; border-radius: .2rem; font-size: .85em; }
ul.log { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .82rem; list-style: none; padding: 0; }
"""


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def inline(text: str) -> str:
    """``text`` HTML-escaped, with Markdown code spans (```kernelopt report WS```) as ``<code>``: the texts
    the Markdown report shares with this page carry backticks, which must not show raw."""
    return _CODE_SPAN.sub(r"<code>\1</code>", escape(text))


def _badge(status: str) -> str:
    gate = status.split(",")[0]
    cls = gate if gate in ("PASS", "FAIL", "TIMEOUT_FAIL") else "none"
    return f'<span class="badge {cls}">{escape(status)}</span>'


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]], *, row_classes: Sequence[str] = ()) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        cls = row_classes[i] if i < len(row_classes) else ""
        tds = []
        for col, cell in zip(columns, row, strict=True):
            if col in ("status", "gate"):
                tds.append(f"<td>{_badge(cell)}</td>")
            elif col in sections.NUMERIC_COLUMNS:
                tds.append(f'<td class="num">{escape(cell)}</td>')
            else:
                tds.append(f"<td>{inline(cell)}</td>")
        body.append(f'<tr class="{cls}">' + "".join(tds) + "</tr>" if cls else "<tr>" + "".join(tds) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _image(image: bytes | None, image_format: str, missing: str | None) -> str:
    if image is None:
        return f"<p>No plot: {escape(missing or 'not drawn')}.</p>"
    if image_format == "svg":
        text = image.decode("utf-8")
        start = text.find("<svg")
        return f'<div class="plot">{text[start:] if start >= 0 else text}</div>'
    data = base64.b64encode(image).decode("ascii")
    return f'<img class="plot" alt="Roofline and latency per version" src="data:image/png;base64,{data}">'


def html_report(
    data: ReportData,
    *,
    image: bytes | None,
    image_format: str = "png",
    image_missing: str | None = None,
    search_images: dict[str, bytes] | None = None,
) -> str:
    """The whole report as one HTML page.

    Args:
        data: what the workspace holds.
        image: the roofline plot (see :func:`kernelopt.report.roofline.roofline_plot`), or None.
        image_format: ``png`` (embedded as a data URI) or ``svg`` (inlined).
        image_missing: why there is no image, when ``image`` is None.
        search_images: version label (``V1``) -> the PNG of its tuning session's search plot
            (:func:`kernelopt.report.sessions.session_plots`), embedded under its candidates.
    """
    row_classes = ["masked" if v.record.masked else ("fail" if v.failed else "") for v in data.versions]
    card = ", ".join(f"{k} <b>{escape(cells.text(v))}</b>" for k, v in sections.card_fields(data))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{REPORT_TITLE}{escape(data.name)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{REPORT_TITLE}{escape(data.name)}</h1>",
        f'<p class="meta">Workspace <code>{escape(data.root)}</code>: {card}. Sources: memory records, plans, '
        "Stage 1 profile summaries and the workspace's git history.</p>",
        "<h2>Summary</h2><ul>",
    ]
    parts += [f"<li>{inline(line)}</li>" for line in sections.headline(data)]
    parts += [f"<li>Unreadable record {escape(u)}</li>" for u in data.unreadable]
    parts.append("</ul>")

    parts.append("<h2>Version timeline</h2>")
    if data.versions:
        parts.append(_table(sections.TIMELINE_COLUMNS, sections.timeline_rows(data), row_classes=row_classes))
        parts.append(f"<p>{inline(sections.TIMELINE_NOTE)}</p>")
    else:
        parts.append("<p>No memory records yet.</p>")

    parts += ["<h2>Roofline</h2>", _image(image, image_format, image_missing)]
    if data.ceilings:
        parts.append(_table(("roof", "value", "origin", "source"), sections.ceiling_rows(data)))
    notes = sections.ceiling_notes(data)
    if notes:
        parts.append("<ul>" + "".join(f"<li>{inline(n)}</li>" for n in notes) + "</ul>")
    points = sections.point_rows(data)
    if points:
        parts.append(_table(("version", "FLOP/byte", "TFLOP/s", "GB/s", "latency (us)"), points))

    parts.append("<h2>Evidence &rarr; action &rarr; result</h2>")
    for v, story in zip(data.versions, sections.version_stories(data), strict=True):
        cls = "story fail" if v.failed else "story"
        parts.append(f'<div class="{cls}"><h3>{inline(story.title)}</h3>')
        for key, lines in story.parts():
            parts.append(f'<div class="k">{key}</div><ul>' + "".join(f"<li>{inline(x)}</li>" for x in lines) + "</ul>")
            search = (search_images or {}).get(v.label)
            if key == "Candidates" and search is not None:
                png = base64.b64encode(search).decode("ascii")
                alt = f"{v.label}'s tuning session: each SHAPES entry's latencies and their sum"
                parts.append(f'<img class="plot" alt="{escape(alt)}" src="data:image/png;base64,{png}">')
        parts.append("</div>")

    parts.append("<h2>Failed attempts</h2>")
    failures = sections.failure_rows(data)
    parts.append(_table(("version", "action", "error", "reason"), failures) if failures else "<p>None recorded.</p>")

    parts.append("<h2>Memory summary</h2>")
    if data.versions:
        parts.append(_table(sections.MEMORY_COLUMNS, sections.memory_rows(data), row_classes=row_classes))
    else:
        parts.append("<p>No memory records yet.</p>")

    parts.append('<h2>Git history</h2><ul class="log">')
    parts += [f"<li>{escape(h)} {escape(subject)}</li>" for h, subject in data.git_log]
    parts.append("</ul></body></html>")
    return "\n".join(parts) + "\n"
