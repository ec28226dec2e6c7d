"""Foundation: the one rule for what counts as a number in a value kernelopt reads (a knob's value, a ``SHAPES``
entry's size, a field of JSON, an evaluated computation).

A ``bool`` is an ``int`` to Python (``isinstance(True, int)``), never to kernelopt: ``BLOCK=True`` is no block of
one element, a ``SHAPES`` entry's ``causal=True`` is a flag and not a size, and a schema version read as ``true``
is no version. Every test of "an integer" or "a number" goes through here (it was written out on 61 lines,
each free to forget the ``bool``). This module imports nothing.
"""

from __future__ import annotations

from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """``value`` is an integer, not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> TypeGuard[int | float]:
    """``value`` is an integer or a float, not a ``bool``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def plain_int(value: object) -> int | None:
    """``value`` when it is an integer (:func:`is_int`), else ``None``."""
    return value if is_int(value) else None
