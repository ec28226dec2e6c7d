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
A module's own bindings are those outside every function (its classes' bodies included): :func:`scopes` lists the
module and each function not inside another, the scopes a file binds names in.

Each binding (:class:`Binding`, in source order: :func:`binding_list`) also keeps what its name takes of an
assignment's value, the element an unpacking pairs with it (``threads, rows = nw * 32, 1``): the reading of a
computed launch setting (:mod:`kernelopt.tunables.readers`) follows a chain of them, by scope, from a launch option.
Pure: libcst nodes in, names and nodes out.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.blocks import child_nodes, walk
from kernelopt.tunables.signature import params_of
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


def _taken(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> Iterator[tuple[cst.Name, cst.BaseExpression | None]]:
    """Each name ``target`` binds (:func:`_bound_by`), with what it takes of ``value``: the whole value for a name,
    the element an unpacking whose sides pair up gives it (``a, b = x, y``; a starred one as written), the whole
    value of one that does not (``M, N = x.shape``), ``None`` for a name an item, an attribute or a star is set
    through."""
    if isinstance(target, cst.Name):
        yield target, value
    elif isinstance(target, cst.Tuple | cst.List):
        if isinstance(value, cst.Tuple | cst.List) and len(value.elements) == len(target.elements):
            for t, v in zip(target.elements, value.elements, strict=True):
                inner = t if isinstance(t, cst.StarredElement) else t.value
                yield from _taken(inner, v if isinstance(v, cst.StarredElement) else v.value)
        else:
            yield from ((name, value) for name in _bound_by(target))
    else:
        yield from ((name, None) for name in _bound_by(target))


def element_read(value: cst.CSTNode | None) -> tuple[str, int] | None:
    """``("TILE", 0)`` of ``TILE[0]``: a name indexed by one integer literal; of a nested tuple's ``TILE[0][1]``,
    ``("TILE[0]", 1)``, the tuple that holds the element named by its own path (leftovers19's l3); ``None`` for any
    other expression. The one reading of a tuple's element by its index, for discovery's knob and the guard's names of
    it: the key ``f"{held}[{at}]"`` is the element's path as written (``TILE[0][1]``)."""
    if not (isinstance(value, cst.Subscript) and len(value.slice) == 1):
        return None
    index = value.slice[0].slice
    if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Integer)):
        return None
    held = held_path(value.value)
    return (held, int(index.value.evaluated_value)) if held is not None else None


def held_path(value: cst.CSTNode | None) -> str | None:
    """``TILE`` of the name ``TILE``, ``TILE[0]`` of an element read by its index (:func:`element_read`, nested as
    deep as written): the path of a tuple a file reads an element of or unpacks; ``None`` for any other
    expression."""
    if isinstance(value, cst.Name):
        return value.value
    inner = element_read(value)
    return f"{inner[0]}[{inner[1]}]" if inner is not None else None


def path_parts(held: str) -> tuple[str, list[int]]:
    """``("TILE", [0])`` of the path ``TILE[0]`` (:func:`held_path`): the name bound to the outermost tuple and the
    indices down to the tuple the path names."""
    name, _, rest = held.partition("[")
    return name, [int(i) for i in rest.rstrip("]").split("][")] if rest else []


def unpacking(stmt: cst.BaseSmallStatement | None) -> tuple[str, list[str | None]] | None:
    """``("TILE", ["bm", "bn"])`` of ``bm, bn = TILE``: one flat tuple or list target, no starred element, unpacking
    a name or a nested tuple's element (``bm, bn = TILE[0]``: ``("TILE[0]", ...)``, :func:`held_path`) (each
    element's name, ``None`` for an element that is no name); ``None`` for any other statement. The one reading of a
    tuple's unpacking, for discovery's knob and the guard's names of it."""
    if not (isinstance(stmt, cst.Assign) and len(stmt.targets) == 1):
        return None
    held = held_path(stmt.value)
    target = stmt.targets[0].target
    if held is None or not isinstance(target, cst.Tuple | cst.List):
        return None
    if any(isinstance(e, cst.StarredElement) for e in target.elements):
        return None
    return held, [e.value.value if isinstance(e.value, cst.Name) else None for e in target.elements]


