"""What a tuning session leaves beside its record for a reader: ``candidates.csv``, one writer for every way a
session runs (``kernelopt tune``, the loop's Stage 3, the MCP ``tune`` tool), and the candidates as the session's
plot and table take them.

Before this module ``kernelopt tune`` alone wrote the table (newuser18's n119); the loop's sessions and the MCP tool
left ``record.jsonl`` only (claims21 w7). The table's columns list the ``SHAPES`` entries as reference.py lists them
(:meth:`~kernelopt.tuning.folder.PreparedFolder.in_user_order`, claims21 w8)."""

from __future__ import annotations

from pathlib import Path

from kernelopt.fileio import atomic_write_text
from kernelopt.report.search_plot import SearchPoint
from kernelopt.report.session_csv import session_csv, table_file
from kernelopt.tuning.candidate import Config
from kernelopt.tuning.folder import FolderTuning


def session_points(tuning: FolderTuning) -> list[SearchPoint]:
    """The session's candidates in the order evaluated, as its plot and its table take them."""
    r = tuning.result
    retimed = {Config.of(x.config): x.latency_us for x in r.retimed if x.outcome.ok}
    return [
        SearchPoint(
            evaluation=i,
            latency_us=x.latency_us,
            outcome=x.outcome.value,
            recorded=x.recorded,
            by_shape=x.latency_us_by_shape,
            cut=x.cut_slow,
            config=dict(x.config),
            retimed_us=retimed.get(Config.of(x.config)),
            reason=x.reason,
        )
        for i, x in enumerate(r.results, start=1)
    ]


def write_table(tuning: FolderTuning, *, version: str | None = None) -> Path:
    """``candidates.csv`` in the session folder (:mod:`kernelopt.report.session_csv`), its entries' columns in
    reference.py's order; the path written. ``version`` (the loop's ``v2``) names the file for the version
    (``candidates_v2.csv``), so each version's table survives the next version's session in the same folder."""
    points = session_points(tuning)
    entries = tuning.prepared.in_user_order(dict.fromkeys(label for p in points for label in p.by_shape))
    path = tuning.prepared.session_dir / table_file(version)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, session_csv(points, entries=entries))
    return path
