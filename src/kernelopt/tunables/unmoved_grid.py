"""A launch's grid that does not move with the tile an edit moves (leftovers22, l16).

A grid counts programs of the tile the launch passes. Where the edit moves that tile (a literal, a tuned line after
the value's computation) the grid must count with the new value, or a smaller tile leaves values unwritten. Two
grids cannot: one counted by a helper kernelopt does not read and the launch does not hand the tile
(``kernel[grid_for(n)](.., BLOCK=BLOCK)`` with ``from .launch import BLOCK, grid_for``, ``launch.grid(n)`` of a
module object, ``Cfg.grid(n)`` of a class reading its own ``Cfg.BLOCK``: the helper counts tiles of its own value),
and one that reads the expression the tile was computed from rather than the tile (``grid = (triton.cdiv(n,
cfg[0]),)`` bound before a launch whose ``BLOCK=cfg[0]`` is tuned). Such an edit is not written, with a line saying
what to change.

Discovery asks the same rule of each knob (:func:`refuse_unmoved_grids`): a knob whose every edit it refuses is
listed not editable, with the line the edit gives (late28, z61: ``kernelopt tunables`` listed l16's BLOCK as a
computed setting to tune while its edit was refused).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import libcst as cst

from kernelopt.numeric import is_int
from kernelopt.tunables.bindings import assigned_once, bindings
from kernelopt.tunables.blocks import dotted, is_jit, launched, walk
from kernelopt.tunables.knobs import LAUNCH_OPTIONS
from kernelopt.tunables.model import Tunable, TunableError
from kernelopt.tunables.syntax import parsed

#: modules whose functions count a grid from what they are handed (``triton.cdiv(n, BLOCK)``): read, not unread
_LIBRARIES = frozenset({"triton", "tl", "torch", "math", "np", "numpy", "functools", "operator", "itertools"})


def _code(node: cst.CSTNode) -> str:
    return " ".join(cst.Module([]).code_for_node(node).split())


def _names(node: cst.CSTNode) -> set[str]:
    """The names ``node`` reads (an attribute's own name, ``launch.BLOCK``'s ``BLOCK``, left out)."""
    attrs = {id(n.attr) for n in walk(node) if isinstance(n, cst.Attribute)}
    return {n.value for n in walk(node) if isinstance(n, cst.Name) and id(n) not in attrs}


def _functions(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """Each function and method of ``module`` by its qualified name (``run``, ``Cfg.grid``)."""
    out: dict[str, cst.FunctionDef] = {}

    def visit(body: cst.CSTNode, prefix: str) -> None:
        for node in body.children:
            if isinstance(node, cst.FunctionDef):
                out.setdefault(f"{prefix}{node.name.value}", node)
                visit(node.body, f"{prefix}{node.name.value}.")
            elif isinstance(node, cst.ClassDef):
                visit(node.body, f"{prefix}{node.name.value}.")
            elif isinstance(node, cst.BaseSuite | cst.If | cst.Else | cst.Try | cst.With | cst.For | cst.While):
                visit(node, prefix)

    visit(module, "")
    return out


def _scope_values(module: cst.Module) -> dict[str, list[str]]:
    """The values each name is bound to at the module's top level and in each class body (``BLOCK``,
    ``Cfg.BLOCK``), as written."""
    out: dict[str, list[str]] = {}
    for name, values in bindings(module).items():
        out[name] = [_code(v) if v is not None else "?" for v in values]
    for cls in (n for n in module.body if isinstance(n, cst.ClassDef)):
        for stmt in cls.body.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else []
                if isinstance(small, cst.AnnAssign) and small.value is not None:
                    targets = [small.target]
                for target in targets:
                    if isinstance(target, cst.Name) and isinstance(small, cst.Assign | cst.AnnAssign):
                        value = small.value
                        out.setdefault(f"{cls.name.value}.{target.value}", []).append(_code(value) if value else "?")
    return out


def _local_values(fn: cst.FunctionDef) -> dict[str, list[str]]:
    return {name: [_code(v) if v is not None else "?" for v in values] for name, values in bindings(fn).items()}


def _imported(module: cst.Module) -> dict[str, str]:
    """Each name a module-level import binds -> the module it comes from, as written (``.launch``, ``launch``)."""
    out: dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                source = "." * len(small.relative) + (dotted(small.module) if small.module is not None else "")
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    if isinstance(bound, cst.Name):  # ``from . import launch``: the module .launch itself
                        out[bound.value] = source if small.module is not None else f"{source}{dotted(alias.name)}"
            elif isinstance(small, cst.Import):
                for alias in small.names:
                    name = dotted(alias.name)
                    bound = alias.asname.name if alias.asname else None
                    out[bound.value if isinstance(bound, cst.Name) else name.split(".")[0]] = name
    return out


def _launches(fn: cst.FunctionDef, jitted: set[str]) -> list[cst.Call]:
    return [
        node
        for node in walk(fn.body)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Subscript)
        and dotted(launched(node.func.value)) in jitted
        and len(node.func.slice) == 1
        and isinstance(node.func.slice[0].slice, cst.Index)
    ]


def _grid(fn: cst.FunctionDef, call: cst.Call) -> tuple[cst.BaseExpression, set[str]]:
    """The grid ``call`` launches with, read through a local bound once and a ``lambda meta:``; the names that
    stand for the launch's settings there (the lambda's parameters)."""
    assert isinstance(call.func, cst.Subscript)
    index = call.func.slice[0].slice
    assert isinstance(index, cst.Index)
    grid = index.value
    if isinstance(grid, cst.Name) and (value := assigned_once(fn).get(grid.value)) is not None:
        grid = value
    params: set[str] = set()
    if isinstance(grid, cst.Lambda):
        params = {p.name.value for p in grid.params.params}
        grid = grid.body
    return grid, params


def _helper_reads(
    func: str, functions: Mapping[str, cst.FunctionDef], moved: set[str], classes: set[str]
) -> tuple[bool, str]:
    """Whether a class's method the grid calls (``Cfg.grid``) reads a value the edit moved (its class's
    ``Cfg.BLOCK`` moved in the class body), and what it reads of its class, for the line."""
    helper = functions.get(func)
    if helper is None:
        return False, ""
    read = sorted(
        {dotted(n) for n in walk(helper.body) if isinstance(n, cst.Attribute) and dotted(n).split(".")[0] in classes}
    )
    return any(r in moved for r in read), ", ".join(read)


def unmoved_grid_refusal(old: str, new: str) -> str | None:
    """Why ``new`` (``old`` with knob edits) cannot be written: a launch's tile moves and its grid does not (see the
    module docstring); ``None`` where every moved tile's grid moves with it or reads no tile."""
    try:
        before, after = parsed(old).module, parsed(new).module
    except cst.ParserSyntaxError:
        return None
    functions, old_functions = _functions(after), _functions(before)
    jitted = {name for name, fn in functions.items() if is_jit(fn)}
    imported = _imported(after)
    classes = {n.name.value for n in after.body if isinstance(n, cst.ClassDef)}
    old_scope, new_scope = _scope_values(before), _scope_values(after)
    scope_moved = {n for n in new_scope if new_scope[n] != old_scope.get(n)}
    for qual, fn in functions.items():
        if qual in jitted or qual not in old_functions:
            continue
        old_locals, new_locals = _local_values(old_functions[qual]), _local_values(fn)
        moved = scope_moved | {n for n in new_locals if new_locals[n] != old_locals.get(n)}
        old_launches = _launches(old_functions[qual], jitted)
        new_launches = _launches(fn, jitted)
        if len(old_launches) != len(new_launches):
            continue
        for was, call in zip(old_launches, new_launches, strict=True):
            old_args = {a.keyword.value: a.value for a in was.args if a.keyword is not None}
            for arg in call.args:
                if arg.keyword is None or arg.keyword.value in LAUNCH_OPTIONS:
                    continue
                key, value = arg.keyword.value, arg.value
                prior = old_args.get(key)
                if prior is None or (_code(prior) == _code(value) and not _names(value) & moved):
                    continue  # not moved by the edit
                why = _grid_refusal(fn, call, key, value, prior, moved, imported, functions, classes)
                if why is not None:
                    return why
    return None


