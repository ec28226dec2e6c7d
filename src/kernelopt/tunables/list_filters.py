"""The filters an autotune list's author wrote: what they say is a valid config, read from the source.

People rarely write an autotune list config by config. They build it by code and keep the configs that are
valid: ``list(filter(keep, configs))`` (Triton's fused-attention tutorial keeps ``BLOCK_M % BLOCK_N == 0``), a
comprehension with ``if`` clauses (``[triton.Config({"BLOCK_M": bm, ...}) for bm in ... for bn in ... if bm >= bn]``),
``[c for c in configs if ok(c)]``, or ``prune_configs_by={"early_config_prune": fn}``, which Triton calls with the
launch's arguments before it benchmarks. A tuning session proposes configurations the list never held, and pins the
list to one of them: the filter is gone from the candidate's source, and with one config Triton's autotuner calls no
``early_config_prune`` either. The author's filter is their statement of what is valid, so a candidate it rejects is
set aside untimed (:mod:`kernelopt.tuning.list_screen` applies these in the worker that loads the candidate).

This module reads the filters from the source (pure: no import of the user's module): each is a Python expression
over names bound to the candidate's values (``binds``: a loop variable of the comprehension to the knob its
``triton.Config`` sets, or a name to the ``triton.Config`` itself). A condition that reads a loop variable no knob
takes as it is (``BLOCK_K=bk * 2``) cannot be evaluated on a candidate, and is said (``unread``), never dropped in
silence.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import libcst as cst

from kernelopt.tunables.blocks import dotted, walk
from kernelopt.tunables.called_autotune import called_autotunes
from kernelopt.tunables.filters import constexpr_params
from kernelopt.tunables.list_model import CONFIG_OPTIONS, WHOLE_CONFIG, ListFilter, ListScreen
from kernelopt.tunables.signature import param_names, params_of
from kernelopt.tunables.syntax import parsed

#: Calls that pass a list through unchanged as far as its filters go (a part of it is no statement of validity).
_PASS_THROUGH = frozenset({"list", "tuple", "sorted", "reversed", "itertools.islice", "islice"})
#: Calls that keep what a function says of each config: ``filter(keep, ...)``; ``itertools.takewhile(keep, ...)``
#: (what it keeps holds ``keep``); ``itertools.filterfalse(drop, ...)`` (what it keeps fails ``drop``).
_KEEPERS = {
    "filter": "",
    "itertools.takewhile": "",
    "takewhile": "",
    "itertools.filterfalse": "not ",
    "filterfalse": "not ",
}
#: Calls that join lists: a config is valid when one of the parts holds it (``list(a) + list(b)`` the same).
_JOINS = frozenset({"itertools.chain", "chain"})
#: How many module-level names a list is followed through (``configs = [...]`` then ``filter(keep, configs)``).
_DEPTH = 4


def list_screen(source: str, kernel: str) -> ListScreen | None:
    """The filters of ``kernel``'s ``@triton.autotune`` list in ``source`` (module docstring); ``None`` when the
    kernel has no autotune decorator, its list no filter and no ``early_config_prune``, or ``source`` does not parse
    (discovery says that one)."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return None
    deco = _autotune_call(tree.module, kernel)
    if deco is None:
        return None
    reader = _Reader(tree.module, tree.positions)
    reader.at = _defined_at(tree.module, kernel)
    configs = _argument(deco, "configs", 0)
    if configs is not None:
        reader.read(configs, _DEPTH)
    prune = _argument(deco, "prune_configs_by", None)
    has_prune = isinstance(prune, cst.Dict) and any(
        isinstance(e, cst.DictElement) and _string(e.key) == "early_config_prune" for e in prune.elements
    )
    if prune is not None and not isinstance(prune, cst.Dict):
        has_prune = True  # a dict built elsewhere: the worker reads the autotuner's own early_config_prune
    screen = ListScreen(kernel=kernel, filters=tuple(reader.filters), prune=has_prune, unread=tuple(reader.unread))
    return None if screen.empty and not screen.unread else screen


def _autotune_call(module: cst.Module, kernel: str) -> cst.Call | None:
    """The ``triton.autotune(...)`` call of ``kernel``: its decorator's, else the module's call that applies it
    (:func:`~kernelopt.tunables.called_autotune.called_autotunes`, Transformer Engine's form)."""
    for node in walk(module):
        if isinstance(node, cst.FunctionDef) and node.name.value == kernel:
            for d in node.decorators:
                if isinstance(d.decorator, cst.Call) and dotted(d.decorator.func).split(".")[-1] == "autotune":
                    return d.decorator
    called = called_autotunes(module).get(kernel)
    return called[0] if called is not None else None


