"""What a written kernel's tuned guards set at given sizes: the ``if <test>:  # kernelopt: tuned`` statements an edit
writes (a guard over a pick, a table's rows, the settings bounded beside them), each test evaluated as Python with
the launch's values of the names it reads, in source order (a later row that holds sets its names again, an ``elif``
or ``else`` runs where its ``if`` fails), as the launch itself runs them. A ratio ``tune`` states is the written
kernel's, and the written kernel runs the pick only where these tests hold (late37: v119's guard ``n_cols % 8192 ==
0`` held at neither ``SHAPES`` entry, and "2.01x faster" was said of a file that runs the original at both)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.blocks import walk
from kernelopt.tunables.inline_guard import block_settings, marked_tuned, read_statement_guard


@dataclass(frozen=True)
class GuardRun:
    """The names the tuned guards of a source set (``guarded``) and the value each holds at one set of sizes where a
    guard that sets it holds (``held``: a name absent there keeps the value it had before the guards)."""

    guarded: frozenset[str]
    held: Mapping[str, int]


def tuned_ifs(source: str) -> list[cst.If]:
    """The tuned ``if`` statements of ``source`` in source order (an ``elif`` of one is read through it, not apart)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return []
    found = [n for n in walk(module) if isinstance(n, cst.If) and (marked_tuned(n) or read_statement_guard(n))]
    inner = {id(n.orelse) for n in found if isinstance(n.orelse, cst.If)}
    return [n for n in found if id(n) not in inner]


def guard_run(ifs: list[cst.If], value_of: Callable[[str], int | None]) -> GuardRun | None:
    """What the tuned ``ifs`` (:func:`tuned_ifs`) set where each name a test reads has the value ``value_of`` gives it;
    ``None`` where a test reads a name of no known integer value, cannot be evaluated, or a body sets anything but
    integer literals (a row that runs a computation: what it gives is not read here)."""
    guarded: set[str] = set()
    held: dict[str, int] = {}
    for node in ifs:
        branch: cst.If | cst.Else | None = node
        taken = False
        while branch is not None:
            settings = _settings(branch.body)
            if settings is None:
                return None
            guarded.update(settings)
            if not taken:
                holds = _holds(branch.test, value_of) if isinstance(branch, cst.If) else True
                if holds is None:
                    return None
                if holds:
                    held.update(settings)
                    taken = True
            branch = branch.orelse if isinstance(branch, cst.If) else None
    return GuardRun(frozenset(guarded), held)


def _settings(body: cst.BaseSuite) -> dict[str, int] | None:
    """Name -> integer literal of every statement of ``body``; ``None`` where one is anything else."""
    pairs = block_settings(body)
    return None if pairs is None else dict(pairs)


def _holds(test: cst.BaseExpression, value_of: Callable[[str], int | None]) -> bool | None:
    """``test`` evaluated over the integer values of the names it reads (no builtins: a guard is arithmetic and
    comparisons); ``None`` where a name has no value or the evaluation raises."""
    code = cst.Module([]).code_for_node(test)
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError:
        return None
    names: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute | ast.Call | ast.Subscript | ast.Lambda):
            return None  # only names, literals and operators: nothing of the module is run
        if isinstance(node, ast.Name):
            value = value_of(node.id)
            if value is None:
                return None
            names[node.id] = value
    try:
        return bool(eval(compile(tree, "<guard>", "eval"), {"__builtins__": {}}, names))
    except (ArithmeticError, TypeError, ValueError):
        return None
