"""Which settings a kernel file computes from a knob: a launch option moved moves what is computed from it too
(``num_warps = 2`` then ``BLOCK = num_warps * 32``), so a change no rule on launch options would check can change which
elements a kernel covers (newuser11's n61: ``num_warps=8`` moved BLOCK from 64 to 256 over a grid of ``n // BLOCK``
programs without masks, wrong at n=64). The one reading of it, for ``tune``'s net and ``tunables --set``."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import libcst as cst

from kernelopt.numeric import is_number
from kernelopt.tunables.arithmetic import POWER_MOST
from kernelopt.tunables.bindings import (
    Binding,
    binding_list,
    element_names,
    element_read,
    held_path,
    made_by,
    path_parts,
    scopes,
    unpacking,
)
from kernelopt.tunables.blocks import dotted, walk
from kernelopt.tunables.cover_kept import keeps_cover
from kernelopt.tunables.knobs import LAUNCH_OPTIONS
from kernelopt.tunables.model import Tunable, TunableKind
from kernelopt.tunables.signature import param_names, params_of
from kernelopt.tunables.syntax import Parsed, parsed

#: the code of a node, written as the file has it (:func:`_evaluated`)
_CODE = cst.Module(body=[])

#: each scope of a file (:func:`_scopes`): the names its function takes as parameters, and its bindings in order
_Scope = tuple[frozenset[str], tuple[Binding, ...]]


def computed_readers(tunables: Sequence[Tunable], source: str, names: Collection[str]) -> list[Tunable]:
    """The settings of ``tunables`` the file computes from a name one of the knobs ``names`` binds: the knob's own
    name, and each name its literal's line assigns (``nw = 2`` beside ``num_warps=nw``)."""
    return _readers(tunables, _parse(source), names)


def _readers(tunables: Sequence[Tunable], tree: Parsed | None, names: Collection[str]) -> list[Tunable]:
    bound: set[str] = set(names)
    for t in tunables:
        if t.name in names:
            bound |= _bound_by(t, tree) | _passed_as(t, tree)
            if tree is not None:  # a dict holding the literal, read by its key (n77: BLOCK = opts["num_warps"] * 128)
                bound |= {name for name, _, _ in _container_reads(t, tree)}
                bound |= {name for name, _ in _tuple_reads(t, tree)}  # the tuple passed whole (n85)
    bound |= set(_followed(tree, dict.fromkeys(bound)))
    called = _functions_reading(tree, bound) | bound  # a helper reading them, or a name bound from them (a lambda)
    return [
        t
        for t in tunables
        if t.kind is TunableKind.COMPUTED_SETTING
        and (set(t.size_names) & bound or _calls(t.computed) & called or _computed_reads(t.computed) & bound)
    ]


def _computed_reads(computed: str | None) -> set[str]:
    """The names a computed setting's line reads (``BLOCK = opts["num_warps"] * 128``: ``opts``): a local of literals
    holding the option is no size (leftovers22's l22 leaves it out of ``size_names``), yet the block is computed from
    the option through it (n77)."""
    statement = _computed_statement(computed)
    if statement is None:
        return set()
    values = [n.value for n in walk(statement) if isinstance(n, cst.Assign | cst.AnnAssign) and n.value is not None]
    return {name for v in values for name in _reads(v)}


def _computed_statement(computed: str | None) -> cst.BaseStatement | None:
    """A computed setting's line parsed (:attr:`Tunable.computed`); ``None`` where there is none or it is no Python."""
    if computed is None:
        return None
    try:
        return cst.parse_statement(computed.strip())
    except cst.ParserSyntaxError:
        return None


