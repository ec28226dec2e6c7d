"""Moving knobs: resolve a requested change to legal values, splice only the literals, and check that
nothing else changed."""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import libcst as cst

from kernelopt.numeric import is_int, is_number
from kernelopt.tunables.analysis import (
    NOT_TAKEN,
    ConfigRegion,
    Site,
    SourceLiteral,
    Span,
    TunedRegion,
    analyze,
    comment_only,
    discover_source,
    evaluated,
    parse_scalar,
    read_source,
)
from kernelopt.tunables.block_tiles import HeldTiles, block_tiles, tile_entries, tile_problems
from kernelopt.tunables.blocks import is_jit, launched, named_args, walk
from kernelopt.tunables.heuristic_layout import lay_out_heuristics
from kernelopt.tunables.inline_guard import TUNED
from kernelopt.tunables.knobs import CONSTANT_SOURCE, ResourceLimits, resource_problems
from kernelopt.tunables.launch_value import size_at_launch
from kernelopt.tunables.launches import launch_key
from kernelopt.tunables.list_filters import size_assert_reads
from kernelopt.tunables.model import (
    AutotuneConfig,
    AutotuneEvaluation,
    Cover,
    EditResult,
    KnobEdit,
    Tunable,
    TunableError,
    TunableFitError,
    TunableKind,
    TunableSizesUntold,
    TunedTable,
    Value,
    argument_key,
    size_name,
)
from kernelopt.tunables.signature import param_names

_DIRECTION = re.compile(r"^\s*(x|\*|/|\+|-)\s*(\d+(?:\.\d+)?)\s*$")
_UP_WORDS = {"up", "increase", "bigger", "larger", "more", "deeper", "double", "next"}
_DOWN_WORDS = {"down", "decrease", "smaller", "fewer", "less", "shallower", "halve", "previous"}


def keep_newlines(base: str, new: str) -> str:
    """``new`` with ``base``'s line endings: in a file written with CRLF throughout, the lines an edit inserted
    (a guard, a table, a hoisted value) end in CRLF too, never a mix."""
    if "\r\n" not in base or base.count("\n") != base.count("\r\n"):
        return new
    return re.sub(r"(?<!\r)\n", "\r\n", new)


def _is_direction(requested: Value) -> bool:
    """True for a relative change (``x2``, ``+1``, ``up``), False for an absolute value."""
    if not isinstance(requested, str):
        return False
    text = requested.strip()
    return (bool(_DIRECTION.match(text)) and text[:1] in "x*/+-") or text.lower() in _UP_WORDS | _DOWN_WORDS


def step(t: Tunable, direction: Value) -> Value:
    """The value of ``t`` after moving it by ``direction``.

    ``direction`` is an absolute value (``8``, ``"8"``), an operator (``"x2"``, ``"*2"``, ``"/2"``,
    ``"+1"``, ``"-1"``) or a word (``"up"``/``"double"``/``"more"`` -> the next legal value above,
    ``"down"``/``"halve"``/``"fewer"`` -> the next legal value below).

    Raises:
        TunableError: the direction cannot be understood or leaves no legal value.
    """
    cur = t.value
    if isinstance(direction, bool) or not isinstance(direction, str):
        return direction
    text = direction.strip()
    if cur is None:
        scalar = parse_scalar(text)
        if is_number(scalar) and not text.startswith(("+", "-")):
            return scalar
        raise TunableError(
            f"{t.key}: the value is computed ({t.computed or 'unknown'}), so {direction!r} has nothing to move from",
            hint="give an absolute value; it overrides the computed one at the launch",
        )
    if isinstance(cur, bool):
        if text in ("True", "False", "true", "false"):
            return text.lower() == "true"
        raise TunableError(f"{t.key}: {direction!r} is not a boolean")
    if isinstance(cur, str):
        return text
    scalar = parse_scalar(text)
    if is_number(scalar) and not text.startswith(("+", "-")):
        return _typed(t, scalar)
    m = _DIRECTION.match(text)
    if m and isinstance(cur, int | float):
        op, num = m.group(1), float(m.group(2))
        if op == "/" and not num:  # it said "nan is not an integer"
            raise TunableError(f"{t.key}: {text!r} divides by zero")
        new = {"x": cur * num, "*": cur * num, "/": cur / num if num else math.nan, "+": cur + num, "-": cur - num}[op]
        return _typed(t, new)
    word = text.lower()
    if word in _UP_WORDS | _DOWN_WORDS and isinstance(cur, int | float):
        up = word in _UP_WORDS
        if word in ("double", "halve"):
            return _typed(t, cur * 2 if up else cur / 2)
        legal = t.legality.enumerate()
        if legal:
            options = sorted(v for v in legal if isinstance(v, int | float) and (v > cur if up else v < cur))
            if not options:
                raise TunableError(f"{t.key}: no legal value {'above' if up else 'below'} {cur}")
            return options[0] if up else options[-1]
        if t.legality.power_of_two:
            return _typed(t, cur * 2 if up else cur / 2)
        return _typed(t, cur + 1 if up else cur - 1)
    raise TunableError(
        f"{t.key}: cannot understand the change {direction!r}",
        hint="use a value (8), an operator (x2, /2, +1, -1) or up/down",
    )


def _typed(t: Tunable, value: float | int) -> Value:
    if is_int(t.value):
        if isinstance(value, float) and (math.isnan(value) or value != int(value)):
            raise TunableError(f"{t.key}: {value:g} is not an integer")
        return int(value)
    return float(value)


def _render_value(value: Value) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return repr(value)


#: ``triton.Config``'s defaults of the compile options a pinned list may leave out where the user's list did
TRITON_CONFIG_DEFAULTS = {"num_warps": 4, "num_stages": 3}


def render_configs(
    configs: list[AutotuneConfig],
    callee: str = "triton.Config",
    *,
    unwritten: frozenset[str] = frozenset(),
    carried: tuple[str, ...] = (),
) -> str:
    """An explicit literal list of ``configs`` on one line (``[triton.Config({...}, num_warps=4, ...), ...]``).
    ``unwritten``: options (``num_warps``, ``num_stages``) left out where a config holds Triton's default;
    ``carried``: arguments written after the options of every config, as the user wrote them
    (``pre_hook=_zero_out``); a config whose hook a module-level name holds (read back from a list built by code)
    names it, ``pre_hook=_set_block_shapes``."""
    items = []
    for c in configs:
        kwargs = ", ".join(f"{k!r}: {_render_value(v)}" for k, v in c.kwargs.items()).replace("'", '"')
        given = {"num_warps": c.num_warps, "num_stages": c.num_stages}
        opts = [f"{k}={v}" for k, v in given.items() if not (k in unwritten and v == TRITON_CONFIG_DEFAULTS[k])]
        if c.num_ctas != 1:
            opts.append(f"num_ctas={c.num_ctas}")
        if c.maxnreg is not None:
            opts.append(f"maxnreg={c.maxnreg}")
        opts += carried
        if c.pre_hook_name is not None and not any(a.startswith("pre_hook=") for a in carried):
            opts.append(f"pre_hook={c.pre_hook_name}")
        items.append(f"{callee}({', '.join([f'{{{kwargs}}}', *opts])})")
    return "[" + ", ".join(items) + "]"


def pin_configs(
    source: str,
    kernel: str,
    configs: list[AutotuneConfig],
    *,
    filename: str = "kernel.py",
    evaluation: AutotuneEvaluation | None = None,
) -> EditResult:
    """Replace the ``configs=`` argument of ``kernel``'s ``@triton.autotune`` with an explicit literal list.

    Pins the winner (one config), prunes (a subset) or adds neighbours (more configs); ``key``,
    ``prune_configs_by``, ``reset_to_zero``, ``restore_value`` and the hooks stay as written. The new
    list is checked: the file parses and its configs read back as ``configs``. A module list other kernels'
    decorators name too (``configs=atomic_kernel_configs_2D`` twice) is pinned in each of them: a session's
    candidates move that list in place, so every kernel reading it ran the config the pin writes (breaker23's q35).

    Raises:
        TunableError: no autotuned kernel of that name, an empty list, or a config with a pre_hook no name of the
            file defined above the list holds.
    """
    an, _, _ = analyze(source, filename, **evaluated(evaluation))
    if not configs:
        raise TunableError(f"{kernel}: an autotune list needs at least one config")
    configs = [c for i, c in enumerate(configs) if c not in configs[:i]]  # each config once: the autotuner times each
    expr = an.autotune_configs_expr(kernel)
    if expr is None:
        raise TunableError(f"{filename}: no @triton.autotune(configs=...) on a function named {kernel!r}")
    span = an.span(expr)
    written = source[span.start : span.end]
    unwritten = unwritten_options(source, expr, filename)
    carried = _carried_arguments(expr)
    hook = an.written_hook(expr, span.line) if carried == () and all(c.pre_hook for c in configs) else None
    carried = (hook,) if hook is not None else carried
    if carried is None or (
        not carried and any(c.pre_hook and not an.named_before(c.pre_hook_name, span.line) for c in configs)
    ):
        raise TunableError(
            f"{kernel}: the autotune configs carry a pre_hook kernelopt cannot carry into a pinned list (not the "
            "same in every config, or a list built by code); edit the configs by hand"
        )
    pinned = [kernel, *an.list_sharers(kernel)]
    new_source = source
    for at in sorted((an.span(an.autotune_configs_expr(k)) for k in pinned), key=lambda sp: -sp.start):
        if len(configs) > 1:  # laid out as the user's list, or one config a line where one line would pass 100
            items = [
                render_configs([c], an.config_callee(), unwritten=unwritten, carried=carried)[1:-1] for c in configs
            ]
            new_source = _with_list(new_source, at, written if isinstance(expr, cst.List) else "", items)
        else:
            text = render_configs(configs, an.config_callee(), unwritten=unwritten, carried=carried)
            new_source = new_source[: at.start] + text + new_source[at.end :]
    _, _, after = analyze(new_source, filename)
    got = {t.key: t.value for t in after if t.kernel in pinned and t.kind is TunableKind.AUTOTUNE_CONFIG}
    want = {
        f"{k}.configs[{i}].{name}": v
        for k in pinned
        for i, c in enumerate(configs)
        for name, v in c.knob_values().items()
        if not (name in unwritten and v == TRITON_CONFIG_DEFAULTS[name])
    }
    if {k: v for k, v in got.items() if k in want} != want:  # our bug: the rendered list must read back
        raise AssertionError(f"pinned configs read back differently: {got} != {want}")
    return EditResult(path=filename, edits=[], diff=edit_diff(source, new_source, filename), new_source=new_source)


