"""The roofline plot: every version as a point under the spec and measured roofs, plus a latency panel.

Left panel: arithmetic intensity (FLOP/byte) against achieved TFLOP/s on log-log axes, one line per
memory roof (GB/s) and per compute roof (TFLOP/s), each labelled with its origin; when no version
has a FLOP count, achieved GB/s per version against the memory roofs instead. Right panel: latency
per version with the 95 % interval of each latency, the reference (PyTorch eager) timed beside each version, the
final version's speedup over it with its interval (the legend), and the roofline bound for the problem size. Failed
versions are red crosses, masked ones grey, the final version a star.

:func:`roofline_points` and :func:`roofline_bounds` are pure; :func:`roofline_plot` imports matplotlib
(Agg backend) inside the function and returns the image bytes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from kernelopt.errors import EnvironmentProblem
from kernelopt.report.headline import interval_text
from kernelopt.report.model import Ceiling, CeilingKind, CeilingOrigin, ReportData

if TYPE_CHECKING:
    from matplotlib.axes import Axes


class RooflinePoint(BaseModel):
    """One version on the plot.

    Attributes:
        version: ``V<N>``.
        latency_us: measured latency.
        tflops: achieved TFLOP/s (``None`` when the FLOP count is unknown).
        bandwidth_gbps: achieved GB/s.
        intensity: FLOP per byte (``None`` when either rate is unknown).
        failed: the gate said FAIL / TIMEOUT_FAIL.
        masked: the record is masked.
        final: the version the loop ended with.
        flops: FLOP per launch as the gate recorded it, when known.
        bytes_moved: bytes per launch as the gate recorded it, when known.
        converged: a version whose tuning session kept nothing (also ``failed``: no new point of the kernel), drawn
            as itself, not as a failure.
        latency_ci_low_us, latency_ci_high_us: the 95 % interval of ``latency_us``, when the gate gave one.
        reference_us: the reference's (PyTorch eager) latency, timed beside the version by its gate.
        vs_reference: the version's speedup over the reference with its 95 % interval, in words.
    """

    model_config = ConfigDict(extra="forbid")

    version: str
    latency_us: float | None
    tflops: float | None
    bandwidth_gbps: float | None
    intensity: float | None
    failed: bool = False
    masked: bool = False
    final: bool = False
    flops: float | None = None
    bytes_moved: float | None = None
    converged: bool = False
    latency_ci_low_us: float | None = None
    latency_ci_high_us: float | None = None
    reference_us: float | None = None
    vs_reference: str | None = None


class RooflineBound(BaseModel):
    """The fastest latency the roofs allow for the problem size.

    Attributes:
        origin: which roofs (spec or measured).
        latency_us: max(FLOP / compute roof, bytes / memory roof), microseconds.
        roofs: the labels of the roofs used.
    """

    model_config = ConfigDict(extra="forbid")

    origin: CeilingOrigin
    latency_us: float
    roofs: list[str]


def roofline_points(data: ReportData) -> list[RooflinePoint]:
    """One point per version (masked and failed ones included and marked; unmeasured values ``None``)."""
    final = data.final()
    out = []
    for v in data.versions:
        p = v.record.performance
        ref = p.speedup_vs_reference
        out.append(
            RooflinePoint(
                version=v.label,
                latency_us=p.latency_us,
                tflops=p.tflops,
                bandwidth_gbps=p.bandwidth_gbps,
                intensity=v.arithmetic_intensity,
                flops=p.flops,
                bytes_moved=p.bytes_moved,
                failed=v.failed or v.converged,  # a converged version is no new point of the kernel
                converged=v.converged,
                masked=v.record.masked,
                final=final is not None and v.record.number == final.record.number,
                latency_ci_low_us=p.latency_ci_low_us,
                latency_ci_high_us=p.latency_ci_high_us,
                reference_us=ref.eager_latency_us if ref is not None and ref.eager is not None else None,
                vs_reference=(
                    interval_text(ref.eager, ref.eager_ci_low, ref.eager_ci_high, "PyTorch eager")
                    if ref is not None and ref.eager is not None
                    else None
                ),
            )
        )
    return out


def problem_size(points: Sequence[RooflinePoint]) -> tuple[float | None, float | None]:
    """(FLOP, bytes) per launch as the gate recorded them (``performance.flops`` / ``bytes_moved``).

    Every version computes the same problem (the reference's main shape), so the first point that
    has a count gives it. Records written before the gate stored the counts give them back from the
    measured rates (rate x latency); ``None`` where nothing measured them.
    """
    stored = next((p for p in points if p.flops is not None or p.bytes_moved is not None), None)
    if stored is not None:
        return stored.flops, stored.bytes_moved
    flops = next((p.tflops * 1e12 * p.latency_us * 1e-6 for p in points if p.tflops and p.latency_us), None)
    nbytes = next(
        (p.bandwidth_gbps * 1e9 * p.latency_us * 1e-6 for p in points if p.bandwidth_gbps and p.latency_us), None
    )
    return flops, nbytes


def roofline_bounds(points: Sequence[RooflinePoint], ceilings: Sequence[Ceiling]) -> list[RooflineBound]:
    """The roofline latency bound per origin (spec, measured) from the roofs of that origin.

    A bound uses the highest compute and memory roof of its origin that apply (compute needs a FLOP
    count, memory a byte count); an origin with no applicable roof gives no bound.
    """
    flops, nbytes = problem_size(points)
    out = []
    for origin in (CeilingOrigin.SPEC, CeilingOrigin.MEASURED):
        times: list[float] = []
        used: list[str] = []
        compute = [c for c in ceilings if c.origin is origin and c.kind is CeilingKind.COMPUTE]
        memory = [c for c in ceilings if c.origin is origin and c.kind is CeilingKind.MEMORY]
        if flops is not None and compute:
            top = max(compute, key=lambda c: c.value)
            times.append(flops / (top.value * 1e12) * 1e6)
            used.append(top.label)
        if nbytes is not None and memory:
            top = max(memory, key=lambda c: c.value)
            times.append(nbytes / (top.value * 1e9) * 1e6)
            used.append(top.label)
        if times:
            out.append(RooflineBound(origin=origin, latency_us=max(times), roofs=used))
    return out


_STYLE = {CeilingOrigin.SPEC: "-", CeilingOrigin.MEASURED: "--"}
_COLORS = {
    (CeilingKind.MEMORY, CeilingOrigin.SPEC): "#1f4e79",
    (CeilingKind.MEMORY, CeilingOrigin.MEASURED): "#2e86c1",
    (CeilingKind.COMPUTE, CeilingOrigin.SPEC): "#7d3c98",
    (CeilingKind.COMPUTE, CeilingOrigin.MEASURED): "#af7ac5",
}


def _marker(p: RooflinePoint) -> dict[str, Any]:
    if p.masked:
        return {"marker": "o", "facecolors": "none", "edgecolors": "#999999", "s": 50}
    if p.converged:  # kept nothing: no failure's red cross (newuser20's seen item)
        return {"marker": "s", "facecolors": "none", "edgecolors": "#7f8c8d", "s": 45}
    if p.failed:
        return {"marker": "x", "color": "#c0392b", "s": 60}
    if p.final:
        return {"marker": "*", "color": "#d4ac0d", "edgecolors": "#7d6608", "s": 220}
    return {"marker": "o", "color": "#2874a6", "s": 45}


SAME_SPOT_DECADES = 0.03
"""Points closer than this in log10 on both axes (about 7 %) share one label (``v1, v3``): labels of
versions that landed on the same spot would print over each other."""


def label_groups(xs: Sequence[float], ys: Sequence[float], labels: Sequence[str]) -> list[tuple[float, float, str]]:
    """One ``(x, y, "v1, v3")`` per spot: points within :data:`SAME_SPOT_DECADES` of a spot's first point
    (log10 on both axes; non-positive values compared as they are) join its label, in order."""

    def near(a: float, b: float) -> bool:
        if a > 0 and b > 0:
            return abs(math.log10(a / b)) < SAME_SPOT_DECADES
        return a == b

    spots: list[tuple[float, float, list[str]]] = []
    for x, y, text in zip(xs, ys, labels, strict=True):
        spot = next((s for s in spots if near(s[0], x) and near(s[1], y)), None)
        if spot is None:
            spots.append((x, y, [text]))
        else:
            spot[2].append(text)
    return [(x, y, ", ".join(names)) for x, y, names in spots]


def _label_points(ax: Axes, xs: list[float], ys: list[float], labels: list[str]) -> None:
    """Version labels beside the points, one per spot (:func:`label_groups`), alternating sides so that
    stacked spots stay readable."""
    for i, (x, y, text) in enumerate(label_groups(xs, ys, labels)):
        right = i % 2 == 0
        ax.annotate(
            text,
            (x, y),
            xytext=(8 if right else -8, 0),
            textcoords="offset points",
            ha="left" if right else "right",
            va="center",
            fontsize=8,
        )


def _roofline_axes(ax: Axes, points: list[RooflinePoint], ceilings: Sequence[Ceiling]) -> None:
    placed = [(p, p.intensity, p.tflops) for p in points if p.intensity and p.tflops]
    on_plot = [p for p, _, _ in placed]
    xs = [x for _, x, _ in placed if x]
    ys = [y for _, _, y in placed if y]
    memory = [c for c in ceilings if c.kind is CeilingKind.MEMORY]
    compute = [c for c in ceilings if c.kind is CeilingKind.COMPUTE]
    ridges = [c.value * 1e3 / m.value for c in compute for m in memory]
    x_lo = min([*xs, *ridges]) / 8
    x_hi = max([*xs, *ridges]) * 8
    top_compute = max((c.value for c in compute), default=None)
    fastest_memory = max((m.value for m in memory), default=None)
    for m in memory:
        x_end = top_compute * 1e3 / m.value if top_compute else x_hi
        ax.plot(
            [x_lo, x_end],
            [x_lo * m.value / 1e3, x_end * m.value / 1e3],
            _STYLE[m.origin],
            color=_COLORS[(m.kind, m.origin)],
            label=f"{m.origin.value} {m.label}: {m.value:,.0f} GB/s",
        )
    for c in compute:
        x_start = c.value * 1e3 / fastest_memory if fastest_memory else x_lo
        ax.plot(
            [x_start, x_hi],
            [c.value, c.value],
            _STYLE[c.origin],
            color=_COLORS[(c.kind, c.origin)],
            label=f"{c.origin.value} {c.label}: {c.value:,.0f} TFLOP/s",
        )
    for p, x, y in zip(on_plot, xs, ys, strict=True):
        ax.scatter([x], [y], zorder=3, **_marker(p))
    _label_points(ax, xs, ys, [p.version for p in on_plot])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    y_all = [*ys, *(c.value for c in compute)]
    ax.set_ylim(min(y_all) / 8, max(y_all) * 3)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel("achieved TFLOP/s")
    ax.set_title("Roofline")
    untimed = [p.version for p in points if p not in on_plot and p.latency_us is None]
    no_rate = [p.version for p in points if p not in on_plot and p.latency_us is not None]
    missing = ([f"not timed: {', '.join(untimed)}"] if untimed else []) + (
        [f"FLOPs or bytes unknown: {', '.join(no_rate)}"] if no_rate else []
    )
    if missing:
        ax.text(
            0.01,
            0.01,
            "not on the roofline (" + "; ".join(missing) + ")",
            transform=ax.transAxes,
            fontsize=7,
            color="#555555",
        )


def _bandwidth_axes(ax: Axes, points: list[RooflinePoint], ceilings: Sequence[Ceiling]) -> None:
    shown = [(p, p.bandwidth_gbps) for p in points if p.bandwidth_gbps is not None]
    xs = list(range(len(shown)))
    for x, (p, y) in zip(xs, shown, strict=True):
        ax.scatter([x], [y], zorder=3, **_marker(p))
    _label_points(ax, [float(x) for x in xs], [y for _, y in shown], [p.version for p, _ in shown])
    for m in (c for c in ceilings if c.kind is CeilingKind.MEMORY):
        ax.axhline(
            m.value,
            linestyle=_STYLE[m.origin],
            color=_COLORS[(m.kind, m.origin)],
            label=f"{m.origin.value} {m.label}: {m.value:,.0f} GB/s",
        )
    ax.set_xticks(xs, [p.version for p, _ in shown])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("version")
    ax.set_ylabel("achieved GB/s")
    ax.set_title("Bandwidth (FLOPs unknown: no arithmetic intensity)")


OFF_SCALE = 1.6
"""A failed or masked version slower than this many times the slowest passing one is off scale."""


def latency_axis_top(points: Sequence[RooflinePoint], bounds: Sequence[RooflineBound]) -> float:
    """Top of the latency axis: it fits the passing versions with their 95 % intervals (and the roofline bounds) with
    10 % room.

    Failed and masked versions count only while they are within :data:`OFF_SCALE` times the slowest
    passing one; a slower one is drawn at the top edge with its value written beside it, so a version
    that failed at 50x the latency cannot squash the line of the versions that passed. The reference (PyTorch eager)
    timed beside each version counts as they do.
    """
    passing = [
        max(p.latency_us, p.latency_ci_high_us or 0.0) for p in points if p.latency_us and not (p.failed or p.masked)
    ]
    others = [p.latency_us for p in points if p.latency_us and (p.failed or p.masked)]
    others += [p.reference_us for p in points if p.reference_us and not p.masked]  # within the cap, as the others
    floor = [b.latency_us for b in bounds]
    if not passing:
        return 1.1 * max([*others, *floor], default=1.0)
    cap = OFF_SCALE * max(passing)
    return 1.1 * max([*passing, *floor, *(v for v in others if v <= cap)])


def _latency_axes(ax: Axes, points: list[RooflinePoint], bounds: Sequence[RooflineBound]) -> None:
    xs = list(range(len(points)))
    good = [(x, p.latency_us) for x, p in zip(xs, points, strict=True) if p.latency_us and not (p.failed or p.masked)]
    if good:
        ax.plot([g[0] for g in good], [g[1] for g in good], "-", color="#aab7b8", zorder=1)
    top = latency_axis_top(points, bounds)
    for x, p in zip(xs, points, strict=True):
        if p.latency_us is not None and p.latency_us > top:  # off scale: at the edge, value in words
            ax.scatter([x], [top], zorder=3, clip_on=False, **_marker(p))
            ax.annotate(
                f"{p.latency_us:,.4g} us (off scale)",
                (x, top),
                xytext=(0, -10),
                textcoords="offset points",
                ha="center",
                fontsize=7,
            )
        elif p.latency_us is not None:
            ax.scatter([x], [p.latency_us], zorder=3, **_marker(p))
        else:  # failed before timing: a red cross on the axis, said in words
            ax.scatter([x], [0.0], zorder=3, clip_on=False, **_marker(p))
            said = "converged: kept nothing" if p.converged else "no timing"
            ax.annotate(said, (x, 0.0), xytext=(0, 8), textcoords="offset points", ha="center", fontsize=7)
    _intervals_and_reference(ax, xs, points, top)
    for b in bounds:
        ax.axhline(
            b.latency_us,
            linestyle=_STYLE[b.origin],
            color="#27ae60" if b.origin is CeilingOrigin.SPEC else "#52be80",
            label=f"roofline bound, {b.origin.value}: {b.latency_us:,.4g} us",
        )
    ax.set_xticks(xs, [p.version for p in points])
    ax.set_ylim(0, top)
    ax.set_xlabel("version")
    ax.set_ylabel("latency (us), lower is better")
    ax.set_title("Latency per version")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper right")


def _intervals_and_reference(ax: Axes, xs: list[int], points: list[RooflinePoint], top: float) -> None:
    """Each passing version's 95 % latency interval as an error bar, and the reference (PyTorch eager) its gate timed
    beside it as a grey diamond (one above the axis at its edge), the final version's speedup over it with its
    interval in the legend: the panel showed neither, the speedup over PyTorch said only in text (newuser20 n148)."""
    shown = [
        (x, p)
        for x, p in zip(xs, points, strict=True)
        if p.latency_us and p.latency_ci_low_us and p.latency_ci_high_us and not (p.failed or p.masked)
    ]
    if shown:
        ys = [p.latency_us or 0.0 for _, p in shown]
        below = [max(y - (p.latency_ci_low_us or y), 0.0) for y, (_, p) in zip(ys, shown, strict=True)]
        above = [max((p.latency_ci_high_us or y) - y, 0.0) for y, (_, p) in zip(ys, shown, strict=True)]
        ax.errorbar(
            [x for x, _ in shown],
            ys,
            yerr=[below, above],
            fmt="none",
            ecolor="#5d6d7e",
            capsize=3,
            zorder=2,
            label="95 % interval of each latency",
        )
    refs = [(x, p.reference_us) for x, p in zip(xs, points, strict=True) if p.reference_us and not p.masked]
    if not refs:
        return
    final = next((p for p in points if p.final and p.vs_reference), None)
    label = "PyTorch eager, timed beside each version" + (f"\n{final.version}: {final.vs_reference}" if final else "")
    ax.plot(
        [x for x, _ in refs],
        [min(y, top) for _, y in refs],
        "D--",
        color="#7f8c8d",
        markersize=5,
        zorder=2,
        clip_on=False,
        label=label,
    )


def roofline_plot(
    points: Sequence[RooflinePoint],
    ceilings: Sequence[Ceiling],
    *,
    title: str,
    image_format: str = "png",
    dpi: int = 110,
) -> bytes:
    """Draw the roofline and latency panels and return the image (PNG by default, or ``svg``).

    Args:
        points: the versions (see :func:`roofline_points`).
        ceilings: the roofs to draw (spec and measured, each labelled with its origin).
        title: the figure title.
        image_format: ``png`` or ``svg``.
        dpi: resolution of a PNG.

    Raises:
        ValueError: unknown ``image_format``.
        EnvironmentProblem: matplotlib is not installed.
    """
    if image_format not in ("png", "svg"):
        raise ValueError(f"image_format must be png or svg, got {image_format!r}")
    try:
        import matplotlib
    except ImportError:
        raise EnvironmentProblem(
            "matplotlib is not installed: no roofline plot", hint="pip install 'kernelopt[report]'"
        ) from None

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    pts = list(points)
    fig = Figure(figsize=(12.5, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1.25, 1])
    if any(p.intensity and p.tflops for p in pts):
        _roofline_axes(left, pts, ceilings)
    elif any(p.bandwidth_gbps is not None for p in pts):
        _bandwidth_axes(left, pts, ceilings)
    else:
        left.text(0.5, 0.5, "no version has a measured rate", ha="center", va="center", transform=left.transAxes)
        left.set_axis_off()
    if left.get_legend_handles_labels()[0]:
        left.legend(fontsize=7, loc="upper left")
    if any(p.latency_us is not None for p in pts):
        _latency_axes(right, pts, roofline_bounds(pts, ceilings))
    else:
        right.text(0.5, 0.5, "no version has a measured latency", ha="center", va="center", transform=right.transAxes)
        right.set_axis_off()
    fig.suptitle(title, fontsize=11)
    buf = io.BytesIO()
    fig.savefig(buf, format=image_format, dpi=dpi)
    return buf.getvalue()
