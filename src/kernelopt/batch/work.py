"""The seconds a problem's workers spent on the work itself: the ``work_s`` of a batch row, and where they
went (its ``phases``: start-up, loading, inputs, reference, kernel, check, timing).

Read from the progress files the gate's check and bench runs leave in the workspace
(``.kernelopt/runs/<utc>-<mode>-<hex>/progress.jsonl``), replayed through the harness's own
:class:`~kernelopt.harness.progress.Watchdog`: its run time is the time spent in the correctness
(``case``) and timing (``bench``) phases with JIT-compile pauses taken out, the same figure its run limit
counts, plus the checker's own work (the reference's run and the comparison, paused out of the case clock
but work all the same). A phase the kill cut short counts up to the kill (issue 34: a timed-out row's 30 s
are work, not overhead). The rest of a row's ``duration_s`` is overhead: process start, imports, CUDA
start, loading and compiling the kernel, the workspace and the gate's own work. The same replay sums each
phase of the runs (:func:`phase_seconds`) and each step of their cases from the worker's ``step`` events. Both
batch paths leave the same files, so the figures mean the same for both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kernelopt.batch.model import PhaseSeconds
from kernelopt.harness.model import JobMode
from kernelopt.harness.progress import Limits, Phase, ProgressReader, Step, Watchdog

#: The folder-name stamp of :func:`kernelopt.harness.runner.new_run_dir`.
STAMP_FORMAT = "%Y%m%dT%H%M%S%f"
_NO_LIMITS = Limits(startup_s=math.inf, compile_s=math.inf, case_s=math.inf, run_s=math.inf)


def _replayed(progress_path: Path, killed_at: float | None) -> Watchdog | None:
    """The run's progress file replayed through a :class:`Watchdog` with no limits (``None``: no events); a run
    killed inside a phase is closed at the ``killed`` event, or at ``killed_at``."""
    events = ProgressReader(progress_path).new_events()
    if not events:
        return None
    dog = Watchdog(limits=_NO_LIMITS, started_at=float(events[0]["t"]))
    for event in events:
        dog.feed(event)
    if killed_at is not None and dog.phase is not Phase.DONE:
        dog.feed({"t": killed_at, "event": "killed"})
    return dog


def run_work_s(progress_path: Path, *, killed_at: float | None = None) -> float | None:
    """Seconds of correctness and timing work in one run's progress file (``None``: no events): the kernel's
    runs and the checker's work, JIT-compile pauses taken out.

    A run killed inside a phase counts as work up to the kill: the ``killed`` event the gate's runner appends,
    or ``killed_at`` (``time.monotonic()``) when the whole process was killed before it could."""
    dog = _replayed(progress_path, killed_at)
    return None if dog is None else dog.work_s


def _runs(state_dir: Path, since: datetime, *, load: bool = False) -> list[Path]:
    """The progress files of the check and bench runs (and ``load`` runs where asked) under ``state_dir`` started at
    or after ``since``, oldest first."""
    runs = Path(state_dir) / "runs"
    if not runs.is_dir():
        return []
    first = since.strftime(STAMP_FORMAT)
    modes = {JobMode.CHECK.value, JobMode.BENCH.value} | ({JobMode.LOAD.value} if load else set())
    found = []
    for run in sorted(runs.iterdir()):
        stamp, _, rest = run.name.partition("-")
        if stamp >= first and rest.rpartition("-")[0] in modes:
            found.append(run / "progress.jsonl")
    return found


def work_seconds(state_dir: Path, since: datetime, *, killed_at: float | None = None) -> float | None:
    """The work seconds of the check and bench runs under ``state_dir`` started at or after ``since``
    (UTC), summed; ``None`` when there is none. ``killed_at``: the problem was killed then (a run still in a
    phase counts up to it)."""
    total: float | None = None
    for progress in _runs(state_dir, since):
        seconds = run_work_s(progress, killed_at=killed_at)
        if seconds is not None:
            total = (total or 0.0) + seconds
    return None if total is None else round(total, 3)


def phase_seconds(state_dir: Path, since: datetime, *, killed_at: float | None = None) -> PhaseSeconds | None:
    """Where the check and bench runs under ``state_dir`` started at or after ``since`` spent their seconds,
    phase by phase (:class:`~kernelopt.batch.model.PhaseSeconds`); ``None`` when there is no run."""
    totals: dict[str, float] = {}
    seen = False
    for progress in _runs(state_dir, since):
        dog = _replayed(progress, killed_at)
        if dog is None:
            continue
        seen = True
        parts = {
            "start_s": dog.phase_s.get(Phase.STARTUP, 0.0),
            "load_s": dog.phase_s.get(Phase.REFERENCE, 0.0) + dog.phase_s.get(Phase.LOAD, 0.0),
            **{f"{step.value}_s": dog.step_s.get(step, 0.0) for step in Step},
        }
        for name, seconds in parts.items():
            totals[name] = totals.get(name, 0.0) + seconds
    if not seen:
        return None
    return PhaseSeconds(**{name: round(seconds, 3) for name, seconds in totals.items()})


@dataclass(frozen=True)
class Killed:
    """Where a problem's run was when it was killed: ``where`` in the harness's own words (``loading kernel.py``,
    ``case 0 (default), running the kernel``), ``problems``: in the problem's own code (reference.py's import, its
    inputs, its reference), so the kill is the problem's ``ERROR``, never the kernel's."""

    where: str
    problems: bool


def killed_in(state_dir: Path, since: datetime) -> Killed | None:
    """Where the newest run under ``state_dir`` started at or after ``since`` (a load, check or bench run) was when
    it was killed or its process died; ``None`` where that run finished (or there is none). What a row cut by the
    batch's per-problem limit names, on either path: the hang's place and whose code it was in, not the limit alone
    (break22 b50)."""
    found = _runs(state_dir, since, load=True)
    if not found:
        return None
    events = [e for e in ProgressReader(found[-1]).new_events() if e.get("event") != "killed"]
    if not events:
        return None
    dog = Watchdog(limits=_NO_LIMITS, started_at=float(events[0]["t"]))
    for event in events:
        dog.feed(event)
    if dog.phase is Phase.DONE:
        return None
    return Killed(dog.where(), dog.in_problem_code or dog.phase is Phase.REFERENCE)
