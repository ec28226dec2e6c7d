"""A module-level cache of compiled kernels keyed by less than a tuned value (wrongkernel22, v98).

A launcher that compiles its kernel once and keeps it in a module-level dict (``_compiled[x.dtype] =
kernel.warmup(..., BLOCK=BLOCK, grid=(1,))``, the softmax tutorial's form, or ``triton.compile``'s) launches, at
every later call with the same key, the kernel compiled with the first call's values. One value for every size is
right there; a value that differs by size (a guard ``if n % 512 == 0: BLOCK = 512``, a per-bucket table) is not
unless the key names the value: a call at another size launches the first call's compile, its grid counted with
the other value. Triton's interpreter answers ``warmup`` with ``None``, so no run on the CPU shows it.

Beside it, the other launch no reader takes for one, said where discovery finds no knob: a kernel launched through
Triton's low-level ``JITFunction.run(..., grid=..., warmup=False)`` (:func:`unread_launch_note`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import libcst as cst

from kernelopt.tunables.blocks import dotted, is_jit, typed, walk
from kernelopt.tunables.syntax import parsed


@dataclass(frozen=True)
class CachedCompile:
    """A compiled kernel stored in a module-level dict: the dict's name, the key's source text, the names the key
    reads, and the names (and keywords) the compile is given."""

    cache: str
    key: str
    key_names: frozenset[str]
    given: frozenset[str]
    kernel: str = ""  # the kernel compiled (``bias_gelu_kernel`` of ``bias_gelu_kernel.warmup(...)``)
    settings: tuple[str, ...] = ()  # the compile's keywords, its grid left out, as written (``BLOCK_SIZE=BLOCK_SIZE``)
    unkeyed: tuple[str, ...] = ()  # those keywords the key names not (neither the keyword nor a name its value reads)


def _names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(node) if isinstance(n, cst.Name)}


def _compile_call(node: cst.CSTNode) -> cst.Call | None:
    """``kernel.warmup(...)`` or ``triton.compile(...)`` (not ``torch.compile``'s or ``re.compile``'s); else
    ``None``."""
    if not isinstance(node, cst.Call):
        return None
    name = dotted(node.func)
    return node if name.endswith(".warmup") or name in ("triton.compile", "triton.compiler.compile") else None


def warmed_kernels(fn: cst.CSTNode) -> dict[str, cst.Call]:
    """The ``kernel.warmup(...)`` calls ``fn`` stores, by where it stores them: a dict's name (``_compiled[key] =
    kernel.warmup(...)``, launched ``_compiled[key][grid](...)``) or a local's (``k = kernel.warmup(...)``, launched
    ``k[grid](...)``); a name given two different compiles is left out."""
    out: dict[str, cst.Call] = {}
    seen: set[str] = set()
    for node in typed(fn, cst.Assign):
        call = _compile_call(node.value)
        if call is None or not dotted(call.func).endswith(".warmup"):
            continue
        for target in node.targets:
            store = target.target
            name = dotted(store.value) if isinstance(store, cst.Subscript) else dotted(store)
            if name and name in seen and out.get(name) is not call:
                out.pop(name, None)
            elif name:
                out[name] = call
            seen.add(name)
    return out


def cached_compiles(source: str) -> list[CachedCompile]:
    """Each compiled kernel ``source`` stores in a dict bound at module level (``_compiled[key] = k.warmup(...)``,
    or a tuple holding a local bound to one, ``kernels[key] = (kernel, n_programs)``); empty where it parses not."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return []
    caches = {
        t.target.value
        for s in module.body
        if isinstance(s, cst.SimpleStatementLine)
        for a in s.body
        if isinstance(a, cst.Assign | cst.AnnAssign)
        for t in (a.targets if isinstance(a, cst.Assign) else [cst.AssignTarget(a.target)])
        if isinstance(t.target, cst.Name)
    }
    out: list[CachedCompile] = []
    for fn in (n for n in walk(module) if isinstance(n, cst.FunctionDef)):
        compiled: dict[str, cst.Call] = {}
        for node in walk(fn.body):
            if not isinstance(node, cst.Assign):
                continue
            calls = [c for n in walk(node.value) if (c := _compile_call(n)) is not None]
            for target in node.targets:
                if isinstance(target.target, cst.Name) and calls:
                    compiled[target.target.value] = calls[0]
            calls += [compiled[n] for n in _names(node.value) if n in compiled]
            for target in node.targets:
                store = target.target
                if not (isinstance(store, cst.Subscript) and dotted(store.value) in caches and calls):
                    continue
                key = ", ".join(cst.Module([]).code_for_node(e.slice) for e in store.slice)
                read = {n for e in store.slice for n in _names(e)}
                given = {k for c in calls for a in c.args for k in ({a.keyword.value} if a.keyword else set())}
                given |= {n for c in calls for a in c.args for n in _names(a.value)}
                compiled_by = calls[0]
                kernel = dotted(compiled_by.func).removesuffix(".warmup") if _warmup(compiled_by) else ""
                keywords = [a for a in compiled_by.args if a.keyword is not None and a.keyword.value != "grid"]
                settings = tuple(f"{a.keyword.value}={cst.Module([]).code_for_node(a.value)}" for a in keywords)
                unkeyed = tuple(a.keyword.value for a in keywords if not ({a.keyword.value} | _names(a.value)) & read)
                out.append(
                    CachedCompile(
                        dotted(store.value), key, frozenset(read), frozenset(given), kernel, settings, unkeyed
                    )
                )
    return out


