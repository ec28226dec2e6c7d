"""A size as the launch reads it, written in the names a table's row can read (late38).

A row of a tuned table (``if max_num_tokens <= 64:  # kernelopt: tuned`` / ``BLOCK_M = 16``) tests the sizes bound
when it runs; a launcher that reassigns a size after the row (``max_num_tokens = triton.cdiv(max_num_tokens, 64) *
64``, ``M = M * topk``, ``n = n + pad``) launches with the new value, so a bound the row holds over the old one (a grid
axis's count of programs, a divisor the launcher asserts) can pass where the launch's count or divisor fails.
:func:`value_at_launch` writes the launch's value in the row's names (the one plain reassignment put in the size's
place) or says why it cannot.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from kernelopt.tunables.blocks import walk
from kernelopt.tunables.inline_guard import marked_tuned
from kernelopt.tunables.model import TunableError
from kernelopt.tunables.signature import param_names
from kernelopt.tunables.syntax import parsed


def value_at_launch(fn: cst.FunctionDef, node: cst.CSTNode, expr: cst.BaseExpression) -> cst.BaseExpression | str:
    """``expr`` (read in the launching function ``fn`` after the row ``node``, a top-level statement's part) with
    each name bound at the row that a statement after it rebinds before the launch's last read of it put as that one
    reassignment (``(triton.cdiv(max_num_tokens, 64) * 64)`` for ``max_num_tokens``), which reads the values bound at
    the row; ``expr`` itself where no such name is rebound. A reason (a string) where a rebinding cannot be read so:
    more than one, one in a branch or loop, an augmented or unpacked one, or one that reads a name rebound after the
    row too."""
    statements = list(cst.ensure_type(fn.body, cst.IndentedBlock).body)
    at = next((i for i, s in enumerate(statements) if any(n is node for n in walk(s))), None)
    if at is None:
        return expr
    launches = [i for i, s in enumerate(statements) if i > at and any(_launch(n) for n in walk(s))]
    after = [s for s in statements[at + 1 : (launches[-1] + 1 if launches else None)] if not marked_tuned(s)]
    before = set(param_names(fn)).union(*(statement_binds(s) for s in statements[:at]))
    given: dict[str, cst.BaseExpression] = {}
    for name in sorted(
        statement_reads(expr) & before
    ):  # a name first bound after the row is its callers' (a later tile)
        last = max((i for i, s in enumerate(after) if name in statement_reads(s, targets=False)), default=0)
        rebinding = [i for i, s in enumerate(after[:last]) if name in statement_binds(s)]  # before the launch's read
        if not rebinding:
            continue  # kept at the row's value wherever the launch reads it
        value = _plain_value(after[rebinding[0]], name) if len(rebinding) == 1 else None
        if value is None:
            return f"{name} is rebound after the row in a way its test cannot read (one plain assignment is read)"
        moved = {
            n
            for n in statement_reads(value)
            if n != name and any(n in statement_binds(s) for s in after[: rebinding[0]])
        }
        if moved:
            return f"{name} is rebound after the row from {', '.join(sorted(moved))}, itself rebound after the row"
        given[name] = value if isinstance(value, cst.Name | cst.Call | cst.Integer) else _in_parens(value)
    if isinstance(expr, cst.Name) and expr.value in given:
        return given[expr.value].with_changes(lpar=[], rpar=[])  # its reader parenthesizes it where it must
    return expr if not given else cst.ensure_type(expr.visit(Substitute(given)), cst.BaseExpression)


class UnreadSize(TunableError):
    """A table's size is reassigned between its rows and the launch in a way no row's test can read: not written."""


def size_at_launch(source: str, line: int, size: str) -> str | None:
    """The table's size ``size``, written after the statement of ``source`` on ``line`` (a setting's computation in a
    launching function), as the launch reads it (late39's l73: a table's buckets are the sizes recorded at the launch,
    ``folder._size_of``, so its bound must test the launch's value, ``n * 2`` where ``n = n * 2`` follows the row);
    ``None`` where it reads as written.

    Raises:
        UnreadSize: the reassignment cannot be read so (:func:`value_at_launch`'s reason, the table named).
    """
    tree = parsed(source)
    for fn in (n for n in walk(tree.module) if isinstance(n, cst.FunctionDef)):
        if not isinstance(fn.body, cst.IndentedBlock):
            continue
        for statement in fn.body.body:
            at = tree.positions[statement]
            if at.start.line <= line <= at.end.line:
                read = value_at_launch(fn, statement, cst.parse_expression(size))
                if isinstance(read, str):
                    raise UnreadSize(f"a tuned table over {size} after line {line}: {read}: not written")
                if not isinstance(read, cst.Name | cst.Call | cst.Integer | cst.Attribute | cst.Subscript):
                    read = _in_parens(read)  # ``(n * 2) <= 64``, read as one value
                code = cst.Module([]).code_for_node(read)
                return None if code == size else code
    return None


def _launch(node: cst.CSTNode) -> bool:
    """Whether ``node`` is a kernel's launch (``kernel[grid](...)``): statements after the last one are not read."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript)


def statement_reads(node: cst.CSTNode, *, targets: bool = True) -> set[str]:
    """The variable names ``node`` reads, and binds unless ``targets`` is false (an attribute's own name left out:
    ``B.size`` reads ``B``)."""
    left = {id(n.attr) for n in walk(node) if isinstance(n, cst.Attribute)}
    if not targets:
        left |= {id(t.target) for n in walk(node) if isinstance(n, cst.Assign) for t in n.targets}
        left |= {id(n.target) for n in walk(node) if isinstance(n, cst.AnnAssign | cst.For)}
    return {n.value for n in walk(node) if isinstance(n, cst.Name) and id(n) not in left}


def statement_binds(statement: cst.CSTNode) -> set[str]:
    """The names a statement binds anywhere in it: assignments of every form, loop and ``with`` targets."""
    targets: list[cst.CSTNode] = []
    for n in walk(statement):
        if isinstance(n, cst.Assign):
            targets += [t.target for t in n.targets]
        elif isinstance(n, cst.AnnAssign | cst.AugAssign | cst.For):
            targets.append(n.target)
        elif isinstance(n, cst.AsName):
            targets.append(n.name)
        elif isinstance(n, cst.NamedExpr):
            targets.append(n.target)
    return {n.value for t in targets for n in walk(t) if isinstance(n, cst.Name)}


def _plain_value(statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value``, where ``statement`` is that one plain assignment; else ``None``."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    return small.value if isinstance(target, cst.Name) and target.value == name else None


def _in_parens(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr if expr.lpar else expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class Substitute(cst.CSTTransformer):
    """Each name of ``given`` replaced by its expression in the tree it visits; an attribute's own name is kept
    (``B.size`` stays ``B.size`` where ``size`` is given). The one substitution of a bound's or a size's names."""

    def __init__(self, given: Mapping[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.given = given

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return updated_node.with_changes(attr=original_node.attr)  # ``B.size`` keeps its attribute's name

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self.given.get(original_node.value, updated_node)
