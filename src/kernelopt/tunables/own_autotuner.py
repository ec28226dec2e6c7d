"""Whether a project's own autotune decorator runs its kernel as Triton's ``Autotuner`` does, read from its source in
kernel.py (pure).

A ``@triton.heuristics`` written under an autotuner (:mod:`kernelopt.tunables.list_pin`) holds only where every call
of the kernel reaches the heuristic through Triton's ``Autotuner.run`` / ``_bench`` (``self.fn.run(*args, **kwargs,
**config.all_kwargs())``) and no hook is handed a config's own values. flash-linear-attention's ``fla_cache_autotune``
returns a decorator making its ``CachedAutotuner(fn, fn.arg_names, configs, key, ...)``, a subclass of Triton's
``Autotuner`` whose ``run`` puts a config read from a JSON file in ``self.cache`` (``triton.Config(kw, ...,
**extra)``, ``extra`` holding ``"pre_hook": None``) and returns ``super().run(*args, **kwargs)``: it does. Read as
unknown, its pick ``BT=128`` beside the head's ``D`` was lost (breaker22's p1; late53's l230 Seen line).

:func:`own_autotuner_refusal` proves it from the text or says why not, naming the class: the factory a module-level
function returning a nested decorator that hands its one argument to the class first; the class subclassing
``Autotuner`` imported from ``triton.runtime.autotuner`` (or ``triton.runtime``); no method of Triton's that runs or
benchmarks the kernel overridden (``_bench``, ``warmup``, ``check_disk_cache``, ``prune_configs``, ``do_bench``); no
reach into ``self.fn`` / ``self.base_fn`` / ``self.configs`` / ``self.best_config`` or a hook, and ``self`` handed on
or aliased nowhere; a config put in ``self.cache`` built there, no method of ``self.cache`` called; ``__init__`` handing
its callable to ``super().__init__`` first; ``run`` returning ``super().run(*args, **kwargs)`` with its own ``args``
and ``kwargs``, never rebound; a config it builds and caches carrying no ``pre_hook`` (absent, or ``None``, in a dict
it splats). Anything else is refused: fail closed.
"""

from __future__ import annotations

import libcst as cst

from kernelopt.tunables.blocks import dotted, walk

#: Triton's ``Autotuner`` methods (3.x) that run, benchmark or choose the kernel's configs; a subclass overriding one
#: is not read as Triton's.
RUNNERS = ("_bench", "warmup", "check_disk_cache", "prune_configs", "do_bench")

#: The autotuner's attributes a subclass may not touch: its callable, its list, its pick, its hooks.
HELD = ("fn", "base_fn", "configs", "best_config", "pre_hook", "post_hook", "user_defined_pre_hook")

#: ``triton.Config``'s parameters before ``pre_hook`` (Triton 3.x).
CONFIG_BEFORE_HOOK = ("kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg")

#: Where Triton's ``Autotuner`` is imported from.
HOMES = ("triton.runtime.autotuner", "triton.runtime")


def _top(module: cst.Module, kind: type, name: str) -> cst.FunctionDef | cst.ClassDef | None:
    found = [n for n in module.body if isinstance(n, kind) and n.name.value == name]  # type: ignore[attr-defined]
    return found[0] if len(found) == 1 else None


def _triton_autotuner(module: cst.Module, base: str) -> bool:
    """``base`` (a class's dotted base) names Triton's ``Autotuner``: spelled through its module, or imported from
    it by ``from triton.runtime.autotuner import Autotuner``."""
    if any(base == f"{home}.Autotuner" for home in HOMES):
        return True
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.ImportFrom) or small.module is None or dotted(small.module) not in HOMES:
                continue
            for alias in small.names if not isinstance(small.names, cst.ImportStar) else ():
                bound = alias.asname.name if alias.asname is not None else alias.name
                if dotted(alias.name) == "Autotuner" and isinstance(bound, cst.Name) and bound.value == base:
                    return True
    return False


def _param_names(fn: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]


