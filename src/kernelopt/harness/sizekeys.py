"""Which ``SHAPES`` keys are sizes: read from how reference.py's ``get_inputs`` uses each keyword argument.

A ``SHAPES`` entry holds ``get_inputs`` keyword arguments; some are sizes (``torch.randn(n_rows, n_cols)``), others
are not: a seed (``torch.manual_seed(seed)``), an exponent (``2 ** log_n``), a count others must be a multiple of
(``hidden // heads``, ``triton.cdiv(n, groups)``), a multiplier. The net behind the rules (:mod:`kernelopt.tuning.net`)
moves the sizes only: a key moved that is not one either makes a size the original refuses (the size is skipped,
nothing checked) or checks what the entries already checked. A key handed to ``run()`` as a plain value (``return [x,
chunk]``, or a list built by ``append``, ``+`` or ``*extra``) is one the text cannot follow: kernel.py may cover it
with a block (v65, a chunk length), so it moves, and is kept where the original refuses it moved (a code ``run()``
asserts is 10 or 20).

Read from the text, never imported (as :mod:`kernelopt.harness.sizes` reads the module-level sizes, whose list of
tensor makers this module shares): each parameter of ``get_inputs`` is followed through its assignments (``m, k =
shape``, ``for m, n, k in sizes``, ``n = 1 << log_n``) into the dimensions of a tensor it builds (the size arguments
of :data:`~kernelopt.harness.sizes.TENSOR_MAKERS`, ``.view`` / ``.reshape`` / ``.expand`` / ``.new_*``; and
``randint``'s bound, the range of its values, which a kernel's block may have to cover: a histogram's bins), into a
seeding call, and into the module's own functions it is handed to. Pure: parses a string, imports and runs nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from kernelopt import pyparse
from kernelopt.harness.sizes import TENSOR_MAKERS, size_args
from kernelopt.kernelsource import OWN_SEEDING


class KeyRole(StrEnum):
    """What a ``get_inputs`` keyword argument is, by its use (see the module docstring)."""

    SIZE = "size"  # a tensor dimension, or a factor or term of one
    EXPONENT = "exponent"  # a dimension is 2 ** key (or 1 << key)
    KEPT = "kept"  # a seed, a divisor of a dimension, or no dimension at all: not a size
    PASSED = "passed"  # handed to run() as a plain value (``return [x, chunk]``): what it sizes there, kernel.py says
    UNKNOWN = "unknown"  # handed where the text cannot follow (**kwargs, another module's function)


@dataclass(frozen=True)
class KeyReading:
    """One key's role and, for one that is not a size, why (``a seed``, ``divides a dimension``...)."""

    role: KeyRole
    why: str | None = None
    dividends: tuple[str, ...] = ()  # a kept divisor: the size keys it divides (``hidden`` of ``hidden // heads``)


class _Use(StrEnum):
    LINEAR = "linear"
    EXPONENT = "exponent"
    DIVISOR = "divisor"


_Deps = dict[str, set[_Use]]

#: Methods of a tensor whose arguments are dimensions.
_SHAPE_METHODS = frozenset(
    {"view", "reshape", "expand", "new_empty", "new_zeros", "new_ones", "new_full", "repeat", "unflatten", "tile"}
)
#: Calls that make a tensor of a sequence: a ``range`` in it counts one of its dimensions.
_LISTED = frozenset({"tensor", "as_tensor", "stack", "cat", "vstack", "hstack", "concatenate", "array"})
#: Calls that seed a random generator (those of :data:`kernelopt.kernelsource.OWN_SEEDING`, and every device's).
_SEEDING = frozenset({*OWN_SEEDING, "manual_seed_all"})
#: Calls whose second argument divides the first (``triton.cdiv(n, groups)``).
_CEIL_DIVS = frozenset({"cdiv", "ceil_div", "ceildiv", "div_up"})
#: Calls that pass their arguments' sizes on (``int(n)``, ``max(n, 1)``, ``map(int, shape.split("x"))``).
_PASSING = frozenset(
    {
        "int", "abs", "max", "min", "round", "tuple", "list", "map", "split", "strip", "sorted", "range", "len",
        "prod", "ceil", "floor", "next_power_of_2", "zip", "enumerate", "sum", "float", "str", "lower", "upper",
    }
)  # fmt: skip
#: Libraries whose functions take no size of the problem's own making (``torch.softmax(x, dim=dim)``).
_LIBRARIES = frozenset({"torch", "np", "numpy", "math", "triton", "tl", "random", "F", "nn"})
#: How deep the module's own functions are followed (``get_inputs`` -> ``_make(n)`` -> ...).
_MAX_DEPTH = 3


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _merge(*parts: Mapping[str, set[_Use]]) -> _Deps:
    out: _Deps = {}
    for part in parts:
        for k, uses in part.items():
            out.setdefault(k, set()).update(uses)
    return out


