"""Phase events a worker reports while it runs, and the watchdog that turns them into timeouts.

The worker appends one JSON object per line to its progress file: ``{"t": <time.monotonic()>,
"event": "phase", "phase": "case", "case": 1, "label": "n=1000"}``, ``{"event": "compile_start"}``,
``{"event": "compile_end"}``, ``{"event": "check_start"}``, ``{"event": "check_end"}``,
``{"event": "step", "step": "reference"}`` (what a case or timing phase is doing from then on: :class:`Step`);
the orchestrator appends ``{"event": "killed"}`` when it kills the worker (the open phase counts as work up to
then).
``time.monotonic`` is the system-wide CLOCK_MONOTONIC on Linux, so the
orchestrator compares the worker's stamps with its own clock.

The :class:`Watchdog` is pure: it is fed events and asked, at a given time, whether a limit has been
exceeded. Limits (see :mod:`kernelopt.harness.settings`):

- start-up (Python + torch import, before the first ``load``): ``startup_s``;
- ``load`` (importing kernel.py / reference.py, building extensions): ``compile_s``;
- any single JIT compilation (between ``compile_start`` and ``compile_end``): ``compile_s``;
- the checker's own work in a case (between ``check_start`` and ``check_end``: building the inputs, running
  the reference, comparing the outputs): ``check_s``, a generous bound of its own, said as the checker's;
- a ``case`` or ``bench`` phase, compile and check time excluded: ``case_s`` (the kernel's own run). A correctness
  check's seeds are test cases of their own (each its own inputs, as KernelBench's correctness trials are): the
  worker opens the phase again at each seed after the first (``{"event": "phase", "phase": "case", "seed": 1}``), so
  each seed's call has the whole per-case limit, and the run limit bounds them together;
- all ``case`` and ``bench`` phases together, compile and check time excluded: ``run_s``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO


class Phase(StrEnum):
    STARTUP = "startup"
    REFERENCE = "reference"
    """Importing reference.py: under the start-up limit (it defines the problem, nothing is compiled)."""
    LOAD = "load"
    CASE = "case"
    BENCH = "bench"
    DONE = "done"


class Step(StrEnum):
    """What a ``case`` or ``bench`` phase is doing, from its ``step`` event to the next step or phase: where a
    problem's seconds go (the batch's per-phase seconds), and whose code a run killed there was in."""

    INPUTS = "inputs"
    """``get_inputs()``: building a seed's (or the timing's) inputs."""
    REFERENCE = "reference"
    """The reference's run: in its own dtype and in float64 for the check; its warm-up before the timing."""
    KERNEL = "kernel"
    """The kernel's run in the check: its compilation and its call."""
    CHECK = "check"
    """The checker's own work around the kernel's run: the inputs' copy, the poisoned memory, the comparison."""
    TIMING = "timing"
    """The kernel's warm-up and the interleaved samples of the kernel and the reference."""


#: Steps that run the problem's own code (reference.py): a run killed there is the problem's fault.
PROBLEM_STEPS = frozenset({Step.INPUTS, Step.REFERENCE})
#: How :meth:`Watchdog.where` says a step of the problem's own code (a kill elsewhere is the kernel's, as before).
STEP_WORDS = {
    Step.INPUTS: "building the inputs (reference.py get_inputs)",
    Step.REFERENCE: "running the reference (reference.py)",
}


#: Our choice: the checker's own work in a case (the reference in float64, the comparison) is bounded at this
#: many times the per-case limit: generous, since a slow check is no fault of the kernel's, yet finite.
CHECK_LIMIT_FACTOR = 10.0


class LimitKind(StrEnum):
    STARTUP = "startup"
    COMPILE = "compile"
    CASE = "case"
    RUN = "run"
    CHECK = "check"