def through_names(held: str, aliases: Mapping[str, str]) -> str:
    """The tuple ``held`` (a path, :func:`held_path`) names, read through the names that stand for a path
    (``aliases``: ``row`` of ``row = TILE[0]``, ``cfg`` of ``cfg = TILE``): ``TILE[0][1]`` of ``row[1]``; a few steps
    deep (``cfg = TILE`` then ``row = cfg[0]``). The one rule of a tuple read through another name (leftovers20's
    l5), for discovery's knob and the guard's names of it; each caller gives the names bound once in its scope."""
    for _ in range(4):
        base, indices = path_parts(held)
        if base not in aliases:
            break
        held = aliases[base] + "".join(f"[{i}]" for i in indices)
    return held


def _path_aliases(statements: list[cst.CSTNode]) -> dict[str, str]:
    """Name -> the path it stands for (``row = TILE[0]``: ``TILE[0]``), for each name ``statements`` bind once, by a
    plain assignment of a tuple's name or element (:func:`held_path`); a name bound again anywhere (an unpacking, a
    loop, an augmented assignment) stands for nothing."""
    count: dict[str, int] = {}
    paths: dict[str, str] = {}
    for stmt in statements:
        for b in made_by(stmt):
            count[b.name] = count.get(b.name, 0) + 1
            if b.value is not None and b.taken is b.value and (path := held_path(b.value)) is not None:
                paths[b.name] = path
    return {name: path for name, path in paths.items() if count[name] == 1 and path_parts(path)[0] != name}


def element_names(statements: Iterable[cst.CSTNode | None], held: str, at: int) -> list[str]:
    """The names ``statements`` bind to element ``at`` of the tuple ``held``, each once, in order: a subscript
    (``bm = TILE[0]``: :func:`element_read`), one side of a paired unpacking (``bm, bn = TILE[0], TILE[1]``) or an
    unpacking (``bm, bn = TILE``: :func:`unpacking`), the tuple read directly or through a name bound once to it
    (``row = TILE[0]`` then ``bm, bn = row``; ``cfg = TILE`` then ``bm = cfg[0]``: :func:`through_names`). The one
    reading of the guard's names of a moved element and of the settings a file computes from one (``BLOCK = nw *
    32``)."""
    given = [s for s in statements if s is not None]
    aliases = _path_aliases(given)
    out: list[str] = []
    for stmt in given:
        if not (isinstance(stmt, cst.Assign) and len(stmt.targets) == 1):
            continue
        found: list[str | None] = []
        unpacked = unpacking(stmt)
        if unpacked is not None and through_names(unpacked[0], aliases) == held and at < len(unpacked[1]):
            found.append(unpacked[1][at])
        target = stmt.targets[0].target
        for name, taken in _taken(target, stmt.value):
            read = element_read(taken) if taken is not stmt.value or isinstance(target, cst.Name) else None
            if read is not None and (through_names(read[0], aliases), read[1]) == (held, at):
                found.append(name.value)
        for name in found:
            if name is not None and name not in out:
                out.append(name)
    return out


def element_spellings(statements: Iterable[cst.CSTNode | None], held: str, at: int) -> list[str]:
    """Element ``at`` of the tuple ``held`` as the file can read it through a name bound once to that tuple or to one
    holding it (:func:`through_names`): ``cfg[0]`` of ``cfg = TILE``, ``row[1]`` of ``row = TILE[0]``; the guard reads
    a grid's ``M // cfg[0]`` by what it writes (leftovers20's l5), so it names the moved element so too."""
    aliases = _path_aliases([s for s in statements if s is not None])
    out = []
    for name in aliases:
        path = through_names(name, aliases)
        if held == path or held.startswith(path + "["):
            out.append(f"{name}{held[len(path) :]}[{at}]")
    return out


@dataclass(frozen=True)
class Binding:
    """One binding of a name.

    Attributes:
        name: the name bound.
        value: the value, where the binding is a plain assignment (``n = M * K``); else ``None``.
        taken: what the name takes of an assignment's value (:func:`_taken`: ``nw * 32`` of
            ``threads, rows = nw * 32, 1``); ``None`` for any other binding (a parameter, a loop's, a ``with``'s or a
            walrus's variable, an augmented assignment, an item or attribute set).
    """

    name: str
    value: cst.BaseExpression | None
    taken: cst.BaseExpression | None


