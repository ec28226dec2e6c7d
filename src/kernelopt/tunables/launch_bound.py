"""A heuristic's bound as the launching function reads it (pure).

A table written into a ``@triton.heuristics`` lambda is bounded by the sizes checked over the kernel's arguments
(``512 if args["N"] <= 100 else ...``). A launch literal the same pick moved (``num_warps=8`` at the launch) falls back
with the table above that bound (tablebound11), so it is set under the same condition where the launch is written;
there ``args`` does not exist, but the launch passes each argument: ``args["N"]`` is what the launch passes as the
kernel's parameter ``N`` (``_rsum[(R,)](x, y, R, N)`` passes the local ``N``). :func:`launch_test` writes the bound
with those expressions, where each is one the launching function can read again where the literal is set with the
same value: names, attributes, constant subscripts and arithmetic of names bound once before it, a tensor's
``size``/``stride``/``numel``/``dim``, ``len``, ``min``, ``max``, ``triton.cdiv`` and ``triton.next_power_of_2``.
"""

from __future__ import annotations

import libcst as cst

from kernelopt.tunables.bindings import rebound
from kernelopt.tunables.blocks import call_args, dotted, launched, walk
from kernelopt.tunables.model import argument_name
from kernelopt.tunables.signature import param_names

#: calls whose value depends on their arguments alone: read again where a literal is set, they give the launch's
_PURE_CALLS = frozenset({"size", "stride", "numel", "dim", "len", "min", "max", "cdiv", "next_power_of_2", "int"})
#: nodes whose value may differ when read again, or that bind a name
_IMPURE = (cst.NamedExpr, cst.Lambda, cst.Await, cst.Yield, cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)


def _arguments(test: cst.BaseExpression) -> list[tuple[cst.Subscript, str]]:
    """Each ``args["X"]`` of ``test``, with X."""
    out = []
    for node in walk(test):
        if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
            name = argument_name(cst.Module([]).code_for_node(node))
            if name is not None:
                out.append((node, name))
    return out


def _launches(fn: cst.FunctionDef, within: cst.CSTNode) -> list[tuple[cst.Call, str]]:
    """The kernel launches ``k[grid](...)`` under ``within`` (a statement of ``fn``), with the kernel's name."""
    out = []
    for node in walk(within):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript):
            kernel = launched(node.func.value)
            if isinstance(kernel, cst.Name):
                out.append((node, kernel.value))
    return out


def _passed(call: cst.Call, kernel: cst.FunctionDef, parameter: str) -> cst.BaseExpression | None:
    """The expression ``call`` passes as ``kernel``'s ``parameter``; ``None`` when it passes none it can name (a
    ``*args``, a ``**kwargs``, a default)."""
    if any(a.star for a in call.args):
        return None
    params = param_names(kernel, posonly=True)
    return call_args(call, params).get(parameter)


def _readable(expr: cst.BaseExpression, fn: cst.FunctionDef) -> bool:
    """Whether ``expr`` reads, wherever in ``fn`` it is read again, the value it had at the launch: no call but a pure
    one, nothing that binds, and no name ``fn`` binds more than once (:func:`~kernelopt.tunables.bindings.rebound`:
    a parameter never rebound, or a local bound once, reads the same)."""
    for node in walk(expr):
        if isinstance(node, _IMPURE):
            return False
        if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] not in _PURE_CALLS:
            return False
    calls = {id(n.func) for n in walk(expr) if isinstance(n, cst.Call)}
    attrs = {id(n.attr) for n in walk(expr) if isinstance(n, cst.Attribute)}
    read = {n.value for n in walk(expr) if isinstance(n, cst.Name) and id(n) not in calls | attrs}
    return not read & rebound(fn)


class _Spelled(cst.CSTTransformer):
    def __init__(self, spelled: dict[int, cst.BaseExpression]) -> None:
        self.spelled = spelled

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> cst.BaseExpression:
        expr = self.spelled.get(id(original))
        if expr is None:
            return updated
        atomic = isinstance(expr, cst.Name | cst.Attribute | cst.Subscript | cst.Call | cst.Integer)
        return expr if atomic else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def launch_test(
    test: str, statement: cst.CSTNode, fn: cst.FunctionDef, module: cst.Module, target: str | None = None
) -> str | None:
    """``test`` as the launching function ``fn`` reads it where a literal of ``statement`` is set: each
    ``args["X"]`` written as the expression the kernel's launch passes as ``X`` (module docstring). The launch is the
    one ``statement`` holds, or, for a literal assigned to ``target``, each launch of ``fn`` that reads ``target``
    (all must pass the same). ``test`` itself when it reads no ``args``; ``None`` when an argument cannot be read so:
    no launch, a kernel not defined in ``module``, an argument not passed by an expression read again the same."""
    try:
        expr = cst.parse_expression(test)
    except cst.ParserSyntaxError:
        return None
    wanted = _arguments(expr)
    if not wanted:
        return test
    calls = _launches(fn, statement)
    if not calls and target is not None:
        calls = [
            (c, k)
            for c, k in _launches(fn, fn.body)
            if any(isinstance(n, cst.Name) and n.value == target for a in c.args for n in walk(a.value))
        ]
    kernels = {n.name.value: n for n in module.body if isinstance(n, cst.FunctionDef)}
    if not calls or any(k not in kernels for _, k in calls):
        return None
    spelled: dict[int, cst.BaseExpression] = {}
    for node, name in wanted:
        passed = [_passed(c, kernels[k], name) for c, k in calls]
        first = passed[0]
        code = cst.Module([]).code_for_node
        if first is None or not _readable(first, fn) or any(p is None or code(p) != code(first) for p in passed):
            return None
        spelled[id(node)] = first.deep_clone()
    return cst.Module([]).code_for_node(expr.visit(_Spelled(spelled)))
