"""How a report writes numbers: ``n/a`` for every value that was not measured, never a made-up one."""

from __future__ import annotations

from kernelopt.oneline import one_line as cut_line

NA = "n/a"


def num(value: float | int | None) -> str:
    """A measured number with sensible precision (``1,234``, ``123.4``, ``12.35``, ``0.1234``); ``n/a`` for None."""
    if value is None:
        return NA
    if isinstance(value, int):
        return f"{value:,}"
    mag = abs(value)
    if mag >= 1000:
        return f"{value:,.0f}"
    if mag >= 100:
        return f"{value:.1f}"
    if mag >= 10:
        return f"{value:.2f}"
    if mag == 0:
        return "0"
    return f"{value:.3g}"


def with_unit(value: float | int | None, unit: str) -> str:
    """``12.35 us``; ``n/a`` (no unit) for None."""
    return NA if value is None else f"{num(value)} {unit}"


def pct(value: float | None) -> str:
    """``42.1 %``; ``n/a`` for None."""
    return NA if value is None else f"{value:.1f} %"


def signed_pct(value: float | None) -> str:
    """``+3.2 %`` / ``-12.0 %``; ``n/a`` for None."""
    return NA if value is None else f"{value:+.1f} %"


def speedup(value: float | None) -> str:
    """``1.85x``; ``n/a`` for None."""
    return NA if value is None else f"{value:.2f}x"


def text(value: object) -> str:
    """Any value as text (a whole float without its ``.0``), ``n/a`` for None or an empty string."""
    if value is None:
        return NA
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else num(value)
    shown = str(getattr(value, "value", value))
    return shown if shown.strip() else NA


def one_line(value: str | None, limit: int = 300) -> str:
    """Whitespace folded to single spaces, cut at ``limit`` characters; ``n/a`` for None."""
    if value is None:
        return NA
    return cut_line(value, limit)