def _as(deps: Mapping[str, set[_Use]], use: _Use) -> _Deps:
    return {k: {use} for k in deps}


class _Reader:
    """Follows the parameters of one function through its body (and the module's functions it calls)."""

    def __init__(self, functions: Mapping[str, ast.FunctionDef]) -> None:
        self.functions = functions
        self.dims: _Deps = {}
        self.seeds: set[str] = set()
        self.dividends: dict[str, set[str]] = {}  # a key that divides a dimension -> the keys of what it divides
        self.tensors: set[str] = set()  # names bound to a tensor a maker builds (``codes = torch.arange(n)``)
        self.unread: set[str] = set()
        self.used: set[str] = set()  # handed to a call other than a seeding one
        self.passed: set[str] = set()  # returned by get_inputs as a plain value: an argument of run()
        self.lists: dict[str, list[ast.expr]] = {}  # get_inputs' names bound to a list it builds: their items

    def deps(self, node: ast.AST | None, env: Mapping[str, _Deps]) -> _Deps:
        """The keys ``node``'s value depends on, and how (in a product or sum, as an exponent, as a divisor)."""
        if node is None:
            return {}
        if isinstance(node, ast.Name):
            return _merge(env.get(node.id, {}))
        if isinstance(node, ast.BinOp):
            left, right = self.deps(node.left, env), self.deps(node.right, env)
            if isinstance(node.op, ast.Pow | ast.LShift):
                right = _as(right, _Use.EXPONENT)
            elif isinstance(node.op, ast.FloorDiv | ast.Div | ast.Mod | ast.RShift):
                right = _as(right, _Use.DIVISOR)
            return _merge(left, right)
        if isinstance(node, ast.Call):
            parts = [self.deps(a, env) for a in node.args] + [self.deps(k.value, env) for k in node.keywords]
            if _call_name(node) in _CEIL_DIVS and len(parts) >= 2:
                parts[1] = _as(parts[1], _Use.DIVISOR)
            if isinstance(node.func, ast.Attribute):  # shape.split("x"): the object's value passes on
                parts.append(self.deps(node.func.value, env))
            return _merge(*parts)
        return _merge(*(self.deps(child, env) for child in ast.iter_child_nodes(node)))

    def read(self, fn: ast.FunctionDef, env: dict[str, _Deps], depth: int = 0) -> None:
        """Follow ``env`` (a name -> the keys its value depends on) through ``fn``'s body in order, recording each
        key's uses."""
        for node in _in_order(fn.body):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                value = self.deps(node.value, env)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for name in (n for t in targets for n in _target_names(t)):
                    env[name] = _merge(env.get(name, {}), value) if isinstance(node, ast.AugAssign) else value
                    if node.value is not None and self._tensor(node.value):
                        self.tensors.add(name)
                if depth == 0 and node.value is not None and len(targets) == 1 and isinstance(targets[0], ast.Name):
                    self._listed(targets[0].id, node.value, isinstance(node, ast.AugAssign))
            elif isinstance(node, ast.For | ast.comprehension):
                value = self.deps(node.iter, env)
                for name in _target_names(node.target):
                    env[name] = value
            elif isinstance(node, ast.NamedExpr):
                env[node.target.id] = self.deps(node.value, env)
            elif isinstance(node, ast.Call):
                if depth == 0:
                    self._appended(node)
                self._call(node, env, depth)
            elif isinstance(node, ast.Slice):  # torch.randperm(E)[:TOPK]: a slice's bounds are a dimension
                self.dims = _merge(self.dims, self.deps(node.lower, env), self.deps(node.upper, env))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and self._tensor(node.left):
                # a tensor's values taken modulo a key (``torch.arange(n) % n_bins``): the key bounds them, as
                # randint's bound does (wrongkernel16's v63: a histogram's bins a block every code must fall below)
                self.dims = _merge(self.dims, _as(self.deps(node.right, env), _Use.LINEAR))
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv | ast.Mod):
                self._divides(node.right, node.left, env)  # hidden // heads, assert n % groups == 0
            elif isinstance(node, ast.Return) and depth == 0 and node.value is not None:
                self._returned(node.value, env)

    def _returned(self, value: ast.expr, env: Mapping[str, _Deps]) -> None:
        """The keys ``get_inputs`` hands to ``run()`` as plain values (``return [x, chunk]``): each item of the
        returned list or tuple that holds no tensor (wrongkernel17's v65: a chunk length a block covers)."""
        for item in self._items(value):
            if not self._tensor(item):
                self.passed |= set(self.deps(item, env))

    def _items(self, value: ast.expr) -> list[ast.expr]:
        """The items of a list ``get_inputs`` returns: a list or tuple's (``*rest`` opened), each side of ``+``'s, a
        name's bound to a list it built (:meth:`_listed`, :meth:`_appended`); else the value itself."""
        if isinstance(value, ast.List | ast.Tuple):
            return [i for e in value.elts for i in self._items(e.value if isinstance(e, ast.Starred) else e)]
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            return self._items(value.left) + self._items(value.right)
        if isinstance(value, ast.Name) and value.id in self.lists:
            return list(self.lists[value.id])  # its items as they were when bound: ``inputs = inputs + [chunk]``
        return [value]

    def _listed(self, name: str, value: ast.expr, augmented: bool) -> None:
        """``inputs = [x]`` (then ``inputs += [chunk]``): the list's items, read now and kept for its return."""
        if isinstance(value, ast.List | ast.Tuple) or (isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
            self.lists[name] = (self.lists.get(name, []) if augmented else []) + self._items(value)
        elif not augmented:
            self.lists.pop(name, None)

    def _appended(self, call: ast.Call) -> None:
        """``inputs.append(chunk)``, ``.extend([...])``, ``.insert(0, chunk)`` on a list kept by :meth:`_listed`."""
        f = call.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and call.args):
            return
        if f.value.id in self.lists and f.attr in ("append", "extend", "insert"):
            self.lists[f.value.id] += self._items(call.args[0]) if f.attr == "extend" else [call.args[-1]]

    def _tensor(self, node: ast.AST) -> bool:
        """``node``'s value is a tensor a maker builds (a call of one in it, or a name bound to one)."""
        return any(
            (isinstance(n, ast.Call) and _call_name(n) in TENSOR_MAKERS)
            or (isinstance(n, ast.Name) and n.id in self.tensors)
            for n in ast.walk(node)
        )

    def _divides(self, divisor: ast.AST, dividend: ast.AST, env: Mapping[str, _Deps]) -> None:
        """``divisor``'s keys divide a value of ``dividend``'s keys."""
        over = set(self.deps(dividend, env))
        for key in self.deps(divisor, env):
            self.dividends.setdefault(key, set()).update(over - {key})

    def _call(self, call: ast.Call, env: dict[str, _Deps], depth: int) -> None:
        name = _call_name(call)
        method = isinstance(call.func, ast.Attribute)
        args = [*call.args, *(k.value for k in call.keywords)]
        if name in TENSOR_MAKERS or (method and name in _SHAPE_METHODS):
            for arg in size_args(call, name) if name in TENSOR_MAKERS else call.args:
                self.dims = _merge(self.dims, self.deps(arg, env))
            if name == "randint":  # its bound: the codes' range, which a block may have to cover (v59's bins)
                sized = any(k.arg == "size" for k in call.keywords)
                bounds = [
                    *(call.args if sized else call.args[:-1]),
                    *(k.value for k in call.keywords if k.arg in ("low", "high")),
                ]
                for arg in bounds:
                    self.dims = _merge(self.dims, self.deps(arg, env))
            return
        if name not in _SEEDING:
            self.used |= set(_merge(*(self.deps(a, env) for a in args)))
        if name in _LISTED:  # torch.tensor(range(n)), torch.stack([... for _ in range(b)]): the count is a dimension
            for node in (n for a in call.args for n in ast.walk(a)):
                if isinstance(node, ast.Call) and _call_name(node) == "range" and node.args:
                    stop = node.args[0] if len(node.args) == 1 else node.args[1]  # range(n), range(start, n, step)
                    self.dims = _merge(self.dims, self.deps(stop, env))
            return
        if name in _SEEDING:
            self.seeds |= set(_merge(*(self.deps(a, env) for a in args)))
            return
        self.seeds |= {k for kw in call.keywords if kw.arg == "seed" for k in self.deps(kw.value, env)}
        if name in _CEIL_DIVS and len(call.args) >= 2:
            self._divides(call.args[1], call.args[0], env)
        callee = self.functions.get(name) if not method else None
        if callee is not None and depth < _MAX_DEPTH:
            params = [a.arg for a in [*callee.args.posonlyargs, *callee.args.args]]
            inner: dict[str, _Deps] = {p: self.deps(a, env) for p, a in zip(params, call.args, strict=False)}
            inner |= {k.arg: self.deps(k.value, env) for k in call.keywords if k.arg is not None}
            self.read(callee, inner, depth + 1)
            return
        if name in _PASSING or name in _CEIL_DIVS:
            return
        owner = call.func.value if isinstance(call.func, ast.Attribute) else None
        if owner is None or (isinstance(owner, ast.Name) and owner.id not in env and owner.id not in _LIBRARIES):
            # handed to a function the text cannot follow (another module's): a size there cannot be told
            self.unread |= set(_merge(*(self.deps(a, env) for a in args)))


