"""An inline guard: a launch value written ``256 if n % 256 == 0 else 128`` (or ``512 if n_cols <= 512 else
1024`` for a block that must cover a size), the form the guard writes at a launch where the launching function
already uses the knob's name, and the form users write by hand.

It reads as the literal ``128`` (the fallback, legal wherever the launch runs) tuned to ``256`` where the guard
holds, as the guard's own lines (``BLOCK = 128`` / ``if n % 256 == 0:  # kernelopt: tuned`` / ``BLOCK = 256``)
read. Discovery offers the fallback as the knob's value; a later edit moves the fallback, and the guard
(:mod:`kernelopt.tunables.guard`) takes the inline guard out before it judges the move: the new value, or a new
guard, holds. A conditional on a size that is no such guard (``256 if n >= 1024 else 128``) stays a computed
setting.

The guard's statement form (``if n % 256 == 0:  # kernelopt: tuned`` over ``BLOCK = 256``) is read by the same
rule when its comment is gone (a user deleted it): an ``if`` with no ``else`` over assignments of integer
literals, each test ``<size> % A == 0`` or ``<size> <= A`` for a value ``A`` it assigns, is the guard's form
(:func:`read_statement_guard`), read as tuned lines, and :func:`unmarked_guards` says so in one line. A block
whose kernel covers the size with a range derived from it (``HALF = BLOCK // 2``) is guarded by what the range
covers, written with the block's value in sight (``n_cols <= 1024 // 2``, :func:`bound_block`), so that form reads
the same way, and so does a bound that falls as the value grows, written divided by it (``n_cols <= 1048576 // 32``
over ``ROWS = 32``: a tile's values under a limit, :mod:`kernelopt.tunables.tile_numel`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.blocks import walk
from kernelopt.tunables.syntax import parsed

#: the comment that marks a line an edit wrote (``# kernelopt: tuned``)
TUNED = "kernelopt: tuned"


def marked_tuned(node: cst.CSTNode) -> bool:
    """Whether ``node`` carries the :data:`TUNED` mark an edit writes: a line's trailing comment (``BLOCK = 8  #
    kernelopt: tuned``), or the comment after an ``if``'s colon (a guard, a tuned table's row: ``if n % 64 == 0:  #
    kernelopt: tuned``). A guard whose comment is gone is read by its form instead (:func:`read_statement_guard`)."""
    if isinstance(node, cst.SimpleStatementLine):
        comment = node.trailing_whitespace.comment
    elif isinstance(node, cst.If) and isinstance(node.body, cst.IndentedBlock):
        comment = node.body.header.comment
    else:
        return False
    return comment is not None and TUNED in comment.value


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
    if not all(_guards(test, tuned) for test in conjuncts(expr.test)):
        return None
    return InlineGuard(tuned, int(orelse.evaluated_value), cst.Module([]).code_for_node(expr.test))


def conjuncts(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The tests ``test`` joins by ``and`` (``test`` itself when it joins none)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        yield from conjuncts(test.left)
        yield from conjuncts(test.right)
    else:
        yield test


def _guards(test: cst.BaseExpression, value: int) -> bool:
    """``<size> % value == 0`` or ``<size> <= value`` (``<size> <= value // 2``: a range derived from the block;
    ``<size> <= 1048576 // value``: a bound falling as the value grows)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    op, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(op, cst.LessThanEqual):  # the value itself, what a range derived from it covers, or a bound
        # falling as it grows (``n_cols <= 1048576 // 32``: a tile's values under a limit, refusals23)
        falling = isinstance(right, cst.BinaryOperation) and isinstance(right.operator, cst.FloorDivide)
        return bound_block(right) == value or (
            falling and _is(right.right, value) and isinstance(right.left, cst.Integer)
        )
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


_SCALES = (cst.FloorDivide, cst.Multiply, cst.LeftShift, cst.RightShift)


def bound_block(expr: cst.BaseExpression) -> int | None:
    """The block value a guard's bound is written from: ``512`` for ``512``, ``1024`` for ``1024 // 2``, ``256 * 2``
    or ``1024 >> 1`` (what a range derived from the block covers, as the guard writes it:
    :func:`kernelopt.tunables.blocks.reach_text`); ``None`` for any other expression."""
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if (
        isinstance(expr, cst.BinaryOperation)
        and isinstance(expr.operator, _SCALES)
        and isinstance(expr.right, cst.Integer)
    ):
        return bound_block(expr.left)
    return None


def read_statement_guard(node: cst.CSTNode) -> list[tuple[str, int]] | None:
    """The (name, value) pairs the guard's statement form sets, comment or not (see the module docstring):
    ``if M % 64 == 0:`` / ``BLOCK_M = 64`` gives ``[("BLOCK_M", 64)]``; ``None`` for any other statement."""
    if not isinstance(node, cst.If) or node.orelse is not None:
        return None
    out = block_settings(node.body)
    if out is None:
        return None
    values = {v for _, v in out}
    if not out or not all(any(_guards(test, v) for v in values) for test in conjuncts(node.test)):
        return None
    return out


def block_settings(body: cst.BaseSuite) -> list[tuple[str, int]] | None:
    """The (name, integer) pairs every statement of an indented ``body`` sets (``BLOCK_M = 64``, ``A = B = 64``);
    ``None`` where one is anything else."""
    if not isinstance(body, cst.IndentedBlock):
        return None
    out: list[tuple[str, int]] = []
    for stmt in body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return None
        for small in stmt.body:
            pairs = literal_settings(small)
            if pairs is None:
                return None
            out += [(name, int(v.evaluated_value)) for name, v in pairs]
    return out


def literal_settings(small: cst.BaseSmallStatement) -> list[tuple[str, cst.Integer]] | None:
    """``A = 64`` / ``A, B = 64, 32``: the names and their integer literals; ``None`` for anything else. The one
    reading of a guard's settings (here and :mod:`kernelopt.tunables.guard_blocks`): ``A = 5,`` binds the tuple
    ``(5,)``, not a setting of 5 (it was read as one here, not there: seen14)."""
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target, value = small.targets[0].target, small.value
    pairs: list[tuple[cst.BaseExpression, cst.BaseExpression]]
    if isinstance(target, cst.Name):
        pairs = [(target, value)]
    elif isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
        pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)]
    else:
        return None
    out = [(t.value, v) for t, v in pairs if isinstance(t, cst.Name) and isinstance(v, cst.Integer)]
    return out if len(out) == len(pairs) else None


def unmarked_guards(source: str, filename: str = "kernel.py") -> str | None:
    """One line naming the guards of ``source`` in the guard's statement form whose ``# kernelopt: tuned`` comment
    is gone, read as tuned lines all the same (:func:`read_statement_guard`); ``None`` when there is none (or the
    text does not parse)."""
    if " if " not in source:
        return None
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return None
    pos = tree.positions
    found: list[str] = []
    for node in walk(tree.module):
        if not isinstance(node, cst.If) or not isinstance(node.body, cst.IndentedBlock):
            continue
        pairs = read_statement_guard(node) if not marked_tuned(node) else None
        if pairs:
            test = cst.Module([]).code_for_node(node.test)
            sets = ", ".join(f"{n}={v}" for n, v in pairs)
            found.append(f"`if {test}:` at {filename}:{pos[node].start.line} ({sets})")
    if not found:
        return None
    return (
        f"read as a guard an earlier tune wrote, by its form (its `# {TUNED}` comment is gone): {'; '.join(found)}; "
        "the value above it is the knob, the guard's where it holds"
    )
