"""A heuristic's bound as the launching function reads it (pure).

A table written into a ``@triton.heuristics`` lambda is bounded by the sizes checked over the kernel's arguments
(``512 if args["N"] <= 100 else ...``). A launch literal the same pick moved (``num_warps=8`` at the launch) falls back
with the table above that bound (tablebound11), so it is set under the same condition where the launch is written;
there ``args`` does not exist, but the launch passes each argument: ``args["N"]`` is what the launch passes as the
kernel's parameter ``N`` (``_rsum[(R,)](x, y, R, N)`` passes the local ``N``). :func:`launch_test` writes the bound
with those expressions, where each is one the launching function can read again where the literal is set with the
same value: names, attributes, constant subscripts and arithmetic of names bound once before it, or bound only by
statements before it (an ``if Lk == 576:`` / ``elif`` / ``else`` chain each branch of which binds ``BLOCK_DMODEL``), a
tensor's ``size``/``stride``/``numel``/``dim``, ``len``, ``min``, ``max``, ``triton.cdiv`` and
``triton.next_power_of_2``.

Where the launch binds those expressions only after the literal's statement (LightLLM's ``BLOCK = 32`` above ``Lq, Lk =
q.shape[-1], k.shape[-1]``, the head size its bound reads), the bound cannot be read there; :func:`later_rows` gives
the statements below which that statement can be moved unchanged (nothing between reads or binds what it binds, nor
binds what it reads), where the sizes may be known (late48, l170).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.bindings import rebound
from kernelopt.tunables.blocks import call_args, dotted, launched, walk
from kernelopt.tunables.launch_value import statement_binds, statement_reads
from kernelopt.tunables.model import argument_name
from kernelopt.tunables.signature import param_names

#: calls whose value depends on their arguments alone: read again where a literal is set, they give the launch's
_PURE_CALLS = frozenset({"size", "stride", "numel", "dim", "len", "min", "max", "cdiv", "next_power_of_2", "int"})
#: statements that leave their block or change a scope: a statement holding one is not moved
_LEAVES = (
    cst.Return,
    cst.Raise,
    cst.Break,
    cst.Continue,
    cst.Global,
    cst.Nonlocal,
    cst.Del,
    cst.Import,
    cst.ImportFrom,
)
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
    ``*args``, a ``**kwargs``, a default). One passed by its keyword is that one beside a ``*args`` or ``**kwargs``
    too, which cannot pass it again (SGLang's ``BLOCK_DMODEL=BLOCK_DMODEL`` beside ``**extra_kargs``, late48)."""
    named = [a.value for a in call.args if not a.star and a.keyword is not None and a.keyword.value == parameter]
    if named:
        return named[0]
    if any(a.star for a in call.args):
        return None
    params = param_names(kernel, posonly=True)
    return call_args(call, params).get(parameter)


def _top_level(fn: cst.FunctionDef, node: cst.CSTNode) -> tuple[list[cst.BaseStatement], int] | None:
    """``fn``'s top-level statements and the index of the one holding ``node``; ``None`` where none does."""
    if not isinstance(fn.body, cst.IndentedBlock):
        return None
    statements = list(fn.body.body)
    at = next((i for i, s in enumerate(statements) if any(n is node for n in walk(s))), None)
    return None if at is None else (statements, at)


def _bound_after(fn: cst.FunctionDef, node: cst.CSTNode) -> set[str] | None:
    """The names ``fn`` binds after ``node`` (a statement): in the top-level statements after the one holding it, and
    in that one too where ``node`` is nested in it; ``None`` where ``node`` is in no top-level statement."""
    found = _top_level(fn, node)
    if found is None:
        return None
    statements, at = found
    return set().union(*(statement_binds(s) for s in statements[at + (statements[at] is node) :]))


def _pure(node: cst.CSTNode) -> bool:
    """Whether ``node`` calls nothing but a pure call and holds nothing that binds out of sight (a walrus, a lambda,
    a comprehension) or waits: read again, or read elsewhere among statements it does not touch, it gives the same."""
    return not any(
        isinstance(n, _IMPURE) or (isinstance(n, cst.Call) and dotted(n.func).split(".")[-1] not in _PURE_CALLS)
        for n in walk(node)
    )