def _with_list(source: str, span: Any, user_text: str, items: Sequence[str]) -> str:
    """``source`` with the list at ``span`` (its text offsets) written as ``items``, laid out as the user's list
    (``user_text``) is: one config a line when theirs is, or when one line would pass 100 characters."""
    lines = user_text.splitlines()
    line_start = source.rfind("\n", 0, span.start) + 1
    opened = source[line_start : span.start]
    if len(lines) > 2:  # the user's list is written one config a line: so is this one
        indent = lines[1][: len(lines[1]) - len(lines[1].lstrip())]
        close = lines[-1][: len(lines[-1]) - len(lines[-1].lstrip())]
        text = "[\n" + "".join(f"{indent}{item},\n" for item in items) + f"{close}]"
    elif len(opened) + sum(len(i) + 2 for i in items) > 100:  # too long for one line: one config a line
        close = opened[: len(opened) - len(opened.lstrip())]
        text = "[\n" + "".join(f"{close}    {item},\n" for item in items) + f"{close}]"
    else:
        text = "[" + ", ".join(items) + "]"
    return source[: span.start] + text + source[span.end :]


def unwritten_options(source: str, expr: cst.BaseExpression, filename: str = "kernel.py") -> frozenset[str]:
    """The compile options (``num_warps``, ``num_stages``) of :data:`TRITON_CONFIG_DEFAULTS` the user never wrote
    for the autotune list ``expr`` (its ``configs=`` argument in ``source``): a literal list's text does not name
    them; a list built by code (``warps_kernel_configs()``, a comprehension) reads them nowhere in the module's
    code (no keyword argument, no string of that name; a docstring's prose does not count). A pinned list leaves
    them out where a config holds the default: ``triton.Config({}, num_warps=16)`` is the config
    ``triton.Config({}, num_warps=16, num_stages=3)`` (Triton 3.6's ``Config.__init__`` defaults, num_warps=4 and
    num_stages=3), written as the user writes theirs (gpuleft10: attorch's warps-only configs came back with a
    ``num_stages=3`` the user never wrote)."""
    module = cst.parse_module(source)
    if isinstance(expr, cst.List):
        text = module.code_for_node(expr)
        return frozenset(k for k in TRITON_CONFIG_DEFAULTS if k not in text)
    named = {
        node.keyword.value
        for node in walk(module)
        if isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value in TRITON_CONFIG_DEFAULTS
    }
    named |= {
        value
        for node in walk(module)
        if isinstance(node, cst.SimpleString) and (value := _plain_string(node)) in TRITON_CONFIG_DEFAULTS
    }
    return frozenset(TRITON_CONFIG_DEFAULTS) - named


def distinct_configs(
    source: str, kernel: str, filename: str = "kernel.py", *, unwritten: frozenset[str] = frozenset()
) -> str:
    """``source`` with each entry of ``kernel``'s literal autotune list that repeats an earlier one left out, and
    the options of ``unwritten`` (:func:`unwritten_options`) left out of each entry where they hold Triton's
    default. A pick written into every entry of a list made that many identical configs, each timed by the
    autotuner at every new key: grouped_gemm's three literal entries beside ``NUM_SM: num_sms()`` (leftovers10),
    attorch's six ``warps_kernel_configs()`` pinned to six copies of the pick (gpuleft10: 3.6 s to check a candidate
    on the H100 against 0.07 s for the other kernels). The entry a computation keeps (``num_sms()``) differs, and
    stays."""
    an, _, _ = analyze(source, filename)
    expr = an.autotune_configs_expr(kernel)
    if not isinstance(expr, cst.List):
        return source
    written = [_code(e.value) for e in expr.elements]
    items = list(dict.fromkeys(_code(_without_defaults(e.value, unwritten)) for e in expr.elements))
    if items == written:
        return source
    span = an.span(expr)
    return _with_list(source, span, source[span.start : span.end], items)


def _without_defaults(value: cst.BaseExpression, unwritten: frozenset[str]) -> cst.BaseExpression:
    """A ``triton.Config(...)`` call without its keyword arguments of ``unwritten`` that hold their default."""
    if not isinstance(value, cst.Call) or not unwritten:
        return value
    args = [
        a
        for a in value.args
        if not (
            a.keyword is not None
            and a.keyword.value in unwritten
            and isinstance(a.value, cst.Integer)
            and a.value.evaluated_value == TRITON_CONFIG_DEFAULTS[a.keyword.value]
        )
    ]
    if len(args) == len(value.args):
        return value
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return value.with_changes(args=args)


def keep_pruned_fallback(
    source: str, pinned: str, kernel: str, *, filename: str = "kernel.py"
) -> tuple[str, str] | None:
    """``pinned`` (``source`` with ``kernel``'s autotune list pinned) with the original configs kept after the
    pinned ones, and a note, when the list is pruned by the user's ``early_config_prune`` or the kernel holds a
    ``tl.static_assert`` reading a tuned knob beside a size (:func:`~kernelopt.tunables.list_filters.size_asserts`)
    (``None`` otherwise).

    A user's prune may keep none of the pinned configs at a size ``SHAPES`` never names (a split-K list pruned to
    ``BLOCK_K * SPLIT_K <= K``: a pinned 64 leaves nothing below K = 64, where the original's 32 ran), and the
    autotuner then raises "No valid autotuner configs after pruning". With the original configs after the pinned
    ones, the prune keeps at every size at least what it kept before (issue 32, breaker5 i4); the autotuner
    picks among what it keeps, the pinned configs included. A config failing a kernel's ``tl.static_assert`` at a
    size is skipped by the autotuner there (``BLOCK_N <= HEAD_DIM``: the tutorial's 32-wide key blocks at a head
    dimension of 16); a list of tuned configs that all fail it there no longer runs, so the original configs are kept
    after them too (tuneleft9: fa2_causal's table of two configs, both ``BLOCK_N=32``, at ``HEAD_DIM=16``).
    """
    an, _, _ = analyze(source, filename)
    prune = an.autotune_argument(kernel, "prune_configs_by")
    # a prune written as a dict: pruned where it names an early_config_prune; any other value may prune
    pruned = _early_prune(an, kernel) is not None if isinstance(prune, cst.Dict) else prune is not None
    original = an.autotune_configs_expr(kernel)
    after, _, _ = analyze(pinned, filename)
    expr = after.autotune_configs_expr(kernel)
    if original is None or not isinstance(expr, cst.List):
        return None
    reads = [] if pruned else size_assert_reads(source, kernel, _config_keys(expr))
    asserts = [text for text, _ in reads]
    if not pruned and not asserts:
        return None
    have = {_code(e.value) for e in expr.elements}
    earlier = _wrapper(an, source, kernel)  # a list an earlier tune wrote: its tuned configs head it
    if isinstance(original, cst.List):
        kept = original.elements[earlier[1] if earlier is not None else 0 :]
        extra = [text for text in (_code(e.value) for e in kept) if text not in have]
    else:
        built = _code(original)  # a list built by code, kept as the user builds it
        extra = [f"*{built}" if isinstance(original, cst.ListComp) else f"*({built})"]
    if not extra:
        return None
    span, was = after.span(expr), an.span(original)
    items = [*(_code(e.value) for e in expr.elements), *extra]
    new_source = _with_list(pinned, span, source[was.start : was.end], items)
    if asserts:
        note = (
            f"{kernel}'s tl.static_assert({asserts[0]}) reads a tuned knob beside a size: a tuned config may fail "
            "it at a size SHAPES does not name, where Triton's autotuner skips it (CompileTimeAssertionFailure); "
            f"the original configs are kept after the tuned ones, so the autotuner benchmarks the {len(items)} at "
            "each new key and every size the original handled keeps a config that compiles"
        )
        # the autotuner re-picks only at a new key: a size the asserts read and the key does not is added to it
        read = sorted(set().union(*(names for _, names in reads)) - set(literal_autotune_key(source, kernel)))
        keyed = _keyed_by(new_source, kernel, read, filename) if read else None
        if keyed is not None:
            note += f" (its key given {', '.join(read)}, which the assert reads: picked again where it moves)"
        return keyed or new_source, note
    first = _tuned_first(new_source, kernel, filename, len(items) - len(extra))
    if first is not None:
        return first, (
            f"{kernel}'s autotune list is pruned by its early_config_prune, which may keep none of the tuned configs "
            "at a size SHAPES does not name: the original configs are kept after the tuned ones, and the prune is "
            f"wrapped ({_wrapper_name(kernel)}) so that the tuned config alone runs wherever the prune keeps it, and "
            "the autotuner picks among the original configs it keeps elsewhere"
        )
    note = (
        f"{kernel}'s autotune list is pruned by its early_config_prune, which may keep none of the tuned configs at "
        "a size SHAPES does not name: the original configs are kept after the tuned ones, so the tuned config is "
        f"one candidate among the {len(items)} the autotuner benchmarks at each new key, not what always runs (its "
        "prune is not written where kernelopt can wrap it: a dict of literal keys in the decorator)"
    )
    return new_source, note


