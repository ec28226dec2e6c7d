"""The search plot of one tuning session: best-so-far latency against evaluations, every candidate a point.

Timed candidates are blue dots at their latency, the best so far a green step line through them, the
current configuration's latency a dotted grey line, and (when a recorded sweep of the same space is given)
the sweep's best a dashed gold line: how far the session is from the exhaustive best. Failed candidates
(wrong result, compile error, crash, hang, out of memory, pruned) are red markers, one marker shape per
outcome, named in the legend: at their latency when they have one, else in a strip labelled "not timed"
above the latency axis (so that no failure reads as a latency). A session across several ``SHAPES`` entries
draws each shape's own latencies as a series of its own (small markers, one colour per shape) beside the
candidates' sum over the shapes. A candidate whose timing was cut, far slower than the best so far, is a hollow
dot: its latency is a lower bound (it was drawn as measured, 24 s where the call had been stopped), and it is in no
shape's series. A candidate served from the session record (timed by an earlier session of the same space) is a
grey dot, "from the session record (timed before)": a session that timed none was drawn as nine fresh timings.
When the latencies span more than :data:`LOG_SPAN` times, the latency axis is logarithmic, so that the best so far
does not lie flat along the bottom (a matmul session from 1.6 ms to 136 ms did on the H200). The legend sits
beside the plot, where it hides no point.

The points are the plot's own model (:class:`SearchPoint`): the command that owns a session
(``kernelopt tune``) turns its results into them, so this package does not import the engine.
:func:`search_plot` imports matplotlib (Agg backend) inside the function and returns the image bytes, as
:func:`kernelopt.report.roofline.roofline_plot` does.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kernelopt.digits import sig
from kernelopt.errors import EnvironmentProblem

OK = "ok"
#: Markers and colours of the shapes' own series (several SHAPES entries timed), in the order the shapes are.
SHAPE_MARKERS = ("v", "^", "<", ">", "d", "h")
SHAPE_COLORS = ("#a569bd", "#e67e22", "#16a085", "#c0392b", "#5d6d7e", "#b7950b")
#: Latencies that span more than this many times are drawn on a logarithmic axis.
LOG_SPAN = 10.0
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
        by_shape: shape label -> its latency on that shape, microseconds (a session across several ``SHAPES``
            entries: ``latency_us`` is the sum of their latencies, and each shape is drawn as a series of its own).
        cut: its timing was cut, far slower than the best so far: ``latency_us`` is a lower bound.
        config: its configuration (knob -> value), for the session's table (:mod:`kernelopt.report.session_csv`).
        retimed_us: its latency when the session re-timed it among the fastest (what the pick was made on).
        reason: why it failed, in the engine's words (``None`` when it was timed).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    evaluation: int
    latency_us: float | None
    outcome: str
    recorded: bool = False
    by_shape: dict[str, float] = Field(default_factory=dict)
    cut: bool = False
    config: dict[str, int | float | str | bool | None] = Field(default_factory=dict)
    retimed_us: float | None = None
    reason: str | None = None


def shape_series(points: Sequence[SearchPoint]) -> dict[str, list[tuple[int, float]]]:
    """Shape label -> (evaluation, latency there) of each point timed on it (pure): the timed points, and those set
    aside at one ``SHAPES`` entry and timed at the others (an ``invalid`` point with latencies by shape: a list keyed
    by size, :func:`kernelopt.tuning.shapes.timed_in_part`), which may be an entry's own best."""
    shaped = [p for p in points if p.by_shape and not p.cut and (p.outcome == OK or p.latency_us is None)]
    labels = dict.fromkeys(label for p in shaped for label in p.by_shape)
    return {label: [(p.evaluation, p.by_shape[label]) for p in shaped if label in p.by_shape] for label in labels}


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


@dataclass(frozen=True)
class LatencyAxis:
    """The latency axis of a search plot (pure: :func:`latency_axis`).

    Attributes:
        log: logarithmic (the latencies span more than :data:`LOG_SPAN` times).
        bottom: its lower limit, microseconds (0 on a linear axis).
        top: its upper limit, microseconds.
    """

    log: bool
    bottom: float
    top: float


