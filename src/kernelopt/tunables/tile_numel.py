"""A tile whose one side the launch computes from a size: Triton's limit on a tile's values at sizes ``SHAPES`` never
names (pure).

Triton refuses a tensor of more than :data:`~kernelopt.tunables.knobs.TRITON_MAX_TENSOR_NUMEL` values, on a GPU and
in its interpreter alike. A tile ``(ROWS, BLOCK_N)`` whose ``BLOCK_N = triton.next_power_of_2(n_cols)`` the launch
computes holds ``ROWS * BLOCK_N`` values: the original ``ROWS = 4`` under ``assert n_cols <= 65536`` holds 262144 at
most, and a tuned ``ROWS = 64`` fails from 16385 columns, sizes the original runs and ``SHAPES`` (a few thousand
columns) never names (v102, docs/faults.md). The knob's own limit (``ROWS`` at most 1048576) reads one side alone.

:func:`numel_reading` compares each launch's tiles in the original and the edited text: where the sides the edit may
move (an integer at the launch, a local bound once to one, a module constant) hold more values together than the
original's, and the side computed from a size reaches further under the original's product than under the new one,
the edit needs a guard by that size. Every computed side read rises with its size alone (``next_power_of_2(n)``, the
size itself, ``min``/``max`` of one with an integer, a helper's return of one), so the tile stays within its limit
exactly up to one size (:meth:`_Computed.largest`): where the one moved side is set in the launching function, a
:class:`Ceiling` hands the guard writer ``if n_cols <= 1048576 // 32:`` over ``ROWS = 32``, the original the
fallback (refusals23, u30: the edit was refused outright); elsewhere (an autotune config, a module constant, a table's
row over another size, a floor past the limit) it is refused with one line naming the guard it lacked. A table's row
(``if n_cols <= 3000:`` / ``ROWS = 32``) is read with its test: a row over the computed side's size reaches no
further than its bound. A kernel multiplying tiles with ``tl.dot`` is left out (:func:`_multiplies`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.metadata import CodeRange

from kernelopt.tunables.bindings import assigned_once, made_by, reached_names, rebound
from kernelopt.tunables.blocks import BLOCK_PTR_ARGS, DESCRIPTOR_ARGS, call_args, dotted, launched, named_args, walk
from kernelopt.tunables.conditions import raised_on
from kernelopt.tunables.decorator_words import decorator_configs
from kernelopt.tunables.filters import constexpr_params
from kernelopt.tunables.knobs import TRITON_MAX_TENSOR_NUMEL
from kernelopt.tunables.signature import param_names
from kernelopt.tunables.syntax import NODES_KEPT

#: the tensor makers whose first argument is a shape (``tl.zeros((ROWS, BLOCK_N), dtype=...)``)
_SHAPED = ("zeros", "full", "empty")

#: the makers of a block whose ``block_shape`` is a tile, with the names of their arguments in order
_BLOCK_MAKERS = {"make_block_ptr": BLOCK_PTR_ARGS, "make_tensor_descriptor": DESCRIPTOR_ARGS}

#: Whose limit a tile's is where Triton's own (:data:`~kernelopt.tunables.knobs.TRITON_MAX_TENSOR_NUMEL`).
_TRITON = "in Triton"

#: One side of a tile: a constexpr parameter of the kernel, or an integer literal.
Side = str | int


@dataclass(frozen=True)
class _Tile:
    """A tile of a kernel's body: its sides in axis order and the node that spans them (for its line)."""

    sides: tuple[Side, ...]
    node: cst.CSTNode
    most: int = TRITON_MAX_TENSOR_NUMEL  # the most values it may hold
    by: str = _TRITON  # whose limit that is (:data:`_TRITON`, or the kernel's own static assert)


@dataclass(frozen=True)
class _Computed:
    """A side the launch computes from a size (``triton.next_power_of_2(n_cols)``): the size's text and the largest
    value it takes where the launching function runs (an assert's bound, a ``min`` with an integer; else
    Triton's limit itself)."""

    text: str
    most: int
    power: bool = False  # rounded up to a power of two (``next_power_of_2``)
    floor: int = 0  # held at least this (``max(16, ...)``)
    falling: bool = False  # falls as its size grows (``1024 // next_power_of_2(n)``): ``most`` at the least size

    def largest(self, most: int) -> int | None:
        """The largest size at which this side is at most ``most``: every form read rises with its size alone, so
        the side stays within ``most`` exactly at the sizes up to it (``next_power_of_2(n) <= 40`` where ``n <=
        32``); ``None`` where no size keeps it there (a floor above ``most``)."""
        if self.floor > most or most < 1 or self.falling:
            return None
        return 1 << (most.bit_length() - 1) if self.power else most


def _int(node: cst.CSTNode | None) -> int | None:
    return int(node.evaluated_value) if isinstance(node, cst.Integer) else None


def _ranged(expr: cst.CSTNode, params: set[str], ranges: Mapping[str, str]) -> str | None:
    """The one constexpr parameter ``expr``'s values run along: a ``tl.arange(0, P)`` it holds, or a local that
    does (``rows = pid * ROWS + tl.arange(0, ROWS)``); ``None`` where none or several."""
    found: set[str] = set()
    for node in walk(expr):
        if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "arange" and len(node.args) == 2:
            end = node.args[1].value
            if _int(node.args[0].value) == 0 and isinstance(end, cst.Name) and end.value in params:
                found.add(end.value)
        elif isinstance(node, cst.Name) and node.value in ranges:
            found.add(ranges[node.value])
    return found.pop() if len(found) == 1 else None