def _grid_refusal(
    fn: cst.FunctionDef,
    call: cst.Call,
    key: str,
    value: cst.BaseExpression,
    prior: cst.BaseExpression,
    moved: set[str],
    imported: Mapping[str, str],
    functions: Mapping[str, cst.FunctionDef],
    classes: set[str],
) -> str | None:
    """Why the grid of ``call`` does not move with its ``key=value`` (``prior`` in the original), or ``None``."""
    grid, params = _grid(fn, call)
    tile = _code(value)
    was = _code(prior)
    if was != tile and not isinstance(prior, cst.Integer):
        copies = [n for n in walk(grid) if isinstance(n, cst.BaseExpression) and _code(n) == was]
        if copies:
            return (
                f"the grid of {key} reads {was}, the value {key} was computed from, which this edit leaves: it would "
                f"count programs of the original {key} (a smaller one leaves values unwritten); read the tile there "
                f"({tile}) or write the grid at the launch: not written"
            )
    handed = moved | _names(value) | params
    literal = _code(value) if isinstance(value, cst.Integer) else None
    for node in walk(grid):
        if not isinstance(node, cst.Call):
            continue
        func = dotted(node.func)
        root = func.split(".")[0]
        if not func or root in _LIBRARIES or func in ("min", "max", "int", "len", "abs", "round"):
            continue
        if root in imported:
            where = f"imported from {imported[root]}, whose body is not read here"
        elif root in classes and "." in func:
            reads_moved, read = _helper_reads(func, functions, moved, classes)
            if reads_moved:
                continue
            where = f"a method of class {root}" + (f" reading {read}, not the launch's {key}" if read else "")
        else:
            continue
        args = [a.value for a in node.args]
        if any(_names(a) & handed for a in args) or (literal is not None and any(_code(a) == literal for a in args)):
            continue
        return (
            f"the grid of {key} is counted by {_code(node)}, {where}, and the launch does not hand it {key}: its "
            f"count of programs stays the original's whatever {key} is (a smaller one leaves values unwritten); hand "
            f"it the tile ({func}({', '.join([*(_code(a) for a in args), key])})) or count the grid in kernel.py: not "
            "written"
        )
    return None


