"""One scope's own code, as a libcst visitor reads it (pure): a module's or a function body's statements, without the
bodies of the functions, classes and lambdas nested in it, which are scopes of their own and bind their own names.

The base of each tunables reader that collects what one scope binds or returns (``analysis``'s attribute
assignments and a function's returns, ``dict_origin``'s bindings of a dict handed on): each had its own copy of
the three refusals (review23, r32)."""

from __future__ import annotations

import libcst as cst


class OneScope(cst.CSTVisitor):
    """A visitor that stays in the scope it is started on: the functions, classes and lambdas nested in it are not
    entered (start it on a body, not on the definition itself)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class Returns(OneScope):
    """The values of one scope's ``return`` statements (a bare ``return`` gives none), in order."""

    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)
