"""The report's version timeline as CSV, for the tools a user opens a table with (a spreadsheet, pandas): one row
per version, the figures as the records hold them (not rounded, units in the column names), each speedup with its
95 % interval and verdict where the record has them, empty where a figure is not known; ``knob_changes`` is the
record's own, as JSON (``{"BLOCK": [64, 4096]}``); a text that a spreadsheet would run as a formula is written behind
an apostrophe (:func:`cell`). ``kernelopt report WS --csv OUT`` writes it. Pure: no I/O."""

from __future__ import annotations

import csv
import io
import json

from kernelopt.report.headline import compiled_name
from kernelopt.report.model import ReportData, VersionEntry

CSV_COLUMNS = (
    "version",
    "status",
    "masked",
    "latency_us",
    "latency_ci_low_us",
    "latency_ci_high_us",
    "speedup_vs_previous",
    "speedup_vs_previous_ci_low",
    "speedup_vs_previous_ci_high",
    "verdict_vs_previous",
    "speedup_vs_v0",
    "speedup_vs_reference",
    "speedup_vs_reference_ci_low",
    "speedup_vs_reference_ci_high",
    "verdict_vs_reference",
    "reference_latency_us",
    "speedup_vs_compiled",
    "speedup_vs_compiled_ci_low",
    "speedup_vs_compiled_ci_high",
    "verdict_vs_compiled",
    "compiled_against",
    "tflops",
    "bandwidth_gbps",
    "roofline_pct",
    "timed_on",
    "action_category",
    "knob_changes",
    "action",
    "failure",
    "commit",
    "timestamp",
)
"""The columns, in order; the first three are how :mod:`kernelopt.report.files` knows a timeline it wrote."""


def _row(data: ReportData, v: VersionEntry) -> list[object]:
    r = v.record
    p = r.performance
    c = p.comparison_with_previous
    ref = p.speedup_vs_reference
    return [
        v.label,
        v.status,
        r.masked,
        p.latency_us,
        p.latency_ci_low_us,
        p.latency_ci_high_us,
        c.speedup,
        c.speedup_ci_low,
        c.speedup_ci_high,
        c.verdict,
        data.speedup(v) if not r.masked else None,
        ref.eager if ref else None,
        ref.eager_ci_low if ref else None,  # the interval every printed place gives the figure (newuser20 n142)
        ref.eager_ci_high if ref else None,
        ref.eager_verdict if ref else None,
        ref.eager_latency_us if ref else None,
        ref.compiled if ref else None,
        ref.compiled_ci_low if ref else None,
        ref.compiled_ci_high if ref else None,
        ref.compiled_verdict if ref else None,
        compiled_name(ref) if ref and ref.compiled is not None else None,  # the mode it was measured against (z62)
        p.tflops,
        p.bandwidth_gbps,
        p.roofline_utilization_pct,
        p.gpu,
        r.optimization.action_category.value if r.optimization.action_category else None,
        json.dumps(r.optimization.knob_changes) if r.optimization.knob_changes else None,
        "baseline" if r.number == 0 and r.optimization.action_category is None else r.optimization.action_description,
        r.quality_gate.failure_reason if v.failed else None,
        v.commit,
        r.timestamp.isoformat(),
    ]


def timeline_csv(data: ReportData) -> str:
    """The version timeline of ``data`` as CSV text (a header, then one row per version, oldest first)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for v in data.versions:
        writer.writerow([cell(x) for x in _row(data, v)])
    return buf.getvalue()


#: What a spreadsheet reads as the start of a formula in a cell of text (OWASP's "CSV injection" list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A cell as written: empty for no value; a text a spreadsheet would run as a formula (an action or a failure
    the implementer wrote, ``=HYPERLINK(...)``) behind an apostrophe, as OWASP advises; a number as it is."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
