"""An inline guard: a launch value written ``256 if n % 256 == 0 else 128`` (or ``512 if n_cols <= 512 else
1024`` for a block that must cover a size), the form the guard writes at a launch where the launching function
already uses the knob's name, and the form users write by hand.

It reads as the literal ``128`` (the fallback, legal wherever the launch runs) tuned to ``256`` where the guard
holds, as the guard's own lines (``BLOCK = 128`` / ``if n % 256 == 0:  # kernelopt: tuned`` / ``BLOCK = 256``)
read. Discovery offers the fallback as the knob's value; a later edit moves the fallback, and the guard
(:mod:`kernelopt.tunables.guard`) takes the inline guard out before it judges the move: the new value, or a new
guard, holds. A conditional on a size that is no such guard (``256 if n >= 1024 else 128``) stays a computed
setting.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class InlineGuard:
    """``tuned if <test> else fallback``: the two integer literals and the test as written."""

    tuned: int
    fallback: int
    test: str


def read_inline_guard(expr: cst.BaseExpression) -> InlineGuard | None:
    """The inline guard ``expr`` is (see the module docstring), or ``None``: ``A if <test> else B`` with ``A`` and
    ``B`` integer literals and a test that is ``<size> % A == 0`` or ``<size> <= A``, or several joined by
    ``and``."""
    if not isinstance(expr, cst.IfExp):
        return None
    body, orelse = expr.body, expr.orelse
    if not isinstance(body, cst.Integer) or not isinstance(orelse, cst.Integer):
        return None
    tuned = int(body.evaluated_value)
    if not all(_guards(test, tuned) for test in _conjuncts(expr.test)):
        return None
    return InlineGuard(tuned, int(orelse.evaluated_value), cst.Module([]).code_for_node(expr.test))


def _conjuncts(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from _conjuncts(test.left)
        yield from _conjuncts(test.right)
    else:
        yield test


def _guards(test: cst.BaseExpression, value: int) -> bool:
    """``<size> % value == 0`` or ``<size> <= value``."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    op, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(op, cst.LessThanEqual):
        return _is(right, value)
    left = test.left
    return (
        isinstance(op, cst.Equal)
        and _is(right, 0)
        and isinstance(left, cst.BinaryOperation)
        and isinstance(left.operator, cst.Modulo)
        and _is(left.right, value)
    )


def _is(expr: cst.BaseExpression, value: int) -> bool:
    return isinstance(expr, cst.Integer) and int(expr.evaluated_value) == value
