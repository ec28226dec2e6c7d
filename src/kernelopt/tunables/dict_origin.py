"""Where the settings a launch splats (``kernel[grid](..., **config)``) come from when they are read from a file at
run time: the chain of this file's functions that hands the dict on (copies, tuple returns and helpers that change it
and give it back included) down to the call that reads the file (``json.load``), for the one line that says why such
settings are no knob (discovery23 d31: AITER's GEMM takes ``**config`` from JSON files by device and shape through
``lru_cache``d getters, and was refused as "built by code or changed after it is built", naming no file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from kernelopt.tunables.blocks import dotted, visit, walk
from kernelopt.tunables.one_scope import Returns
from kernelopt.tunables.syntax import kept_by_text, parsed

READERS = {
    "json.load": "a JSON file",
    "json.loads": "JSON text",
    "yaml.load": "a YAML file",
    "yaml.safe_load": "a YAML file",
    "tomllib.load": "a TOML file",
    "toml.load": "a TOML file",
    "pickle.load": "a pickle file",
}
"""The calls that read settings from a file, and what each reads."""

COPIES = frozenset({"dict", "copy.copy", "copy.deepcopy", "deepcopy"})
"""The calls that hand their first argument's dict on as a copy."""

VIEWS = frozenset({"items", "values", "keys", "copy"})
"""The methods of a dict, called with no argument, whose result hands on what the dict holds."""

DEPTH = 16
"""The most steps a chain is followed (a name, a call, a return)."""


_N = TypeVar("_N", bound=cst.CSTNode)


@dataclass(frozen=True)
class Origin:
    """A file read that a splatted dict comes from: ``reader`` (``json.load``) at ``line``, reached through the
    functions ``chain`` (outermost first)."""

    reader: str
    line: int
    chain: tuple[str, ...]
    #: the keys a function of the chain computes from another key of the dict, or reads to compute one, with that
    #: function and its line (AITER's ``compute_splitk_params``: ``SPLITK_BLOCK_SIZE`` from ``NUM_KSPLIT``, which
    #: it halves while ``BLOCK_SIZE_K`` exceeds it, ``BLOCK_SIZE_K`` from ``SPLITK_BLOCK_SIZE``)
    derived: tuple[tuple[str, str, int], ...] = ()

    def text(self) -> str:
        """``read from a JSON file (_get_config() -> ... -> load_config_json(): json.load, line 60)``."""
        through = " -> ".join(f"{f}()" for f in dict.fromkeys(self.chain))
        return f"read from {READERS[self.reader]} ({through + ': ' if through else ''}{self.reader}, line {self.line})"

    def derived_text(self) -> str | None:
        """``NUM_KSPLIT, SPLITK_BLOCK_SIZE and BLOCK_SIZE_K are computed from one another in compute_splitk_params()
        (line 171)``; ``None`` where the chain derives no key from another (configs23)."""
        if not self.derived:
            return None
        keys = list(dict.fromkeys(k for k, _, _ in self.derived))
        where = ", ".join(f"{f}() (line {line})" for f, line in dict.fromkeys((f, line) for _, f, line in self.derived))
        said = keys[0] if len(keys) == 1 else f"{', '.join(keys[:-1])} and {keys[-1]}"
        return f"{said} {'is' if len(keys) == 1 else 'are'} computed from one another in {where}"


class _Scope:
    """One function's (or the module's) parameters, assignments and returns, nested scopes left out."""

    def __init__(self, node: cst.Module | cst.FunctionDef) -> None:
        self.node = node
        self.params = [p.name.value for p in node.params.params] if isinstance(node, cst.FunctionDef) else []
        self.binds: dict[str, list[tuple[cst.BaseExpression, int | None]]] = {}
        body = node.body if isinstance(node, cst.FunctionDef) else node
        visitor = _ScopeVisitor(self)
        body.visit(visitor)
        self.returns = visitor.values

    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression, index: int | None = None) -> None:
        if isinstance(target, cst.Name):
            self.binds.setdefault(target.value, []).append((value, index))
        elif isinstance(target, cst.Tuple | cst.List) and index is None:
            for i, el in enumerate(target.elements):
                self.bind(el.value, value, i)


