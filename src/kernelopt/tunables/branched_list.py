"""An autotune list a module function chooses by a condition: what a pinned list would drop.

Triton's matmul tutorial writes ``@triton.autotune(configs=get_autotune_config(), ...)`` where
``get_autotune_config()`` returns the CUDA list ``if is_cuda():`` and the HIP list ``else:``. A session tunes on
one platform and pins the list (:func:`kernelopt.tunables.edit.pin_configs`): the written kernel.py would run the
list tuned on CUDA (or the CPU) on AMD too, the user's HIP list silently gone. Which branch a session ran is known
only where the condition is evaluated, so the list is not pinned there: the write is refused and says why
(breaker19's "Seen, not changed"; seen19's s2).
"""

from __future__ import annotations

import libcst as cst

from kernelopt.tunables.analysis import analyze
from kernelopt.tunables.blocks import walk
from kernelopt.tunables.syntax import parsed


def _returns_under(node: cst.If) -> bool:
    """Whether a ``return`` of the function is under ``node`` (not in a function nested in it)."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        at = stack.pop()
        if isinstance(at, cst.Return):
            return True
        if not isinstance(at, cst.FunctionDef | cst.Lambda):
            stack.extend(at.children)
    return False


def _returned(fn: cst.FunctionDef) -> list[cst.BaseExpression]:
    """The values ``fn`` returns (not those of a function nested in it)."""
    out: list[cst.BaseExpression] = []
    stack: list[cst.CSTNode] = [fn.body]
    while stack:
        at = stack.pop()
        if isinstance(at, cst.Return) and at.value is not None:
            out.append(at.value)
        elif not isinstance(at, cst.FunctionDef | cst.Lambda):
            stack.extend(at.children)
    return out


def _module_binding(module: cst.Module, name: str) -> tuple[cst.BaseExpression | None, cst.If | None]:
    """``name``'s one plain module-level assignment's value, or the module-level ``if`` that binds it under a
    condition (``if is_hip(): CONFIGS = [...]``); ``(None, None)`` for neither."""
    values: list[cst.BaseExpression] = []
    for statement in module.body:
        if isinstance(statement, cst.If):
            bound = any(
                isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name) and n.target.value == name
                for n in walk(statement)
            )
            if bound:
                return None, statement
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else []:
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            ):
                values.append(small.value)
    return (values[0] if len(values) == 1 else None), None


def _condition(module: cst.Module, expr: cst.BaseExpression, depth: int = 0) -> cst.If | cst.IfExp | None:
    """The condition that chooses the list ``expr`` stands for: a conditional expression (``A if is_cuda() else B``),
    a module function that returns under an ``if`` or returns such an expression, a module name bound to either or
    bound under a module-level ``if``; followed through names and calls a few steps deep."""
    if depth > 4:
        return None
    if isinstance(expr, cst.IfExp):
        return expr
    if isinstance(expr, cst.Name):
        value, under = _module_binding(module, expr.value)
        return under if under is not None else _condition(module, value, depth + 1) if value is not None else None
    if not isinstance(expr, cst.Call) or not isinstance(expr.func, cst.Name):
        return None
    name = expr.func.value
    fn = next((s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
    if fn is None:
        return None
    branch = next((n for n in walk(fn.body) if isinstance(n, cst.If) and _returns_under(n)), None)
    if branch is not None:
        return branch
    return next((c for v in _returned(fn) if (c := _condition(module, v, depth + 1)) is not None), None)


def branched_list(source: str, kernel: str, filename: str = "kernel.py") -> str | None:
    """Why ``kernel``'s autotune list cannot be pinned without dropping a list the user wrote for another case: its
    ``configs=`` is chosen by a condition (:func:`_condition`: the tutorial's ``get_autotune_config()`` returning
    under ``if is_cuda():``, and a name bound to it, a conditional expression, a module ``if``, late19 z4), one line
    naming the list and the condition with their lines; ``None`` for any other list."""
    an, _, _ = analyze(source, filename)
    expr = an.autotune_configs_expr(kernel)
    if expr is None:
        return None
    tree = parsed(source)
    branch = _condition(tree.module, expr)
    if branch is None:
        return None
    test = tree.module.code_for_node(branch.test)
    chooses = f"`if {test}:`" if isinstance(branch, cst.If) else f"`... if {test} else ...`"
    return (
        f"{kernel}'s autotune list is {tree.module.code_for_node(expr)} (line {an.span(expr).line}), which chooses its "
        f"list by {chooses} (line {tree.positions[branch].start.line}): a pinned list would run the configs tuned here "
        "where that test chooses another list too, and the list written for there would be gone (pin the branch tuned "
        "by hand)"
    )