def _defined_at(module: cst.Module, kernel: str) -> int:
    """The place of the module-level ``def`` of ``kernel`` among the module's statements (after the last when it is
    nested): its decorator reads the names bound before it."""
    body = module.body
    return next((i for i, s in enumerate(body) if isinstance(s, cst.FunctionDef) and s.name.value == kernel), len(body))


def _argument(call: cst.Call, keyword: str, position: int | None) -> cst.BaseExpression | None:
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
        if arg.keyword is None and arg.star == "" and i == position:
            return arg.value
    return None


def _string(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


class _Reader:
    """Collects the filters of one list expression, following module-level names."""

    def __init__(self, module: cst.Module, positions: object) -> None:
        self.module = module
        self.positions = positions
        self.filters: list[ListFilter] = []
        self.unread: list[str] = []
        self.globals = module_names(module)
        #: The module statement a name read now is read at: it names the last assignment before it
        #: (``configs = [...]`` then ``configs = list(filter(keep, configs))``: the second reads the first).
        self.at = len(module.body)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node).strip()

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line  # type: ignore[index]

    def read(self, expr: cst.BaseExpression, depth: int) -> None:
        if isinstance(expr, cst.Name) and depth > 0:
            value, at = self.assigned(expr.value)
            if value is not None:
                outer, self.at = self.at, at
                self.read(value, depth - 1)
                self.at = outer
            if isinstance(value, cst.List) and not value.elements:  # configs = [] and a loop appending to it
                sites: list[_Site] = []
                self.appended(expr.value, self.module.body, [], [], sites)
                self.either(sites)
            return
        if isinstance(expr, cst.Call):
            name = dotted(expr.func)
            args = [a.value for a in expr.args if a.keyword is None and a.star == ""]
            if name in _PASS_THROUGH and len(args) == 1:
                self.read(args[0], depth)
            elif isinstance(expr.func, cst.Name) and (fn := self.function(name)) is not None and depth > 0:
                self.returned(fn, depth - 1)  # configs=get_configs(): the list its one return builds
            elif name in _KEEPERS and len(args) == 2:
                keep = self.code(args[0])
                if not (isinstance(args[0], cst.Name) and args[0].value == "None"):  # filter(None, ...): a config is
                    self.filters.append(  # truthy, kept (filterfalse(None, ...) would keep none: the list's own fault)
                        ListFilter(
                            text=f"{name}({keep}, ...)",
                            line=self.line(expr),
                            expression=f"{_KEEPERS[name]}({keep})(config)",
                            binds={"config": WHOLE_CONFIG},
                        )
                    )
                self.read(args[1], depth)
            elif name in _JOINS and args:
                self.joined(args, depth, f"{name}(...)")
            elif name.split(".")[0] == "itertools" or name in {"compress", "dropwhile"}:
                self.unread.append(
                    f"the autotune list's `{name}(...)` (kernel.py:{self.line(expr)}) keeps configs by more than each "
                    "config's values: it cannot be checked on a candidate"
                )
            return
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
            self.joined([expr.left, expr.right], depth, "+")
            return
        if isinstance(expr, cst.ListComp | cst.GeneratorExp):
            self.comprehension(expr, depth)

    def joined(self, parts: Sequence[cst.BaseExpression], depth: int, how: str) -> None:
        """The filters of lists joined (``itertools.chain(a, b)``, ``a + b``): one filter keeping a config when
        every filter of one part holds it; none when a part has none (its configs are no statement of what is valid
        beyond themselves)."""
        alternatives: list[str] = []
        binds: dict[str, str] = {}
        for part in parts:
            before = len(self.filters)
            self.read(part, depth)
            kept, self.filters = self.filters[before:], self.filters[:before]
            if not kept:
                return
            if any(binds.get(v, k) != k for f in kept for v, k in f.binds.items()):
                self.unread.append(f"the autotune list's parts joined by {how} bind one name to two knobs: not checked")
                return
            for f in kept:
                binds.update(f.binds)
            alternatives.append(" and ".join(f.expression for f in kept))
        if len(alternatives) == 1:
            self.filters.append(
                ListFilter(text=kept[0].text, line=kept[0].line, expression=alternatives[0], binds=binds)
            )
            return
        self.filters.append(
            ListFilter(
                text=f"the filters of its {len(alternatives)} parts joined by {how}",
                line=self.line(parts[0]),
                expression=" or ".join(f"({a})" for a in alternatives),
                binds=binds,
            )
        )

    def function(self, name: str) -> cst.FunctionDef | None:
        """The module-level function ``name`` (``None`` when there is none)."""
        return next((f for f in self.module.body if isinstance(f, cst.FunctionDef) and f.name.value == name), None)

    def returned(self, fn: cst.FunctionDef, depth: int) -> None:
        """The filters of the list ``fn`` returns from its one ``return``: a comprehension, or a name it binds to
        ``[]`` and appends to in its loops."""
        body = _block(fn.body)
        returns = [
            small.value
            for stmt in body
            if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body
            if isinstance(small, cst.Return) and small.value is not None
        ]
        if len(returns) != 1:
            return
        value = returns[0]
        if isinstance(value, cst.Name):
            sites: list[_Site] = []
            self.appended(value.value, body, [], [], sites)
            self.either(sites)
        else:
            self.read(value, depth)

    def assigned(self, name: str) -> tuple[cst.BaseExpression | None, int]:
        """The value of the last module-level ``name = ...`` before the statement read now (:attr:`at`) and that
        statement's place (``None`` when there is none): a list rebound under its own name, ``configs =
        list(filter(keep, configs))``, is the filter over the list bound before it, as Python runs it."""
        found = [
            (small.value, i)
            for i, stmt in enumerate(self.module.body[: self.at])
            if isinstance(stmt, cst.SimpleStatementLine)
            for small in stmt.body
            if isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == name
        ]
        return found[-1] if found else (None, self.at)

    def appended(
        self,
        name: str,
        stmts: Sequence[cst.CSTNode],
        targets: list[str],
        tests: list[tuple[cst.BaseExpression, str]],
        sites: list[_Site],
    ) -> None:
        """The conditions a module-level loop holds each ``name.append(triton.Config(...))`` to: the ``if`` around it
        (``not`` in its ``else``), an ``if ...: continue`` before it in its loop (Triton's tutorials and FlagGems build
        lists so), as the comprehension's ``if`` clauses."""
        tests = list(tests)
        for stmt in stmts:
            if isinstance(stmt, cst.For):
                inner = [*targets, *(n.value for n in _target_names(stmt.target))]
                self.appended(name, _block(stmt.body), inner, tests, sites)
            elif isinstance(stmt, cst.If) and _only_continue(stmt.body) and stmt.orelse is None:
                tests.append((stmt.test, f"if {self.code(stmt.test)}: continue"))  # the rest of the block: not it
            elif isinstance(stmt, cst.If):
                self.appended(name, _block(stmt.body), targets, [*tests, (stmt.test, "")], sites)
                if isinstance(stmt.orelse, cst.Else):
                    self.appended(name, _block(stmt.orelse.body), targets, [*tests, (stmt.test, "not")], sites)
                elif isinstance(stmt.orelse, cst.If):
                    self.appended(name, [stmt.orelse], targets, [*tests, (stmt.test, "not")], sites)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    call = small.value if isinstance(small, cst.Expr) else None
                    if (
                        isinstance(call, cst.Call)
                        and dotted(call.func) == f"{name}.append"
                        and len(call.args) == 1
                        and targets
                    ):
                        sites.append(_Site(_config_binds(call.args[0].value), targets, tests))

    def either(self, sites: list[_Site]) -> None:
        """The filters of a list appended to at ``sites``: one site's conditions as the comprehension's; several
        sites' as one filter, a config kept when every condition of one of them holds (a condition that cannot be
        checked on a candidate is taken to hold, and said)."""
        if len(sites) == 1:
            self.conditions(sites[0].binds, sites[0].targets, sites[0].tests)
            return
        alternatives: list[str] = []
        binds: dict[str, str] = {}
        for site in sites:
            kept, before = [], len(self.filters)
            self.conditions(site.binds, site.targets, site.tests)
            kept, self.filters = self.filters[before:], self.filters[:before]
            if any(binds.get(v, k) != k for f in kept for v, k in f.binds.items()):
                self.unread.append("the autotune list's appends bind one loop variable to two knobs: not checked")
                return
            for f in kept:
                binds.update(f.binds)
            alternatives.append(" and ".join(f.expression for f in kept) or "True")
        if sites and "True" not in alternatives:
            line = min(self.line(t) for site in sites for t, _ in site.tests) if any(s.tests for s in sites) else 0
            self.filters.append(
                ListFilter(
                    text=f"the conditions of its {len(sites)} appends",
                    line=line,
                    expression=" or ".join(f"({a})" for a in alternatives),
                    binds=binds,
                )
            )

    def conditions(
        self, binds: dict[str, str], targets: list[str], tests: Sequence[tuple[cst.BaseExpression, str]]
    ) -> None:
        """One filter for each test (``(test, how)``: ``""`` kept when true, ``"not"`` kept when false, else the text of
        an ``if ...: continue``), or a line saying why it cannot be checked on a candidate."""
        for test, how in _conjuncts(tests):
            code = self.code(test)
            text = how if how.endswith("continue") else f"if {'not ' if how else ''}{code}"
            read = _free_names(test)
            loose = sorted(v for v in read if v in targets and v not in binds)
            unknown = sorted(v for v in read if v not in targets and v not in self.globals)
            if loose or unknown:
                why = (
                    f"{', '.join(loose)}, which no knob takes as it is"
                    if loose
                    else f"{', '.join(unknown)}, which is neither a loop variable nor a name of the module"
                )
                self.unread.append(
                    f"the autotune list's `{text}` (kernel.py:{self.line(test)}) reads {why}: it cannot be checked on "
                    "a candidate"
                )
                continue
            used = {v: k for v, k in binds.items() if v in read}
            expression = f"({code})" if how == "" else f"not ({code})"
            self.filters.append(ListFilter(text=text, line=self.line(test), expression=expression, binds=used))

    def comprehension(self, comp: cst.ListComp | cst.GeneratorExp, depth: int) -> None:
        fors = list(_for_clauses(comp.for_in))
        targets = [n.value for f in fors for n in _target_names(f.target)]
        tests = [i.test for f in fors for i in f.ifs]
        elt = comp.elt
        if isinstance(elt, cst.Name) and len(fors) == 1 and targets == [elt.value]:
            binds = {elt.value: WHOLE_CONFIG}
            self.read(fors[0].iter, depth)  # [c for c in filter(keep, configs) if ...]
        else:
            binds = _config_binds(elt)
        self.conditions(binds, targets, [(test, "") for test in tests])