#: The name of the wrapper of a kernel's ``early_config_prune`` that runs the tuned configs alone where they are kept
#: (the kernel's name without its leading underscores).
TUNED_FIRST = "_{kernel}_tuned_first"


def _keyed_by(source: str, kernel: str, names: Sequence[str], filename: str) -> str | None:
    """``source`` with ``names`` added to ``kernel``'s literal autotune ``key=[...]`` (``None`` where the key is not
    a literal list or tuple of strings). Triton's autotuner benchmarks its configs at a key it has not seen and runs
    the config it picked there at every call of that key after: a config picked where a ``tl.static_assert`` holds
    (``BLOCK_N <= D`` at ``D=64``) ran at a ``D`` the key leaves out and failed it (``D=32``, the same rows:
    wrongkernel19's v80), where the original list of one config was never benchmarked nor cached."""
    an, _, _ = analyze(source, filename)
    value = _autotune_key(an, kernel)
    if not isinstance(value, cst.List | cst.Tuple) or not all(
        isinstance(e.value, cst.SimpleString) for e in value.elements
    ):
        return None
    items = [an.module.code_for_node(e.value) for e in value.elements] + [f'"{n}"' for n in names]
    span = an.span(value)
    text = "[" + ", ".join(items) + "]" if isinstance(value, cst.List) else "(" + ", ".join(items) + ",)"
    return source[: span.start] + text + source[span.end :]


def _wrapper_name(kernel: str) -> str:
    """The name of the wrapper of ``kernel``'s prune (:data:`TUNED_FIRST`)."""
    return TUNED_FIRST.format(kernel=kernel.lstrip("_"))


_TUNED_HEAD = re.compile(r"configs\[:(\d+)\]")


def _config_keys(configs: cst.List) -> set[str]:
    """The string keys of the ``triton.Config`` dicts a literal list writes (the knobs it sets)."""
    return {
        key
        for node in walk(configs)
        if isinstance(node, cst.DictElement) and isinstance(key := _plain_string(node.key), str)
    }


def _plain_string(node: cst.BaseExpression) -> str | None:
    return (
        node.evaluated_value if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str) else None
    )


def _early_prune(an: Any, kernel: str) -> cst.BaseExpression | None:
    """The value of ``"early_config_prune"`` in ``kernel``'s literal ``prune_configs_by={...}``; ``None`` else."""
    prune = an.autotune_argument(kernel, "prune_configs_by")
    if not isinstance(prune, cst.Dict):
        return None
    for e in prune.elements:
        if (
            isinstance(e, cst.DictElement)
            and isinstance(e.key, cst.SimpleString)
            and e.key.evaluated_value == "early_config_prune"
        ):
            return e.value
    return None


def _wrapper(an: Any, source: str, kernel: str) -> tuple[Span, int] | None:
    """The span of the wrapper an earlier tune wrote for ``kernel``'s prune (:data:`TUNED_FIRST`) and how many
    tuned configs head its list; ``None`` when there is none."""
    value = _early_prune(an, kernel)
    name = _wrapper_name(kernel)
    if not (isinstance(value, cst.Name) and value.value == name):
        return None
    for node in an.module.body:
        if isinstance(node, cst.FunctionDef) and node.name.value == name:
            span = an.span(node)
            head = _TUNED_HEAD.search(source[span.start : span.end])
            if head is not None:
                return span, int(head.group(1))
    return None


def _tuned_first(source: str, kernel: str, filename: str, tuned: int) -> str | None:
    """``source`` with ``kernel``'s ``early_config_prune`` wrapped so that the first ``tuned`` configs of its list
    (the tuned ones) run alone wherever the user's prune keeps one of them, and what it keeps otherwise (the
    original configs) as before: the autotuner picks among the original configs only where the tuned ones are
    pruned. The prune judges the tuned configs beside the original configs that set other meta-parameters: one
    that keeps one config a tile, the most stages (bitsandbytes' int8 matmul, Triton's old ``matmul_perf_model``),
    dropped a tuned ``num_stages=2`` for the list's own ``6`` of the same tile, so the written kernel ran the
    original's autotuning instead of the pick it was checked as (H100 2026-12-06: its check then met the original's
    own misaligned address at M=37; misalign17); where the tuned configs are dropped even so, the prune of the whole
    list runs as before (a prune falling back on ``configs[:1]`` when it keeps none is never handed the tuned ones
    alone).
    The prune's result is listed first (GemLite's ``kernel_config_pruner`` is a generator) and a tuned
    config is known by identity or by its values (that pruner yields a new ``triton.Config`` for each it keeps).
    ``None`` where the prune is not a value of a literal ``prune_configs_by={...}`` in the decorator. A wrapper an
    earlier tune wrote is kept, its count of tuned configs updated."""
    an, _, _ = analyze(source, filename)
    earlier = _wrapper(an, source, kernel)
    if earlier is not None:
        span, _ = earlier
        body = _TUNED_HEAD.sub(f"configs[:{tuned}]", source[span.start : span.end], count=1)
        return source[: span.start] + body + source[span.end :]
    value = _early_prune(an, kernel)
    info = an.functions.get(kernel, [])
    if value is None or len(info) != 1 or not info[0].node.decorators:
        return None
    name = _wrapper_name(kernel)
    user = _code(value) if isinstance(value, cst.Name | cst.Attribute) else f"({_code(value)})"
    at = an.line_starts[an.span(info[0].node.decorators[0]).line - 1]
    span = an.span(value)
    wrapper = (
        f"def {name}(configs, named_args, **kwargs):  # {TUNED}\n"
        f'    """The tuned configs (first in the list) alone wherever {user} keeps one, else what it keeps."""\n'
        f"    head = configs[:{tuned}]\n"
        "    rest = [c for c in configs[len(head):] if all(c.kwargs != t.kwargs for t in head)]\n"
        f"    kept = list({user}([*head, *rest], named_args, **kwargs))\n"
        "    tuned = [c for c in kept if any(c is t or c.all_kwargs() == t.all_kwargs() for t in head)]\n"
        f"    return tuned or list({user}(configs, named_args, **kwargs))\n\n\n"
    )
    return source[:at] + wrapper + source[at : span.start] + name + source[span.end :]


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node).strip().rstrip(",").strip()


#: the arguments of ``triton.Config`` a pinned config is rendered from (its meta-parameters and options)
_RENDERED_ARGUMENTS = frozenset({"kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg"})


def _carried_arguments(expr: cst.BaseExpression) -> tuple[str, ...] | None:
    """The arguments of a literal list's configs that a pinned list keeps as written: any keyword besides the
    meta-parameters and the options (``pre_hook=_zero_out``, which zeroes an output the kernel adds into),
    when every config writes it the same; ``()`` for a list built by code (its hooks are known from a run);
    ``None`` when the configs write them differently (a pin would pick one config's hook)."""
    if not isinstance(expr, cst.List):
        return ()
    seen: set[tuple[str, ...]] = set()
    for element in expr.elements:
        call = element.value
        if not isinstance(call, cst.Call):
            return ()
        extra = tuple(
            _code(a) for a in call.args if a.keyword is not None and a.keyword.value not in _RENDERED_ARGUMENTS
        )
        seen.add(extra)
    if len(seen) > 1:
        return None
    return next(iter(seen), ())


def literal_autotune_key(source: str, kernel: str, *, filename: str = "kernel.py") -> list[str]:
    """The ``key=[...]`` of ``kernel``'s ``@triton.autotune`` as the file writes it (string literals; ``[]`` when
    it has none or builds it by code): what a literal list's autotuner re-picks a config by, known without
    importing the file."""
    an, _, _ = analyze(source, filename)
    value = _autotune_key(an, kernel)
    if not isinstance(value, cst.List | cst.Tuple):
        return []
    names = [e.value.evaluated_value for e in value.elements if isinstance(e.value, cst.SimpleString)]
    return [n for n in names if isinstance(n, str)]


def _autotune_key(an: Any, kernel: str) -> cst.BaseExpression | None:
    """The ``key`` argument of ``kernel``'s ``@triton.autotune`` (by keyword, or second by position) as written;
    ``None`` where there is none."""
    for info in an.functions.get(kernel, []):
        deco = an.decorators(info.node).get("autotune")
        if deco is None or not isinstance(deco.decorator, cst.Call):
            continue
        for i, arg in enumerate(deco.decorator.args):
            if (arg.keyword is not None and arg.keyword.value == "key") or (arg.keyword is None and i == 1):
                return arg.value
    return None


def _render(lit: SourceLiteral, value: Value) -> str:
    node = lit.node
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(node, cst.SimpleString) and isinstance(value, str):
        quote = node.quote
        body = value.replace("\\", "\\\\").replace(quote[0], "\\" + quote[0])
        return f"{node.prefix}{quote}{body}{quote}"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _select(tunables: list[Tunable], ident: str, kernel: str | None) -> list[Tunable]:
    by_key = [t for t in tunables if t.key == ident]
    if by_key:
        return by_key
    found = [t for t in tunables if t.name == ident or ident in t.feeds]
    # a marked constant of a module-level branch the run did not take is not what a change by name means
    found = [t for t in found if not (t.refused_reason or "").startswith(NOT_TAKEN)] or found
    if kernel is not None:
        # a local read by several launches is keyed by its first kernel; it is this kernel's too where one of its
        # launches is (Lightning Attention's backward ``BLOCK`` keyed by the intra kernel feeds the inter kernel:
        # a session of the inter launch moved the forward's ``BLOCK`` as well, breaker25's q50)
        mine = [t for t in found if t.kernel in (kernel, None) or any(launch_key(g) == kernel for g in t.groups)]
        return mine or found
    return found