def _target_names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _in_order(body: Iterable[ast.stmt]) -> Iterable[ast.AST]:
    """Every node of ``body`` in the order its names are bound: a statement's value before the statement, a loop's
    iterable before the loop and its body; nested functions and classes left out."""
    for stmt in body:
        yield from _walk(stmt)


def _walk(node: ast.AST) -> Iterable[ast.AST]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
        return
    if isinstance(node, ast.For):
        yield from _walk(node.iter)
        yield node
        for stmt in [*node.body, *node.orelse]:
            yield from _walk(stmt)
        return
    if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        for gen in node.generators:
            yield from _walk(gen.iter)
            yield gen
            for cond in gen.ifs:
                yield from _walk(cond)
        for elt in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
            yield from _walk(elt)
        return
    for child in ast.iter_child_nodes(node):
        yield from _walk(child)
    yield node


def key_roles(source: str) -> dict[str, KeyReading]:
    """What each keyword argument of ``source``'s module-level ``get_inputs`` is, by its use (see the module
    docstring); ``{}`` when the text does not parse or defines no ``get_inputs`` (every key then reads as
    :attr:`KeyRole.UNKNOWN`). A key ``get_inputs`` takes through ``**kwargs`` is not in the answer.

    A key that divides a dimension (``hidden // heads``) is kept though it is a dimension too: moved, the size is
    one the original's own reference refuses; its reading names the keys it divides (:attr:`KeyReading.dividends`),
    with which it moves by one factor (the net's ``divisor`` size). A key in a
    dimension that also seeds the generator (``manual_seed(M * 1000 + N)``) is a size; one handed to ``run()`` that also
    seeds it (``manual_seed(chunk)`` beside ``return [x, chunk]``) is handed to ``run()`` (wrongkernel18)."""
    try:
        tree = pyparse.parse(source)
    except (SyntaxError, ValueError):
        return {}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    fn = functions.get("get_inputs")
    if fn is None:
        return {}
    params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
    reader = _Reader(functions)
    reader.read(fn, {p: {p: {_Use.LINEAR}} for p in params})
    out: dict[str, KeyReading] = {}
    for p in params:
        uses = reader.dims.get(p, set())
        if p in reader.dividends:
            over = tuple(
                k for k in params if k in reader.dividends.get(p, ()) and _Use.LINEAR in reader.dims.get(k, ())
            )
            out[p] = KeyReading(KeyRole.KEPT, "divides a dimension", over)
        elif _Use.LINEAR in uses:
            out[p] = KeyReading(KeyRole.SIZE)
        elif _Use.EXPONENT in uses:
            out[p] = KeyReading(KeyRole.EXPONENT, "a dimension is a power of it")
        elif p in reader.seeds and p not in reader.used and p not in reader.passed:  # run() reads it: passed
            out[p] = KeyReading(KeyRole.KEPT, "a seed")
        elif p in reader.unread:
            out[p] = KeyReading(KeyRole.UNKNOWN)
        elif p in reader.passed:  # run() is kernel.py's: what the key sizes there, the text cannot tell
            out[p] = KeyReading(KeyRole.PASSED, "handed to run() as a plain value")
        else:
            out[p] = KeyReading(KeyRole.KEPT, "no tensor dimension in get_inputs")
    return out