class ProgressWriter:
    """Appends events to the progress file (used inside the worker; line-buffered, flushed each event)."""

    def __init__(self, path: Path, clock: Any) -> None:
        self._fh: TextIO = open(path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115 (lives with the worker)
        self._clock = clock

    def emit(self, event: str, **fields: Any) -> None:
        self._fh.write(json.dumps({"t": self._clock(), "event": event, **fields}) + "\n")
        self._fh.flush()

    def phase(self, phase: Phase, **fields: Any) -> None:
        self.emit("phase", phase=phase.value, **fields)

    def close(self) -> None:
        self._fh.close()


class ProgressReader:
    """Reads complete new lines of a growing progress file (orchestrator side)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = b""

    def new_events(self) -> list[dict[str, Any]]:
        """Events appended since the last call (a half-written last line waits for the next call)."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        self._offset += len(chunk)
        data = self._partial + chunk
        lines = data.split(b"\n")
        self._partial = lines.pop()
        events = []
        for line in lines:
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line the user's code wrote into our file descriptor; not ours
            if isinstance(obj, dict) and "event" in obj and isinstance(obj.get("t"), int | float):
                events.append(obj)
        return events


@dataclass(frozen=True)
class Limits:
    """The limits, seconds (``check_s``: the checker's work in one case, unbounded unless given)."""

    startup_s: float
    compile_s: float
    case_s: float
    run_s: float
    check_s: float = math.inf


@dataclass(frozen=True)
class Timeout:
    """A limit that was exceeded.

    Attributes:
        kind: which limit.
        message: one line for the report (``case 1 (n=1000) ran past TEST_TIMEOUT_SEC=30 s ...``).
        case: the case index, when in one.
        label: its label.
    """

    kind: LimitKind
    message: str
    case: int | None = None
    label: str | None = None


@dataclass
class Watchdog:
    """Tracks the worker's phases and says when a limit is exceeded (pure: time is passed in).

    Args:
        limits: the limits.
        started_at: ``time.monotonic()`` when the worker process was started.
    """

    limits: Limits
    started_at: float
    phase: Phase = Phase.STARTUP
    phase_since: float = 0.0
    case: int | None = None
    label: str | None = None
    version: str | None = None
    seed: int | None = None  # a correctness check's seed after the first: a test case of its own, on its own clock
    compile_since: float | None = None
    compile_in_phase_s: float = 0.0
    run_used_s: float = 0.0
    compile_total_s: float = 0.0
    check_since: float | None = None
    check_in_phase_s: float = 0.0
    check_total_s: float = 0.0
    killed: bool = False
    step: Step | None = None
    step_since: float = 0.0
    step_s: dict[Step, float] = field(default_factory=dict)
    phase_s: dict[Phase, float] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.phase_since = self.started_at

    def _close_phase(self, t: float) -> None:
        self.phase_s[self.phase] = self.phase_s.get(self.phase, 0.0) + max(0.0, t - self.phase_since)
        self._close_step(t)
        if self.compile_since is not None:
            spent = max(0.0, t - self.compile_since)
            self.compile_in_phase_s += spent
            self.compile_total_s += spent
            self.compile_since = None
        self._end_check(t)
        if self.phase in (Phase.CASE, Phase.BENCH):
            self.run_used_s += max(0.0, t - self.phase_since - self.compile_in_phase_s - self.check_in_phase_s)

    def _close_step(self, t: float) -> None:
        if self.step is not None:
            self.step_s[self.step] = self.step_s.get(self.step, 0.0) + max(0.0, t - self.step_since)
            self.step = None

    @property
    def in_problem_code(self) -> bool:
        """The worker is in the problem's own code (its inputs or its reference): a kill here is the problem's."""
        return self.step in PROBLEM_STEPS

    def _end_check(self, t: float) -> None:
        if self.check_since is not None:
            spent = max(0.0, t - self.check_since)
            self.check_in_phase_s += spent
            self.check_total_s += spent
            self.check_since = None

    @property
    def work_s(self) -> float:
        """Seconds of correctness and timing work: the kernel's runs (:attr:`run_used_s`) and the checker's."""
        return self.run_used_s + self.check_total_s

    def feed(self, event: dict[str, Any]) -> None:
        """Apply one event from the worker."""
        self.events.append(event)
        t = float(event["t"])
        kind = event.get("event")
        if kind == "phase":
            self._close_phase(t)
            try:
                self.phase = Phase(str(event.get("phase")))
            except ValueError:
                return
            self.phase_since = t
            self.compile_in_phase_s = 0.0
            self.check_in_phase_s = 0.0
            case = event.get("case")
            self.case = case if isinstance(case, int) else None
            self.label = event.get("label") if isinstance(event.get("label"), str) else None
            self.version = event.get("version") if isinstance(event.get("version"), str) else None
            seed = event.get("seed")
            self.seed = seed if isinstance(seed, int) and seed > 0 else None
        elif kind == "compile_start" and self.compile_since is None:
            self.compile_since = t
        elif kind == "compile_end" and self.compile_since is not None:
            spent = max(0.0, t - self.compile_since)
            self.compile_in_phase_s += spent
            self.compile_total_s += spent
            self.compile_since = None
        elif kind == "step":
            self._close_step(t)
            try:
                self.step = Step(str(event.get("step")))
            except ValueError:
                return
            self.step_since = t
        elif kind == "check_start" and self.check_since is None:
            self.check_since = t
        elif kind == "check_end":
            self._end_check(t)
        elif kind == "killed":
            # the orchestrator killed the worker: the open phase is work up to the kill, then nothing runs
            self._close_phase(t)
            self.phase = Phase.DONE
            self.phase_since = t
            self.killed = True

    def where(self) -> str:
        """``case 1 (n=1000)``, ``loading kernel.py``, ... for messages."""
        if self.phase in (Phase.CASE, Phase.BENCH) and self.case is not None:
            what = "timing of case" if self.phase is Phase.BENCH else "case"
            ver = f" [{self.version}]" if self.version else ""
            seed = f", seed {self.seed}" if self.seed else ""
            step = f", {STEP_WORDS[self.step]}" if self.step in STEP_WORDS else ""
            return f"{what} {self.case} ({self.label or 'default'}){seed}{ver}{step}"
        if self.phase is Phase.REFERENCE:
            return "importing reference.py"
        if self.phase is Phase.LOAD:
            return "loading kernel.py"
        if self.phase is Phase.STARTUP:
            return "worker start-up"
        return self.phase.value

    def _check_past(self, check_s: float) -> str:
        """What a check past its limit says: where the problem's own code (its inputs, its reference) had not
        returned, that it did not finish and that the kernel was not judged (a hang is no size to lower: seen21
        u24); else the checker's work, too large to check here."""
        limit = f"the checker's limit of {check_s:g} s ({CHECK_LIMIT_FACTOR:g} x TEST_TIMEOUT_SEC)"
        if self.in_problem_code:
            return (
                f"{self.where()}: it did not finish within {limit}: reference.py hangs there, or is far too slow at "
                "this size; the kernel was not judged"
            )
        return (
            f"{self.where()}: the checker (the reference's run and the comparison of the outputs, not the kernel) ran "
            f"past {limit}; the problem is too large to check here (lower its size, or raise TEST_TIMEOUT_SEC)"
        )

    def check(self, now: float) -> Timeout | None:
        """The exceeded limit at time ``now``, or ``None``."""
        lim = self.limits
        if self.compile_since is not None and now - self.compile_since > lim.compile_s:
            return Timeout(
                LimitKind.COMPILE,
                f"{self.where()}: JIT compilation ran past the compile limit of {lim.compile_s:g} s "
                "(KERNELOPT_COMPILE_TIMEOUT_S)",
                self.case,
                self.label,
            )
        elapsed = now - self.phase_since
        if self.phase is Phase.STARTUP and elapsed > lim.startup_s:
            return Timeout(
                LimitKind.STARTUP,
                f"the worker did not start within {lim.startup_s:g} s (KERNELOPT_STARTUP_TIMEOUT_S)",
            )
        if self.phase is Phase.REFERENCE and elapsed > lim.startup_s:
            return Timeout(
                LimitKind.STARTUP,
                f"importing reference.py ran past {lim.startup_s:g} s (KERNELOPT_STARTUP_TIMEOUT_S): it hangs at "
                "import, or its module-level code is far too slow",
            )
        if self.phase is Phase.LOAD and elapsed > lim.compile_s:
            return Timeout(
                LimitKind.COMPILE,
                f"loading kernel.py (import and compilation) ran past the compile limit of {lim.compile_s:g} s "
                "(KERNELOPT_COMPILE_TIMEOUT_S)",
            )
        if self.check_since is not None and now - self.check_since > lim.check_s:
            return Timeout(LimitKind.CHECK, self._check_past(lim.check_s), self.case, self.label)
        if self.phase in (Phase.CASE, Phase.BENCH):
            in_compile = now - self.compile_since if self.compile_since is not None else 0.0
            in_check = now - self.check_since if self.check_since is not None else 0.0
            active = elapsed - self.compile_in_phase_s - in_compile - self.check_in_phase_s - in_check
            if active > lim.case_s:
                return Timeout(
                    LimitKind.CASE,
                    f"{self.where()} ran past the per-case limit of {lim.case_s:g} s (TEST_TIMEOUT_SEC); "
                    f"{'reference.py' if self.in_problem_code else 'the kernel'} hangs or is far too slow",
                    self.case,
                    self.label,
                )
            if self.run_used_s + active > lim.run_s:
                return Timeout(
                    LimitKind.RUN,
                    f"the run ran past its limit of {lim.run_s:g} s (KERNELOPT_RUN_TIMEOUT_S) in {self.where()}",
                    self.case,
                    self.label,
                )
        return None