def _axis(node: cst.Subscript) -> int | None:
    """The axis a subscript ``x[:, None]`` / ``x[None, :]`` lays ``x`` along: the place of its one full slice among
    ``None``s; ``None`` for any other subscript."""
    full = [
        i
        for i, element in enumerate(node.slice)
        if isinstance(element.slice, cst.Slice) and element.slice.lower is None and element.slice.upper is None
    ]
    nones = [
        i
        for i, element in enumerate(node.slice)
        if isinstance(element.slice, cst.Index)
        and isinstance(element.slice.value, cst.Name)
        and element.slice.value.value == "None"
    ]
    return full[0] if len(full) == 1 and len(full) + len(nones) == len(node.slice) >= 2 else None


def _range_locals(kernel: cst.FunctionDef, params: set[str]) -> dict[str, str]:
    """Each local ``kernel`` binds once to a range of one constexpr parameter (``rows = pid * ROWS + tl.arange(0,
    ROWS)``) -> that parameter."""
    ranges: dict[str, str] = {}
    for name, value in assigned_once(kernel).items():
        side = _ranged(value, params, ranges)
        if side is not None:
            ranges[name] = side
    return ranges


def _tiles(kernel: cst.FunctionDef) -> list[_Tile]:
    """The tiles of two or more sides ``kernel``'s body builds: ranges laid along axes of one statement
    (``rows[:, None] * n_cols + cols[None, :]``), or of several through the locals that carry them (``row_start =
    rows[:, None] * N`` then ``offs = row_start + cols[None, :]``: wrongkernel30, v160, read as no tile before), and
    shapes a maker is given (``tl.zeros((ROWS, BLOCK_N))``)."""
    params = constexpr_params(kernel)
    ranges = _range_locals(kernel, params)
    out: list[_Tile] = []
    laid: dict[str, dict[int, str]] = {}  # a local's axes (``row_start = rows[:, None] * N``: axis 0, ROWS)
    for line in (n for n in walk(kernel.body) if isinstance(n, cst.SimpleStatementLine)):
        axes: dict[int, str] = {}
        for node in walk(line):
            if isinstance(node, cst.Subscript) and (axis := _axis(node)) is not None:
                side = _ranged(node.value, params, ranges)
                if side is not None:
                    axes.setdefault(axis, side)
            if isinstance(node, cst.Name) and node.value in laid:
                for axis, side in laid[node.value].items():
                    axes.setdefault(axis, side)
        for b in (b for small in line.body for b in made_by(small)):
            laid[b.name] = {**laid.get(b.name, {}), **axes}
            if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] in _SHAPED and node.args:
                shape = node.args[0].value
                if isinstance(shape, cst.Tuple | cst.List) and len(shape.elements) >= 2:
                    sides = [e.value.value if isinstance(e.value, cst.Name) else _int(e.value) for e in shape.elements]
                    if all(s is not None for s in sides):
                        out.append(_Tile(tuple(s for s in sides if s is not None), node))
        if len(axes) >= 2 and sorted(axes) == list(range(len(axes))):
            out.append(_Tile(tuple(axes[i] for i in range(len(axes))), line))
    return out + _budgets(kernel, params)


def crossed_ranges(kernel: cst.FunctionDef) -> frozenset[str]:
    """The constexpr parameters whose ranges ``kernel`` lays along a tile's second axis in one place and its first in
    another (``rk[None, :]`` in A's pointers, ``rk[:, None]`` in B's; a block pointer's or descriptor's block shape
    ``(BLOCK_M, BLOCK_K)`` beside ``(BLOCK_K, BLOCK_N)``): the shared dimension K of a product ``A @ B`` the kernel
    multiplies with ``tl.dot``, whatever the knob is named. A block shape bound to a local once is read through it;
    one kernelopt does not read (a local bound twice, a conditional, a side computed) is unknown, every constexpr it
    names taken as laid on both axes (wrongkernel30, v151: ``block_shape=a_block`` was read as no shape, and
    ``tunables --set BLOCK_K=16`` of 32 wrote a dot of int8 operands a GPU does not compile)."""
    params = constexpr_params(kernel)
    ranges = _range_locals(kernel, params)
    once = assigned_once(kernel)
    axes: dict[str, set[int]] = {}
    for node in walk(kernel.body):
        if isinstance(node, cst.Subscript) and (axis := _axis(node)) is not None and len(node.slice) == 2:
            side = _ranged(node.value, params, ranges)
            if side is not None:
                axes.setdefault(side, set()).add(axis)
        names = _BLOCK_MAKERS.get(dotted(node.func).split(".")[-1]) if isinstance(node, cst.Call) else None
        shape = call_args(node, names).get("block_shape") if names is not None else None  # type: ignore[arg-type]
        if isinstance(shape, cst.Name) and shape.value in once:  # ``a_block = (BLOCK_M, BLOCK_K)``: v151
            shape = once[shape.value]
        if isinstance(shape, cst.Tuple | cst.List) and len(shape.elements) == 2:  # A's (BLOCK_M, BLOCK_K), B's
            for axis, element in enumerate(shape.elements):  # (BLOCK_K, BLOCK_N): a block's side i lies on axis i
                if isinstance(element.value, cst.Name) and element.value.value in params:
                    axes.setdefault(element.value.value, set()).add(axis)
                elif not isinstance(element.value, cst.Integer):  # a side computed (``BLOCK_K // 2``): unknown
                    for name in reached_names(element.value, kernel) & set(params):
                        axes.setdefault(name, set()).update((0, 1))
        elif shape is not None:  # a shape kernelopt does not read (a local bound twice, a conditional): unknown
            for name in reached_names(shape, kernel) & set(params):
                axes.setdefault(name, set()).update((0, 1))
    return frozenset(side for side, laid in axes.items() if laid == {0, 1})


