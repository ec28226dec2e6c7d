"""A count of pieces a loop or a grid is sized by, computed from settings alone: where it is 0, nothing is computed.

Lightning attention's backward (breaker25's la_nodecay) walks each block of ``BLOCK`` steps in sub-blocks of
``CBLOCK``: its launcher computes ``NUM_CBLOCK = BLOCK // CBLOCK`` and the kernel loops ``for j in
range(NUM_CBLOCK)``. A ``CBLOCK`` larger than ``BLOCK`` makes the count 0, the loop runs no step, and the kernel
leaves its outputs' inter-block part unwritten: every size fails the check. ``tune`` spent 2 of its 7 evaluations on
such pairs on an H100 (docs/faults.md l100). The count is read from the source, not learnt by a run:

- a name the kernel's body binds to ``A // B`` (``A // (B * C)``, factors names or integer literals), or a parameter
  the launch passes such a quotient (a local of the launching function bound to it once, or the quotient itself);
- that sizes a ``range`` / ``tl.range`` / ``tl.static_range`` of the kernel (an argument that is the count, or the
  count plus or minus an integer: ``range(NUM_CBLOCK - 1, -1, -1)`` walks back over the same pieces, or the quotient
  as written: ``range(BLOCK // CBLOCK)``), or an axis of the launch's grid (a tuple, or a name bound to one in the
  launching function).

A loop or a launch under an ``if`` (or its ``else``) whose test reads the count or one of its operands (``if BLOCK >=
SUB:`` around ``range(BLOCK // SUB)``, another branch computing where it is 0; ``if NUM > 0:``) is the author's
case of a count of 0, and no rule either (review26, r62: such a kernel lost every ``SUB > BLOCK`` its ``else``
computes right). A quotient that reads a size (``NUM_BLOCK = triton.cdiv(n, BLOCK)``, ``n // BLOCK``) is 0 at some
sizes by design and is no rule here: which operands are settings the space tunes is the caller's to say
(:func:`kernelopt.tuning.launch.space_from_tunables` keeps only the counts whose every name is a knob or a value
the launch gives).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.blocks import dotted, is_jit, launched, named_args, walk
from kernelopt.tunables.signature import param_names
from kernelopt.tunables.syntax import parsed

#: A factor of a quotient: the names one operand may go by (a launching function's local, and the kernel parameter
#: the launch passes it as), or an integer literal.
Factor = tuple[str, ...] | int


@dataclass(frozen=True)
class Count:
    """``name = dividend // divisor`` (each a product of :data:`Factor` s) and what it sizes (``range(NUM_CBLOCK) in
    _bwd_inter_kernel``)."""

    name: str
    dividend: tuple[Factor, ...]
    divisor: tuple[Factor, ...]
    sizes: str

    def formula(self) -> str:
        """``NUM_CBLOCK = BLOCK // CBLOCK``; the quotient alone where a loop takes it as written (no name)."""
        quotient = f"{_product(self.dividend)} // {_product(self.divisor, bracket=True)}"
        return f"{self.name} = {quotient}" if self.name else quotient

    def value(self, of: Mapping[str, int]) -> int | None:
        """The count where ``of`` gives each named factor's value (a factor by any of its names); ``None`` where one
        is not given, or the divisor is 0."""
        top, bottom = _value(self.dividend, of), _value(self.divisor, of)
        return None if top is None or not bottom else top // bottom