def latency_axis(latencies_us: Sequence[float]) -> LatencyAxis:
    """The axis for these latencies (the candidates' and the lines'); 0 to 1 us when there are none."""
    positive = [v for v in latencies_us if v > 0]
    low, high = min(positive, default=1.0), max(positive, default=1.0)
    if high / low > LOG_SPAN:
        return LatencyAxis(log=True, bottom=low / 1.4, top=high * 1.4)
    return LatencyAxis(log=False, bottom=0.0, top=high * 1.12)


def preload() -> None:
    """Import what :func:`search_plot` needs (matplotlib and numpy, whole) now, if installed: a caller that
    draws after a long session imports them before it, so an interrupt during a first heavy import is an
    interrupt of that import, never half a module left for the plot."""
    try:
        import matplotlib
    except ImportError:
        return  # search_plot says so when it is asked for a plot
    matplotlib.use("Agg", force=True)
    import matplotlib.figure
    import matplotlib.ticker


def search_plot(
    points: Sequence[SearchPoint],
    *,
    title: str,
    current_latency_us: float | None = None,
    sweep_best_us: float | None = None,
    sweep_label: str = "sweep best",
    image_format: str = "png",
    dpi: int = 110,
) -> bytes:
    """The search plot as image bytes (see the module docstring).

    Args:
        points: the session's candidates, in order.
        title: the plot's title (the kernel and launch).
        current_latency_us: the current configuration's latency (a dotted line), when it ran.
        sweep_best_us: the best latency of a recorded sweep of the same space (a dashed line).
        sweep_label: its legend's words (``best of N timed`` for a sweep cut short: no exhaustive best).
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
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(9.5, 4.8), layout="constrained")
    untimed = [p for p in points if p.latency_us is None]
    if untimed:  # a strip above the latencies: a failure without a latency is not read as one
        strip, ax = fig.subplots(2, 1, sharex=True, height_ratios=[1, 9])
        _strip(strip, untimed)
    else:
        ax = fig.add_subplot(1, 1, 1)
    timed = [p for p in points if p.outcome == OK and p.latency_us is not None]
    lats = [p.latency_us for p in timed if p.latency_us is not None]
    lines = [v for v in (current_latency_us, sweep_best_us) if v is not None]
    failed = [p for p in points if p.outcome != OK and p.latency_us is not None]
    series = shape_series(points)
    per_shape = [v for mine in series.values() for _, v in mine]
    axis = latency_axis([*lats, *per_shape, *lines, *(p.latency_us for p in failed if p.latency_us is not None)])
    for k, (label, mine) in enumerate(series.items()):  # each shape's own latencies (several SHAPES entries timed)
        ax.scatter(
            [n for n, _ in mine],
            [v for _, v in mine],
            s=12,
            marker=SHAPE_MARKERS[k % len(SHAPE_MARKERS)],
            color=SHAPE_COLORS[k % len(SHAPE_COLORS)],
            alpha=0.8,
            label=f"on {label}",
            zorder=2,
        )
    measured = "candidate (sum over the shapes)" if series else "candidate (timed)"
    # timed now; served from the session record (an earlier session of the same space timed it: not measured here);
    # cut (a lower bound)
    _dots(ax, [p for p in timed if not p.cut and not p.recorded], measured, color="#2874a6")
    _dots(ax, [p for p in timed if not p.cut and p.recorded], "from the session record (timed before)", color="#95a5a6")
    _dots(ax, [p for p in timed if p.cut], "cut: a lower bound", facecolors="none", edgecolors="#2874a6")
    steps = best_so_far(points)
    if steps:
        ax.step([s[0] for s in steps], [s[1] for s in steps], where="post", color="#27ae60", label="best so far")
    _failures(ax, failed)
    if current_latency_us is not None:
        ax.axhline(current_latency_us, color="#7f8c8d", linestyle=":", label=f"current {sig(current_latency_us)} us")
    if sweep_best_us is not None:
        ax.axhline(sweep_best_us, color="#d4ac0d", linestyle="--", label=f"{sweep_label} {sig(sweep_best_us)} us")
    _latency_scale(ax, axis)
    ax.set_xlim(0, max((p.evaluation for p in points), default=1) + 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("evaluations")
    ax.grid(True, alpha=0.3)
    fig.suptitle(title, fontsize=10)
    named: dict[str, Any] = {}  # label -> handle: an outcome in the strip and on the axis is named once
    for a in (ax, *(a for a in fig.axes if a is not ax)):
        for handle, label in zip(*a.get_legend_handles_labels(), strict=True):
            named.setdefault(label, handle)
    fig.legend(list(named.values()), list(named), fontsize=8, loc="outside right upper")
    buf = io.BytesIO()
    with warnings.catch_warnings():
        # a title with characters the font lacks (a folder named in CJK) is drawn with boxes there; matplotlib's
        # warning, one per character, is two lines of noise each on the user's stderr (second fault trial, t8)
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        fig.savefig(buf, format=image_format, dpi=dpi)
    return buf.getvalue()


def _dots(ax: Any, points: Sequence[SearchPoint], label: str, **style: str) -> None:
    """The candidates ``points`` as dots at their latency, named ``label`` in the legend (nothing when none)."""
    if points:
        ax.scatter([p.evaluation for p in points], [p.latency_us for p in points], s=22, label=label, zorder=3, **style)


def plain_latency(us: float) -> str:
    """A latency tick's label: a plain number, thousands grouped (``200,000``, ``1,000,000``, ``0.5``), never
    ``1e+06`` or ``3 x 10^5``."""
    return f"{us:,.0f}" if us >= 1 else f"{us:g}"


def _latency_scale(ax: Any, axis: LatencyAxis) -> None:
    """Limits, scale (log: ticks at 1, 2 and 5 of each decade, written as plain numbers) and label.

    The minor ticks matplotlib labels where a decade holds few majors are written as plain numbers too: its own
    formatter wrote them ``3 x 10^5`` and ``6 x 10^4`` between majors ``200000`` and ``50000`` (newuser20 n143)."""
    from matplotlib.ticker import FuncFormatter, LogFormatterSciNotation, LogLocator

    class PlainMinor(LogFormatterSciNotation):
        """matplotlib's choice of which minor ticks to label, each written as :func:`plain_latency` writes it."""

        def __call__(self, x: float, pos: int | None = None) -> str:
            return plain_latency(x) if super().__call__(x, pos) else ""

    if axis.log:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: plain_latency(v)))
        ax.yaxis.set_minor_formatter(PlainMinor(base=10, labelOnlyBase=False))
    ax.set_ylim(axis.bottom, axis.top)
    ax.set_ylabel("latency (us, log scale)" if axis.log else "latency (us)")


