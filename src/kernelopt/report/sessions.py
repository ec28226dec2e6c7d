"""The search plot of each version's tuning session, from its memory record (issue 32, item 3).

`kernelopt tune` draws its session as ``search.png`` (:mod:`kernelopt.report.search_plot`); a session that ran
inside the loop left only its candidates in ``memory/v<N>.json``, and the report drew none. Here each version
with candidates becomes the same plot: the candidates in the order evaluated, each ``SHAPES`` entry's own
latencies as a series of its own (``CandidateResult.latency_us_by_shape``), the current configuration's latency
as the dotted line. Pure but for matplotlib, imported by :func:`~kernelopt.report.search_plot.search_plot` when a
plot is drawn.
"""

from __future__ import annotations

from kernelopt.errors import EnvironmentProblem
from kernelopt.memory.model import CandidateStatus, IterationRecord
from kernelopt.report.model import ReportData, VersionEntry
from kernelopt.report.search_plot import OK, SearchPoint, search_plot

__all__ = ["search_points", "session_plots"]

#: The record's statuses as the plot's outcome words (its markers and legend).
_OUTCOME = {
    CandidateStatus.OK: OK,
    CandidateStatus.WRONG_RESULT: "wrong_result",
    CandidateStatus.COMPILE_FAILED: "compile_error",
    CandidateStatus.CRASHED: "worker_crash",
    CandidateStatus.TIMEOUT: "run_timeout",
    CandidateStatus.REFUSED: "invalid",
    CandidateStatus.NOT_TIMED: "not_timed",
}


def search_points(record: IterationRecord) -> list[SearchPoint]:
    """The record's candidates as the plot's points, in the order the session evaluated them."""
    return [
        SearchPoint(
            evaluation=n,
            latency_us=c.latency_us,
            outcome=_OUTCOME.get(c.status, c.status.value),
            recorded=c.served,
            by_shape=dict(c.latency_us_by_shape),
            cut=c.cut,
        )
        for n, c in enumerate(record.candidates, start=1)
    ]


def session_title(data: ReportData, v: VersionEntry) -> str:
    """The title of a version's search plot: the session's candidates, its ``SHAPES`` entries, and how many of them
    were served from the session record (timed by an earlier session, not measured in this one)."""
    candidates = v.record.candidates
    shapes = len({label for c in candidates for label in c.latency_us_by_shape})
    across = f", {shapes} SHAPES entries" if shapes > 1 else ""
    served = sum(1 for c in candidates if c.served)
    from_record = f"\n{served} of them from the session record, timed before" if served else ""
    where = _timed_on(data, v)
    on = f", timed on {where}" if where is not None else ""
    return f"{data.name} {v.label}: tuning session, {len(candidates)} candidates{across}{on}{from_record}"


def _timed_on(data: ReportData, v: VersionEntry) -> str | None:
    """Where version ``v``'s session timed its candidates, for the plot read alone (newuser18's n113: a session of
    Triton's interpreter, its latencies in milliseconds, said nothing of the CPU): the device its gate timed on, else
    the one device every version was timed on; ``None`` when neither is known."""
    name = v.record.performance.gpu
    if name is None and len(data.measured_on) == 1:
        name = data.measured_on[0].name
    if name is None:
        return None
    cpu = name.strip().lower() == "cpu"
    return f"{name} (Triton's interpreter)" if cpu and (data.framework or "").lower() == "triton" else name


def session_plots(data: ReportData) -> tuple[dict[str, bytes], str | None]:
    """Version label (``V1``) -> the PNG of its tuning session, for every version whose record holds one; and
    why there are none when matplotlib is missing."""
    out: dict[str, bytes] = {}
    for v in data.versions:
        if len(v.record.candidates) < 2:
            continue  # one candidate (or none) is no search
        current = next((c.latency_us for c in v.record.candidates if c.current), None)
        title = session_title(data, v)
        try:
            out[v.label] = search_plot(search_points(v.record), title=title, current_latency_us=current)
        except EnvironmentProblem as exc:
            return {}, exc.one_line()
    return out, None