def _conjuncts(tests: Sequence[tuple[cst.BaseExpression, str]]) -> Iterator[tuple[cst.BaseExpression, str]]:
    """Each test kept when true split at its ``and``s (each part a filter of its own, so a part that cannot be checked
    leaves the others); the others as they are."""
    for test, how in tests:
        if how == "" and isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            yield from _conjuncts([(test.left, ""), (test.right, "")])
        else:
            yield test, how


def _free_names(expr: cst.CSTNode) -> set[str]:
    """The names ``expr`` reads from outside it: not an attribute's, a keyword's, a lambda's or a comprehension's."""
    bound: set[int] = set()
    for node in walk(expr):
        if isinstance(node, cst.Attribute):
            bound.add(id(node.attr))
        elif isinstance(node, cst.Arg) and node.keyword is not None:
            bound.add(id(node.keyword))
        elif isinstance(node, cst.Lambda):
            bound.update(id(n) for p in params_of(node) for n in walk(p) if isinstance(n, cst.Name))
        elif isinstance(node, cst.CompFor):
            bound.update(id(n) for n in _target_names(node.target))
    inner = {n.value for n in walk(expr) if isinstance(n, cst.Name) and id(n) in bound}
    return {n.value for n in walk(expr) if isinstance(n, cst.Name) and id(n) not in bound and n.value not in inner}