def _markers(ax: Any, points: Sequence[SearchPoint], y: Callable[[SearchPoint], float]) -> None:
    """Red markers of failed candidates at ``y``, one shape per outcome, named in the legend."""
    by_outcome: dict[str, list[SearchPoint]] = {}
    for p in points:
        by_outcome.setdefault(p.outcome, []).append(p)
    for outcome, group in sorted(by_outcome.items()):
        ax.scatter(
            [p.evaluation for p in group],
            [y(p) for p in group],
            marker=_FAIL_MARKERS.get(outcome, "x"),
            color="#c0392b",
            s=40,
            label=outcome,
            zorder=4,
        )


def _failures(ax: Any, failed: Sequence[SearchPoint]) -> None:
    """Failed candidates that have a latency, at that latency."""
    _markers(ax, failed, lambda p: p.latency_us or 0.0)


def _strip(strip: Any, untimed: Sequence[SearchPoint]) -> None:
    """The strip of candidates without a latency (failed before timing, or pruned) above the latency axis."""
    _markers(strip, untimed, lambda p: 0.5)
    strip.set_ylim(0, 1)
    strip.set_yticks([])
    strip.set_ylabel("not timed", rotation=0, ha="right", va="center", fontsize=8, color="#c0392b")
    strip.grid(True, axis="x", alpha=0.3)
    strip.tick_params(axis="x", labelbottom=False)