def plan_edits(tunables: list[Tunable], changes: Mapping[str, Value], *, kernel: str | None = None) -> dict[str, Value]:
    """Resolve ``changes`` (knob name or key -> value or direction) to key -> new value.

    A name that several literals carry is moved at every one of them (only those of ``kernel`` when
    given and present); an absolute value is accepted there only when they all hold the same value
    now (else name one by its key).

    Raises:
        TunableError: unknown knob, refused knob, ambiguous change, illegal value, or no change.
    """
    out: dict[str, Value] = {}
    editable_names = sorted({t.key for t in tunables if t.editable})
    for ident, requested in changes.items():
        found = _select(tunables, ident, kernel)
        if not found:
            raise TunableError(f"no tunable named {ident!r}", hint=f"editable: {', '.join(editable_names) or 'none'}")
        found = _over_list(found)
        refused = [t for t in found if not t.editable]
        semantic = [t for t in refused if t.semantic]
        if semantic:
            t = semantic[0]
            raise TunableError(f"{t.key} is not a performance knob: {t.refused_reason}; kernelopt never edits it")
        if refused:
            t = refused[0]
            raise TunableError(f"{t.key} cannot be edited safely: {t.refused_reason or 'no literal value'}")
        if len(found) > 1 and not _is_direction(requested) and len({repr(t.value) for t in found}) > 1:
            sites = ", ".join(f"{t.key}={t.value}" for t in found)
            raise TunableError(f"{ident!r} is ambiguous: {sites}", hint="name one by its key, or give a direction (x2)")
        for t in found:
            new = step(t, requested)
            if t.value is None:
                if not is_int(new):
                    raise TunableError(f"{t.key}: {new!r} is not an integer (the computed value it overrides is)")
            elif type(new) is not type(t.value) and not (isinstance(t.value, float) and isinstance(new, int)):
                raise TunableError(f"{t.key}: {new!r} has the wrong type (the knob holds {type(t.value).__name__})")
            if is_number(new) and new < 0:
                # discovery reads literals without a sign, so a negative one written could not be checked (it was an
                # AssertionError, exit 70, for `tunables --set BLOCK=-1`)
                raise TunableError(f"{t.key}={new!r} is illegal: a setting is not negative")
            problem = t.legality.problem(new)
            if problem:
                src = f" ({t.legality.source})" if t.legality.source else ""
                raise TunableError(f"{t.key}={new!r} is illegal: {problem}{src}")
            if new == t.value and (t.computed is None or t.kind is TunableKind.AUTOTUNE_CONFIG):
                # a computed value equal to the literal at one size is still a change: the literal holds it at all
                raise TunableError(f"{t.key} is already {t.value!r}: the change does nothing")
            out[t.key] = new
    return out


def _group_values(tunables: list[Tunable], new: Mapping[str, Value], group: str) -> dict[str, Value | None]:
    """Knob values of ``group`` after the edit; ``None`` for a knob whose value is not a literal (unknown,
    not absent: the resource estimate must not give it a default)."""
    values: dict[str, Value | None] = {}
    for t in tunables:
        if group in t.groups:
            v = new.get(t.key, t.value)
            for feed in t.feeds or [t.name]:
                values[feed] = v
    return values


def apply_source(
    source: str,
    changes: Mapping[str, Value],
    *,
    filename: str = "kernel.py",
    limits: ResourceLimits | None = None,
    kernel: str | None = None,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
) -> EditResult:
    """Apply ``changes`` to ``source`` (pure); see :func:`apply`.

    ``gpu`` and ``evaluation`` are those of :func:`~kernelopt.tunables.analysis.discover_source`: a knob of
    an evaluated autotune list is moved by replacing the ``configs=`` expression with an explicit literal
    list of every config (the moved values in place); an absent launch option is inserted; a computed
    value is overridden by a literal in its place at the launch (the edit keeps the original expression
    in :attr:`KnobEdit.overrides`).
    """
    an, sites, tunables = analyze(source, filename, gpu=gpu, **evaluated(evaluation))
    new_values = plan_edits(tunables, changes, kernel=kernel)
    if limits is not None:
        _check_fit(tunables, new_values, limits, source=source, evaluation=evaluation)
    spans, edits = _splices(sites, tunables, new_values)
    new_source = _splice(source, spans)
    expected = {e.key: e.after for e in edits}
    problems = _verify(
        source,
        sites,
        tunables,
        new_source,
        expected,
        filename,
        gpu=gpu,
        evaluation=_moved(evaluation, tunables, expected),
    )
    if problems:  # our bug, not the user's: the splice must touch only the planned literals
        raise AssertionError(f"tunable edit touched more than planned: {problems}")
    new_source = _lists_once(an, source, new_source, tunables, new_values, filename)
    return EditResult(path=filename, edits=edits, diff=edit_diff(source, new_source, filename), new_source=new_source)


def _lists_once(
    an: Any, source: str, new_source: str, tunables: list[Tunable], new_values: Mapping[str, Value], filename: str
) -> str:
    """``new_source`` with every autotune list the edit moved written once (:func:`distinct_configs`): a knob of a
    list is moved at every config, so a pick of one value leaves as many identical configs as the list had. The
    one place every write of a list's knobs goes through: the candidates a session times and the final write."""
    moved = sorted({t.kernel for t in tunables if t.key in new_values and t.kind is TunableKind.AUTOTUNE_CONFIG})
    for kernel in moved:
        expr = an.autotune_configs_expr(kernel) if kernel is not None else None
        if expr is not None and kernel is not None:
            unwritten = unwritten_options(source, expr, filename)
            new_source = distinct_configs(new_source, kernel, filename, unwritten=unwritten)
    return new_source


def write_config(
    source: str,
    values: Mapping[str, Value],
    *,
    filename: str = "kernel.py",
    limits: ResourceLimits | None = None,
    kernel: str | None = None,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
) -> EditResult:
    """Write one configuration (knob name or key -> absolute value) for every size, in the form that keeps
    kernel.py general: a literal knob's literal is replaced; a computed setting
    (:attr:`TunableKind.COMPUTED_SETTING`) keeps its computation and gets one ``x = v  # kernelopt: tuned``
    line after it (every reader of the name agrees); a value computed at the launch is overridden there.
    A knob already at the value is left alone. Whether one value is legal at every size is the caller's
    check (every ``SHAPES`` entry); where it is not, write a table bounded by the sizes checked
    (:func:`write_table`).

    Raises:
        TunableError: unknown, refused or illegal value (see :func:`apply_source`).
        TunableFitError: with ``limits``, the configuration cannot fit.
    """
    _, _, tunables = analyze(source, filename, gpu=gpu, **evaluated(evaluation))
    current = {t.key: t.value for t in tunables}
    changes: dict[str, Value] = {}
    for ident, value in values.items():
        found = _select(tunables, ident, kernel)
        if found and all(current[t.key] == value for t in found) and all(t.tuned_table is None for t in found):
            continue
        changes[ident] = value
    if not changes:
        return EditResult(path=filename, edits=[], diff="", new_source=source)
    return apply_source(
        source, changes, filename=filename, limits=limits, kernel=kernel, gpu=gpu, evaluation=evaluation
    )


