"""A pick of an autotune list set under the sizes checked, where a decorator's ``configs=`` has no launch beside it
to hold a bound: a ``@triton.heuristics`` placed right under the kernel's ``@triton.autotune`` (pure).

``tune`` pins an autotune list to its pick (a list of one config, which Triton runs unbenched at every size). Where the
pick raises a tile beside a size of the problem (fla's mean pooling: ``BD=32`` over ``[BT, BD]`` tiles beside the
head's ``D``), the sizes the ``SHAPES`` entries ran bound what the session compiled (late44's l140), and a pinned list
has no launch to set that bound at: late52's l220 refused such a pin (six trial picks lost, late53). The autotuner
calls the kernel's inner callable with each config's values as keywords, and a heuristic under it rewrites them per
call (``Heuristics.run``: ``kwargs[name] = fn(args)``, the config's own value among ``args``); the grid, read after,
sees the value the heuristic set. :func:`heuristic_pin` keeps the user's list and adds::

    @triton.autotune(configs=[...the user's list...], key=[...])
    @triton.heuristics({
        "BD": lambda args: 32 if args["D"] <= 64 else args["BD"],
        "num_warps": lambda args: 4 if args["D"] <= 64 else args["num_warps"],
    })
    @triton.jit

Within the bound every config of the list runs the pick (the autotuner times copies of one kernel there, its first
call at a key as before); past it each config runs its own values, and the autotuner picks among them as the user's
list did: the original's behaviour, not the least config of the list (a pin of that would drop the configs the
autotuner chose past the entries). A setting every config of the list already holds at the pick's value is left to
the list. No text, and why, where the form cannot hold the pick: a config with a ``pre_hook`` (the autotuner calls
it with the config's values, not the heuristic's), a setting some config leaves unset (its fallback would read no
value), a heuristic of the kernel setting one of the names already, a bound reading a name the kernel is not passed
(a parameter with a default, or none), an autotuner handed a ``pre_hook`` (called with the config's values too;
late55 l251), or a decorator stack this reader does not know (a project's own autotuner not proved to run the kernel
as Triton's does, :mod:`~kernelopt.tunables.own_autotuner`: FLA's ``CachedAutotuner`` is, late55 l250; a decorator
between it and ``jit`` that is not Triton's, a file with no ``import triton`` to spell the heuristic by),
or a host reading the kernel's pick back (``kernel.best_config``: the config's own values, not the heuristic's, so
Mamba-2's backward would sum partials by a block the kernel did not run; review29 r96).

Read back (:func:`refuse_overridden`, discovery's), a config value the heuristic sets is no knob of the list: a
candidate moving it would be timed at the heuristic's value where its test holds. The heuristic's own value is the
knob (discovery's ``list_pick``, late55 l252): a retune moves it in place, its bound and the list's fallback kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import libcst as cst

from kernelopt.tunables.analysis import analyze
from kernelopt.tunables.blocks import dotted, walk
from kernelopt.tunables.decorator_words import decorator_aliases, decorator_word
from kernelopt.tunables.model import AutotuneConfig, Tunable, TunableKind, Value
from kernelopt.tunables.own_autotuner import factory_hook_params, hookless_args, own_autotuner_refusal
from kernelopt.tunables.pick_readers import pick_reads
from kernelopt.tunables.signature import params_of
from kernelopt.tunables.syntax import parsed

#: Triton's launch options a config sets beside its meta-parameters, as the autotuner passes them to the kernel.
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")

#: ``triton.autotune``'s parameters before ``pre_hook`` (Triton 3.x): a decorator passing more by position hands one.
TRITON_BEFORE_HOOK = ("configs", "key", "prune_configs_by", "reset_to_zero", "restore_value")

#: One line of a written decorator at most (ruff's line length in this repository; the user's file is theirs).
LINE = 100


def _values(config: AutotuneConfig) -> dict[str, Value | None]:
    """Every value the autotuner passes the kernel for ``config``: its meta-parameters, then each option (``None``
    where the config leaves it to Triton and the autotuner passes none: ``maxnreg``)."""
    return {**config.kwargs, **{o: getattr(config, o) for o in OPTIONS}}


def pin_settings(
    pick: AutotuneConfig, configs: Sequence[AutotuneConfig]
) -> tuple[dict[str, Value], None] | tuple[None, str]:
    """The settings a heuristic sets for ``pick`` over the list ``configs`` (those some config holds at another
    value), in the pick's order; or why none can (a config with a ``pre_hook``, a setting a config or the pick leaves
    unset)."""
    if any(c.pre_hook for c in (pick, *configs)):
        return None, "a config of the list has a pre_hook, which the autotuner calls with the config's own values"
    want = _values(pick)
    held = [_values(c) for c in configs]
    out: dict[str, Value] = {}
    for name, value in want.items():
        if all(h.get(name) == value for h in held):
            continue
        unset = value is None or any(h.get(name) is None for h in held)
        if unset:
            return None, f"{name} is left unset by the pick or a config of the list, so no value falls back"
        assert value is not None
        out[name] = value
    return out, None


def _kernel_def(module: cst.Module, kernel: str) -> cst.FunctionDef | None:
    found = [n for n in walk(module) if isinstance(n, cst.FunctionDef) and n.name.value == kernel]
    return found[0] if len(found) == 1 else None


def _triton_name(module: cst.Module) -> str | None:
    """The name ``import triton`` (or ``import triton as t``) binds at the module's top, the first; ``None`` where
    the file binds none (a decorator this module writes is spelled through it)."""
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            for alias in small.names if isinstance(small, cst.Import) else ():
                bound = alias.asname.name if alias.asname is not None else alias.name
                if dotted(alias.name) == "triton" and isinstance(bound, cst.Name):
                    return bound.value
    return None


def _read_sizes(test: str) -> list[str] | None:
    """The names ``test`` reads as ``args["X"]``; ``None`` where it reads anything else."""
    expr = cst.parse_expression(test)
    subs = [n for n in walk(expr) if isinstance(n, cst.Subscript)]
    names = [n.value for n in walk(expr) if isinstance(n, cst.Name)]
    out = []
    for sub in subs:
        index = sub.slice[0].slice if len(sub.slice) == 1 else None
        key = (
            index.value.evaluated_value
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
            else None
        )
        if dotted(sub.value) != "args" or not isinstance(key, str):
            return None
        out.append(key)
    return list(dict.fromkeys(out)) if set(names) == {"args"} else None


def _entries(settings: Mapping[str, Value], test: str) -> list[str]:
    return [f'"{name}": lambda args: {value!r} if {test} else args["{name}"]' for name, value in settings.items()]


def heuristic_pin(source: str, kernel: str, settings: Mapping[str, Value], test: str) -> tuple[str | None, str]:
    """``source`` with ``settings`` set under ``test`` (over the kernel's arguments, ``args["D"] <= 64``) by a
    ``@triton.heuristics`` right under the ``@triton.autotune`` of ``kernel`` and of each kernel naming the same module
    list (a pin moves them all: :func:`~kernelopt.tunables.edit.pin_configs`), the list kept for every size past the
    bound (module docstring), and a note of where; or no text, and why."""
    if not settings:
        return None, "no setting of the pick differs from the list's"
    try:
        tree = parsed(source)
    except cst.ParserSyntaxError:
        return None, "kernel.py does not parse"
    module, pos = tree.module, tree.positions
    sizes = _read_sizes(test)
    if sizes is None:
        return None, f"the bound {test} reads more than the kernel's arguments"
    aliases = decorator_aliases(module)
    prefix = _triton_name(module)
    kernels = [kernel, *analyze(source, "kernel.py")[0].list_sharers(kernel)]
    inserts: list[tuple[int, str]] = []  # (line after which the decorator goes, its text)
    for name in kernels:
        fn = _kernel_def(module, name)
        if fn is None:
            return None, f"{name} is not one function of kernel.py"
        words = [decorator_word(d, aliases) for d in fn.decorators]
        at = [i for i, w in enumerate(words) if w == "autotune"]
        if len(at) != 1 or any(w not in ("heuristics", "jit") for w in words[at[0] + 1 :]) or words[-1] != "jit":
            return None, f"{name}'s decorators are not @autotune over Triton's @heuristics and @jit"
        deco = fn.decorators[at[0]]
        call = deco.decorator
        spelled = dotted(call.func if isinstance(call, cst.Call) else call)
        if not isinstance(call, cst.Call):
            return None, f"{name}'s autotuner ({spelled}) is not called with its list"
        own = spelled.split(".")[-1] != "autotune"
        if own and (why := own_autotuner_refusal(module, spelled)):  # breaker22's fla_cache_autotune passes (late55)
            return None, f"{name}'s autotuner is the project's own ({spelled}), not read as Triton's: {why}"
        before = factory_hook_params(module, spelled) if own else list(TRITON_BEFORE_HOOK)
        if not hookless_args(call, module, before):
            return None, f"{name}'s autotuner is handed a pre_hook, which it calls with a config's own values"
        if prefix is None:
            return None, "kernel.py binds no module name of triton (import triton) to spell a heuristic by"
        if read := pick_reads(source, name):  # the config's own values, where the heuristic ran others (review29 r96)
            return None, (
                f"the host reads {name}.best_config (line {read[0]}), which names a config's own values, not the "
                "heuristic's the kernel ran"
            )
        params = {p.name.value: p for p in params_of(fn)}
        unread = [s for s in sizes if s not in params or params[s].default is not None]
        if unread:
            return None, f"{name} is not always passed {', '.join(unread)}, which the bound reads"
        for d, w in zip(fn.decorators, words, strict=True):
            if w != "heuristics" or not isinstance(d.decorator, cst.Call) or not d.decorator.args:
                continue
            table = d.decorator.args[0].value
            keys = [
                e.key.evaluated_value
                for e in (table.elements if isinstance(table, cst.Dict) else ())
                if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            ]
            if not isinstance(table, cst.Dict):
                return None, f"a heuristic of {name} takes a table not written as a dict, whose names are not read"
            if both := sorted(set(keys) & set(settings)):
                return None, f"a heuristic of {name} sets {', '.join(both)} already"
        indent = " " * pos[deco].start.column
        one = f"{indent}@{prefix}.heuristics({{{', '.join(_entries(settings, test))}}})"
        if len(one) > LINE:
            rows = "".join(f"{indent}    {e},\n" for e in _entries(settings, test))
            one = f"{indent}@{prefix}.heuristics({{\n{rows}{indent}}})"
        inserts.append((pos[deco].end.line, one + "\n"))
    lines = source.splitlines(keepends=True)
    for line, text in sorted(inserts, reverse=True):
        lines.insert(line, text)
    said = ", ".join(f"{n}={v}" for n, v in settings.items())
    return "".join(lines), (
        f"{said} only where {test} (a @{prefix}.heuristics under {' and '.join(kernels)}'s @autotune), the autotune "
        "list elsewhere"
    )


def overridden(source: str, kernel: str) -> frozenset[str]:
    """The names a ``@triton.heuristics`` placed under ``kernel``'s ``@triton.autotune`` sets (a pick this module
    wrote, or the authors' own): the autotuner passes each config's value, and the heuristic may replace it."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return frozenset()
    fn = _kernel_def(module, kernel)
    if fn is None:
        return frozenset()
    aliases = decorator_aliases(module)
    words = [decorator_word(d, aliases) for d in fn.decorators]
    if "autotune" not in words:
        return frozenset()
    out: set[str] = set()
    for d, w in list(zip(fn.decorators, words, strict=True))[words.index("autotune") + 1 :]:
        table = d.decorator.args[0].value if w == "heuristics" and isinstance(d.decorator, cst.Call) else None
        for e in table.elements if isinstance(table, cst.Dict) else ():
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString):
                key = e.key.evaluated_value
                out.update([key] if isinstance(key, str) else [])
    return frozenset(out)