def module_names(module: cst.Module) -> frozenset[str]:
    """The names a module binds at its top level (functions, classes, assignments, imports, loop variables) and
    Python's builtins: what an expression evaluated in its namespace may read."""
    names = set(dir(builtins))
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.For):
            names.update(n.value for n in _target_names(stmt.target))
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    names.update(n.value for t in small.targets for n in _target_names(t.target))
                elif isinstance(small, cst.AnnAssign):
                    names.update(n.value for n in _target_names(small.target))
                elif isinstance(small, cst.Import | cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        names.add(dotted(bound).split(".")[0])  # type: ignore[arg-type]
    return frozenset(names)


class _Site(NamedTuple):
    """One ``configs.append(triton.Config(...))``: its loop variables bound to knobs, the loops' variables, the
    conditions it sits under (``(test, how)`` as :meth:`_Reader.conditions` reads them)."""

    binds: dict[str, str]
    targets: list[str]
    tests: list[tuple[cst.BaseExpression, str]]


def _block(body: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return body.body if isinstance(body, cst.IndentedBlock) else [body]


def _only_continue(body: cst.BaseSuite) -> bool:
    stmts = _block(body)
    return (
        len(stmts) == 1
        and isinstance(stmts[0], cst.SimpleStatementLine)
        and all(isinstance(small, cst.Continue) for small in stmts[0].body)
    )


def _for_clauses(first: cst.CompFor) -> Iterator[cst.CompFor]:
    here: cst.CompFor | None = first
    while here is not None:
        yield here
        here = here.inner_for_in


def _target_names(target: cst.BaseAssignTargetExpression) -> list[cst.Name]:
    return [n for n in walk(target) if isinstance(n, cst.Name)]


def _config_binds(elt: cst.BaseExpression) -> dict[str, str]:
    """A ``triton.Config({"BLOCK_M": bm, ...}, num_warps=w)`` element: each bare name it passes -> the knob."""
    if not isinstance(elt, cst.Call) or dotted(elt.func).split(".")[-1] != "Config":
        return {}
    out: dict[str, str] = {}
    kwargs = _argument(elt, "kwargs", 0)
    if isinstance(kwargs, cst.Dict):
        for e in kwargs.elements:
            key = _string(e.key) if isinstance(e, cst.DictElement) else None
            if key is not None and isinstance(e.value, cst.Name):
                out.setdefault(e.value.value, key)
    elif isinstance(kwargs, cst.Call) and dotted(kwargs.func) == "dict":
        for a in kwargs.args:
            if a.keyword is not None and isinstance(a.value, cst.Name):
                out.setdefault(a.value.value, a.keyword.value)
    for a in elt.args:
        if a.keyword is not None and a.keyword.value in CONFIG_OPTIONS and isinstance(a.value, cst.Name):
            out.setdefault(a.value.value, a.keyword.value)
    return out


def size_asserts(source: str, kernel: str, knobs: set[str]) -> list[str]:
    """:func:`size_assert_reads`' conditions, as written."""
    return [text for text, _ in size_assert_reads(source, kernel, knobs)]


def size_assert_reads(source: str, kernel: str, knobs: set[str]) -> list[tuple[str, frozenset[str]]]:
    """The ``tl.static_assert`` conditions of ``kernel``'s body, and of the module's functions it calls (a
    ``@triton.jit`` helper, read through the arguments the call passes), that read one of ``knobs`` beside another
    ``tl.constexpr`` parameter (``BLOCK_N <= HEAD_DIM``): a config may pass them at the sizes a session checks and
    fail them at another size the original list handled, where Triton's autotuner skips it
    (``CompileTimeAssertionFailure``) and runs another of its configs; empty when there are none. A helper's
    condition is named with it (``BLOCK <= N in _fits``; newuser9 n49: an assert in a helper was not read, and a
    tuned list ``[32, 1024]`` replaced ``[16, 32]`` whole, no config left at rows of 16 to 31). Each beside the
    kernel's parameters it reads that are not ``knobs`` (``HEAD_DIM``): what the autotuner must re-pick by."""
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return []
    functions = {n.name.value: n for n in walk(tree.module) if isinstance(n, cst.FunctionDef)}
    out: list[tuple[str, frozenset[str]]] = []

    def read_in(fn: cst.FunctionDef, names: dict[str, set[str]], where: str, depth: int) -> None:
        """The asserts of ``fn``, its parameter ``p`` standing for the kernel's names ``names[p]``."""
        for call in walk(fn.body):
            if not isinstance(call, cst.Call):
                continue
            callee = dotted(call.func)
            if callee.split(".")[-1] == "static_assert" and call.args:
                read = set().union(
                    *(names.get(n.value, set()) for n in walk(call.args[0].value) if isinstance(n, cst.Name))
                )
                if read & knobs and (read & params) - knobs:
                    text = tree.module.code_for_node(call.args[0].value).strip()
                    out.append((f"{text} in {where}" if fn is not root else text, frozenset((read & params) - knobs)))
            elif callee in functions and depth < 3:
                helper = functions[callee]
                passed: dict[str, set[str]] = {}
                positional = [a for a in call.args if a.keyword is None and not a.star]
                for param, arg in zip(params_of(helper), positional, strict=False):
                    passed[param.name.value] = _read_names(arg.value, names)
                for arg in call.args:
                    if arg.keyword is not None:
                        passed[arg.keyword.value] = _read_names(arg.value, names)
                read_in(helper, passed, callee, depth + 1)

    root = functions.get(kernel)
    if root is None:
        return out
    params = constexpr_params(root)
    read_in(root, {name: {name} for name in param_names(root)}, kernel, 0)
    return out


def _read_names(expr: cst.BaseExpression, names: dict[str, set[str]]) -> set[str]:
    """The kernel's names an argument expression reads, through ``names`` (a helper's parameters)."""
    return set().union(*(names.get(n.value, set()) for n in walk(expr) if isinstance(n, cst.Name)))
