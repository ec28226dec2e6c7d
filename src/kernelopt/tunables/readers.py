"""Which settings a kernel file computes from a knob: a launch option moved moves what is computed from it too
(``num_warps = 2`` then ``BLOCK = num_warps * 32``), so a change no rule on launch options would check can change which
elements a kernel covers (newuser11's n61: ``num_warps=8`` moved BLOCK from 64 to 256 over a grid of ``n // BLOCK``
programs without masks, wrong at n=64). The one reading of it, for ``tune``'s net and ``tunables --set``."""

from __future__ import annotations

import ast
from collections.abc import Collection, Sequence

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


def _assignments(source: str) -> list[tuple[str, ast.expr]]:
    """Every plain assignment of one name in the file (``threads = nw * 32``), in the order of its lines."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out.append((node.lineno, node.targets[0].id, node.value))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out.append((node.lineno, node.target.id, node.value))
    return [(name, value) for _, name, value in sorted(out, key=lambda a: a[0])]


def _followed(source: str, names: dict[str, object]) -> dict[str, object]:
    """The locals the file binds from ``names`` through a chain of assignments (``nw = 2``, ``threads = nw * 32``,
    ``BLOCK = threads``: newuser12's n65, where only a name the option's own line binds was read), each with its value
    where ``names``' values give it (:func:`_evaluated`), else ``None``."""
    out: dict[str, object] = {}
    known = dict(names)
    for name, value in _assignments(source):
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
    return bound | {
        n.id for node in tree.body if isinstance(node, ast.Assign) for n in node.targets if isinstance(n, ast.Name)
    }


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


def _evaluated(expr: ast.expr, names: dict[str, object]) -> object:
    """``expr``'s value with ``names`` bound (a name bound to ``None`` is not known), or ``None``."""
    if any(isinstance(n, ast.Name) and names.get(n.id) is None and n.id not in _CALLS for n in ast.walk(expr)) or any(
        isinstance(n, ast.Attribute | ast.Subscript | ast.Lambda) for n in ast.walk(expr)
    ):
        return None
    try:
        return eval(compile(ast.Expression(expr), "<computed>", "eval"), {"__builtins__": {}, **_CALLS}, dict(names))
    except Exception:  # a computation that does not evaluate here is one no rule can check
        return None


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
            said = (
                f"{after}, smaller than the original's {before}"
                if isinstance(after, int)
                else "a value no rule works out"
            )
            out.append(
                f"{t.name} is computed from {option} ({t.computed}) and covers {cover.size} with one block "
                f"({cover.test}): {option}={value} makes it {said}, which leaves part of a row undone where the "
                "original covers it"
            )
    return out