def write_table(
    source: str,
    table: TunedTable,
    *,
    filename: str = "kernel.py",
    limits: ResourceLimits | None = None,
    kernel: str | None = None,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
    ran: Collection[int] = (),
) -> EditResult:
    """Write a size-bucketed table of computed settings after their computation (see :class:`TunedTable`):
    ``if <size> <= <upto>:  # kernelopt: tuned`` rows, the original computation as the fallback for sizes
    above the last row. The table replaces any table written there before, and the knobs it sets lose the
    one-value lines they had.

    Args:
        source: the kernel file's text.
        table: the rows, by increasing ``upto``; knobs by name or key; every knob must be a computed
            setting (:attr:`Tunable.size_names` lists the names its computation reads).

    Raises:
        TunableError: an empty or unordered table, a size expression that is not Python, a knob that is
            not a computed setting, an illegal value.
        TunableFitError: with ``limits``, a row cannot fit. The rows whose ``upto`` is in ``ran`` hold what the
            original computation gave at a size checked: no new configuration, so the estimate does not judge them
            (breaker11: vLLM's int8 ``scaled_mm`` computes 64 x 64 x 256 tiles, 96 KiB at 1 B an element, which
            the portable estimate's 4 B put at 384 KiB, and ``tune`` exited 2 writing its table).
    """
    _, sites, tunables = analyze(source, filename, gpu=gpu, **evaluated(evaluation))
    uptos = [b.upto for b in table.buckets]
    if not uptos or any(a >= b for a, b in itertools.pairwise(uptos)):
        raise TunableError(f"a tuned table needs rows with increasing bounds, got {uptos}")
    try:
        cst.parse_expression(table.size)
    except cst.ParserSyntaxError:
        raise TunableError(f"the size expression {table.size!r} of a tuned table is not a Python expression") from None
    by_key = {s.key: s for s in sites}
    chosen: dict[str, Tunable] = {}
    for ident in table.knobs():
        found = [t for t in _select(tunables, ident, kernel) if t.editable]
        computed = [
            t
            for t in found
            if t.kind is TunableKind.COMPUTED_SETTING
            or _computed_heuristic(by_key[t.key])
            or by_key[t.key].table_region is not None  # a literal bound once, its fallback (leftovers21 l9)
        ]
        if not computed:
            kinds = ", ".join(sorted({t.kind.value for t in found})) or "no editable knob"
            raise TunableError(
                f"{ident}: a tuned table needs a setting computed from the problem, to fall back on ({kinds}); "
                "write one value with write_config"
            )
        for t in computed:
            chosen[ident] = t
            for row in table.buckets:
                if ident in row.values:
                    _check_value(t, row.values[ident])
    if limits is not None:
        for row in (b for b in table.buckets if b.upto not in ran):
            _check_fit(tunables, {chosen[k].key: v for k, v in row.values.items()}, limits)
    per_region: dict[tuple[int, str], tuple[TunedRegion, dict[str, str], Site]] = {}
    spans: list[_Splice] = []
    lambdas = False  # a heuristic's decorator rewritten: laid out as the formatter would (only those change)
    for ident, t in chosen.items():
        site = by_key[t.key]
        if _computed_heuristic(site):  # the table goes into the lambda, its computation the fallback
            lambdas = True
            rows = [(b.upto, b.values[ident]) for b in table.buckets if ident in b.values]
            assert site.override is not None and site.heuristic_fallback is not None
            size = _spelled(table.size, site)
            spans.append((site.override.start, site.override.end, render_heuristic(size, rows, site)))
            continue
        region = site.tuned or site.table_region
        assert region is not None
        per_region.setdefault(_region_key(region), (region, {}, site))[1][ident] = region.variable
    for region, names, site in per_region.values():
        rows = [{names[k]: v for k, v in row.values.items() if k in names} for row in table.buckets]
        size = _spelled(table.size, site)
        size = size_at_launch(source, region.line, size) or size  # the buckets are launch sizes: so its rows (l73)
        new_table = TunedTable(
            size=size,
            buckets=[b.model_copy(update={"values": r}) for b, r in zip(table.buckets, rows, strict=True) if r],
            key=table.key,
        )
        variables = set(names.values())
        values = {k: v for k, v in region.values.items() if k not in variables}
        spans += _tuned_splices(region, values, new_table)
    new_source = _splice(source, spans)
    if lambdas:
        new_source = lay_out_heuristics(new_source, source)
    _, after_sites, after = analyze(new_source, filename, gpu=gpu, **evaluated(evaluation))
    now = {t.key: t for t in after}
    read_back = {s.key: s.read_table for s in after_sites if s.read_table is not None}  # a literal's table (l9)
    for t in tunables:  # our bug when it fails: the table must read back, and nothing else move
        got = now.get(t.key)
        if got is None:
            raise AssertionError(f"tuned table: {t.key} disappeared")
        if t.key in {c.key for c in chosen.values()}:
            want = [
                (b.upto, b.values[k])
                for k, c in chosen.items()
                if c.key == t.key
                for b in table.buckets
                if k in b.values
            ]
            if _computed_heuristic(by_key[t.key]):  # its lambda's rows as rendered
                want = distinct_rows(want)
            held = got.tuned_table or read_back.get(t.key)
            have = [(b.upto, v) for b in (held.buckets if held else []) for v in b.values.values()]
            if have != want:
                raise AssertionError(f"tuned table of {t.key} reads back as {have}, not {want}")
        elif t.kind is not TunableKind.COMPUTED_SETTING and t.computed is None and got.value != t.value:
            raise AssertionError(f"tuned table: {t.key} changed {t.value!r} -> {got.value!r}")
    edits = [
        KnobEdit(
            key=t.key,
            name=t.name,
            before=t.value,
            after=[b.values[ident] for b in table.buckets if ident in b.values][-1],
            location=t.tuned_at or t.location,
            overrides=t.computed,
            table=[(b.upto, b.values[ident]) for b in table.buckets if ident in b.values],
        )
        for ident, t in chosen.items()
    ]
    return EditResult(path=filename, edits=edits, diff=edit_diff(source, new_source, filename), new_source=new_source)


def _computed_heuristic(site: Site) -> bool:
    """True for a ``@triton.heuristics`` value computed from the kernel's arguments (a table can fall back on it)."""
    return site.kind is TunableKind.HEURISTIC and site.heuristic_fallback is not None


def _spelled(size: str, site: Site) -> str:
    """The table's size as ``site``'s computation reads it: the launcher's ``dstate`` is ``args["dstate"]`` in a
    heuristic's lambda that reads its arguments so, and a heuristic's ``args["dstate"]`` is ``dstate`` in a
    launching function whose computation reads a ``dstate`` (one size however spelled: tunegaps11; the caller
    tells they are one, :func:`kernelopt.tuning.folder._reads`)."""
    named = size_name(size)
    spelled = [n for n in site.size_names if size_name(n) == named]
    if size in site.size_names or not spelled:
        return size
    return spelled[0]


def distinct_rows(rows: list[tuple[int, Value]]) -> list[tuple[int, Value]]:
    """A table's ``(upto, value)`` rows less each row whose value the next row repeats (that row covers it)."""
    return [(upto, v) for i, (upto, v) in enumerate(rows) if i + 1 == len(rows) or rows[i + 1][1] != v]


def render_heuristic(size: str, rows: list[tuple[int, Value]], site: Site) -> str:
    """A heuristic's lambda body as a size-bucketed table that falls back on its computation:
    ``64 if args["n"] <= 10 else 128 if args["n"] <= 100 else triton.next_power_of_2(args["n"])``; a row whose value
    the next row repeats is left to that row (``64 if N <= 40 else 64 if N <= 300`` is ``64 if N <= 300``, breaker18
    d3)."""
    assert site.heuristic_fallback is not None
    fallback = site.heuristic_fallback
    if "\n" in fallback or " if " in fallback:
        fallback = f"({fallback})"
    body = "".join(f"{_render_value(v)} if {size} <= {upto} else " for upto, v in distinct_rows(rows)) + fallback
    return f"lambda {site.heuristic_wrap}: {body}" if site.heuristic_wrap else body


def _check_value(t: Tunable, value: Value) -> None:
    """Raises TunableError when ``value`` is not a legal value of ``t``."""
    if not is_int(value):
        raise TunableError(f"{t.key}: {value!r} is not an integer")
    problem = t.legality.problem(value)
    if problem:
        src = f" ({t.legality.source})" if t.legality.source else ""
        raise TunableError(f"{t.key}={value!r} is illegal: {problem}{src}")


def _moved(
    evaluation: AutotuneEvaluation | None, tunables: list[Tunable], expected: Mapping[str, Value]
) -> AutotuneEvaluation | None:
    """``evaluation`` as a run of the edited text would give it: the moved knobs' launch values are the new
    ones (the entry of ``**configs[key]`` in use is told by them)."""
    if evaluation is None or not evaluation.launch_values:
        return evaluation
    values = {k: dict(v) for k, v in evaluation.launch_values.items()}
    for t in tunables:
        if t.key in expected and t.kernel in values:
            for feed in t.feeds or [t.name]:
                values[t.kernel][feed] = expected[t.key]
    return evaluation.model_copy(update={"launch_values": values})


def _check_fit(
    tunables: list[Tunable],
    new_values: Mapping[str, Value],
    limits: ResourceLimits,
    *,
    source: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
) -> None:
    """Every launch group the change touches must still fit the GPU: the block estimate, and (``source`` given) the
    fit of the kernel's block pointer tiles at the ``SHAPES`` entries a run of the task launched it at
    (:func:`~kernelopt.tunables.block_tiles.tile_problems`, tune's rule; no run in ``evaluation``, no entry to
    estimate at).

    Raises:
        TunableFitError: a touched group's new configuration cannot fit.
    """
    touched = {g for t in tunables if t.key in new_values for g in t.groups}
    for g in sorted(touched):
        values = _group_values(tunables, new_values, g)
        problems = resource_problems(values, limits)
        kernel = next((t.kernel for t in tunables if g in t.groups and t.kernel is not None), None)
        tiles = block_tiles(source, kernel) if source is not None and kernel is not None else ()
        if tiles:
            listed = any(g in t.groups and t.kind is TunableKind.AUTOTUNE_CONFIG for t in tunables)
            problems += tile_problems(HeldTiles(tiles, tile_entries(kernel, listed, evaluation)), values, limits)
        if problems:
            raise TunableFitError(f"{g}: the new configuration cannot fit: {'; '.join(problems)}")


_Splice = tuple[int, int, str]
"""``(start, end, text)``: the source between the offsets becomes ``text``."""


def _splices(
    sites: list[Site], tunables: list[Tunable], new_values: Mapping[str, Value]
) -> tuple[list[_Splice], list[KnobEdit]]:
    """The text changes of ``new_values`` and the edit of each knob: a literal replaced, an absent launch
    option inserted, a computed value overridden, linked grid literals moved along, and an evaluated
    autotune list replaced whole by a literal list."""
    by_key = {s.key: s for s in sites}
    spans: list[_Splice] = []
    edits: list[KnobEdit] = []
    regions: dict[int, tuple[ConfigRegion, dict[int, dict[str, Value]]]] = {}
    tuned: dict[tuple[int, str], tuple[TunedRegion, dict[str, Value]]] = {}
    for t in tunables:
        if t.key not in new_values:
            continue
        s = by_key[t.key]
        new = new_values[t.key]
        if s.region is not None:
            _, moved = regions.setdefault(s.region.span.start, (s.region, {}))
            moved.setdefault(s.region.index, {})[s.name] = new
        elif s.tuned is not None:
            tuned.setdefault(_region_key(s.tuned), (s.tuned, {}))[1][s.tuned.variable] = new
        else:
            spans.append(_site_splice(s, new))
        for lk in s.links:
            if not isinstance(new, int):
                raise TunableError(f"{t.key}: grid literal needs an integer")
            spans.append((lk.literal.start, lk.literal.end, str(new + lk.delta)))
        edits.append(
            KnobEdit(
                key=t.key,
                name=t.name,
                before=t.value,
                after=new,
                location=t.location,
                linked=t.linked,
                overrides=t.computed if t.kind is not TunableKind.HEURISTIC or t.value is None else None,
                inserted=t.kind is TunableKind.LAUNCH_DEFAULT,
            )
        )
    for region, moved in regions.values():
        configs = [c.with_values(moved.get(i, {})) for i, c in enumerate(region.space.configs)]
        spans.append((region.span.start, region.span.end, render_configs(configs, region.config_callee)))
    for tregion, values in tuned.values():
        # one value for every size: the variable's rows leave the table (the new line would not reach them)
        kept = _without(tregion.table, set(values))
        spans += _tuned_splices(tregion, {**tregion.values, **values}, kept)
    return spans, edits


