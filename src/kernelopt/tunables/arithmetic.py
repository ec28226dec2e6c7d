"""The integer arithmetic a kernel file writes, worked out over known names: a block computed from ``num_warps``
(``warps * 128``), a guard's bound (``1024 // 2``), a quotient's divisor, a size folded (``65536 // 4``). The one
evaluator of it for the readers of a file's integers (twins15's finding: each wrote one): the guard's bounds, the
quotients' divisors and discovery's folded sizes. tunables/readers.py reads any Python value a launch setting
computes (``128 if num_warps == 4 else 256``, ``int(nw / 2)``), a wider reading than this one, and shares only its
bound.

Plain integers only: ``+ - * // % ** << >>``, a unary minus, ``min`` and ``max`` of integers, names bound to
integers; anything else (a float, a bool, an attribute, a call of anything else, a name not known) is ``None``, not
known. A power or shift by more than :data:`POWER_MOST` either way, or of a value past ``2 ** POWER_MOST``, is not
known either: a file's ``nw ** 10 ** 10`` would run for ever in the reading. A reader that must read less (a proof
that refuses where another reads) names it: ``operators`` (the operators it reads; :data:`OPERATORS` by default),
``calls`` (the calls it reads), ``within`` (every value on the way in a range: a size's). Pure: a node in, an integer
or ``None`` out."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

import libcst as cst

from kernelopt.numeric import is_int

#: The largest exponent or shift worked out (``2 ** 64``): past it a file's arithmetic (``nw ** 10 ** 10``) could run
#: for ever in the reading of a launch setting; no rule can check it then.
POWER_MOST = 64

_BINARY: dict[type[cst.BaseBinaryOp], Callable[[int, int], int]] = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
    cst.Power: lambda a, b: a**b,
    cst.LeftShift: lambda a, b: a << b,
    cst.RightShift: lambda a, b: a >> b,
}

#: Every operator read: the binary ones and the unary minus.
OPERATORS: frozenset[type[cst.CSTNode]] = frozenset({*_BINARY, cst.Minus})

#: The operators a guard's bound was read with (``1024 // 2``, ``256 * 2``, ``1 << 10``): no ``%``, ``**`` or minus.
BOUND_OPERATORS: frozenset[type[cst.CSTNode]] = frozenset(
    {cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.LeftShift, cst.RightShift}
)

#: The calls read: ``min`` and ``max`` of integers.
CALLS: frozenset[str] = frozenset({"min", "max"})

_BOUNDED = (cst.Power, cst.LeftShift, cst.RightShift)


def integer_value(
    expr: cst.BaseExpression,
    names: Mapping[str, object] | None = None,
    *,
    operators: Collection[type[cst.CSTNode]] = OPERATORS,
    calls: Collection[str] = CALLS,
    power_most: int = POWER_MOST,
    within: tuple[int, int] | None = None,
) -> int | None:
    """The integer ``expr`` is with ``names`` bound (a name bound to anything but an integer is not known), or
    ``None`` (module docstring). ``within``: the least and the most every value on the way may be (a size's
    ``1..2**31``: a literal or a step outside it is not known)."""
    known = names or {}

    def value(node: cst.BaseExpression) -> int | None:
        v = step(node)
        return v if v is None or within is None or within[0] <= v <= within[1] else None

    def step(node: cst.BaseExpression) -> int | None:
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        if isinstance(node, cst.Name):
            v = known.get(node.value)
            return v if is_int(v) else None
        if isinstance(node, cst.UnaryOperation) and type(node.operator) in operators:
            inner = value(node.expression)
            return None if inner is None else -inner
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in operators:
            a, b = value(node.left), value(node.right)
            if a is None or b is None:
                return None
            if isinstance(node.operator, _BOUNDED) and (abs(b) > power_most or abs(a) > 2**power_most):
                return None
            try:
                out = _BINARY[type(node.operator)](a, b)
            except (ValueError, ArithmeticError):  # a negative shift, a division by zero
                return None
            return out if isinstance(out, int) else None  # ``2 ** -1`` is a float
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in calls:
            if len(node.args) < 2 or any(a.keyword is not None or a.star for a in node.args):
                return None
            args = [value(a.value) for a in node.args]
            if any(a is None for a in args):
                return None
            return min(args) if node.func.value == "min" else max(args)  # type: ignore[type-var]
        return None

    return value(expr)


#: The longest sequence of integers worked out (:func:`integer_values`): a module's ``tuple(range(2**40))`` is not
#: known, where building it would take the reading's memory.
SEQUENCE_MOST = 4096

#: The calls that make a sequence of their one argument's integers (``tuple(range(...))``, ``sorted({...})``).
_SEQUENCES = frozenset({"tuple", "list", "sorted", "set", "frozenset"})


def integer_values(expr: cst.BaseExpression, names: Mapping[str, object] | None = None) -> tuple[int, ...] | None:
    """The integers a sequence ``expr`` holds with ``names`` bound (a name bound to an integer or to a tuple of them),
    in order (a set's sorted), or ``None``: a tuple, list or set of integers (:func:`integer_value`, a ``*`` of a
    sequence spliced), ``range`` of integers, ``tuple``/``list``/``sorted``/``set``/``frozenset`` of one sequence, a
    sum of two sequences (``SMALL + (512,)``), a comprehension with one ``for`` over a sequence and no
    condition (``tuple(1 << k for k in range(7, 10))``). A sequence longer than :data:`SEQUENCE_MOST` is not known."""
    known = names or {}

    def ints(node: cst.BaseExpression, extra: Mapping[str, object]) -> int | None:
        return integer_value(node, {**known, **extra})

    def seq(node: cst.BaseExpression) -> tuple[int, ...] | None:
        out: tuple[int, ...] | None = None
        if isinstance(node, cst.Name):
            v = known.get(node.value)
            out = v if isinstance(v, tuple) and all(is_int(x) for x in v) else None
        elif isinstance(node, cst.Tuple | cst.List | cst.Set):
            items: list[int] = []
            for element in node.elements:
                if isinstance(element, cst.StarredElement):
                    inner = seq(element.value)
                    if inner is None:
                        return None
                    items += inner
                elif (one := ints(element.value, {})) is not None:
                    items.append(one)
                else:
                    return None
                if len(items) > SEQUENCE_MOST:
                    return None
            out = tuple(sorted(set(items))) if isinstance(node, cst.Set) else tuple(items)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            a, b = seq(node.left), seq(node.right)
            out = None if a is None or b is None else a + b
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            out = called(node)
        elif isinstance(node, cst.GeneratorExp | cst.ListComp | cst.SetComp):
            out = comprehended(node)
            if out is not None and isinstance(node, cst.SetComp):
                out = tuple(sorted(set(out)))
        return out if out is None or len(out) <= SEQUENCE_MOST else None

    def called(node: cst.Call) -> tuple[int, ...] | None:
        if any(a.keyword is not None or a.star for a in node.args):
            return None
        name = node.func.value  # type: ignore[attr-defined]
        if name == "range" and 1 <= len(node.args) <= 3:
            bounds = [ints(a.value, {}) for a in node.args]
            if any(b is None for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
                return None
            span = range(*bounds)  # type: ignore[arg-type]
            return tuple(span) if len(span) <= SEQUENCE_MOST else None
        if name in _SEQUENCES and len(node.args) == 1:
            inner = seq(node.args[0].value)
            if inner is None:
                return None
            return tuple(sorted(inner)) if name == "sorted" else tuple(sorted(set(inner))) if "set" in name else inner
        return None

    def comprehended(node: cst.GeneratorExp | cst.ListComp | cst.SetComp) -> tuple[int, ...] | None:
        loop = node.for_in
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None:
            return None  # one ``for``, no condition
        over = seq(loop.iter) if isinstance(loop.target, cst.Name) else None
        if over is None:
            return None
        out = [ints(node.elt, {loop.target.value: x}) for x in over]  # type: ignore[attr-defined]
        return None if any(one is None for one in out) else tuple(out)  # type: ignore[arg-type]

    return seq(expr)
