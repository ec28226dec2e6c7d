"""A tile a kernel's body divides by another setting to size a range: its least value.

torchao's MX fp8 dequantization derives ``SCALE_BLOCKS_PER_COL_TILE: tl.constexpr = COL_TILE_SIZE // SCALE_BLOCK_SIZE``
in its body (the scales a tile reads, one per ``SCALE_BLOCK_SIZE = 32`` values) and walks them with
``tl.arange(0, SCALE_BLOCKS_PER_COL_TILE)``. Below the divisor the quotient is 0, and ``tl.arange(0, 0)`` fails every
size (the interpreter: "arange's end argument must be greater than the start argument"; a GPU compile refuses it
too): ``COL_TILE_SIZE = 16`` is no candidate at all, and a search that proposes it spends a candidate on it (breaker14
b5). The rule, on the kernel's own body: a name bound to ``TILE // D`` (``D`` an integer literal or a name whose value
the launch gives) whose ``tl.arange`` it sizes makes ``D`` the least value of ``TILE``.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from kernelopt.tunables.blocks import dotted, walk
from kernelopt.tunables.syntax import parsed


def quotient_floors(source: str, kernel: str, known: Mapping[str, int]) -> dict[str, tuple[int, str]]:
    """Setting -> (its least value, why) in the ``@triton.jit`` function ``kernel`` of ``source`` (module docstring);
    ``known``: the values the launch gives the kernel's other parameters (``SCALE_BLOCK_SIZE`` -> 32). Empty when the
    source does not parse or holds no such kernel."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return {}
    fns = [n for n in walk(module) if isinstance(n, cst.FunctionDef) and n.name.value == kernel]
    if len(fns) != 1:
        return {}
    body = fns[0].body
    ranged = {
        a.value.value
        for n in walk(body)
        if isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "arange"
        for a in n.args
        if isinstance(a.value, cst.Name)
    }
    out: dict[str, tuple[int, str]] = {}
    for n in walk(body):
        target, value = _bound(n)
        if target not in ranged or not isinstance(value, cst.BinaryOperation):
            continue
        if not isinstance(value.operator, cst.FloorDivide) or not isinstance(value.left, cst.Name):
            continue
        divisor = _value(value.right, known)
        if divisor is None or divisor < 2:
            continue
        tile = value.left.value
        out[tile] = (
            divisor,
            f"{kernel} sizes tl.arange(0, {target}) with {target} = {tile} // {dotted(value.right) or divisor} "
            f"({divisor}), which is 0 below it",
        )
    return out


def _bound(node: cst.CSTNode) -> tuple[str | None, cst.BaseExpression | None]:
    """The name an assignment binds and its value (``Q: tl.constexpr = A // B`` or ``Q = A // B``)."""
    if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
        return node.target.value, node.value
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value, node.value
    return None, None


def _value(expr: cst.BaseExpression, known: Mapping[str, int]) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.evaluated_value)
    if isinstance(expr, cst.Name):
        return known.get(expr.value)
    return None
