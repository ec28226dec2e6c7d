"""What a written kernel's tuned guards set at given sizes: the ``if <test>:  # kernelopt: tuned`` statements an edit
writes (a guard over a pick, a table's rows, the settings bounded beside them), each test evaluated as Python with
the launch's values of the names it reads (a size rebound after its row read through the test's writing of the
rebinding, late40), in source order (a later row that holds sets its names again, an ``elif``
or ``else`` runs where its ``if`` fails), as the launch itself runs them. A ratio ``tune`` states is the written
kernel's, and the written kernel runs the pick only where these tests hold (late37: v119's guard ``n_cols % 8192 ==
0`` held at neither ``SHAPES`` entry, and "2.01x faster" was said of a file that runs the original at both)."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import libcst as cst

from kernelopt import pyparse
from kernelopt.tunables.blocks import walk
from kernelopt.tunables.inline_guard import block_settings, conjuncts, marked_tuned, read_statement_guard
from kernelopt.tunables.launch_value import value_at_launch
from kernelopt.tunables.syntax import parsed


@dataclass(frozen=True)
class GuardRun:
    """The names the tuned guards of a source set (``guarded``) and the value each holds at one set of sizes where a
    guard that sets it holds (``held``: a name absent there keeps the value it had before the guards)."""

    guarded: frozenset[str]
    held: Mapping[str, int]


def tuned_ifs(source: str) -> list[cst.If]:
    """The tuned ``if`` statements of ``source`` in source order (an ``elif`` of one is read through it, not apart)."""
    try:
        return _tuned_ifs(parsed(source).module)
    except cst.ParserSyntaxError:
        return []


def _tuned_ifs(module: cst.Module) -> list[cst.If]:
    found = [n for n in walk(module) if isinstance(n, cst.If) and (marked_tuned(n) or read_statement_guard(n))]
    inner = {id(n.orelse) for n in found if isinstance(n.orelse, cst.If)}
    return [n for n in found if id(n) not in inner]


class _WithoutIfs(cst.CSTTransformer):
    """Drops the ``if`` statements given (by identity), their ``elif`` and ``else`` with them."""

    def __init__(self, ifs: list[cst.If]) -> None:
        super().__init__()
        self.ids = {id(n) for n in ifs}

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If | cst.RemovalSentinel:
        return cst.RemoveFromParent() if id(original_node) in self.ids else updated_node


def without_guards(source: str) -> str | None:
    """``source`` without its tuned ``if`` statements (:func:`tuned_ifs`): the original computation the guards an
    earlier write left fall back to, the rest byte for byte (leftovers27 l131: a retune times it beside the written
    kernel); ``source`` itself where it holds none, ``None`` where it does not parse or a block would be left empty."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return None
    ifs = _tuned_ifs(module)
    if not ifs:
        return source
    try:
        text = module.visit(_WithoutIfs(ifs)).code
        pyparse.parse(text)
    except (cst.CSTValidationError, SyntaxError, ValueError):
        return None
    return text


def guard_tests(ifs: list[cst.If]) -> list[str]:
    """The tests of the tuned ``ifs`` (:func:`tuned_ifs`) as written, each ``elif`` of a chain after its ``if``."""
    return [cst.Module([]).code_for_node(b.test) for node in ifs for b in _chain(node) if isinstance(b, cst.If)]


