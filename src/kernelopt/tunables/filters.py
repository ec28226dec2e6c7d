"""Constexprs that shape what a kernel computes, read from its body: a filter's size, a stencil's radius.

A tile (``BLOCK``) decides how a kernel walks the problem: it spans a ``tl.arange``, multiplies a program id or a
stride, steps a loop; any legal value gives the same result. A convolution's kernel size (``KSIZE``) decides *what*
is read: the loop ``for k in tl.static_range(KSIZE)`` adds ``k`` to the index of a load (each ``k`` reads another
input element), and ``offs + k - KSIZE // 2`` centres the window. Another value reads another window: another
operator, and every candidate of a search over it is wrong (tuneleft7). Such a constexpr is never a knob.

The rule, on the kernel's own body (its local assignments followed, control flow ignored): a ``tl.constexpr``
parameter is a filter size when it is the count of a loop (``range(N)``, ``tl.static_range(N)``, ``tl.range(N)``,
``range(0, N)``) whose variable the index of a ``tl.load`` / ``tl.store`` pointer reads *additively*: not as a
factor of a product, not inside a call (``tl.arange``, a block pointer's shape), not in a ``+=`` that advances a
pointer. A loop whose variable multiplies a block (``u * BLOCK``: an unrolled walk over whole blocks), or whose
count also scales the index (``row = pid * ROWS + r``: a tile of rows a program), is no such loop; a constexpr
added to an index without such a loop (a lock buffer's second half, ``Lock + GROUP_SIZE_M``) is left alone: the
buffer is sized by it, any value is correct.

A constexpr the body reads only under a true division (``/``) is no tile either: ``(residual + bias) / mp_size``
(DeepSpeed's residual add, the model-parallel size) scales values, and a quotient of ``/`` is a float, never an index,
a shape or a count (:func:`divisors`; breaker14 b3, where ``tune`` searched ``mp_size`` 1..8 and every candidate failed
its check).

Nor is a tile whose ``tl.arange`` a store scatters into a layout: a store whose offset takes an arange ``//`` or ``%``
an integer literal (torchao's MX scale swizzle, ``dest = (rows % 32) * 16 + (rows // 32) * 4 + cols`` over
``rows = tl.arange(0, BLOCK_ROWS)``, ``cols = tl.arange(0, BLOCK_COLS)``: a 128 x 4 block stored as 32 x 16) writes
each element where the layout's literals put it for that tile, and every tile its offset reads is the layout's
(:func:`layout_tiles`; breaker14 b4, where ``tune`` spent its five candidates on other tiles, each refused by its
check: no other tile is right at any size).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import libcst as cst

from kernelopt.tunables.blocks import child_nodes, dotted, walk
from kernelopt.tunables.signature import params_of
from kernelopt.tunables.syntax import NODES_KEPT

_LOOPS = frozenset({"range", "static_range"})
_ACCESSES = frozenset({"load", "store"})


def _kernel_locals(kernel: cst.FunctionDef) -> tuple[dict[str, list[cst.BaseExpression]], dict[str, str]]:
    """The local assignments of ``kernel`` by name (``+=`` left out: a pointer's advance), and the loop variables
    with the name their loop counts to (``for k in tl.static_range(KSIZE)`` -> ``{"k": "KSIZE"}``)."""
    values: dict[str, list[cst.BaseExpression]] = {}
    counted: dict[str, str] = {}
    for node in walk(kernel.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    values.setdefault(t.target.value, []).append(node.value)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            values.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.For) and isinstance(node.target, cst.Name) and isinstance(node.iter, cst.Call):
            stop = _count_of(node.iter)
            if stop is not None:
                counted[node.target.value] = stop
    return values, counted


def _count_of(call: cst.Call) -> str | None:
    """The name a loop counts to: ``range(N)`` / ``range(0, N)`` (any of ``tl.range``, ``tl.static_range``)."""
    if dotted(call.func).split(".")[-1] not in _LOOPS:
        return None
    args = [a for a in call.args if a.keyword is None]
    if len(args) == 1:
        stop = args[0].value
    elif len(args) == 2 and isinstance(args[0].value, cst.Integer) and args[0].value.value == "0":
        stop = args[1].value
    else:
        return None
    return stop.value if isinstance(stop, cst.Name) else None


def _additive(expr: cst.CSTNode, values: dict[str, list[cst.BaseExpression]], seen: set[str]) -> Iterator[str]:
    """The names ``expr`` reads additively (through the local assignments of the names it reads): not under a
    product, not inside a ``tl.arange``."""
    if isinstance(expr, cst.Call):  # tl.arange's range, a block pointer's shape or offsets: no element's offset
        return
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        return
    if isinstance(expr, cst.Name):
        yield expr.value
        if expr.value not in seen:
            seen.add(expr.value)
            for value in values.get(expr.value, []):
                yield from _additive(value, values, seen)
        return
    if isinstance(expr, cst.Attribute):
        return
    for child in child_nodes(expr):
        yield from _additive(child, values, seen)


def _scaled(
    expr: cst.CSTNode, values: dict[str, list[cst.BaseExpression]], seen: set[str], under: bool
) -> Iterator[str]:
    """The names ``expr`` reads as a factor of a product (``pid * ROWS``: a tile's stride), through its locals."""
    if isinstance(expr, cst.Call):
        return
    if isinstance(expr, cst.Name):
        if under:
            yield expr.value
        if expr.value not in seen:
            seen.add(expr.value)
            for value in values.get(expr.value, []):
                yield from _scaled(value, values, seen, under)
        return
    if isinstance(expr, cst.Attribute):
        return
    product = isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply)
    for child in child_nodes(expr):
        yield from _scaled(child, values, seen, under or product)


def filter_sizes(kernel: cst.FunctionDef) -> dict[str, str]:
    """``tl.constexpr`` parameter -> why it is a filter size of ``kernel`` (module docstring); read once per kernel
    node (a tuning session analyses the same tree for every candidate)."""
    return dict(_filter_sizes(kernel))


def constexpr_params(kernel: cst.FunctionDef) -> set[str]:
    """The parameters of ``kernel`` annotated ``tl.constexpr``."""
    return {
        p.name.value
        for p in params_of(kernel)
        if p.annotation is not None and dotted(p.annotation.annotation).split(".")[-1] == "constexpr"
    }


@functools.lru_cache(maxsize=NODES_KEPT)
def _filter_sizes(kernel: cst.FunctionDef) -> dict[str, str]:
    params = constexpr_params(kernel)
    values, counted = _kernel_locals(kernel)
    read: set[str] = set()
    scaled: set[str] = set()
    for node in walk(kernel.body):
        if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] in _ACCESSES and node.args:
            read.update(_additive(node.args[0].value, values, set()))
            scaled.update(_scaled(node.args[0].value, values, set(), False))
    out: dict[str, str] = {}
    for var, stop in sorted(counted.items()):
        # a count that also scales the index (``pid * ROWS + r``) walks a tile of rows: any value covers them all
        if var in read and stop in params and stop not in scaled and stop not in out:
            out[stop] = (
                f"'{stop}' counts the loop over {var}, which the index of a load or store adds unscaled (each {var} "
                f"reads other elements): another value reads another window, so it changes what the kernel computes "
                "(a filter size, not a tile)"
            )
    return out


