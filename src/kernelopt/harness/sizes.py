"""Problem sizes: the module-level sizes of reference.py, overridden by the task card or scaled down.

Published KernelBench problems declare their sizes at module level, in every way Python allows:
``batch_size = 16``, ``N = 2048 * 2``, ``input_shape = (32768,)``, ``height = width = 128``,
``D, H, W = 16, 32, 32``, and shapes derived from them (``bias_shape = (out_channels, 1, 1)``) that
``get_inputs()`` / ``get_init_inputs()`` read. The task card's ``sizes`` (name -> number) replaces some
of them; ``size_scale`` (``--size-scale``) shrinks the others for a quick run. The file stays as written.

This module reads those bindings by parsing the file (never importing it), evaluates their arithmetic,
tells a size from a setting and makes a :class:`SizePlan`: which names are scaled (from -> to), which are
kept and why, and the values the loader substitutes into the source before it runs
(:func:`kernelopt.worker.loader.load_module`), so that everything derived from them follows.

What is a size, by name and use: a name ``get_inputs`` passes as a tensor dimension (directly, through a
module-level shape tuple, or through any ``*_shape`` tuple) or one named as a size (batch, channels,
features, height, width, length, ...); never a name that says it is a setting (kernel size, stride,
padding, dilation, groups, heads, pool sizes, dims, eps, ...), and never an integer below
:data:`SCALE_MIN_VALUE`. The problem's own rules are kept: a size that ``groups`` / ``num_groups`` /
heads divide stays a multiple of them, a spatial extent stays at least as large as the largest kernel or
pool window, and sizes that were equal stay equal (the scaled value is a function of the value alone).
Whether a plan really builds is tried by running the reference once (the gate's ``size`` run); when it
does not, :func:`size_candidates` gives the nearest larger ones to try, and the plan chosen is kept beside
the workspace's files (:data:`SIZES_FILE`) for every later run. Reads files; imports and runs nothing.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kernelopt import pyparse
from kernelopt.errors import InputFileError, UsageError
from kernelopt.fileio import read_python
from kernelopt.numeric import is_int, is_number
from kernelopt.taskcard import TaskCard

#: Integers below this are never scaled: kernel sizes, strides, small channel counts or ranks, whose meaning
#: a scale would change, and which cost nothing anyway (our choice).
SCALE_MIN_VALUE = 16

#: The most plans :func:`size_candidates` offers (the requested one first).
MAX_CANDIDATES = 12

#: What a name like ``dim`` says it is; ``get_inputs`` passing it as a tensor dimension overrules the name.
DIM_INDEX = "a dimension index"

#: A size value: a number or a literal tuple of numbers (``input_shape = (32768,)``).
SizeValue = int | float | tuple[int | float, ...]

# A setting, never a size, by its name (first match names the rule): (pattern, what it is).
_SETTINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.IGNORECASE), what)
    for p, what in (
        (r"_shape$", ""),  # a shape tuple is a size, whatever else its name says (scale_shape, bias_shape)
        (r"kernel|window|filter", "a kernel size"),
        (r"stride", "a stride"),
        (r"padding|^pad", "a padding"),
        (r"dilation", "a dilation"),
        (r"pool", "a pool size"),
        (r"group", "a group count"),
        (r"num_heads?$|n_heads?$|^heads?$", "a head count"),  # head_dim is a size
        (r"(?-i:^(dims?|axis|axes)$)|_dim$|^dim_|reduce", DIM_INDEX),  # DIM in capitals is a size
        (
            r"eps|momentum|slope|dropout|_p$|prob|scale|factor|value|^min|^max|min$|max$|clamp|divis|divide|multipl"
            r"|constant|weight|bias|alpha|beta|gamma|temperature|threshold|^return|indices|margin|^p$|norm_type",
            "not a size",
        ),
        (r"^(seed|iters?|steps?|repeat|num_layers|layers|top_?k)$", "not a size"),
    )
)
_SIZE_NAME = re.compile(
    r"batch|channel|feature|height|width|depth|length|^len|seq|hidden|embed|size|dim\d*$|^(n|m|k|l|b|d|h|w)$"
    r"|^n_|_n$|classes|tokens|spatial|rows|cols|elements|numel",
    re.IGNORECASE,
)
_SPATIAL_NAME = re.compile(
    r"height|width|depth|length|^len|seq|spatial|^(d|h|w|l)$|^dim[1-9]$|_in$|^input_length", re.IGNORECASE
)
_DIVISOR = re.compile(r"group|num_heads?$|n_heads?$|^heads?$", re.IGNORECASE)
_BATCH_NAME = re.compile(r"batch|^b$", re.IGNORECASE)
_WINDOW = re.compile(r"kernel|window|pool|filter", re.IGNORECASE)
#: Calls that build a tensor: their size arguments are its dimensions.
TENSOR_MAKERS = frozenset(
    {
        "rand",
        "randn",
        "randint",
        "ones",
        "zeros",
        "empty",
        "full",
        "arange",
        "randperm",
        "normal",
        "empty_strided",
        "rand_like",
        "eye",
        "tril",
        "triu",
        "linspace",
    }
)


class SizeScaleError(UsageError):
    """No size scale keeps the problem valid (the rule that prevents it is in the message); an ERROR of the
    problem, never a FAIL of its kernel."""


@dataclass(frozen=True)
class Binding:
    """One module-level name of reference.py with a number or tuple value.

    Attributes:
        name: the name bound.
        value: its value as written (arithmetic evaluated).
        line: the line of the statement that binds it.
        derived: its expression reads other module-level names (``bias_shape = (out_channels, 1, 1)``): it
            follows them, it is never substituted itself.
        names: the module-level names its expression reads.
    """

    name: str
    value: SizeValue
    line: int
    derived: bool
    names: frozenset[str]


class ScaledSize(BaseModel):
    """A size the plan changed: ``name`` from ``before`` to ``after`` (``derived``: it follows others;
    ``card``: the task card's ``sizes`` set it)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    before: SizeValue
    after: SizeValue
    derived: bool = False
    card: bool = False


class KeptSize(BaseModel):
    """An integer the plan left as written, and why (``a kernel size``, ``a multiple of num_groups=8``...)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    value: SizeValue
    reason: str


class SizePlan(BaseModel):
    """What a problem's sizes become.

    Attributes:
        scale: the scale the plan applies (``None``: none asked; it may be larger than the scale asked when
            the asked one breaks the problem).
        asked_scale: the scale asked for.
        spatial_floor: spatial extents are at least this many times the largest kernel or pool window.
        scaled: the names that changed, in file order (derived ones included).
        kept: the integers left as written and why, in file order.
        constants: what the loader substitutes into reference.py (name -> value), before anything derived
            is computed.
    """

    model_config = ConfigDict(extra="forbid")

    scale: float | None = None
    asked_scale: float | None = None
    spatial_floor: int = 1
    scaled: list[ScaledSize] = Field(default_factory=list)
    kept: list[KeptSize] = Field(default_factory=list)
    constants: dict[str, SizeValue] = Field(default_factory=dict)

    def line(self) -> str:
        """``sizes x0.05: batch_size 16 -> 1, N 4096 -> 205; kept: kernel_size 3 (a kernel size)``."""
        scale = "" if self.scale is None else f" x{self.scale:g}"
        if self.asked_scale is not None and self.scale is not None and self.scale != self.asked_scale:
            scale += f" (x{self.asked_scale:g} asked)"
        moved = ", ".join(f"{s.name} {fmt_size(s.before)} -> {fmt_size(s.after)}" for s in self.scaled) or "none"
        kept = ", ".join(f"{k.name} {fmt_size(k.value)} ({k.reason})" for k in self.kept)
        return f"sizes{scale}: {moved}" + (f"; kept: {kept}" if kept else "")


def fmt_size(value: SizeValue) -> str:
    """``205``, ``(1638,)``, ``0.5``: a size as the tables show it."""
    return str(tuple(value)) if isinstance(value, tuple) else f"{value:g}" if isinstance(value, float) else str(value)


# -- reading the file ----------------------------------------------------------------------------


def _parse(reference_py: Path) -> ast.Module:
    path = Path(reference_py)
    try:
        return pyparse.parse(read_python(path), filename=str(path))
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except SyntaxError as exc:
        raise InputFileError(path, f"syntax error at line {exc.lineno}: {exc.msg}") from None


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Div: lambda a, b: a / b,
    ast.Mod: lambda a, b: a % b,
}


def evaluate(node: ast.expr, env: Mapping[str, SizeValue]) -> SizeValue | None:
    """The value of a size expression (numbers, names of ``env``, ``+ - * / // % **``, ``<< >>`` of integers, a flat
    tuple), or ``None`` when it is anything else."""
    if isinstance(node, ast.Constant):
        c = node.value
        return c if is_number(c) else None
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        v = evaluate(node.operand, env)
        return None if not isinstance(v, int | float) else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp):
        a, b = evaluate(node.left, env), evaluate(node.right, env)
        if not isinstance(a, int | float) or not isinstance(b, int | float):
            return None
        if isinstance(node.op, ast.Pow):
            return a**b if abs(b) <= 64 and abs(a) <= 2**20 else None
        if isinstance(node.op, ast.LShift | ast.RShift):  # N = 1 << 20, as sizes are often written
            if not isinstance(a, int) or not isinstance(b, int) or not 0 <= b <= 64:
                return None
            return a << b if isinstance(node.op, ast.LShift) else a >> b
        op = _BINARY.get(type(node.op))
        try:
            return op(a, b) if op else None
        except ZeroDivisionError:
            return None
    if isinstance(node, ast.Tuple | ast.List):
        items = [evaluate(e, env) for e in node.elts]
        if any(not isinstance(v, int | float) for v in items):
            return None
        return tuple(v for v in items if isinstance(v, int | float))
    return None


def _names(node: ast.AST) -> frozenset[str]:
    return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


def _statements(tree: ast.Module) -> Iterable[tuple[list[ast.expr], ast.expr, int]]:
    for node in tree.body:
        if isinstance(node, ast.Assign):
            yield node.targets, node.value, node.lineno
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            yield [node.target], node.value, node.lineno


def bindings(tree: ast.Module, env: Mapping[str, SizeValue] | None = None) -> dict[str, Binding]:
    """The module-level number and tuple bindings of ``tree`` in file order (a name bound twice: its last),
    evaluated with ``env`` overriding the values of the names it holds (as the loader substitutes them)."""
    over = dict(env or {})
    values: dict[str, SizeValue] = {}
    out: dict[str, Binding] = {}

    def bind(name: str, value: SizeValue | None, line: int, names: frozenset[str]) -> None:
        if name in over:
            value = over[name]
        if value is None:
            values.pop(name, None)
            out.pop(name, None)
            return
        values[name] = value
        out.pop(name, None)
        out[name] = Binding(name, value, line, derived=bool(names & set(values) - {name}), names=names)

    for targets, value_node, line in _statements(tree):
        names = _names(value_node)
        value = evaluate(value_node, values)
        for target in targets:
            if isinstance(target, ast.Name):
                bind(target.id, value, line, names)
            elif isinstance(target, ast.Tuple | ast.List) and all(isinstance(e, ast.Name) for e in target.elts):
                elts = target.elts
                if isinstance(value_node, ast.Tuple | ast.List) and len(value_node.elts) == len(elts):
                    for e, v in zip(elts, value_node.elts, strict=True):
                        assert isinstance(e, ast.Name)
                        bind(e.id, evaluate(v, values), line, _names(v))
                else:
                    for e in elts:
                        assert isinstance(e, ast.Name)
                        bind(e.id, None, line, names)
    return out


def size_constants(reference_py: Path) -> dict[str, int | float]:
    """Module-level names of ``reference_py`` bound to a number (``N = 4096``, ``N = 2048 * 2``,
    ``D, H, W = 16, 32, 32``; bools excluded), in file order, with their values.

    Raises:
        InputFileError: the file is missing or is not valid Python.
    """
    found = bindings(_parse(reference_py))
    return {b.name: b.value for b in found.values() if isinstance(b.value, int | float)}


def module_sizes(
    reference_py: Path, constants: Mapping[str, SizeValue] | None = None, *, least: int = SCALE_MIN_VALUE
) -> dict[str, SizeValue]:
    """The module-level sizes of ``reference_py`` a size scale would scale (see the module docstring: a tensor
    dimension of ``get_inputs`` or a name that says it is a size, no setting, none below ``least``, none derived from
    others), with their values as a run sees them (``constants`` over the file's), in file order. ``least``: a size
    scale's :data:`SCALE_MIN_VALUE`; the code net moves smaller ones too (:data:`kernelopt.tuning.code_net.
    CODE_NET_LEAST`: a batch of 2, a volume of 6 x 6 x 6, which a scale leaves alone and a rewrite may get wrong).

    Raises:
        InputFileError: the file is missing or is not valid Python.
    """
    tree = _parse(reference_py)
    found = bindings(tree, constants)
    dims = _tensor_dim_names(tree, found)
    return {b.name: b.value for b in found.values() if not b.derived and _size_kind(b, dims, least) is None}


def size_args(call: ast.Call, name: str) -> list[ast.expr]:
    """The arguments of a call of the tensor maker ``name`` (one of :data:`TENSOR_MAKERS`) that are its size:
    ``randint(low, high, size)`` and ``randint(high, size)`` their last positional one (torch's two spellings; the
    bound is no size), ``full(size, value)`` its first, ``normal(mean, std, size)`` its third on, and ``size=``
    (then no positional one of ``randint``); every positional one of the others (``randn(n, m)``, ``zeros((n,
    m))``). The one reading of a maker's size, here and in :mod:`kernelopt.harness.sizekeys`."""
    args: list[ast.expr] = list(call.args)
    sized = [kw.value for kw in call.keywords if kw.arg == "size"]
    if name == "randint":
        args = [] if sized else args[-1:] if len(args) >= 2 else []
    elif name == "full":
        args = args[:1]
    elif name == "normal":
        args = args[2:]
    return args + sized


def _tensor_dim_names(tree: ast.Module, found: Mapping[str, Binding]) -> set[str]:
    """The module-level names ``get_inputs`` passes as tensor dimensions (through shape tuples too), and
    the names every ``*_shape`` binding reads."""
    direct: set[str] = set()
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "get_inputs"):
            continue
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            func = call.func
            attr = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if attr not in TENSOR_MAKERS:
                continue
            for arg in size_args(call, attr):
                direct |= _names(arg)
    direct |= {n for b in found.values() if b.name.endswith("_shape") for n in b.names} | {
        b.name for b in found.values() if b.name.endswith("_shape")
    }
    # through derived bindings: input_shape = (batch_size, dim) makes batch_size and dim dimensions
    todo, seen = list(direct), set(direct)
    while todo:
        b = found.get(todo.pop())
        if b is None:
            continue
        for n in b.names - seen:
            seen.add(n)
            todo.append(n)
    return seen


def _setting(name: str) -> str | None:
    """What a setting name says it is, or ``None`` when the name does not say it is a setting."""
    for pattern, what in _SETTINGS:
        if pattern.search(name):
            return what or None
    return None


# -- the plan ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Rules:
    """The problem's own rules a scaled size keeps."""

    divisors: dict[str, int]  # group / head counts: a size they divide stays a multiple of them
    window: tuple[str, int] | None  # the largest kernel or pool window: spatial extents stay at least this


def _literal_divisors(tree: ast.Module) -> dict[str, int]:
    """Group and head counts written in the code rather than at module level: an integer default of a
    parameter named so (``def __init__(self, ..., num_groups=4)``), a keyword argument (``groups=4``), and
    ``nn.GroupNorm(8, channels)``'s first argument."""
    out: dict[str, int] = {}

    def add(name: str, node: ast.AST | None) -> None:
        value = node.value if isinstance(node, ast.Constant) else None
        if is_int(value) and value > 1 and _DIVISOR.search(name):
            out.setdefault(name, value)

    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            args = node.args
            positional = args.posonlyargs + args.args
            for arg, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True):
                add(arg.arg, default)
            for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
                add(arg.arg, kw_default)
        elif isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg:
                    add(kw.arg, kw.value)
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "GroupNorm" and node.args:
                add("num_groups", node.args[0])
    return out


def _rules(found: Mapping[str, Binding], tree: ast.Module) -> _Rules:
    divisors: dict[str, int] = {k: v for k, v in _literal_divisors(tree).items() if k not in found}
    window: tuple[str, int] | None = None
    for b in found.values():
        if b.derived:
            continue
        values = b.value if isinstance(b.value, tuple) else (b.value,)
        ints = [v for v in values if is_int(v)]
        if _DIVISOR.search(b.name) and len(ints) == 1 and ints[0] > 1:
            divisors[b.name] = ints[0]
        if _WINDOW.search(b.name) and ints and max(ints) > 1 and (window is None or max(ints) > window[1]):
            window = (b.name, max(ints))
    return _Rules(divisors, window)


def _size_kind(b: Binding, dims: set[str], least: int = SCALE_MIN_VALUE) -> str | None:
    """``None`` when ``b`` is a size to scale (none below ``least``); else why it is kept."""
    what = _setting(b.name)
    values = b.value if isinstance(b.value, tuple) else (b.value,)
    # a dimension index is below a tensor's rank: a "dim" of 16 or more, or one get_inputs uses as an
    # extent, is a size (dim = 16384, hidden_dim = 4096)
    big = max((abs(v) for v in values), default=0) >= SCALE_MIN_VALUE
    if what is not None and not (what == DIM_INDEX and (b.name in dims or big)):
        return what
    if any(isinstance(v, float) for v in values):
        return "not an integer"
    if b.name not in dims and not _SIZE_NAME.search(b.name):
        return "not used as a tensor dimension"
    if max((abs(v) for v in values), default=0) < least:
        return f"below {least}"
    return None


class _Kind(StrEnum):
    """What a size measures, for the rules it keeps: equal values of one kind stay equal."""

    BATCH = "batch"
    SPATIAL = "spatial"  # at least the largest kernel or pool window
    CHANNEL = "channel"  # channels, features, matrix extents, shape tuples: a multiple of the group counts


def _kind(name: str) -> _Kind:
    if _BATCH_NAME.search(name):
        return _Kind.BATCH
    return _Kind.SPATIAL if _SPATIAL_NAME.search(name) else _Kind.CHANNEL


def _scale_value(v: int, scale: float, *, kind: _Kind, rules: _Rules, floor_factor: int) -> tuple[int, str | None]:
    """``v`` scaled under the rules, and the rule that kept it from shrinking further (``None``: none)."""
    if v < SCALE_MIN_VALUE:
        return v, f"below {SCALE_MIN_VALUE}"
    target = max(1, round(v * scale))
    why: str | None = None
    step = 1
    if kind is _Kind.CHANNEL:
        for name, g in rules.divisors.items():
            if v % g == 0:
                step = math.lcm(step, g)
                if target < g or target % g:
                    why = f"a multiple of {name}={g}"
    lowest = step
    if kind is _Kind.SPATIAL and rules.window is not None:
        name, k = rules.window
        floor = k * floor_factor
        if target < floor:
            lowest = max(lowest, floor)
            why = f"at least {name}={k}" + (f" x{floor_factor}" if floor_factor > 1 else "")
    out = max(lowest, target)
    out = -(-out // step) * step  # a multiple of every group count that divides v
    return min(v, out), why


def _plan(
    found: Mapping[str, Binding],
    dims: set[str],
    card: Mapping[str, int | float],
    scale: float | None,
    floor_factor: int,
    tree: ast.Module,
) -> SizePlan:
    rules = _rules(found, tree)
    constants: dict[str, SizeValue] = dict(card)
    kept: list[KeptSize] = []
    memo: dict[tuple[int, _Kind], tuple[int, str | None]] = {}

    def scaled(v: int | float, kind: _Kind) -> tuple[int | float, str | None]:
        if scale is None or not isinstance(v, int):
            return v, None
        if (v, kind) not in memo:  # one value, one result: sizes of a kind that were equal stay equal
            memo[v, kind] = _scale_value(v, scale, kind=kind, rules=rules, floor_factor=floor_factor)
        return memo[v, kind]

    for b in found.values():
        if b.name in card or b.derived or scale is None or scale == 1:
            continue
        why_kept = _size_kind(b, dims)
        ints = b.value if isinstance(b.value, tuple) else (b.value,)
        if why_kept is not None:
            if any(isinstance(v, int) for v in ints) and why_kept != "not an integer":
                kept.append(KeptSize(name=b.name, value=b.value, reason=why_kept))
            continue
        kind = _kind(b.name)
        results = [scaled(v, kind) for v in ints]
        after: SizeValue = tuple(r[0] for r in results) if isinstance(b.value, tuple) else results[0][0]
        if after == b.value:
            why = next((r[1] for r in results if r[1]), None) or "too small to shrink"
            kept.append(KeptSize(name=b.name, value=b.value, reason=why))
        else:
            constants[b.name] = after
    after_all = bindings(tree, constants)
    changes: list[ScaledSize] = []
    for name, b in found.items():
        now = after_all.get(name)
        if now is None or now.value == b.value:
            continue
        if name in card or name in constants or b.derived:
            changes.append(ScaledSize(name=name, before=b.value, after=now.value, derived=b.derived, card=name in card))
    return SizePlan(scale=scale, spatial_floor=floor_factor, scaled=changes, kept=kept, constants=constants)


def _checked(
    reference_py: Path, sizes: Mapping[str, int | float], scale: float | None
) -> tuple[ast.Module, dict[str, Binding]]:
    if scale is not None and not 0 < scale <= 1:
        raise UsageError(f"size scale {scale:g} is outside (0, 1]", hint="use e.g. --size-scale 0.25")
    tree = _parse(reference_py)
    found = bindings(tree)
    for name, value in sizes.items():
        if name not in found:
            known = ", ".join(b.name for b in found.values() if isinstance(b.value, int | float)) or "none"
            raise UsageError(
                f"task card sizes: {reference_py} defines no module-level size constant {name!r}",
                hint=f"its constants: {known}",
            )
        if not is_number(value) or value <= 0:
            raise UsageError(f"task card sizes: {name} = {value!r} is not a positive number")
    return tree, found


def plan_sizes(
    reference_py: Path, *, sizes: Mapping[str, int | float], scale: float | None, spatial_floor: int = 1
) -> SizePlan:
    """The plan of ``reference_py``'s sizes: the task card's ``sizes`` as given, the sizes scaled by
    ``scale`` under the problem's rules (see the module docstring).

    Raises:
        UsageError: ``sizes`` names a name reference.py does not bind (exit 2, naming it), a value is not a
            positive number, or ``scale`` is outside (0, 1].
        SizeScaleError: ``scale`` < 1 is asked and no size of the file can shrink (the message says what
            keeps each one).
    """
    tree, found = _checked(reference_py, sizes, scale)
    dims = _tensor_dim_names(tree, found)
    plan = _plan(found, dims, sizes, scale, spatial_floor, tree)
    plan = plan.model_copy(update={"asked_scale": scale})
    if scale is not None and scale < 1 and not any(not s.card for s in plan.scaled):
        name = Path(reference_py).name
        if not plan.kept:
            raise SizeScaleError(
                f"size scale {scale:g} changes nothing: {name} has no module-level integer size to scale",
                hint="its sizes are written elsewhere (SHAPES, get_inputs' defaults or literals in its body): run "
                "it at full size (no --size-scale), add a smaller SHAPES entry, or make the sizes module-level "
                "constants (batch_size = 16384)",
            )
        kept = "; ".join(f"{k.name}={fmt_size(k.value)}: {k.reason}" for k in plan.kept)
        raise SizeScaleError(
            f"size scale {scale:g} cannot shrink {Path(reference_py).name}: {kept}",
            hint="run it at full size (no --size-scale), or give its sizes in the task card (sizes:)",
        )
    return plan


def size_candidates(reference_py: Path, *, sizes: Mapping[str, int | float], scale: float | None) -> list[SizePlan]:
    """The plan asked for first, then the nearest larger ones to try when it breaks the problem: spatial
    extents at 2 and 4 times the largest window, then the same at each of :func:`fallback_scales`, up to
    :data:`MAX_CANDIDATES` plans (distinct ones, each still shrinking something).

    Raises:
        as :func:`plan_sizes` (for the plan asked for).
    """
    first = plan_sizes(reference_py, sizes=sizes, scale=scale)
    if scale is None or scale >= 1:
        return [first]
    tree, found = _checked(reference_py, sizes, scale)
    dims = _tensor_dim_names(tree, found)
    out, seen = [first], [first.constants]
    for s in fallback_scales(scale):
        for factor in (1, 2, 4):
            plan = _plan(found, dims, sizes, s, factor, tree).model_copy(update={"asked_scale": scale})
            if plan.constants not in seen and any(not c.card for c in plan.scaled):
                seen.append(plan.constants)
                out.append(plan)
    return out[:MAX_CANDIDATES]


def fallback_scales(scale: float) -> list[float]:
    """``scale``, then the powers of two above it, below 1 (0.05: 0.05, 0.0625, 0.125, 0.25, 0.5): a power of
    two keeps the ratios of power-of-two sizes exact, so an equality the problem relies on through its
    arithmetic (a transposed convolution's output width equal to its channel count) survives."""
    out = [scale]
    p = 2.0 ** math.ceil(math.log2(scale))
    while p < 1:
        if p > scale:
            out.append(p)
        p *= 2
    return out


def effective_constants(
    reference_py: Path, *, sizes: Mapping[str, int | float], scale: float | None
) -> dict[str, SizeValue]:
    """The values the loader substitutes (the plan asked for, :func:`plan_sizes`); empty when neither
    ``sizes`` nor ``scale`` is asked.

    Raises:
        as :func:`plan_sizes`.
    """
    if not sizes and scale is None:
        return {}
    return dict(plan_sizes(reference_py, sizes=sizes, scale=scale).constants)


SIZES_FILE = "sizes.json"
"""The plan the gate chose (the first that ran), in the workspace's ``.kernelopt/``, reused while its key holds."""


class ChosenSizes(BaseModel):
    """``.kernelopt/sizes.json``: the plan the gate's ``size`` run chose, and what it was chosen for."""

    model_config = ConfigDict(extra="forbid")

    key: str
    plan: SizePlan


def sizes_key(reference_py: Path, sizes: Mapping[str, int | float], scale: float | None) -> str:
    """What a chosen plan holds for: reference.py's content, the task card's sizes and the scale."""
    digest = hashlib.sha256(Path(reference_py).read_bytes()).hexdigest()
    named = ",".join(f"{k}={v}" for k, v in sorted(sizes.items()))
    return f"{digest}|{scale}|{named}"


def chosen_plan(state_dir: Path, key: str | None) -> SizePlan | None:
    """The plan chosen for ``key`` in ``state_dir`` (a workspace's ``.kernelopt/``; ``key=None``: the last one
    chosen, whatever for), ``None`` when there is none for it."""
    try:
        chosen = ChosenSizes.model_validate_json((Path(state_dir) / SIZES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return chosen.plan if key is None or chosen.key == key else None


def card_sizes(reference_py: Path, card: TaskCard, scale: float | None) -> dict[str, SizeValue]:
    """The values to substitute for ``card``'s sizes and ``scale``: the plan the gate chose when it chose one
    for them (``.kernelopt/sizes.json`` beside reference.py), else the plan asked for.

    Raises:
        as :func:`effective_constants`.
    """
    if not card.sizes and scale is None:
        return {}
    chosen = chosen_plan(Path(reference_py).parent / ".kernelopt", sizes_key(reference_py, card.sizes, scale))
    if chosen is not None:
        return dict(chosen.constants)
    return effective_constants(reference_py, sizes=card.sizes, scale=scale)


def card_constants(reference_py: Path, size_scale: float | None) -> dict[str, SizeValue]:
    """The constants for a process that has only the paths (the profiler's driver): the task card
    ``README.md`` beside reference.py and ``size_scale`` (``KERNELOPT_SIZE_SCALE``; None: the card's),
    the same sizes the gate uses (:func:`card_sizes`).

    Raises:
        UsageError: as :func:`effective_constants`.
        WorkspaceError: the task card is invalid.
    """
    card_path = Path(reference_py).parent / "README.md"
    card = TaskCard.load(card_path) if card_path.is_file() else TaskCard()
    scale = card.size_scale if size_scale is None else size_scale
    return card_sizes(reference_py, card, scale)