def _functions_reading(tree: Parsed | None, names: Collection[str]) -> set[str]:
    """The functions of the file whose body or defaults read one of ``names`` (``def _block(): return NUM_WARPS *
    128``, ``def _block(o=OPTS)``; a parameter of the name counts too, as a read no rule here tells apart): a setting
    computed by calling one is computed from them (newuser14's n81: n64's one-block row max with ``BLOCK = _block()``,
    a GPU pick of ``num_warps=4`` making it 512, passed the net and was written, wrong at N=600)."""
    if tree is None or not names:
        return set()
    functions = [node for node in walk(tree.module) if isinstance(node, cst.FunctionDef)]
    out: set[str] = set()
    for _ in functions:  # a function calling one that reads them reads them too (n81: _block() calls _inner())
        read = set(names) | out
        grown = {
            f.name.value
            for f in functions
            if f.name.value not in out
            and any(isinstance(n, cst.Name) and n.value in read - _locals_of(f) for n in walk(f) if n is not f.name)
        }
        if not grown:
            break
        out |= grown
    return out


def _locals_of(function: cst.FunctionDef) -> set[str]:
    """The names ``function`` binds: its parameters and the names it assigns (breaker7's xent_chunked:
    ``calculate_settings`` assigns a local ``num_warps``, no read of the launch option)."""
    out = set(param_names(function, posonly=True, kwonly=True))
    targets: list[cst.CSTNode] = []
    for n in walk(function.body):
        if isinstance(n, cst.Assign):
            targets += [t.target for t in n.targets]
        elif isinstance(n, cst.AnnAssign | cst.AugAssign | cst.For):
            targets.append(n.target)
    return out | {n.value for t in targets for n in walk(t) if isinstance(n, cst.Name)}


def _calls(computed: str | None) -> set[str]:
    """The names of the functions a computed setting's line calls (``BLOCK = _block()``: ``_block``) and of what it
    passes them (``BLOCK = block_of(CFG)``: ``CFG``, the tuple holding the option: newuser15's n85)."""
    statement = _computed_statement(computed)
    if statement is None:
        return set()
    calls = [n for n in walk(statement) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)]
    return {n.func.value for n in calls} | {name for n in calls for a in n.args for name in _reads(a.value)}


def _parse(source: str) -> Parsed | None:
    """The file's one parse, the one every reader of the text shares (:func:`kernelopt.tunables.syntax.parsed`);
    ``None`` where it is not Python."""
    try:
        return parsed(source)
    except cst.ParserSyntaxError:
        return None


def _scopes(tree: Parsed | None) -> list[_Scope]:
    """Each scope of the file (:func:`kernelopt.tunables.bindings.scopes`: the module's first, then each function not
    inside another, a nested function's bindings its enclosing function's) with its parameters and its bindings."""
    if tree is None:
        return []
    out: list[_Scope] = []
    for scope in scopes(tree.module):
        named = params_of(scope, posonly=True, kwonly=True, stars=True) if isinstance(scope, cst.FunctionDef) else []
        out.append((frozenset(p.name.value for p in named), binding_list(scope)))
    return out


def _followed(tree: Parsed | None, names: dict[str, object]) -> dict[str, object]:
    """The locals the file binds from ``names`` through a chain of assignments (``nw = 2``, ``threads = nw * 32``,
    ``BLOCK = threads``: newuser12's n65, where only a name the option's own line binds was read; an unpacking's
    paired element, break15's b9), each with its value where ``names``' values give it (:func:`_evaluated`), else
    ``None``. A chain stays in one scope (the module's names seen from each function, but for its parameters: a
    kernel's parameter BLOCK is not the module's BLOCK): a local of the kernel is not the launching function's of the
    same name. Where two functions follow one name, the first in the file gives its value."""
    found = _scopes(tree)
    if not found:
        return {}
    module = _chained(found[0][1], dict(names))
    out = dict(module)
    for shadowed, binds in reversed(found[1:]):
        out |= _chained(binds, {**names, **{k: v for k, v in module.items() if k not in shadowed}})
    return out


def _chained(binds: tuple[Binding, ...], known: dict[str, object]) -> dict[str, object]:
    """The names ``binds`` assign from ``known`` through the chain, in source order, each with its value or
    ``None``."""
    out: dict[str, object] = {}
    known = dict(known)
    for b in binds:
        if b.taken is None or b.name in known or not _reads(b.taken) & set(known):
            continue
        known[b.name] = out[b.name] = _evaluated(b.taken, known)
    return out