def _readable(expr: cst.BaseExpression, fn: cst.FunctionDef, at: cst.CSTNode | None) -> bool:
    """Whether ``expr`` reads, where it is read again right after the statement ``at`` (the test's row; ``None``
    where the row's place is not that statement's), the value it had at the launch: no call but a pure one, nothing
    that binds, and no name ``fn`` binds more than once (:func:`~kernelopt.tunables.bindings.rebound`: a parameter
    never rebound, or a local bound once, reads the same) unless every binding of it is above the row (late48, l171:
    sgl_decode_grouped's ``BLOCK_DMODEL``, bound in each branch of an ``if``/``elif``/``else`` above ``BLOCK_H =
    16``)."""
    if not _pure(expr):
        return False
    calls = {id(n.func) for n in walk(expr) if isinstance(n, cst.Call)}
    attrs = {id(n.attr) for n in walk(expr) if isinstance(n, cst.Attribute)}
    read = {n.value for n in walk(expr) if isinstance(n, cst.Name) and id(n) not in calls | attrs}
    again = read & rebound(fn)
    if not again:
        return True
    after = _bound_after(fn, at) if at is not None else None
    return after is not None and not again & after


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
    test: str,
    statement: cst.CSTNode,
    fn: cst.FunctionDef,
    module: cst.Module,
    target: str | None = None,
    row: cst.CSTNode | None = None,
) -> str | None:
    """``test`` as the launching function ``fn`` reads it where a literal of ``statement`` is set (in a row right
    after the statement ``row``: the literal's own assignment, or a statement it is moved below, :func:`later_rows`;
    a name ``fn`` binds more than once is read there where every binding is above it): each ``args["X"]``
    written as the expression the kernel's launch passes as ``X`` (module docstring). The launch is the one
    ``statement`` holds, or, for a literal assigned to ``target``, each launch of ``fn`` that reads ``target`` (all
    must pass the same). ``test`` itself when it reads no ``args``; ``None`` when an argument cannot be read so: no
    launch, a kernel not defined in ``module``, an argument not passed by an expression read again the same."""
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
        if first is None or not _readable(first, fn, row) or any(p is None or code(p) != code(first) for p in passed):
            return None
        spelled[id(node)] = first.deep_clone()
    return cst.Module([]).code_for_node(expr.visit(_Spelled(spelled)))


@dataclass(frozen=True)
class LaterRow:
    """A place below which a literal's line can be moved unchanged (:func:`later_rows`).

    Attributes:
        below: the top-level statement the line is moved below.
        carried: the statements between that set the same names again (a user's override: SGLang's ``if _is_hip and
            Lk >= 576:`` / ``BLOCK = 16``), moved below it with the line, in their order, after the line's row.
    """

    below: cst.BaseStatement
    carried: tuple[cst.BaseStatement, ...] = ()


def later_rows(fn: cst.FunctionDef, statement: cst.CSTNode) -> tuple[list[LaterRow], cst.BaseStatement | None]:
    """The places below which ``statement`` (a top-level assignment of literals, the literal's own line) can be moved
    unchanged, nearest first (LightLLM's ``BLOCK = 32`` below ``Lq, Lk = q.shape[-1], k.shape[-1]``): each top-level
    statement after it up to the first that reads or binds a name the moved lines bind, or binds a name they read (a
    launch reading ``BLOCK`` ends them). A statement that binds nothing but names ``statement`` binds, calls nothing
    but a pure call (no launch) and leaves nothing (an override of the user's) moves with it in its order; a row over
    the line stays right after it, so the override still wins where it runs. With them the statement that ends them
    (``None`` where none does). Empty where ``statement`` is not at the top level of ``fn`` or calls what is not
    pure."""
    found = _top_level(fn, statement)
    if found is None or found[0][found[1]] is not statement or not _pure(statement):
        return [], None
    statements, at = found
    binds, reads = statement_binds(statement), statement_reads(statement, targets=False)
    out: list[LaterRow] = []
    carried: list[cst.BaseStatement] = []
    for s in statements[at + 1 :]:
        sets = statement_binds(s)
        if sets and sets <= binds and _pure(s) and not any(isinstance(n, _LEAVES) for n in walk(s)):
            carried.append(s)
            reads |= statement_reads(s, targets=False)
            continue
        if statement_reads(s) & binds or sets & reads:
            return out, s
        out.append(LaterRow(s, tuple(carried)))
    return out, None