#: the calls whose arguments are an index, a pointer or a shape (``tl.load(x_ptr + tl.arange(0, BLOCK)) / n``: BLOCK
#: is a tile there, though the load's value is divided; docs/faults.md break15 b10)
_INDEX_CALLS = frozenset({"arange", "load", "store", "zeros", "full", "make_block_ptr", "reshape", "broadcast_to"})


def divisors(kernel: cst.FunctionDef) -> dict[str, str]:
    """``tl.constexpr`` parameter -> why it changes what ``kernel`` computes: every read of it in the body is an
    operand under a true division (module docstring); read once per kernel node."""
    return dict(_divisors(kernel))


@functools.lru_cache(maxsize=NODES_KEPT)
def _divisors(kernel: cst.FunctionDef) -> dict[str, str]:
    reads: dict[str, list[bool]] = {}

    def under(node: cst.CSTNode, divided: bool) -> None:
        if isinstance(node, cst.Name):
            reads.setdefault(node.value, []).append(divided)
            return
        if isinstance(node, cst.Attribute):  # ``x.dtype``: the name is read, not divided
            under(node.value, False)
            return
        if isinstance(node, cst.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] in _INDEX_CALLS:
            for child in child_nodes(node):  # an index, a pointer or a shape, whatever its value is divided by
                under(child, False)
            return
        here = divided or (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide))
        for child in child_nodes(node):
            under(child, here)

    under(kernel.body, False)
    return {
        name: (
            f"'{name}' is read only as an operand of a true division (/) in {kernel.name.value}'s body: it scales "
            "values, never an index, a shape or a count, so another value changes what the kernel computes"
        )
        for name in sorted(constexpr_params(kernel))
        if reads.get(name) and all(reads[name])
    }