def _reads(expr: cst.CSTNode) -> set[str]:
    """The variables ``expr`` reads: its names, less an attribute's or a keyword's, a lambda's parameters and the
    constants ``True``, ``False`` and ``None``."""
    skipped: set[cst.CSTNode] = set()
    out: set[str] = set()
    for node in walk(expr):
        if isinstance(node, cst.Attribute):
            skipped.add(node.attr)
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            skipped.add(node.keyword)
        elif isinstance(node, cst.Param):
            skipped.add(node.name)
        elif isinstance(node, cst.Name) and node not in skipped and node.value not in _CONSTANTS:
            out.add(node.value)
    return out


#: the names that are constants to Python, not variables
_CONSTANTS = {"True": True, "False": False, "None": None}


def chained_values(tunables: Sequence[Tunable], source: str, moved: Collection[str]) -> dict[str, object]:
    """Every name the file binds from the launch options ``moved`` through a chain of assignments, at any scope
    (a module's ``BLOCK = NUM_WARPS * 32`` beside ``NUM_WARPS = 2``, which no computed setting of the launch holds:
    the launch reads the module's name), each with its value as written (``None``: not worked out). Empty where the
    options feed their launch alone: only then does a pick of them change no result at any size (docs/faults.md
    newuser13 n69)."""
    tree = _parse(source)
    known: dict[str, object] = {}
    for t in tunables:
        if t.name in moved and t.kind is not TunableKind.COMPUTED_SETTING:
            known |= dict.fromkeys(_bound_by(t, tree), t.value)
    # a computed option: its tuned line binds the name the launch passes (n86), followed through assignments
    passed = dict.fromkeys(name for t in tunables if t.name in moved for name in _passed_as(t, tree))
    if not (known or passed) or tree is None:
        return {}
    held = {
        f"line {line} ({name}[{key!r}])" if key is not None else f"line {line} ({name})": None
        for t in tunables
        if t.name in moved and t.kind is not TunableKind.COMPUTED_SETTING
        for name, key, line in _container_reads(t, tree)
    }
    held |= {
        f"line {line} ({name}[{at}])": None
        for t in tunables
        if t.name in moved and t.kind is not TunableKind.COMPUTED_SETTING
        for name, at, line in _element_reads(t, tree)
    }
    held |= {
        f"line {line} ({name})": None
        for t in tunables
        if t.name in moved and t.kind is not TunableKind.COMPUTED_SETTING
        for name, line in _tuple_reads(t, tree)
    }
    return _followed(tree, passed | known) | _read_unfollowed(tree, set(known)) | held


def _element_reads(tunable: Tunable, tree: Parsed) -> list[tuple[str, int, int]]:
    """Where the file reads a launch option's literal through the tuple holding it by its index (``BLOCK =
    CFG[0] * 32``; break17 b16): each (the tuple's name, the index, the line), but a name bound to the element alone
    (``nw = CFG[0]``, followed as :func:`_bound_by`'s)."""
    try:
        line = int(tunable.location.rsplit(":", 1)[1])
    except (ValueError, IndexError, AttributeError):
        return []
    holding = _tuples_holding(
        tree, lambda node: _literal_of(node, tunable.value) and tree.positions[node].start.line == line
    )
    if not holding:
        return []
    bound = {
        id(node.value)
        for node in walk(tree.module)
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
    }
    return [
        (held, at, tree.positions[node].start.line)
        for node in walk(tree.module)
        for held, at in holding
        if element_read(node) == (held, at) and id(node) not in bound
    ]