def sized_counts(source: str, kernel: str) -> list[Count]:
    """The counts of pieces ``kernel`` (a ``@triton.jit`` function of ``source``) loops over or is launched over that
    are a quotient of products (module docstring); empty where the source does not parse or holds no such kernel."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return []
    fns = [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
    kernels = [f for f in fns if f.name.value == kernel and is_jit(f)]
    if len(kernels) != 1:
        return []
    fn = kernels[0]
    tested = _tested(fn)
    ranged, direct = _ranged(fn, tested)
    out = [Count("", *q, f"{loop} in {kernel}") for loop, q, reads in direct if not reads & _names("", q)]
    for name, value in _bindings(fn):
        if name in ranged and (q := _quotient(value, {})) is not None and (loop := _untested(ranged[name], name, q)):
            out.append(Count(name, *q, f"{loop} in {kernel}"))
    params = set(param_names(fn))
    for host in (f for f in fns if not is_jit(f)):
        local = dict(_bindings(host, once=True))
        around = _tested(host)
        for call in _launches(host, kernel):
            passed = named_args([a for a in call.args if not a.star], param_names(fn))
            alias = {v.value: k for k, v in passed.items() if isinstance(v, cst.Name)}
            for param in sorted(params & ranged.keys() & passed.keys()):
                expr = passed[param]
                q = _quotient(_resolved(expr, local), alias)
                if q is None or around.get(id(call), frozenset()) & _names(dotted(expr), q):
                    continue  # a launch under an ``if`` that tests the count: the author's case of 0
                if loop := _untested(ranged[param], param, q):
                    out.append(Count(param, *q, f"{loop} in {kernel}, passed by {host.name.value}()"))
            for axis, expr in _grid_axes(call, local):
                q = _quotient(_resolved(expr, local), alias)
                name = expr.value if isinstance(expr, cst.Name) else ""
                if q is not None and not around.get(id(call), frozenset()) & _names(name, q):
                    out.append(
                        Count(name or f"axis {axis}", *q, f"axis {axis} of {kernel}'s grid in {host.name.value}()")
                    )
    return list(dict.fromkeys(out))  # two loops over one quotient are one rule


def _names(name: str, q: tuple[tuple[Factor, ...], tuple[Factor, ...]]) -> set[str]:
    """The names a count goes by: its own (where it has one) and each of its operands'."""
    return {*([name] if name else []), *(n for f in (*q[0], *q[1]) if not isinstance(f, int) for n in f)}


def _untested(
    loops: list[tuple[str, frozenset[str]]], name: str, q: tuple[tuple[Factor, ...], tuple[Factor, ...]]
) -> str:
    """The first loop over the count ``name`` that no ``if`` around it tests (by the count's name or an operand's);
    ``""`` where each is so tested."""
    names = _names(name, q)
    return next((loop for loop, reads in loops if not reads & names), "")


def _tested(fn: cst.FunctionDef) -> dict[int, frozenset[str]]:
    """By a node's id, each ``for`` loop and call of ``fn``'s body: the names the tests of the ``if`` statements
    around it read (its ``else`` branches too)."""
    out: dict[int, frozenset[str]] = {}

    def visit(node: cst.CSTNode, reads: frozenset[str]) -> None:
        if isinstance(node, cst.For | cst.Call):
            out[id(node)] = reads
        if isinstance(node, cst.If):
            inner = reads | {n.value for n in walk(node.test) if isinstance(n, cst.Name)}
            visit(node.test, reads)
            visit(node.body, inner)
            if node.orelse is not None:
                visit(node.orelse, inner)
            return
        for child in node.children:
            visit(child, reads)

    visit(fn.body, frozenset())
    return out


def _product(factors: tuple[Factor, ...], *, bracket: bool = False) -> str:
    text = " * ".join(str(f) if isinstance(f, int) else f[0] for f in factors)
    return f"({text})" if bracket and len(factors) > 1 else text


def _value(factors: tuple[Factor, ...], of: Mapping[str, int]) -> int | None:
    values = []
    for f in factors:
        v = f if isinstance(f, int) else next((of[n] for n in f if n in of), None)
        if v is None:
            return None
        values.append(v)
    return math.prod(values)


def _ranged(
    fn: cst.FunctionDef, tested: Mapping[int, frozenset[str]]
) -> tuple[
    dict[str, list[tuple[str, frozenset[str]]]],
    list[tuple[str, tuple[tuple[Factor, ...], tuple[Factor, ...]], frozenset[str]]],
]:
    """Name -> the loops it sizes (``range(NUM_CBLOCK)``), each with the names the ``if`` tests around it read
    (``tested``): each name a ``range`` / ``tl.range`` / ``tl.static_range`` of ``fn``'s body takes as an argument,
    bare or plus or minus an integer literal; and (the loop, the quotient, those names) of each such argument that is
    a quotient as written (``range(BLOCK // CBLOCK)``)."""
    out: dict[str, list[tuple[str, frozenset[str]]]] = {}
    direct: list[tuple[str, tuple[tuple[Factor, ...], tuple[Factor, ...]], frozenset[str]]] = []
    for node in walk(fn.body):
        if not (isinstance(node, cst.For) and isinstance(node.iter, cst.Call)):
            continue
        name = dotted(node.iter.func)
        parts = name.split(".")
        if name != "range" and not (parts[0] in ("tl", "triton") and parts[-1] in ("range", "static_range")):
            continue
        for arg in node.iter.args:
            value = arg.value
            if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add | cst.Subtract):
                value = value.left if isinstance(value.right, cst.Integer) else value.right
            reads = tested.get(id(node), frozenset())
            if isinstance(value, cst.Name):
                out.setdefault(value.value, []).append((f"{name}({value.value})", reads))
            elif (q := _quotient(value, {})) is not None:
                direct.append((f"{name}({_product(q[0])} // {_product(q[1], bracket=True)})", q, reads))
    return out, direct