def guard_run(source: str, value_of: Callable[[str], int | None]) -> GuardRun | None:
    """What the tuned ``if`` statements of ``source`` (:func:`tuned_ifs`) set where each name a test reads has the
    value ``value_of`` gives it at the launch; ``None`` where a test reads a name of no known integer value, cannot be
    evaluated, or a body sets anything but integer literals (a row that runs a computation: what it gives is not read
    here). A test reads the values bound at its row: a size the launcher rebinds after the row (``n = n * 2``) is read
    through the test's writing of that rebinding (``(n * 2) <= 64`` is ``n <= 64`` of the launch's ``n``,
    :func:`_at_launch`); ``None`` too where the test reads such a size otherwise (late40's l75)."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return None
    guarded: set[str] = set()
    held: dict[str, int] = {}
    set_in: dict[int, dict[str, int]] = {}  # id of a launching function -> what its rows that held set
    for node in _tuned_ifs(module):
        fn = _launcher(module, node)
        taken = False
        for branch in _chain(node):
            settings = _settings(branch.body)
            if settings is None:
                return None
            guarded.update(settings)
            if not taken:
                test = _at_launch(fn, node, branch.test) if isinstance(branch, cst.If) else None
                if isinstance(branch, cst.If) and test is None:
                    return None
                # a name an earlier row of the same function set reads that row's value (``BLOCK % 128 == 0`` below a
                # row setting ``BLOCK = 128``; late44's l142), not the value the original's run gave it at the launch
                own = set_in.get(id(fn), {})
                holds = (
                    _holds(test, lambda n, own=own: own[n] if n in own else value_of(n)) if test is not None else True
                )
                if holds is None:
                    return None
                if holds:
                    held.update(settings)
                    set_in.setdefault(id(fn), {}).update(settings)
                    taken = True
    return GuardRun(frozenset(guarded), held)


def unread_at_launch(source: str) -> list[str]:
    """The tests of the tuned rows of ``source`` that read a size rebound after their row in a way the launch's
    values do not give (``n <= 64`` before ``n = n * 2``: :func:`guard_run` does not read them, late40's l75)."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return []
    return [
        _code(b.test)
        for node in _tuned_ifs(module)
        for b in _chain(node)
        if isinstance(b, cst.If) and _at_launch(_launcher(module, node), node, b.test) is None
    ]


def read_at_launch(source: str, test: str) -> str | None:
    """``test``, the test of a tuned ``if`` of ``source`` (a guard written at its tile), over the launch's values
    (:func:`_at_launch`: ``(n // 2) % 128 == 0`` before ``n = n // 2`` is ``n % 128 == 0`` of the launch's ``n``), so
    a setting put under it elsewhere reads it from its own place (late40's l77); ``None`` where no tuned ``if`` of
    ``source`` tests it or it reads a size rebound after its ``if`` otherwise."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return None
    for node in _tuned_ifs(module):
        for branch in _chain(node):
            if isinstance(branch, cst.If) and _code(branch.test) == test:
                read = _at_launch(_launcher(module, node), node, branch.test)
                return None if read is None else _code(read)
    return None


def _launcher(module: cst.Module, node: cst.If) -> cst.FunctionDef | None:
    """The function whose body holds ``node`` in one of its top-level statements; ``None`` at the module's level."""
    for fn in (n for n in walk(module) if isinstance(n, cst.FunctionDef) and isinstance(n.body, cst.IndentedBlock)):
        if any(any(n is node for n in walk(s)) for s in fn.body.body):
            return fn
    return None


def _at_launch(fn: cst.FunctionDef | None, node: cst.If, test: cst.BaseExpression) -> cst.BaseExpression | None:
    """``test`` (of the row ``node`` in ``fn``) written over the launch's values: each size rebound after the row by
    one plain reassignment (:func:`~kernelopt.tunables.launch_value.value_at_launch`) whose value the test reads
    whole (``(n * 2)`` before ``n = n * 2``) put back as the size's name, which the launch's value then stands for;
    ``test`` itself where no size it reads is rebound; ``None`` where the test reads a rebound size otherwise (its
    row's value is not the launch's, and is not read backwards here) or the rebinding cannot be read."""
    if fn is None:
        return test
    for name in sorted({n.value for n in walk(test) if isinstance(n, cst.Name)}):
        value = value_at_launch(fn, node, cst.Name(name))
        if isinstance(value, str):
            return None
        if isinstance(value, cst.Name) and value.value == name:
            continue
        held = f"{name}__at_launch"  # the launch's value, kept apart from the row's until every read is put back
        test = cst.ensure_type(test.visit(_Back(_code(value), held)), cst.BaseExpression)
        if any(isinstance(n, cst.Name) and n.value == name for n in walk(test)):
            return None
        test = cst.ensure_type(test.visit(_Back(held, name)), cst.BaseExpression)
    return test


def _code(expr: cst.BaseExpression) -> str:
    """``expr`` written without its own parentheses (``(n * 2)`` and ``n * 2`` are one reading)."""
    bare = expr.with_changes(lpar=[], rpar=[]) if getattr(expr, "lpar", None) else expr
    return cst.Module([]).code_for_node(bare)


class _Back(cst.CSTTransformer):
    """Each expression written as ``code`` (its parentheses aside) put back as the name ``name``."""

    def __init__(self, code: str, name: str) -> None:
        super().__init__()
        self.code, self.name = code, name

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        if isinstance(original_node, cst.BaseExpression) and _code(original_node) == self.code:
            return cst.Name(self.name)
        return updated_node


def _settings(body: cst.BaseSuite) -> dict[str, int] | None:
    """Name -> integer literal of every statement of ``body``; ``None`` where one is anything else."""
    pairs = block_settings(body)
    return None if pairs is None else dict(pairs)


def _holds(test: cst.BaseExpression, value_of: Callable[[str], int | None]) -> bool | None:
    """``test`` evaluated over the integer values of the names it reads (no builtins: a guard is arithmetic and
    comparisons); ``None`` where a name has no value or the evaluation raises."""
    code = cst.Module([]).code_for_node(test)
    try:
        tree = pyparse.parse(code.strip(), mode="eval")
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
    name is kept unless the divisors alone leave its bucket empty. A chain's live rows stay in their order. A row's
    test is read over the launch's values as :func:`guard_run` reads it (``(n * 2) <= 64`` before ``n = n * 2``
    bounds the launch's ``n`` by 64); a row whose test reads a rebound size otherwise is kept."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return source, []
    heads = _tuned_ifs(module)
    tests = {  # each row's test over the launch's values, which its bucket's sizes are (late40's l76)
        id(b): test
        for head in heads
        for b in _chain(head)
        if isinstance(b, cst.If) and (test := _at_launch(_launcher(module, head), head, b.test)) is not None
    }
    branches = [b for head in heads for b in _chain(head) if isinstance(b, cst.If) and id(b) in tests]
    rows = [(b, bounds) for b in branches if (bounds := _bounds(tests[id(b)], size)) is not None]
    tops = sorted({hi for _, (hi, _) in rows})
    dead: dict[int, str] = {}
    for node, (hi, step) in rows:
        lo = max((t for t in tops if t < hi), default=0)
        least = (lo // step + 1) * step
        if least > hi or _holds(tests[id(node)], lambda name, least=least: least if name == size else None) is False:
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