def layout_tiles(kernel: cst.FunctionDef) -> dict[str, str]:
    """``tl.constexpr`` parameter -> why it is a tile of the layout a store of ``kernel`` scatters into (module
    docstring); read once per kernel node."""
    return dict(_layout_tiles(kernel))


@functools.lru_cache(maxsize=NODES_KEPT)
def _layout_tiles(kernel: cst.FunctionDef) -> dict[str, str]:
    params = constexpr_params(kernel)
    values, _ = _kernel_locals(kernel)
    out: dict[str, str] = {}
    for node in walk(kernel.body):
        if not (isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "store" and node.args):
            continue
        offset = node.args[0].value
        if not _permuted(offset, values, params, set()):
            continue
        for tile in sorted(_aranged(offset, values, params, set()) - set(out)):
            out[tile] = (
                f"'{tile}' spans a tl.arange that a store of {kernel.name.value} scatters by an integer literal's "
                "// or % (a layout's block): another value stores elements where the layout does not put them, so it "
                "changes what the kernel computes"
            )
    return out


def _aranged(
    expr: cst.CSTNode, values: dict[str, list[cst.BaseExpression]], params: set[str], seen: set[str]
) -> set[str]:
    """The parameters ``params`` whose ``tl.arange`` ``expr`` reads, its locals followed."""
    out: set[str] = set()
    for n in walk(expr):
        if isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "arange":
            out |= {a.value.value for a in n.args if isinstance(a.value, cst.Name) and a.value.value in params}
        elif isinstance(n, cst.Name) and n.value in values and n.value not in seen:
            seen.add(n.value)
            for v in values[n.value]:
                out |= _aranged(v, values, params, seen)
    return out


def _program_placed(expr: cst.CSTNode, values: dict[str, list[cst.BaseExpression]], seen: set[str]) -> bool:
    """``expr`` (its locals followed) reads ``tl.program_id``: an element's index in the whole tensor
    (``pid * BLOCK + tl.arange(0, BLOCK)``), which a literal's ``//`` or ``%`` maps the same way whatever the tile
    (an even/odd split, ``(offs % 2) * half + offs // 2``), where a tile's own arange (``rows % 32``) is its layout's
    (docs/faults.md break15 b11)."""
    for n in walk(expr):
        if isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] == "program_id":
            return True
        if isinstance(n, cst.Name) and n.value in values and n.value not in seen:
            seen.add(n.value)
            if any(_program_placed(v, values, seen) for v in values[n.value]):
                return True
    return False


def _permuted(expr: cst.CSTNode, values: dict[str, list[cst.BaseExpression]], params: set[str], seen: set[str]) -> bool:
    """``expr`` (its locals followed) takes an arange of one of ``params`` ``//`` or ``%`` an integer literal."""
    for n in walk(expr):
        if (
            isinstance(n, cst.BinaryOperation)
            and isinstance(n.operator, cst.FloorDivide | cst.Modulo)
            and isinstance(n.right, cst.Integer)
            and _aranged(n.left, values, params, set())
            and not _program_placed(n.left, values, set())
        ):
            return True
        if isinstance(n, cst.Name) and n.value in values and n.value not in seen:
            seen.add(n.value)
            if any(_permuted(v, values, params, seen) for v in values[n.value]):
                return True
    return False