def _region_key(region: TunedRegion) -> tuple[int, str]:
    """Which tuned lines a knob's edit rewrites: those after one computation (the variables of a tuple-unpacked
    helper share them), or, for values computed inline at one launch, each value's own new lines."""
    return region.start, region.variable if region.hoist is not None else ""


def _tuned_splices(region: TunedRegion, values: Mapping[str, Value], table: TunedTable | None) -> list[_Splice]:
    """The text changes that write a computed setting's tuned lines; for a value computed inline at the launch
    also its expression's own line before the launch statement and the variable in its place at the launch."""
    spans: list[_Splice] = [(region.start, region.end, render_tuned(region, values, table))]
    if region.hoist is not None:
        spans += [(span.start, span.end, region.variable) for span in region.hoist.spans]
    return spans


def _without(table: TunedTable | None, variables: set[str]) -> TunedTable | None:
    """``table`` without the rows' values of ``variables`` (rows left empty are dropped)."""
    if table is None:
        return None
    rows = [
        b.model_copy(update={"values": {k: v for k, v in b.values.items() if k not in variables}})
        for b in table.buckets
    ]
    rows = [b for b in rows if b.values]
    return table.model_copy(update={"buckets": rows}) if rows else None


def render_tuned(region: TunedRegion, values: Mapping[str, Value], table: TunedTable | None) -> str:
    """The ``# kernelopt: tuned`` lines of a computed setting, as Triton users write them: the values for every
    size first, then the size-bucketed rows (``if n <= 1024:`` / ``elif n <= 4096:``), keyed by the variable
    names of the function. Sizes no row covers keep the computation above the lines. A comment the user wrote among
    the earlier lines (``# mine: 4096 fits my GPU's cache better``) is kept, above the rows (newuser8, n39). A
    table keyed by the device (:attr:`TunedTable.key`) keeps the chains an earlier write keyed to another device,
    as written, before its own rows (a second GPU model's session replaced the first one's rows, late41)."""
    lines = [f"{region.indent}{region.variable} = {region.hoist.text}\n"] if region.hoist is not None else []
    lines += [c if c.endswith("\n") else f"{c}\n" for c in region.comments]  # the user's, kept above the rows
    copied = _dicts_set(values)
    lines += [f"{region.indent}{d} = dict({d})  # {TUNED}\n" for d in copied]
    lines += [f"{region.indent}{var} = {_render_value(v)}  # {TUNED}\n" for var, v in values.items()]
    if table is not None and table.key is not None:  # another device's rows stay as they are, before this one's
        kept = [text for key, text in region.keyed if key != table.key]
        lines += [line for text in kept for line in text.splitlines(keepends=True) if not comment_only(line)]
    for i, row in enumerate(table.buckets if table is not None else []):
        assert table is not None
        keyed = f" and {table.key}" if table.key else ""
        lines.append(f"{region.indent}{'elif' if i else 'if'} {table.size} <= {row.upto}{keyed}:  # {TUNED}\n")
        lines += [f"{region.body_indent}{d} = dict({d})\n" for d in _dicts_set(row.values) if d not in copied]
        lines += [f"{region.body_indent}{var} = {_render_value(v)}\n" for var, v in row.values.items()]
    return "".join(lines)


def _dicts_set(values: Mapping[str, Value]) -> list[str]:
    """The dicts whose entries tuned lines set (``config`` of ``config["BLOCK_M"] = 64``): each is copied first
    (``config = dict(config)``), since the settings helper may return a dict the module keeps (a table of configs
    by size, ``MOE_CONFIGS[16]``), which an entry set in place would change for every later call, the sizes the
    original computation serves included (issue 32, breaker5 i5)."""
    out: list[str] = []
    for var in values:
        name, bracket, _ = var.partition("[")
        if bracket and name.isidentifier() and name not in out:
            out.append(name)
    return out


def _site_splice(s: Site, new: Value) -> _Splice:
    """The text change that gives one site (not in an evaluated autotune list) its new value."""
    if s.insert is not None:
        return (s.insert.offset, s.insert.offset, f"{s.insert.separator}{s.name}={_render_value(new)}")
    if s.override is not None:
        text = _render_value(new)
        return (s.override.start, s.override.end, f"lambda {s.heuristic_wrap}: {text}" if s.heuristic_wrap else text)
    assert s.literal is not None
    return (s.literal.start, s.literal.end, _render(s.literal, new))


def _splice(source: str, spans: list[_Splice]) -> str:
    """``source`` with every splice applied.

    Raises:
        TunableError: two splices overlap.
    """
    spans = sorted(set(spans))  # one literal moved alike for two settings (a grid two launches share) is one edit
    for (_, e1, _), (s2, _, _) in itertools.pairwise(spans):
        if s2 < e1:
            raise TunableError("two requested edits overlap (the same literal named twice)")
    out, pos = [], 0
    for start, end, text in spans:
        out.append(source[pos:start])
        out.append(text)
        pos = end
    out.append(source[pos:])
    return "".join(out)


def edit_diff(source: str, new_source: str, filename: str) -> str:
    """The unified diff of an edit (``a/<file>`` -> ``b/<file>``)."""
    return "".join(
        difflib.unified_diff(
            source.splitlines(keepends=True),
            new_source.splitlines(keepends=True),
            fromfile=f"a/{filename}",
            tofile=f"b/{filename}",
        )
    )


#: what a user can do where the guard refuses an edit by hand (``tunables --set``)
_UNPROVEN_HINT = "kernelopt tune refuses this edit too; set another value, or change the launch as the line says"


def apply(
    path: Path,
    changes: Mapping[str, Value],
    *,
    write: bool = True,
    limits: ResourceLimits | None = None,
    kernel: str | None = None,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
) -> EditResult:
    """Move the knobs named in ``changes`` in the file ``path``, touching nothing but their literals.

    Args:
        path: the kernel file.
        changes: knob name or key -> new value or direction (see :func:`step`), e.g.
            ``{"num_warps": 8}``, ``{"BLOCK_SIZE": 2048}``, ``{"BLOCK_M": "x2"}``.
        write: write the new text to ``path`` (atomically); False for a dry run.
        limits: block resource limits; when given, configurations that cannot fit are refused.
        kernel: when a knob name occurs in several kernels, move only this kernel's (the profiled one).
        gpu: the target GPU (offers ``num_ctas`` where clusters exist), see :func:`apply_source`.
        evaluation: what importing the module told (:func:`kernelopt.tunables.evaluate.evaluate_autotune`).

    Returns:
        The edits with before/after values and the unified diff.

    Raises:
        TunableError: unknown, refused, ambiguous or illegal change, or a change that does nothing; or an edit
            whose written kernel the guard cannot prove right at every size the original handled, the edit
            ``kernelopt tune`` refuses too (:func:`~kernelopt.tunables.guard.unproven_edit`; review22's seen l22
            form, late31 z91: written before with a warning, half the output unwritten). An edit a guard can make
            right is written as ``kernelopt tune`` writes it, the guard in (:func:`~kernelopt.tunables.guard.set_edit`,
            late32 z95), :attr:`EditResult.guard` saying so.
        InputFileError: the file is missing or not UTF-8.
        SourceChanged: the file was saved between its read and the write (nothing written, the save kept).
    """
    from kernelopt import fileio
    from kernelopt.tunables.guard import set_edit
    from kernelopt.tunables.unmoved_grid import unmoved_grid_refusal

    p = Path(path)
    read_source(p)  # its one-line refusals: a folder, no such file, not UTF-8
    source = fileio.read_source(p)  # the bytes the write may replace, line endings as they are
    result = apply_source(
        source.text, changes, filename=p.name, limits=limits, kernel=kernel, gpu=gpu, evaluation=evaluation
    )
    unmoved = unmoved_grid_refusal(source.text, result.new_source) if result.edits else None
    if unmoved is not None:  # the listing says it not editable, by the same rule (late28, z61)
        keys = ", ".join(e.key for e in result.edits)
        raise TunableError(f"{keys} cannot be edited safely: {unmoved.removesuffix(': not written')}")
    result.path = str(p)
    chosen = set_edit(source.text, result.new_source) if result.edits else None
    if chosen is not None and chosen.text is None:  # a refusal of the edit itself first, bounded or not
        raise TunableError(f"{p}: {chosen.refusal}", hint=_UNPROVEN_HINT)
    sized = _size_bounded(source.text, result, gpu, evaluation, p.name) if result.edits else None
    if sized is not None:
        result.new_source = keep_newlines(source.text, sized[0])
        chosen = set_edit(source.text, result.new_source)
        if chosen.text is None:
            raise TunableError(f"{p}: {chosen.refusal}", hint=_UNPROVEN_HINT)
    if chosen is not None and chosen.guard is not None:  # tune's text: the original kept where the value fails
        result.new_source = keep_newlines(source.text, chosen.text or result.new_source)
        result.guard = f"{sized[1]}; {chosen.guard}" if sized is not None else chosen.guard
        result.diff = edit_diff(source.text, result.new_source, p.name)
    elif sized is not None:
        result.guard, result.diff = sized[1], edit_diff(source.text, result.new_source, p.name)
    elif chosen is not None and (bounded := _covered_rows(source.text, result.edits, p.name)) is not None:
        result.new_source, result.guard = keep_newlines(source.text, bounded[0]), bounded[1]
        result.diff = edit_diff(source.text, result.new_source, p.name)
    if result.edits and result.guard is not None and result.new_source == source.text:  # fresh24 f22
        sets = ", ".join(f"{e.key}={e.after}" for e in result.edits)
        raise TunableError(f"{p} holds {sets} already, guarded: {result.guard}", hint="the change does nothing")
    if write and result.edits:
        fileio.replace_source(source, result.new_source)  # a save of the user's meanwhile is kept, never lost
        result.written = True
    return result


