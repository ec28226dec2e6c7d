"""What a written kernel's tuned guards set at given sizes: the ``if <test>:  # kernelopt: tuned`` statements an edit
writes (a guard over a pick, a table's rows, the settings bounded beside them), each test evaluated as Python with
the launch's values of the names it reads, in source order (a later row that holds sets its names again, an ``elif``
or ``else`` runs where its ``if`` fails), as the launch itself runs them. A ratio ``tune`` states is the written
kernel's, and the written kernel runs the pick only where these tests hold (late37: v119's guard ``n_cols % 8192 ==
0`` held at neither ``SHAPES`` entry, and "2.01x faster" was said of a file that runs the original at both)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.blocks import walk
from kernelopt.tunables.inline_guard import block_settings, conjuncts, marked_tuned, read_statement_guard


@dataclass(frozen=True)
class GuardRun:
    """The names the tuned guards of a source set (``guarded``) and the value each holds at one set of sizes where a
    guard that sets it holds (``held``: a name absent there keeps the value it had before the guards)."""

    guarded: frozenset[str]
    held: Mapping[str, int]


def tuned_ifs(source: str) -> list[cst.If]:
    """The tuned ``if`` statements of ``source`` in source order (an ``elif`` of one is read through it, not apart)."""
    try:
        return _tuned_ifs(cst.parse_module(source))
    except cst.ParserSyntaxError:
        return []


def _tuned_ifs(module: cst.Module) -> list[cst.If]:
    found = [n for n in walk(module) if isinstance(n, cst.If) and (marked_tuned(n) or read_statement_guard(n))]
    inner = {id(n.orelse) for n in found if isinstance(n.orelse, cst.If)}
    return [n for n in found if id(n) not in inner]


def guard_tests(ifs: list[cst.If]) -> list[str]:
    """The tests of the tuned ``ifs`` (:func:`tuned_ifs`) as written, each ``elif`` of a chain after its ``if``."""
    tests: list[str] = []
    for node in ifs:
        branch: cst.If | cst.Else | None = node
        while isinstance(branch, cst.If):
            tests.append(cst.Module([]).code_for_node(branch.test))
            branch = branch.orelse
    return tests


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


def dead_rows(source: str, size: str) -> tuple[str, list[str]]:
    """``source`` with each tuned row over ``size`` that holds at no size of its bucket taken out, and those rows'
    tests. A row is a tuned ``if`` (or an ``elif`` of one) whose test joins ``<size> <= <hi>`` to other tests; its
    bucket runs from the next lower row's bound (exclusive) to ``hi``; it holds nowhere there where no multiple of the
    divisors its tests ask of ``size`` (``<size> % d == 0``) falls in the bucket, or its test fails at the least such
    multiple (v120's ``n_cols <= 3000 and n_cols % 4096 == 0``, wrongkernel26: dead text). A test that reads another
    name is kept unless the divisors alone leave its bucket empty. A chain's live rows stay in their order."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return source, []
    heads = _tuned_ifs(module)
    branches = [b for head in heads for b in _chain(head) if isinstance(b, cst.If)]
    rows = [(b, bounds) for b in branches if (bounds := _bounds(b.test, size)) is not None]
    tops = sorted({hi for _, (hi, _) in rows})
    dead: dict[int, str] = {}
    for node, (hi, step) in rows:
        lo = max((t for t in tops if t < hi), default=0)
        least = (lo // step + 1) * step
        if least > hi or _holds(node.test, lambda name, least=least: least if name == size else None) is False:
            dead[id(node)] = cst.Module([]).code_for_node(node.test)
    if not dead:
        return source, []
    chained = {id(h) for h in heads if any(id(b) in dead for b in _chain(h))}

    class _Drop(cst.CSTTransformer):
        def leave_If(self, original: cst.If, updated: cst.If) -> cst.BaseStatement | cst.RemovalSentinel:
            if id(original) not in chained:
                return updated
            live = [b for b in _chain(original) if id(b) not in dead]
            if not any(isinstance(b, cst.If) for b in live):
                return cst.RemoveFromParent()  # an ``else`` left alone runs where every row did: not a row's text
            rebuilt: cst.If | cst.Else | None = None
            for branch in reversed(live):
                rebuilt = branch.with_changes(orelse=rebuilt) if isinstance(branch, cst.If) else branch
            assert isinstance(rebuilt, cst.If)
            return rebuilt.with_changes(leading_lines=original.leading_lines)

    return module.visit(_Drop()).code, list(dead.values())


def _chain(head: cst.If) -> list[cst.If | cst.Else]:
    """``head`` and its ``elif`` and ``else`` branches, in order."""
    out: list[cst.If | cst.Else] = []
    branch: cst.If | cst.Else | None = head
    while branch is not None:
        out.append(branch)
        branch = branch.orelse if isinstance(branch, cst.If) else None
    return out


def _bounds(test: cst.BaseExpression, size: str) -> tuple[int, int] | None:
    """A row's bound on ``size`` (its ``<size> <= <hi>``) and the least common multiple of the divisors its tests ask
    of ``size`` (1 where none); ``None`` where no test bounds ``size`` so."""
    hi: int | None = None
    step = 1
    for one in conjuncts(test):
        if not isinstance(one, cst.Comparison) or len(one.comparisons) != 1:
            continue
        op, right, left = one.comparisons[0].operator, one.comparisons[0].comparator, one.left
        if not isinstance(right, cst.Integer):
            continue
        if isinstance(op, cst.LessThanEqual) and isinstance(left, cst.Name) and left.value == size:
            value = int(right.evaluated_value)
            hi = value if hi is None else min(hi, value)
        elif (
            isinstance(op, cst.Equal)
            and int(right.evaluated_value) == 0
            and isinstance(left, cst.BinaryOperation)
            and isinstance(left.operator, cst.Modulo)
            and isinstance(left.left, cst.Name)
            and left.left.value == size
            and isinstance(left.right, cst.Integer)
            and int(left.right.evaluated_value) > 0
        ):
            step = math.lcm(step, int(left.right.evaluated_value))
    return (hi, step) if hi is not None else None
