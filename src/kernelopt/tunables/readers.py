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
    bound: set[str] = set(names)
    for t in tunables:
        if t.name in names:
            bound |= _bound_by(t, source)
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
    for scope, binds in scopes.items():
        shadowed = _parameters(scope)  # a kernel's parameter BLOCK is not the module's BLOCK
        out |= _chained(binds, {**names, **{k: v for k, v in module.items() if k not in shadowed}})
    return out


def _parameters(scope: ast.AST | None) -> set[str]:
    """The names a function (or lambda) takes as parameters."""
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        return set()
    a = scope.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p is not None}


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


def chained_values(tunables: Sequence[Tunable], source: str, moved: Collection[str]) -> dict[str, object]:
    """Every name the file binds from the launch options ``moved`` through a chain of assignments, at any scope
    (a module's ``BLOCK = NUM_WARPS * 32`` beside ``NUM_WARPS = 2``, which no computed setting of the launch holds:
    the launch reads the module's name), each with its value as written (``None``: not worked out). Empty where the
    options feed their launch alone: only then does a pick of them change no result at any size (docs/faults.md
    newuser13 n69)."""
    known: dict[str, object] = {}
    for t in tunables:
        if t.name in moved and t.kind is not TunableKind.COMPUTED_SETTING:
            known |= dict.fromkeys(_bound_by(t, source), t.value)
    return _followed(source, known) if known else {}


#: the calls a computation may make when it is evaluated at a launch option's value (:func:`shrunk_covers`)
_CALLS = {"min": min, "max": max, "int": int, "abs": abs}


def _bound_by(tunable: Tunable, source: str) -> set[str]:
    """The names a knob's literal binds, read in the file's tree at the literal's line (``nw = 2`` beside
    ``num_warps=nw``; one side of an unpacking, ``nw, ns = 2, 1``; a parameter whose default it is, ``def run(x,
    nw=2)``, a line that does not parse alone: newuser13's n70), and its own. A literal passed at the launch itself
    (``num_warps=32,`` on a line of a call over several, which alone parses as a chained assignment) binds none."""
    bound = {tunable.name}
    try:
        line = int(tunable.location.rsplit(":", 1)[1])
        tree = ast.parse(source)
    except (SyntaxError, ValueError, IndexError, AttributeError):
        return bound
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            pairs = [p for t in targets for p in _paired(t, node.value)]
            holding = [n for n, v in pairs if _computes_with(v, tunable, line)]
            # the one name an unpacking pairs the literal with, else every name its value is part of
            held = [n for n, v in pairs if _the_literal(v, tunable, line)]
            bound |= set(held or holding)
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            defaults = [*zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True)]
            defaults += [(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True) if d is not None]
            bound |= {a.arg for a, d in defaults if _the_literal(d, tunable, line)}
    return bound


def _computes_with(value: ast.AST, tunable: Tunable, line: int) -> bool:
    """Whether ``value`` computes a number from the knob's literal (``4 if big else 8``, ``2 * 32``, ``max(2, n)``),
    not a container that holds it among others (``dict(BLOCK=1024, num_warps=4)``, a list of ``triton.Config``): a
    name bound to a container is not moved by the one setting it holds."""
    if _the_literal(value, tunable, line):
        return True
    if isinstance(value, ast.BinOp):
        parts: list[ast.AST] = [value.left, value.right]
    elif isinstance(value, ast.UnaryOp):
        parts = [value.operand]
    elif isinstance(value, ast.IfExp):
        parts = [value.body, value.orelse]
    elif isinstance(value, ast.BoolOp):
        parts = list(value.values)
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _CALLS:
        parts = list(value.args)
    else:
        return False
    return any(_computes_with(p, tunable, line) for p in parts)


def _the_literal(node: ast.AST, tunable: Tunable, line: int) -> bool:
    """Whether ``node`` is the knob's literal: its value, on its line."""
    return isinstance(node, ast.Constant) and node.lineno == line and node.value == tunable.value


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
    out = []
    for option, value in moved.items():
        was = current.get(option)
        knob = next((t for t in tunables if t.name == option and t.kind is not TunableKind.COMPUTED_SETTING), None)
        if knob is None:
            continue
        names = _bound_by(knob, source)
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