def _over_list(found: list[Tunable]) -> list[Tunable]:
    """``found`` (the sites of one name) without the configs of an autotune list whose value an editable heuristic
    under the list sets (late53's l230 form, its value a knob: late55 l252): they are not editable (l232), and the
    name moves the heuristic's value, which the kernel runs where its test holds."""
    heuristics = {t.kernel for t in found if t.kind is TunableKind.HEURISTIC and t.editable}
    return [t for t in found if not (t.kind is TunableKind.AUTOTUNE_CONFIG and t.kernel in heuristics)] or found


def _size_bounded(
    old: str, result: EditResult, gpu: str | None, evaluation: AutotuneEvaluation | None, filename: str
) -> tuple[str, str] | None:
    """The text ``tunables --set`` writes for an edit that raises a tile of a kernel whose tiles a size of the problem
    spans too, and the line saying so: every setting it moved set under the largest values of those sizes the run of
    the task told at its ``SHAPES`` entries (``evaluation``), the original's values past them, as ``tune`` writes its
    pick (:func:`~kernelopt.tunables.size_tiles.size_bounded`); ``None`` where the edit raises no such tile (a config of
    an autotune list that keeps another config as it was is left to the autotuner, which passes over a config that
    cannot run at a key; a list of one config Triton runs unbenched, so it is bounded). wrongkernel31, v184: ``--set``
    wrote such a raise for every size, a footprint never compiled past the entries.

    Raises:
        TunableSizesUntold: such a raise where no run told the size (a lone file, no ``--reference``).
        TunableError: such a raise whose bound
            cannot be written where the settings are set.
    """
    from kernelopt.tunables.guard import option_defaults
    from kernelopt.tunables.size_tiles import raised_sizes, size_bounded

    found = analyze(old, filename, gpu=gpu, **evaluated(evaluation))[2]
    listed = {t.key: t.key.split("].", 1)[0] for t in found if t.kind is TunableKind.AUTOTUNE_CONFIG}
    raised = {listed[e.key] for e in result.edits if e.key in listed}
    # a config of a list that keeps another as it was is left to its autotuner, which times every config at each
    # key and passes over one that cannot run (OutOfResources); a list of one config is run unbenched (review28 r80)
    kept = {c.rsplit(".configs[", 1)[0] for c in set(listed.values()) - raised}
    said = ", ".join(f"{e.key}={e.after}" for e in result.edits)
    _keyed_sizes(old, result, found, kept, listed, evaluation, filename, said)
    moved = {
        e.key: ((e.key,), e.before, e.after)
        for e in result.edits
        if e.key not in listed or listed[e.key].rsplit(".configs[", 1)[0] not in kept
    }
    if not moved:
        return None

    def told(kernel: str, param: str) -> list[int]:
        if evaluation is None:
            return []
        sizes = (evaluation.size_value(kernel, argument_key(param), e.shape) for e in evaluation.shape_sizes)
        return [v for v in sizes if is_int(v)]

    text, line = size_bounded(old, result.new_source, moved, found, told, defaults=option_defaults(gpu), said=said)
    if text is None:
        untold = any(not told(k, p) for k, ps in raised_sizes(moved, old, found).items() for p in ps)
        raise (TunableSizesUntold if untold else TunableError)(f"{filename}: {line}", hint=_SIZED_HINT)
    return None if line is None else (text, line)


def _keyed_sizes(
    old: str,
    result: EditResult,
    found: Sequence[Tunable],
    kept: Collection[str],
    listed: Mapping[str, str],
    evaluation: AutotuneEvaluation | None,
    filename: str,
    said: str,
) -> None:
    """Refuse a raise of a config in an autotune list that keeps another config (``kept``, left to the autotuner by
    :func:`_size_bounded`) where the list's ``key`` leaves out a size of the problem the raised tile grows beside
    (:func:`~kernelopt.tunables.size_tiles.raised_sizes`): the autotuner times its configs once per key and caches the
    pick, so a raised config picked where it fits runs unbenched at another value of that size, where it may not
    (review28 r80's Seen line, late52 l222: ``key=["n"]`` beside ``BD`` from ``d``).

    Raises:
        TunableError: such a raise, naming the key and the sizes it leaves out.
    """
    left = {
        e.key: ((e.key,), e.before, e.after)
        for e in result.edits
        if e.key in listed and listed[e.key].rsplit(".configs[", 1)[0] in kept
    }

    def key_of(kernel: str) -> list[str]:
        space = evaluation.spaces.get(kernel) if evaluation is not None else None
        return list(space.key) if space is not None else literal_autotune_key(old, kernel, filename=filename)

    refused = unkeyed_raise(old, left, found, key_of, said)
    if refused is not None:
        raise TunableError(f"{filename}: {refused[0]}", hint=refused[1])


def unkeyed_raise(
    source: str,
    moved: Mapping[str, tuple[Sequence[str], object, object]],
    found: Sequence[Tunable],
    key_of: Callable[[str], list[str]],
    said: str,
) -> tuple[str, str] | None:
    """The one rule of a raised config in an autotune list its autotuner picks from at run time (``moved``: each
    setting -> the tunable keys it moves, the value the list held, the raised one): where the list's key (``key_of``
    the kernel) leaves out a size of the problem the raised tile grows beside
    (:func:`~kernelopt.tunables.size_tiles.raised_sizes`), the line refusing it and its hint; ``None`` where every
    such size is keyed (:func:`_keyed`). The autotuner times its configs once per key and caches the pick, so a
    raised config picked where it fits runs unbenched at another value of that size, where its footprint was never
    compiled (late52 l222: ``tunables --set``; wrongkernel32, v198: ``tune``'s own keyed list of the shapes' bests,
    ``folder._keyed_list_edit``, wrote ``[BLOCK=128, BLOCK=16]`` under ``key=["n"]`` beside ``BD`` from ``d``)."""
    from kernelopt.tunables.size_tiles import raised_sizes

    knobs = {t.name for t in found if t.kind is TunableKind.AUTOTUNE_CONFIG}  # the autotuner's own: no size
    for kernel, params in raised_sizes(moved, source, found).items():
        key = key_of(kernel)
        missing = [p for p in params if p not in knobs and not _keyed(source, kernel, p, key)]
        if missing:
            sizes = ", ".join(missing)
            return (
                f"{said} raises a tile of {kernel} beside {sizes}, a size of the problem its autotune key {key!r} "
                f"leaves out: the autotuner's pick cached at one {missing[0]} runs unbenched at another, where the "
                "raised tile's footprint was never compiled; not written",
                f"add {sizes} to the key of {kernel}'s @triton.autotune, so its configs are timed at each size",
            )
    return None


def _keyed(source: str, kernel: str, param: str, key: Collection[str]) -> bool:
    """Whether the autotune ``key`` of ``kernel`` follows its parameter ``param``: ``param`` is in it, or every launch
    of ``kernel`` passes ``param`` a value that reads (through the launching function's locals bound once) what it
    passes for a parameter of the key (fla's l2norm: ``BD = min(max_fused_size, next_power_of_2(D))`` beside
    ``key=["D", "NB"]``). ``False`` where no launch is found (:func:`_keyed_sizes` refuses)."""
    from kernelopt.tunables.bindings import assigned_once, bindings

    if param in key:
        return True
    module = cst.parse_module(source)
    jit = next(
        (n for n in walk(module) if isinstance(n, cst.FunctionDef) and n.name.value == kernel and is_jit(n)), None
    )
    if jit is None:
        return False
    seen = 0
    for fn in (n for n in walk(module) if isinstance(n, cst.FunctionDef) and not is_jit(n)):
        local = assigned_once(fn)
        for node in walk(fn):
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript)):
                continue
            name = launched(node.func.value)
            if not (isinstance(name, cst.Name) and name.value == kernel):
                continue
            given = named_args(list(itertools.takewhile(lambda a: not a.star, node.args)), param_names(jit))
            keys = {_code(v) for k in key if (v := given.get(k)) is not None}
            value = given.get(param)
            if value is None or not keys or not _follows(value, keys, local, set(bindings(fn))):
                return False
            seen += 1
    return seen > 0


#: What a tensor's attribute or method reads of it that Triton's autotuner keys on besides ``key`` (its cache key
#: adds each tensor argument's dtype): its dtype, not a size
_DTYPE_READS = frozenset({"dtype", "element_size", "itemsize"})


def _follows(
    value: cst.BaseExpression, keys: Collection[str], local: Mapping[str, cst.BaseExpression], own: Collection[str]
) -> bool:
    """Whether ``value`` (what a launch passes a kernel parameter) is worked out from what the launch passes its
    autotune key (``keys``, as text) alone: every name it reads, through the launching function's locals bound once
    (``local``), stands inside a key's value, or is no name of the function's (``own``: a module's or a builtin's), or
    is a tensor read for its dtype alone (``x.element_size()``, which the autotuner keys on). review29 r91: l222 took a
    name shared with a key's value for the key's size (``x`` of ``n=x.shape[0]`` beside ``BD`` from ``x.shape[1]``),
    and wrote a raised tile the autotuner never timed at another head size."""
    seen: set[str] = set()
    todo: list[cst.CSTNode] = [value]
    while todo:
        node = todo.pop()
        if isinstance(node, cst.BaseExpression) and _code(node) in keys:
            continue
        if isinstance(node, cst.Name):
            if node.value in local:
                if node.value not in seen:
                    seen.add(node.value)
                    todo.append(local[node.value])
            elif node.value in own:
                return False  # a parameter, or a name bound otherwise (``n, d = x.shape``): a size of its own
        elif isinstance(node, cst.Attribute):
            if node.attr.value not in _DTYPE_READS:
                todo.append(node.value)
        elif isinstance(node, cst.Call):
            todo += [a.value for a in node.args]
            if not isinstance(node.func, cst.Name):  # ``x.size(1)`` reads ``x``; ``min``, ``cdiv`` read nothing
                todo.append(node.func)
        else:
            todo += node.children
    return True