def _bindings(fn: cst.FunctionDef, *, once: bool = False) -> Iterator[tuple[str, cst.BaseExpression]]:
    """(name, value) of each plain assignment of ``fn``'s body (``Q = A // B``, ``Q: tl.constexpr = A // B``);
    ``once``: only the names bound once (a local assigned twice has no one value)."""
    seen: dict[str, list[cst.BaseExpression]] = {}
    for node in walk(fn.body):
        if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            seen.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    seen.setdefault(t.target.value, []).append(node.value)
    for name, values in seen.items():
        if not once or len(values) == 1:
            yield from ((name, v) for v in values)


def _resolved(expr: cst.BaseExpression, local: Mapping[str, cst.BaseExpression]) -> cst.BaseExpression:
    """``expr``, or the value a local of that name is bound to once."""
    return local.get(expr.value, expr) if isinstance(expr, cst.Name) else expr


def _quotient(
    expr: cst.BaseExpression, alias: Mapping[str, str]
) -> tuple[tuple[Factor, ...], tuple[Factor, ...]] | None:
    """(dividend, divisor) of ``A // B`` whose operands are products of names and integer literals; a name goes by
    itself and by the kernel parameter ``alias`` says the launch passes it as."""
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.FloorDivide)):
        return None
    top, bottom = _factors(expr.left, alias), _factors(expr.right, alias)
    if top is None or bottom is None or all(isinstance(f, int) for f in (*top, *bottom)):
        return None
    return top, bottom


def _factors(expr: cst.BaseExpression, alias: Mapping[str, str]) -> tuple[Factor, ...] | None:
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        left, right = _factors(expr.left, alias), _factors(expr.right, alias)
        return None if left is None or right is None else (*left, *right)
    if isinstance(expr, cst.Integer):
        return (int(expr.value, 0),)
    if isinstance(expr, cst.Name):
        names = (expr.value, alias[expr.value]) if expr.value in alias else (expr.value,)
        return (names,)
    return None


def _launches(host: cst.FunctionDef, kernel: str) -> Iterator[cst.Call]:
    """The calls ``kernel[grid](...)`` of ``host``'s body (through a launch wrapper too)."""
    for node in walk(host.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Subscript)
            and dotted(launched(node.func.value)) == kernel
        ):
            yield node


def _grid_axes(call: cst.Call, local: Mapping[str, cst.BaseExpression]) -> Iterator[tuple[int, cst.BaseExpression]]:
    """(axis, the expression it is) of a launch's grid written as a tuple, or as a name bound once to one."""
    sub = call.func
    if not isinstance(sub, cst.Subscript) or len(sub.slice) != 1:
        return
    index = sub.slice[0].slice
    grid = index.value if isinstance(index, cst.Index) else None
    grid = _resolved(grid, local) if grid is not None else None
    if isinstance(grid, cst.Lambda) and len(grid.params.params) == 1:  # lambda META: (META["BLOCK"] // ..., ...)
        grid = grid.body.visit(_MetaNames(grid.params.params[0].name.value))
    if isinstance(grid, cst.Tuple | cst.List):
        for axis, el in enumerate(grid.elements):
            if not isinstance(el, cst.StarredElement):
                yield axis, el.value


class _MetaNames(cst.CSTTransformer):
    """A grid function's ``META["BLOCK"]`` read as the setting's own name, ``BLOCK`` (review26, r63: a grid written
    as a lambda had no count read, so ``lambda META: (META["BLOCK"] // META["SUB"], ...)`` was proposed at 0
    programs)."""

    def __init__(self, meta: str) -> None:
        super().__init__()
        self.meta = meta

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if dotted(original_node.value) != self.meta or len(original_node.slice) != 1:
            return updated_node
        index = original_node.slice[0].slice
        key = index.value if isinstance(index, cst.Index) else None
        if isinstance(key, cst.SimpleString) and isinstance(name := key.evaluated_value, str) and name.isidentifier():
            return cst.Name(name)
        return updated_node