#: The node classes that bind a name themselves (:func:`made_by`); libcst registers no virtual subclass and none of
#: them is subclassed, so a node's own class answers (an ``isinstance`` on libcst's nodes goes through ``ABCMeta``).
_BINDERS = frozenset({cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr, cst.WithItem})
#: The node classes whose ``test`` decides what runs under them (:func:`_bound_values`).
_TESTED = frozenset({cst.If, cst.While, cst.IfExp})


def made_by(node: cst.CSTNode) -> Iterator[Binding]:
    """The bindings ``node`` itself makes (its children's aside). Asked of every node of a scope (suite30 s111:
    375,000 ``isinstance`` checks through ``ABCMeta`` in test_wrongkernel30's 81 guarded edits, most of them of
    nodes that bind nothing): a node of another class is answered by its class alone."""
    if type(node) not in _BINDERS:
        return
    if isinstance(node, cst.Assign | cst.AnnAssign) and node.value is not None:  # ``x: int`` alone binds nothing
        value = node.value
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        for target in targets:
            plain = isinstance(target, cst.Name)
            for name, taken in _taken(target, value):
                yield Binding(name.value, value if plain else None, taken)
        return
    if isinstance(node, cst.AugAssign | cst.For | cst.NamedExpr):
        bound = node.target
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        bound = node.asname.name
    else:
        return
    yield from (Binding(name.value, None, None) for name in _bound_by(bound))


def _module_nodes(module: cst.Module) -> Iterator[cst.CSTNode]:
    """The nodes of the module's own scope, depth first in source order: a function (or lambda) is yielded, never
    entered."""
    stack: list[cst.CSTNode] = [module]
    while stack:
        here = stack.pop()
        yield here
        if not isinstance(here, cst.FunctionDef | cst.Lambda):
            stack.extend(reversed(child_nodes(here)))


@functools.lru_cache(maxsize=NODES_KEPT)
def binding_list(scope: cst.FunctionDef | cst.Module) -> tuple[Binding, ...]:
    """Each binding ``scope`` makes (module docstring), in source order: a function's parameters first, then its
    body's, a nested function's included; a module's own, outside every function. Read once per node (shared)."""
    if isinstance(scope, cst.Module):
        return tuple(b for node in _module_nodes(scope) for b in made_by(node))
    return (
        *(Binding(p.name.value, None, None) for p in params_of(scope, posonly=True, kwonly=True, stars=True)),
        *(b for node in walk(scope.body) for b in made_by(node)),
    )


@functools.lru_cache(maxsize=NODES_KEPT)
def bindings(scope: cst.FunctionDef | cst.Module) -> Mapping[str, tuple[cst.BaseExpression | None, ...]]:
    """Name -> each binding ``scope`` gives it (:func:`binding_list`), parameters first: the value of a plain
    assignment, ``None`` for any other. Read once per node (the cached mapping is shared: never changed)."""
    bound: dict[str, list[cst.BaseExpression | None]] = {}
    for b in binding_list(scope):
        bound.setdefault(b.name, []).append(b.value)
    return {name: tuple(values) for name, values in bound.items()}


def scopes(module: cst.Module) -> tuple[cst.Module | cst.FunctionDef, ...]:
    """The scopes a file binds names in, in source order: the module, then each function not inside another (a
    class's methods included; a nested function's bindings are its enclosing function's)."""
    return (module, *(n for n in _module_nodes(module) if isinstance(n, cst.FunctionDef)))