def _read_elsewhere(source: str) -> bool:
    """Whether a launch of ``source`` has a grid this rule reads past the launch (the only grids
    :func:`unmoved_grid_refusal` refuses): one calling a helper of another module or a class's method, or one bound
    before the launch holding a copy of a computed setting's expression (a grid written at the launch moves with the
    setting's hoist, l15)."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return False
    functions = _functions(module)
    jitted = {name for name, fn in functions.items() if is_jit(fn)}
    imported = set(_imported(module)) - _LIBRARIES
    classes = {n.name.value for n in module.body if isinstance(n, cst.ClassDef)}
    for qual, fn in functions.items():
        if qual in jitted:
            continue
        for call in _launches(fn, jitted):
            grid, _ = _grid(fn, call)
            for func in (dotted(n.func) for n in walk(grid) if isinstance(n, cst.Call)):
                root = func.split(".")[0]
                if root in imported or (root in classes and "." in func):
                    return True
            assert isinstance(call.func, cst.Subscript)
            index = call.func.slice[0].slice
            if not (isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and grid is not index.value):
                continue
            codes = {_code(n) for n in walk(grid) if isinstance(n, cst.BaseExpression)}
            computed = (
                a.value
                for a in call.args
                if a.keyword is not None
                and a.keyword.value not in LAUNCH_OPTIONS
                and not isinstance(a.value, cst.Integer)
            )
            if any(_code(v) in codes for v in computed):
                return True
    return False


def _probes(t: Tunable) -> list[int]:
    """Values to move ``t`` to for asking the rule: another legal value where the knob lists them, else its double
    and half (a computed one: a few powers of two); the rule refuses a larger tile and a smaller one alike."""
    if t.legal_values:
        return [v for v in t.legal_values if is_int(v) and v != t.value][:2]
    if is_int(t.value):
        return [v for v in (2 * t.value, t.value // 2) if v > 0]
    return [16, 64, 256] if t.value is None and t.computed is not None else []


def refuse_unmoved_grids(found: Iterable[Tunable], source: str) -> None:
    """Mark each editable knob of ``found`` (the knobs of ``source``) whose edit this rule refuses as not editable,
    with the line :func:`unmoved_grid_refusal` gives that edit (in place). Read only where a launch's grid is read
    past the launch (:func:`_read_elsewhere`); each knob there is moved by one edit that its legality allows."""
    from kernelopt.tunables.edit import apply_source  # the edit reads this module (its guard): imported here

    knobs = [t for t in found if t.editable and not t.semantic and t.name not in LAUNCH_OPTIONS]
    if not knobs or not _read_elsewhere(source):
        return
    for t in knobs:
        for value in _probes(t):
            try:
                moved = apply_source(source, {t.key: value}).new_source
            except TunableError:
                continue
            why = unmoved_grid_refusal(source, moved)
            t.refused_reason = why.removesuffix(": not written") if why is not None else None
            break