def refuse_overridden(found: Iterable[Tunable], source: str) -> None:
    """Mark each config value of an autotune list that a heuristic under the list sets (:func:`overridden`) as not
    editable (in place): a candidate moving it in the list would be timed at the heuristic's value wherever the
    heuristic replaces it (late53 l232: a retune of l230's written fla_logcumsumexp timed ``BT`` 16 and 64 of the list
    at the entries, where every config ran the heuristic's 32). So is a heuristic's value that falls back on the
    config's own (``args["num_warps"]``, read as a computed setting): a table by it has no size to go by."""
    for t in found:
        if (
            t.kind is TunableKind.HEURISTIC
            and t.editable
            and any(f"[{q}{t.name}{q}]" in (t.computed or "") for q in "\"'")
        ):
            t.refused_reason = (
                f"a heuristic of {t.kernel} that falls back on the {t.name} its autotuner's config (or its launch) "
                f"passes (read as {t.computed}): no size to tabulate it by; edit the heuristic by hand"
            )
            continue
        if t.kind is not TunableKind.AUTOTUNE_CONFIG or not t.kernel or ".configs[" not in t.key or not t.editable:
            continue
        if t.name in overridden(source, t.kernel):
            t.refused_reason = (
                f"set per call by the @triton.heuristics under {t.kernel}'s @autotune, which replaces the config's "
                f"{t.name} where its test holds: a config moved here would be timed at the heuristic's value; edit "
                "the heuristic (or remove it to tune the list)"
            )
