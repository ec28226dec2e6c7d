"""Whether a launch option moved keeps a computed block covering its size wherever the original's does: the proof that
narrows n64's rule (:func:`kernelopt.tunables.readers.shrunk_covers`).

n64's rule refuses a pick of ``num_warps`` (or ``num_stages``) that a block covering a size with one block is computed
from, where the block comes out smaller than the original's, or where its value cannot be worked out from the option
alone. The second half refused correct picks: ``BLOCK = max(triton.next_power_of_2(N), warps * 32)`` covers ``N`` at
every size whatever ``warps`` is, and ``BLOCK = min(triton.next_power_of_2(N), warps * 128)`` only grows when ``warps``
does (the fourteenth closing note: "the n64 rule is conservative"). Two proofs, each over the computation as the file
writes it (the block's one binding in the launching function, the locals it reads that are bound once substituted):

- **grows**: the option's new value is at least the original's, and the computation never falls when the option
  rises (sums, products and floor divisions by positive constants, ``min``, ``max``, ``next_power_of_2`` and
  ``cdiv`` by a positive constant of such, and anything the option does not reach): the block is at least the
  original's at every size, so it covers wherever the original's does;
- **covers**: the computation is at least the size at every size where the original's is: the size itself (the name
  the launch passes as the kernel's size parameter, bound once), its ``next_power_of_2``, a ``max`` with one such
  argument, or a ``min`` whose every argument the option reaches is one (an argument the option does not reach is the
  same in the original, which covers only where it is at least the size).

A local the computation reads that the function binds more than once (``per = warps * 128`` then ``if N < 64: per =
64``) may hold what the option makes, so it proves nothing (break16's b16: read as a constant, it proved
``min(next_power_of_2(N), per)`` at ``num_warps=4`` to cover, where ``per`` halves). Anything else is not proved, and
the rule refuses as before. A cover whose range is derived from the block
(``HALF = BLOCK // 2``) is never proved here. Pure: the source in, a yes or no out.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

import libcst as cst

from kernelopt import pyparse
from kernelopt.numeric import is_number
from kernelopt.tunables.bindings import assigned_once, bindings, rebound
from kernelopt.tunables.blocks import launched, named_args, walk
from kernelopt.tunables.model import Cover, Tunable
from kernelopt.tunables.signature import param_names
from kernelopt.tunables.syntax import parsed

#: Locals substituted into a computation at most this deep (``BLOCK = threads``, ``threads = nw * 32``).
DEPTH = 8

_ROUNDING = frozenset({"next_power_of_2"})
_CDIV = frozenset({"cdiv"})


def keeps_cover(tunable: Tunable, cover: Cover, source: str, names: Collection[str], was: object, now: object) -> bool:
    """Whether moving a launch option from ``was`` to ``now`` (``names``: the names its literal binds) provably keeps
    ``tunable``'s computed block covering ``cover.size`` wherever the original's covers it (module docstring)."""
    if cover.mul != cover.div:
        return False
    moved = frozenset(names)
    found = _computation(tunable, cover, source, moved)
    if found is None:
        return False
    expr, size = found
    if is_number(was) and is_number(now) and now >= was and _grows(expr, moved):  # type: ignore[operator]
        return True
    return _covers(expr, size, moved)


def _computation(tunable: Tunable, cover: Cover, source: str, moved: frozenset[str]) -> tuple[ast.expr, str] | None:
    """The block's computation at ``tunable``'s one launch (its binding there, the locals it reads that are bound once
    substituted, the option's ``moved`` names and the size's kept) and the name the launch passes as the kernel's size
    parameter; ``None`` where either is not one plain binding of the launching function."""
    if len(set(tunable.used_at)) != 1:
        return None
    try:
        tree = parsed(source)
        line = int(tunable.used_at[0].rsplit(":", 1)[1])
    except (cst.ParserSyntaxError, ValueError, IndexError):
        return None
    kernel = next(
        (n for n in tree.module.body if isinstance(n, cst.FunctionDef) and n.name.value == cover.kernel), None
    )
    if kernel is None:
        return None
    params = param_names(kernel, posonly=True, kwonly=True)
    for fn in (n for n in walk(tree.module) if isinstance(n, cst.FunctionDef)):
        for call in (n for n in walk(fn.body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Subscript)):
            head = launched(call.func.value)  # type: ignore[attr-defined]
            if not (isinstance(head, cst.Name) and head.value == cover.kernel):
                continue
            if tree.positions[call].start.line != line:
                continue
            args = named_args(call.args, params)
            block, size = args.get(cover.block), args.get(cover.size)
            if not (isinstance(block, cst.Name) and isinstance(size, cst.Name)):
                return None
            once = assigned_once(fn)
            if block.value not in once or len(bindings(fn).get(size.value, ())) != 1:
                return None
            values = {name: _ast(tree.module, v) for name, v in once.items() if name not in {size.value, *moved}}
            expr = _substituted(values[block.value], values, DEPTH)
            twice = rebound(fn)
            if expr is None or any(isinstance(n, ast.Name) and n.id in twice for n in ast.walk(expr)):
                return None  # a local bound twice may hold anything the option makes (break16 b16): not proved
            return expr, size.value
    return None


def _ast(module: cst.Module, node: cst.BaseExpression) -> ast.expr | None:
    """``node`` as a Python expression (``None`` where it does not parse alone)."""
    try:
        return pyparse.parse(module.code_for_node(node).strip(), mode="eval").body
    except SyntaxError:
        return None


def _substituted(expr: ast.expr | None, values: dict[str, ast.expr | None], depth: int) -> ast.expr | None:
    """``expr`` with each name ``values`` holds replaced by its value, ``depth`` deep (``None`` past it)."""
    if expr is None:
        return None
    if depth <= 0:
        return None if any(isinstance(n, ast.Name) and n.id in values for n in ast.walk(expr)) else expr

    class Inline(ast.NodeTransformer):
        failed = False

        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id not in values:
                return node
            inner = _substituted(values[node.id], values, depth - 1)
            if inner is None:
                Inline.failed = True
                return node
            return inner

    out = Inline().visit(pyparse.parse(ast.unparse(expr), mode="eval").body)
    return None if Inline.failed else out


def _reads(expr: ast.expr, moved: frozenset[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in moved for n in ast.walk(expr))


def _called(node: ast.expr, names: frozenset[str]) -> bool:
    """A call of one of ``names`` (``next_power_of_2(x)``, ``triton.next_power_of_2(x)``)."""
    func = node.func if isinstance(node, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name in names and not getattr(node, "keywords", None)


def _positive(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and is_number(node.value) and node.value > 0


def _grows(expr: ast.expr, moved: frozenset[str]) -> bool:
    """Whether ``expr`` never falls when the names ``moved`` rise (module docstring's "grows")."""
    if not _reads(expr, moved):
        return True
    if isinstance(expr, ast.Name):
        return True  # one of ``moved``
    if isinstance(expr, ast.BinOp):
        left, right, op = expr.left, expr.right, expr.op
        if isinstance(op, ast.Add):
            return _grows(left, moved) and _grows(right, moved)
        if isinstance(op, ast.Sub):
            return _grows(left, moved) and not _reads(right, moved)
        if isinstance(op, ast.Mult):
            return (_positive(left) and _grows(right, moved)) or (_positive(right) and _grows(left, moved))
        if isinstance(op, ast.FloorDiv | ast.RShift):
            return _positive(right) and _grows(left, moved)
        if isinstance(op, ast.LShift):
            return isinstance(right, ast.Constant) and is_number(right.value) and _grows(left, moved)
        return False
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("min", "max"):
        return not expr.keywords and all(_grows(a, moved) for a in expr.args)
    if isinstance(expr, ast.Call) and _called(expr, _ROUNDING) and len(expr.args) == 1:
        return _grows(expr.args[0], moved)
    if isinstance(expr, ast.Call) and _called(expr, _CDIV) and len(expr.args) == 2:
        return _positive(expr.args[1]) and _grows(expr.args[0], moved)
    return False


def _covers(expr: ast.expr, size: str, moved: frozenset[str]) -> bool:
    """Whether ``expr`` is at least ``size`` wherever the original's value is (module docstring's "covers")."""
    if isinstance(expr, ast.Name):
        return expr.id == size
    if isinstance(expr, ast.Call) and _called(expr, _ROUNDING) and len(expr.args) == 1:
        return _covers(expr.args[0], size, moved)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.keywords:
        if expr.func.id == "max":
            return any(_covers(a, size, moved) for a in expr.args)
        if expr.func.id == "min":
            return all(_covers(a, size, moved) for a in expr.args if _reads(a, moved))
    return False