def _warmup(call: cst.Call) -> bool:
    return dotted(call.func).endswith(".warmup")


def cached_launch_note(source: str) -> str | None:
    """Why discovery finds no knob in a launch from a cache of compiles (wrongkernel22's v98, leftovers22 l18), why it
    stays so, and what to change; ``None`` where ``source`` keeps no such cache.

    Decided (discovery23 d32): not tuned. A tuned value is safe in such a cache only where the key names every
    setting it moves: a value by size (a table, a guard: what ``tune`` writes where the entries' bests differ) under
    a key that does not name it runs the first call's compile at every later size of the same key, its grid counted
    with the other value (v98; :func:`cache_refusal` refuses writing that). Where the key names them all, the tuned
    values get their own compiles, but the launch is of a compiled kernel (``_compiled[key][grid](...)``), which
    no reader takes for a launch, its settings given to ``warmup``; and Triton's interpreter answers ``warmup`` with
    ``None``, so no candidate could be checked on the CPU. The line says both, and which case the key is. Launched
    plainly, Triton keeps one compile for each value of its settings itself: the cache is not needed for a tuned
    value to run right at every size."""
    cached = [c for c in cached_compiles(source) if c.kernel]
    if not cached:
        return None
    c = cached[0]
    settings = ", ".join(c.settings)
    keyed = (
        f"and its key ({c.key}) does not name {' or '.join(c.unkeyed)}: a value tuned by a size the key does not "
        "read would run the first call's compile at every later call of the same key, its grid counted with another "
        "value"
        if c.unkeyed
        else f"though its key ({c.key}) names every setting it is given (tuned values would get compiles of their own)"
    )
    return (
        f"{c.kernel} is launched from a compile kept in {c.cache}[{c.key}] ({c.kernel}.warmup(..., {settings})): its "
        "settings are not tuned, since a launch of a compiled kernel is no launch discovery reads (Triton's "
        f"interpreter answers warmup with None: no candidate could be checked on the CPU), {keyed}; launch it as "
        f"{c.kernel}[grid](..., {settings}) (Triton keeps one compile for each value itself), and they are knobs"
    )


def unread_launch_note(source: str) -> str | None:
    """Why discovery finds no knob in a file whose kernel is launched in a form no reader takes for a launch: from a
    cache of compiles (:func:`cached_launch_note`), or through Triton's low-level ``JITFunction.run``
    (:func:`jit_run_note`); ``None`` for neither."""
    return cached_launch_note(source) or jit_run_note(source)


def jit_run_note(source: str) -> str | None:
    """Why discovery finds no knob in a launch through Triton's low-level ``JITFunction.run`` (``_fp8_rows.run(x, q,
    N, BLOCK=512, num_warps=4, grid=(M,), warmup=False)``: its grid and settings arguments of one call, which no
    reader takes for a launch, where ``tunables`` said only "no tunable found", breaker30's seen line, late56 l262),
    and what to change; ``None`` where no ``@triton.jit`` kernel of ``source`` is called ``.run(..., grid=...)``."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return None
    kernels = {fn.name.value for fn in typed(module, cst.FunctionDef) if is_jit(fn)}
    for call in typed(module, cst.Call):
        func = call.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "run" and dotted(func.value) in kernels):
            continue
        keywords = [a.keyword.value for a in call.args if a.keyword is not None]
        if "grid" not in keywords:
            continue
        kernel = dotted(func.value)
        settings = ", ".join(f"{k}=..." for k in keywords if k not in ("grid", "warmup"))
        given = f"..., {settings}" if settings else "..."
        return (
            f"{kernel} is launched through Triton's low-level {kernel}.run({given}, grid=...), which discovery does "
            "not read as a launch (tune writes a launch's settings where the kernel is launched as "
            f"{kernel}[grid](...)); launch it as {kernel}[grid]({given}), and its settings are knobs"
        )
    return None


def _set_counts(source: str) -> Counter[str]:
    """How many assignments set each name, and how many conditional expressions each keyword is given."""
    try:
        module = parsed(source).module
    except cst.ParserSyntaxError:
        return Counter()
    counts: Counter[str] = Counter()
    for node in walk(module):
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            counts[node.target.value] += 1
        elif isinstance(node, cst.Arg) and node.keyword is not None and isinstance(node.value, cst.IfExp):
            counts[node.keyword.value] += 1
    return counts


def cache_refusal(old: str, written: str) -> str | None:
    """Why ``written`` (the text a tuning edit would write over ``old``) cannot be written: a value it sets by size
    (a name set more often than ``old`` sets it, or a keyword given a conditional expression) is given to a compile
    kept in a module-level cache whose key does not name it; ``None`` where no such cache is written."""
    cached = cached_compiles(written)
    if not cached:
        return None
    before, after = _set_counts(old), _set_counts(written)
    for c in cached:
        for name in sorted(c.given - c.key_names):
            if after[name] > before[name]:
                return (
                    f"{name} would take its value by size, and {c.cache}[{c.key}] keeps the kernel compiled with the "
                    f"first call's {name} (a key that does not name it): a call at another size would launch that "
                    "compile, its grid counted with another value: not written"
                )
    return None