class _ScopeVisitor(Returns):
    """A scope's assignments into :class:`_Scope` (its returns are :class:`~kernelopt.tunables.one_scope.Returns`')."""

    def __init__(self, scope: _Scope) -> None:
        super().__init__()
        self.scope = scope

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self.scope.bind(t.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.scope.bind(node.target, node.value)


@dataclass(frozen=True)
class _Frame:
    """Where a name is looked up: its scope, and the call that entered it (its arguments by parameter)."""

    scope: _Scope
    args: dict[str, tuple[cst.BaseExpression, _Frame]]


class _Reader:
    def __init__(self, source: str) -> None:
        tree = parsed(source)
        self.positions = tree.positions
        module = tree.module
        defs: dict[str, list[cst.FunctionDef]] = {}
        for node in _functions(module):
            defs.setdefault(node.name.value, []).append(node)
        self.functions = {name: _Scope(nodes[0]) for name, nodes in defs.items() if len(nodes) == 1}
        self.module = _Frame(_Scope(module), {})

    def expr(
        self, e: cst.BaseExpression, frame: _Frame, index: int | None, depth: int, chain: tuple[str, ...]
    ) -> Origin | None:
        if depth > DEPTH:
            return None
        if isinstance(e, cst.Tuple | cst.List) and index is not None:
            if index >= len(e.elements):
                return None
            return self.expr(e.elements[index].value, frame, None, depth + 1, chain)
        if isinstance(e, cst.Subscript):
            return self.expr(e.value, frame, None, depth + 1, chain)
        if isinstance(e, cst.Name):
            return self.name(e.value, frame, index, depth, chain)
        if isinstance(e, cst.DictComp | cst.ListComp | cst.SetComp | cst.GeneratorExp):
            # vLLM's getters: ``{int(key): val for key, val in json.load(f).items()}``, the entries re-keyed
            return self.expr(e.for_in.iter, frame, None, depth + 1, chain)
        if not isinstance(e, cst.Call):
            return None
        if isinstance(e.func, cst.Attribute) and e.func.attr.value in VIEWS and not e.args:
            return self.expr(e.func.value, frame, None, depth + 1, chain)  # ``json.load(f).items()``
        called = dotted(e.func)
        if called in READERS:
            return Origin(called, self.positions[e].start.line, chain)
        if called in COPIES and e.args:
            return self.expr(e.args[0].value, frame, None, depth + 1, chain)
        name = called.split(".")[-1]
        scope = self.functions.get(name)
        if scope is None:
            return None
        args: dict[str, tuple[cst.BaseExpression, _Frame]] = {}
        params = scope.params[1:] if scope.params[:1] == ["self"] and "." in called else scope.params
        for i, a in enumerate(e.args):
            if a.star:
                break
            key = a.keyword.value if a.keyword is not None else params[i] if i < len(params) else None
            if key is not None:
                args[key] = (a.value, frame)
        inner = _Frame(scope, args)
        for r in scope.returns:
            found = self.expr(r, inner, index, depth + 1, (*chain, name))
            if found is not None:
                return found
        return None

    def name(self, n: str, frame: _Frame, index: int | None, depth: int, chain: tuple[str, ...]) -> Origin | None:
        for value, at in frame.scope.binds.get(n, []):
            found = self.expr(value, frame, at if at is not None else index, depth + 1, chain)
            if found is not None:
                return found
        if n in frame.args:
            value, caller = frame.args[n]
            return self.expr(value, caller, index, depth + 1, chain)
        if frame is not self.module and n not in frame.scope.params and n not in frame.scope.binds:
            return self.name(n, self.module, index, depth + 1, chain)
        return None


def _functions(module: cst.Module) -> list[cst.FunctionDef]:
    """Every function definition of ``module``, methods and nested ones included."""
    return _nodes(module, cst.FunctionDef)


def _nodes(tree: cst.CSTNode, kind: type[_N]) -> list[_N]:
    """Every node of ``kind`` in ``tree``, in source order (:func:`~kernelopt.tunables.blocks.walk`'s kept walk)."""
    return [n for n in walk(tree) if isinstance(n, kind)]


@kept_by_text
def _reader(source: str) -> _Reader | None:
    try:
        return _Reader(source)
    except cst.ParserSyntaxError:
        return None


def file_origin(source: str, function: str | None, name: str) -> Origin | None:
    """The file read the dict ``name`` comes from where ``function`` (a function of ``source``, ``None``: the
    module) splats it, when one is reached through this file's code; ``None`` otherwise."""
    reader = _reader(source)
    if reader is None:
        return None
    scope = reader.functions.get(function.split(".")[-1]) if function else reader.module.scope
    if scope is None:
        return None
    found = reader.name(name, _Frame(scope, {}), None, 0, ())
    if found is None:
        return None
    derived = [
        (key, f, reader.positions[reader.functions[f].node].start.line)
        for f in dict.fromkeys(found.chain)
        for key in _derived_keys(reader.functions[f].node)
    ]
    return Origin(found.reader, found.line, found.chain, tuple(derived))


def _key(e: cst.BaseExpression) -> str | None:
    """``"NUM_KSPLIT"`` of ``config["NUM_KSPLIT"]``; ``None`` for any other expression."""
    if not (isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index)):
        return None
    key = e.slice[0].slice.value
    return key.evaluated_value if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str) else None


