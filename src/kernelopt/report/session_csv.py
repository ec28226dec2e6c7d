"""A tuning session's candidates as CSV, for the tools a user opens a table with (a spreadsheet, pandas): one row per
candidate in the order the session evaluated it, its configuration one column a knob, its latency (the sum over the
``SHAPES`` entries timed) and each entry's own, its re-timed latency where the session re-timed it (what the pick
was made on), and whether it was served from the session record or cut (a lower bound). ``kernelopt tune`` writes it
as ``candidates.csv`` beside ``search.png`` (newuser18's n119: the session's figures were in ``record.jsonl`` alone,
each candidate a nested JSON object with its raw samples). Pure: no I/O."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from kernelopt.report.search_plot import SearchPoint
from kernelopt.report.timeline_csv import cell

#: The file's name in the session folder.
TABLE_FILE = "candidates.csv"


def table_file(version: str | None = None) -> str:
    """The table's file name: :data:`TABLE_FILE` for ``kernelopt tune`` and the MCP tool, ``candidates_v2.csv`` for
    the loop's session of version ``v2`` (late26 z41: the versions of one kernel.py tune in one session folder, so
    one name let V2's table rewrite the one V1's progress line named)."""
    return TABLE_FILE if version is None else f"candidates_{version}.csv"


def session_csv(points: Sequence[SearchPoint], *, entries: Sequence[str] | None = None) -> str:
    """The candidates of one session as CSV text: ``evaluation``, a column per knob (in the order the knobs first
    appear), ``outcome``, ``latency_us``, ``latency_us <entry>`` per ``SHAPES`` entry (in the order ``entries``
    gives, reference.py's; else as the candidates first hold them), ``retimed_latency_us``, ``from_record``,
    ``cut_lower_bound``, ``reason``; empty where a figure is not known."""
    knobs = list(dict.fromkeys(k for p in points for k in p.config))
    entries = list(entries) if entries is not None else list(dict.fromkeys(lb for p in points for lb in p.by_shape))
    if len(entries) < 2:  # one entry's latency is the latency column itself
        entries = []
    head = [
        "evaluation",
        *knobs,
        "outcome",
        "latency_us",
        *(f"latency_us {label}" for label in entries),
        "retimed_latency_us",
        "from_record",
        "cut_lower_bound",
        "reason",
    ]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(head)
    for p in points:
        by_entry = [p.by_shape.get(label) for label in entries]
        row = [p.evaluation, *(p.config.get(k) for k in knobs), p.outcome, p.latency_us, *by_entry, p.retimed_us]
        writer.writerow([cell(x) for x in (*row, p.recorded, p.cut, p.reason)])
    return buf.getvalue()
