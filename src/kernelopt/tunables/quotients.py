"""A tile a kernel's body divides by another setting to size a range: its least value, and the divisor's hold.

torchao's MX fp8 dequantization derives ``SCALE_BLOCKS_PER_COL_TILE: tl.constexpr = COL_TILE_SIZE // SCALE_BLOCK_SIZE``
in its body (the scales a tile reads, one per ``SCALE_BLOCK_SIZE = 32`` values) and walks them with
``tl.arange(0, SCALE_BLOCKS_PER_COL_TILE)``. Below the divisor the quotient is 0, and ``tl.arange(0, 0)`` fails every
size (the interpreter: "arange's end argument must be greater than the start argument"; a GPU compile refuses it
too): ``COL_TILE_SIZE = 16`` is no candidate at all, and a search that proposes it spends a candidate on it (breaker14
b5). The rule, on the kernel's own body: a name bound to ``TILE // D`` (``D`` an integer literal or a name whose value
the launch gives) whose ``tl.arange`` it sizes makes ``D`` the least value of ``TILE`` (:func:`quotient_floors`).

The divisor, a ``tl.constexpr`` parameter there, is the data's grain where the tile it divides is itself a
parameter: the quotient counts the groups of ``D`` values a tile holds (one scale each), so another ``D`` pairs values
with other scales; it is held at its value, never a knob (:func:`quotient_divisors`). Where the divided extent is
fixed (a module constant: ``KS = SPAN // BLOCK_D`` with a loop over ``BLOCK_D`` pieces, tests/test_tile_growth.py),
the divisor is a count of pieces, a knob as before.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping

import libcst as cst

from kernelopt.tunables.arithmetic import integer_value
from kernelopt.tunables.blocks import dotted, walk
from kernelopt.tunables.filters import constexpr_params
from kernelopt.tunables.syntax import NODES_KEPT, parsed


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
    out: dict[str, tuple[int, str]] = {}
    for target, tile, right in _quotients(fns[0]):
        divisor = integer_value(right, known, operators=(), calls=())  # a literal or a given name, as ever
        if divisor is None or divisor < 2:
            continue
        out[tile] = (
            divisor,
            f"{kernel} sizes tl.arange(0, {target}) with {target} = {tile} // {dotted(right) or divisor} "
            f"({divisor}), which is 0 below it",
        )
    return out


def quotient_divisors(kernel: cst.FunctionDef) -> dict[str, str]:
    """``tl.constexpr`` parameter -> why it is the grain a quotient of ``kernel``'s body counts (module docstring);
    read once per kernel node."""
    return dict(_divisors(kernel))


@functools.lru_cache(maxsize=NODES_KEPT)
def _divisors(kernel: cst.FunctionDef) -> dict[str, str]:
    params = constexpr_params(kernel)
    return {
        right.value: (
            f"'{right.value}' divides the tile {tile} into the groups tl.arange(0, {target}) walks in "
            f"{kernel.name.value}'s body ({target} = {tile} // {right.value}): a grain of the data, so another value "
            "changes what the kernel computes"
        )
        for target, tile, right in _quotients(kernel)
        if isinstance(right, cst.Name) and right.value in params and tile in params and right.value != tile
    }


def _quotients(kernel: cst.FunctionDef) -> Iterator[tuple[str, str, cst.BaseExpression]]:
    """(the bound name, the tile, the divisor) of each ``Q = TILE // D`` of ``kernel``'s body whose ``Q`` sizes a
    ``tl.arange``."""
    ranged = {
        a.value.value
        for n in walk(kernel.body)
        if isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "arange"
        for a in n.args
        if isinstance(a.value, cst.Name)
    }
    for n in walk(kernel.body):
        target, value = _bound(n)
        if (
            target in ranged
            and isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.FloorDivide)
            and isinstance(value.left, cst.Name)
        ):
            yield target, value.left.value, value.right


def _bound(node: cst.CSTNode) -> tuple[str | None, cst.BaseExpression | None]:
    """The name an assignment binds and its value (``Q: tl.constexpr = A // B`` or ``Q = A // B``)."""
    if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
        return node.target.value, node.value
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value, node.value
    return None, None
