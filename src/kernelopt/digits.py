"""Foundation: the one rule for writing a measured figure in a line of text or a table cell.

Four significant digits, written out up to 7 digits: a CPU latency of 51,120 us is ``51120``, never
``5.112e+04`` (a progress line said "best 51120 us" and, after the bar, "V0 PASS: 5.112e+04 us"); larger and
tiny values keep the exponent (``1.718e+10``, ``9.898e-06``); a size in bytes is written in binary units
(:func:`size_text`); a ratio as ``1.71x`` (:func:`times`). This module imports nothing.
"""

from __future__ import annotations


def sig(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits, written out below 1e7 (``51120``, ``7.39``, ``0.0123``)."""
    short = f"{value:.{digits}g}"
    return f"{float(short):.0f}" if "e+" in short and abs(value) < 1e7 else short


def times(ratio: float) -> str:
    """A ratio (a speedup, an end of its interval) as ``1.71x``, ``2400x`` or ``0.0312x``: three significant digits
    by :func:`sig`'s rule, written out below 1e7 (``f"{ratio:.3g}x"`` wrote 2400 as ``2.4e+03x`` past 999.5x)."""
    return f"{sig(ratio, 3)}x"


def size_text(n: float) -> str:
    """Bytes as ``512.0 MiB``, ``1.50 GiB`` or ``4.00 TiB``; past a million TiB as ``3.64e+282 TiB`` (a ``SHAPES``
    entry of ``10**300`` elements asked for 283 digits of TiB in one line)."""
    if n >= 2**60:
        return f"{n / 2**40:.2e} TiB"
    if n >= 2**40:
        return f"{n / 2**40:.2f} TiB"
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"
