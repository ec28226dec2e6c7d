"""Which of Triton's decorators a kernel's decorator is: the one reading for every reader of a kernel file.

A decorator is Triton's ``jit`` / ``autotune`` / ``heuristics`` by the last part of its dotted name
(``@triton.jit``, ``@jit``, ``@triton.autotune(...)``), or through a module-level alias of one: vLLM binds
``triton_jit_decorator`` to ``triton.jit`` (``vllm.triton_utils``) and decorates its kernels with it, which left
``merge_attn_states_kernel`` no kernel at all (breaker21's q2: "no tunable found"). A reader that judges a whole text
by decorator names alone (the guard) reads it through :func:`plain_decorators`, each alias written as its word padded
to the alias' length (every offset and line kept), and its verdict is written back with :func:`aliased`.

A project's own autotune decorator is one too: a module-level function that builds the autotuner, by making an
instance of a class of the file that subclasses Triton's ``Autotuner`` (flash-linear-attention's
``fla_cache_autotune(configs=[...], key=[...])`` returns a decorator making its ``CachedAutotuner``, which looks each
key up in a JSON file before Triton benchmarks) or by calling ``autotune`` itself (a wrapper). Read as a name, it left
fla's 24-config list of ``kda_gate_fwd_kernel`` unlisted and its launch options read as the launch's defaults
(breaker22's p1).
"""

from __future__ import annotations

import re

import libcst as cst

from kernelopt.tunables.blocks import dotted, module_statements, walk
from kernelopt.tunables.signature import params_of

#: Triton's decorators of a kernel, by the last part of their dotted name.
WORDS = ("jit", "autotune", "heuristics")


def decorator_aliases(module: cst.Module) -> dict[str, str]:
    """Module-level names bound once to one of Triton's decorators (``triton_jit_decorator = triton.jit``), by the
    word they stand for."""
    bound: dict[str, list[str]] = {}
    for stmt in module_statements(module.body):
        for small in stmt.body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                continue
            target = small.targets[0].target
            if isinstance(target, cst.Name):
                bound.setdefault(target.value, []).append(dotted(small.value).split(".")[-1])
    aliases = {name: words[0] for name, words in bound.items() if len(words) == 1 and words[0] in WORDS}
    return {**_autotune_factories(module), **aliases}


def _autotune_factories(module: cst.Module) -> dict[str, str]:
    """Module-level functions (undecorated, defined once) that build an autotuner: their body makes an instance of a
    class of the module subclassing ``Autotuner``, or calls ``autotune``; each by the word ``autotune``."""
    classes = {
        c.name.value
        for c in module.body
        if isinstance(c, cst.ClassDef) and any(dotted(b.value).split(".")[-1] == "Autotuner" for b in c.bases)
    }
    defs: dict[str, list[cst.FunctionDef]] = {}
    for node in module.body:
        if isinstance(node, cst.FunctionDef):
            defs.setdefault(node.name.value, []).append(node)
    out = {}
    for name, nodes in defs.items():
        if len(nodes) != 1 or nodes[0].decorators or name.split(".")[-1] in WORDS:
            continue
        called = {dotted(n.func).split(".")[-1] for n in walk(nodes[0].body) if isinstance(n, cst.Call)}
        if called & (classes | {"autotune"}):
            out[name] = "autotune"
    return out


def decorator_word(decorator: cst.Decorator, aliases: dict[str, str]) -> str | None:
    """``jit`` / ``autotune`` / ``heuristics`` for a decorator that is one (by its name or an alias), else
    ``None``."""
    expr = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
    name = dotted(expr)
    if not name:
        return None
    last = name.split(".")[-1]
    return last if last in WORDS else aliases.get(name)


def _padded(alias: str, word: str) -> str:
    return word + " " * (len(alias) - len(word))


def plain_decorators(source: str) -> str | None:
    """``source`` with each decorator through an alias (:func:`decorator_aliases`) written as the word it stands for,
    padded with spaces to the alias' length (``@triton_jit_decorator`` -> ``@jit`` and 17 spaces: valid Python, every
    offset kept); ``None`` when there is none (an alias shorter than its word is left as it is) or the text does not
    parse."""
    from kernelopt.tunables.syntax import parsed

    if "@" not in source:
        return None
    try:
        aliases = decorator_aliases(parsed(source).module)
    except cst.ParserSyntaxError:
        return None
    out = source
    for alias, word in aliases.items():
        if alias.split(".")[-1] in WORDS or len(alias) < len(word):
            continue
        out = re.sub(rf"(?m)^([ \t]*)@{re.escape(alias)}(?=[(\s])", rf"\g<1>@{_padded(alias, word)}", out)
    return out if out != source else None


def aliased(text: str, source: str) -> str:
    """``text`` (read through :func:`plain_decorators` of ``source``, then edited) with each padded word written as
    the alias ``source`` decorates with again."""
    from kernelopt.tunables.syntax import parsed

    for alias, word in decorator_aliases(parsed(source).module).items():
        if alias.split(".")[-1] in WORDS or len(alias) < len(word):
            continue
        text = re.sub(rf"(?m)^([ \t]*)@{re.escape(_padded(alias, word))}(?=[(\n]|$)", rf"\g<1>@{alias}", text)
    return text


def decorator_configs(kernel: cst.FunctionDef) -> list[dict[str, int | None]] | None:
    """The configurations a kernel's decorators give it, one dict a config of its ``@triton.autotune`` list
    (``triton.Config({"GROUP_M": 4, ...})``: key -> the literal, ``None`` where not a literal), each with the
    literals of its ``@triton.heuristics`` (``"GROUP_M": lambda args: 8``) and the defaults of its signature; one
    dict when it has no list; ``None`` for a list built by code (not read here)."""
    common: dict[str, int | None] = {
        p.name.value: _integer(p.default) for p in params_of(kernel, kwonly=True) if p.default
    }
    listed: list[dict[str, int | None]] | None = None
    for decorator in kernel.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            continue
        name = dotted(call.func).split(".")[-1]
        if name == "heuristics":
            for node in walk(call):
                if isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString):
                    value = node.value.body if isinstance(node.value, cst.Lambda) else node.value
                    common[str(node.key.evaluated_value)] = _integer(value)
        elif name == "autotune":
            configs = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "configs"), None)
            if not isinstance(configs, cst.List | cst.Tuple):
                return None
            listed = []
            for element in configs.elements:
                config = element.value
                first = config.args[0].value if isinstance(config, cst.Call) and config.args else None
                if not isinstance(first, cst.Dict):
                    return None
                listed.append(
                    {
                        str(e.key.evaluated_value): _integer(e.value)
                        for e in first.elements
                        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                    }
                )
    return [{**common, **config} for config in (listed if listed is not None else [{}])]


def _integer(node: cst.CSTNode | None) -> int | None:
    return int(node.evaluated_value) if isinstance(node, cst.Integer) else None