def _derived_keys(node: cst.Module | cst.FunctionDef) -> list[str]:
    """The string keys a function writes from a value that reads another key (``config["SPLITK_BLOCK_SIZE"] =
    triton.cdiv(K, config["NUM_KSPLIT"])``) and the keys that value, or a loop or branch around the write, reads:
    settings from which others are derived, none of which may be set alone after the call."""
    out: list[str] = []

    class _Writes(cst.CSTVisitor):
        def __init__(self) -> None:
            self.tests: list[cst.BaseExpression] = []

        def visit_While(self, n: cst.While) -> None:
            self.tests.append(n.test)

        def leave_While(self, original_node: cst.While) -> None:
            self.tests.pop()

        def visit_If(self, n: cst.If) -> None:
            self.tests.append(n.test)

        def leave_If(self, original_node: cst.If) -> None:
            self.tests.pop()

        def visit_Assign(self, n: cst.Assign) -> None:
            written = [k for t in n.targets if (k := _key(t.target)) is not None]
            read = [k for e in [n.value, *self.tests] for s in _nodes(e, cst.Subscript) if (k := _key(s)) is not None]
            if written and read:
                out.extend([*written, *read])

    visit(node, _Writes())
    return list(dict.fromkeys(out))


DEVICE_WORDS = ("device", "arch")
"""What the name of a getter of the device's name says (vLLM's ``get_device_name()``, AITER's ``get_arch()``)."""

NEAR = 2
"""How many calls from a function that reads a file (``json.load``) a getter of the device's name is looked for: vLLM
reads it in the file-name helper the reader calls, AITER in the cached getter that calls its reader."""


def device_key(source: str) -> str | None:
    """The call by which this file keys the settings it reads from files by the device (``get_device_name()``,
    ``get_arch()``): a call with no argument of a module-level name whose last part names a device or an architecture,
    made within :data:`NEAR` calls of a function of this file that reads a file (:data:`READERS`), the nearest first;
    ``None`` where none is. A pick timed on one device is written under it (configs24): the authors' files are keyed
    by it, and another device keeps their entries."""
    reader = _reader(source)
    if reader is None:
        return None
    module_names = set(reader.module.scope.binds) | set(reader.functions) | _imported(reader)
    calls: dict[str, set[str]] = {}
    for name, scope in reader.functions.items():
        called = {dotted(c.func).split(".")[-1] for c in _nodes(scope.node, cst.Call)}
        calls[name] = {c for c in called if c in reader.functions and c != name}
    near: dict[str, int] = {
        name: 0
        for name, scope in reader.functions.items()
        if any(dotted(c.func) in READERS for c in _nodes(scope.node, cst.Call))
    }
    for step in range(1, NEAR + 1):
        for name in [n for n, d in near.items() if d == step - 1]:
            callers = {f for f, cs in calls.items() if name in cs}
            for f in calls[name] | callers:
                near.setdefault(f, step)
    for name in sorted(near, key=lambda n: near[n]):
        for call in _nodes(reader.functions[name].node, cst.Call):
            spelled = dotted(call.func)
            last = spelled.split(".")[-1].lower()
            if call.args or not spelled or spelled.split(".")[0] not in module_names:
                continue
            if any(w in last for w in DEVICE_WORDS) and spelled.split(".")[-1] != name:
                return f"{spelled}()"
    return None


def _imported(reader: _Reader) -> set[str]:
    """The names the module's imports bind (``torch`` of ``import torch``, ``current_platform`` of ``from
    vllm.platforms import current_platform``)."""
    out: set[str] = set()
    for node in _nodes(reader.module.scope.node, cst.Import):
        out |= {dotted(a.asname.name if a.asname else a.name).split(".")[0] for a in node.names}
    for node in _nodes(reader.module.scope.node, cst.ImportFrom):
        if not isinstance(node.names, cst.ImportStar):
            out |= {dotted(a.asname.name if a.asname else a.name) for a in node.names}
    return out
