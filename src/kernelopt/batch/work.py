"""The seconds a problem's workers spent on the work itself: the ``work_s`` of a batch row.

Read from the progress files the gate's check and bench runs leave in the workspace
(``.kernelopt/runs/<utc>-<mode>-<hex>/progress.jsonl``), replayed through the harness's own
:class:`~kernelopt.harness.progress.Watchdog`: its run time is the time spent in the correctness
(``case``) and timing (``bench``) phases with JIT-compile pauses taken out, the same figure its run limit
counts, plus the checker's own work (the reference's run and the comparison, paused out of the case clock
but work all the same). A phase the kill cut short counts up to the kill (issue 34: a timed-out row's 30 s
are work, not overhead). The rest of a row's ``duration_s`` is overhead: process start, imports, CUDA
start, loading and compiling the kernel, the workspace and the gate's own work. Both batch paths leave the
same files, so the figure means the same for both.
"""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path

from kernelopt.harness.model import JobMode
from kernelopt.harness.progress import Limits, Phase, ProgressReader, Watchdog

#: The folder-name stamp of :func:`kernelopt.harness.runner.new_run_dir`.
STAMP_FORMAT = "%Y%m%dT%H%M%S%f"
_NO_LIMITS = Limits(startup_s=math.inf, compile_s=math.inf, case_s=math.inf, run_s=math.inf)


def run_work_s(progress_path: Path, *, killed_at: float | None = None) -> float | None:
    """Seconds of correctness and timing work in one run's progress file (``None``: no events): the kernel's
    runs and the checker's work, JIT-compile pauses taken out.

    A run killed inside a phase counts as work up to the kill: the ``killed`` event the gate's runner appends,
    or ``killed_at`` (``time.monotonic()``) when the whole process was killed before it could."""
    events = ProgressReader(progress_path).new_events()
    if not events:
        return None
    dog = Watchdog(limits=_NO_LIMITS, started_at=float(events[0]["t"]))
    for event in events:
        dog.feed(event)
    if killed_at is not None and dog.phase is not Phase.DONE:
        dog.feed({"t": killed_at, "event": "killed"})
    return dog.work_s


def work_seconds(state_dir: Path, since: datetime, *, killed_at: float | None = None) -> float | None:
    """The work seconds of the check and bench runs under ``state_dir`` started at or after ``since``
    (UTC), summed; ``None`` when there is none. ``killed_at``: the problem was killed then (a run still in a
    phase counts up to it)."""
    runs = Path(state_dir) / "runs"
    if not runs.is_dir():
        return None
    first = since.strftime(STAMP_FORMAT)
    modes = {JobMode.CHECK.value, JobMode.BENCH.value}
    total: float | None = None
    for run in sorted(runs.iterdir()):
        stamp, _, rest = run.name.partition("-")
        if stamp < first or rest.rpartition("-")[0] not in modes:
            continue
        seconds = run_work_s(run / "progress.jsonl", killed_at=killed_at)
        if seconds is not None:
            total = (total or 0.0) + seconds
    return None if total is None else round(total, 3)
