"""Which way a kernel's tiles move with each ``tl.constexpr``: the reading the tuning engine's dominance rules need.

Two refusals are shared by neighbours of a refused candidate (docs/tuning-engine.md, "Larger tiles than a refused one
are never proposed"): a ``tl.dot`` whose operand tiles exceed the shared memory refuses every configuration whose tiles
are each at least as large, and a ``tl.dot`` whose K is under 16 every one whose tiles are each at most as large. Both
assumed that a tile grows with each block knob. It does where the knob spans a tile (``tl.arange(0, BLOCK_M)``,
``tl.zeros((BLOCK_M, BLOCK_N))``, a block pointer's ``block_shape``); it shrinks where the knob divides one
(``tl.arange(0, BLOCK // SPLIT)``: a larger ``SPLIT`` is a smaller tile), and a knob that spans no tile of the kernel's
body (a count of programs, a loop's trip count, a tile made in a helper) says nothing of them.

:func:`tile_growth` reads the kernel's body (its local assignments followed, control flow ignored) and gives each
``tl.constexpr`` parameter that spans a tile ``+1`` (every tile that reads it grows with it), ``-1`` (every one
shrinks) or ``0`` (both, or a place whose direction is not known: a ``%``, a condition, an unknown call); a parameter
absent from the result spans no tile there. Pure: no import of the user's module.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from kernelopt.tunables.blocks import cdiv_args, dotted, walk
from kernelopt.tunables.signature import params_of
from kernelopt.tunables.syntax import parsed

_SHAPED = frozenset({"zeros", "full", "empty", "zeros_like"})  # their first argument is a shape
#: the position of ``block_shape`` (a tile) among the arguments of a block pointer's or a tensor descriptor's maker
_BLOCK_SHAPED = {"make_block_ptr": 4, "make_tensor_descriptor": 3}
_MONOTONE = frozenset({"min", "max", "minimum", "maximum", "next_power_of_2", "int", "constexpr"})
_GROWS = (cst.Add, cst.Multiply, cst.LeftShift, cst.Power)
_DIVIDES = (cst.FloorDivide, cst.Divide, cst.RightShift, cst.Subtract)


def tile_growth(source: str, kernel: str) -> dict[str, int]:
    """``tl.constexpr`` parameter (or module-level name) ``kernel`` reads -> ``+1`` / ``-1`` / ``0``: how the tiles of
    its body move as it grows (module docstring); empty when ``source`` does not parse or defines no such kernel."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return {}
    fn = next((n for n in walk(tree.module) if isinstance(n, cst.FunctionDef) and n.name.value == kernel), None)
    if fn is None:
        return {}
    params = {
        p.name.value
        for p in params_of(fn)
        if p.annotation is not None and dotted(p.annotation.annotation).split(".")[-1] == "constexpr"
    }
    values: dict[str, list[cst.BaseExpression]] = {}
    for node in walk(fn.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            values.setdefault(node.targets[0].target.value, []).append(node.value)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            values.setdefault(node.target.value, []).append(node.value)
    ways: dict[str, set[int]] = {}
    for extent in _extents(fn.body):
        for name, way in _signs(extent, 1, params, values, frozenset()):
            ways.setdefault(name, set()).add(way)
    return {name: (found.pop() if len(found) == 1 else 0) for name, found in ways.items()}


def _extents(body: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Each expression that is the extent of a tile: ``tl.arange``'s end, a shape's element, a ``block_shape``'s."""
    for node in walk(body):
        if not isinstance(node, cst.Call):
            continue
        name = dotted(node.func).split(".")[-1]
        positional = [a.value for a in node.args if a.keyword is None and a.star == ""]
        if name == "arange" and len(positional) == 2:
            yield positional[1]
        elif name in _SHAPED and positional:
            yield from _elements(positional[0])
        elif name in _BLOCK_SHAPED:
            for a in node.args:
                if a.keyword is not None and a.keyword.value == "block_shape":
                    yield from _elements(a.value)
            if len(positional) > _BLOCK_SHAPED[name]:
                yield from _elements(positional[_BLOCK_SHAPED[name]])


def _elements(shape: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    if isinstance(shape, cst.Tuple | cst.List):
        for e in shape.elements:
            yield e.value
    else:
        yield shape


def _signs(
    expr: cst.CSTNode, sign: int, params: set[str], values: dict[str, list[cst.BaseExpression]], seen: frozenset[str]
) -> Iterator[tuple[str, int]]:
    """(name, direction) for each parameter or global ``expr`` reads (its locals followed), the direction ``sign``
    carries through it (``0`` where it is not known)."""
    if isinstance(expr, cst.Name):
        if expr.value in values and expr.value not in params:
            if expr.value not in seen:
                for value in values[expr.value]:
                    yield from _signs(value, sign, params, values, seen | {expr.value})
        elif expr.value not in seen:  # a parameter, or a module-level constant (``TILE = tl.constexpr(32)``)
            yield expr.value, sign
        return
    if isinstance(expr, cst.BinaryOperation):
        known = isinstance(expr.operator, (*_GROWS, *_DIVIDES))  # a %, a &, ...: in no known direction
        yield from _signs(expr.left, sign if known else 0, params, values, seen)
        right = sign if isinstance(expr.operator, _GROWS) else -sign if known else 0
        yield from _signs(expr.right, right, params, values, seen)
        return
    if isinstance(expr, cst.UnaryOperation):
        yield from _signs(expr.expression, -sign if isinstance(expr.operator, cst.Minus) else 0, params, values, seen)
        return
    if isinstance(expr, cst.Call):
        name = dotted(expr.func).split(".")[-1]
        args = [a.value for a in expr.args]
        if (counted := cdiv_args(expr)) is not None:
            yield from _signs(counted[0], sign, params, values, seen)
            yield from _signs(counted[1], -sign, params, values, seen)
            return
        for a in args:
            yield from _signs(a, sign if name in _MONOTONE else 0, params, values, seen)
        return
    if isinstance(expr, cst.IfExp):
        yield from _signs(expr.body, sign, params, values, seen)
        yield from _signs(expr.orelse, sign, params, values, seen)
        yield from _signs(expr.test, 0, params, values, seen)
        return
    if isinstance(expr, cst.Integer | cst.Float | cst.SimpleString | cst.Attribute):
        return
    for node in walk(expr):  # a subscript, a comparison, ...: whatever it reads, in no known direction
        if isinstance(node, cst.Name) and node is not expr:
            yield from _signs(node, 0, params, values, seen)