def _super_call(node: cst.CSTNode, method: str) -> cst.Call | None:
    """``node`` as ``super().<method>(...)``, else ``None``."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute) or node.func.attr.value != method:
        return None
    inner = node.func.value
    if isinstance(inner, cst.Call) and dotted(inner.func) == "super" and not inner.args:
        return node
    return None


def _bound(fn: cst.FunctionDef | cst.Module, name: str) -> list[cst.BaseExpression]:
    """The values ``name`` is assigned in ``fn`` (a function, or the whole module): ``name = value``; any other
    binding (an unpacking, an augmented assignment, a loop's or a ``with``'s target) as ``cst.Name("?")``, a value no
    caller accepts."""
    out: list[cst.BaseExpression] = []
    for node in walk(fn.body if isinstance(fn, cst.FunctionDef) else fn):
        if isinstance(node, cst.For | cst.AsName | cst.CompFor) and name in {
            n.value
            for n in walk(node.target if not isinstance(node, cst.AsName) else node.name)
            if isinstance(n, cst.Name)
        }:
            out.append(cst.Name("?"))
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name) and t.target.value == name:
                    out.append(node.value)
                elif name in {n.value for n in walk(t.target) if isinstance(n, cst.Name)} and not isinstance(
                    t.target, cst.Subscript | cst.Attribute
                ):
                    out.append(cst.Name("?"))
        elif isinstance(node, cst.AugAssign | cst.AnnAssign | cst.NamedExpr) and dotted(node.target) == name:
            out.append(cst.Name("?"))
    return out


def _hookless_dict(expr: cst.BaseExpression) -> bool:
    """``expr`` is a dict literal (or ``a if c else b`` of two) whose ``pre_hook``, if named, is ``None``."""
    if isinstance(expr, cst.IfExp):
        return _hookless_dict(expr.body) and _hookless_dict(expr.orelse)
    if not isinstance(expr, cst.Dict):
        return False
    for e in expr.elements:
        if not isinstance(e, cst.DictElement) or not isinstance(e.key, cst.SimpleString):
            return False
        if e.key.evaluated_value == "pre_hook" and dotted(e.value) != "None":
            return False
    return True


def _hookless_name(fn: cst.FunctionDef | cst.Module, name: str) -> bool:
    """``name`` is bound in ``fn`` (a function, or the module's top level) only to dicts that set no ``pre_hook``
    (:func:`_hookless_dict`), at least once, and never written into (``name[...] = ``, ``name.update(...)``)."""
    values = _bound(fn, name)
    return bool(values) and all(_hookless_dict(v) for v in values) and _unwritten(fn, name)


def hookless_args(call: cst.Call, scope: cst.FunctionDef | cst.Module, params: list[str]) -> bool:
    """``call`` (a ``Config(...)``, an autotuner's construction or an autotune decorator) hands no ``pre_hook``:
    none named or ``None``; no ``*`` splat; each ``**`` splat a name bound in ``scope`` only to dicts setting none
    (:func:`_hookless_name`); and no more positional arguments than ``params``, the callee's parameters before
    ``pre_hook`` (all of them where it has none)."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) > len(params):
        return False
    for arg in call.args:
        if arg.star == "*":
            return False
        if arg.star == "**" and not (isinstance(arg.value, cst.Name) and _hookless_name(scope, arg.value.value)):
            return False
        if arg.keyword is not None and arg.keyword.value == "pre_hook" and dotted(arg.value) != "None":
            return False
    return True


def _class_refusal(module: cst.Module, cls: cst.ClassDef) -> str | None:
    name = cls.name.value
    bases = [dotted(b.value) for b in cls.bases]
    if len(bases) != 1 or not _triton_autotuner(module, bases[0]) or cls.keywords or cls.decorators:
        return f"{name} is not a plain subclass of Triton's Autotuner (triton.runtime.autotuner)"
    methods: dict[str, cst.FunctionDef] = {}
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef):
            if stmt.name.value in methods:
                return f"{name} defines {stmt.name.value} twice"
            methods[stmt.name.value] = stmt
        elif not isinstance(stmt, cst.SimpleStatementLine) or not all(
            isinstance(s, cst.Expr | cst.Pass) for s in stmt.body
        ):
            return f"{name}'s body holds more than methods and a docstring"
    if over := sorted(set(methods) & set(RUNNERS)):
        return f"{name} overrides Autotuner.{over[0]}, which runs or benchmarks the kernel"
    for node in walk(cls.body):
        if isinstance(node, cst.Attribute) and dotted(node.value) == "self" and node.attr.value in HELD:
            return f"{name} reaches self.{node.attr.value} itself"
    for method in methods.values():
        held = [n.value for n in walk(method.body) if isinstance(n, cst.Attribute) and dotted(n.value) == "self"]
        bare = [n for n in walk(method.body) if isinstance(n, cst.Name) and n.value == "self"]
        if len(bare) != len(held):  # self handed on or aliased: what reaches it is not read here
            return f"{name}.{method.name.value} hands self on (or aliases it)"
        if why := _cached_unbuilt(method):
            return f"{name}.{method.name.value} {why}"
    for method in methods.values():
        for node in walk(method.body):
            built = isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "Config"
            if built and not hookless_args(node, method, list(CONFIG_BEFORE_HOOK)):  # type: ignore[arg-type]
                return f"{name} builds a config whose pre_hook is not None (or not read)"
    init, run = methods.get("__init__"), methods.get("run")
    if init is not None and (why := _init_refusal(init)):
        return f"{name}.__init__ {why}"
    if run is not None and (why := _run_refusal(run)):
        return f"{name}.run {why}"
    return None


def _cached_unbuilt(method: cst.FunctionDef) -> str | None:
    """Why a config ``method`` puts in ``self.cache`` may carry a hook, else ``None``: each one a ``Config(...)``
    built there (checked by :func:`hookless_args`), or a name bound once there to one."""
    for node in walk(method.body):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else []
        if not any(isinstance(t, cst.Subscript) and dotted(t.value) == "self.cache" for t in targets):
            continue
        assert isinstance(node, cst.Assign)
        values = _bound(method, node.value.value) if isinstance(node.value, cst.Name) else [node.value]
        built = len(values) == 1 and isinstance(values[0], cst.Call)
        if not built or dotted(values[0].func).split(".")[-1] != "Config":  # type: ignore[attr-defined]
            return "puts in self.cache a config it does not build"
    for node in walk(method.body):
        if isinstance(node, cst.Attribute) and dotted(node) == "self.cache" and _cache_method(method, node):
            return "calls a method of self.cache"
    return None


def _cache_method(method: cst.FunctionDef, cache: cst.Attribute) -> bool:
    """``self.cache`` is read as ``self.cache.<name>`` somewhere in ``method`` (``update``, ``setdefault``, ...)."""
    return any(isinstance(n, cst.Attribute) and n.value is cache for n in walk(method.body))


def _init_refusal(init: cst.FunctionDef) -> str | None:
    """Why ``__init__`` may hand Triton's ``Autotuner.__init__`` another callable or a hook, else ``None``: it must
    call ``super().__init__`` once, its callable first, at most the six arguments before ``pre_hook`` by position, no
    ``pre_hook`` but ``None`` by name, and splat only its own ``**kwargs``, never rebound or written into."""
    params = _param_names(init)
    double = init.params.star_kwarg.name.value if init.params.star_kwarg is not None else None
    calls = [c for n in walk(init.body) if (c := _super_call(n, "__init__")) is not None]
    first = calls[0].args[0] if len(calls) == 1 and calls[0].args else None
    if len(params) < 2 or first is None or first.star or dotted(first.value) != params[1] or _bound(init, params[1]):
        return "does not hand its callable to Autotuner.__init__ first"
    splats = [a for a in calls[0].args if a.star]
    rebound = double is not None and (_bound(init, double) or not _unwritten(init, double))
    if any(a.star == "*" or dotted(a.value) != double for a in splats) or rebound:
        return "splats into Autotuner.__init__ more than its own **kwargs"
    if not hookless_args(calls[0].with_changes(args=[a for a in calls[0].args if not a.star]), init, [""] * 6):
        return "hands Autotuner.__init__ a pre_hook"
    return None


def _unwritten(fn: cst.FunctionDef | cst.Module, name: str) -> bool:
    """No ``name[...] = ...`` and no attribute of ``name`` but ``get`` read in ``fn`` (a function or the module)."""
    for node in walk(fn.body if isinstance(fn, cst.FunctionDef) else fn):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else []
        if any(isinstance(t, cst.Subscript) and dotted(t.value) == name for t in targets):
            return False
        if isinstance(node, cst.Attribute) and dotted(node.value) == name and node.attr.value != "get":
            return False
    return True


def _run_refusal(run: cst.FunctionDef) -> str | None:
    p = run.params
    star = p.star_arg.name.value if isinstance(p.star_arg, cst.Param) else None
    double = p.star_kwarg.name.value if p.star_kwarg is not None else None
    if _param_names(run) != ["self"] or p.kwonly_params or star is None or double is None:
        return "does not take (self, *args, **kwargs)"
    if _bound(run, star) or _bound(run, double):
        return f"rebinds {star} or {double}"
    for node in walk(run.body):
        targets = (
            [t.target for t in node.targets]
            if isinstance(node, cst.Assign)
            else [node.target]
            if isinstance(node, cst.AugAssign | cst.AnnAssign)
            else [node.target]
            if isinstance(node, cst.Del)
            else []
        )
        if any(isinstance(t, cst.Subscript) and dotted(t.value) in (star, double) for t in targets):
            return f"writes into {star} or {double}"
    returns = [n for n in walk(run.body) if isinstance(n, cst.Return)]
    call = _super_call(returns[0].value, "run") if len(returns) == 1 and returns[0].value is not None else None
    passed = [(a.star, dotted(a.value), a.keyword) for a in call.args] if call is not None else []
    last = run.body.body[-1]
    at_end = isinstance(last, cst.SimpleStatementLine) and last.body[0] is returns[0]
    if passed != [("*", star, None), ("**", double, None)] or not at_end:
        return f"does not end in return super().run(*{star}, **{double}), its one return"
    return None


def own_autotuner_refusal(module: cst.Module, factory: str) -> str | None:
    """``None`` where the decorator ``factory`` (a module-level function of ``module``, kernel.py) provably runs the
    kernel as Triton's ``Autotuner`` does (module docstring); else one line of why not, naming the class or the
    function."""
    fn = _top(module, cst.FunctionDef, factory)
    if not isinstance(fn, cst.FunctionDef) or fn.decorators:
        return f"{factory} is not one undecorated function of kernel.py"
    nested = {s.name.value: s for s in fn.body.body if isinstance(s, cst.FunctionDef)}
    returns = [s for s in fn.body.body if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Return)]
    value = returns[-1].body[0].value if returns else None  # type: ignore[attr-defined]
    inner = nested.get(dotted(value)) if value is not None and len(returns) == 1 else None
    if inner is None or inner.decorators or len(_param_names(inner)) != 1:
        return f"{factory} does not return a decorator of one argument defined in it"
    arg = _param_names(inner)[0]
    made = [s for s in walk(inner.body) if isinstance(s, cst.Return)]
    call = made[0].value if len(made) == 1 else None
    cls = _top(module, cst.ClassDef, dotted(call.func)) if isinstance(call, cst.Call) else None
    if not isinstance(call, cst.Call) or not isinstance(cls, cst.ClassDef):
        return f"{factory}'s decorator does not return an instance of one class of kernel.py"
    first = call.args[0] if call.args else None
    if first is None or first.star or first.keyword is not None or dotted(first.value) != arg or _bound(inner, arg):
        return f"{factory}'s decorator does not hand its kernel to {cls.name.value} first"
    hook = [a for a in call.args if a.keyword is not None and a.keyword.value == "pre_hook"]
    forwarded = bool(hook) and dotted(hook[0].value) == "pre_hook" and "pre_hook" in _param_names(fn)
    rest = call.with_changes(args=[a for a in call.args if not forwarded or a not in hook])
    if not hookless_args(rest, inner, [""] * 6):
        return f"{factory}'s decorator hands {cls.name.value} a pre_hook other than its own pre_hook argument"
    return _class_refusal(module, cls)


def factory_hook_params(module: cst.Module, factory: str) -> list[str]:
    """The parameters of ``factory`` (a function :func:`own_autotuner_refusal` accepted) before its ``pre_hook``:
    a decorator call passing more by position hands a hook."""
    fn = _top(module, cst.FunctionDef, factory)
    params = _param_names(fn) if isinstance(fn, cst.FunctionDef) else []
    return params[: params.index("pre_hook")] if "pre_hook" in params else params
