"""What a function binds each name to, and the one rule of "bound once" every reading of tunables follows.

A name a function binds once stands for one value wherever the function reads it: the guard reads a grid or a
launch keyword through a local bound once (``grid = (tiles, 4)``, ``num_warps = 4``), a grain or a tile offset
through a kernel's local (``row0 = pid_y * BLOCK_SIZE_Y``, break14's b4), a heuristic's bound through the launch's
argument read again where a literal is set (``args["N"]`` as the local ``N``). Each such reading asked a rule of its
own (bound14): one counted only plain assignments (``grid = ...`` then ``grid += ...`` read as bound once), one
counted a parameter as a binding and one did not, one read ``ctx.N = N`` as binding ``N``. The rule, here:

- every binding counts: a parameter (the caller's value), an assignment (chained ``a = b = 4`` binds each name to
  the value; an unpacking ``M, N = x.shape`` binds each without one), an augmented or annotated assignment, a
  loop's, a ``with``'s or a walrus's variable;
- an item or attribute set through a name (``grid[0] = 4``, ``ctx.N = N``) changes what that name holds: a binding
  of ``grid`` and ``ctx``, never of ``N``;
- a name is bound once where exactly one binding binds it; its value is known where that binding is a plain
  assignment (``n = M * K``, ``BLOCK: tl.constexpr = 64``).

Flow-insensitive on purpose: a name rebound on any path is not one value. Nested functions' bindings count as the
enclosing function's (a closure's local is not told apart: a name it binds reads as rebound, never as one value).
Pure: libcst nodes in, names and nodes out.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping

import libcst as cst

from kernelopt.tunables.blocks import walk
from kernelopt.tunables.syntax import NODES_KEPT


def _bound_by(target: cst.BaseExpression) -> Iterator[cst.Name]:
    """The names a target binds: itself, each of an unpacking, the name an item or attribute is set through."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from _bound_by(element.value)
    elif isinstance(target, cst.StarredElement | cst.Attribute | cst.Subscript):
        yield from _bound_by(target.value)


@functools.lru_cache(maxsize=NODES_KEPT)
def bindings(fn: cst.FunctionDef) -> Mapping[str, tuple[cst.BaseExpression | None, ...]]:
    """Name -> each binding ``fn`` gives it (module docstring), parameters first: the value of a plain assignment,
    ``None`` for any other. Read once per function node (the cached mapping is shared: never changed)."""
    bound: dict[str, list[cst.BaseExpression | None]] = {}
    params = fn.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        bound.setdefault(p.name.value, []).append(None)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            bound.setdefault(star.name.value, []).append(None)
    for node in walk(fn.body):
        targets: list[tuple[cst.BaseExpression, cst.BaseExpression | None]] = []
        if isinstance(node, cst.Assign):
            targets = [(t.target, node.value) for t in node.targets]
        elif isinstance(node, cst.AnnAssign) and node.value is not None:  # ``x: int`` alone binds nothing
            targets = [(node.target, node.value)]
        elif isinstance(node, cst.AugAssign | cst.For | cst.NamedExpr):
            targets = [(node.target, None)]
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            targets = [(node.asname.name, None)]
        for target, value in targets:
            plain = isinstance(target, cst.Name)
            for name in _bound_by(target):
                bound.setdefault(name.value, []).append(value if plain else None)
    return {name: tuple(values) for name, values in bound.items()}


def assigned_once(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Name -> its value, for each name ``fn`` binds once, by a plain assignment (``row0 = pid_y * BLOCK_SIZE_Y``):
    a local that stands for its value wherever the function reads it."""
    return {name: values[0] for name, values in bindings(fn).items() if len(values) == 1 and values[0] is not None}


def rebound(fn: cst.FunctionDef) -> frozenset[str]:
    """The names ``fn`` binds more than once (a parameter assigned in the body counts twice): names that may hold
    another value where they are read again."""
    return frozenset(name for name, values in bindings(fn).items() if len(values) > 1)