def _tuple_reads(tunable: Tunable, tree: Parsed) -> list[tuple[str, int]]:
    """Where the file reads the tuple holding a launch option's literal as a whole (``BLOCK = block_of(CFG)``, ``cfg =
    CFG``): each (the tuple's name, the line), but its own binding, an unpacking of it and a subscript of it (followed
    by :func:`_bound_by` and read by :func:`_element_reads`). newuser15's n85: ``CFG = (2, 3)``, ``nw, ns = CFG`` at
    the launch and ``BLOCK = block_of(CFG)`` with ``block_of = lambda cfg: cfg[0] * 32``: a GPU pick of
    ``num_warps=32`` was "only num_warps moved", the net not cast, written ``CFG = (32, 3)``, wrong at n=64."""
    try:
        line = int(tunable.location.rsplit(":", 1)[1])
    except (ValueError, IndexError, AttributeError):
        return []
    held = {
        path
        for name, _ in _tuples_holding(
            tree, lambda node: _literal_of(node, tunable.value) and tree.positions[node].start.line == line
        )
        for path in _paths_to(name)  # a nested tuple read whole, or any tuple that holds it (leftovers19's l3)
    }
    if not held:
        return []
    skipped: set[int] = set()
    for node in walk(tree.module):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            skipped.add(id(node.targets[0].target))
            if unpacking(node) is not None:
                skipped.add(id(node.value))
        elif isinstance(node, cst.Subscript | cst.Attribute):
            skipped.add(id(node.value) if isinstance(node, cst.Subscript) else id(node.attr))
        elif isinstance(node, cst.Arg | cst.Param):  # a keyword or a parameter of the name
            skipped.add(id(node.keyword) if isinstance(node, cst.Arg) else id(node.name))
        elif isinstance(node, cst.NameItem):  # global CFG
            skipped.add(id(node.name))
    return [
        (path, tree.positions[node].start.line)
        for node in walk(tree.module)
        if isinstance(node, cst.Name | cst.Subscript) and (path := held_path(node)) in held and id(node) not in skipped
    ]


def _paths_to(held: str) -> list[str]:
    """``["CFGS", "CFGS[0]"]`` of the path ``CFGS[0]``: the tuple it names and each tuple holding it."""
    name, indices = path_parts(held)
    return [name, *(name + "".join(f"[{i}]" for i in indices[: k + 1]) for k in range(len(indices)))]


def _container_reads(tunable: Tunable, tree: Parsed) -> list[tuple[str, str | None, int]]:
    """Where the file reads a launch option's literal through the dict holding it (``opts = {"num_warps": 2}`` then
    ``BLOCK = opts["num_warps"] * 32`` beside ``**opts`` at the launch; newuser14's n75: a pick of ``num_warps=32``
    made BLOCK 1024 over ``n // BLOCK`` programs without masks, "only num_warps moved", written wrong at n=64): each
    (the dict's name, the option's key, the line) of a read of the dict other than its splat into a launch
    (``kernel[grid](..., **opts)``) or its subscript by another key (``opts["BLOCK"]``). A dict is a container, so
    :func:`_bound_by` binds no name to it; this reads it by its key. A dict holding it deeper (``CONFIGS = {"small":
    {"num_warps": 2}}``, n78) and a name bound to a read of one (``opts = CONFIGS["small"]``) hold it under any key
    (``None``): every read of them but such a binding and a launch's splat counts."""
    try:
        line = int(tunable.location.rsplit(":", 1)[1])
    except (ValueError, IndexError, AttributeError):
        return []
    held: dict[str, str | None] = {}  # the dict's name -> the key the literal is held under (None: any)
    aliases: dict[str, cst.BaseExpression] = {}  # a name -> the value bound to it
    for node in walk(tree.module):
        target, value = _named_binding(node)
        if target is not None and value is not None:
            aliases[target] = value
            found, key = _held_key(value, lambda v: _literal_of(v, tunable.value) and _on(tree, v, line))
            if found:
                held[target] = key
    bindings: set[int] = set()  # values that bind a name to a read of a held dict: followed, not reads themselves
    for _ in range(len(aliases)):
        grown = False
        for name, value in aliases.items():
            base = value.value if isinstance(value, cst.Subscript) else value
            # a plain alias keeps the key; a subscript of a dict holding it deeper holds it under any key
            if name not in held and isinstance(base, cst.Name) and base.value in held:
                if base is not value and held[base.value] is not None:
                    continue  # a subscript of the dict holding it: its value is read (or another key's)
                held[name] = held[base.value] if base is value else None
                bindings.add(id(base))
                grown = True
        if not grown:
            break
    if not held:
        return []
    skipped: set[int] = set(bindings)  # targets, splats into a launch, subscripts by another key, the bindings
    for node in walk(tree.module):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            skipped.add(id(node.targets[0].target))
        elif isinstance(node, cst.AnnAssign):
            skipped |= {id(node.target), *(id(n) for n in walk(node.annotation))}
        elif isinstance(node, cst.Attribute):  # another object's attribute of the name
            skipped.add(id(node.attr))
        elif isinstance(node, cst.Arg | cst.Param):  # a keyword or a parameter of the name
            skipped.add(id(node.keyword) if isinstance(node, cst.Arg) else id(node.name))
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript):
            skipped |= {id(a.value) for a in node.args if a.star == "**"}
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in held:
            index = node.slice[0].slice if len(node.slice) == 1 else None
            by = index.value if isinstance(index, cst.Index) else None
            mine = held[node.value.value]
            if mine is not None and isinstance(by, cst.SimpleString) and by.evaluated_value != mine:
                skipped.add(id(node.value))
    return [
        (node.value, held[node.value], tree.positions[node].start.line)
        for node in walk(tree.module)
        if isinstance(node, cst.Name) and node.value in held and id(node) not in skipped
    ]


