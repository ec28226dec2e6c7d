"""An autotune list applied by a call, Transformer Engine's form: the one reading of it for every reader.

Transformer Engine writes its MoE permutation kernels' lists after the definitions, inside ``try`` (an old Triton
without ``triton.autotune``'s keyword raises ``RuntimeError`` there, and the kernel runs unautotuned)::

    @triton.jit
    def _permute_kernel(...): ...

    try:
        _permute_kernel = triton.autotune(configs=[...], key=["hidden_size"])(_permute_kernel)
    except RuntimeError:
        pass

It is the decorator ``@triton.autotune(configs=[...], key=["hidden_size"])`` written outermost, applied later.
:func:`called_autotunes` finds each (its call node, in the module's own tree, so an edit's spans are the file's);
:func:`as_decorators` writes a text with each as its kernel's outermost decorator, for a reader that judges a whole
text (the guard), whose verdict on that text is the verdict on the file (the edit itself is written where the file
holds the list, the ``try`` kept).
"""

from __future__ import annotations

import libcst as cst

from kernelopt.tunables.blocks import dotted, module_statements
from kernelopt.tunables.syntax import parsed


def _applied(small: cst.BaseSmallStatement) -> tuple[str, cst.Call] | None:
    """``(kernel, autotune call)`` of ``kernel = <...>.autotune(...)(kernel)``, else ``None``."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return None
    target, value = small.targets[0].target, small.value
    if not (isinstance(target, cst.Name) and isinstance(value, cst.Call) and len(value.args) == 1):
        return None
    inner, wrapped = value.func, value.args[0].value
    if not (isinstance(inner, cst.Call) and dotted(inner.func).split(".")[-1] == "autotune"):
        return None
    if not (isinstance(wrapped, cst.Name) and wrapped.value == target.value):
        return None
    return target.value, inner


def _defined(module: cst.Module) -> set[str]:
    return {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}


def called_autotunes(module: cst.Module) -> dict[str, tuple[cst.Call, cst.SimpleStatementLine]]:
    """Each kernel of ``module`` (a function defined at module level) that a module-level statement autotunes by a
    call, once: its ``triton.autotune(...)`` call and the statement (a kernel wrapped twice is left out: which list
    runs is not one reading)."""
    found: dict[str, list[tuple[cst.Call, cst.SimpleStatementLine]]] = {}
    defined = _defined(module)
    for stmt in module_statements(module.body):
        for small in stmt.body:
            hit = _applied(small)
            if hit is not None and hit[0] in defined:
                found.setdefault(hit[0], []).append((hit[1], stmt))
    return {name: hits[0] for name, hits in found.items() if len(hits) == 1}


class _AsDecorators(cst.CSTTransformer):
    def __init__(self, calls: dict[str, tuple[cst.Call, cst.SimpleStatementLine]]) -> None:
        self.calls = calls
        self.statements = {id(stmt) for _, stmt in calls.values()}
        self.within = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.within += 1
        return True

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.within -= 1
        hit = self.calls.get(updated_node.name.value) if self.within == 0 else None
        if hit is None:
            return updated_node
        return updated_node.with_changes(decorators=[cst.Decorator(decorator=hit[0]), *updated_node.decorators])

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        if id(original_node) not in self.statements:
            return updated_node
        kept = [s for s in updated_node.body if _applied(s) is None]
        return updated_node.with_changes(body=kept or [cst.Pass()])


def as_decorators(source: str) -> str | None:
    """``source`` with each list :func:`called_autotunes` finds written as its kernel's outermost decorator and its
    statement written ``pass`` (a ``try`` keeps a body); ``None`` when there is none or the text does not parse."""
    if "autotune" not in source:  # no list to move (most texts: the guard asks of every edit)
        return None
    try:
        module = parsed(source).module  # the text's one parse (libcst trees are immutable: visit makes a new one)
    except cst.ParserSyntaxError:
        return None
    calls = called_autotunes(module)
    if not calls:
        return None
    return module.visit(_AsDecorators(calls)).code
