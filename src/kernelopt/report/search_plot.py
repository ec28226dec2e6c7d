"""The search plot of one tuning session: best-so-far latency against evaluations, every candidate a point.

Timed candidates are blue dots at their latency, the best so far a green step line through them, the
current configuration's latency a dotted grey line, and (when a recorded sweep of the same space is given)
the sweep's best a dashed gold line: how far the session is from the exhaustive best. Candidates that did
not time (wrong result, compile error, crash, hang, out of memory, pruned) are red markers along the top
edge, one marker shape per outcome, named in the legend.

The points are the plot's own model (:class:`SearchPoint`): the command that owns a session
(``kernelopt tune``) turns its results into them, so this package does not import the engine.
:func:`search_plot` imports matplotlib (Agg backend) inside the function and returns the image bytes, as
:func:`kernelopt.report.roofline.roofline_plot` does.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from kernelopt.errors import EnvironmentProblem

OK = "ok"
#: Marker shapes for failed candidates, by outcome (others get "x").
_FAIL_MARKERS = {
    "wrong_result": "X",
    "compile_error": "s",
    "compile_timeout": "D",
    "run_error": "v",
    "run_timeout": "^",
    "out_of_memory": "P",
    "worker_crash": "*",
    "invalid": "|",
}


class SearchPoint(BaseModel):
    """One candidate of a session, in the order it was evaluated.

    Attributes:
        evaluation: its place in the session (1 = first).
        latency_us: its median latency, microseconds (``None`` unless it was timed).
        outcome: ``ok`` or why it was not timed (the engine's outcome words).
        recorded: served from the session record (a resumed session), not measured now.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    evaluation: int
    latency_us: float | None
    outcome: str
    recorded: bool = False


def best_so_far(points: Sequence[SearchPoint]) -> list[tuple[int, float]]:
    """(evaluation, best latency so far) at every timed point, in order (pure)."""
    out: list[tuple[int, float]] = []
    best: float | None = None
    for p in points:
        if p.outcome == OK and p.latency_us is not None and (best is None or p.latency_us < best):
            best = p.latency_us
        if best is not None:
            out.append((p.evaluation, best))
    return out


def search_plot(
    points: Sequence[SearchPoint],
    *,
    title: str,
    current_latency_us: float | None = None,
    sweep_best_us: float | None = None,
    image_format: str = "png",
    dpi: int = 110,
) -> bytes:
    """The search plot as image bytes (see the module docstring).

    Args:
        points: the session's candidates, in order.
        title: the plot's title (the kernel and launch).
        current_latency_us: the current configuration's latency (a dotted line), when it ran.
        sweep_best_us: the best latency of a recorded sweep of the same space (a dashed line).
        image_format: ``png`` or ``svg``.
        dpi: resolution of a PNG.

    Raises:
        EnvironmentProblem: matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise EnvironmentProblem(
            "matplotlib is not installed: no search plot", hint="pip install 'kernelopt[report]'"
        ) from None
    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.5, 4.8), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    timed = [p for p in points if p.outcome == OK and p.latency_us is not None]
    lats = [p.latency_us for p in timed if p.latency_us is not None]
    lines = [v for v in (current_latency_us, sweep_best_us) if v is not None]
    top = max([*lats, *lines], default=1.0) * 1.15
    ax.scatter([p.evaluation for p in timed], lats, s=22, color="#2874a6", label="candidate (timed)", zorder=3)
    steps = best_so_far(points)
    if steps:
        ax.step([s[0] for s in steps], [s[1] for s in steps], where="post", color="#27ae60", label="best so far")
    _failures(ax, points, top)
    if current_latency_us is not None:
        ax.axhline(current_latency_us, color="#7f8c8d", linestyle=":", label=f"current {current_latency_us:.4g} us")
    if sweep_best_us is not None:
        ax.axhline(sweep_best_us, color="#d4ac0d", linestyle="--", label=f"sweep best {sweep_best_us:.4g} us")
    ax.set_ylim(0, top * 1.05)
    ax.set_xlim(0, max((p.evaluation for p in points), default=1) + 1)
    ax.set_xlabel("evaluations")
    ax.set_ylabel("latency (us)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    buf = io.BytesIO()
    fig.savefig(buf, format=image_format, dpi=dpi)
    return buf.getvalue()


def _failures(ax: object, points: Sequence[SearchPoint], top: float) -> None:
    """Red markers along the top edge, one shape per outcome."""
    by_outcome: dict[str, list[int]] = {}
    for p in points:
        if p.outcome != OK or p.latency_us is None:
            by_outcome.setdefault(p.outcome, []).append(p.evaluation)
    for outcome, xs in sorted(by_outcome.items()):
        ax.scatter(  # type: ignore[attr-defined]
            xs, [top] * len(xs), marker=_FAIL_MARKERS.get(outcome, "x"), color="#c0392b", s=40, label=outcome, zorder=3
        )