def _named_binding(node: cst.CSTNode) -> tuple[str | None, cst.BaseExpression | None]:
    """The name and value of ``name = value`` or ``name: T = value`` (newuser14's n79: ``opts: dict = {...}``), else
    ``(None, None)``."""
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value, node.value
    if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
        return node.target.value, node.value
    return None, None


def _on(tree: Parsed, node: cst.CSTNode, line: int) -> bool:
    return tree.positions[node].start.line == line


def _held_key(value: cst.BaseExpression, literal: Callable[[cst.BaseExpression], bool]) -> tuple[bool, str | None]:
    """Whether the dict ``value`` holds the ``literal``, and the key it is held under (``{"num_warps": 2}``:
    ``"num_warps"``; ``None`` where a dict inside it holds it: ``{"small": {"num_warps": 2}}``)."""
    for key, item in _dict_items(value):
        if literal(item):
            return True, key
        if _held_key(item, literal)[0]:
            return True, None
    return False, None


def _dict_items(value: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]]:
    """The string keys and values of a dict written out: ``{"num_warps": 2}`` or ``dict(num_warps=2)``."""
    if isinstance(value, cst.Dict):
        return [
            (str(e.key.evaluated_value), e.value)
            for e in value.elements
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
        ]
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        return [(a.keyword.value, a.value) for a in value.args if a.keyword is not None]
    return []


def _read_unfollowed(tree: Parsed, names: Collection[str]) -> dict[str, None]:
    """Where the file reads one of ``names`` (the launch options' own names and those their literals bind) other
    than as a launch option's value or an assignment's (which :func:`_followed` follows), each ``None``: a helper's
    body (``def _block(): return NUM_WARPS * 32``) or an augmented assignment (``BLOCK *= nw``) computes from it as
    surely, which no chain of assignments shows (named ``line 16 of _block`` or ``BLOCK (line 17)``; break16's b13:
    a num_warps pick was "only num_warps moved", the net not cast, written wrong at n=64), and a parameter's default
    (``def _block(w=NUM_WARPS)``, read where the function is defined: late16). A function taking one of the names as
    a parameter without a literal default (a kernel's own) reads its own value, not the option's."""
    found = _ReadFinder(tree, set(names))
    tree.module.visit(found)
    return dict.fromkeys(found.keys)