def _budgets(kernel: cst.FunctionDef, params: set[str]) -> list[_Tile]:
    """The tiles ``kernel`` bounds itself: ``tl.static_assert(ROWS * BLOCK_N <= 65536)`` (or ``<``), a product of
    constexpr parameters and integers held to an integer (the author's register budget, v103)."""
    out: list[_Tile] = []
    for node in walk(kernel.body):
        if not (isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "static_assert" and node.args):
            continue
        test = node.args[0].value
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            continue
        op, bound = test.comparisons[0].operator, _int(test.comparisons[0].comparator)
        most = bound if isinstance(op, cst.LessThanEqual) else bound - 1 if isinstance(op, cst.LessThan) else None
        sides = _product_sides(test.left, params)
        if most is not None and bound is not None and sides is not None and len(sides) >= 2:
            out.append(_Tile(sides, node, min(most, TRITON_MAX_TENSOR_NUMEL), "by its tl.static_assert"))
    return out


def _product_sides(expr: cst.BaseExpression, params: set[str]) -> tuple[Side, ...] | None:
    """The constexpr parameters and integers whose product ``expr`` is (``ROWS * BLOCK_N``); ``None`` otherwise."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        left, right = _product_sides(expr.left, params), _product_sides(expr.right, params)
        return (*left, *right) if left is not None and right is not None else None
    if isinstance(expr, cst.Name) and expr.value in params:
        return (expr.value,)
    value = _int(expr)
    return (value,) if value is not None else None


def kernel_tiles(source: str, kernel: str) -> tuple[tuple[Side, ...], ...]:
    """The sides of each tile of two or more sides ``kernel``'s body builds (ranges laid along the axes of one
    statement, a maker's shape: :func:`_tiles`; not the budgets of its ``tl.static_assert``), each a constexpr
    parameter or an integer; empty where ``source`` does not parse or defines no such function. The search's fit
    holds each tile to Triton's limit on a tensor's values (:func:`kernelopt.tuning.launch.space_from_tunables`)."""
    from kernelopt.tunables.syntax import parsed

    try:
        tree = parsed(source).module
    except cst.ParserSyntaxError:
        return ()
    fn = next((n for n in walk(tree) if isinstance(n, cst.FunctionDef) and n.name.value == kernel), None)
    tiles = _tiles(fn) if fn is not None else []
    return tuple(dict.fromkeys(t.sides for t in tiles if t.most == TRITON_MAX_TENSOR_NUMEL))


def _bound_in(test: cst.BaseExpression, size: str, constants: Mapping[str, int] | None = None) -> int | None:
    """The largest value ``size`` (a name) takes where ``test`` holds (``n_cols <= 65536``, ``n_cols < 65537``, one
    conjunct of an ``and``; the bound an integer or a module constant of ``constants``); ``None`` where it bounds it
    no way from above."""
    most: int | None = None
    tests = [test]
    while tests:
        test = tests.pop()
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            tests += [test.left, test.right]
            continue
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
            continue
        left, op, right = test.left, test.comparisons[0].operator, test.comparisons[0].comparator
        bound = _int(right) if _int(right) is not None else (constants or {}).get(getattr(right, "value", ""))
        if not (_at_least(left, size) and bound is not None):
            continue
        value = bound if isinstance(op, cst.LessThanEqual) else bound - 1 if isinstance(op, cst.LessThan) else None
        if value is not None:
            most = value if most is None else min(most, value)
    return most


#: calls whose value is never less than their one argument's: a bound on the call bounds the argument
_AT_LEAST_CALLS = frozenset({"next_power_of_2", "next_power_of_two"})


def _at_least(expr: cst.BaseExpression, size: str) -> bool:
    """Whether ``expr`` is ``size`` (a name) or a call never less than it (``triton.next_power_of_2(D)``: a row tested
    ``triton.next_power_of_2(D) <= 128``, as ``tune`` bounds a tile beside a computed block, holds only where ``D <=
    128``; breaker29's q93)."""
    if isinstance(expr, cst.Name):
        return expr.value == size
    return (
        isinstance(expr, cst.Call)
        and dotted(expr.func).split(".")[-1] in _AT_LEAST_CALLS
        and len(expr.args) == 1
        and not expr.args[0].star
        and isinstance(expr.args[0].value, cst.Name)
        and expr.args[0].value.value == size
    )


def _bounded(fn: cst.FunctionDef, size: str, constants: Mapping[str, int] | None = None) -> int | None:
    """The largest value ``size`` takes where ``fn`` runs past its asserts and its raising checks (``if BLOCK_SIZE >
    MAX_FUSED_SIZE: raise ...``, Unsloth's ``calculate_settings``: v112); ``None`` where none bounds it."""
    tests = [n.test for n in walk(fn.body) if isinstance(n, cst.Assert)]
    tests += [t for n in walk(fn.body) if (t := _raised_past(n)) is not None]
    bounds = [b for t in tests if (b := _bound_in(t, size, constants)) is not None]
    return min(bounds, default=None)


def _raised_past(node: cst.CSTNode) -> cst.Comparison | None:
    """What holds past ``if a > b: raise ...`` (no ``else``, its body the raise alone): ``a <= b`` (``a >= b``: ``a <
    b``); ``None`` for any other statement."""
    test = raised_on(node)
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    op = test.comparisons[0].operator
    flipped = (
        cst.LessThanEqual()
        if isinstance(op, cst.GreaterThan)
        else cst.LessThan()
        if isinstance(op, cst.GreaterThanEqual)
        else None
    )
    if flipped is None:
        return None
    return test.with_changes(comparisons=[test.comparisons[0].with_changes(operator=flipped)])


def _shape_names(fn: cst.FunctionDef) -> set[str]:
    """The names ``fn`` binds once to a tensor's size: unpacked from a ``.shape`` (``T, D = x.shape``), or one of its
    items (``D = x.shape[-1]``, ``D = x.size(1)``)."""
    out: set[str] = set()
    again = rebound(fn)
    for node in walk(fn.body):
        if not (isinstance(node, cst.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0].target, node.value
        if isinstance(value, cst.Subscript):
            value = value.value
        elif isinstance(value, cst.Call) and dotted(value.func).split(".")[-1] == "size":
            value = cst.Attribute(value=cst.Name("x"), attr=cst.Name("shape"))
        if not (isinstance(value, cst.Attribute) and value.attr.value == "shape"):
            continue
        names = [e.value for e in target.elements] if isinstance(target, cst.Tuple | cst.List) else [target]
        out |= {n.value for n in names if isinstance(n, cst.Name) and n.value not in again}
    return out


def _computed(
    fn: cst.FunctionDef,
    expr: cst.BaseExpression,
    constants: Mapping[str, int],
    helpers: Mapping[str, cst.FunctionDef] | None = None,
) -> tuple[_Computed, str] | None:
    """``expr`` read as a side computed from a size, and the size's name: the size itself (:func:`_shape_names`),
    ``triton.next_power_of_2(n)`` (through a local bound once), ``min(c, ...)`` or ``max(c, ...)`` of one with an
    integer (a literal or a module constant), or a call of a module function of ``helpers`` returning one
    (:func:`_helper_side`); ``None`` for any other form."""
    local = assigned_once(fn)
    if isinstance(expr, cst.Name) and expr.value in _shape_names(fn):  # a size itself (``T, D = x.shape``: v109)
        bound = _bounded(fn, expr.value)
        most = TRITON_MAX_TENSOR_NUMEL if bound is None else min(bound, TRITON_MAX_TENSOR_NUMEL)
        return _Computed(expr.value, most), expr.value
    if isinstance(expr, cst.Name) and expr.value in local:  # a local bound once, under its own checks too
        inner = _computed(fn, local[expr.value], constants, helpers)
        bound = _bounded(fn, expr.value, constants)
        if inner is None or bound is None:
            return inner
        return replace(inner[0], most=min(inner[0].most, bound)), inner[1]
    if isinstance(expr, cst.Name) and (unpacked := _unpacked(fn, expr.value, helpers or {})) is not None:
        call, helper, index = unpacked  # ``BLOCK_N, num_warps = calculate_settings(n_cols)`` (v112)
        return _helper_side(fn, call, helper, constants, index)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.FloorDivide):
        return _falling(fn, expr, constants, helpers)
    if not isinstance(expr, cst.Call):
        return None
    name = dotted(expr.func).split(".")[-1]
    if isinstance(expr.func, cst.Name) and name in (helpers or {}):
        return _helper_side(fn, expr, (helpers or {})[name], constants)
    if name == "next_power_of_2" and len(expr.args) == 1 and isinstance(size := expr.args[0].value, cst.Name):
        bound = _bounded(fn, size.value)
        most = TRITON_MAX_TENSOR_NUMEL if bound is None else 1 << max(bound - 1, 0).bit_length()
        text = f"triton.next_power_of_2({size.value})"
        return _Computed(text, min(most, TRITON_MAX_TENSOR_NUMEL), power=True), size.value
    if name in ("min", "max") and len(expr.args) == 2:  # a cap, or a floor (``max(16, next_power_of_2(n))``)
        pick = min if name == "min" else max
        for cap, inner in ((expr.args[0].value, expr.args[1].value), (expr.args[1].value, expr.args[0].value)):
            value = _int(cap) if _int(cap) is not None else constants.get(getattr(cap, "value", ""))
            computed = _computed(fn, inner, constants) if value is not None else None
            if computed is not None and value is not None:
                floor = max(computed[0].floor, value) if name == "max" else computed[0].floor
                return replace(computed[0], most=pick(computed[0].most, value), floor=floor), computed[1]
    return None


def _falling(
    fn: cst.FunctionDef,
    expr: cst.BinaryOperation,
    constants: Mapping[str, int],
    helpers: Mapping[str, cst.FunctionDef] | None,
) -> tuple[_Computed, str] | None:
    """A budget over a rising side, ``C // triton.next_power_of_2(n)`` (C an integer or a module constant): the rows
    a program where short rows are packed (wrongkernel27, v135: ``ROWS = max(1, 1024 //
    triton.next_power_of_2(args["n_cols"]))`` beside ``BLOCK_N = 1024``), largest at the least size, where its
    divisor is least; ``None`` for any other form."""
    budget = _int(expr.left) if _int(expr.left) is not None else constants.get(getattr(expr.left, "value", ""))
    inner = _computed(fn, expr.right, constants, helpers) if budget is not None else None
    if budget is None or inner is None or inner[0].falling:
        return None
    return _Computed(_code(expr), budget // max(inner[0].floor, 1), falling=True), inner[1]


def _unpacked(
    fn: cst.FunctionDef, name: str, helpers: Mapping[str, cst.FunctionDef]
) -> tuple[cst.Call, cst.FunctionDef, int] | None:
    """Where ``fn`` binds ``name`` once by unpacking a module helper's call (``BLOCK_N, num_warps =
    calculate_settings(n_cols)``): the call, the helper and ``name``'s place in the target; else ``None``."""
    if name in rebound(fn):
        return None
    for node in walk(fn.body):
        if not (isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.Call)):
            continue
        target, func = node.targets[0].target, node.value.func
        if not (isinstance(target, cst.Tuple | cst.List) and isinstance(func, cst.Name) and func.value in helpers):
            continue
        names = [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]
        if name in names:
            return node.value, helpers[func.value], names.index(name)
    return None


def _helper_side(
    fn: cst.FunctionDef,
    call: cst.Call,
    helper: cst.FunctionDef,
    constants: Mapping[str, int],
    index: int | None = None,
) -> tuple[_Computed, str] | None:
    """A side a module helper computes (``BLOCK_N = row_block(n_cols)`` with ``def row_block(n): assert n <= 65536;
    return triton.next_power_of_2(n)``: v111), or item ``index`` of the tuple it returns (``return BLOCK_SIZE,
    num_warps``: v112): its one ``return`` read in the helper (its asserts and raising checks bound its parameter
    and its locals), the size named as the call's argument, bounded by the caller's asserts too."""
    returns = [n for n in walk(helper.body) if isinstance(n, cst.Return)]
    params = param_names(helper)
    if (
        len(returns) != 1
        or returns[0].value is None
        or len(call.args) != len(params)
        or any(a.keyword for a in call.args)
    ):
        return None
    value = returns[0].value
    if index is not None:
        items = value.elements if isinstance(value, cst.Tuple) else ()
        if index >= len(items) or isinstance(items[index], cst.StarredElement):
            return None
        value = items[index].value
    inner = _computed(helper, value, constants)
    if inner is None or inner[1] not in params:
        return None
    argument = call.args[params.index(inner[1])].value
    if not isinstance(argument, cst.Name):
        return None
    bound = _bounded(fn, argument.value)
    most = inner[0].most if bound is None else min(inner[0].most, 1 << max(bound - 1, 0).bit_length())
    return replace(inner[0], text=f"{_code(call.func)}({argument.value})", most=most), argument.value


@functools.lru_cache(maxsize=NODES_KEPT)
def _rows(fn: cst.FunctionDef) -> dict[str, list[tuple[int | None, tuple[cst.BaseExpression, ...]]]]:
    """Name -> each value ``fn`` binds it to (an integer, else ``None``) with the tests of the ``if``/``elif``s it is
    bound under (a table's row, ``if n_cols <= 3000:  # kernelopt: tuned`` / ``ROWS = 32``; none for a plain line);
    read once per node (each fixed side of each launch's tile asks twice: :func:`_values` and its ``how``), never
    written by a caller."""
    out: dict[str, list[tuple[int | None, tuple[cst.BaseExpression, ...]]]] = {}

    def visit(body: Sequence[cst.BaseStatement], tests: tuple[cst.BaseExpression, ...]) -> None:
        for statement in body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    # each name bound, an unpacking's element-wise (``ROWS, HEADS = 2, 2``: refusals24 u40, whose
                    # tile was read no way, so ``ROWS, HEADS = 16, 8`` was written plainly, past the limit)
                    for binding in made_by(small):
                        value = _int(binding.taken) if binding.taken is not None else None
                        out.setdefault(binding.name, []).append((value, tests))
            elif isinstance(statement, cst.If):
                branch: cst.If | cst.Else | None = statement
                while isinstance(branch, cst.If):
                    visit(_lines(branch.body), (*tests, branch.test))
                    branch = branch.orelse
                if branch is not None:
                    visit(_lines(branch.body), tests)
            else:  # a value bound in a loop or another block: read no way here
                for node in walk(statement):
                    if isinstance(node, cst.AssignTarget | cst.AugAssign) and isinstance(node.target, cst.Name):
                        out.setdefault(node.target.value, []).append((None, tests))

    visit(_lines(fn.body), ())
    return out


def _lines(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    """The statements of ``block``: an indented block's, or a one-line suite's as one line (``if n: f(x)``, breaker2's
    launch on a one-line compound statement)."""
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return cst.ensure_type(block, cst.IndentedBlock).body


#: One value a fixed side takes: the integer, and the tests of the table's row that binds it (none: every size).
_Value = tuple[int, tuple[cst.BaseExpression, ...]]


def _values(fn: cst.FunctionDef, expr: cst.BaseExpression | None, constants: Mapping[str, int]) -> list[_Value] | None:
    """Each integer a launch may pass a side, with its row's tests: a literal, a local bound to integers only (once,
    or in a table's rows), or a module constant; ``None`` for any other form."""
    if expr is None or _int(expr) is not None:
        value = _int(expr)
        return [(value, ())] if value is not None else None
    if not isinstance(expr, cst.Name):
        return None
    bound = _rows(fn).get(expr.value)
    if bound is None:
        return [(constants[expr.value], ())] if expr.value in constants else None
    if any(value is None for value, _ in bound):
        return None
    return [(value, tests) for value, tests in bound if value is not None]


class _Arguments(cst.CSTTransformer):
    """``args["n_cols"]`` in a heuristic's body replaced by what the launch passes the kernel's ``n_cols``."""

    def __init__(self, passed: Mapping[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.passed = passed
        self.unread = False

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        key = original.slice[0].slice if len(original.slice) == 1 else None
        value = key.value if isinstance(key, cst.Index) else None
        if isinstance(original.value, cst.Name) and isinstance(value, cst.SimpleString):
            given = self.passed.get(str(value.evaluated_value))
            if given is not None:
                return given
        self.unread = True
        return updated


def _heuristic(
    kernel: cst.FunctionDef, side: str, passed: Mapping[str, cst.BaseExpression]
) -> cst.BaseExpression | None:
    """What ``kernel``'s ``@triton.heuristics`` computes ``side`` from, in the launch's terms: ``lambda args:
    triton.next_power_of_2(args["n_cols"])`` read as ``triton.next_power_of_2(n_cols)`` where the launch passes
    ``n_cols`` (v110); ``None`` where no heuristic gives it, or it reads an argument the launch does not pass."""
    for decorator in kernel.decorators:
        call = decorator.decorator
        if not (isinstance(call, cst.Call) and dotted(call.func).split(".")[-1] == "heuristics"):
            continue
        for node in walk(call):
            if (
                isinstance(node, cst.DictElement)
                and isinstance(node.key, cst.SimpleString)
                and node.key.evaluated_value == side
                and isinstance(node.value, cst.Lambda)
            ):
                arguments = _Arguments(passed)
                body = node.value.body.visit(arguments)
                return None if arguments.unread or not isinstance(body, cst.BaseExpression) else body
    return None


def _listed(kernel: cst.FunctionDef, side: str) -> list[_Value] | None:
    """Each integer the kernel's own decorators give ``side`` where the launch passes none (an ``@triton.autotune``
    list's configs, a heuristic's literal, the signature's default: v108); ``None`` where one is no integer."""
    configs = decorator_configs(kernel)
    values = [config.get(side) for config in configs or []]
    if not values or any(v is None for v in values):
        return None
    return [(v, ()) for v in dict.fromkeys(values) if v is not None]


def _capped(tests: Sequence[cst.BaseExpression], size: str) -> int | None:
    """The largest value ``size`` takes under a row's ``tests`` (``n_cols <= 3000``, ``n_cols < 3001``, conjuncts);
    ``None`` where none bounds it from above."""
    most: int | None = None
    for test in tests:
        bound = _bound_in(test, size)
        if bound is not None:
            most = bound if most is None else min(most, bound)
    return most


@dataclass(frozen=True)
class _Launched:
    """One launch's reading of one tile: the values of the sides it fixes (name -> each value the launching function
    may pass, a literal side by its text) and the one side it computes from a size."""

    kernel: str
    tile: _Tile
    fixed: dict[str, list[_Value]]
    computed: tuple[str, _Computed]
    size: str
    labels: dict[str, str]  # a side passed a name of another spelling -> that name (``BLOCK_N=BLOCK``: ``BLOCK``)
    listed: frozenset[str] = frozenset()  # the sides an autotune list gives (any of its configs may run at any size)
    # how the launch gives each fixed side: "literal" (at the launch), "local" (a name the launching function binds),
    # "constant" (a module constant), "listed" (an autotune list), "kernel" (an integer of the kernel's own body)
    given: Mapping[str, str] = field(default_factory=dict)
    rebound: bool = False  # the size is bound more than once in the launching function


def _launched_tiles(
    fns: Sequence[cst.FunctionDef], kernels: Mapping[str, cst.FunctionDef], constants: Mapping[str, int]
) -> dict[tuple[str, int, int], _Launched]:
    """(launching function, its launch's place, the tile's place) -> the tile as that launch passes its sides, for
    every tile with one side computed from a size and the others fixed."""
    out: dict[tuple[str, int, int], _Launched] = {}
    helpers = {f.name.value: f for f in fns if f.name.value not in kernels}
    for fn in fns:
        if fn.name.value in kernels:
            continue
        calls = [n for n in walk(fn.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Subscript)]
        for at, call in enumerate(calls):
            target = launched(cst.ensure_type(call.func, cst.Subscript).value)
            kernel = kernels.get(dotted(target).split(".")[-1])
            if kernel is None or _multiplies(kernel, kernels):
                continue
            read = [a for a in call.args if not a.star]
            passed = named_args(read, param_names(kernel))
            for place, tile in enumerate(_tiles(kernel)):
                fixed: dict[str, list[_Value]] = {}
                computed: list[tuple[str, _Computed, str]] = []
                listed: set[str] = set()
                how: dict[str, str] = {}
                for side in tile.sides:
                    if isinstance(side, int):
                        fixed[str(side)] = [(side, ())]
                        how[str(side)] = "kernel"
                    elif (values := _values(fn, expr := passed.get(side), constants)) is not None:
                        fixed[side] = values
                        how[side] = (
                            "literal" if _int(expr) is not None else "local" if _name(expr) in _rows(fn) else "constant"
                        )
                    elif side not in passed and (configs := _listed(kernel, side)) is not None:
                        fixed[side] = configs
                        listed.add(side)
                        how[side] = "listed"
                    else:  # computed at the launch, or by the kernel's heuristic (v110)
                        given = passed.get(side) or _heuristic(kernel, side, passed)
                        c = _computed(fn, given, constants, helpers) if given is not None else None
                        if c is not None:
                            computed.append((side, *c))
                if len(computed) == 1 and len(fixed) + 1 == len(tile.sides):
                    side, reading, size = computed[0]
                    labels = {
                        k: name.value for k in fixed if isinstance(name := passed.get(k), cst.Name) and name.value != k
                    }
                    out[(fn.name.value, at, place)] = _Launched(
                        kernel.name.value,
                        tile,
                        fixed,
                        (side, reading),
                        size,
                        labels,
                        frozenset(listed),
                        how,
                        size in rebound(fn),
                    )
    return out


@dataclass(frozen=True)
class Text:
    """One text's reading for :func:`numel_refusal`: its functions, its kernels by name, its module constants."""

    functions: Sequence[cst.FunctionDef]
    kernels: Mapping[str, cst.FunctionDef]
    constants: Mapping[str, int]


def _multiplies(kernel: cst.FunctionDef, kernels: Mapping[str, cst.FunctionDef]) -> bool:
    """Whether ``kernel`` or a kernel function it calls multiplies tiles with ``tl.dot``: its operand tiles are staged
    through shared memory, which bounds the sizes the original runs far below Triton's limit on a tile's values (the
    fit estimate's, :mod:`kernelopt.tunables.block_tiles`), so this rule leaves it out."""
    calls = [n for n in walk(kernel.body) if isinstance(n, cst.Call)]
    called = [kernels[c.func.value] for c in calls if isinstance(c.func, cst.Name) and c.func.value in kernels]
    return any(
        dotted(c.func).split(".")[-1] == "dot"
        for f in [kernel, *called]
        for c in walk(f.body)
        if isinstance(c, cst.Call)
    )


@dataclass(frozen=True)
class Ceiling:
    """A guard the tile-size rule hands the guard writer (:func:`numel_reading`): the launching function
    ``function`` sets a moved side of the tile by ``name`` (a local it binds, or, ``literal``, a launch keyword's
    literal), and the tile holds no more than its limit exactly where ``size <= most`` (its computed side rises
    with ``size`` alone). ``why``: the tile and its limit, for the guard's note; ``refusal``: the line where the
    guard cannot be placed. Two sides moved at once get one each, the same test, ``times`` the other's value
    (refusals24 u40)."""

    function: str
    name: str
    literal: bool
    size: str
    most: int
    line: int
    why: str
    refusal: str
    times: int = 1  # the other moved sides' values: the guard reads ``n_cols <= 1048576 // (value * times)``


@dataclass(frozen=True)
class NumelReading:
    """What the tile-size rule says of an edit: why it cannot be written (a line), or the guards that keep each grown
    tile within its limit (none: the edit holds as written)."""

    refusal: str | None = None
    ceilings: tuple[Ceiling, ...] = ()


def numel_reading(old: Text, new: Text, positions: Mapping[cst.CSTNode, CodeRange]) -> NumelReading:
    """The tile-size rule on the edit from ``old`` to ``new`` (``positions``: the new text's). A tile whose fixed
    sides (a plain value, or a table's row) hold more values together than its limit leaves room for at a size its
    computed side reaches where the original runs (and the row's test lets through) needs a guard by that size,
    ``if n_cols <= 1048576 // 32:``: a :class:`Ceiling` where one moved side is a local of the launching function or
    a launch literal (the guard writer places it; the original value is the fallback, right wherever it ran), else a
    refusal saying which guard was missing (refusals23: v102's rule refused where the guard would do)."""
    before = _launched_tiles(old.functions, old.kernels, old.constants)
    ceilings: list[Ceiling] = []
    for key, now in _launched_tiles(new.functions, new.kernels, new.constants).items():
        was = before.get(key)
        if was is None or was.fixed.keys() != now.fixed.keys() or was.computed[0] != now.computed[0]:
            continue
        side, computed = now.computed
        products = [math.prod(v for v, _ in row) for row in itertools.product(*was.fixed.values())]
        # an autotune list's configs each run at a new key (Triton's autotuner times them all), and a tile past
        # Triton's limit fails the compile, which it does not skip: the original ran only where its largest did; a
        # static assert it skips (CompileTimeAssertionFailure), and a table's rows run by size: where its least did
        held = max(products) if was.listed and now.tile.by == _TRITON else min(products)
        most = now.tile.most
        reach_was = min(computed.most, most // max(held, 1))
        for row in itertools.product(*now.fixed.values()):
            grown = math.prod(v for v, _ in row)
            cap = _capped([t for _, tests in row for t in tests], now.size)
            # a row's bound from above keeps a rising side low and a falling one at its most (the least size is in it)
            reach = reach_was if cap is None or computed.falling else min(reach_was, 1 << max(cap - 1, 0).bit_length())
            if grown * reach <= most:
                continue
            label = now.labels
            names = ", ".join(
                f"{label.get(k, k)}={v}"
                for k, (v, _) in zip(now.fixed, row, strict=True)
                if k in label or not k.isdigit()
            )
            olds = ", ".join(f"{label.get(k, k)}={was.fixed[k][0][0]}" for k in now.fixed if not k.isdigit())
            sides = ", ".join(str(s) for s in now.tile.sides)
            tests = [_code(t) for _, row_tests in row for t in row_tests]
            where = f" where {' and '.join(tests)}" if tests else ""
            line = positions[now.tile.node].start.line
            tile = f"the tile ({sides}) of {now.kernel} at line {line} holds at most {most} values {now.tile.by}"
            named = side if computed.text == side else f"{side} = {computed.text}"
            head = (
                f"{names}{where} does not cover every size the original {olds} handled ({tile}, and {named} "
                f"reaches {reach} where the original runs: {grown * reach} values)"
            )
            bound = computed.largest(most // grown)
            guard = f"`if {now.size} <= {bound}:`"
            missing = _no_guard(was, now, row, bound, guard)
            if missing is not None:
                return NumelReading(f"{head}, and {missing}: not written")
            assert bound is not None
            # every moved side under the one test (refusals24 u40: two sides moved at once were refused whole): where
            # it fails each falls back together, never a mix no session timed
            moved = _moved(was, now)
            values = dict(zip(now.fixed, (v for v, _ in row), strict=True))
            for side in moved:
                literal = now.given[side] == "literal"
                ceilings.append(
                    Ceiling(
                        key[0],
                        side if literal else label.get(side, side),
                        literal,
                        now.size,
                        bound,
                        line,
                        f"{tile}, and {named} stays within it where {now.size} <= {bound}",
                        f"{head}, and the guard {guard} cannot be written where {label.get(side, side)} is set: "
                        "not written",
                        math.prod(values[k] for k in moved if k != side),
                    )
                )
    return NumelReading(None, tuple(ceilings))


def _moved(was: _Launched, now: _Launched) -> list[str]:
    """The fixed sides of ``now``'s tile whose values the edit moved from ``was``'s."""
    return [k for k in now.fixed if [v for v, _ in was.fixed[k]] != [v for v, _ in now.fixed[k]]]


def _no_guard(was: _Launched, now: _Launched, row: Sequence[_Value], bound: int | None, guard: str) -> str | None:
    """Why no guard by the computed side's size keeps ``now``'s grown tile (its fixed sides' values ``row``) within
    its limit, in words; ``None`` where one does (``bound``: the largest size it holds at, ``guard`` its test)."""
    side, computed = now.computed
    if computed.falling:
        return (
            f"{side} falls as {now.size} grows, so it is largest at the least {now.size}, which no guard by "
            f"{now.size} from above leaves out"
        )
    if bound is None:
        return f"no size keeps it within the limit ({side} is at least {computed.floor} at every size)"
    if any(tests for _, tests in row):
        return f"its row's test does not bound {now.size} to {bound} (the row needs `and {now.size} <= {bound}`)"
    moved = _moved(was, now)
    if not moved:
        return f"no side it fixes moved, and no guard by a size ({guard}) holds a side it does not set"
    for side in moved:  # each moved side is set under the one test
        given = now.given.get(side)
        if given == "listed":
            return f"an autotune config is not guarded by a size (the guard {guard} is written at a launch only)"
        if given == "constant":
            return f"a module-level constant cannot be guarded by a size (the guard {guard} is written in a function)"
        if given not in ("local", "literal"):
            return f"{side} is set where no guard by a size ({guard}) can be written"
    if now.rebound:
        return f"{now.size} is bound more than once where the kernel is launched, so no guard ({guard}) reads it"
    return None


def numel_refusal(old: Text, new: Text, positions: Mapping[cst.CSTNode, CodeRange]) -> str | None:
    """Why the edit from ``old`` to ``new`` cannot be written where no guard is added to it (a table's rows, written
    by size already): :func:`numel_reading`'s refusal, or the line of a guard it would need; ``None`` where none."""
    reading = numel_reading(old, new, positions)
    return reading.refusal or next((c.refusal for c in reading.ceilings), None)


def _name(expr: cst.CSTNode | None) -> str | None:
    return expr.value if isinstance(expr, cst.Name) else None


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)
