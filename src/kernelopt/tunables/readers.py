"""Which settings a kernel file computes from a knob: a launch option moved moves what is computed from it too
(``num_warps = 2`` then ``BLOCK = num_warps * 32``), so a change no rule on launch options would check can change which
elements a kernel covers (newuser11's n61: ``num_warps=8`` moved BLOCK from 64 to 256 over a grid of ``n // BLOCK``
programs without masks, wrong at n=64). The one reading of it, for ``tune``'s net and ``tunables --set``."""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence

from kernelopt.numeric import is_number
from kernelopt.tunables.cover_kept import keeps_cover
from kernelopt.tunables.model import Tunable, TunableKind


def computed_readers(tunables: Sequence[Tunable], source: str, names: Collection[str]) -> list[Tunable]:
    """The settings of ``tunables`` the file computes from a name one of the knobs ``names`` binds: the knob's own
    name, and each name its literal's line assigns (``nw = 2`` beside ``num_warps=nw``)."""
    lines = source.splitlines()
    bound: set[str] = set(names)
    for t in tunables:
        if t.name in names:
            bound |= _bound_by(t, lines)
    bound |= set(_followed(source, dict.fromkeys(bound)))
    return [t for t in tunables if t.kind is TunableKind.COMPUTED_SETTING and set(t.size_names) & bound]


def _assignments(source: str) -> dict[ast.AST | None, list[tuple[str, ast.expr]]]:
    """Every assignment of a name in the file (``threads = nw * 32``), by the function it binds a local of (``None``:
    the module's), in the order of its lines: each name of an unpacking with its own value where the sides pair up
    (``threads, rows = nw * 32, 1``), else with the whole value (docs/faults.md break15 b9: an unpacking was not
    followed)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out: dict[ast.AST | None, list[tuple[int, str, ast.expr]]] = {}
    stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]  # a stack, not recursion: any depth of expression
    while stack:
        node, scope = stack.pop()
        if isinstance(node, ast.Assign):
            pairs = [p for target in node.targets for p in _paired(target, node.value)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = _paired(node.target, node.value)
        else:
            pairs = []
        out.setdefault(scope, []).extend((node.lineno, name, value) for name, value in pairs)
        inner = node if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) else scope
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return {scope: [(n, v) for _, n, v in sorted(binds, key=lambda a: a[0])] for scope, binds in out.items()}


def _paired(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """The names ``target`` binds, each with the part of ``value`` it takes (``a, b = x, y``), or the whole value."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, ast.Tuple | ast.List):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
            return [p for t, v in zip(target.elts, value.elts, strict=True) for p in _paired(t, v)]
        return [(n.id, value) for n in ast.walk(target) if isinstance(n, ast.Name)]
    return []


def _followed(source: str, names: dict[str, object]) -> dict[str, object]:
    """The locals the file binds from ``names`` through a chain of assignments (``nw = 2``, ``threads = nw * 32``,
    ``BLOCK = threads``: newuser12's n65, where only a name the option's own line binds was read), each with its value
    where ``names``' values give it (:func:`_evaluated`), else ``None``. A chain stays in one function (the module's
    names seen from each): a local of the kernel is not the launching function's of the same name."""
    scopes = _assignments(source)
    module = _chained(scopes.pop(None, []), dict(names))
    out = dict(module)
    for binds in scopes.values():
        out |= _chained(binds, {**names, **module})
    return out


def _chained(binds: list[tuple[str, ast.expr]], known: dict[str, object]) -> dict[str, object]:
    """The names of ``binds`` read from ``known`` through the chain, each with its value or ``None``."""
    out: dict[str, object] = {}
    known = dict(known)
    for name, value in binds:
        reads = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
        if name in known or not reads & set(known):
            continue
        known[name] = out[name] = _evaluated(value, known)
    return out


#: the calls a computation may make when it is evaluated at a launch option's value (:func:`shrunk_covers`)
_CALLS = {"min": min, "max": max, "int": int, "abs": abs}


def _bound_by(tunable: Tunable, lines: Sequence[str]) -> set[str]:
    """The names a knob's literal line binds (``nw = 2`` beside ``num_warps=nw``), and its own."""
    bound = {tunable.name}
    if tunable.location is None:
        return bound
    try:
        tree = ast.parse(lines[int(tunable.location.rsplit(":", 1)[1]) - 1].strip())
    except (SyntaxError, ValueError, IndexError):
        return bound
    pairs = [
        p for node in tree.body if isinstance(node, ast.Assign) for t in node.targets for p in _paired(t, node.value)
    ]
    # an unpacking binds the knob's literal to one of its names (``nw, ns = 2, 1``): that one, where the sides pair up
    held = {n for n, v in pairs if isinstance(v, ast.Constant) and v.value == tunable.value}
    return bound | (held or {n for n, _ in pairs})