class _ReadFinder(cst.CSTVisitor):
    def __init__(self, tree: Parsed, names: set[str]) -> None:
        self.tree, self.names, self.keys = tree, names, list[str]()
        self.functions: list[tuple[str, set[str]]] = []  # each enclosing function: its name, the names it shadows
        self.skipped: set[cst.CSTNode] = set()  # subtrees read elsewhere (followed, a launch option, a target)
        self.aug: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        given = params_of(node, posonly=True, kwonly=True)
        for p in given:  # a default is read where the function is defined (late16: def _block(w=NUM_WARPS))
            if p.default is not None and self._read(p.default):
                self._add(f"the default of {p.name.value} in {node.name.value} (line {self._line(p.default)})")
        own = {p.name.value for p in given if p.default is None or not isinstance(p.default, cst.Integer)}
        self.functions.append((node.name.value, own & self.names))
        self.skipped |= {p.default for p in given if p.default is not None}

    def _read(self, expr: cst.CSTNode) -> bool:
        """Whether ``expr`` reads one of the names, not shadowed by a function now open (an attribute's name and a
        call's keyword are no reads)."""
        nodes = list(walk(expr))
        named = {id(n.attr) for n in nodes if isinstance(n, cst.Attribute)}
        named |= {id(n.keyword) for n in nodes if isinstance(n, cst.Arg) and n.keyword is not None}
        return any(
            isinstance(n, cst.Name)
            and id(n) not in named
            and n.value in self.names
            and not any(n.value in own for _, own in self.functions)
            for n in nodes
        )

    def _line(self, node: cst.CSTNode) -> int:
        return self.tree.positions[node].start.line

    def _add(self, key: str) -> None:
        if key not in self.keys:
            self.keys.append(key)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        self.skipped.add(node.value)  # followed by the chain
        self.skipped |= {t.target for t in node.targets}

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.skipped |= {node.target, node.annotation} | ({node.value} if node.value is not None else set())

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.skipped.add(node.target)
        self.aug.append(dotted(node.target) or "an augmented assignment")

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        self.aug.pop()

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skipped.add(node.keyword)
            if node.keyword.value in LAUNCH_OPTIONS:
                self.skipped.add(node.value)

    def visit_Param(self, node: cst.Param) -> None:
        self.skipped.add(node.name)

    def visit_Element(self, node: cst.Element) -> None:
        if isinstance(node.value, cst.Name):  # held in a container among others, not computed from
            self.skipped.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skipped.add(node.attr)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node in self.skipped:
            return False
        if isinstance(node, cst.Name) and node.value in self.names:
            shadowed = any(node.value in own for _, own in self.functions)
            if not shadowed:
                line = self.tree.positions[node].start.line
                if self.aug:  # the name it assigns
                    key = f"{self.aug[-1]} (line {line})"
                else:  # what the line computes, in its function
                    key = f"line {line} of {self.functions[-1][0]}" if self.functions else f"line {line}"
                self._add(key)
        return super().on_visit(node)


#: the calls a computation may make when it is evaluated at a launch option's value (:func:`shrunk_covers`)
_CALLS = {"min": min, "max": max, "int": int, "abs": abs}


def _passed_as(tunable: Tunable, tree: Parsed | None) -> set[str]:
    """The names a launch passes a computed launch option as (``num_warps=nw`` beside ``nw, ns = BIG if n > LIMIT
    else CFG``): a tuned table binds that name before the lines after the computation (``if n <= 8192: nw = 32``), so
    a setting computed from it (``BLOCK = nw * 32``) moves with the option. newuser15's n86: a GPU pick of
    ``num_warps=32`` was "only num_warps moved", the net not cast, and the table written, wrong at n=64 and 1088. A
    name only (``num_warps=8 if n > 65536 else 4`` at the launch binds none); empty for a literal option
    (:func:`_bound_by` reads its line) and for any other knob."""
    if tree is None or tunable.kind is not TunableKind.COMPUTED_SETTING or tunable.name not in LAUNCH_OPTIONS:
        return set()
    try:
        line = int(tunable.location.rsplit(":", 1)[1])
    except (ValueError, IndexError, AttributeError):
        return set()
    return {
        a.value.value
        for node in walk(tree.module)
        if isinstance(node, cst.Call) and tree.positions[node].start.line <= line <= tree.positions[node].end.line
        for a in node.args
        if a.keyword is not None and a.keyword.value == tunable.name and isinstance(a.value, cst.Name)
    }