def assigned_once(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Name -> its value, for each name ``fn`` binds once, by a plain assignment (``row0 = pid_y * BLOCK_SIZE_Y``):
    a local that stands for its value wherever the function reads it."""
    return {name: values[0] for name, values in bindings(fn).items() if len(values) == 1 and values[0] is not None}


def rebound(fn: cst.FunctionDef) -> frozenset[str]:
    """The names ``fn`` binds more than once (a parameter assigned in the body counts twice): names that may hold
    another value where they are read again."""
    return frozenset(name for name, values in bindings(fn).items() if len(values) > 1)


def reached_values(start: Sequence[cst.CSTNode], fn: cst.FunctionDef) -> list[cst.CSTNode]:
    """``start`` and every value its names take in ``fn``, followed through every binding of each name: an
    assignment's (the element a paired unpacking takes, the whole value of one that does not pair), an augmented
    assignment's, a walrus's, a loop's iterable, a ``with``'s item, a nested function's body, and the test of each
    ``if``, loop and conditional expression a binding stands under (``g = 0; for _ in range(0, n, BLOCK): g += 1``:
    ``g`` is counted by the loop). The one reading of where a value may come from for the rules that fail closed
    (the guard's unread counts and grids, a block shape kernelopt does not read): a name bound in no way read here
    (a parameter, a global, an import) is a leaf."""
    values = _bound_values(fn)
    out = list(start)
    seen: set[str] = set()
    todo = list(start)
    while todo:
        for name in read_names(todo.pop()) - seen:
            seen.add(name)
            out += values.get(name, ())
            todo += values.get(name, ())
    return out


@functools.lru_cache(maxsize=NODES_KEPT)
def _bound_values(fn: cst.FunctionDef) -> Mapping[str, tuple[cst.CSTNode, ...]]:
    """Name -> every value :func:`reached_values` follows it to in ``fn``, in source order: read once per function
    node, not once per asked start (perf29 s84: 234 walks of tb_streamk's launcher in 14 guarded edits, 922,000 visits
    and 40 % of the guard's CPU under cProfile, for a map that depends on ``fn`` alone). Shared: never changed."""
    values: dict[str, list[cst.CSTNode]] = {}

    def bind(name: str, value: cst.CSTNode | None, tests: Sequence[cst.CSTNode]) -> None:
        values.setdefault(name, []).extend([*([value] if value is not None else []), *tests])

    def visit_node(node: cst.CSTNode, tests: tuple[cst.CSTNode, ...]) -> None:
        kind = type(node)  # every node of ``fn`` passes here: its exact class, not ``ABCMeta`` (suite30 s111)
        if kind is cst.FunctionDef and node is not fn:
            bind(node.name.value, node.body, tests)
            return
        for b in made_by(node):
            if isinstance(node, cst.Assign | cst.AnnAssign):
                bind(b.name, b.taken if b.taken is not None and b.value is None else node.value, tests)
            elif isinstance(node, cst.AugAssign | cst.NamedExpr):
                bind(b.name, node.value, tests)
            elif isinstance(node, cst.For):
                bind(b.name, node.iter, tests)
            elif isinstance(node, cst.WithItem):
                bind(b.name, node.item, tests)
        if kind is cst.CompFor:  # ``g`` of ``all(g < 65536 for g in grid)``: each element of ``grid``
            for name in read_names(node.target):
                bind(name, node.iter, tests)
        inner = (node.iter,) if kind is cst.For else (node.test,) if kind in _TESTED else ()
        for child in child_nodes(node):
            visit_node(child, tests + inner if child not in inner else tests)

    visit_node(fn.body, ())
    return {name: tuple(found) for name, found in values.items()}


@functools.lru_cache(maxsize=NODES_KEPT)
def read_names(expr: cst.CSTNode) -> frozenset[str]:
    """The names ``expr`` reads, a lambda's body included, not an attribute's own name (``cdiv`` of
    ``triton.cdiv``). Read once per node (perf29 s85: 66,822 calls in the benchmark's 26 guarded edits, each a walk
    and two passes of ``isinstance`` through ``ABCMeta``, from :func:`reached_values`' closure and the guard's
    stride readers asking the same values again)."""
    nodes = walk(expr)
    attrs = {id(n.attr) for n in nodes if type(n) is cst.Attribute}
    return frozenset(n.value for n in nodes if type(n) is cst.Name and id(n) not in attrs)


def reached_names(start: cst.CSTNode, fn: cst.FunctionDef) -> set[str]:
    """Every name ``start`` reads or a value it takes in ``fn`` reads (:func:`reached_values`): the constexprs a
    block shape kernelopt does not read may hold, read as unknown."""
    return {name for value in reached_values([start], fn) for name in read_names(value)}