def _value_at(computation: str, names: dict[str, object], source: str) -> object:
    """``computation``'s value (``BLOCK = warps * 128``) with ``names`` bound, and the locals the file binds from them
    (:func:`_followed`), or ``None`` where it reads anything else (a size, another local) or is not plain arithmetic."""
    try:
        tree = ast.parse(computation.strip())
    except SyntaxError:
        return None
    statement = tree.body[0] if len(tree.body) == 1 else None
    expr = statement.value if isinstance(statement, ast.Assign | ast.AnnAssign) else None
    return None if expr is None else _evaluated(expr, {**names, **_followed(source, names)})


#: The largest exponent or shift :func:`_evaluated` works out (``2 ** 64``): past it a file's arithmetic
#: (``nw ** 10 ** 10``) could run for ever in the reading of a launch setting; no rule can check it then.
POWER_MOST = 64


def _evaluated(expr: ast.expr, names: dict[str, object]) -> object:
    """``expr``'s value with ``names`` bound (a name bound to ``None`` is not known), or ``None`` (also for a power
    or shift by more than :data:`POWER_MOST`)."""
    if any(isinstance(n, ast.Name) and names.get(n.id) is None and n.id not in _CALLS for n in ast.walk(expr)) or any(
        isinstance(n, ast.Attribute | ast.Subscript | ast.Lambda) or _unbounded_power(n, names) for n in ast.walk(expr)
    ):
        return None
    try:
        return eval(compile(ast.Expression(expr), "<computed>", "eval"), {"__builtins__": {}, **_CALLS}, dict(names))
    except Exception:  # a computation that does not evaluate here is one no rule can check
        return None


def _unbounded_power(node: ast.AST, names: dict[str, object]) -> bool:
    """A ``**`` or ``<<`` whose right side is not worked out as a number of at most :data:`POWER_MOST` either way."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow | ast.LShift)):
        return False
    right = _evaluated(node.right, names)
    return not (is_number(right) and abs(right) <= POWER_MOST)


def shrunk_covers(
    tunables: Sequence[Tunable], source: str, moved: dict[str, object], current: dict[str, object]
) -> list[str]:
    """Why a pick moving the launch options ``moved`` (name -> the pick's value; ``current``: their values as written)
    may leave part of a row undone, one reason a computed block: a block the file computes from a moved option that
    covers a size with one block (:attr:`Tunable.covers`) and comes out smaller than the original's, or whose value
    cannot be worked out from the option alone. The cover's rule for a written block (a smaller one is never
    proposed) read through the computation (newuser12's n64: ``warps = 8; BLOCK = warps * 128`` over one-block rows
    masked by ``cols < N``: a GPU pick of ``num_warps=4`` made BLOCK 512, passed entries of 200 and 500 columns and
    the net's 513 (a row max misses its one last column rarely), and was written, wrong at 600 and 1000 columns)."""
    lines = source.splitlines()
    out = []
    for option, value in moved.items():
        was = current.get(option)
        knob = next((t for t in tunables if t.name == option and t.kind is not TunableKind.COMPUTED_SETTING), None)
        if knob is None:
            continue
        names = _bound_by(knob, lines)
        for t in computed_readers(tunables, source, [option]):
            if not t.covers or all(c.held for c in t.covers) or t.computed is None:
                continue
            before = _value_at(t.computed, dict.fromkeys(names, was), source)
            after = _value_at(t.computed, dict.fromkeys(names, value), source)
            cover = t.covers[0]
            if isinstance(before, int) and isinstance(after, int) and after >= before:
                continue
            if keeps_cover(t, cover, source, names, was, value):  # proved to cover wherever the original covers
                continue
            said = (
                f"makes it {after}, smaller than the original's {before}, which leaves part of a row undone where the "
                "original covers it"
                if isinstance(after, int)
                else f"moves it by more than {option} (a value no rule here works out), so it may leave part of a row "
                "undone where the original covers it"
            )
            out.append(
                f"{t.name} is computed from {option} ({t.computed}) and covers {cover.size} with one block "
                f"({cover.test}): {option}={value} {said}"
            )
    return out