def _bound_by(tunable: Tunable, tree: Parsed | None) -> set[str]:
    """The names a knob's literal binds, read in the file's tree at the literal's line (``nw = 2`` beside
    ``num_warps=nw``; one side of an unpacking, ``nw, ns = 2, 1``; a parameter whose default it is, ``def run(x,
    nw=2)``, a line that does not parse alone: newuser13's n70), and its own. A literal passed at the launch itself
    (``num_warps=32,`` on a line of a call over several, which alone parses as a chained assignment) binds none."""
    bound = {tunable.name}
    try:
        line = int(tunable.location.rsplit(":", 1)[1])
    except (ValueError, IndexError, AttributeError):
        return bound
    if tree is None:
        return bound

    def literal(node: cst.BaseExpression | None) -> bool:  # the knob's literal: its value, on its line
        return node is not None and _literal_of(node, tunable.value) and tree.positions[node].start.line == line

    for node in walk(tree.module):
        if isinstance(node, cst.Assign | cst.AnnAssign) and node.value is not None:
            pairs = [(b.name, b.taken) for b in made_by(node) if b.taken is not None]
            holding = [n for n, v in pairs if _computes_with(v, literal)]
            # the one name an unpacking pairs the literal with, else every name its value is part of
            held = [n for n, v in pairs if literal(v)]
            bound |= set(held or holding)
        elif isinstance(node, cst.Parameters):
            given = params_of(node, posonly=True, kwonly=True)
            bound |= {p.name.value for p in given if literal(p.default)}
    for held, at in _tuples_holding(tree, literal):
        bound |= _elements_bound(tree, held, at)
    return bound


def _tuples_holding(tree: Parsed, literal: Callable[[cst.BaseExpression], bool]) -> list[tuple[str, int]]:
    """(the name, the index) of each tuple or list of literals bound to one name that holds the knob's ``literal``
    as an element (``CFG = (2, 3)``: leftovers17 l2's knob an element each, ``CFG[0]``); in a nested tuple, the name is
    the path of the tuple that holds it (``CFGS = ((2, 3), (4, 2))``: ``("CFGS[0]", 0)``, leftovers19's l3)."""
    out: list[tuple[str, int]] = []

    def held(path: str, value: cst.BaseExpression) -> None:
        for at, element in enumerate(value.elements if isinstance(value, cst.Tuple | cst.List) else ()):
            if isinstance(element, cst.StarredElement):
                continue
            if literal(element.value):
                out.append((path, at))
            else:
                held(f"{path}[{at}]", element.value)

    for node in walk(tree.module):
        if (
            isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(node.value, cst.Tuple | cst.List)
        ):
            held(node.targets[0].target.value, node.value)
    return out


def _elements_bound(tree: Parsed, held: str, at: int) -> set[str]:
    """The names the file binds to element ``at`` of the tuple ``held``: an unpacking (``nw, ns = CFG``, flat, no
    starred element) or its subscript (``nw = CFG[0]``): break17 b16, ``BLOCK = nw * 32`` beside ``num_warps=nw`` read
    nothing, so a pick of ``num_warps=32`` was "only num_warps moved" and written wrong at n=64."""
    return set(element_names(walk(tree.module), held, at))


def _computes_with(value: cst.BaseExpression, literal: Callable[[cst.BaseExpression], bool]) -> bool:
    """Whether ``value`` computes a number from the knob's ``literal`` (``4 if big else 8``, ``2 * 32``, ``max(2,
    n)``), not a container that holds it among others (``dict(BLOCK=1024, num_warps=4)``, a list of
    ``triton.Config``): a name bound to a container is not moved by the one setting it holds."""
    if literal(value):
        return True
    if isinstance(value, cst.BinaryOperation | cst.BooleanOperation):
        parts: list[cst.BaseExpression] = [value.left, value.right]
    elif isinstance(value, cst.UnaryOperation):
        parts = [value.expression]
    elif isinstance(value, cst.IfExp):
        parts = [value.body, value.orelse]
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in _CALLS:
        parts = [a.value for a in value.args if a.keyword is None and not a.star]
    else:
        return False
    return any(_computes_with(p, literal) for p in parts)