#: What a refused raise beside a size of the problem needs (:func:`_size_bounded`)
_SIZED_HINT = (
    "give --reference REFERENCE.py (the task's) so a run of the task tells the sizes at its SHAPES entries, as "
    "kernelopt tune does"
)


def _covered_rows(old: str, edits: Sequence[KnobEdit], filename: str) -> tuple[str, str] | None:
    """The text ``tunables --set`` writes for a value of a computed block that one program spans a size with (a row's
    one block, :class:`~kernelopt.tunables.model.Cover`), and the line saying so: the value as a table row up to the
    size it covers, the computation above (``if hidden_dim <= 4096:  # kernelopt: tuned``), as ``tune`` writes a
    table by size, the call's other values written as they are; ``None`` where no edit is such a block. Written
    plainly, the value covered no row past it (breaker25's q55: SGLang's ``BLOCK_SIZE=4096`` set over
    ``next_power_of_2(hidden_dim)`` left the columns past 4096 unwritten, silently; review24 r43: so did one set
    beside another knob in the same call, DeepSpeed's softmax wrong at 5000 columns).

    Raises:
        TunableError: such a block whose row the guard's rules do not accept (its plain value would be wrong past
            the size it covers), or two of them in one call.
    """
    from kernelopt.tunables.guard import guard_edit
    from kernelopt.tunables.model import Bucket

    found = {t.key: t for t in analyze(old, filename)[2]}
    covered = []
    for edit in edits:
        tunable = found.get(edit.key)
        if tunable is None or tunable.kind is not TunableKind.COMPUTED_SETTING or not is_int(edit.after):
            continue
        # the size as the launching function names it: the kernel's ``SPLITS`` is run()'s ``splits`` where the
        # launch passes ``SPLITS=splits`` (breaker29's q91: only a size of the same name in both was bounded, and
        # ``BLOCK_S = 4`` over ``next_power_of_2(splits)`` was written plainly, wrong past 4 splits)
        named = [c.model_copy(update={"size": _launch_size(old, c)}) for c in tunable.covers if not c.held]
        covers = [c for c in named if c.size in tunable.size_names]
        unread = next((c for c in named if c.size not in tunable.size_names), None)
        if unread is None and len(covers) == 1:
            covered.append((edit, tunable, covers[0]))
        elif unread is not None:
            raise TunableError(
                f"{edit.key}={edit.after} cannot be written safely: a block one program spans {unread.size} with "
                f"({unread.test}), and {unread.size} is not a size {tunable.computed} reads where it is computed, so "
                "no row up to the size it covers can be written"
            )
    if not covered:
        return None
    edit, tunable, cover = covered[0]
    value = int(edit.after)
    reach = cover.reach(value)
    line = (
        f"{tunable.name}={value} only where {cover.size} <= {reach} (one block spans {cover.size}: {cover.test}), "
        f"the computation {tunable.computed} above it"
    )
    if len(covered) > 1:
        raise TunableError(
            f"{', '.join(e.key for e, _, _ in covered)}: each is a block one program spans a size with, written only "
            "up to the size it covers; set one at a time"
        )
    others = {e.key: e.after for e in edits if e is not edit}
    table = TunedTable(size=cover.size, buckets=[Bucket(upto=reach, values={edit.key: value})])
    try:
        base = apply_source(old, others, filename=filename).new_source if others else old
        tabled = write_table(base or old, table, filename=filename).new_source
    except TunableError:
        tabled = None
    if tabled is None or guard_edit(old, tabled).new_source != tabled:
        raise TunableError(
            f"{edit.key}={value} cannot be written safely: a block one program spans {cover.size} with "
            f"({cover.test}) is wrong past {cover.size}={reach}, and it could not be written as a row up to there "
            f"with {tunable.computed} above it"
        )
    return tabled, line


def _launch_size(source: str, cover: Cover) -> str:
    """The size a block covers (:attr:`Cover.size`, the kernel's parameter) as the launching function names it: the
    name every launch of the kernel passes for it (``SPLITS=splits`` gives ``splits``); the parameter's own name
    where a launch passes none, or launches pass different ones."""
    module = cst.parse_module(source)
    kernel = next(
        (n for n in walk(module) if isinstance(n, cst.FunctionDef) and n.name.value == cover.kernel and is_jit(n)),
        None,
    )
    if kernel is None:
        return cover.size
    passed: set[str] = set()
    for node in walk(module):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript)):
            continue
        name = launched(node.func.value)
        if not (isinstance(name, cst.Name) and name.value == cover.kernel):
            continue
        read = list(itertools.takewhile(lambda a: not a.star, node.args))
        given = named_args(read, param_names(kernel)).get(cover.size)
        passed.add(given.value if isinstance(given, cst.Name) else cover.size)
    return passed.pop() if len(passed) == 1 else cover.size


def verify_only(old: str, new: str, expected: Mapping[str, Value], *, filename: str = "kernel.py") -> list[str]:
    """Problems if ``new`` differs from ``old`` in anything but the knobs ``expected`` (key -> value).

    Checks the knob values (every other knob unchanged, each expected one at its value) and the text
    (only lines holding a moved literal or its linked grid literals differ).
    """
    try:
        _, old_sites, before = analyze(old, filename)
    except TunableError as exc:
        return [exc.message]
    return _verify(old, old_sites, before, new, expected, filename)


def _moved_with_its_literal(
    t: Tunable, now: Value | None, before: list[Tunable], expected: Mapping[str, Value]
) -> bool:
    """Whether ``t``, a setting computed from literals alone (:data:`CONSTANT_SOURCE`: SGLang's
    ``config["BLOCK_SIZE_M"]`` of a local ``config = {"BLOCK_SIZE_M": 128, ...}``), changed only because the edit
    moved the literal it reads, which another launch takes as a knob of the same name (the same dict splatted
    ``**config`` into the GEMM): the two readers of one literal move together, as they must (the tile count
    kernel and the GEMM agree on the tile), not an edit past its plan (breaker23's q31)."""
    if t.kind is not TunableKind.COMPUTED_SETTING or t.value_source != CONSTANT_SOURCE:
        return False
    return any(b.key in expected and b.name == t.name and expected[b.key] == now for b in before if b is not t)


def _verify(
    old: str,
    old_sites: list[Site],
    before: list[Tunable],
    new: str,
    expected: Mapping[str, Value],
    filename: str,
    *,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
) -> list[str]:
    problems: list[str] = []
    try:
        after = {t.key: t for t in analyze(new, filename, gpu=gpu, **evaluated(evaluation))[2]}
    except TunableError as exc:
        return [exc.message]
    for t in before:
        now = after.get(t.key)
        if now is None:
            problems.append(f"{t.key} disappeared")
        elif t.key in expected:
            if now.value != expected[t.key]:
                problems.append(f"{t.key} is {now.value!r}, expected {expected[t.key]!r}")
        elif now.value != t.value and not _moved_with_its_literal(t, now.value, before, expected):
            problems.append(f"{t.key} changed {t.value!r} -> {now.value!r} but was not planned")
    allowed_lines: set[int] = set()
    regions = False
    for s in old_sites:
        if s.key not in expected:
            continue
        if s.literal is not None and s.override is None and s.region is None:
            allowed_lines.add(s.literal.line)
        if s.insert is not None:
            allowed_lines.add(s.insert.line)
        for span in [s.override, s.region.span if s.region else None]:
            if span is not None:
                allowed_lines.update(range(span.line, span.end_line + 1))
        if s.tuned is not None:
            allowed_lines.update(range(s.tuned.line, s.tuned.end_line + 2))
            if s.tuned.hoist is not None:  # the launch lines, where the variable replaces the expression
                allowed_lines.update(range(s.tuned.line, max(sp.end_line for sp in s.tuned.hoist.spans) + 1))
        regions = regions or s.region is not None or s.tuned is not None
        allowed_lines.update(lk.literal.line for lk in s.links)
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if len(old_lines) != len(new_lines) and not regions:
        problems.append(f"line count changed ({len(old_lines)} -> {len(new_lines)})")
    else:
        matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
        for tag, i1, i2, _, _ in matcher.get_opcodes():
            if tag == "equal":
                continue
            for i in range(i1 + 1, max(i2, i1 + 1) + 1):
                if i not in allowed_lines:
                    problems.append(f"{filename}:{i} changed but holds no planned knob")
    return problems


def knob_diff(old: str, new: str, *, filename: str = "kernel.py") -> dict[str, tuple[Value | None, Value | None]]:
    """Knob key -> (before, after) for every knob whose value differs between two texts.

    Used to record what a free-form (agent) edit did to the knobs; returns ``{}`` when either text
    does not parse.
    """
    try:
        before = {t.key: t.value for t in discover_source(old, filename)}
        after = {t.key: t.value for t in discover_source(new, filename)}
    except TunableError:
        return {}
    out: dict[str, tuple[Value | None, Value | None]] = {}
    for k in sorted(before.keys() | after.keys()):
        if before.get(k) != after.get(k):
            out[k] = (before.get(k), after.get(k))
    return out
