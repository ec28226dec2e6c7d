"""Nsight Compute values and units: parse the numbers ncu prints and convert them to base units.

ncu prints values scaled for people (``--print-units auto``, the default): ``13,485`` cycles, ``6.75 us``,
``2.33 Mbyte``, ``345.14 Gbyte/s``, ``16.38 Kbyte/block``, ``n/a``. Reports read through ``ncu_report``
carry base units (``ns``, ``byte``, ``byte/s``, ``hz``). This module converts both to one base per
dimension so that a value read from a CSV export equals the value read from the report:

- time: nanoseconds (``ns``); data: bytes (``byte``); frequency: hertz (``hz``);
- a rate ``X/<time>`` is converted to ``X/s`` (``Gbyte/s`` -> ``byte/s``, ``cycle/nsecond`` -> ``cycle/s``);
- any other unit (``%``, ``cycle``, ``inst``, ``warp``, ``register/thread``, ...) keeps its value, with a
  decimal ``K``/``M``/``G``/``T`` prefix removed.

Nsight Compute scales data sizes by powers of 1000 (``Kbyte`` = 1000 bytes), as its documentation of
``--print-units`` says. Pure: no I/O.
"""

from __future__ import annotations

import math
import re

_TIME_NS = {
    "ns": 1.0,
    "nsecond": 1.0,
    "nsec": 1.0,
    "us": 1e3,
    "usecond": 1e3,
    "usec": 1e3,
    "ms": 1e6,
    "msecond": 1e6,
    "msec": 1e6,
    "s": 1e9,
    "second": 1e9,
    "sec": 1e9,
}
_PREFIX = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_PREFIXED = re.compile(
    r"^(?P<prefix>[KkMGTP]?)(?P<base>byte|hz|Hz|cycle|inst|sector|request|warp|thread|block|sample)$"
)
_NA = {"n/a", "N/A", "na", "-", ""}


def parse_number(text: str) -> float | None:
    """Parse a number as ncu prints it.

    Thousands separators (``32,746,880``) are removed; ``n/a`` and empty cells give ``None``.

    Raises:
        ValueError: the text is neither a number nor a not-available marker.
    """
    t = text.strip().strip('"')
    if t in _NA:
        return None
    t = t.replace(",", "")
    value = float(t)
    if math.isnan(value):
        return None
    return value


def _scale_simple(unit: str) -> tuple[str, float]:
    if unit in _TIME_NS:
        return "ns", _TIME_NS[unit]
    m = _PREFIXED.match(unit)
    if m:
        base = m.group("base").lower()
        return base, _PREFIX[m.group("prefix")]
    return unit, 1.0


def to_base(value: float, unit: str | None) -> tuple[float, str]:
    """Convert ``value`` in ``unit`` to the base unit of its dimension.

    Args:
        value: the number as printed.
        unit: ncu's unit string (``us``, ``Mbyte``, ``Gbyte/s``, ``Ghz``, ``%``, ``cycle``, ...).

    Returns:
        ``(value_in_base_unit, base_unit)``; ``ns`` for time, ``byte`` for data, ``hz`` for frequency,
        ``<numerator>/s`` for a rate over time.
    """
    u = (unit or "").strip()
    if not u:
        return value, ""
    if "/" in u:
        num, den = u.split("/", 1)
        num_base, num_f = _scale_simple(num)
        if den in _TIME_NS:
            # X per <time unit> -> X per second
            seconds = _TIME_NS[den] / 1e9
            return value * num_f / seconds, f"{num_base}/s"
        den_base, den_f = _scale_simple(den)
        return value * num_f / den_f, f"{num_base}/{den_base}"
    base, factor = _scale_simple(u)
    return value * factor, base


def from_base(value: float, unit: str | None) -> float:
    """Express a base-unit value in ``unit`` (the inverse of :func:`to_base` for that unit)."""
    one, _ = to_base(1.0, unit)
    return value / one


def display_decimals(text: str) -> int:
    """How many decimals a printed number shows (``345.14`` -> 2, ``13,485`` -> 0)."""
    t = text.strip().replace(",", "")
    return len(t.split(".", 1)[1]) if "." in t else 0