def _literal_of(node: cst.BaseExpression, value: object) -> bool:
    """``node`` is a literal (a number, a string, ``True`` / ``False`` / ``None``) equal to ``value``."""
    if isinstance(node, cst.Name):
        return node.value in _CONSTANTS and _CONSTANTS[node.value] == value
    if isinstance(node, cst.Integer | cst.Float | cst.Imaginary | cst.SimpleString | cst.ConcatenatedString):
        return bool(node.evaluated_value == value)
    return False


def _value_at(computation: str, names: dict[str, object], tree: Parsed | None) -> object:
    """``computation``'s value (``BLOCK = warps * 128``) with ``names`` bound, and the locals the file binds from them
    (:func:`_followed`), or ``None`` where it reads anything else (a size, another local) or is not plain arithmetic."""
    try:
        statement = cst.parse_statement(computation.strip())
    except cst.ParserSyntaxError:
        return None
    small = statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
    assign = small[0] if len(small) == 1 else None
    expr = assign.value if isinstance(assign, cst.Assign | cst.AnnAssign) else None
    return None if expr is None else _evaluated(expr, {**names, **_followed(tree, names)})


def _evaluated(expr: cst.BaseExpression, names: dict[str, object]) -> object:
    """``expr``'s value with ``names`` bound (a name bound to ``None`` is not known), or ``None`` (also for a power
    or shift by more than :data:`~kernelopt.tunables.arithmetic.POWER_MOST`, the one evaluator's bound). Any Python
    value, not only integer arithmetic (:func:`kernelopt.tunables.arithmetic.integer_value`): a launch setting's
    ``128 if num_warps == 4 else 256``, ``int(nw / 2) * 64`` and ``abs(nw) * 32`` are read here, and their values
    feed n64's and n69's rules; the integer evaluator would leave them unknown."""
    if any(names.get(n) is None and n not in _CALLS for n in _reads(expr)) or any(
        isinstance(n, cst.Attribute | cst.Subscript | cst.Lambda) or _unbounded_power(n, names) for n in walk(expr)
    ):
        return None
    try:
        code = compile(f"({_CODE.code_for_node(expr)})", "<computed>", "eval")
        return eval(code, {"__builtins__": {}, **_CALLS}, dict(names))
    except Exception:  # a computation that does not evaluate here is one no rule can check
        return None


def _unbounded_power(node: cst.CSTNode, names: dict[str, object]) -> bool:
    """A ``**`` or ``<<`` whose right side is not worked out as a number of at most :data:`POWER_MOST` either way, or
    whose left side is not one of at most ``2 ** POWER_MOST``: with the exponent alone bounded,
    ``((((nw ** 64) ** 64) ** 64) ** 64) ** 64`` took 14.5 s and 0.9 GB to read, and one level more about 16 GB
    (late16's l4)."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power | cst.LeftShift)):
        return False
    right = _evaluated(node.right, names)
    if not (is_number(right) and abs(right) <= POWER_MOST):
        return True
    left = _evaluated(node.left, names)
    return not (is_number(left) and abs(left) <= 2**POWER_MOST)


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
    tree = _parse(source)
    out = []
    for option, value in moved.items():
        was = current.get(option)
        knob = next((t for t in tunables if t.name == option and t.kind is not TunableKind.COMPUTED_SETTING), None)
        if knob is None:
            continue
        names = _bound_by(knob, tree)
        for t in _readers(tunables, tree, [option]):
            if not t.covers or all(c.held for c in t.covers) or t.computed is None:
                continue
            before = _value_at(t.computed, dict.fromkeys(names, was), tree)
            after = _value_at(t.computed, dict.fromkeys(names, value), tree)
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
