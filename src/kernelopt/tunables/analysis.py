"""Finding knobs in a source text through libcst: launch sites, names followed to their literal, grid
literals kept consistent or refused, autotune config lists, heuristics, ``**dict`` launches, launch
options left out, computed values overridable at the launch, semantic parameters, marked constants.
Pure: nothing is imported or run (autotune configs built by code come in evaluated, see
:mod:`kernelopt.tunables.evaluate`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import libcst as cst
from libcst.metadata import CodeRange

from kernelopt import pyparse
from kernelopt.actions import ActionCategory
from kernelopt.numeric import is_int
from kernelopt.oneline import one_line
from kernelopt.tunables.arithmetic import integer_value
from kernelopt.tunables.bindings import (
    assigned_once,
    bindings,
    element_read,
    held_path,
    path_parts,
    reached_names,
    read_names,
    through_names,
    unpacking,
)
from kernelopt.tunables.blocks import (
    BLOCK_PTR_ARGS,
    DESCRIPTOR_ARGS,
    body_constexprs,
    call_args,
    cdiv_args,
    child_blocks,
    child_nodes,
    compared_sizes,
    launched,
    module_statements,
    named_args,
    one_block,
    programs_tiled_by,
    steps_by,
    visit,
    walk,
)
from kernelopt.tunables.called_autotune import called_autotunes
from kernelopt.tunables.conditions import conditions_over
from kernelopt.tunables.decorator_words import decorator_aliases, decorator_word
from kernelopt.tunables.dict_origin import COPIES, file_origin
from kernelopt.tunables.filters import divisors, filter_sizes, layout_tiles
from kernelopt.tunables.grains import grain_sizes, passed_grains, split_groups
from kernelopt.tunables.groups import group_refusal
from kernelopt.tunables.inline_guard import marked_tuned, read_inline_guard, read_statement_guard
from kernelopt.tunables.kernel_params import parameter_kernel
from kernelopt.tunables.knobs import (
    ABSENT_OPTION_SOURCE,
    BLOCKISH,
    CONSTANT_SOURCE,
    LAUNCH_OPTIONS,
    LOOP_OPTIONS,
    absent_options,
    is_work_group,
    knob_rule,
    semantic_reason,
)
from kernelopt.tunables.launches import launch_label
from kernelopt.tunables.model import (
    AutotuneEvaluation,
    AutotuneSpace,
    Bucket,
    Cover,
    Legality,
    ShapeSizes,
    Tunable,
    TunableError,
    TunableKind,
    TunedTable,
    Value,
)
from kernelopt.tunables.one_scope import OneScope, Returns
from kernelopt.tunables.quotients import quotient_divisors
from kernelopt.tunables.signature import param_names, params_of
from kernelopt.tunables.syntax import NODES_KEPT, kept_by_text, parsed
from kernelopt.tunables.tile_numel import crossed_ranges
from kernelopt.vocabulary import DOT_MIN_K, DOT_MIN_K_DEFAULT, ENVIRONMENT_READS

MARKER = "kernelopt: tunable"
NOT_TAKEN = "a branch the task's run did not take"
"""How the refusal of a marked constant in a module-level branch the run did not take begins: a change by
name moves the branch taken, not this one."""
#: How a refusal that only a run of the task would lift ends; a run that was made and failed replaces it with
#: its cause (:func:`kernelopt.tunables.evaluate.discover_evaluated`).
GIVE_REFERENCE = "(give the reference)"
"""The comment on the lines an edit writes after a computed setting (see :class:`TunedRegion`)."""

# ---------------------------------------------------------------------------------------------------
# Analysis (internal): find the literal nodes behind every knob


@dataclass
class SourceLiteral:
    node: cst.CSTNode
    value: Value
    start: int
    end: int
    line: int


@dataclass
class _Link:
    literal: SourceLiteral
    delta: int  # the linked literal holds value + delta (0 for the divisor, -1 for "+ (B - 1)")


@dataclass
class Site:
    key: str
    name: str
    kind: TunableKind
    literal: SourceLiteral | None
    location_line: int
    kernel: str | None = None
    feeds: list[str] = field(default_factory=list)
    used_at: list[int] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    links: list[_Link] = field(default_factory=list)
    refused: str | None = None
    marker_rule: tuple[list[ActionCategory], Legality] | None = None
    value: Value | None = None
    # a computed value: its source text, and the span an override literal replaces
    computed: str | None = None
    override: Span | None = None
    # an absent launch option: where ``, name=value`` is inserted
    insert: Insertion | None = None
    # an autotune list built by code, evaluated: the ``configs=`` expression a literal list replaces
    region: ConfigRegion | None = None
    semantic: bool = False
    value_source: str | None = None
    # a computed setting tuned where it is computed: the variable and the lines written after its computation
    tuned: TunedRegion | None = None
    size_names: list[str] = field(default_factory=list)
    # a literal bound once to a local of the launching function (``BLOCK_SIZE: int = 4096``): where a table by size
    # goes, after the binding, the literal its fallback (leftovers21 l9); its ``size_names`` the sizes it may bucket on
    table_region: TunedRegion | None = None
    # such a literal with tuned lines after it already: the table they hold (what a table's writer reads back)
    read_table: TunedTable | None = None
    # a heuristic computed from the arguments: the table an edit wrote into its lambda (values keyed by "")
    heuristic_table: TunedTable | None = None
    heuristic_fallback: str | None = None  # the computation the table falls back on, as written
    # a heuristic that is a named function of this file: the parameter of the lambda an edit writes in its place
    # (``lambda args: <value or table> else fn(args)``); ``None`` for a lambda, whose body an edit replaces
    heuristic_wrap: str | None = None
    # refused until a run of the task tells which entry of ``**configs[key]`` the launch uses
    needs_run: bool = False
    # a literal that conditions override after it (``BLOCK = 1024`` then ``if n <= 2048: BLOCK = ...``), each
    # override replacing it (none reads it: ``BLOCK = min(BLOCK, cap)`` keeps the literal in effect where it holds)
    overridden: bool = False
    # the lines of those overrides: a run that executed one at an entry saw the literal replaced there, whatever
    # value the override gave (``elif n < 256: BLOCK = next_power_of_2(n)`` gives the literal's 256 at n=200)
    override_lines: list[int] = field(default_factory=list)
    # a computed setting of a settings helper imported from another module: where it comes from, what is not read
    helper_note: str | None = None


@dataclass
class Span:
    start: int
    end: int
    line: int
    end_line: int


@dataclass
class Insertion:
    offset: int
    line: int
    separator: str  # ", " after an argument, "" in an empty call


def _copies_in(nodes: Sequence[cst.CSTNode], text: str, code: Callable[[cst.CSTNode], str]) -> list[cst.BaseExpression]:
    """The outermost expressions under ``nodes`` written as ``text``."""
    out: list[cst.BaseExpression] = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BaseExpression) and code(node) == text:
            out.append(node)
            continue
        stack += reversed(node.children)
    return out


@dataclass
class Hoist:
    """A value computed inline at the launch (``BLOCK=triton.next_power_of_2(n)``), tuned by first moving its
    expression onto a line of its own before the launch statement (``BLOCK = triton.next_power_of_2(n)``)
    and passing the variable at the launch (``BLOCK=BLOCK``); the tuned lines then follow that line, so the
    expression stays the fallback."""

    span: Span  # the expression at the launch, replaced by the variable
    text: str  # the expression as written (parenthesized when it spans lines)
    # the same expression at later launches of the same block, replaced by the variable too (one knob)
    also: list[Span] = field(default_factory=list)

    @property
    def spans(self) -> list[Span]:
        return [self.span, *self.also]


def comment_only(line: str) -> bool:
    """A line that is a comment and nothing else (a tuned line's ``# kernelopt: tuned`` follows its code)."""
    return line.lstrip().startswith("#")


@dataclass
class TunedRegion:
    """The ``# kernelopt: tuned`` lines after the statement that computes a setting.

    ``start`` is the offset of the line after that statement, ``end`` the offset after the tuned lines
    already there (``start`` when there are none); ``values`` are the unconditional tuned assignments
    (variable -> literal) and ``table`` the size-bucketed ``if``/``elif`` chain (keyed by variable)."""

    variable: str
    start: int
    end: int
    line: int  # the line of the computation
    end_line: int  # the last line of the tuned lines (the computation's last line when there are none)
    indent: str
    body_indent: str
    values: dict[str, Value] = field(default_factory=dict)
    table: TunedTable | None = None
    hoist: Hoist | None = None
    comments: tuple[str, ...] = ()  # the user's own comment lines among the tuned lines: a rewrite keeps them
    #: each keyed table's chain among the tuned lines, its device test and its text as written (its comment lines are
    #: among ``comments``): a table written for another device keeps them (a second GPU model's session replaced the
    #: first one's rows, late41)
    keyed: tuple[tuple[str, str], ...] = ()


@dataclass
class ConfigRegion:
    span: Span
    kernel: str
    index: int
    space: AutotuneSpace
    config_callee: str  # how the module names triton.Config ("triton.Config", "Config")


@dataclass
class _Binding:
    """One assignment of a name: the value expression (``None`` when not a simple assignment)."""

    value: cst.BaseExpression | None
    line: int
    chained: bool = False
    statement: cst.SimpleStatementLine | None = None
    conditional: bool = False  # inside an if / for / while / with / try of its scope
    tuned: bool = False  # one of the ``# kernelopt: tuned`` lines an edit wrote


_MUTATORS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault", "popitem"}
)
"""The methods of a list or dict that change it in place: ``SIZES.append(1024)`` after ``SIZES = [256, 512]``."""


def _mutated_name(target: cst.BaseExpression) -> str | None:
    """The name whose value ``target`` changes in place (``TILE[0]``, ``TILE[0][1]``: ``TILE``); ``None`` otherwise."""
    if not isinstance(target, cst.Subscript):
        return None
    while isinstance(target, cst.Subscript):
        target = target.value
    return target.value if isinstance(target, cst.Name) else None


@dataclass
class _Effects:
    """What one scope does to values it does not bind, beyond changing a name's value in place (leftovers21 l10):
    a name passed to a call (``extend_configs(CONFIGS)``: the callee may change it), a value stored in an attribute
    (``self.configs = CONFIGS``), and the in-place changes made through an attribute (``self.configs.append(...)``,
    ``mod.CONFIGS[0] = ...``)."""

    #: name -> (line, the callee as written, the argument's position or keyword) of each call passing it bare
    passed: dict[str, list[tuple[int, str, int | str]]] = field(default_factory=dict)
    #: attribute name -> (line, the name stored) of each ``x.attr = NAME``
    stored: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    #: attribute name -> (line, the attribute as written) of each change in place through ``x.attr``
    changed: dict[str, list[tuple[int, str]]] = field(default_factory=dict)


_READS_ONLY = frozenset(
    {
        *("len", "list", "tuple", "sorted", "set", "frozenset", "dict", "enumerate", "zip", "print", "isinstance"),
        *("iter", "reversed", "min", "max", "sum", "any", "all", "str", "repr", "id", "hash", "type", "range", "map"),
        *("filter", "copy", "deepcopy", "copy.copy", "copy.deepcopy", "json.dumps", "itertools.product"),
        *("itertools.chain", "torch.tensor", "torch.as_tensor", "np.array", "numpy.array", "triton.autotune"),
        *("autotune", "triton.Config", "Config", "triton.heuristics", "heuristics", "triton.cdiv", "cdiv"),
    }
)
"""Callees that read the arguments they are passed and change none (a list passed to them keeps its literal)."""


def _attribute_text(target: cst.BaseExpression) -> tuple[str, str] | None:
    """The attribute whose value ``target`` changes in place (``self.configs[0]``: ``("configs", "self.configs")``),
    or that ``target`` names (``self.configs``); ``None`` where it is no attribute."""
    while isinstance(target, cst.Subscript):
        target = target.value
    if not isinstance(target, cst.Attribute):
        return None
    return target.attr.value, _dotted(target) or f"....{target.attr.value}"


def _holds(base: str, binds: list[_Binding], line: int | None) -> bool:
    """Whether a name bound by ``binds`` may hold the value ``base`` names at ``line`` (``None``: after its scope ran):
    its last binding before that line is ``name = base``, or one before it is where that last one is conditional (an
    ``if`` may not take it), or one after it is inside a loop (a later round reaches the line holding it). A name
    rebound to another value first (``cfgs = CONFIGS`` then ``cfgs = [c for c in cfgs if ...]``) changes that value, not
    ``base``'s (break20 b34: such a list was refused as changed in place, where earlier sessions found its knobs)."""

    def named(b: _Binding) -> bool:
        return isinstance(b.value, cst.Name) and b.value.value == base

    if line is not None and any(named(b) and b.conditional and b.line > line for b in binds):
        return True
    for b in sorted((b for b in binds if line is None or b.line < line), key=lambda b: b.line, reverse=True):
        if named(b):
            return True
        if not b.conditional:
            return False
    return False


@dataclass
class _Resolved:
    """Where a name leads: its literal (or why it cannot be edited) and the variable that holds it."""

    literal: SourceLiteral | None = None
    refused: str | None = None
    at_module: bool = False
    defined_as: str | None = None
    overridden_at: list[int] = field(default_factory=list)  # lines of conditional overrides of the literal
    override_reads: bool = False  # an override reads the name itself (``BLOCK = min(BLOCK, cap)``)


@dataclass
class _Read:
    """What a launch keyword's value reads (:meth:`_Analyzer.launch_value`): its literal, or why it is refused and
    how it is computed; the knob's kind and key (``None``: the launch's own ``launch:name``), whether a run tells
    if the literal is in effect (``overridden``) and the note that says it may not be, and whether the literal was
    read through a conditional expression (``branched``)."""

    literal: SourceLiteral | None
    kind: TunableKind = TunableKind.LAUNCH_KWARG
    key: str | None = None
    refused: str | None = None
    computed: str | None = None
    overridden: bool = False
    replaced: bool = False  # where an override holds, it replaces the literal (reads no value of it)
    override_lines: list[int] = field(default_factory=list)  # the overrides' lines
    note: str | None = None
    branched: bool = False


_ValueReader = Callable[["_Launch", str | None, str, cst.BaseExpression], "_Read | None"]


@dataclass
class _HelperSetting:
    """One setting of a ``**cfg`` launch argument whose dict a settings helper returns (``cfg = launch_config(n)``):
    the local that holds the dict, the setting's key, the helper's name, the helper when it is defined in this
    file (its returns name the setting's computation; ``None`` for an imported helper, whose settings are those
    the launch received in a run of the task), and the module it is imported from."""

    variable: str
    key: str
    helper: str
    defined: _FuncInfo | None
    values: list[cst.BaseExpression]
    imported_from: str | None = None
    #: the call of the launching function in the function that binds the dict, when the launching function takes
    #: it as a parameter (vLLM's ``invoke_fused_moe_kernel(..., config, ...)``); ``None``: the launch's own function
    at: _Launch | None = None
    #: the dict is no helper's result but a literal the launching function binds in each branch of an ``if`` /
    #: ``else`` (Liger-Kernel's DyT, ``kwargs = {"BLOCK_N": ..., "num_warps": 4}`` under ``if N >= 4096:``)
    branches: bool = False

    @property
    def source(self) -> str:
        """Where the setting's value comes from, for the listing."""
        if self.branches:
            return f"a dict literal {self.variable} bound in each branch of an if / else"
        return f"{self.helper}() returns it in a dict"

    @property
    def target(self) -> str:
        """The assignment target the tuned lines write (``cfg["BLOCK"]``)."""
        return f'{self.variable}["{self.key}"]'


@dataclass
class _FuncInfo:
    node: cst.FunctionDef
    params: list[cst.Param]
    locals: dict[str, list[_Binding]]
    #: the lines of the function that change a name's value in place (``t[0] = 32``, ``cfgs.append(...)``)
    mutations: dict[str, list[int]] = field(default_factory=dict)
    #: the calls it passes names to, the values it stores in attributes and changes through them
    effects: _Effects = field(default_factory=lambda: _Effects())

    @functools.cached_property
    def conditions(self) -> dict[int, list[cst.BaseExpression]]:
        """:func:`conditions_over` of the function, walked once."""
        return conditions_over(self.node)


def _bare_size(expr: cst.BaseExpression) -> bool:
    """Whether ``expr`` is one of a tensor's sizes as it is (``x.shape[1]``, ``x.size(-1)``, ``x.numel()``,
    ``len(x)``), no block computed from it."""
    if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Attribute):
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        value = index.value if isinstance(index, cst.Index) else None
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        return expr.value.attr.value == "shape" and isinstance(value, cst.Integer)
    if not isinstance(expr, cst.Call):
        return False
    if isinstance(expr.func, cst.Name):
        return expr.func.value == "len" and len(expr.args) == 1
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in ("size", "numel"):
        return len(expr.args) == (1 if expr.func.attr.value == "size" else 0)
    return False


def _dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = _dotted(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None


def launch_identity(launch_id: str, wrapper: str | None) -> str:
    """A launch's identity, the same in every version of the file: its kernel (with its ordinal among the file's
    launches of that kernel, ``k#2``, when there are several) and the function it is written in, no line number
    (``launch _ln_bwd_dx in run()``; ``launch k at module level``). A kept version that moves lines keeps it."""
    return f"launch {launch_id} in {wrapper}()" if wrapper else f"launch {launch_id} at module level"


def _is_tuned(node: cst.CSTNode) -> bool:
    """True for a line an edit wrote after a computed setting (``x = 8  # kernelopt: tuned``, or an
    ``if size <= N:  # kernelopt: tuned`` row of a tuned table), and for a guard in the guard's form whose comment
    is gone (:func:`~kernelopt.tunables.inline_guard.read_statement_guard`)."""
    return marked_tuned(node) or read_statement_guard(node) is not None


def _is_constexpr(annotation: cst.Annotation | None) -> bool:
    if annotation is None:
        return False
    name = _dotted(annotation.annotation)
    return name is not None and name.split(".")[-1] == "constexpr"


def _bind_targets(target: cst.BaseExpression, value: cst.BaseExpression | None, line: int) -> list[tuple[str, Any]]:
    """(name, value expr or None) for every name bound by ``target = value`` (tuples element-wise)."""
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    if isinstance(target, cst.Tuple | cst.List):
        elems = [e.value for e in target.elements]
        vals: list[cst.BaseExpression | None]
        if isinstance(value, cst.Tuple | cst.List) and len(value.elements) == len(elems):
            vals = [e.value for e in value.elements]
        else:
            vals = [None] * len(elems)
        out: list[tuple[str, Any]] = []
        for t, v in zip(elems, vals, strict=True):
            out += _bind_targets(t, v, line)
        return out
    return []


def _tests(value: cst.IfExp) -> list[cst.BaseExpression]:
    """The conditions of a chain of conditional expressions."""
    inner = [value.body, value.orelse]
    return [value.test, *(t for e in inner if isinstance(e, cst.IfExp) for t in _tests(e))]


def _by_dtype(test: cst.BaseExpression) -> bool:
    """``test`` picks by dtype (``x.dtype == torch.float16``, ``dtype in (torch.float16, torch.bfloat16)``) and
    compares no number: a branch of literals then holds one dtype's settings at every size."""
    names = [n.value for n in _walk_names(test)]
    has_number = any(isinstance(n, cst.Integer | cst.Float) for n in walk(test))
    return any("dtype" in n for n in names) and not has_number


#: a name that tells the platform a module runs on (vLLM's ``is_hip_ = torch.version.hip is not None``,
#: ``current_platform.is_rocm()``), not a size or a dtype
_PLATFORM_NAME = re.compile(r"hip|rocm|cuda|xpu|npu|musa|platform", re.IGNORECASE)


def _by_platform(test: cst.BaseExpression) -> bool:
    """``test`` picks by platform (``not is_hip_``, ``torch.version.hip is not None``, ``current_platform.is_rocm()``,
    a tensor's ``x.is_cuda`` or ``x.device.type == "cuda"``) and reads nothing else: a branch of literals then holds
    one platform's setting at every size (breaker17's l2, vLLM's ``BLOCK = 64 if not is_hip_ else 8``). The tensor a
    device query reads (``x``) is no size: the other branch is another platform's, not a rule by size."""
    queried = [n for n in walk(test) if _device_query(n)]
    asked = {id(n) for q in queried for n in _walk_names(q)}
    names = [n.value for n in _walk_names(test) if id(n) not in asked]
    platform = bool(queried) or any(_PLATFORM_NAME.search(n) for n in names)
    plain = {"torch", "version", "None"}
    has_number = any(isinstance(n, cst.Integer | cst.Float) for n in walk(test))
    return platform and not has_number and all(n in plain or _PLATFORM_NAME.search(n) for n in names)


def _device_query(node: cst.CSTNode) -> bool:
    """``node`` asks an object's platform: an attribute that names one (``x.is_cuda``, ``torch.version.hip``), or a
    comparison of a ``.device.type`` with a platform's name (``x.device.type == "cuda"``, ``!=``)."""
    if isinstance(node, cst.Attribute):
        return bool(_PLATFORM_NAME.search(node.attr.value))
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return False
    sides = [node.left, node.comparisons[0].comparator]
    typed = [
        x
        for x in sides
        if isinstance(x, cst.Attribute)
        and x.attr.value == "type"
        and isinstance(x.value, cst.Attribute)
        and x.value.attr.value == "device"
    ]
    named = [x for x in sides if isinstance(x, cst.SimpleString) and _PLATFORM_NAME.search(str(x.evaluated_value))]
    equal = isinstance(node.comparisons[0].operator, cst.Equal | cst.NotEqual)
    return equal and len(typed) == 1 and len(named) == 1


def _walk_names(node: cst.CSTNode) -> list[cst.Name]:
    return [n for n in walk(node) if isinstance(n, cst.Name)]


def _branches(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a conditional expression can take (``a if c else b if d else e`` -> a, b, e); else itself."""
    if isinstance(value, cst.IfExp):
        return [*_branches(value.body), *_branches(value.orelse)]
    return [value]


_BLOCKS = (cst.If, cst.For, cst.While, cst.With, cst.Try)
"""The blocks a binding is :attr:`_Binding.conditional` inside (if / for / while / with / try of its scope)."""


class _BindingCollector(cst.CSTVisitor):
    """Assignments in one scope (a module body or a function body), not descending into nested scopes."""

    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange], root: cst.CSTNode) -> None:
        self.positions = positions
        self.root = root
        self.bindings: dict[str, list[_Binding]] = {}
        #: the lines that change a name's value in place (``TILE[0] = 32``, ``SIZES.append(1024)``), not rebind it
        self.mutations: dict[str, list[int]] = {}
        self.effects = _Effects()
        #: the classes whose bodies the scope holds (a class body runs once, as its scope does: leftovers21 l10)
        self.classes: list[cst.ClassDef] = []
        self._stmt: cst.SimpleStatementLine | None = None
        self._nested = 0
        self._tuned = 0

    def _add(self, name: str, b: _Binding) -> None:
        b.conditional = self._nested > 0
        b.tuned = self._tuned > 0 or (self._stmt is not None and _is_tuned(self._stmt) and b.statement is self._stmt)
        if b.tuned and _copies(b.value, name):
            return  # ``cfg = dict(cfg)`` of a tuned table: the same settings, copied before entries are set
        self.bindings.setdefault(name, []).append(b)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _BLOCKS):
            self._nested += 1
            if isinstance(node, cst.If) and _is_tuned(node):
                self._tuned += 1
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        if isinstance(original_node, _BLOCKS):
            self._nested -= 1
            if isinstance(original_node, cst.If) and _is_tuned(original_node):
                self._tuned -= 1

    def visit_For(self, node: cst.For) -> None:
        for name, _ in _bind_targets(node.target, None, self.positions[node].start.line):
            self._add(name, _Binding(None, self.positions[node].start.line))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is not self.root:
            self._add(node.name.value, _Binding(None, self.positions[node].start.line))
            return False
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        if node is self.root:
            return True
        self._add(node.name.value, _Binding(None, self.positions[node].start.line))
        self.classes.append(node)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self._stmt = node

    def visit_Assign(self, node: cst.Assign) -> None:
        line = self.positions[node].start.line
        chained = len(node.targets) > 1
        for t in node.targets:
            for name, val in _bind_targets(t.target, node.value, line):
                self._add(name, _Binding(val, line, chained, self._stmt))
            if isinstance(t.target, cst.Attribute) and isinstance(node.value, cst.Name):
                self.effects.stored.setdefault(t.target.attr.value, []).append((line, node.value.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._add(node.target.value, _Binding(node.value, self.positions[node].start.line, False, self._stmt))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._add(node.target.value, _Binding(None, self.positions[node].start.line))
            # ``c += [...]`` extends the list ``c`` holds, in place (leftovers21 l10: ``c = CONFIGS`` then that)
            self.mutations.setdefault(node.target.value, []).append(self.positions[node].start.line)
        self._mutates(node.target, node)
        if isinstance(node.target, cst.Attribute):  # ``self.configs += [...]`` extends the list it holds
            self._through_attribute(node.target, node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._mutates(node.target, node)

    def visit_Del(self, node: cst.Del) -> None:
        targets = [e.value for e in node.target.elements] if isinstance(node.target, cst.Tuple) else [node.target]
        for t in targets:
            self._mutates(t, node)

    def visit_Call(self, node: cst.Call) -> None:
        f = node.func
        line = self.positions[node].start.line
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.attr.value in _MUTATORS:
            self.mutations.setdefault(f.value.value, []).append(line)
        elif isinstance(f, cst.Attribute) and f.attr.value in _MUTATORS:
            self._through_attribute(f.value, node)
        callee = _dotted(f) or cst.Module([]).code_for_node(f)
        for i, arg in enumerate(node.args):
            if isinstance(arg.value, cst.Name) and not arg.star:
                where: int | str = arg.keyword.value if arg.keyword is not None else i
                self.effects.passed.setdefault(arg.value.value, []).append((line, callee, where))

    def _mutates(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        """A write into a name's value (``TILE[0] = 32``): the literal the name was bound to is not what runs after it
        (loses20 l2: such an element was offered as a knob at its literal's value); through an attribute
        (``self.configs[0] = ...``), a change of the value that attribute holds (leftovers21 l10)."""
        name = _mutated_name(target)
        if name is not None:
            self.mutations.setdefault(name, []).append(self.positions[node].start.line)
        elif isinstance(target, cst.Subscript):
            self._through_attribute(target, node)

    def _through_attribute(self, target: cst.BaseExpression, node: cst.CSTNode) -> None:
        """A change in place of the value the attribute ``target`` holds (``self.configs``, ``mod.CONFIGS``)."""
        found = _attribute_text(target)
        if found is not None:
            self.effects.changed.setdefault(found[0], []).append((self.positions[node].start.line, found[1]))

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            n = alias.asname.name if alias.asname else alias.name
            if isinstance(n, cst.Name):
                self._add(n.value, _Binding(None, self.positions[node].start.line))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            n = alias.asname.name if alias.asname else alias.name
            if isinstance(n, cst.Name):
                self._add(n.value, _Binding(None, self.positions[node].start.line))


@dataclass
class _Launch:
    call: cst.Call
    func: _FuncInfo | None
    line: int
    #: the function the launch is written in, by its qualified name (``_LnBwd.backward``); ``None`` at module level
    wrapper: str | None = None

    @property
    def sub(self) -> cst.Subscript:
        """The ``kernel[grid]`` the launch calls (of ``functools.partial(kernel[grid], ...)``, its first argument)."""
        func = self.call.func
        return func if isinstance(func, cst.Subscript) else cst.ensure_type(self.call.args[0].value, cst.Subscript)

    @property
    def args(self) -> Sequence[cst.Arg]:
        """The launch's arguments (a partial's after the ``kernel[grid]`` it binds them to)."""
        return self.call.args if isinstance(self.call.func, cst.Subscript) else self.call.args[1:]


class _AttributeAssigns(OneScope):
    """The assignments ``<owner>.<attr> = value`` in a function's body (``ctx.BLOCK_SIZE = BLOCK_SIZE`` in a
    forward), nested functions and classes left out."""

    def __init__(self, owner: str, attr: str) -> None:
        self.owner, self.attr = owner, attr
        self.found: list[cst.Assign] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            target = t.target
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == self.owner
                and target.attr.value == self.attr
            ):
                self.found.append(node)


class _LaunchCollector(cst.CSTVisitor):
    """Every ``x[grid](...)`` call with its enclosing function, and every function definition."""

    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.positions = positions
        self.stack: list[_FuncInfo] = []
        self.launches: list[_Launch] = []
        self.functions: dict[str, list[_FuncInfo]] = {}
        self.calls: dict[str, list[cst.Call]] = {}  # ``helper(...)`` calls by the name called
        self.scopes: list[str] = []  # the enclosing classes and functions, outermost first

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scopes.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        bc = _BindingCollector(self.positions, node)
        visit(node.body, bc)
        params = params_of(node, posonly=True, kwonly=True)
        info = _FuncInfo(node, params, bc.bindings, bc.mutations, bc.effects)
        self.functions.setdefault(node.name.value, []).append(info)
        self.stack.append(info)
        self.scopes.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()
        self.scopes.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            self.calls.setdefault(node.func.value, []).append(node)
        if isinstance(node.func, cst.Subscript) or _is_partial_launch(node):
            func = self.stack[-1] if self.stack else None
            wrapper = ".".join(self.scopes) if func is not None else None
            self.launches.append(_Launch(node, func, self.positions[node].start.line, wrapper))


#: torch functions that allocate a tensor of the size their positional arguments give
ALLOCATIONS = frozenset({"empty", "zeros", "ones", "full", "rand", "randn", "new_empty", "new_zeros", "new_full"})


_MAX_DIMS = 64
"""More dimensions than any tensor has (PyTorch's limit is 64)."""


def _returned_dims(expr: cst.BaseExpression) -> dict[str, set[int] | None]:
    """The names a ``return`` expression reads, each with the dimensions of it the returned value keeps at the
    size it was allocated with: every one (``None``) for a name read plainly; for a name returned as a slice
    (``out[:, :H, :W]``, a buffer padded to whole tiles cut back to the problem's size) only the dimensions the
    slice leaves uncut (``{0}``); an index drops its dimension. A slice with ``...`` is read as keeping all."""
    out: dict[str, set[int] | None] = {}
    sliced: set[int] = set()  # ids of the names read as the value of such a slice

    def merge(name: str, dims: set[int] | None) -> None:
        known = out.get(name, set())
        out[name] = None if dims is None or known is None else known | dims

    for node in walk(expr):
        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)):
            continue
        items = [el.slice for el in node.slice]
        if any(isinstance(i, cst.Index) and isinstance(i.value, cst.Ellipsis) for i in items):
            continue
        kept = {d for d, i in enumerate(items) if isinstance(i, cst.Slice) and i.upper is None}
        merge(node.value.value, kept | set(range(len(items), _MAX_DIMS)))  # the dimensions past the slice's
        sliced.add(id(node.value))
    for node in walk(expr):
        if isinstance(node, cst.Name) and id(node) not in sliced:
            merge(node.value, None)
    return out


def _squeezed_at_one(body: cst.CSTNode) -> dict[int, tuple[str, int, str]]:
    """The ``return X.squeeze(d)`` statements of ``body`` under an ``if S == 1:`` (FlagAttention's split-kv decoding:
    ``if S == 1: return multiple_o.squeeze(2)``, the buffer ``(B, H, S, M, D)``), by the id of the return: ``(X, d,
    S)``. Where the allocation of ``X`` sizes dimension ``d`` by ``S`` alone, that dimension is 1 there and is
    dropped: the value returned has no extent ``S`` sets, whatever computes ``S`` (the tiles, through the split
    count)."""
    out: dict[int, tuple[str, int, str]] = {}
    for node in walk(body):
        if not (isinstance(node, cst.If) and isinstance(node.test, cst.Comparison) and len(node.test.comparisons) == 1):
            continue
        test = node.test
        if not isinstance(test.comparisons[0].operator, cst.Equal):
            continue
        sides = (test.left, test.comparisons[0].comparator)
        size = next((x.value for x in sides if isinstance(x, cst.Name)), None)
        if size is None or not any(isinstance(x, cst.Integer) and x.value == "1" for x in sides):
            continue
        for ret in walk(node.body):
            value = ret.value if isinstance(ret, cst.Return) else None
            if not (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "squeeze"
                and isinstance(value.func.value, cst.Name)
                and len(value.args) == 1
                and isinstance(value.args[0].value, cst.Integer)
            ):
                continue
            out[id(ret)] = (value.func.value.value, int(value.args[0].value.value), size)
    return out


@functools.lru_cache(maxsize=NODES_KEPT)
def _tested_names(body: cst.CSTNode) -> frozenset[str]:
    """The names ``body`` compares with an integer literal (``BLOCK_SIZE_SCALE_A > 1``): a value that selects a
    path; kept by node."""
    out: set[str] = set()
    for n in walk(body):
        if isinstance(n, cst.Comparison) and len(n.comparisons) == 1:
            sides = (n.left, n.comparisons[0].comparator)
            if any(isinstance(x, cst.Integer) for x in sides):
                out |= {x.value for x in sides if isinstance(x, cst.Name)}
    return frozenset(out)


#: torch's reductions over one dimension that hand back one tensor (``max`` / ``min`` with a dim hand back two)
_REDUCTIONS = frozenset({"sum", "nansum", "mean", "prod", "logsumexp", "amax", "amin"})


def _summed_dim(expr: cst.BaseExpression, name: str) -> int | None:
    """The dimension ``expr`` reduces ``name`` over when it is ``name.sum(d)`` (or ``name.sum(dim=d)``, or another of
    :data:`_REDUCTIONS`) with ``d`` a literal, negative ones counted from the end, and any chain of :data:`_VIEWS`
    after it (fla's ``o = o.sum(0)``: each K block's partial output, summed by torch; fla's logsumexp's ``z =
    z.logsumexp(-1).view(*shape[:-1])``: each block's partial, reduced by torch); ``None`` otherwise."""
    while (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value in _VIEWS
        and isinstance(expr.func.value, cst.Call)
    ):
        expr = expr.func.value
    if not (
        isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _REDUCTIONS
    ):
        return None
    if not (isinstance(expr.func.value, cst.Name) and expr.func.value.value == name) or len(expr.args) != 1:
        return None
    arg = expr.args[0]
    if arg.keyword is not None and arg.keyword.value != "dim":
        return None
    value = arg.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        return -int(value.expression.value, 0) if isinstance(value.expression, cst.Integer) else None
    return int(value.value, 0) if isinstance(value, cst.Integer) else None


#: methods that hand back the tensor they are called on as a view of the same sizes or of sizes their own arguments
#: name (``x.new_empty(m, n).as_strided((m, n), (1, m))``: torchao's column-major scales)
_VIEWS = frozenset({"as_strided", "t", "transpose", "permute", "view", "reshape", "contiguous", "fill_", "zero_"})


def _allocation_call(expr: cst.BaseExpression | None) -> cst.Call | None:
    """The allocation call ``expr`` is, or the one a chain of :data:`_VIEWS` methods is called on."""
    while isinstance(expr, cst.Call):
        if (_dotted(expr.func) or "").split(".")[-1] in ALLOCATIONS:
            return expr
        if not (isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _VIEWS):
            return None
        expr = expr.func.value
    return None


def _allocation_dims(call: cst.Call) -> list[tuple[int | None, cst.BaseExpression]]:
    """The size arguments of an allocation call, each with its dimension (``torch.empty(C, Hp, Wp)`` and
    ``torch.empty((C, Hp, Wp))``: 0, 1, 2); ``None`` where the dimension is not read (``size=shape``). A view
    of one (:func:`_allocation_call`) reads the allocation's."""
    call = _allocation_call(call) or call
    plain = [a.value for a in call.args if a.keyword is None]
    if len(plain) == 1 and isinstance(plain[0], cst.Tuple | cst.List):
        plain = [el.value for el in plain[0].elements]
    out: list[tuple[int | None, cst.BaseExpression]] = [(d, v) for d, v in enumerate(plain)]
    out += [(None, a.value) for a in call.args if a.keyword is not None and a.keyword.value in ("size", "shape")]
    return out


def _allocates(expr: cst.BaseExpression | None) -> TypeGuard[cst.Call]:
    """Whether ``expr`` is an allocation call (``torch.empty(...)``, ``x.new_zeros(...)``), or a view of one
    (``x.new_empty(m, n).as_strided((m, n), (1, m))``)."""
    return _allocation_call(expr) is not None


def _read_names(expr: cst.CSTNode) -> set[str]:
    """The plain names ``expr`` reads (``x.numel() // GROUP_SIZE`` -> {x, GROUP_SIZE})."""
    return {n.value for n in walk(expr) if isinstance(n, cst.Name)}


def _is_partial_launch(node: cst.Call) -> bool:
    """``functools.partial(kernel[grid], BLOCK=512, num_warps=4)``: a launch whose settings are bound before the
    call that passes the tensors (``launch(x, y, n)``)."""
    first = node.args[0] if node.args else None
    return (
        _dotted(node.func) in ("functools.partial", "partial")
        and first is not None
        and first.keyword is None
        and not first.star
        and isinstance(first.value, cst.Subscript)
    )


def _not_python(source: str, filename: str, parser_line: int) -> str:
    """One line for a file libcst cannot parse (a pyproject.toml, a Markdown file): the line Python's own
    compiler names, not libcst's grammar internals ("error at 3:16: expected one of !=, %, ...")."""
    try:
        pyparse.parse(source, filename)
    except SyntaxError as exc:
        return f"{filename}: not Python: syntax error at line {exc.lineno or parser_line}: {exc.msg}"
    except ValueError:  # a NUL byte
        return f"{filename}: not Python: it holds a NUL byte"
    return f"{filename}: Python that the parser (libcst) cannot read, at line {parser_line}"


@dataclass(frozen=True)
class _Parsed:
    """What the analysis reads of a source text, found once per text: libcst's tree (immutable), its node
    positions, the offsets of its lines, and the bindings, launches and functions the collectors saw. The
    analysis only reads these."""

    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    line_starts: list[int]
    module_bindings: dict[str, list[_Binding]]
    module_mutations: dict[str, list[int]]
    #: the module's own effects (:class:`_Effects`) and, for each class body it holds (nested ones too), its name and
    #: what that body binds, changes in place and does (run once at import, as the module's own lines)
    module_effects: _Effects
    class_bodies: list[tuple[str, _BindingCollector]]
    launches: list[_Launch]
    functions: dict[str, list[_FuncInfo]]
    calls: dict[str, list[cst.Call]]


_LINE_END = re.compile(r"\r\n|\r|\n")


@kept_by_text
def _parse(source: str) -> _Parsed:
    """The parse of ``source``, kept for the next analysis of the same text: a tuning session analyses its
    kernel.py again for every candidate it applies, verifies and pins, and the planner for every category it
    weighs (two thirds of the analysis time of the test suite was parsing a text parsed before).

    Raises:
        cst.ParserSyntaxError: the text is not Python (not kept).
    """
    tree = parsed(source)  # the one parse of the text, shared with the guard's readers
    module, positions = tree.module, tree.positions
    # a line ends as libcst's tokenizer ends it: CRLF, LF or a lone CR (a kernel.py saved with classic Mac line
    # endings had one line here and 38 in the parse: an IndexError, exit 70; second fault trial, t6)
    line_starts = [0, *(m.end() for m in _LINE_END.finditer(source))]
    mc = _BindingCollector(positions, module)
    visit(module, mc)
    bodies: list[tuple[str, _BindingCollector]] = []
    waiting = list(mc.classes)
    while waiting:
        node = waiting.pop(0)
        cc = _BindingCollector(positions, node)
        visit(node, cc)
        bodies.append((node.name.value, cc))
        waiting += cc.classes
    lc = _LaunchCollector(positions)
    visit(module, lc)
    return _Parsed(
        module, positions, line_starts, mc.bindings, mc.mutations, mc.effects, bodies, lc.launches, lc.functions,
        lc.calls,
    )  # fmt: skip


class _Analyzer:
    """Finds every knob of one source text."""

    def __init__(
        self,
        source: str,
        filename: str,
        *,
        gpu: str | None = None,
        autotune: Mapping[str, AutotuneSpace] | None = None,
        launch_values: Mapping[str, Mapping[str, Value]] | None = None,
        shape: Mapping[str, Value] | None = None,
        shape_sizes: list[ShapeSizes] | None = None,
    ) -> None:
        self.source = source
        self.filename = filename
        self.gpu = gpu
        self.autotune = dict(autotune or {})
        self.launch_values = {k: dict(v) for k, v in (launch_values or {}).items()}
        self.shape = dict(shape) if shape is not None else None
        self.shape_sizes = list(shape_sizes or [])
        try:
            parsed = _parse(source)
        except cst.ParserSyntaxError as exc:
            raise TunableError(_not_python(source, filename, exc.raw_line)) from None
        self.module = parsed.module
        self.positions = parsed.positions
        self.line_starts = parsed.line_starts
        self.module_bindings = parsed.module_bindings
        self.module_mutations = parsed.module_mutations
        self.module_effects = parsed.module_effects
        self.class_bodies = parsed.class_bodies
        self.launches = parsed.launches
        self.functions = parsed.functions
        self.calls = parsed.calls
        self.sites: list[Site] = []
        # a setting of one entry of ``**configs[key]`` -> the same setting in the other entries (moved
        # together) and why it is refused, when it is
        self.splat_partners: dict[int, tuple[list[cst.BaseExpression], str | None]] = {}
        # a setting of ``**cfg`` whose dict a settings helper returns, by (id of its expression, its key)
        self.helper_settings: dict[tuple[int, str], _HelperSetting] = {}
        # a ``**`` argument (as written) that cannot be read -> why, where more is known than "built by code"
        self.unread_why: dict[str, str] = {}
        self._filters: dict[str, dict[str, str]] = {}  # kernel -> its filter sizes and divisors (filters)
        # a launch's group label (``launch k (kernel.py:31)``) -> its identity, the same across versions
        # (:func:`launch_identity`)
        self.launch_ids: dict[str, str] = {}
        self._covers: dict[str, list[Cover]] = {}  # kernel -> the sizes its one-block parameters cover (covers())

    # -- helpers ----------------------------------------------------------------------------------

    def loc(self, line: int) -> str:
        return f"{self.filename}:{line}"

    def span(self, node: cst.CSTNode) -> Span:
        rng = self.positions[node]
        start = self.line_starts[rng.start.line - 1] + rng.start.column
        end = self.line_starts[rng.end.line - 1] + rng.end.column
        return Span(start, end, rng.start.line, rng.end.line)

    def autotuned(self, info: _FuncInfo | None) -> bool:
        return info is not None and ("autotune" in self.decorators(info.node))

    @functools.cached_property
    def called_autotunes(self) -> dict[str, cst.Call]:
        """Kernels of this file autotuned by a module-level call rather than a decorator, with the call
        (:func:`~kernelopt.tunables.called_autotune.called_autotunes`): Transformer Engine's ``_permute_kernel =
        triton.autotune(configs=[...], key=[...])(_permute_kernel)`` inside ``try: ... except RuntimeError: pass``.
        :meth:`decorators` reads each as the kernel's outermost ``@triton.autotune``, so its list is listed and
        edited where the file writes it, as a decorator's is."""
        return {name: call for name, (call, _) in called_autotunes(self.module).items()}

    def code(self, node: cst.CSTNode) -> str:
        return " ".join(self.module.code_for_node(node).split())

    def literal(self, expr: cst.BaseExpression | None) -> SourceLiteral | None:
        """The editable literal of ``expr`` (``64``, ``True``, ``"x"``, ``tl.constexpr(64)``), or ``None``."""
        if expr is None:
            return None
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword:
            fn = _dotted(expr.func)
            if fn and fn.split(".")[-1] == "constexpr":
                return self.literal(expr.args[0].value)
            if fn == "int":
                return self.environment_default(expr.args[0].value)
            return None
        value: Value
        if isinstance(expr, cst.Integer):
            value = int(expr.evaluated_value)
        elif isinstance(expr, cst.Float):
            value = float(expr.evaluated_value)
        elif isinstance(expr, cst.Name) and expr.value in ("True", "False"):
            value = expr.value == "True"
        elif isinstance(expr, cst.SimpleString):
            v = expr.evaluated_value
            if not isinstance(v, str):
                return None
            value = v
        else:
            return None
        rng = self.positions[expr]
        start = self.line_starts[rng.start.line - 1] + rng.start.column
        end = self.line_starts[rng.end.line - 1] + rng.end.column
        return SourceLiteral(expr, value, start, end, rng.start.line)

    def environment_default(self, expr: cst.BaseExpression) -> SourceLiteral | None:
        """The default of a setting read from the environment, ``int(os.environ.get("NUM_STAGES", "2"))`` (or
        ``os.getenv``): the digits inside its quotes, the value when the variable is unset; an edit writes the new
        default there, so the variable still overrides it. ``None`` for anything else."""
        if not (isinstance(expr, cst.Call) and _dotted(expr.func) in ENVIRONMENT_READS and len(expr.args) == 2):
            return None
        default = expr.args[1].value
        if expr.args[1].keyword is not None or not isinstance(default, cst.SimpleString):
            return None
        text = default.evaluated_value
        if not (isinstance(text, str) and text.isdigit()):
            return None
        rng = self.positions[default]
        if rng.start.line != rng.end.line:
            return None
        start = self.line_starts[rng.start.line - 1] + rng.start.column + len(default.prefix) + len(default.quote)
        return SourceLiteral(default, int(text), start, start + len(text), rng.start.line)

    def folded(self, expr: cst.BaseExpression | None) -> SourceLiteral | None:
        """An integer constant written as arithmetic on integer literals on one line (``65536 // 4``,
        ``64 * 1024``, ``1 << 16``), as its value: an edit writes the new value in place of the expression.
        ``None`` for anything else (a name, a call, a float, a negative or huge result)."""
        if expr is None or isinstance(expr, cst.Integer):
            return None
        value = _fold(expr)
        if value is None:
            return None
        rng = self.positions[expr]
        if rng.start.line != rng.end.line:
            return None
        span = self.span(expr)
        return SourceLiteral(expr, value, span.start, span.end, rng.start.line)

    def loop_option(self, kernel: str | None, name: str) -> str | None:
        """The ``tl.range`` option (``num_stages``) that the ``constexpr`` parameter ``name`` of ``kernel`` feeds,
        when the kernel body reads it there and nowhere else (``for k in tl.range(0, K, BLOCK_K,
        num_stages=NUM_STAGES)``): a loop's pipelining depth, which Triton's interpreter ignores. ``None``
        otherwise."""
        kdef = self.jit_kernel(kernel)
        if kdef is None or name in LAUNCH_OPTIONS:
            return None
        if not any(p.name.value == name and _is_constexpr(p.annotation) for p in kdef.params):
            return None
        fed: dict[int, str] = {}  # id of the Name node passed -> the option
        keywords = {id(a.keyword) for a in walk(kdef.node.body) if isinstance(a, cst.Arg) and a.keyword}
        for node in walk(kdef.node.body):
            if isinstance(node, cst.Call) and (_dotted(node.func) or "").split(".")[-1] in ("range", "static_range"):
                for arg in node.args:
                    option = arg.keyword.value if arg.keyword is not None else None
                    if option in LOOP_OPTIONS and isinstance(arg.value, cst.Name):
                        fed[id(arg.value)] = option
        reads = [
            n for n in walk(kdef.node.body) if isinstance(n, cst.Name) and n.value == name and id(n) not in keywords
        ]
        if not reads or any(id(n) not in fed for n in reads):
            return None
        return fed[id(reads[0])]

    def filter_size(self, kernel: str | None, name: str) -> str | None:
        """Why the constexpr ``name`` of the ``@triton.jit`` kernel ``kernel`` changes what it computes (a filter's
        size, :func:`~kernelopt.tunables.filters.filter_sizes`; a divisor of its values,
        :func:`~kernelopt.tunables.filters.divisors`; a layout's tile, :func:`~kernelopt.tunables.filters.layout_tiles`;
        a grain of its format, :mod:`kernelopt.tunables.grains`), or
        ``None``."""
        kdef = self.jit_kernel(kernel)
        if kernel is None or kdef is None:
            return None
        if kernel not in self._filters:  # a grain of the data's format (a quantization block) is held the same way
            self._filters[kernel] = {
                **layout_tiles(kdef.node),
                **quotient_divisors(kdef.node),
                **divisors(kdef.node),
                **grain_sizes(kdef.node),
                # a group the data is split into under a knob's name (breaker28's q81: LMDeploy's GROUP_SIZE, an
                # fp8 quantization group); other names keep their own reasons (a size of the problem)
                **{
                    k: why
                    for k, why in {**split_groups(kdef.node), **passed_grains(kdef.node, self.jit_helpers)}.items()
                    if knob_rule(k) is not None
                },
                **filter_sizes(kdef.node),
            }
        return self._filters[kernel].get(name)

    def feeds_held(self, la: _Launch, kernel: str | None, name: str, expr: cst.BaseExpression) -> str | None:
        """Why the argument ``name`` the launch ``la`` passes as ``expr`` (a name of the launching function) is held:
        the launching function computes from it another argument of the same launch that the kernel reads as a grain
        of its data (:meth:`filter_size`). GemLite's ``W_nbits``, the packed weights' bit width, gives
        ``elements_per_sample = 32 // W_nbits``, the values one int32 holds, which divides the K offsets: another
        width reads other bits of every weight. ``None`` otherwise."""
        kdef = self.jit_kernel(kernel)
        if kdef is None or la.func is None or not isinstance(expr, cst.Name) or any(a.star for a in la.args):
            return None
        given = named_args(la.args, [p.name.value for p in kdef.params])
        for other, arg in given.items():
            why = self.filter_size(kernel, other) if other != name else None
            if why is None or expr.value not in self._reads_through(arg, la.func):
                continue
            how = self.code(arg) if not isinstance(arg, cst.Name) else self.computed_text(arg.value, la.func)
            return (
                f"'{name}' gives {other} ({how or self.code(arg)}), which is held: {why.split(': ', 1)[0]}; another "
                f"{name} changes it, so {name} is held at its value too"
            )
        return None

    def _reads_through(self, expr: cst.BaseExpression, func: _FuncInfo) -> set[str]:
        """The names ``expr`` reads in ``func``, and those the values of the locals it reads read, followed."""
        out: set[str] = set()
        todo = [expr]
        while todo:
            for n in walk(todo.pop()):
                if isinstance(n, cst.Name) and n.value not in out:
                    out.add(n.value)
                    todo += [b.value for b in func.locals.get(n.value, []) if b.value is not None]
        return out

    def group_size(self, kernel: str | None, name: str, la: _Launch) -> str | None:
        """Why the work group ``name`` of ``kernel`` is no knob at the launch ``la``
        (:func:`~kernelopt.tunables.groups.group_refusal`), or ``None``."""
        kdef = self.jit_kernel(kernel)
        if kdef is None:
            return None
        return group_refusal(kdef.node, la.func.node if la.func is not None else None, name)

    def jit_kernel(self, name: str | None) -> _FuncInfo | None:
        """The ``@triton.jit`` function named ``name`` in this file (only when unique)."""
        if not name:
            return None
        found = [f for f in self.functions.get(name, []) if self.decorators(f.node)]
        return found[0] if len(found) == 1 else None

    @functools.cached_property
    def jit_helpers(self) -> dict[str, cst.FunctionDef]:
        """The module's ``@triton.jit`` functions defined once, by name: the helpers a kernel's body is read with
        (:func:`kernelopt.tunables.blocks.one_block`). Listed once per analysis: listed per kernel, a file of 500
        kernels read 500 x 1,000 decorators in each analysis (a 20,000-line kernel.py, leftovers9)."""
        return {n: fs[0].node for n, fs in self.functions.items() if len(fs) == 1 and self.decorators(fs[0].node)}

    @functools.cached_property
    def decorator_aliases(self) -> dict[str, str]:
        """Module-level names of Triton's decorators (:func:`~kernelopt.tunables.decorator_words.decorator_aliases`)."""
        return decorator_aliases(self.module)

    def decorators(self, fn: cst.FunctionDef) -> dict[str, cst.Decorator]:
        """A kernel's ``jit`` / ``autotune`` / ``heuristics`` decorators by word; an autotune list applied by a call
        (:attr:`called_autotunes`) is its ``autotune``, a decorator around the call's node."""
        out = {}
        for d in fn.decorators:
            word = decorator_word(d, self.decorator_aliases)
            if word is not None:
                out[word] = d
        called = self.called_autotunes.get(fn.name.value) if "jit" in out and "autotune" not in out else None
        if called is not None:
            out["autotune"] = cst.Decorator(decorator=called)
        return out

    def resolve_name(self, name: str, func: _FuncInfo | None, depth: int = 0) -> _Resolved:
        """Follow ``name`` to the literal that defines it (locals, then parameters, then the module)."""
        if depth > 3:
            return _Resolved(refused=f"'{name}' is defined through a chain of names kernelopt does not follow")
        if func is not None:
            binds = func.locals.get(name)
            if binds:
                return self._from_bindings(name, binds, func, depth)
            for p in func.params:
                if p.name.value == name:
                    given = self.passed_by_calls(func, p)
                    if given is not None:
                        return given
                    lit = self.literal(p.default)
                    if lit is not None:
                        return _Resolved(lit, defined_as=name)
                    where = f"argument '{name}' of {func.node.name.value}()"
                    if p.default is None:
                        return _Resolved(refused=f"comes from {where}, which has no literal default")
                    return _Resolved(refused=f"comes from {where}, whose default is computed: {self.code(p.default)}")
        binds = self.module_bindings.get(name)
        if binds:
            return self._from_bindings(name, binds, None, depth)
        return _Resolved(refused=f"'{name}' is not defined in this file (imported or global)")

    def attribute_literal(self, expr: cst.Attribute, func: _FuncInfo | None) -> SourceLiteral | None:
        """The literal a launch argument ``owner.NAME`` reads, where the file holds it: a class attribute read
        through ``self`` (``BLOCK = 1024`` in the class whose method launches, no ``self.BLOCK = ...`` anywhere in
        it), or a field of a settings object (``cfg.BLOCK_M``, ``cfg`` a parameter whose default, or a module
        name, is ``LaunchConfig(...)`` of a class in this file, a ``@dataclass`` or ``NamedTuple``): the keyword
        the construction passes, else the field's default. ``None`` otherwise (the value is computed)."""
        if not isinstance(expr.value, cst.Name):
            return None
        owner, attr = expr.value.value, expr.attr.value
        classes = {c.name.value: c for c in self.module.body if isinstance(c, cst.ClassDef)}
        if func is not None and func.params and func.params[0].name.value == owner == "self":
            home = next((c for c in classes.values() if any(n is func.node for n in c.body.body)), None)
            if home is None or any(
                isinstance(n, cst.AssignTarget | cst.AugAssign)
                and isinstance(t := n.target, cst.Attribute)
                and _dotted(t) == f"self.{attr}"
                for n in walk(home)
            ):
                return self.init_argument(home, attr)
            return self.class_field(home, attr)
        built: cst.BaseExpression | None = None
        param = next((q for q in func.params if q.name.value == owner), None) if func is not None else None
        if param is not None:
            if func is None or self.passed_by_calls(func, param) is not None:
                return None
            built = param.default
        elif func is None or owner not in func.locals:
            built = cst.Name(owner)  # a module name holding the settings object
        if isinstance(built, cst.Name):
            binds = self.module_bindings.get(built.value, [])
            built = binds[0].value if len(binds) == 1 else None
        if not (isinstance(built, cst.Call) and isinstance(built.func, cst.Name) and built.func.value in classes):
            return None
        given = next((a.value for a in built.args if a.keyword is not None and a.keyword.value == attr), None)
        if given is not None:
            return self.literal(given)
        if any(a.keyword is None for a in built.args):
            return None  # a field passed positionally: not read
        return self.class_field(classes[built.func.value], attr)

    def init_argument(self, cls: cst.ClassDef, attr: str) -> SourceLiteral | None:
        """The literal of ``self.attr`` when ``__init__`` alone sets it from its own argument (``self.BLOCK =
        block``) and nothing else in the class assigns it: the literal the class's one construction in this file
        passes (``TritonRMSNorm(block=1024)``), else the argument's default when no construction passes it."""
        init = next((n for n in cls.body.body if isinstance(n, cst.FunctionDef) and n.name.value == "__init__"), None)
        if init is None:
            return None
        assigns = [
            n
            for n in walk(cls.body)
            if isinstance(n, cst.Assign)
            and any(isinstance(t.target, cst.Attribute) and _dotted(t.target) == f"self.{attr}" for t in n.targets)
        ]
        if len(assigns) != 1 or not isinstance(assigns[0].value, cst.Name):
            return None
        if not any(a is assigns[0] for a in walk(init.body)):
            return None
        params = params_of(init, posonly=True, kwonly=True)
        index = next((i for i, q in enumerate(params) if q.name.value == assigns[0].value.value), None)
        if index is None:
            return None
        param = params[index]
        calls = self.calls.get(cls.name.value, [])
        passing: list[cst.BaseExpression | None] = []
        for call in calls:
            if any(a.star for a in call.args):
                return None
            given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == param.name.value]
            plain = [a.value for a in call.args if a.keyword is None]  # ``self`` is not passed
            if given:
                passing.append(given[0])
            elif param in params_of(init) and 0 < index <= len(plain):
                passing.append(plain[index - 1])
        if not passing:
            return self.literal(param.default)
        return self.literal(passing[0]) if len(calls) == 1 else None

    def class_field(self, cls: cst.ClassDef, attr: str) -> SourceLiteral | None:
        """The literal of ``attr = 1024`` / ``attr: int = 16`` in the body of ``cls`` (one such line)."""
        found: list[cst.BaseExpression | None] = []
        for stmt in cls.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                    if isinstance(small, cst.AnnAssign)
                    else []
                )
                if any(isinstance(t, cst.Name) and t.value == attr for t in targets):
                    found.append(small.value)  # type: ignore[union-attr]
        return self.literal(found[0]) if len(found) == 1 else None

    def sizes_output(self, expr: cst.BaseExpression, func: _FuncInfo | None) -> str | None:
        """Why a launch argument is what the kernel computes, not how fast: the name it passes (``GROUP_SIZE``, a
        quantization group) also sizes a tensor the launching function allocates and returns (``n_groups =
        x.numel() // GROUP_SIZE``, ``s = torch.empty(n_groups)``, ``return torch.cat([q, s])``), so another value
        returns another shape. ``None`` otherwise (a buffer it does not return, ``torch.empty_like``, a size
        read only by the grid)."""
        if func is None or not isinstance(expr, cst.Name):
            return None
        returned: dict[str, set[int] | None] = {}  # a returned name -> the dims of it returned (None: all)
        squeezed = _squeezed_at_one(func.node.body)
        dropped: dict[str, set[tuple[int, str]]] = {}  # a name returned squeezed at 1 -> (dim, the size tested)
        plain: set[str] = set()  # the names some other return reads
        for node in walk(func.node.body):
            if isinstance(node, cst.Return) and node.value is not None:
                if id(node) in squeezed:
                    name, dim, size = squeezed[id(node)]
                    dropped.setdefault(name, set()).add((dim, size))
                else:
                    plain |= set(_returned_dims(node.value))
                for name, dims in _returned_dims(node.value).items():
                    known = returned.get(name, set())
                    returned[name] = None if dims is None or known is None else known | dims
        dropped = {k: v for k, v in dropped.items() if k not in plain}
        sizing: dict[str, int] = {}  # a name that sizes a returned tensor -> the line of the allocation
        for out in sorted(returned):
            binds = func.locals.get(out, [])
            summed = {d for b in binds if b.value is not None and (d := _summed_dim(b.value, out)) is not None}
            for b in binds:
                if _allocates(b.value):
                    dims = _allocation_dims(b.value)
                    rank = sum(dim is not None for dim, _ in dims)
                    reduced = {d % rank if d < 0 and rank else d for d in summed}
                    for dim, size in dims:
                        if returned[out] is None and dim in reduced:
                            continue  # partial results along it, summed before the return (fla's NK blocks)
                        if isinstance(size, cst.Name) and (dim, size.value) in dropped.get(out, ()):
                            continue  # squeezed where it is 1 (breaker19 d1: FlagAttention's split count)
                        if dim is None or returned[out] is None or dim in returned[out]:
                            sizing.update(dict.fromkeys(_read_names(size), b.line))
        frontier = list(sizing)
        while frontier:
            name = frontier.pop()
            for b in func.locals.get(name, []):
                for read in _read_names(b.value) if b.value is not None else set():
                    if read not in sizing:
                        sizing[read] = sizing[name]
                        frontier.append(read)
        if expr.value not in sizing:
            return None
        return (
            f"'{expr.value}' sizes a tensor {func.node.name.value}() returns (allocated at "
            f"{self.loc(sizing[expr.value])}): another value returns another shape, so it is what the kernel "
            "computes, not how fast"
        )

    def sized_by_a_caller(self, expr: cst.BaseExpression, func: _FuncInfo | None) -> str | None:
        """Why a launch argument is what the kernel computes where :meth:`sizes_output` cannot see it: the value is
        the launching function's parameter passed on as it is (vLLM's ``NUM_KV_SPLITS = num_kv_splits``), and a
        caller in this file, up the chain of calls, also sizes a tensor with the value it passes and hands that
        tensor down in the same call (``attn_logits = torch.empty((b, h, num_kv_splits, Lv + 1))``, then
        ``decode_attention_fwd_normal(..., attn_logits, num_kv_splits, ...)``): another value at the launch writes
        past the buffer's splits or leaves some unwritten. ``None`` otherwise (and where that caller owns the value,
        :meth:`owned_by_a_sizing_caller`: the knob is its assignment)."""
        found = self._caller_sizing(expr, func)
        return found[0] if found is not None else None

    def owned_by_a_sizing_caller(self, expr: cst.BaseExpression, func: _FuncInfo | None) -> SourceLiteral | None:
        """The literal a launch argument :meth:`sized_by_a_caller` holds comes from, where the caller that sizes the
        buffer binds the value it passes itself, once, unconditionally, to an integer literal (vLLM's ``run``:
        ``num_kv_splits = 8``, then ``attn_logits = torch.empty((..., num_kv_splits, ...))`` and the call handing both
        down): an edit there moves the launches and the buffer together, so that assignment is the knob. ``None``
        where the value comes into that caller from its own caller, or is computed there (held, as before)."""
        found = self._caller_sizing(expr, func)
        if found is None:
            return None
        _, caller, passed = found
        binds = caller.locals.get(passed, [])
        if len(binds) != 1 or binds[0].conditional or binds[0].chained or binds[0].value is None:
            return None
        lit = self.literal(binds[0].value)
        return lit if lit is not None and is_int(lit.value) else None

    def _caller_sizing(
        self, expr: cst.BaseExpression, func: _FuncInfo | None, depth: int = 0
    ) -> tuple[str, _FuncInfo, str] | None:
        """:meth:`sized_by_a_caller`'s reason, the caller that sizes the buffer, and the name it passes down."""
        if func is None or not isinstance(expr, cst.Name) or depth > 4:
            return None
        name = expr.value
        for _ in range(8):  # NUM_KV_SPLITS = num_kv_splits: follow a plain renaming to the parameter
            binds = func.locals.get(name, [])
            if not binds:
                break
            if len(binds) != 1 or not isinstance(binds[0].value, cst.Name):
                return None
            name = binds[0].value.value
        fname = func.node.name.value
        params = params_of(func.node, posonly=True)
        index = next((i for i, q in enumerate(params) if q.name.value == name), None)
        declared = param_names(func.node, posonly=True, kwonly=True)
        if name not in declared or name in func.locals or len(self.functions.get(fname, [])) != 1:
            return None
        for call in self.calls.get(fname, []):
            if any(a.star for a in call.args):
                continue
            given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == name]
            plain = [a.value for a in call.args if a.keyword is None]
            passed = given[0] if given else plain[index] if index is not None and index < len(plain) else None
            caller = self.enclosing_function(call)
            if not isinstance(passed, cst.Name) or caller is None:
                continue
            derived = {passed.value}  # the names the caller computes from the value it passes
            grown = True
            while grown:
                grown = False
                for local, binds in caller.locals.items():
                    if local not in derived and any(
                        b.value is not None and not _allocates(b.value) and _read_names(b.value) & derived
                        for b in binds
                    ):
                        derived.add(local)
                        grown = True
            handed = set().union(*(_read_names(a.value) for a in call.args))
            for buffer in sorted(handed & set(caller.locals)):
                for b in caller.locals[buffer]:
                    alloc = b.value
                    if _allocates(alloc) and any(_read_names(size) & derived for _, size in _allocation_dims(alloc)):
                        why = (
                            f"'{expr.value}' is the value {caller.node.name.value}() also sizes '{buffer}' with "
                            f"(allocated at {self.loc(b.line)}) and hands down with it "
                            f"({self.loc(self.positions[call].start.line)}):"
                            " another value at the launch alone reads or writes that buffer at sizes it was not "
                            "allocated with, so it is held at its value; change it where the buffer is sized"
                        )
                        return why, caller, passed.value
            if any(q.name.value == passed.value for q in caller.params) and passed.value not in caller.locals:
                found = self._caller_sizing(passed, caller, depth + 1)
                if found is not None:
                    return (found[0].replace(f"'{passed.value}'", f"'{expr.value}'", 1), *found[1:])
        return None

    def shape_unpacked(self, expr: cst.BaseExpression, func: _FuncInfo | None) -> str | None:
        """Why a launch argument named no known knob is a size of the problem where the launching function unpacks it
        from a tensor's shape (or binds it to one size, ``e = v.shape[-1]``) and binds it nowhere else (fla_kkt's ``B,
        T, H, K = k.shape``, ``K=K``: the head dimension, said before as "'K' is not a simple assignment ...");
        ``None`` otherwise."""
        if func is None or not isinstance(expr, cst.Name):
            return None
        binds = func.locals.get(expr.value, [])
        if len(binds) == 1 and binds[0].value is not None and _bare_size(binds[0].value):
            # one of a shape's sizes bound alone (Lightning Attention's backward ``e = v.shape[-1]``, listed as a
            # block of category block_size and then "not editable": breaker25's seen item)
            return (
                f"'{expr.value}' is a size of the problem, {self.code(binds[0].value)} in {func.node.name.value}() "
                f"(line {binds[0].line}): another value is another problem, not the same one faster"
            )
        stmt = binds[0].statement if len(binds) == 1 and binds[0].value is None else None
        assign = stmt.body[0] if stmt is not None and len(stmt.body) == 1 else None
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1):
            return None
        target, value = assign.targets[0].target, assign.value
        shaped = isinstance(value, cst.Attribute) and value.attr.value == "shape"
        shaped = shaped or (isinstance(value, cst.Call) and _dotted(value.func).rpartition(".")[2] == "size")
        if not shaped or not isinstance(target, cst.Tuple | cst.List):
            return None
        return (
            f"'{expr.value}' is a size of the problem, unpacked from {self.code(value)} in {func.node.name.value}() "
            f"(line {binds[0].line}): another value is another problem, not the same one faster"
        )

    def size_renamed(self, expr: cst.Name, func: _FuncInfo | None) -> str | None:
        """:meth:`shape_unpacked`'s reason for ``expr`` or for the name it renames, followed through names each
        bound once to the next (``BLOCK = block_size``, ``block_size = k_caches.size(s_dim)``); ``None`` where the
        chain reaches anything else (a computation, a parameter, a name bound twice)."""
        seen: set[str] = set()
        while func is not None and expr.value not in seen:
            seen.add(expr.value)
            why = self.shape_unpacked(expr, func)
            if why is not None:
                return why
            binds = func.locals.get(expr.value, [])
            if len(binds) != 1 or not isinstance(binds[0].value, cst.Name):
                return None
            expr = binds[0].value
        return None

    def module_literal(self, expr: cst.BaseExpression | None, at: cst.CSTNode) -> SourceLiteral | None:
        """The literal of a module-level name bound once to one and never changed, read at ``at`` where no
        enclosing function binds the name as its own; ``None`` otherwise."""
        if not isinstance(expr, cst.Name):
            return None
        binds = self.module_bindings.get(expr.value, [])
        if len(binds) != 1 or binds[0].chained or binds[0].conditional or self.mutated(expr.value, None):
            return None
        line = self.positions[at].start.line
        for infos in self.functions.values():
            for f in infos:
                rng = self.positions[f.node]
                if rng.start.line <= line <= rng.end.line and _binds(f, expr.value):
                    return None
        return self.literal(binds[0].value)

    def passed_by_calls(self, func: _FuncInfo, param: cst.Param) -> _Resolved | None:
        """What the calls of ``func`` in this file make of its parameter ``param`` when one passes it (``None``
        when none does: its default is the value). A helper called once with a literal for it (``_launch(x, y,
        s, block=512)``, in a lambda or a function) has that literal as the value, edited at the call; a default
        the calls override otherwise is no value to edit: refused, naming the calls."""
        fname, pname = func.node.name.value, param.name.value
        if len(self.functions.get(fname, [])) != 1:
            return None
        positional = params_of(func.node, posonly=True)
        index = next((i for i, q in enumerate(positional) if q is param), None)
        passing: list[tuple[cst.Call, cst.BaseExpression | None]] = []
        for call in self.calls.get(fname, []):
            if any(a.star for a in call.args):
                passing.append((call, None))  # ``*args`` / ``**kwargs``: what it passes is not read
                continue
            by_keyword = [a.value for a in call.args if a.keyword is not None and a.keyword.value == pname]
            plain = [a.value for a in call.args if a.keyword is None]
            if by_keyword:
                passing.append((call, by_keyword[0]))
            elif index is not None and index < len(plain):
                passing.append((call, plain[index]))
        if not passing:
            return None
        calls = self.calls[fname]
        lit = self.literal(passing[0][1]) if len(calls) == 1 and passing[0][1] is not None else None
        if lit is not None:
            return _Resolved(lit, defined_as=pname)
        constant = self.module_literal(passing[0][1], passing[0][0]) if len(calls) == 1 else None
        if constant is not None:  # the one call passes a module constant (SGLang's NUM_KV_SPLITS): edited there
            return _Resolved(constant, at_module=True, defined_as=self.code(passing[0][1]))
        lines = ", ".join(self.loc(self.positions[c].start.line) for c, _ in passing)
        return _Resolved(
            refused=(
                f"comes from argument '{pname}' of {fname}(), which {len(passing)} of its {len(calls)} call(s) pass "
                f"({lines}): its default is not the value every launch runs; edit the calls"
            )
        )

    def _from_bindings(self, name: str, binds: list[_Binding], func: _FuncInfo | None, depth: int) -> _Resolved:
        where = f"{func.node.name.value}()" if func else "the module"
        binds = [b for b in binds if not b.tuned] or binds
        first = binds[0]
        if len(binds) > 1 and not first.conditional and all(b.conditional for b in binds[1:]):
            # ``BLOCK = 1024`` then ``if n <= 4096: BLOCK = ...``: the literal is the value for every size the
            # conditions leave alone, and the knob; the overrides stay as written
            lit = self.literal(first.value)
            if lit is not None and not first.chained:
                reads = any(
                    b.value is None or any(isinstance(n, cst.Name) and n.value == name for n in walk(b.value))
                    for b in binds[1:]
                )
                return _Resolved(
                    lit,
                    at_module=func is None,
                    defined_as=name,
                    overridden_at=[b.line for b in binds[1:]],
                    override_reads=reads,
                )
        if len(binds) > 1:
            lines = ", ".join(str(b.line) for b in binds)
            return _Resolved(refused=f"'{name}' is assigned more than once in {where} (lines {lines})")
        b = binds[0]
        if b.chained:
            return _Resolved(
                refused=f"'{name}' is assigned together with other names (line {b.line}); an edit would move both"
            )
        lit = self.literal(b.value) or self.folded(b.value)
        if lit is not None:
            return _Resolved(lit, at_module=func is None, defined_as=name)
        if isinstance(b.value, cst.Name):  # BLOCK = DEFAULT_BLOCK: follow the name
            inner = b.value.value
            scope = func if func is not None and _binds(func, inner) else None
            return self.resolve_name(inner, scope, depth + 1)
        element = self.subscripted(b.value, func) if isinstance(b.value, cst.Subscript) else None
        if element is not None:  # bm = TILE[0]: the tuple's element
            return element
        if b.value is None:
            unpacked = self.unpacked(name, b, func, depth)
            if unpacked is not None:
                return unpacked
            return _Resolved(refused=f"'{name}' is not a simple assignment in {where} (line {b.line})")
        return _Resolved(refused=f"'{name}' is computed in {where} (line {b.line}): {self.code(b.value)}")

    def unpacked(self, name: str, b: _Binding, func: _FuncInfo | None, depth: int) -> _Resolved | None:
        """Where ``name`` is unpacked from a tuple held by a name (``bm, bn = TILE`` in ``run()`` or ``BLOCK_M,
        BLOCK_N = TILES`` at the module, ``TILE = (64, 32)`` bound once) or by a nested tuple's element (``bm, bn =
        TILE[0]`` of ``TILE = ((64, 32), (128, 64))``, leftovers19's l3): that tuple's element, each element its own
        knob (``TILE[0]``, ``TILE[0][1]``; a module-level unpacking keeps its own name), written back in the tuple.
        ``None`` for any other assignment (starred, nested targets, a call's result, a tuple bound more than once or of
        another length)."""
        stmt = b.statement
        unpacked = unpacking(stmt.body[0] if stmt is not None and len(stmt.body) == 1 else None)
        if unpacked is None or unpacked[1].count(name) != 1:
            return None
        held, names = unpacked
        held, at = through_names(held, self.path_names(func)), names.index(name)
        changed = self.changed_in_place(path_parts(held)[0], func)
        if changed is not None:
            return _Resolved(refused=f"{held}[{at}] is not a knob: {changed}")
        lit = self.tuple_element(held, at, func, len(names)) if depth <= 3 else None
        if lit is None:
            return None
        own = func is None  # a module-level unpacking: the knob keeps its name
        return _Resolved(lit, at_module=True, defined_as=name if own else f"{held}[{at}]")

    def subscripted(self, expr: cst.BaseExpression, func: _FuncInfo | None) -> _Resolved | None:
        """``bm = TILE[0]`` (a name bound once to a tuple or list literal, indexed by an integer literal): that
        element, a knob of its own keyed ``TILE[0]`` and written back in the tuple, as :meth:`unpacked` reads ``bm, bn
        = TILE``; a nested tuple's by each index (``TILE[0][1]``, leftovers19's l3); ``None`` for any other subscript
        (one indexed by a name or an expression: :meth:`indexed_note` says why). Read where a name binds
        it and at a launch (``BLOCK_M=TILE[0]``, leftovers18): the guard reads a grid's ``M // TILE[0]`` as the tile
        (``guard._tile_id``), as it reads ``M // bm``. The tuple is read through a name bound once to it too (``cfg =
        TILE`` then ``bm, bn = cfg[0], cfg[1]`` or ``BLOCK_M=cfg[0]``, leftovers20's l5), as the guard names the
        element (:func:`~kernelopt.tunables.bindings.element_names`, ``element_spellings``)."""
        read = element_read(expr)
        if read is None:
            return None
        held, at = through_names(read[0], self.path_names(func)), read[1]
        changed = self.changed_in_place(path_parts(held)[0], func)
        if changed is not None:
            return _Resolved(refused=f"{held}[{at}] is not a knob: {changed}")
        lit = self.tuple_element(held, at, func)
        return _Resolved(lit, at_module=True, defined_as=f"{held}[{at}]") if lit is not None else None

    def path_names(self, func: _FuncInfo | None) -> dict[str, str]:
        """The names that stand for a tuple's path where ``func`` (or the module) reads them: each bound once by a
        plain assignment of a tuple's name or element (``row = TILE[0]``, ``cfg = TILE``; :func:`~kernelopt.tunables.
        bindings.assigned_once`'s rule), ``func``'s own and the module's it does not bind (leftovers20's l5)."""
        module = {n: v[0] for n, v in bindings(self.module).items() if len(v) == 1 and v[0] is not None}
        own = assigned_once(func.node) if func is not None else {}
        named = {**{n: v for n, v in module.items() if func is None or not _binds(func, n)}, **own}
        return {n: path for n, v in named.items() if (path := held_path(v)) is not None and path_parts(path)[0] != n}

    def changes_in_place(self, base: str) -> list[tuple[int, str | None]]:
        """Each line that changes the value the module binds ``base`` to in place (``TILE[0] = 32``,
        ``SIZES.append(1024)``), with the scope or the other name it is changed through (``x = TILE`` then ``x[0] =
        32``, ``cfgs = CONFIGS`` then ``cfgs.append(...)``: leftovers20's l5): at the module's top level and in each
        function that does not bind a ``base`` of its own, directly or through a name bound to ``base`` there (or at
        the module)."""

        def lines(
            changes: Mapping[str, list[int]],
            binds: Mapping[str, list[_Binding]],
            outer: Callable[[str], bool],
            where: str | None,
        ) -> list[tuple[int, str | None]]:
            out = []
            for name in sorted(changes):
                how = ", ".join(w for w in (where, None if name == base else f"through {name}") if w) or None
                for line in changes[name]:
                    mine = binds.get(name)
                    if name == base or (_holds(base, mine, line) if mine else outer(name)):
                        out.append((line, how))
            return out

        def module_alias(name: str) -> bool:  # a module name as a function reads it: its binding after the import
            return bool(self.module_bindings.get(name)) and _holds(base, self.module_bindings[name], None)

        out = lines(self.module_mutations, self.module_bindings, lambda _: False, None)
        scopes = self.effect_scopes(base)
        for info in (i for infos in self.functions.values() for i in infos):
            if not _binds(info, base):
                out += lines(info.mutations, info.locals, module_alias, f"in {info.node.name.value}()")
        for name, body in self.class_bodies:
            if base not in body.bindings:
                out += lines(body.mutations, body.bindings, module_alias, f"class {name}'s body")
        if self.mutable(base):
            out += self.effects_on(base, scopes)
        return sorted(set(out), key=lambda c: (c[0], c[1] or ""))

    def effect_scopes(self, base: str) -> list[tuple[_Effects, Callable[[str, int], bool], str | None]]:
        """Each scope that does not bind a ``base`` of its own, with its effects (:class:`_Effects`), whether a name
        of it holds the module's ``base`` at a line, and how its lines are said (``in run()``, ``class K's body``)."""

        def holds(binds: Mapping[str, list[_Binding]], outer: bool) -> Callable[[str, int], bool]:
            def at(name: str, line: int) -> bool:
                if name == base:
                    return True
                mine = binds.get(name)
                if mine:
                    return _holds(base, mine, line)
                module = self.module_bindings.get(name)
                return outer and bool(module) and _holds(base, module or [], None)

            return at

        out: list[tuple[_Effects, Callable[[str, int], bool], str | None]] = [
            (self.module_effects, holds(self.module_bindings, False), None)
        ]
        out += [
            (info.effects, holds(info.locals, True), f"in {info.node.name.value}()")
            for infos in self.functions.values()
            for info in infos
            if not _binds(info, base)
        ]
        out += [
            (body.effects, holds(body.bindings, True), f"class {name}'s body")
            for name, body in self.class_bodies
            if base not in body.bindings
        ]
        return out

    def mutable(self, base: str) -> bool:
        """Whether the module binds ``base`` to a value a callee or an attribute could change in place (a list, a
        dict, a set, one built by code); a tuple's or a number's elements no call changes."""
        binds = self.module_bindings.get(base, [])
        return any(not isinstance(b.value, cst.Tuple | cst.Integer | cst.Float | cst.SimpleString) for b in binds)

    def effects_on(
        self, base: str, scopes: list[tuple[_Effects, Callable[[str, int], bool], str | None]]
    ) -> list[tuple[int, str | None]]:
        """The lines that may change the module's ``base`` in place beyond its own name and the names bound to it
        (leftovers21 l10): a call it is passed to whose callee changes its argument (a function of the file, read:
        ``def grow(l): l.append(8)``) or is not read here (an import, a method: it may), and a change through an
        attribute it is stored in (``self.configs = CONFIGS`` then ``self.configs.append(...)``) or through the
        module's own name for it (``mod.CONFIGS[0] = ...``). A function of the file that only reads its argument
        is no change."""
        out: list[tuple[int, str | None]] = []
        attributes = {base}
        for effects, holds, where in scopes:
            for name, calls in effects.passed.items():
                for line, callee, arg in calls:
                    why = self.callee_changes(callee, arg, set()) if holds(name, line) else None
                    if why is not None:
                        via = "" if name == base else f" (as {name})"
                        out.append((line, ", ".join(w for w in (where, f"passed{via} to {callee}(), {why}") if w)))
            attributes |= {a for a, stores in effects.stored.items() if any(holds(n, ln) for ln, n in stores)}
        for effects, _, where in scopes:
            for attribute in sorted(attributes & set(effects.changed)):
                for line, text in effects.changed[attribute]:
                    out.append((line, ", ".join(w for w in (where, f"through {text}") if w)))
        return out

    def callee_changes(self, callee: str, arg: int | str, seen: set[str]) -> str | None:
        """Why a call of ``callee`` may change its argument ``arg`` (a position or a keyword) in place: a function of
        the file whose parameter there it changes, stores in an attribute or passes on to a call that may; a callee
        this file does not define (nor :data:`_READS_ONLY` names), whose body is not read. ``None`` where it does
        not."""
        if callee in _READS_ONLY:
            return None
        fns = self.functions.get(callee, [])
        if len(fns) != 1 or callee in seen:
            return None if callee in seen else "whose body is not read here, so it may change it"
        info = fns[0]
        names = [p.name.value for p in info.params]
        param = arg if isinstance(arg, str) else (names[arg] if arg < len(names) else None)
        if param is None or param not in names:
            return "whose body is not read here, so it may change it"
        if param in info.mutations:
            return f"which changes it (line(s) {', '.join(map(str, info.mutations[param]))})"
        if any(n == param for stores in info.effects.stored.values() for _, n in stores):
            return "which stores it in an attribute"
        for line, inner, where in info.effects.passed.get(param, []):
            if self.callee_changes(inner, where, seen | {callee}) is not None:
                return f"which passes it to {inner}() at line {line}, which may change it"
        return None

    def changed_in_place(self, base: str, func: _FuncInfo | None) -> str | None:
        """Why the literal the module binds ``base`` to is not the value that runs: the file changes it in place after
        its binding (:meth:`changes_in_place`), in one line; ``None`` where it does not (or ``func`` binds a ``base``
        of its own). Discovery reads no code, so such an element is refused, never offered at its literal's value
        (loses20 l2, break19's seen item)."""
        if func is not None and _binds(func, base):
            return None
        changes = self.changes_in_place(base)
        if not changes:
            return None
        where = ", ".join(f"{line} ({how})" if how else str(line) for line, how in changes)
        return (
            f"'{base}' is changed in place at line(s) {where} after its binding, so its literal is not the value that "
            f"runs (bind the final value once, e.g. {base} = [...] with every element as it should run)"
        )

    def tuple_element(
        self, held: str, at: int, func: _FuncInfo | None, length: int | None = None
    ) -> SourceLiteral | None:
        """The literal at ``at`` of the tuple or list literal the module binds ``held`` to once, unconditionally (of
        ``length`` elements where given; ``held`` a path, ``TILE[0]``, names a tuple nested in it: :func:`~kernelopt.
        tunables.bindings.path_parts`); ``None`` where there is no such literal (a computed element, a starred one, a
        tuple bound twice or of another length, or one ``func`` binds: a local tuple's element moved under a guard by a
        size would be bound again by the unpacking after the guard, so it stays a computed setting, tuned after it)."""
        base, path = path_parts(held)
        if func is not None and _binds(func, base):
            return None
        binds = self.module_bindings.get(base, [])
        if len(binds) != 1 or binds[0].conditional or binds[0].chained or self.changes_in_place(base):
            return None  # changed in place after its binding: :meth:`changed_in_place`
        value = binds[0].value
        for step in path:  # down the nested tuples to the one ``held`` names
            if not isinstance(value, cst.Tuple | cst.List) or not 0 <= step < len(value.elements):
                return None
            inner = value.elements[step]
            value = None if isinstance(inner, cst.StarredElement) else inner.value
        if not isinstance(value, cst.Tuple | cst.List) or length not in (None, len(value.elements)):
            return None
        if not 0 <= at < len(value.elements) or isinstance(element := value.elements[at], cst.StarredElement):
            return None
        return self.literal(element.value) or self.folded(element.value)

    # -- sites ------------------------------------------------------------------------------------

    def add_site(self, site: Site) -> None:
        if site.tuned is not None:  # launches reading one computed setting (or one hoisted line): one knob
            for s in self.sites:
                if s.tuned is not None and (s.tuned.start, s.tuned.variable) == (site.tuned.start, site.tuned.variable):
                    s.feeds += [f for f in site.feeds if f not in s.feeds]
                    s.used_at += [u for u in site.used_at if u not in s.used_at]
                    s.groups += [g for g in site.groups if g not in s.groups]
                    return
        if site.literal is not None:
            for s in self.sites:
                if s.literal is not None and s.literal.node is site.literal.node:
                    for f in site.feeds:
                        if f not in s.feeds:
                            s.feeds.append(f)
                    s.used_at += [u for u in site.used_at if u not in s.used_at]
                    s.groups += [g for g in site.groups if g not in s.groups]
                    s.links += site.links
                    if site.refused and not s.refused:
                        s.refused = site.refused
                    return
        self.sites.append(site)

    def analyze(self) -> list[Site]:
        self.marked_constants()
        self.launch_sites()
        self.autotune_configs()
        self.atomic_selectors()
        self.heuristics()
        self.values_from_the_run()
        return self.sites

    def values_from_the_run(self) -> None:
        """Computed knobs take the value their kernel's launch received in the task run, when one was made;
        of marked constants assigned in several branches of module-level control flow, those of the branches
        the run did not take are refused (an edit there would change nothing the task runs)."""
        shape = f" for the task shape {self.shape}" if self.shape else ""
        branches: dict[str, list[Site]] = {}
        for s in self.sites:
            if s.kind is TunableKind.MARKED_CONSTANT and s.needs_run and s.literal is not None and s.kernel:
                branches.setdefault(s.name, []).append(s)
        for name, group in branches.items():
            got = next(
                (self.launch_values.get(s.kernel or "", {}).get(f) for s in group for f in s.feeds if f != name), None
            )
            if got is None:
                got = self.launch_values.get(group[0].kernel or "", {}).get(name)
            taken = [s for s in group if s.literal is not None and s.literal.value == got]
            if got is None or len(taken) != 1:
                continue
            for s in group:
                if s is not taken[0] and s.refused is None:
                    s.refused = (
                        f"{NOT_TAKEN} (its launch received {got}, the value at line "
                        f"{taken[0].location_line}{shape}): an edit here would change nothing the task runs"
                    )
        for s in self.sites:
            if s.computed is None or s.value is not None or s.region is not None or s.kernel is None:
                continue
            got = self.launch_values.get(s.kernel, {}).get(s.name)
            if is_int(got):
                s.value = got
                s.value_source = f"the value its launch received in one run of the task{shape}"
        for s in self.sites:  # a default the environment overrode in the run: no value tried would run (q113)
            lit = s.literal
            if lit is None or not isinstance(lit.node, cst.SimpleString) or s.refused is not None or not s.kernel:
                continue
            s.needs_run = True  # the run tells whether the variable is set where the task runs
            got = next((v for f in [s.name, *s.feeds] if (v := self.launch_values.get(s.kernel, {}).get(f))), None)
            if is_int(got) and got != lit.value:
                s.refused = (
                    f"{s.name} = {lit.value} is the default of the environment variable read at line {lit.line}, and "
                    f"the variable is set: its launch received {got}{shape}, so every value tried would run at "
                    "the variable's; unset it to tune the default"
                )

    def marked_constants(self) -> None:
        read_lines: set[int] = set()
        for stmt in module_statements(self.module.body):
            comment = None
            if stmt.trailing_whitespace.comment and MARKER in stmt.trailing_whitespace.comment.value:
                comment = stmt.trailing_whitespace.comment.value
            elif (
                stmt.leading_lines and stmt.leading_lines[-1].comment and MARKER in stmt.leading_lines[-1].comment.value
            ):
                comment = stmt.leading_lines[-1].comment.value
            if comment is None:
                continue
            line = self.positions[stmt].start.line
            read_lines.update({line, line - 1})
            rule, problem = _marker_rule(comment)
            for small in stmt.body:
                pairs: list[tuple[str, Any]] = []
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    pairs = _bind_targets(small.targets[0].target, small.value, line)
                elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    pairs = [(small.target.value, small.value)]
                if not pairs:
                    self.sites.append(
                        Site(
                            f"line{line}",
                            f"line{line}",
                            TunableKind.MARKED_CONSTANT,
                            None,
                            line,
                            refused="marked line is not a single assignment of constants",
                        )
                    )
                for name, val in pairs:
                    lit = self.literal(val)
                    refused = problem
                    if len([b for b in self.module_bindings.get(name, []) if not b.conditional]) > 1:
                        refused = refused or f"'{name}' is assigned more than once in the module"
                    if lit is None:
                        refused = refused or "marked tunable but its value is not a literal"
                    self.sites.append(
                        Site(
                            name,
                            name,
                            TunableKind.MARKED_CONSTANT,
                            lit,
                            lit.line if lit else line,
                            feeds=[name],
                            refused=refused,
                            marker_rule=rule,
                            value=lit.value if lit else None,
                        )
                    )
        finder = _MarkerComments()
        if MARKER in self.source:  # a visit of the whole tree, on every analysis: most kernels have no marker
            visit(self.module, finder)
        for node in finder.comments:
            line = self.positions[node].start.line
            if line in read_lines:
                continue
            self.sites.append(
                Site(
                    f"line{line}",
                    f"line{line}",
                    TunableKind.MARKED_CONSTANT,
                    None,
                    line,
                    refused="the '# kernelopt: tunable' marker is not on a module-level assignment of a constant, "
                    "so kernelopt cannot read it (move the value into a marked module-level constant)",
                )
            )

    def kernel_name(self, la: _Launch) -> str | None:
        """The kernel a launch starts: ``kern[grid](...)``, ``mod.kern[grid](...)``, an alias bound once to a
        kernel of this file (``fn = kern`` then ``fn[grid](...)``), or the one kernel the callers of the function
        pass for a parameter it launches (:func:`~kernelopt.tunables.kernel_params.parameter_kernel`)."""
        sub = la.sub
        dotted = _dotted(launched(sub.value))  # ``wrap_triton(kern)[grid](...)`` launches ``kern``
        kname = dotted.split(".")[-1] if dotted else None
        if kname is None or self.jit_kernel(kname) is not None:
            return kname
        binds = (la.func.locals.get(kname) if la.func is not None else None) or self.module_bindings.get(kname)
        if binds and len(binds) == 1 and binds[0].value is not None:
            target = _dotted(binds[0].value)
            target = target.split(".")[-1] if target else None
            if target is not None and self.jit_kernel(target) is not None:
                return target
        if la.func is not None and any(q.name.value == kname for q in la.func.params):
            # ``implementation[(M,)](...)``: the kernel the function's callers pass for the parameter (Kernl)
            target = parameter_kernel(self.module, la.func.node, kname, self.jit_helpers)
            if target is not None and self.jit_kernel(target) is not None:
                return target
        return kname

    def launch_sites(self) -> None:
        names = [self.kernel_name(la) for la in self.launches]
        per_kernel: dict[str, int] = {}
        for kname in names:
            per_kernel[kname or "?"] = per_kernel.get(kname or "?", 0) + 1
        seen: dict[str, int] = {}
        for la, kname in zip(self.launches, names, strict=True):
            kdef = self.jit_kernel(kname)
            label = kname or "?"
            seen[label] = seen.get(label, 0) + 1
            launch_id = label if per_kernel[label] == 1 else f"{label}#{seen[label]}"
            args, opaque, unread = self.launch_knobs(la, kdef, kname)
            absent = self.absent_at(la, kdef, args, opaque)
            implicit = self.implicit_constexprs(la, kdef, args, opaque)
            args += implicit
            later = self.partial_call_settings(la, kdef)
            if not args and not absent and not unread and not later:
                continue
            if kdef is None and not any(n in LAUNCH_OPTIONS for n, _ in args) and not _looks_like_kernel(kname):
                continue
            group = launch_label(launch_id, self.loc(la.line))
            self.launch_ids[group] = launch_identity(launch_id, la.wrapper)
            launch_sites: list[Site] = []
            for code in unread:  # said, never skipped in silence
                launch_sites.append(
                    Site(
                        f"{launch_id}:**{code}",
                        f"**{code}",
                        TunableKind.LAUNCH_KWARG,
                        None,
                        la.line,
                        kernel=kname,
                        used_at=[la.line],
                        groups=[group],
                        refused=self.unread_why.get(code)
                        or self.read_from_file(la, code)
                        or self.handed_config(la, code)
                        or f"the argument **{code} cannot be read (its dict is built by code or changed after "
                        "it is built): the settings it passes are not listed; build it from literals to tune them",
                        needs_run=self.unread_why.get(code, "").endswith(GIVE_REFERENCE),
                    )
                )
            for name, line, partial in later:  # said, never skipped in silence (breaker30, q104)
                launch_sites.append(
                    Site(
                        f"{launch_id}:{name}",
                        name,
                        TunableKind.LAUNCH_KWARG,
                        None,
                        line,
                        kernel=kname,
                        used_at=[line],
                        groups=[group],
                        refused=f"passed where the partial {partial} is called ({self.loc(line)}), not in its "
                        f"functools.partial(...) ({self.loc(la.line)}): not read there; pass {name} in the partial, "
                        "or launch the kernel directly, to tune it",
                    )
                )
            tiled: list[tuple[Site, str]] = []  # body-bound tiles the programs step by, held below unless linked
            for name, expr in args:
                if self.feeds_marked(la, group, name, expr):
                    continue
                site = self.launch_site(la, launch_id, kname, group, name, expr)
                why = None if site.refused else self.body_tile_why(kdef, name)
                if why is not None:
                    tiled.append((site, why))
                caps = self.cap_sites(la, kname, group, name, expr, self.helper_settings.get((id(expr), name)))
                if any(c.refused is None for c in caps) and site.refused is None and site.computed is not None:
                    # the cap keeps the value computed (and correct at every size the loop covers): tuned
                    # through it, not overridden
                    site.refused = (
                        f"computed ({site.computed}) under the cap {', '.join(c.name for c in caps)}: tuned "
                        "through the cap, which keeps it computed"
                    )
                launch_sites += [site, *caps]
            for name, value in absent.items():
                launch_sites.append(
                    Site(
                        f"{launch_id}:{name}",
                        name,
                        TunableKind.LAUNCH_DEFAULT,
                        None,
                        la.line,
                        kernel=kname,
                        feeds=[name],
                        used_at=[la.line],
                        groups=[group],
                        value=value,
                        insert=self.insertion_point(la.call),
                        value_source=ABSENT_OPTION_SOURCE,
                    )
                )
            self.grid_links(la, launch_sites)
            for site, why in tiled:  # a grid copy linked (cdiv(n, 128) beside BLOCK: tl.constexpr = 128) moves with it
                if site.refused is None and not site.links:
                    site.refused = why
            for s in launch_sites:
                self.add_site(s)

    def implicit_constexprs(
        self, la: _Launch, kdef: _FuncInfo | None, args: list[tuple[str, cst.BaseExpression]], opaque: bool
    ) -> list[tuple[str, cst.BaseExpression]]:
        """Knob values a launch gives without passing them: the literal default of a ``tl.constexpr`` parameter
        it leaves out (``BLOCK: tl.constexpr = 256``; the edit moves the default), a ``tl.constexpr`` local the
        kernel body binds once to a literal (SGLang's ``BLOCK_SIZE: tl.constexpr = 512`` as the body's first line;
        the edit moves that literal), and a module-level constant the kernel body reads as a global
        (``BLOCK = tl.constexpr(256)``; the edit moves the constant). Only knob names (:func:`knob_rule`), not for
        autotuned kernels, values a heuristic sets, or after an unreadable ``*args``/``**kwargs``."""
        if kdef is None or opaque or self.autotuned(kdef):
            return []
        given = {n for n, _ in args} | set(self.heuristic_entries(kdef))
        read = {n.value for n in _names_in(kdef.node.body)}
        out: list[tuple[str, cst.BaseExpression]] = []
        params = {p.name.value for p in kdef.params}
        for p in kdef.params:
            name = p.name.value
            if name in given or name not in read or not _is_constexpr(p.annotation) or p.default is None:
                continue
            if knob_rule(name) is not None and name not in LAUNCH_OPTIONS and self.literal(p.default) is not None:
                out.append((name, p.default))
                self.link_module_twin(la, name, p.default)
        out += self.constexpr_locals(kdef, given)
        launching = (set(la.func.locals) | {p.name.value for p in la.func.params}) if la.func is not None else set()
        for name in sorted(read - params - set(kdef.locals) - given - launching):
            if knob_rule(name) is None or name in LAUNCH_OPTIONS or self.resolve_name(name, None).literal is None:
                continue
            out.append((name, cst.Name(name)))  # resolved to the module constant, as a name passed at the launch
        return out

    def link_module_twin(self, la: _Launch, name: str, default: cst.BaseExpression) -> None:
        """Links a constexpr default to the module constant of the same name and value that the launching function
        reads (Unsloth's ``ROPE_GROUP_SIZE = 4`` sizing the grid beside the kernel's ``ROPE_GROUP_SIZE:
        tl.constexpr = 4``): the two are one setting, and an edit moving the default alone left the grid at the
        old value, wrong at every size (breaker9 w1); both move together."""
        binds = self.module_bindings.get(name, [])
        if la.func is None or _binds(la.func, name) or len(binds) != 1 or binds[0].value is None:
            return
        if binds[0].conditional or name not in {n.value for n in _names_in(la.func.node.body)}:
            return
        twin, mine = self.literal(binds[0].value), self.literal(default)
        if twin is not None and mine is not None and twin.value == mine.value:
            self.splat_partners[id(default)] = ([binds[0].value], None)

    def body_tile_why(self, kdef: _FuncInfo | None, name: str) -> str | None:
        """Why ``name``, a tile the kernel's body binds itself (``BLOCK_M : tl.constexpr = 64``) and its programs
        step through the data by (``pid_m * BLOCK_M + tl.arange(0, BLOCK_M)``), is not a knob: the launch's grid
        counts those programs without reading it (no launch can: Inductor's wrapper computes the grid from its own
        ``meta0`` dict), so a smaller value leaves tiles undone and a larger one runs programs past the last
        (breaker16 c1); ``None`` for any other name. Held only where the grid holds no literal copy of it that the
        edit moves with it (:meth:`grid_links`: ``triton.cdiv(n, 128)`` beside ``BLOCK: tl.constexpr = 128``, tuned
        before c1 and written right; late16)."""
        if kdef is None or name not in body_constexprs(kdef.node) or name not in _aranges_in(kdef.node.body):
            return None
        if not programs_tiled_by(kdef.node, name):
            return None
        return (
            f"{name} is bound in {kdef.node.name.value}'s body and its programs step through the data by it "
            f"(program id * {name}): the launch's grid counts those programs without reading it, so another value "
            "leaves tiles undone or runs programs past the last; change it together with the grid's copy"
        )

    def constexpr_locals(self, kdef: _FuncInfo, given: set[str]) -> list[tuple[str, cst.BaseExpression]]:
        """(name, literal) for each knob name the kernel body binds once, at its top level, by
        ``NAME: tl.constexpr = <int literal>`` and nowhere else: a setting of the kernel's own, as a constexpr
        default is (breaker9 k1)."""
        out: list[tuple[str, cst.BaseExpression]] = []
        for stmt in kdef.node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
                continue
            node = stmt.body[0]
            if not (isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None):
                continue
            name = node.target.value
            if name in given or not _is_constexpr(node.annotation) or len(kdef.locals.get(name, [])) > 1:
                continue
            lit = self.literal(node.value)
            if knob_rule(name) is None or name in LAUNCH_OPTIONS or lit is None or not isinstance(lit.value, int):
                continue
            out.append((name, node.value))
        return out

    def feeds_marked(self, la: _Launch, group: str, name: str, expr: cst.BaseExpression) -> bool:
        """True when ``expr`` names a module constant assigned only by marked lines under module-level control
        flow (``if hip: BLOCK = 512  # kernelopt: tunable`` / ``else: BLOCK = 1024  # ...``): the marked
        constants are its knobs, and the launch is recorded as one of their uses."""
        if not isinstance(expr, cst.Name) or (la.func is not None and expr.value in la.func.locals):
            return False
        binds = self.module_bindings.get(expr.value, [])
        marked = [s for s in self.sites if s.kind is TunableKind.MARKED_CONSTANT and s.name == expr.value]
        if len(binds) < 2 or len(marked) != len(binds) or any(s.literal is None for s in marked):
            return False
        kname = self.kernel_name(la)
        for s in marked:
            if name not in s.feeds:
                s.feeds.append(name)
            s.used_at.append(la.line)
            s.groups.append(group)
            s.kernel = s.kernel or kname
            s.needs_run = True  # which branch the module takes is told by a run (the value the launch gets)
        return True

    def launch_site(
        self, la: _Launch, launch_id: str, kname: str | None, group: str, name: str, expr: cst.BaseExpression
    ) -> Site:
        """The knob the launch ``la`` of ``kname`` passes as ``name=expr``: a helper's setting
        (:meth:`helper_site`), else what the value reads (:meth:`launch_value`), linked to the literals a splat
        passes beside it, and a value computed placed where it is tuned (:meth:`place_computed`)."""
        setting = self.helper_settings.get((id(expr), name))
        if setting is not None:
            return self.helper_site(la, launch_id, kname, group, setting)
        site, overridden = self.launch_value(la, launch_id, kname, group, name, expr)
        splat = self.splat_partners.get(id(expr))
        if splat is not None and site.literal is not None:
            partners, why = splat
            site.refused, site.needs_run = site.refused or why, why is not None
            site.links += [_Link(other, 0) for e in partners if (other := self.literal(e)) is not None]
        if site.computed is not None:
            self.place_computed(site, la, expr)
        elif site.literal is not None and site.refused is None and isinstance(expr, cst.Name):
            self.place_bound_literal(site, la, expr)
        site.needs_run = site.needs_run or overridden
        site.overridden = site.overridden and site.literal is not None
        return site

    def place_bound_literal(self, site: Site, la: _Launch, expr: cst.Name) -> None:
        """A literal the launch reads through a local of its launching function bound once (``BLOCK_SIZE: int =
        4096`` then ``BLOCK_SIZE=BLOCK_SIZE``): a knob whose literal an edit replaces for every size, that a table by
        size may also hold after its binding, the literal the fallback above the sizes checked (leftovers21 l9:
        issue 32's per-shape tuning that keeps the original; unsloth's cross-entropy backward got one value for every
        vocabulary, though each one's best differed). Its ``size_names`` are the sizes read beside it (the grid's
        ``divmod(vocab_size, BLOCK_SIZE)``, ``triton.cdiv(n, BLOCK)``). Once a table is written after it, the file is
        read as before (a guard kernelopt writes over a literal has the same form): the literal the knob, its lines
        kept, no table offered again (``read_table``: what :func:`~kernelopt.tunables.edit.write_table` checks its
        rows by)."""
        func, name = la.func, expr.value
        performance = site.name in LAUNCH_OPTIONS or knob_rule(site.name) is not None
        binds = [b for b in func.locals.get(name, []) if not b.tuned] if func is not None else []
        if func is None or not performance or site.kind is not TunableKind.LAUNCH_KWARG or len(binds) != 1:
            return
        if binds[0].chained or binds[0].conditional or not isinstance(binds[0].value, cst.Integer):
            return  # the literal bound here, not a module tuple's element unpacked (its knob is in the tuple)
        assert site.literal is not None
        found = self.tuned_region(name, la)
        # the table goes right after the literal's line, so it reads only sizes bound by then (review21 r15: `n =
        # x.numel()` after `BLOCK = 1024` gave a table reading `n` before it was bound, raising at every call)
        sizes = [
            n for n in self.read_beside(func, name) if all(b.line <= binds[0].line for b in func.locals.get(n, []))
        ]
        if not isinstance(found, tuple) or not sizes:
            return
        region = found[0]
        if region.end_line != region.line:
            # tuned lines after it already (a table written so, or a guard kernelopt wrote over the literal, alike in
            # form): the literal stays the knob as before, its lines read for the writer's check alone
            site.read_table = region.table
            return
        site.table_region, site.size_names = region, sizes  # no tuned lines after it: a table may hold it

    def read_beside(self, func: _FuncInfo, name: str) -> list[str]:
        """The sizes a launching function reads beside its local ``name`` (a block): the names in scope read by each
        statement, or each launch's grid, that reads ``name``, less ``name``, functions called, the device-only
        names, and locals bound only to literals (other settings)."""
        in_scope = {p.name.value for p in func.params} | set(func.locals)
        device = _receiver(func)
        reads: list[str] = []
        called: set[str] = set()
        for node in walk(func.node.body):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                called.add(node.func.value)
            grid = node.func.slice if isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript) else None
            if grid is not None:
                part = grid[0].slice if grid else None
                read = _read_names(part) if part is not None else set()
            elif isinstance(node, cst.BaseSmallStatement) and not any(
                isinstance(c, cst.Call) and isinstance(c.func, cst.Subscript) for c in walk(node)
            ):
                value = node.value if isinstance(node, cst.Assign | cst.AnnAssign) else node
                read = _read_names(value) if value is not None else set()  # what it reads, not what it binds
            else:
                continue
            if name in read:
                reads += sorted(read)

        def literal_only(n: str) -> bool:
            binds = func.locals.get(n, [])
            return bool(binds) and all(isinstance(b.value, cst.Integer) for b in binds)

        return [
            n
            for n in dict.fromkeys(reads)
            if n in in_scope and n != name and n not in device and n not in called and not literal_only(n)
        ]

    def launch_value(
        self, la: _Launch, launch_id: str, kname: str | None, group: str, name: str, expr: cst.BaseExpression
    ) -> tuple[Site, bool]:
        """The site of what ``name=expr`` reads at the launch ``la``: a literal (through a platform's branch, an
        attribute, a name bound once, a module tuple's element, the caller that sizes a buffer with it) or the
        expression computed, refused where it computes something else; and whether the literal is overridden under
        conditions (a run tells which is in effect). What it reads is the first answer of
        :meth:`read_value`."""
        lit = self.literal(expr)
        if lit is None and read_inline_guard(expr) is not None:
            lit = self.literal(expr.orelse)  # type: ignore[attr-defined]  # tuned where its guard holds
        read = _Read(lit) if lit is not None else self.read_value(la, kname, name, expr)
        lit, kind, refused, computed = read.literal, read.kind, read.refused, read.computed
        # a value the caller sizing a buffer with it owns (vLLM's run: num_kv_splits = 8): the knob is that line
        owned = (
            self.owned_by_a_sizing_caller(expr, la.func)
            if lit is None and kind is not TunableKind.MODULE_CONSTANT and knob_rule(name) is not None
            else None
        )
        if owned is not None:
            lit, refused, computed = owned, None, None
        value = lit.value if lit else None
        what = self.what_it_computes(la, kname, name, expr, value, kind, caller_owned=owned is not None)
        semantic = what is not None
        if what is not None:
            refused, computed = what, None
        elif lit is not None and not isinstance(lit.value, int | bool):
            refused = refused or f"value {lit.value!r} is not an integer"
        site = Site(
            read.key or f"{launch_id}:{name}",
            name,
            kind,
            lit,
            lit.line if lit else la.line,
            kernel=kname,
            feeds=[name],
            used_at=[la.line],
            groups=[group],
            refused=refused,
            value=value,
            computed=computed,
            semantic=semantic,
            needs_run=read.branched and refused is not None and refused.endswith(GIVE_REFERENCE),
            helper_note=read.note,
            overridden=read.replaced,
            override_lines=list(read.override_lines) if read.replaced else [],
        )
        return site, read.overridden

    def read_value(self, la: _Launch, kname: str | None, name: str, expr: cst.BaseExpression) -> _Read:
        """What a launch keyword's value that is no literal reads: the first answer (not ``None``) of the readers,
        asked in this order; the last, a value computed, answers every expression."""
        readers: tuple[_ValueReader, ...] = (
            self._read_branch,
            self._read_attribute,
            self._read_name,
            self._read_element,
        )
        for reader in readers:
            if (read := reader(la, kname, name, expr)) is not None:
                return read
        return self._read_computed(expr)

    def _read_branch(self, la: _Launch, kname: str | None, name: str, expr: cst.BaseExpression) -> _Read | None:
        """A name bound once to a conditional expression of literals (a platform's branch)."""
        branch = self.branch_literal(expr, la.func, kname, name) if isinstance(expr, cst.Name) else None
        return None if branch is None else _Read(branch[0], refused=branch[1], branched=True)

    def _read_attribute(self, la: _Launch, kname: str | None, name: str, expr: cst.BaseExpression) -> _Read | None:
        """``owner.NAME`` held by the file (a class attribute, a settings object's field)."""
        held = self.attribute_literal(expr, la.func) if isinstance(expr, cst.Attribute) else None
        return None if held is None else _Read(held)

    def _read_name(self, la: _Launch, kname: str | None, name: str, expr: cst.BaseExpression) -> _Read | None:
        """A name followed to the literal that defines it (a local, a parameter's default, a module constant),
        its conditional overrides told by a run; or, where it leads to none, how the name is computed."""
        if not isinstance(expr, cst.Name):
            return None
        res = self.resolve_name(expr.value, la.func)
        read = _Read(res.literal, refused=res.refused)
        if read.literal is not None and res.overridden_at:
            read.refused = self.override_in_effect(kname, name, read.literal.value, res.overridden_at)
            read.overridden = True  # a run tells whether the literal is in effect at the task's sizes
            read.replaced = not res.override_reads
            read.override_lines = list(res.overridden_at)
            if read.refused is not None and not res.at_module:
                # an override is in effect at every entry the run saw (breaker6 j10): the value in effect is
                # tuned where it is computed, after the overrides, as any computed setting (the literal and
                # its overrides stay as the fallback of a table by size)
                read.literal = None
            elif read.refused is None and not self.shape_sizes:  # no run told: say the literal may not be in effect
                where = ", ".join(str(line) for line in res.overridden_at)
                read.note = (
                    f"{expr.value} = {read.literal.value!r} is overridden under conditions at line(s) {where}: the "
                    "literal is the value only where none applies (a run of the task, tunables --reference, "
                    "tells which is in effect at each SHAPES entry; tune moves the literal only where it is)"
                )
        if read.literal is not None and res.at_module:
            read.kind, read.key = TunableKind.MODULE_CONSTANT, res.defined_as or expr.value
        elif read.literal is None:
            read.computed = self.computed_text(expr.value, la.func) or f"{expr.value}: {read.refused}"
            read.note = read.note or self.indexed_note(expr.value, la.func)  # never a knob in silence (leftovers19)
        return read

    def _read_element(self, la: _Launch, kname: str | None, name: str, expr: cst.BaseExpression) -> _Read | None:
        """``BLOCK_M=TILE[0]``: a module tuple's element, its own knob written back in the tuple (the guard reads a
        grid's ``TILE[0]`` as the tile: ``guard._tile_id``)."""
        element = self.subscripted(expr, la.func)
        if element is not None and element.refused is not None:
            return _Read(None, refused=element.refused, computed=self.code(expr))
        if element is None or element.literal is None:
            return None
        return _Read(element.literal, kind=TunableKind.MODULE_CONSTANT, key=element.defined_as)

    def _read_computed(self, expr: cst.BaseExpression) -> _Read:
        """Anything else: a value computed at the launch, refused as such."""
        return _Read(None, refused=f"value is computed at the launch: {self.code(expr)}", computed=self.code(expr))

    def place_computed(self, site: Site, la: _Launch, expr: cst.BaseExpression) -> None:
        """``site``, a value computed, placed where it is tuned: where it is computed (a tuned region), overridden
        at the launch with a literal, or left as written and refused (why is its ``refused``)."""
        name, kname, lit, refused, computed = site.name, site.kernel, site.literal, site.refused, site.computed
        kind, value = site.kind, site.value
        override: Span | None = None
        tuned: TunedRegion | None = None
        size_names: list[str] = []
        helper_note: str | None = None
        # A computed performance knob is tuned where it is computed (every reader of the name then
        # agrees); computed inline at the launch, its expression first gets a line of its own, so it stays
        # the fallback. A value the launching function does not compute (a parameter, a module name) is
        # overridden at the launch with a literal, unless something else reads it (a grid, a host-side
        # check): an override at the launch would disagree with that use.
        performance = name in LAUNCH_OPTIONS or knob_rule(name) is not None or name in self.stepped_tiles(kname)
        left = False  # computed inline, and that computation cannot be kept under a tuned line
        found: tuple[TunedRegion, list[str]] | str | None = None
        saved = self.saved_on_ctx(expr, la) if performance and lit is None else None
        element = self.subscripted(expr, la.func) if isinstance(expr, cst.Subscript) else None
        if element is not None and element.refused is not None:  # TILE[0] of a TILE changed in place (loses20 l2)
            left, refused = True, element.refused
        elif saved is not None:  # the forward's value, read back in the backward: tuned where the forward has it
            left, refused = True, saved
        elif performance and _bare_size(expr):
            # bitsandbytes' BLOCK_SIZE=x.shape[1]: the row's length under a block's name (the kernel's row
            # stride, the arange covering it another constexpr); any other value computes something else
            left, refused = (
                True,
                (
                    f"{name}={self.code(expr)} is a size of the problem passed whole, not a choice: another value "
                    "changes what the kernel computes"
                ),
            )
        elif performance and isinstance(expr, cst.Name) and (whole := self.size_renamed(expr, la.func)) is not None:
            # the same size under another name (FlagAttention's BLOCK_DMODEL=D of ``B, H, M, D = q.shape``, LMDeploy's
            # BLOCK = block_size of ``block_size = k_caches.size(s_dim)``, the cache's page): breaker28's q80
            left, refused = True, f"{name}={expr.value} passes a size of the problem whole, not a choice: {whole}"
        elif performance and isinstance(expr, cst.Name):
            found = self.tuned_region(expr.value, la)
        elif performance and lit is None:
            # computed inline at the launch: tuned as a computed setting once the expression has a line
            # of its own (a literal at the launch would be less general than the expression it replaces)
            found = self.hoisted_region(name, expr, la)
            if isinstance(found, str):
                found, left = f"{found}, so it is left as written", True
        if isinstance(found, str):
            refused = found if left else f"{refused}; {found}"
        elif found is not None:
            tuned, size_names = found
        reads_a_name = isinstance(expr, cst.Name) and name not in LAUNCH_OPTIONS
        other = self.other_uses(la, expr) if reads_a_name and tuned is None else None
        if left:
            computed = None
        elif not performance:
            refused = f"{refused}; not a known performance knob, so no override is offered"
            computed = None
        elif tuned is not None:
            kind, refused = TunableKind.COMPUTED_SETTING, None
            constant = self.constant_value(self.computation(expr, la.func), la.func) if la.func is not None else None
            if not size_names and constant is not None:  # read from literals alone: one value at every size (l22)
                value, site.value_source = constant, CONSTANT_SOURCE
            if tuned.variable in tuned.values:
                value = tuned.values[tuned.variable]
            if isinstance(expr, cst.Name) and la.func is not None:
                calls = [
                    e
                    for b in la.func.locals.get(expr.value, [])
                    if not b.tuned
                    for e in _assigned_values(b)
                    if isinstance(e, cst.Call)
                ]
                helper_note = next((n for c in calls if (h := _dotted(c.func)) and (n := self.imported_note(h))), None)
        elif other is not None:
            refused = f"{refused}; an override at the launch would disagree with its use at {other}"
            computed = None
        else:
            kind, refused, override = TunableKind.LAUNCH_OVERRIDE, None, self.span(expr)
        site.kind, site.refused, site.computed, site.value, site.override = kind, refused, computed, value, override
        site.tuned, site.size_names, site.helper_note = tuned, size_names, helper_note or site.helper_note

    def what_it_computes(
        self,
        la: _Launch,
        kname: str | None,
        name: str,
        expr: cst.BaseExpression,
        value: Any,
        kind: TunableKind,
        *,
        caller_owned: bool = False,
    ) -> str | None:
        """Why the launch argument ``name=expr`` (``value``: its literal's) changes what the kernel computes, not how
        fast (a semantic setting: a flag or mode by its name, a size a filter, a work group or a held feed reads, an
        output's size, a size of the problem unpacked from a shape); ``None`` where it is a choice of speed.
        ``caller_owned``: its literal is the assignment of the caller that sizes a buffer with it
        (:meth:`owned_by_a_sizing_caller`), which moves the buffer with it: not held for that buffer."""
        if name in LAUNCH_OPTIONS:
            return None
        window = self.filter_size(kname, name)
        window = window or (self.group_size(kname, name, la) if is_work_group(name) else None)
        window = window or self.feeds_held(la, kname, name, expr)
        semantic = semantic_reason(name, value) or window
        if semantic is not None:
            return semantic
        # a caller's buffer sized by a knob's value holds it (a module constant moves every use together, the
        # caller's allocation too: breaker7's decode_split; a name no rule calls a knob is offered nowhere anyway)
        known = knob_rule(name) is not None
        caller_sized = kind is not TunableKind.MODULE_CONSTANT and known and not caller_owned
        shapes_output = self.sizes_output(expr, la.func) or (
            self.sized_by_a_caller(expr, la.func) if caller_sized else None
        )
        if shapes_output is not None:
            return shapes_output
        return None if known else self.shape_unpacked(expr, la.func)

    def branch_literal(
        self, expr: cst.Name, func: _FuncInfo | None, kernel: str | None, arg: str | None = None
    ) -> tuple[SourceLiteral, str | None] | None:
        """The literal a launch reads through a name bound once to a conditional expression of literals on the
        dtype or the platform, the branch in use (``BLOCK_M, BLOCK_N = (64, 64) if x.dtype == torch.float16 else
        (32, 32)``: per dtype, as the entry of ``**configs[x.dtype]`` is; vLLM's ``BLOCK = 64 if not is_hip_ else
        8``: the other platform's branch kept as written), with ``None``, or the first branch's with why it cannot be
        edited: the branch in use is known only from a run of the task (the value the launch received as ``arg``,
        its keyword, picks it) unless the branches agree. ``None`` when ``expr`` is not bound so."""
        binds = [b for b in (func.locals.get(expr.value, []) if func is not None else []) if not b.tuned]
        stmt = binds[0].statement if len(binds) == 1 and not binds[0].chained else None
        assign = stmt.body[0] if stmt is not None and len(stmt.body) == 1 else None
        if not isinstance(assign, cst.Assign) or not isinstance(assign.value, cst.IfExp):
            return None
        if not all(_by_dtype(t) or _by_platform(t) for t in _tests(assign.value)):
            return None  # a condition on a size is a table the user wrote: its computation stays the fallback
        options: list[cst.BaseExpression] = []
        for branch in _branches(assign.value):
            bound = dict(_bind_targets(assign.targets[0].target, branch, 0))
            if expr.value not in bound or bound[expr.value] is None:
                return None
            options.append(bound[expr.value])
        lits = [self.literal(o) for o in options]
        if any(lit is None or not is_int(lit.value) for lit in lits):
            return None
        found = [lit for lit in lits if lit is not None]
        received = self.launch_values.get(kernel or "", {})
        got = received.get(arg, received.get(expr.value)) if arg is not None else received.get(expr.value)
        taken = [lit for lit in found if lit.value == got]
        if len(taken) == 1:
            return taken[0], None
        if len({lit.value for lit in found}) == 1:
            return found[0], f"every branch of line {binds[0].line} gives {found[0].value}: an edit of one moves none"
        test = self.code(assign.value.test)
        return found[0], (
            f"the branches of line {binds[0].line} differ in {expr.value} "
            f"({', '.join(str(lit.value) for lit in found)}) and the branch in use ({test}) is known only from a run "
            f"of the task {GIVE_REFERENCE}"
        )

    def helper_site(self, la: _Launch, launch_id: str, kname: str | None, group: str, setting: _HelperSetting) -> Site:
        """The knob of one setting of ``**cfg`` that a settings helper's dict gives (:meth:`helper_entries`): a
        computed setting tuned after the call that binds ``cfg`` (``cfg["BLOCK"] = 256  # kernelopt: tuned``, or a
        table by size whose fallback is the helper's result), so the launch and every other reader of
        ``cfg["BLOCK"]`` (the grid) agree. A value the helper computes stays computed; a literal entry of the
        helper is moved the same way (the line after the call holds it for every size)."""
        name = setting.key
        at = setting.at or la
        binds = at.func.locals.get(setting.variable, []) if at.func is not None else []
        computed = self.computed_text(setting.variable, at.func) or f"{setting.variable} = {setting.helper}(...)"
        site = Site(
            f"{launch_id}:{name}",
            name,
            TunableKind.COMPUTED_SETTING,
            None,
            binds[0].line if binds else la.line,
            kernel=kname,
            feeds=[name],
            used_at=[la.line],
            groups=[group],
            computed=computed,
            value_source=setting.source,
            helper_note=None if setting.branches else self.imported_note(setting.helper),
        )
        semantic = semantic_reason(name, None) if name not in LAUNCH_OPTIONS else None
        if semantic is not None:
            site.kind, site.refused, site.computed, site.semantic = TunableKind.LAUNCH_KWARG, semantic, None, True
            return site
        derived = self.derived_setting(setting, at)
        if derived is not None:
            site.kind, site.computed, site.refused = TunableKind.LAUNCH_KWARG, None, derived
            return site
        if name not in LAUNCH_OPTIONS and knob_rule(name) is None:
            site.kind, site.computed = TunableKind.LAUNCH_KWARG, None
            site.refused = f"{setting.source} ({computed}); not a known performance knob, so it is not tuned"
            return site
        found = self.tuned_region(setting.variable, at, setting.target)
        if not isinstance(found, tuple):
            site.kind, site.computed = TunableKind.LAUNCH_KWARG, None
            site.refused = found or f"{setting.variable} is not computed in the launching function"
            return site
        site.tuned, site.size_names = found
        if setting.target in site.tuned.values:
            site.value = site.tuned.values[setting.target]
        return site

    def derived_setting(self, setting: _HelperSetting, at: _Launch) -> str | None:
        """Why one setting of a getter's dict read from a file may not be set after the call: the chain computes it
        from another key, or another from it (AITER's ``compute_splitk_params``: ``SPLITK_BLOCK_SIZE`` from
        ``NUM_KSPLIT``, which it halves while ``BLOCK_SIZE_K`` exceeds it); ``None`` for a setting no key is derived
        from (``BLOCK_SIZE_M``, ``num_warps``: tuned after the call, the file's entry the fallback; configs24)."""
        if setting.defined is not None or setting.branches:
            return None
        origin = file_origin(self.source, at.func.node.name.value if at.func else None, setting.variable)
        if origin is None or setting.key not in {k for k, _, _ in origin.derived}:
            return None
        return (
            f"{setting.key} is {origin.text()}, and {origin.derived_text()}: one set alone after the call breaks "
            "the others, so it is not tuned (the file's entry stays)"
        )

    def override_in_effect(self, kernel: str | None, name: str, value: Value, lines: list[int]) -> str | None:
        """Why a literal with conditional overrides is no knob for the task: at every ``SHAPES`` entry the run
        saw, the launch received another value (an override was in effect, so moving the literal changes nothing
        the task times); ``None`` when it was in effect at one, or no run told."""
        got = [
            entry.launch_values[kernel][name]
            for entry in self.shape_sizes
            if kernel in entry.launch_values and name in entry.launch_values[kernel]
        ]
        if not got or value in got:
            return None
        where = ", ".join(str(line) for line in lines)
        return (
            f"the literal {value!r} is in effect at no SHAPES entry the run saw: the override at line(s) {where} "
            f"gave {name} = {', '.join(str(g) for g in dict.fromkeys(got))} (a SHAPES entry past the override's "
            "condition makes it a knob)"
        )

    # -- computed settings: tuned where they are computed ---------------------------------------------

    def tuned_region(
        self, variable: str, la: _Launch, target: str | None = None
    ) -> tuple[TunedRegion, list[str]] | str | None:
        """Where the computed local ``variable`` of the launching function gets its tuned lines: right after
        the statement (in the block that holds the launch) that computes it last, so every later reader sees
        the tuned value. ``None`` when it is not computed by assignments in that function (a parameter, a
        module constant), a one-line reason when it is but cannot be tuned there. ``target`` is what the lines
        assign when it is not the variable itself (one setting of a helper's dict, ``cfg["BLOCK"]``)."""
        func = la.func
        if func is None:
            return None
        binds = [b for b in func.locals.get(variable, []) if not b.tuned]
        if not binds or any(b.statement is None for b in binds):
            return None
        last = binds[-1].statement
        assert last is not None
        found = self.anchor(func.node.body.body, last, la.call)
        if found is None:
            return None
        block, index = found
        if variable in param_names(func.node, posonly=True, kwonly=True) and block[index] is not last:
            # a parameter computed in a branch only (Liger's ``if BLOCK_SIZE is None: BLOCK_SIZE, num_warps = ...``):
            # its tuned lines follow that computation in its branch, where the other path keeps the caller's value
            # (after the whole ``if`` they overrode a caller's pinned block: breaker22's p5)
            block, index = self.holding_block(block[index], last) or (block, index)
        anchor = block[index]
        if self.span(anchor).end > self.span(la.call).start:
            return None
        rng = self.positions[anchor]
        line_start = self.line_starts[rng.start.line - 1]
        indent = self.source[line_start : line_start + rng.start.column]
        start = self.line_starts[rng.end.line] if rng.end.line < len(self.line_starts) else len(self.source)
        end, end_line = start, rng.end.line
        values: dict[str, Value] = {}
        table: TunedTable | None = None
        keyed: list[tuple[str, str]] = []
        for stmt in block[index + 1 :]:
            if not _is_tuned(stmt):
                break
            srng = self.positions[stmt]
            first = self.line_starts[srng.start.line - 1]
            end_line = srng.end.line
            end = self.line_starts[end_line] if end_line < len(self.line_starts) else len(self.source)
            read = self.read_tuned(stmt)
            if read is None:
                return f"the tuned lines at {self.loc(srng.start.line)} cannot be read; rewrite or remove them"
            if isinstance(read, TunedTable):
                table = read
                if read.key is not None:
                    keyed.append((read.key, self.source[first:end]))
            else:
                values.update(read)
        region = TunedRegion(
            target or variable,
            start,
            end,
            rng.start.line,
            end_line,
            indent,
            indent + self.module.default_indent,
            values,
            table,
            comments=tuple(line for line in self.source[start:end].splitlines(keepends=True) if comment_only(line)),
            keyed=tuple(keyed),
        )
        in_scope = {p.name.value for p in func.params} | set(func.locals)
        values = [e for b in binds for e in _assigned_values(b)]
        reads = self.chosen_reads(func, binds, {variable})
        device = set.intersection(*(_device_only(e) for e in values)) if values else set()
        device |= _receiver(func)
        # a local that is called is a function (vLLM's ``get_config_func = functools.partial(...)``), not a size
        called = {
            c.func.value for e in values for c in walk(e) if isinstance(c, cst.Call) and isinstance(c.func, cst.Name)
        }
        size_names = [
            n for n in dict.fromkeys(reads) if n in in_scope and n != variable and n not in device and n not in called
        ]
        sizes = self.chosen_sizes(size_names, func, in_scope)
        if sizes and all(self.handed_settings(n, values, func) for n in sizes):
            sizes = self.own_sizes(func)
        return region, sizes

    def handed_settings(self, name: str, values: list[cst.BaseExpression], func: _FuncInfo) -> bool:
        """Whether ``name`` is a dict of settings the caller hands in, read here by string keys alone (vLLM's
        ``BLOCK_M = config["BLOCK_SIZE_M"]``, ``config`` chosen by ``run`` from the device's JSON file or
        ``get_default_config`` by the sizes): a parameter bound nowhere in ``func``, each value that reads it a
        subscript of it by a string, or an attribute of it (a ``triton.Config`` handed in:
        ``num_warps=config.num_warps``, offered as "a table by size, by config", newuser22 n168). The sizes it stands
        for are the function's own (:meth:`own_sizes`): a table over them falls back on the caller's settings at every
        other size (configs23)."""
        if name in func.locals or name not in {p.name.value for p in func.params}:
            return False
        reading = [v for v in values if any(n.value == name for n in _names_in(v))]
        return bool(reading) and all(
            (isinstance(v, cst.Attribute) and isinstance(v.value, cst.Name) and v.value.value == name)
            or (
                isinstance(v, cst.Subscript)
                and isinstance(v.value, cst.Name)
                and v.value.value == name
                and len(v.slice) == 1
                and isinstance(v.slice[0].slice, cst.Index)
                and isinstance(v.slice[0].slice.value, cst.SimpleString)
            )
            for v in reading
        )

    @staticmethod
    def held_settings(name: str, func: _FuncInfo) -> bool:
        """Whether ``name`` is a local bound once to an attribute of the method's object (``t = self.tiles``, a
        dataclass of settings the instance holds): like a settings object handed in (:meth:`handed_settings`), it
        stands for the method's own sizes, not itself (breaker30, q105: "a table by size, by t" was offered)."""
        binds = func.locals.get(name, [])
        if len(binds) != 1 or binds[0].conditional or not isinstance(binds[0].value, cst.Attribute):
            return False
        base = binds[0].value.value
        return isinstance(base, cst.Name) and base.value in _receiver(func)

    @staticmethod
    def own_sizes(func: _FuncInfo) -> list[str]:
        """The locals ``func`` binds, once each, to a size of a tensor as it is (``max_num_tokens = A.size(1)``)."""
        return [
            name
            for name, binds in func.locals.items()
            if len(binds) == 1 and binds[0].value is not None and not binds[0].tuned and _bare_size(binds[0].value)
        ]

    def chosen_reads(
        self, func: _FuncInfo, binds: list[_Binding], seen: set[str], conditions_first: bool = False
    ) -> list[str]:
        """The names a local's value depends on: those its assignments read, or where they read none (literals
        chosen by branches), those of the ``if`` conditions that choose between them (:func:`conditions_over`).
        A local it reads that the function binds
        only under a condition is a choice, no size at every run (vLLM's ``tile_shape``, a tuple picked by ``if
        next_power_of_2_M <= 32:`` / ``elif ...``, unpacked into the tiles; ``next_power_of_2_M`` itself bound
        inside ``if use_heuristic:``): it stands for what it reads, so a table over a size falls back on the
        computation where every path binds that size (breaker11: the tiles were refused, "computed from
        tile_shape, which no SHAPES entry names as a size"). A choice's conditions come before its values' reads
        (the ``if`` chain over ``M`` picks the tile, ``is_small_N`` only refines one branch)."""
        assigned = [n.value for b in binds for e in _assigned_values(b) for n in _names_in(e)]
        tested = [
            n.value
            for b in binds
            if b.conditional and b.statement is not None
            for t in func.conditions.get(id(b.statement)) or []
            for n in _names_in(t)
        ]
        # a setting computed by an expression reads what the expression reads; its own conditions count where
        # it is chosen among literals (``if M <= 32: BLOCK = 64`` / ``else: BLOCK = 128``) or stands for a choice
        reads = tested + assigned if conditions_first else assigned or tested
        out: list[str] = []
        for name in dict.fromkeys(reads):
            chosen = [c for c in func.locals.get(name, []) if not c.tuned]
            if name in seen or not chosen or not all(c.conditional and c.statement is not None for c in chosen):
                out.append(name)
                continue
            seen.add(name)
            out += self.chosen_reads(func, chosen, seen, conditions_first=True)
        return list(dict.fromkeys(out))

    def saved_on_ctx(self, expr: cst.BaseExpression, la: _Launch) -> str | None:
        """Where a launch setting read from the autograd context comes from, in one line; ``None`` when ``expr`` is
        not one. A backward launched with ``BLOCK_SIZE=ctx.BLOCK_SIZE`` (``ctx`` the first parameter of the function
        that launches) reads the value another function of the file (the forward) saved with ``ctx.BLOCK_SIZE =
        ...``: it is that value, not a setting of this launch. Tuning it here would make the two passes disagree, so
        it is tuned where the forward computes it (the forward launch's knob, when one reads the saved name), and
        the backward follows through ``ctx``."""
        func = la.func
        if func is None or not func.params or not isinstance(expr, cst.Attribute):
            return None
        if not isinstance(expr.value, cst.Name) or expr.value.value != func.params[0].name.value:
            return None
        attr, ctx = expr.attr.value, expr.value.value
        for infos in self.functions.values():
            for info in infos:
                if info is func or not info.params:
                    continue
                saving = _AttributeAssigns(info.params[0].name.value, attr)
                visit(info.node.body, saving)
                if not saving.found:
                    continue
                assign = saving.found[0]
                saved = self.code(assign.value)
                line = self.loc(self.positions[assign].start.line)
                where = f"{info.node.name.value}() saved at {line} ({ctx}.{attr} = {saved})"
                knob = next(
                    (
                        f"{self.kernel_name(other)}:{arg.keyword.value}"
                        for other in self.launches
                        if other.func is info and isinstance(assign.value, cst.Name)
                        for arg in other.args
                        if arg.keyword is not None
                        and isinstance(arg.value, cst.Name)
                        and arg.value.value == assign.value.value
                    ),
                    None,
                )
                tuned = (
                    f"what is tuned is the forward's knob {knob}, and this launch takes its tuned value through {ctx}"
                    if knob is not None
                    else f"no launch of {info.node.name.value}() reads it as a knob, so nothing tunes it: it stays "
                    f"as {info.node.name.value}() computes it"
                )
                if info.node.name.value == "__init__":  # a class holding its settings, not an autograd pass
                    return (
                        f"it is the object's setting: this launch reads {ctx}.{attr}, which {where}, and no one "
                        "literal of this file is its value (the class is built more than once, or with a value "
                        f"computed); {tuned}"
                    )
                return (
                    f"it comes from the forward pass: this launch reads {ctx}.{attr}, which {where}; {tuned} "
                    "(tuned here on its own, the two passes would disagree)"
                )
        return None

    def hoisted_region(self, name: str, expr: cst.BaseExpression, la: _Launch) -> tuple[TunedRegion, list[str]] | str:
        """Where a value computed inline at the launch (``num_warps=4 if n < 2048 else 8``) is tuned: its
        expression moves onto a line of its own right before the launch statement, assigned to a variable
        named like the argument (see :class:`Hoist`), and the tuned lines follow it. A one-line reason when
        it cannot move there unchanged in meaning: the launch is outside a function, in a statement header,
        a lambda or a comprehension, shares its line with another statement, or the function already uses
        the name."""
        func = la.func
        where = f"computed at the launch ({self.code(expr)})"
        if func is None:
            return f"{where} outside a function"
        # a value of a dict splatted at the launch (SGLang's ``config = {"BLOCK_SIZE": next_power_of_2(n), ...}``
        # then ``**config``) is computed in the dict's statement: the line goes before that one, which reads it (put
        # before the launch, the dict read the name before it was bound: breaker25's q51)
        held = la.call if self._inside(expr, la.call) else expr
        stmt = self.statement_of(func.node.body.body, held)
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return f"{where} in a statement the expression cannot be moved out of"
        nested = _NestedScopes()
        visit(stmt, nested)
        if any(self._inside(held, node) for node in nested.nodes):
            return f"{where} inside a lambda or a comprehension"
        walrus = {  # bound by ``:=`` elsewhere in the statement: unbound on a line above it (breaker30, q106)
            n.target.value
            for n in walk(stmt)
            if isinstance(n, cst.NamedExpr) and isinstance(n.target, cst.Name) and not self._inside(n, expr)
        }
        if late := sorted(walrus & {x.value for x in _names_in(expr)}):
            return f"{where}, which reads {', '.join(late)}, bound by := in the same statement: not moved above it"
        used = {p.name.value for p in func.params} | set(func.locals) | {n.value for n in _names_in(func.node)}
        fname = func.node.name.value
        if name in used or name in self.module_bindings:
            return f"{where}, and {fname}() already uses the name {name}"
        inline = [
            (other, arg.value)
            for other in self.launches
            if other is not la and other.func is func
            for arg in other.args
            if arg.keyword is not None
            and arg.keyword.value == name
            and self.literal(arg.value) is None
            and not isinstance(arg.value, cst.Name)
        ]
        shared = self.shared_hoist(la, stmt, expr, inline)
        if isinstance(shared, str):
            return f"{where}, and another launch of {fname}() computes {name} inline too, {shared} (one name for both)"
        first, also = shared
        if first is not None:  # an earlier launch holds the hoisted line: this launch is one of its readers
            stmt, expr, also = first
        also = also + self.grid_copies(la, expr, inline)
        if not inline and (bound := self.grid_line(la, stmt, expr)) is not None:
            stmt, copies = bound
            also = also + copies
        rng = self.positions[stmt]
        line_start = self.line_starts[rng.start.line - 1]
        indent = self.source[line_start : line_start + rng.start.column]
        span = self.span(expr)
        text = self.source[span.start : span.end]
        if "\n" in text:
            text = f"({text})"
        region = TunedRegion(
            name,
            line_start,
            line_start,
            rng.start.line,
            rng.start.line - 1,
            indent,
            indent + self.module.default_indent,
            hoist=Hoist(span, text, also),
        )
        in_scope = ({p.name.value for p in func.params} | set(func.locals)) - _receiver(func)
        size_names = self.chosen_sizes([x.value for x in _names_in(expr)], func, in_scope)
        if size_names and all(self.handed_settings(n, [expr], func) or self.held_settings(n, func) for n in size_names):
            size_names = self.own_sizes(func)  # ``num_warps=config.num_warps``: no table "by config" (n168)
        return region, size_names

    def chosen_sizes(self, names: list[str], func: _FuncInfo, in_scope: set[str]) -> list[str]:
        """The sizes a hoisted value reads among ``names``: a local of literals is none (:meth:`constant`), and a
        local that only chooses among values (``cfg = configs[0] if n < 8192 else configs[1]``, ``configs[n >=
        8192]``) reads the sizes its choice reads (``n``), not itself: a table by ``cfg`` (a tuple) was offered and
        no SHAPES entry names it (leftovers22, l15)."""
        out: list[str] = []
        seen: set[str] = set()
        todo = list(names)
        while todo:
            n = todo.pop(0)
            if n in seen or n not in in_scope or self.constant(n, func):
                continue
            seen.add(n)
            values = [b.value for b in func.locals.get(n, [])]
            if values and all(v is not None and self.chooses(v, func) for v in values):
                todo += [x.value for v in values if v is not None for x in _names_in(v)]
                continue
            if len(values) == 1 and isinstance(values[0], cst.Call) and self.settings_call(values[0]):
                todo += [x.value for a in values[0].args for x in _names_in(a.value)]
                continue
            if len(values) == 1 and isinstance(values[0], cst.Name) and self.literal_settings(values[0].value):
                continue  # ``cfg = CFG`` of ``CFG = StencilTiles()``: the same object at every size (late56 l266)
            out.append(n)
        return out

    def literal_settings(self, name: str) -> bool:
        """Whether the module binds ``name`` once to a settings object built by the file's own function or class from
        literals alone (``CFG = StencilTiles()``, ``CFG = Tiles(BLOCK=64)``: :meth:`settings_call`, no name in its
        arguments) and changes it in place nowhere: a local bound to it reads no size, where "a table by size, by cfg"
        was offered and ``tune`` exited 2, "which no SHAPES entry names as a size" (breaker30's seen line). A module
        name bound otherwise (``MAX_BLOCK_SIZE = 65536``) is read as before."""
        binds = self.module_bindings.get(name, [])
        if len(binds) != 1 or not isinstance(call := binds[0].value, cst.Call) or binds[0].chained:
            return False
        if not self.settings_call(call) or any(_names_in(a.value) for a in call.args):
            return False
        return not self.changes_in_place(name)

    def settings_call(self, call: cst.Call) -> bool:
        """Whether ``call`` builds a settings object with a helper of this file (``tiles = _pick(N)`` returning a
        ``NamedTuple``, ``cfg = StencilTiles.for_width(W)`` a dataclass's classmethod): a local bound once to it
        stands for the sizes its arguments read (``N``, ``W``), not itself; a table "by tiles" was offered by
        ``tunables`` and refused by ``tune`` ("which no SHAPES entry names as a size"), and with it the one value for
        every size (breaker30, q101)."""
        func = call.func
        while isinstance(func, cst.Attribute):
            func = func.value
        if not isinstance(func, cst.Name):
            return False
        return func.value in self.functions or any(name == func.value for name, _ in self.class_bodies)

    def chooses(self, value: cst.BaseExpression, func: _FuncInfo) -> bool:
        """Whether ``value`` picks one of a table of literals (``configs[1]``, ``configs[n >= 8192]`` of a list of
        literals bound once, a row of literals, either of a conditional expression's branches), not a size
        (``x.shape[1]``)."""
        if isinstance(value, cst.IfExp):
            return self.chooses(value.body, func) and self.chooses(value.orelse, func)
        if isinstance(value, cst.Tuple | cst.List):  # a row of literals written out
            return self.literals_only(value)
        if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name):
            table = value.value.value
            if table in func.locals:
                return self.constant(table, func)
            binds = self.module_bindings.get(table)
            if not binds or len(binds) != 1 or binds[0].value is None or self.changes_in_place(table):
                return False
            return self.literals_only(binds[0].value)
        return False

    def constant(self, name: str, func: _FuncInfo) -> bool:
        """Whether ``name`` is a local of ``func`` bound once to literals (``cfg = [1024, 4]``, ``cfg = {"BLOCK":
        1024}``) and never changed in place: a value read from it (``cfg[0]``) is the same at every size, so no table
        by size is read over it (leftovers22, l17: "no SHAPES entry names cfg as a size" left such a knob untuned)."""
        binds = func.locals.get(name, [])
        if len(binds) != 1 or binds[0].value is None or binds[0].chained or self.mutated(name, func):
            return False
        # a table of literals; a literal alone (``num_warps = 2``) is a knob of its own, read as one
        return isinstance(binds[0].value, cst.List | cst.Tuple | cst.Dict) and self.literals_only(binds[0].value)

    def computation(self, expr: cst.BaseExpression, func: _FuncInfo | None) -> cst.BaseExpression:
        """What a setting passed as ``expr`` is computed by: a name's one binding the user wrote (the tuned lines
        after it left out: ``BLOCK = cfg[0]``'s ``cfg[0]``), else ``expr`` itself."""
        if not isinstance(expr, cst.Name) or func is None:
            return expr
        own = [b for b in func.locals.get(expr.value, []) if not b.tuned]
        return own[0].value if len(own) == 1 and own[0].value is not None and not own[0].chained else expr

    def constant_value(self, expr: cst.BaseExpression, func: _FuncInfo) -> int | None:
        """The integer ``expr`` reads from literals ``func`` binds once (``cfg[0]`` or ``cfg["BLOCK"]`` of ``cfg =
        [1024, 4]``, :meth:`constant`): the value at every size; ``None`` for anything else."""
        if not (isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name) and len(expr.slice) == 1):
            return None
        index = expr.slice[0].slice
        if not isinstance(index, cst.Index) or not self.constant(expr.value.value, func):
            return None
        try:
            table = pyparse.literal(self.module.code_for_node(func.locals[expr.value.value][0].value).strip())
            found = table[pyparse.literal(self.code(index.value))]
        except (ValueError, TypeError, SyntaxError, KeyError, IndexError, MemoryError, RecursionError):
            return None
        return found if is_int(found) else None

    def literals_only(self, value: cst.BaseExpression) -> bool:
        """Whether ``value`` is literals alone (``[(1024, 4), (4096, 8)]``, ``{"BLOCK": 1024}``), as Python reads
        them."""
        try:
            pyparse.literal(self.module.code_for_node(value).strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
        return True

    def grid_copies(
        self, la: _Launch, expr: cst.BaseExpression, inline: list[tuple[_Launch, cst.BaseExpression]]
    ) -> list[Span]:
        """The copies of a hoisted expression in the grids written at its launches (``k[(triton.cdiv(n, cfg[0]),)](..,
        BLOCK=cfg[0])``, a lambda's body included): each is replaced by the variable too, so the grid counts tiles of
        the tuned value (leftovers22, l17: the grid kept ``cfg[0]``, and ``BLOCK = 512`` of 1024 ran half the
        programs it needed, half the output never written)."""
        text = self.code(expr)
        out: list[Span] = []
        for launch in [la, *(other for other, _ in inline)]:
            out += [self.span(node) for node in _copies_in(launch.sub.slice, text, self.code)]
        return out

    def grid_line(
        self, la: _Launch, stmt: cst.BaseStatement, expr: cst.BaseExpression
    ) -> tuple[cst.BaseStatement, list[Span]] | None:
        """The grid bound once by name above the launch (``grid = (triton.cdiv(W, cfg.BLOCK_W), B)`` then
        ``k[grid](.., BLOCK_W=cfg.BLOCK_W)``) when it holds copies of the hoisted expression: the hoisted line goes
        above the grid's statement and the copies read the variable too, so the grid counts tiles of the tuned value
        (breaker30, q100: the grid kept ``cfg.BLOCK_W`` and every edit of the tile was refused, l16). ``None`` where
        the grid is written at the launch, is bound more than once or in another block, holds no copy, or a name the
        expression reads is bound between the grid's line and the launch."""
        func = la.func
        sl = la.sub.slice
        index = sl[0].slice if len(sl) == 1 else None
        grid = index.value if isinstance(index, cst.Index) else None
        if func is None or not isinstance(grid, cst.Name):
            return None
        binds = func.locals.get(grid.value, [])
        if len(binds) != 1 or binds[0].value is None or binds[0].statement is None or binds[0].conditional:
            return None
        grid_stmt = binds[0].statement
        block = self.block_of(func.node.body.body, stmt)
        if len(grid_stmt.body) != 1 or block is None or self.block_of(func.node.body.body, grid_stmt) is not block:
            return None
        copies = _copies_in([binds[0].value], self.code(expr), self.code)
        at = [i for i, inner in enumerate(block) if inner is grid_stmt or inner is stmt]
        if not copies or len(at) != 2 or block[at[0]] is not grid_stmt:
            return None
        # a statement between that names what the expression reads may change it (``cfg.BLOCK_W = 32``,
        # ``_shrink(cfg)``): the table's fallback would read it before the change, where the launch read it after
        reads = {x.value for x in _names_in(expr)}
        between = block[at[0] + 1 : at[1]]
        if any(isinstance(n, cst.Name) and n.value in reads for inner in between for n in walk(inner)):
            return None
        return grid_stmt, [self.span(node) for node in copies]

    def shared_hoist(
        self,
        la: _Launch,
        stmt: cst.BaseStatement,
        expr: cst.BaseExpression,
        inline: list[tuple[_Launch, cst.BaseExpression]],
    ) -> tuple[tuple[cst.BaseStatement, cst.BaseExpression, list[Span]] | None, list[Span]] | str:
        """Launches of one function that compute the same setting inline with the same expression
        (``_fwd[grid](.., BLOCK=min(next_power_of_2(n), 1024))`` then ``_bwd[grid](.., BLOCK=min(...))``) share one
        hoisted line before the first of them, and one knob: every reader agrees, as they did. Returns (for a
        later launch: the first launch's statement, expression and the later spans; ``None`` for the first) and
        the spans of the later expressions; or why they cannot share a line (another expression, another block,
        a name the expression reads assigned between them, a statement it cannot be moved out of)."""
        if not inline:
            return None, []
        text = self.code(expr)
        if any(self.code(e) != text for _, e in inline):
            return "with another expression"
        func = la.func
        assert func is not None
        block = self.block_of(func.node.body.body, stmt)
        stmts: list[tuple[cst.BaseStatement, cst.BaseExpression]] = [(stmt, expr)]
        for other, e in inline:
            other_stmt = self.statement_of(func.node.body.body, other.call)
            if not isinstance(other_stmt, cst.SimpleStatementLine) or len(other_stmt.body) != 1:
                return "in a statement the expression cannot be moved out of"
            if block is None or self.block_of(func.node.body.body, other_stmt) is not block:
                return "in another block"
            nested = _NestedScopes()
            visit(other_stmt, nested)
            if any(self._inside(other.call, node) for node in nested.nodes):
                return "inside a lambda or a comprehension"
            stmts.append((other_stmt, e))
        stmts.sort(key=lambda p: self.span(p[0]).start)
        lo, hi = self.positions[stmts[0][0]].start.line, self.positions[stmts[-1][0]].end.line
        for n in dict.fromkeys(x.value for x in _names_in(expr)):
            moved = [b.line for b in func.locals.get(n, []) if lo <= b.line <= hi]
            if moved:
                return f"and {n} is assigned between them (line {moved[0]})"
        also = [self.span(e) for _, e in stmts[1:]]
        if stmts[0][0] is stmt:
            return None, also
        return (stmts[0][0], stmts[0][1], also), also

    def block_of(
        self, block: Sequence[cst.BaseStatement], stmt: cst.BaseStatement
    ) -> Sequence[cst.BaseStatement] | None:
        """The statement list (the function's body or a nested block) that holds ``stmt`` itself."""
        for inner in block:
            if inner is stmt:
                return block
            if self._inside(stmt, inner):
                for child in child_blocks(inner):
                    if self._inside(stmt, child):
                        return self.block_of(child.body, stmt)
                return None
        return None

    def statement_of(self, block: Sequence[cst.BaseStatement], node: cst.CSTNode) -> cst.BaseStatement | None:
        """The statement of ``block`` or of the blocks nested in it that holds ``node`` and no block holding
        it (a simple statement, or a compound statement with ``node`` in its header)."""
        for stmt in block:
            if not self._inside(node, stmt):
                continue
            for inner in child_blocks(stmt):
                if self._inside(node, inner):
                    return self.statement_of(inner.body, node)
            return stmt
        return None

    def anchor(
        self, block: Sequence[cst.BaseStatement], target: cst.CSTNode, launch: cst.CSTNode
    ) -> tuple[Sequence[cst.BaseStatement], int] | None:
        """The statement of ``block`` (or of a nested block that also holds ``launch``) that holds ``target``."""
        for i, stmt in enumerate(block):
            if not self._inside(target, stmt):
                continue
            if not self._inside(launch, stmt):
                return block, i
            for inner in child_blocks(stmt):
                if self._inside(target, inner) and self._inside(launch, inner):
                    return self.anchor(inner.body, target, launch)
            return None
        return None

    def holding_block(
        self, stmt: cst.BaseStatement, target: cst.BaseStatement
    ) -> tuple[Sequence[cst.BaseStatement], int] | None:
        """The block nested in ``stmt`` whose own statements hold ``target``, with its place there; ``None`` where
        ``target`` sits in no such block (a loop's body is no branch: ``None`` there too)."""
        if isinstance(stmt, cst.For | cst.While):
            return None
        for inner in child_blocks(stmt):
            for i, child in enumerate(inner.body):
                if child is target:
                    return inner.body, i
                if self._inside(target, child):
                    return self.holding_block(child, target)
        return None

    def read_tuned(self, stmt: cst.BaseStatement) -> dict[str, Value] | TunedTable | None:
        """The values of one tuned line (``x = 8``) or the table of a tuned ``if``/``elif`` chain; ``None`` when
        it is not in the form edits write."""
        if isinstance(stmt, cst.SimpleStatementLine):
            return self.tuned_assignments(stmt.body)
        if not isinstance(stmt, cst.If):
            return None
        size: str | None = None
        buckets: list[Bucket] = []
        node: cst.If | cst.Else | None = stmt
        keys: set[str | None] = set()
        while isinstance(node, cst.If):
            test, key = _keyed_row(node.test)
            keys.add(None if key is None else self.code(key))
            if len(keys) > 1:
                return None  # rows under different devices: no form an edit writes
            if not (
                isinstance(test, cst.Comparison)
                and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.LessThanEqual)
            ):
                return None
            bound = self.literal(test.comparisons[0].comparator)
            this_size = self.code(test.left)
            if bound is None or not isinstance(bound.value, int) or size not in (None, this_size):
                return None
            size = this_size
            if not isinstance(node.body, cst.IndentedBlock):
                return None
            values: dict[str, Value] = {}
            for inner in node.body.body:
                got = self.tuned_assignments(inner.body) if isinstance(inner, cst.SimpleStatementLine) else None
                if got is None:
                    return None
                values.update(got)
            buckets.append(Bucket(upto=bound.value, values=values))
            node = node.orelse
        if node is not None or size is None:
            return None
        return TunedTable(size=size, buckets=buckets, key=keys.pop())

    def tuned_assignments(self, body: Sequence[cst.BaseSmallStatement]) -> dict[str, Value] | None:
        out: dict[str, Value] = {}
        for small in body:
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                return None
            if _dict_copy(small):
                continue  # ``cfg = dict(cfg)`` before its entries are set (edits write it)
            target = _tuned_target(small.targets[0].target)
            lit = self.literal(small.value)
            if target is None or lit is None:
                return None
            out[target] = lit.value
        return out

    def cap_sites(
        self,
        la: _Launch,
        kname: str | None,
        group: str,
        feed: str,
        expr: cst.BaseExpression,
        setting: _HelperSetting | None = None,
    ) -> list[Site]:
        """Module-level constants that cap (or floor) a computed launch value inside ``min()``/``max()``, where the
        launching function computes it (``BLOCK = min(MAX_FUSED_SIZE, next_power_of_2(n))``) or inside the
        settings helper it calls (``block, warps = settings(n)``, the helper's ``block = min(MAX_FUSED, ...)``; or the
        helper whose dict gives ``setting``, ``return {"BLOCK": min(MAX_FUSED, ...)}``):
        knobs of the value they bound when the kernel loops over that value (any cap is then correct at every
        size), else refused with the reason (a kernel that covers a row with one block: a lower cap would leave
        longer rows partly undone, so the cap is a limit). A constant the helper compares and raises on (``if
        block > MAX_FUSED: raise``) is not inside ``min()``/``max()``: never a knob."""
        if knob_rule(feed) is None or feed in LAUNCH_OPTIONS:
            return []
        scopes: list[tuple[cst.CSTNode, _FuncInfo | None]] = [(expr, la.func)]
        if setting is not None:  # one setting of a helper's dict: what the helper's returns give it
            scopes = []
            defined = la.func if setting.branches else setting.defined
            for v in setting.values if defined is not None else []:
                scopes.append((v, defined))
                if isinstance(v, cst.Name) and defined is not None:
                    scopes += [(e, defined) for b in defined.locals.get(v.value, []) for e in _assigned_values(b)]
        elif isinstance(expr, cst.Name) and la.func is not None:
            for b in la.func.locals.get(expr.value, []):
                if b.tuned:
                    continue
                for e in _assigned_values(b):
                    scopes += [(e, la.func), *self.helper_values(e, expr.value, b)]
        loop_problem = self.no_loop_over(kname, feed)
        limits: dict[str, tuple[_FuncInfo, cst.Name]] = {}  # constant -> the helper that raises above it, where
        helpers = [f for _, f in scopes if f is not None and f is not la.func]
        for helper in [f for i, f in enumerate(helpers) if all(g is not f for g in helpers[:i])]:
            guards = _RaiseGuards()
            visit(helper.node.body, guards)
            dispatched = self.dispatched_on(la.func, helper.node.name.value)
            for test in guards.tests:
                for n in _names_in(test):
                    if not _binds(helper, n.value) and n.value not in dispatched:
                        limits.setdefault(n.value, (helper, n))
        out: list[Site] = []
        for e, scope in scopes:
            finder = _BoundCalls()
            visit(e, finder)
            for arg in finder.args:
                if not isinstance(arg, cst.Name) or (scope is not None and _binds(scope, arg.value)):
                    continue
                site = self.constant_site(arg, kname, group, feed)
                if site is None or any(c.key == site.key for c in out):
                    continue
                if arg.value in limits:
                    site.refused = _limit_reason(site.key, limits[arg.value][0].node.name.value)
                elif loop_problem:
                    site.refused = f"{site.key} caps {feed}, {loop_problem}"
                out.append(site)
        # a constant the settings helper raises above, and caps nowhere: a limit, said
        for helper, name in limits.values():
            site = self.constant_site(name, kname, group, feed)
            if site is not None and not any(c.key == site.key for c in out):
                site.refused = _limit_reason(site.key, helper.node.name.value)
                out.append(site)
        return out

    def constant_site(self, arg: cst.Name, kname: str | None, group: str, feed: str) -> Site | None:
        """The knob site of the module-level integer constant ``arg`` names as a bound of the launch value
        ``feed`` (its categories and legality are ``feed``'s); ``None`` when it names no such constant."""
        res = self.resolve_name(arg.value, None)
        if res.literal is None or not res.at_module or not isinstance(res.literal.value, int):
            return None
        if isinstance(res.literal.value, bool):
            return None
        const = res.defined_as or arg.value
        return Site(
            const,
            const,
            TunableKind.MODULE_CONSTANT,
            res.literal,
            res.literal.line,
            kernel=kname,
            feeds=[const],  # not the value it caps: an edit of that name must not move the cap too
            used_at=[self.positions[arg].start.line],
            groups=[group],
            value=res.literal.value,
            marker_rule=knob_rule(feed),  # the categories and legality of the value it caps
        )

    def dispatched_on(self, func: _FuncInfo | None, helper: str) -> set[str]:
        """The names every call of ``helper`` in ``func`` is guarded by: read by the tests of the ``if`` statements
        around the call, directly or through the locals of ``func`` they read (unsloth's ``n_chunks == 1``, from
        ``divmod(vocab_size, MAX_FUSED_SIZE)``). A size past a constant read so goes down the other branch, not into
        the helper that raises above the constant: the constant is no limit of the sizes handled."""
        if func is None:
            return set()
        calls = _GuardedCalls(helper)
        visit(func.node.body, calls)
        if not calls.tests:
            return set()
        common: set[str] | None = None
        for tests in calls.tests:
            names: set[str] = set()
            todo = [n.value for t in tests for n in _names_in(t)]
            while todo:
                name = todo.pop()
                if name in names:
                    continue
                names.add(name)
                for b in func.locals.get(name, []):
                    todo += [n.value for e in _assigned_values(b) for n in _names_in(e)]
            common = names if common is None else common & names
        return common or set()

    def helper_values(
        self, value: cst.CSTNode, variable: str, binding: _Binding
    ) -> list[tuple[cst.CSTNode, _FuncInfo]]:
        """What a settings helper of this file returns for ``variable`` when the launching function binds it from
        the helper's call (``block, warps = settings(n)``: the first element of each ``return``, followed to the
        helper's own assignments of it), with the helper as their scope; ``[]`` for anything else."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name):
            return []
        found = self.functions.get(value.func.value, [])
        if len(found) != 1 or self.decorators(found[0].node):
            return []
        helper = found[0]
        position: int | None = None
        if binding.statement is not None:
            for small in binding.statement.body:
                if not isinstance(small, cst.Assign) or small.value is not value:
                    continue
                for t in small.targets:
                    if isinstance(t.target, cst.Tuple | cst.List):
                        names = [_dotted(el.value) for el in t.target.elements]
                        position = names.index(variable) if variable in names else None
        returns = Returns()
        visit(helper.node.body, returns)
        out: list[tuple[cst.CSTNode, _FuncInfo]] = []
        for r in returns.values:
            if position is not None:
                if not isinstance(r, cst.Tuple | cst.List) or len(r.elements) <= position:
                    continue
                r = r.elements[position].value
            out.append((r, helper))
            if isinstance(r, cst.Name):
                out += [(e, helper) for b in helper.locals.get(r.value, []) for e in _assigned_values(b)]
        return out

    def no_loop_over(self, kernel: str | None, param: str) -> str | None:
        """Why a cap on the kernel parameter ``param`` is not a knob: nothing in the kernel (of this file) steps by
        it (no loop ``for start in range(0, n_cols, BLOCK)``, ``tl.static_range`` over ``c * BLOCK``, no program
        offset ``pid * BLOCK``: :func:`kernelopt.tunables.blocks.steps_by`, the rule the guard reads blocks by), so
        one block covers what the kernel handles; ``None`` when something steps by it."""
        kdef = self.jit_kernel(kernel)
        if kdef is None:
            return "and the kernel is not defined in this file, so whether it loops over a row cannot be read"
        if steps_by(kdef.node, param):
            return None
        return (
            f"but {kernel} loops over no {param} (one block covers what it handles): a lower cap would leave longer "
            "rows partly undone, so the cap is a limit, not a knob"
        )

    def held(self, s: Site) -> bool:
        """Whether no guard by a size can be written for the knob of ``s``: a module-level constant, or a literal
        its kernel's body binds (``RBLOCK: tl.constexpr = 64``, which no launch passes)."""
        if s.kind is TunableKind.MODULE_CONSTANT:
            return True
        kdef = self.jit_kernel(s.kernel)
        return kdef is not None and s.name in body_constexprs(kdef.node)

    def covers(self, kernel: str | None, feeds: Sequence[str], held: bool = False) -> list[Cover]:
        """The sizes one block of a knob feeding ``feeds`` of ``kernel`` must cover: the kernel spans a size with a
        ``tl.arange`` of it and nothing steps by it (:func:`kernelopt.tunables.blocks.one_block`, with the module's
        ``@triton.jit`` helpers read at their calls). Only comparisons that name one kernel parameter as the size
        and a range whose length is read: what a bound can be computed from. ``held``: the knob cannot be guarded
        by a size (:meth:`held`), so it never shrinks (:attr:`Cover.held`)."""
        kdef = self.jit_kernel(kernel)
        if kdef is None or kernel is None:
            return []
        if kernel not in self._covers:
            self._covers[kernel] = [
                Cover(kernel=kernel, block=r.block, size=r.size, test=r.test, mul=r.scale[0], div=r.scale[1])
                for r in dict.fromkeys(one_block(kdef.node, self.jit_helpers))
                if r.size is not None and r.scale is not None
            ]
        return [c.model_copy(update={"held": held}) for c in self._covers[kernel] if c.block in feeds]

    def stepped_tiles(self, kernel: str | None) -> frozenset[str]:
        """The names ``kernel`` spans a ``tl.arange`` (or a block pointer's block) with, steps by (a program's offset
        ``i_v * BV``, a loop, a ``tl.cdiv``) and masks against another size (``o_v < V``,
        :func:`~kernelopt.tunables.blocks.compared_sizes`): a tile over that size whatever its name (fla's ``BK`` and
        ``BV``), a knob where the launching function computes it (table14). A range nothing steps by covers its size
        in one block (fla's ``BD``, the whole row); one no mask compares with another size is a size itself (a head
        dimension ``HEAD``, a row stride ``pid * HEAD``); one the kernel tests against a number selects what it does
        (vLLM's ``(BLOCK_SIZE_SCALE_A > 1) * pid_m``, a scale per row or one for all): none is a choice of speed."""
        kdef = self.jit_kernel(kernel)
        return frozenset() if kdef is None else _stepped_tiles(kdef.node)

    def indexed_note(self, name: str, func: _FuncInfo | None, via: str | None = None) -> str | None:
        """Why ``name``, read from a tuple or a table by an index (``bm, bn = TABLE[key]``, ``cfg = ((64, 4), (128,
        8))[i]`` then ``bm, bn = cfg``), is no knob of that tuple, in one line (leftovers19's l3): an index computed at
        run time picks a row no edit of one element can stand for; a tuple ``run()`` writes itself is bound again
        after any guard (so its element stays a computed setting). ``None`` where ``name`` is not so read (a module
        tuple's element by literal indices is a knob: :meth:`subscripted`, :meth:`unpacked`). ``via``: the name read
        at the launch, where ``name`` is the one it is unpacked from."""
        binds = [b for b in ((func.locals.get(name) if func is not None else None) or []) if not b.tuned]
        if len(binds) != 1 or binds[0].statement is None or len(binds[0].statement.body) != 1:
            return None
        stmt = binds[0].statement.body[0]
        if not (isinstance(stmt, cst.Assign) and len(stmt.targets) == 1):
            return None
        changed = self.changed_note(name, stmt, func, via)
        if changed is not None:
            return changed
        value = dict(_bind_targets(stmt.targets[0].target, stmt.value, 0)).get(name) or stmt.value
        if isinstance(value, cst.Subscript) and (read := element_read(value)) is not None and via is None:
            base = path_parts(read[0])[0]
            if func is not None and base in func.locals and base not in self.path_names(func):
                return self.indexed_note(base, func, name)  # bm, bn = cfg[0], cfg[1], where cfg = TABLE[key]
        if isinstance(value, cst.Name) and via is None:  # bm, bn = cfg, where cfg = TABLE[key]
            return self.indexed_note(value.value, func, name)
        if not (
            isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index)
        ):
            return None
        if not self.is_table(value.value, func):  # a shape's dimension (``x.shape[2]``), a call's result: no tuple
            return None
        index = value.slice[0].slice.value
        read = f"{via} is read (through {name}) from" if via is not None else f"{name} is read from"
        if not isinstance(index, cst.Integer):
            held = self.code(value.value)
            path = held_path(value.value)
            at_module = path is not None and (func is None or not _binds(func, path_parts(path)[0]))
            constant = integer_value(index) is not None  # a constant written as an expression (``-1``)
            if constant and at_module:
                return (
                    f"{read} {self.code(value)}, its index the constant {self.code(index)} written as an expression, "
                    f"which discovery does not follow: written as a plain index from 0, what it reads of {held} is a "
                    "knob; it is tuned where it is computed"
                )  # break19's b25: it was said to be "a row picked by -2 at run time"
            if not constant:
                return (
                    f"{read} {self.code(value)}, a row picked by {self.code(index)} at run time: no one element of "
                    f"{held} is its value, so none is a knob; it is tuned where it is computed, that line the fallback"
                )
        element = element_read(value)
        if element is None or (func is not None and _binds(func, path_parts(element[0])[0])):  # inline, or local
            return (
                f"{read} {self.code(value)}, a tuple written in the function that reads it, not at the module: an "
                "element moved there would be read again after a guard by a size, so it is tuned where it is computed"
            )
        return None

    def changed_note(self, name: str, stmt: cst.Assign, func: _FuncInfo | None, via: str | None) -> str | None:
        """Why ``name``, bound by ``stmt`` to a module tuple's element (``bm, bn = TILE``, ``bm = cfg[0]`` of ``cfg =
        TILE``, read directly or through a name: :meth:`path_names`), is no knob of that tuple: the file changes the
        tuple in place (:meth:`changed_in_place`), so its literal is not what runs (leftovers20's l5); ``None``
        otherwise."""
        unpacked = unpacking(stmt)
        value = dict(_bind_targets(stmt.targets[0].target, stmt.value, 0)).get(name)
        read = element_read(value) if value is not None else None
        if unpacked is not None and name in unpacked[1]:
            held = unpacked[0]
        elif read is not None:
            held = read[0]
        else:
            return None
        base = path_parts(through_names(held, self.path_names(func)))[0]
        changed = self.changed_in_place(base, func)
        if changed is None:
            return None
        said = f"{via} is read (through {name}) from" if via is not None else f"{name} is read from"
        return f"{said} {base}, so no element of it is its knob: {changed}; it is tuned where it is computed"

    def is_table(self, held: cst.BaseExpression, func: _FuncInfo | None) -> bool:
        """Whether ``held`` is a tuple, list or dict of the file: written there, or a name bound once to one (in
        ``func``, else at the module)."""
        if isinstance(held, cst.Tuple | cst.List | cst.Dict):
            return True
        path = held_path(held)  # a nested tuple's row (``TILE[0]``): the table its name holds
        if path is None:
            return False
        name = path_parts(path)[0]
        binds = (func.locals.get(name) if func is not None else None) or self.module_bindings.get(name, [])
        return len(binds) == 1 and isinstance(binds[0].value, cst.Tuple | cst.List | cst.Dict)

    def computed_text(self, name: str, func: _FuncInfo | None) -> str | None:
        """How ``name`` is computed, as written: its one assignment statement, or the lines assigning it."""
        binds = (func.locals.get(name) if func is not None else None) or self.module_bindings.get(name)
        binds = [b for b in binds or [] if not b.tuned]
        if not binds:
            return None
        if len(binds) > 1:
            return f"{name} assigned at lines {', '.join(str(b.line) for b in binds)}"
        statement = binds[0].statement
        if isinstance(statement, cst.SimpleStatementLine):  # its own line, not the comment lines above it (breaker21's
            statement = statement.with_changes(leading_lines=())  # q5: "# ... grids = min(...)" read as one comment)
        return self.code(statement) if statement is not None else None

    def other_uses(self, la: _Launch, expr: cst.BaseExpression) -> str | None:
        """``file:line`` of another read of the names in ``expr`` in the launch's function, or ``None``."""
        if la.func is None:
            return None
        names = {n.value for n in _names_in(expr)}
        uses = _NameReads(names, self.positions)
        visit(la.func.node.body, uses)
        for node, line in uses.reads:
            if not self._inside(node, expr):
                return self.loc(line)
        return None

    def _inside(self, node: cst.CSTNode, root: cst.CSTNode) -> bool:
        a, b = self.span(node), self.span(root)
        return b.start <= a.start and a.end <= b.end

    def insertion_point(self, call: cst.Call) -> Insertion:
        if call.args:
            last = self.span(call.args[-1].value)
            return Insertion(last.end, last.end_line, ", ")
        rng = self.positions[call]
        # ``kern[grid]()``: the opening parenthesis is the last "(" of the call's first characters
        text = self.module.code_for_node(call)
        close = self.span(call).start + text.rstrip().rfind(")")
        line = rng.end.line
        return Insertion(close, line, "")

    def partial_call_settings(self, la: _Launch, kdef: _FuncInfo | None) -> list[tuple[str, int, str]]:
        """(name, line, the partial's variable) of each setting a ``functools.partial(kernel[grid], ...)`` launch bound
        to a local gets only where that local is called (``launch = functools.partial(k[grid], num_warps=4)`` then
        ``launch(x, y, n, BLOCK=1024)``): a ``tl.constexpr`` parameter of the kernel or a launch option given by
        keyword there. Discovery reads the partial's arguments alone, so these were listed nowhere (breaker30, q104:
        a stencil's tiles, its ``num_warps`` listed alone)."""
        func = la.func
        if func is None or isinstance(la.call.func, cst.Subscript):
            return []
        bound = [n for n, binds in func.locals.items() if any(b.value is la.call for b in binds)]
        if len(bound) != 1:
            return []
        settings = {p.name.value for p in kdef.params if _is_constexpr(p.annotation)} if kdef is not None else set()
        settings |= set(LAUNCH_OPTIONS)
        given = {a.keyword.value for a in la.args if a.keyword is not None}
        out: list[tuple[str, int, str]] = []
        for node in walk(func.node.body):
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == bound[0]):
                continue
            line = self.positions[node].start.line
            out += [
                (a.keyword.value, line, bound[0])
                for a in node.args
                if a.keyword is not None and a.keyword.value in settings and a.keyword.value not in given
            ]
        return out

    def absent_at(
        self,
        la: _Launch,
        kdef: _FuncInfo | None,
        args: list[tuple[str, cst.BaseExpression]],
        opaque: bool,
    ) -> dict[str, int]:
        """Launch options this launch leaves out, at Triton's defaults (none for autotuned kernels, whose
        configs set them, for kernels defined elsewhere, and after an unreadable ``*args``/``**kwargs``)."""
        if kdef is None or opaque or self.autotuned(kdef):
            return {}
        given = {n for n, _ in args}
        set_by_heuristics = set(self.heuristic_entries(kdef))
        if self.unread_heuristics(kdef):  # it may set any option: none is offered at its default
            return {}
        return {n: v for n, v in absent_options(self.gpu).items() if n not in given and n not in set_by_heuristics}

    def launch_knobs(
        self, la: _Launch, kdef: _FuncInfo | None, kname: str | None = None
    ) -> tuple[list[tuple[str, cst.BaseExpression]], bool, list[str]]:
        """(knob name, value expression) of a launch, whether some arguments could not be read, and the
        ``**`` arguments that could not be read (as written). A ``constexpr`` parameter the kernel body never
        reads is not a knob."""
        constexpr = {p.name.value for p in kdef.params if _is_constexpr(p.annotation)} if kdef else set()
        if kdef is not None:
            read = {n.value for n in _names_in(kdef.node.body)}
            if read & {p.name.value for p in kdef.params}:  # a stub body (``pass``) reads none: nothing to judge
                constexpr &= read
        out: list[tuple[str, cst.BaseExpression]] = []
        unread: list[str] = []
        positional = 0
        opaque = False
        for arg in la.args:
            if arg.star == "*":
                positional = -(10**6)  # positions unknown after *args
                opaque = True
                continue
            if arg.star == "**":
                entries = self.dict_entries(arg.value, la.func, kernel=kname, launch=la)
                if entries is None:
                    opaque = True
                    unread.append(self.code(arg.value))
                    continue
                for name, expr in entries:
                    if name in LAUNCH_OPTIONS or name in constexpr or (kdef is None and knob_rule(name) is not None):
                        out.append((name, expr))
                continue
            if arg.keyword is None:
                if kdef is not None and 0 <= positional < len(kdef.params):
                    p = kdef.params[positional]
                    if p.name.value in constexpr:
                        out.append((p.name.value, arg.value))
                positional += 1
                continue
            name = arg.keyword.value
            if name in LAUNCH_OPTIONS or name in constexpr or (kdef is None and knob_rule(name) is not None):
                out.append((name, arg.value))
        return out, opaque, unread

    def dict_entries(
        self,
        expr: cst.BaseExpression,
        func: _FuncInfo | None,
        depth: int = 0,
        *,
        kernel: str | None = None,
        launch: _Launch | None = None,
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The entries of a ``**dict`` launch argument: a dict literal, ``dict(a=1)``, a name bound once
        to one of them in the launch's function or the module, one entry of a dict of such dicts
        (``**configs[x.dtype]``, see :meth:`splat_entries`), or a local of the launching function bound once to
        what a settings helper returns (``cfg = launch_config(n)``, see :meth:`helper_entries`); ``None`` when it
        is built otherwise."""
        if isinstance(expr, cst.Subscript):
            return self.splat_entries(expr, func, kernel)
        if isinstance(expr, cst.Dict):
            out = []
            for el in expr.elements:
                if not isinstance(el, cst.DictElement) or not isinstance(el.key, cst.SimpleString):
                    return None
                key = el.key.evaluated_value
                if not isinstance(key, str):
                    return None
                out.append((key, el.value))
            return out
        if isinstance(expr, cst.Call) and _dotted(expr.func) == "dict":
            out = []
            for a in expr.args:
                if a.keyword is None:
                    return None
                out.append((a.keyword.value, a.value))
            return out
        if isinstance(expr, cst.Name) and depth < 3:
            binds = func.locals.get(expr.value) if func is not None else None
            scope = func
            if not binds and launch is not None and func is not None and depth == 0:
                passed = self.passed_dict(expr.value, func, launch, kernel)
                if passed is not None:
                    return passed
            if not binds:
                binds, scope = self.module_bindings.get(expr.value), None
            if binds and len(binds) > 1 and launch is not None and scope is not None and depth == 0:
                return self.branch_entries(expr.value, binds, scope, kernel, launch)
            unpacked = _unpacked_call(binds[0], expr.value) if binds and len(binds) == 1 else None
            if unpacked is not None and launch is not None and scope is not None and depth == 0:
                # AITER's ``if config is None: config, _ = _get_config(M, N, K)``: a getter's dict, unpacked
                if self.mutation(expr.value, scope, tuned_lines=False) is not None:
                    return None
                return self.helper_entries(expr.value, unpacked, launch, kernel)
            if not binds or len(binds) != 1 or binds[0].value is None or binds[0].chained:
                return None
            value = binds[0].value
            looked_up = _dict_get(value)
            if looked_up is not None:  # ``cfg = _TILES.get(KW, _DEFAULT)``: one entry of a dict of dicts, as cfg[KW]
                if self.mutation(expr.value, scope, tuned_lines=True) is not None:
                    return None
                return self.keyed_entries(*looked_up, scope, kernel)
            call = value if isinstance(value, cst.Call) and _dotted(value.func) != "dict" else None
            if launch is None or scope is None:
                call = None  # a settings helper's result is followed only where a launch's function binds it
            changed = self.mutation(expr.value, scope, tuned_lines=call is None)
            if changed is not None:
                if depth == 0 and call is None and self.dict_entries(value, scope, depth + 1) is not None:
                    where = f"{self.loc(self.positions[changed].start.line)}: {one_line(self.code(changed), 80)}"
                    self.unread_why[expr.value] = (
                        f"the argument **{expr.value} cannot be read: it is a dict changed after it is built "
                        f"({where}): the settings it passes are not listed"
                    )
                return None
            if call is not None and launch is not None:
                return self.helper_entries(expr.value, call, launch, kernel)
            return self.dict_entries(value, scope, depth + 1, kernel=kernel)  # the run read by kernel (q114)
        return None

    def _settings_of(
        self,
        tables: Sequence[Sequence[tuple[str, cst.BaseExpression]] | None],
        variable: str,
        helper: str,
        defined: _FuncInfo | None,
        *,
        why: tuple[str, str, str],
        branches: bool = False,
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The settings of a ``**variable`` whose dict is one of ``tables`` (a helper's returns, or the literals bound
        in each branch), each key recorded with the values every table gives it (:class:`_HelperSetting`); ``None``,
        with why (``why``: the code it is listed under, the reason's start, and what the settings depend on), when
        the tables' keys differ."""
        keys = [[k for k, _ in t or []] for t in tables]
        if any(set(k) != set(keys[0]) for k in keys[1:]):
            code, differ, on = why
            named = " / ".join(", ".join(k) for k in keys)
            self.unread_why[code] = f"{differ} ({named}): the settings it passes depend on {on}, not listed"
            return None
        out = []
        for key, expr in tables[0] or []:
            values = [e for t in tables for k, e in t or [] if k == key]
            self.helper_settings[(id(expr), key)] = _HelperSetting(
                variable, key, helper, defined, values, branches=branches
            )
            out.append((key, expr))
        return out

    def branch_entries(
        self, variable: str, binds: list[_Binding], func: _FuncInfo, kernel: str | None, launch: _Launch | None = None
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The settings of ``**kwargs`` where the launching function binds ``kwargs`` to a dict literal in each
        branch of an ``if`` / ``else`` (Liger-Kernel's DyT: ``{"BLOCK_N": min(next_power_of_2(N), 2048), ...}``
        under ``if N >= 4096:``, the same keys with another cap under ``else:``), never changing it after. Each is a
        computed setting, tuned after the ``if`` (``kwargs["BLOCK_N"] = 256  # kernelopt: tuned``, or a table by the
        sizes the branches read whose fallback is the branches' dict), as a settings helper's are
        (:meth:`helper_entries`). ``None`` when a binding is unconditional, not such a literal, or the keys differ."""
        live = [b for b in binds if not b.tuned]
        if len(live) < 2 or any(not b.conditional or b.value is None or b.chained for b in live):
            return None
        if self.mutation(variable, func, tuned_lines=False) is not None:
            return None
        tables = [self.dict_entries(b.value, func, 1) for b in live if b.value is not None]
        if any(t is None for t in tables):
            return self.file_branch_entries(variable, live, func, kernel, launch) if launch is not None else None
        differ = f"the argument **{variable} is a dict bound in branches whose keys differ"
        return self._settings_of(tables, variable, "", None, why=(variable, differ, "the branch"), branches=True)

    def file_branch_entries(
        self, variable: str, live: list[_Binding], func: _FuncInfo, kernel: str | None, launch: _Launch
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The settings of ``**config`` bound in branches of which one reads a file (vLLM's fp8 GEMM: ``config =
        configs[min(...)]`` from a JSON file by the device and the shape, else a dict literal of defaults): the keywords
        the launch received in a run of the task, each tuned after the ``if`` as a branch dict's are (the file's entry
        or the default the fallback); ``None`` without a run or where no branch reads a file (configs24)."""
        origin = file_origin(self.source, func.node.name.value, variable)
        if origin is None:
            return None
        if not self.launch_values.get(kernel or ""):
            self.unread_why[variable] = (
                f"the argument **{variable} is bound in branches, one {origin.text()}: which settings it passes is "
                f"known only from a run of the task {GIVE_REFERENCE}"
            )
            return None
        first = live[0].value
        assert first is not None
        entries = self.received_entries(variable, first, "", launch, kernel, None)
        for key, expr in entries:
            setting = self.helper_settings.get((id(expr), key))
            if setting is not None:
                setting.branches = True
        return entries

    def passed_dict(
        self, param: str, func: _FuncInfo, la: _Launch, kernel: str | None
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The settings of ``**config`` where ``config`` is a parameter of the launching function that its one call in
        this file passes as a local bound once to a settings helper's result: vLLM's ``invoke_fused_moe_kernel(...,
        config, ...)`` called by ``fused_experts`` with ``config = get_config_func(M)``. They are that helper's
        settings (:meth:`helper_entries`), tuned after the binding in the caller (``config["BLOCK_SIZE_M"] = 64  #
        kernelopt: tuned``), where every reader of the dict sees them (vLLM pads the tokens to ``BLOCK_SIZE_M`` before
        the launch). ``None`` when the parameter is not passed that way."""
        if not any(p.name.value == param for p in func.params) or param in func.locals:
            return None
        fname = func.node.name.value
        calls = self.calls.get(fname, [])
        if len(self.functions.get(fname, [])) != 1 or len(calls) != 1 or any(a.star for a in calls[0].args):
            return None
        call = calls[0]
        positional = param_names(func.node, posonly=True)
        by_keyword = [a.value for a in call.args if a.keyword is not None and a.keyword.value == param]
        plain = [a.value for a in call.args if a.keyword is None]
        index = positional.index(param) if param in positional else None
        given = by_keyword[0] if by_keyword else (plain[index] if index is not None and index < len(plain) else None)
        caller = self.enclosing_function(call)
        if not isinstance(given, cst.Name) or caller is None:
            return None
        binds = caller.locals.get(given.value, [])
        if len(binds) != 1 or binds[0].chained or not isinstance(binds[0].value, cst.Call):
            return None
        if _dotted(binds[0].value.func) == "dict" or self.mutated(given.value, caller, tuned_lines=False):
            return None
        at = _Launch(call, caller, self.positions[call].start.line, la.wrapper)
        entries = self.helper_entries(given.value, binds[0].value, at, kernel, given=la)
        if given.value in self.unread_why:
            self.unread_why[param] = self.unread_why[given.value]
        for key, expr in entries or []:
            setting = self.helper_settings.get((id(expr), key))
            if setting is not None:
                setting.at = at
        return entries

    def enclosing_function(self, node: cst.CSTNode) -> _FuncInfo | None:
        """The innermost function of this file whose body holds ``node``; ``None`` at module level."""
        rng = self.positions[node]
        start, end = (rng.start.line, rng.start.column), (rng.end.line, rng.end.column)
        holding = [
            f
            for infos in self.functions.values()
            for f in infos
            if (self.positions[f.node].start.line, self.positions[f.node].start.column) <= start
            and end <= (self.positions[f.node].end.line, self.positions[f.node].end.column)
        ]
        return max(holding, key=lambda f: self.positions[f.node].start.line, default=None)

    def partial_target(self, helper: str, func: _FuncInfo | None) -> str:
        """``helper`` itself, or the function a local of ``func`` bound once to ``functools.partial(f, ...)`` calls
        (vLLM's ``get_config_func = functools.partial(try_get_optimal_moe_config, ...)``)."""
        binds = func.locals.get(helper, []) if func is not None and "." not in helper else []
        value = binds[0].value if len(binds) == 1 else None
        if (
            isinstance(value, cst.Call)
            and _dotted(value.func) in ("functools.partial", "partial")
            and value.args
            and value.args[0].keyword is None
            and isinstance(value.args[0].value, cst.Name)
            and len(self.functions.get(value.args[0].value.value, [])) == 1
        ):
            return value.args[0].value.value
        return helper

    def helper_entries(
        self, variable: str, call: cst.Call, la: _Launch, kernel: str | None, given: _Launch | None = None
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The settings of ``**cfg`` where the launching function binds ``cfg`` once to a settings helper's result
        (``cfg = launch_config(n)``). A helper of this file whose every ``return`` is a dict of the same string
        keys (a literal, ``dict(...)``, or a local bound once to one) gives them; a helper imported from another
        module is not read (its body is not in the file an edit may write): its settings are the keywords the
        launch received in a run of the task that the launch does not pass itself. Each is a computed setting,
        tuned after the call (``cfg["BLOCK"] = 256  # kernelopt: tuned``), the helper's result the fallback
        (:meth:`helper_site`). A helper of this file whose returns cannot be read (vLLM's ``config`` bound in an
        if / else, from a tuned JSON file or a default) is read as an imported one is: by a run. ``la`` is where the
        dict is bound, ``given`` the launch when that is another function (:meth:`passed_dict`). ``None`` with the
        reason in :attr:`unread_why` otherwise."""
        helper = _dotted(call.func)
        code = variable
        if helper is None:
            return None
        helper = self.partial_target(helper, la.func)
        found = self.functions.get(helper, [])
        method = la.func is not None and bool(la.func.params) and la.func.params[0].name.value == "self"
        if not found and method and helper.startswith("self.") and helper.count(".") == 1:
            found = self.functions.get(helper.removeprefix("self."), [])  # a method of the launching class
        if len(found) == 1 and not self.decorators(found[0].node):
            defined = found[0]
            tables = self.returned_tables(defined)
            if not tables or any(t is None for t in tables):
                if self.launch_values.get(kernel or "", {}):
                    return self.received_entries(variable, call, helper, given or la, kernel, None)
                origin = file_origin(self.source, la.func.node.name.value if la.func else None, code)
                read = f"and a return of {helper}() is not a dict of string keys" if origin is None else origin.text()
                derived = origin.derived_text() if origin is not None else None
                # the settings a run makes knobs are those no other is derived from (configs24: AITER's tiles, not
                # its split, NUM_KSPLIT / BLOCK_SIZE_K / SPLITK_BLOCK_SIZE)
                alone = f"{derived}, so none of them may be set alone after the call; " if derived else ""
                self.unread_why[code] = (
                    f"the argument **{code} is what {helper}() returns, {read}: {alone}which settings it passes is "
                    f"known only from a run of the task {GIVE_REFERENCE}"
                )
                return None
            differ = f"the argument **{code} is what {helper}() returns, and its returns differ in their keys"
            return self._settings_of(tables, variable, helper, defined, why=(code, differ, "the size"))
        source = self.imported_from(helper.split(".")[0])
        if source is None:
            return None
        received = self.launch_values.get(kernel or "", {})
        if not received:
            self.unread_why[code] = (
                f"the argument **{code} is what {helper}() returns, imported from {source} (its body is not read): "
                f"which settings it passes is known only from a run of the task {GIVE_REFERENCE}"
            )
            return None
        return self.received_entries(variable, call, helper, given or la, kernel, source)

    def returned_tables(self, defined: _FuncInfo, depth: int = 0) -> list[list[tuple[str, cst.BaseExpression]] | None]:
        """The settings each ``return`` of the settings helper ``defined`` gives: a dict of literals, or, through a
        copy (``dict(...)``, ``copy.deepcopy(...)``) or a call, what another helper of this file returns (AITER's form:
        ``get_config()`` returning a copy of an ``lru_cache``d getter's dict; discovery23 d31); ``None`` for a return
        that is neither."""
        returns = Returns()
        visit(defined.node.body, returns)
        out: list[list[tuple[str, cst.BaseExpression]] | None] = []
        for r in returns.values:
            table = self.dict_entries(r, defined, 1)
            while table is None and isinstance(r, cst.Call) and _dotted(r.func) in COPIES and len(r.args) == 1:
                r = r.args[0].value
            called = self.functions.get(_dotted(r.func) or "", []) if isinstance(r, cst.Call) else []
            if table is not None or len(called) != 1 or depth >= 3 or self.decorators(called[0].node):
                out.append(table)
                continue
            out += self.returned_tables(called[0], depth + 1)
        return out

    def handed_config(self, la: _Launch, code: str) -> str | None:
        """Why ``**code`` is no knob when it is ``P.kwargs`` of a parameter ``P`` of the launching function: a
        ``triton.Config`` its caller hands in (torchao's ``**config.kwargs``, ``config`` picked at run time by
        torchao's own search over its module list: breaker27's q71, said "its dict is built by code"), whose
        settings are the caller's choice; ``None`` otherwise."""
        base, _, attr = code.partition(".")
        func = la.func
        if func is None or attr != "kwargs" or base in func.locals or base not in {p.name.value for p in func.params}:
            return None
        return (
            f"the argument **{code} passes the settings of {base}, a triton.Config the caller of "
            f"{func.node.name.value}() hands in "
            "(chosen at run time, as by a search over a list of configs): they are not listed; pass them at the "
            "launch as literals, or under @triton.autotune, to tune them"
        )

    def read_from_file(self, la: _Launch, code: str) -> str | None:
        """Why ``**code`` is no knob when its dict is read from a file at run time through this file's code (AITER's
        JSON files by device and shape, behind ``lru_cache``d getters and a helper that changes the dict): where
        its values come from, and what would make them knobs (discovery23 d31); ``None`` when no file read is
        reached."""
        origin = file_origin(self.source, la.func.node.name.value if la.func else None, code)
        if origin is None:
            return None
        derived = origin.derived_text()
        # settings from which others are derived are refused by name: one set alone after the call breaks the others
        # (AITER's SPLITK_BLOCK_SIZE, computed from NUM_KSPLIT; configs23)
        alone = f"; {derived}, so none of them may be set alone after the call" if derived else ""
        return (
            f"the argument **{code} is {origin.text()}: its settings live in that file, not in {self.filename}, the "
            f"one file kernelopt edits, so none is a knob{alone}; to tune them, pass them from a dict of literals in "
            f"{self.filename}"
        )

    def received_entries(
        self,
        variable: str,
        call: cst.BaseExpression,
        helper: str,
        la: _Launch,
        kernel: str | None,
        source: str | None,
    ) -> list[tuple[str, cst.BaseExpression]]:
        """The settings a helper whose body is not read gives ``**variable``: the keywords the launch ``la``
        received in a run of the task that it does not pass itself."""
        received = self.launch_values.get(kernel or "", {})
        given = {a.keyword.value for a in la.args if a.keyword is not None}
        info = self.jit_kernel(kernel)
        given |= set(self.heuristic_entries(info)) if info is not None else set()  # the kernel's own (AITER's EVEN_K)
        out = []
        for key in received:
            if key in given:
                continue
            self.helper_settings[(id(call), key)] = _HelperSetting(variable, key, helper, None, [], source)
            out.append((key, call))
        return out

    def imported_note(self, helper: str) -> str | None:
        """One line for a setting computed by ``helper`` when an import of this file gives it (not a function of
        this file): where it comes from and what is not read; ``None`` otherwise."""
        if len(self.functions.get(helper, [])) == 1:
            return None
        source = self.imported_from(helper.split(".")[0])
        if source is None:
            return None
        return (
            f"{helper}() comes from {source}, another module: tuned at its call in {self.filename}, its result the "
            f"fallback; its body is not read, so a cap or limit inside it is no knob (an edit stays in {self.filename})"
        )

    def imported_from(self, name: str) -> str | None:
        """The module a module-level ``import`` or ``from ... import`` of this file binds ``name`` from (``.settings``,
        ``liger_kernel.utils``), as written; ``None`` when no import binds it."""
        for stmt in module_statements(self.module.body):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        if isinstance(bound, cst.Name) and bound.value == name:
                            dots = "." * len(small.relative)
                            module = self.code(small.module) if small.module is not None else ""
                            return f"{dots}{module}"
                elif isinstance(small, cst.Import):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        if _dotted(bound) == name or (
                            alias.asname is None and self.code(alias.name).split(".")[0] == name
                        ):
                            return self.code(alias.name)
        return None

    def splat_entries(
        self, expr: cst.Subscript, func: _FuncInfo | None, kernel: str | None
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """The settings of ``**configs[key]`` where ``configs`` is a dict (bound once, never changed) of dicts
        of literal settings, keyed by dtype or mode. The entry edited is the one for the key in use: the entry
        whose key is written the same way as the subscript, else the one whose values the task's launch
        received (after a run), else the only one; when the run is unknown and the entries agree on a
        setting, every entry moves together (the key in use gets the value whatever it is); when they differ,
        the setting is refused with the reason."""
        if len(expr.slice) != 1 or not isinstance(expr.slice[0].slice, cst.Index):
            return None
        return self.keyed_entries(expr.value, expr.slice[0].slice.value, None, func, kernel)

    def keyed_entries(
        self,
        named: cst.BaseExpression,
        key_expr: cst.BaseExpression,
        default: cst.BaseExpression | None,
        func: _FuncInfo | None,
        kernel: str | None,
    ) -> list[tuple[str, cst.BaseExpression]] | None:
        """:meth:`splat_entries` of ``named[key_expr]``, or of ``named.get(key_expr, default)`` where ``default`` is
        one more entry (a dict of literals, or a name bound once to one), keyed ``default`` (breaker31 q110: a
        depthwise convolution's ``cfg = _TILES.get(KW, _DEFAULT)`` was refused as "built by code or changed after it
        is built")."""
        scope = func
        outer: cst.BaseExpression | None = named
        if isinstance(outer, cst.Name):
            binds = func.locals.get(outer.value) if func is not None else None
            if not binds:
                binds, scope = self.module_bindings.get(outer.value), None
            if not binds or len(binds) != 1 or binds[0].chained or self.mutated(outer.value, scope):
                return None
            outer = binds[0].value
        if not isinstance(outer, cst.Dict) or not outer.elements:
            return None
        table: list[tuple[str, list[tuple[str, cst.BaseExpression]]]] = []
        for el in outer.elements:
            if not isinstance(el, cst.DictElement):
                return None
            inner = self.dict_entries(el.value, scope, 1)
            if inner is None:
                return None
            table.append((self.code(el.key), inner))
        if default is not None:
            inner = self.dict_entries(default, func, 1)
            if inner is None:
                return None
            table.append(("default", inner))
        key = self.code(key_expr)
        chosen = [t for t in table if t[0] == key]
        ran = self.launch_values.get(kernel or "", {})
        used = self.entries_in_use(table, kernel) if not chosen else []
        if not chosen and ran:
            chosen = [
                t
                for t in table
                if all((lit := self.literal(e)) is not None and ran.get(n, lit.value) == lit.value for n, e in t[1])
            ]
        if (len(chosen) == 1 and len(used) < 2) or len(table) == 1:
            return (chosen or table)[0][1]
        dict_code = self.code(named)
        first = table[0][1]
        for name, e in first:
            others = [oe for _, entries in table[1:] for on, oe in entries if on == name]
            # each entry's value named by its key: the first entry's alone read as the one the task runs (late30 z80)
            by_key = [
                f"{k}: {repr(lit.value) if (lit := self.literal(x)) else self.code(x)}"
                for k, entries in table
                for n, x in entries
                if n == name
            ]
            values = {repr(lit.value) if (lit := self.literal(x)) else self.code(x) for x in [e, *others]}
            why = None
            if len(values) > 1 and len(used) > 1:  # the key differs by size: no one entry is the task's
                why = (
                    f"the entries of {dict_code} differ in {name} ({', '.join(by_key)}) and the SHAPES entries take "
                    f"different ones by {key} ({', '.join(used)}): one entry set alone changes some sizes only; set "
                    f"the entries of {dict_code} by hand"
                )
            elif len(values) > 1:
                why = (
                    f"the entries of {dict_code} differ in {name} ({', '.join(by_key)}) and the key in use "
                    f"({key}) is known only from a run of the task {GIVE_REFERENCE}"
                )
            self.splat_partners[id(e)] = (others, why)
        return first

    def entries_in_use(
        self, table: list[tuple[str, list[tuple[str, cst.BaseExpression]]]], kernel: str | None
    ) -> list[str]:
        """The keys of ``table``'s entries the task's launch took, one for each ``SHAPES`` entry the run saw whose
        received values match exactly one entry (breaker31 q110: ``_TILES.get(KW, _DEFAULT)`` keyed by the filter's
        width takes another entry at each width); empty without a run."""
        out: list[str] = []
        for entry in self.shape_sizes:
            got = entry.launch_values.get(kernel or "", {})
            match = [
                k
                for k, entries in table
                if got
                and all((lit := self.literal(e)) is not None and got.get(n, lit.value) == lit.value for n, e in entries)
            ]
            if len(match) == 1 and match[0] not in out:
                out.append(match[0])
        return out

    def mutated(self, name: str, func: _FuncInfo | None, *, tuned_lines: bool = True) -> bool:
        """True when ``name[...] = ...``, ``name.update(...)`` or similar changes the dict after it is built;
        ``tuned_lines=False``: the ``# kernelopt: tuned`` lines an edit wrote after a settings helper's call do not
        count (they are that helper's knobs)."""
        return self.mutation(name, func, tuned_lines=tuned_lines) is not None

    def mutation(self, name: str, func: _FuncInfo | None, *, tuned_lines: bool = True) -> cst.CSTNode | None:
        """The first part of a statement that changes the dict ``name`` after it is built (:meth:`mutated`)."""
        finder = _Mutations(name, tuned_lines=tuned_lines)
        visit((func.node.body if func is not None else self.module), finder)
        return finder.first if finder.found else None

    # -- heuristics -------------------------------------------------------------------------------

    def heuristic_values(self, info: _FuncInfo) -> list[tuple[cst.BaseExpression, cst.BaseExpression | None]]:
        """The ``values`` argument of every ``@triton.heuristics`` of a kernel, outermost first: (as written, the
        dict it names when that can be read, else ``None``)."""
        out: list[tuple[cst.BaseExpression, cst.BaseExpression | None]] = []
        for d in info.node.decorators:
            deco = d.decorator
            if not (isinstance(deco, cst.Call) and _dotted(deco.func).split(".")[-1] == "heuristics"):
                continue
            for i, arg in enumerate(deco.args):
                if (arg.keyword and arg.keyword.value == "values") or (arg.keyword is None and i == 0):
                    out.append((arg.value, self.table_lookup(arg.value)))
        return out

    def table_lookup(self, expr: cst.BaseExpression) -> cst.BaseExpression | None:
        """``expr`` with a call of a table getter followed: FlagGems' ``get_heuristic_config("softmax_inner")``, a
        function of this file whose body returns ``TABLE[name]`` (or one expression), called with literals, is
        ``TABLE["softmax_inner"]``, and so is its runtime form ``runtime.get_heuristic_config("argmax")``, a method
        of a module-level instance of a class of this file (:meth:`instance_method`); anything else is returned as
        it is (``None`` for a call that cannot be followed)."""
        if not isinstance(expr, cst.Call):
            return expr
        found = self.functions.get(_dotted(expr.func) or "", [])
        method = self.instance_method(expr.func) if not found else None
        found = [method] if method is not None else found
        if len(found) != 1 or self.decorators(found[0].node) or not isinstance(found[0].node.body, cst.IndentedBlock):
            return None
        body = [st for st in found[0].node.body.body if not _docstring(st)]
        if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
            return None
        ret = body[0].body[0] if len(body[0].body) == 1 else None
        if not isinstance(ret, cst.Return) or ret.value is None:
            return None
        params = [p.name.value for p in found[0].params][1 if method is not None else 0 :]  # ``self`` not passed
        given = {params[i]: a.value for i, a in enumerate(expr.args) if a.keyword is None and i < len(params)}
        given |= {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
        if any(not isinstance(v, cst.SimpleString) for v in given.values()):
            return None
        value = ret.value
        if (
            isinstance(value, cst.Subscript)
            and len(value.slice) == 1
            and isinstance(value.slice[0].slice, cst.Index)
            and isinstance(value.slice[0].slice.value, cst.Name)
            and value.slice[0].slice.value.value in given
        ):
            key = given[value.slice[0].slice.value.value]
            return value.with_changes(slice=[value.slice[0].with_changes(slice=cst.Index(key))])
        if any(n.value in params for n in _names_in(value)):
            return None
        return value

    def instance_method(self, func: cst.BaseExpression) -> _FuncInfo | None:
        """The method ``obj.method`` calls where ``obj`` is a module-level name bound once to an instance of a class of
        this file (FlagGems' ``runtime = _Runtime()``, ``runtime.get_heuristic_config("argmax")``); ``None``
        otherwise (an imported module's function, a name bound twice)."""
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return None
        binds = self.module_bindings.get(func.value.value, [])
        built = binds[0].value if len(binds) == 1 and not binds[0].chained else None
        if not (isinstance(built, cst.Call) and isinstance(built.func, cst.Name)) or built.args:
            return None
        cls = next(
            (c for c in self.module.body if isinstance(c, cst.ClassDef) and c.name.value == built.func.value), None
        )
        if cls is None or self.mutated(func.value.value, None):
            return None
        return next(
            (
                f
                for f in self.functions.get(func.attr.value, [])
                if any(n is f.node for n in cls.body.body) and f.params and f.params[0].name.value == "self"
            ),
            None,
        )

    def heuristic_entries(self, info: _FuncInfo) -> dict[str, cst.BaseExpression]:
        """The entries of every ``@triton.heuristics`` of a kernel, stacked ones too (the outer decorator runs
        first, so a name two of them set is the inner one's)."""
        out: dict[str, cst.BaseExpression] = {}
        for _, values in self.heuristic_values(info):
            entries = self.dict_entries(values, None) if values is not None else None
            out.update(entries or [])
        return out

    def unread_heuristics(self, info: _FuncInfo) -> list[str]:
        """The ``@triton.heuristics`` arguments of a kernel that cannot be read, as written."""
        return [
            self.code(written)
            for written, values in self.heuristic_values(info)
            if values is None or self.dict_entries(values, None) is None
        ]

    def heuristics(self) -> None:
        for fname, infos in self.functions.items():
            for info in infos:
                for name, expr in self.heuristic_entries(info).items():
                    self.heuristic_site(fname, name, expr)
                for code in self.unread_heuristics(info):
                    line = self.positions[info.node].start.line
                    self.add_site(
                        Site(
                            f"{fname}.heuristics",
                            "heuristics",
                            TunableKind.HEURISTIC,
                            None,
                            line,
                            kernel=fname,
                            feeds=[],
                            used_at=[line],
                            groups=[f"{fname}.heuristics ({self.loc(line)})"],
                            refused=(
                                f"@triton.heuristics({code}) cannot be read (its dict is built by code); the values "
                                "it sets are no knobs here, and the launch options it may set are not offered"
                            ),
                        )
                    )

    def heuristic_site(self, kernel: str, name: str, expr: cst.BaseExpression) -> None:
        key = f"{kernel}.heuristics.{name}"
        line = self.positions[expr].start.line
        body = expr.body if isinstance(expr, cst.Lambda) else None
        lit = self.literal(body)
        refused = None
        computed = None
        override = None
        semantic_why = semantic_reason(name, lit.value if lit else None)
        if semantic_why is None and body is not None and _boolean_expr(body):
            semantic_why = f"'{name}' is a boolean computed from the arguments: it selects what the kernel computes"
        if semantic_why is not None:
            refused = semantic_why
        elif lit is None and body is None:
            lit = self.heuristic_function_literal(name, expr)
            if lit is None and self.heuristic_function_param(name, expr) is None:
                refused = f"heuristic is not a lambda: {self.code(expr)}; edit it by hand"
        table: TunedTable | None = None
        size_names: list[str] = []
        fallback_text: str | None = None
        wrap: str | None = None
        if refused is None and lit is None and isinstance(expr, cst.Name):
            # a named function of this file computing the value (attorch's BLOCK_SIZE_BATCH_heuristic): an edit
            # writes a lambda in its place whose value, or table, falls back on a call of it (breaker9 k3)
            wrap = self.heuristic_function_param(name, expr)
            assert wrap is not None
            computed = fallback_text = f"{expr.value}({wrap})"
            override = self.span(expr)
            size_names = self.heuristic_reads(cst.parse_expression(fallback_text), wrap)
        picked = self.list_pick(name, expr) if refused is None and lit is None else None
        if picked is not None:  # late53's l230 form: its value a knob, its bound and fallback kept (late55 l252)
            lit = picked
        elif refused is None and lit is None and isinstance(expr, cst.Lambda) and body is not None:
            if knob_rule(name) is None and name not in LAUNCH_OPTIONS:
                refused = f"computed by a heuristic ({self.code(body)}); not a known performance knob"
            else:
                # a table an edit wrote (``128 if args["n"] <= 100 else <the computation>``) reads back as one
                table, fallback = self.heuristic_table(body)
                computed = self.code(fallback)
                override = self.span(body)
                span = self.span(fallback)
                fallback_text = self.source[span.start : span.end]
                params = param_names(expr)
                size_names = self.heuristic_reads(fallback, params[0]) if params else []
        self.add_site(
            Site(
                key,
                name,
                TunableKind.HEURISTIC,
                lit,
                lit.line if lit else line,
                kernel=kernel,
                feeds=[name],
                used_at=[line],
                groups=[f"{kernel}.heuristics ({self.loc(line)})"],
                refused=refused,
                value=lit.value if lit else None,
                computed=computed,
                override=override,
                semantic=semantic_why is not None,
                size_names=size_names,
                heuristic_table=table,
                heuristic_fallback=fallback_text,
                heuristic_wrap=wrap,
            )
        )

    def list_pick(self, name: str, expr: cst.BaseExpression) -> SourceLiteral | None:
        """The value of a pick :func:`~kernelopt.tunables.list_pin.heuristic_pin` wrote under ``kernel``'s autotune
        list (``lambda args: 128 if args["BD"] <= 64 else args["BLOCK"]``: one row over a size, falling back on the
        value the autotuner passes for ``name`` itself), as a literal knob: an edit moves the value in place, the bound
        and the list's fallback kept; ``None`` for any other heuristic (late55 l252: a retune of l230's form found no
        knob, "no size to tabulate it by"); the same form written by hand reads so too)."""
        if not isinstance(expr, cst.Lambda) or not isinstance(expr.body, cst.IfExp) or len(param_names(expr)) != 1:
            return None
        table, fallback = self.heuristic_table(expr.body)
        own = f'{param_names(expr)[0]}["{name}"]'
        if table is None or len(table.buckets) != 1 or self.code(fallback) != own or fallback.lpar:
            return None
        sizes = self.heuristic_reads(expr.body.test, param_names(expr)[0])
        if name in sizes or not sizes:
            return None
        return self.literal(expr.body.body)

    def heuristic_function_param(self, name: str, expr: cst.BaseExpression) -> str | None:
        """The one parameter of the named function of this file a heuristic entry of a knob names (attorch's
        ``"BLOCK_SIZE_BATCH": BLOCK_SIZE_BATCH_heuristic``, ``def BLOCK_SIZE_BATCH_heuristic(args)``); ``None`` for
        anything else (a lambda, an imported or decorated function, several parameters, no knob)."""
        if not isinstance(expr, cst.Name) or (knob_rule(name) is None and name not in LAUNCH_OPTIONS):
            return None
        found = self.functions.get(expr.value, [])
        if len(found) != 1 or self.decorators(found[0].node) or len(found[0].params) != 1:
            return None
        return found[0].params[0].name.value

    def heuristic_reads(self, expr: cst.BaseExpression, param: str) -> list[str]:
        """The kernel arguments a heuristic's computation reads (``args["n_cols"]``), those of a named function of
        this file it calls with ``param`` (``fn(args)``) included, in the caller's spelling."""
        reads = _argument_reads(expr, param)
        for call in _calls_in(expr):
            found = self.functions.get(_dotted(call.func) or "", [])
            passed = [a.value for a in call.args]
            if len(found) != 1 or len(found[0].params) != 1 or len(passed) != 1:
                continue
            if not (isinstance(passed[0], cst.Name) and passed[0].value == param):
                continue
            own = found[0].params[0].name.value
            reads += [r.replace(f"{own}[", f"{param}[", 1) for r in _argument_reads(found[0].node.body, own)]
        return list(dict.fromkeys(reads))

    def heuristic_function_literal(self, name: str, expr: cst.BaseExpression) -> SourceLiteral | None:
        """The one integer literal a named heuristic function of this file returns beside computed values (FlagGems'
        ``heur_tile_n_inner``: ``next_power_of_2(N)`` for short rows, else ``return 128``): the value of the sizes
        its branch takes, a knob of a setting with a rule (a tile, ``num_warps``); ``None`` otherwise (a function
        returning several literals is a table to edit by hand)."""
        if not isinstance(expr, cst.Name) or (knob_rule(name) is None and name not in LAUNCH_OPTIONS):
            return None
        found = self.functions.get(expr.value, [])
        if len(found) != 1 or self.decorators(found[0].node) or len(found[0].params) != 1:
            return None
        returns = Returns()
        visit(found[0].node.body, returns)
        literals = [lit for v in returns.values if (lit := self.literal(v)) is not None]
        if len(literals) != 1 or not is_int(literals[0].value):
            return None
        return literals[0]

    def heuristic_table(self, body: cst.BaseExpression) -> tuple[TunedTable | None, cst.BaseExpression]:
        """A heuristic's size-bucketed table, as :func:`kernelopt.tunables.edit.write_table` writes it into the
        lambda (``64 if args["n"] <= 10 else 128 if args["n"] <= 100 else triton.next_power_of_2(args["n"])``),
        and the computation it falls back on; ``(None, body)`` when the body is no such chain."""
        buckets: list[Bucket] = []
        size: str | None = None
        node = body
        while isinstance(node, cst.IfExp) and not (buckets and node.lpar):  # (...) holds the computation
            test, value = node.test, self.literal(node.body)
            if not (
                isinstance(test, cst.Comparison)
                and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.LessThanEqual)
            ):
                break
            bound = self.literal(test.comparisons[0].comparator)
            this = self.code(test.left)
            if value is None or bound is None or not isinstance(bound.value, int) or size not in (None, this):
                break
            if buckets and bound.value <= buckets[-1].upto:
                break
            size = this
            buckets.append(Bucket(upto=bound.value, values={"": value.value}))
            node = node.orelse
        if not buckets or size is None or self.literal(node) is not None:
            return None, body
        return TunedTable(size=size, buckets=buckets), node

    # -- grid consistency -------------------------------------------------------------------------

    def grid_exprs(self, la: _Launch) -> list[cst.CSTNode]:
        """The expression(s) computing the launch grid (followed through a name / lambda / def)."""
        sub = la.sub
        out: list[cst.CSTNode] = []
        for el in sub.slice:
            if not isinstance(el.slice, cst.Index):
                continue
            expr: cst.BaseExpression = el.slice.value
            if isinstance(expr, cst.Name):
                binds = (la.func.locals.get(expr.value) if la.func else None) or self.module_bindings.get(expr.value)
                if binds and len(binds) == 1 and binds[0].value is not None:
                    out.append(binds[0].value)
                    continue
                fns = self.functions.get(expr.value, [])
                if len(fns) == 1:
                    out.append(fns[0].node.body)
                    continue
            out.append(expr)
        return out

    def grid_links(self, la: _Launch, sites: list[Site]) -> None:
        blockish = []
        for s in sites:
            rule = knob_rule(s.name)
            lit = s.literal
            integer = lit is not None and is_int(lit.value)
            if integer and s.refused is None and rule and BLOCKISH & set(rule[0]):
                blockish.append(s)
        if not blockish:
            return
        for expr in self.grid_exprs(la):
            finder = _GridLiterals(self)
            visit(expr, finder)
            grid_code = self.code(expr)
            for lit, role, numerator in finder.found:
                value = lit.value
                if role == "divisor":
                    cands = [s for s in blockish if s.literal is not None and s.literal.value == value]
                    if not cands:
                        continue
                    chosen = cands
                    if len(cands) > 1:
                        paired = [s for s in cands if numerator and _axis(s.name) == numerator.lower()]
                        chosen = paired if len(paired) == 1 else cands
                    if len(chosen) > 1:
                        names = " or ".join(s.name for s in chosen)
                        for s in chosen:
                            s.refused = (
                                f"grid literal {value} at {self.loc(lit.line)} ({finder.context[id(lit.node)]}) "
                                f"could belong to {names}; use the knob's name in the grid"
                            )
                        continue
                    chosen[0].links.append(_Link(lit, 0))
                    for extra in finder.partners.get(id(lit.node), []):
                        chosen[0].links.append(_Link(extra[0], extra[1]))
                elif role == "other":
                    for s in blockish:
                        if s.literal is None or not isinstance(s.literal.value, int) or s.literal.value < 16:
                            continue
                        if value in (s.literal.value, s.literal.value - 1):
                            s.refused = (
                                f"grid literal {value} at {self.loc(lit.line)} in `{grid_code}` "
                                f"duplicates {s.name}={s.literal.value} in an expression kernelopt cannot keep "
                                "consistent; write the grid with the knob's name (or triton.cdiv(n, meta[...]))"
                            )

    # -- autotune ---------------------------------------------------------------------------------

    def autotune_configs(self) -> None:
        for fname, infos in self.functions.items():
            for info in infos:
                deco = self.decorators(info.node).get("autotune")
                if deco is None or not isinstance(deco.decorator, cst.Call):
                    continue
                line = self.positions[deco.decorator].start.line
                configs_expr = None
                for i, arg in enumerate(deco.decorator.args):
                    if (arg.keyword and arg.keyword.value == "configs") or (arg.keyword is None and i == 0):
                        configs_expr = arg.value
                configs = self.config_list(configs_expr)
                space = self.autotune.get(fname)
                changed = self.list_changed(configs_expr)
                if changed is not None and (space is None or changed[1]):
                    self.refused_configs(fname, f"{fname}.configs", "configs", line, changed[0])
                    continue
                if configs is None and space is not None and configs_expr is not None:
                    self.evaluated_configs(fname, configs_expr, space)
                    continue
                if configs is None:
                    what = self.code(configs_expr) if configs_expr is not None else "missing"
                    why = f"autotune configs are built by code ({what}); edit them by hand"
                    self.refused_configs(fname, f"{fname}.configs", "configs", line, why)
                    continue
                for ci, el in enumerate(configs):
                    self.config_entry(fname, ci, el)

    def atomic_selectors(self) -> None:
        """Hold a setting of an autotune list that selects an atomic add over a plain store (bitsandbytes' ``if
        SPLIT_K == 1: tl.store(C, acc) else: tl.atomic_add(C, acc)``) at the one value every config gives it, where
        nothing zeroes the output before each run (no ``reset_to_zero``, no config's ``pre_hook``): the autotuner
        runs a config several times and each run adds onto the last, so only the store's value stands (breaker16
        c2: ``tune`` searched ``SPLIT_K`` 1..64, six of its seven values wrong at every size)."""
        config_sites: dict[str, list[Site]] = {}
        for site in self.sites:
            if site.kind is TunableKind.AUTOTUNE_CONFIG and site.kernel and ".configs[" in site.key:
                config_sites.setdefault(site.kernel, []).append(site)
        for kernel, sites in config_sites.items():
            kdef = self.jit_kernel(kernel)
            if kdef is None or self.autotune_argument(kernel, "reset_to_zero") is not None or self.hooked(kernel):
                continue
            values: dict[str, set[object]] = {}
            for site in sites:
                values.setdefault(site.name, set()).add(site.value)
            for name, held in values.items():
                branch = None if len(held) != 1 or name in LAUNCH_OPTIONS else _atomic_branch(kdef.node, name)
                if branch is None:
                    continue
                line = self.positions[branch].start.line
                why = (
                    f"{name} selects tl.atomic_add over a plain store in {kernel} ({self.loc(line)}) and nothing "
                    f"zeroes the output before a run (no reset_to_zero, no pre_hook): each of the autotuner's runs "
                    f"would add onto the last, so only the list's own {name}={held.pop()} stands"
                )
                for site in sites:
                    if site.name == name and site.refused is None:
                        site.refused = why

    def hooked(self, kernel: str) -> bool:
        """Whether a config of ``kernel``'s autotune list has a ``pre_hook`` (a literal one not ``None``, or one the
        run of the task read in a list built by code)."""
        space = self.autotune.get(kernel)
        if space is not None and any(c.pre_hook for c in space.configs):
            return True
        configs = self.config_list(self.autotune_configs_expr(kernel))
        return any(
            isinstance(el, cst.Call)
            and any(
                a.keyword is not None and a.keyword.value == "pre_hook" and self.code(a.value) != "None"
                for a in el.args
            )
            for el in configs or []
        )

    def refused_configs(self, kernel: str, name: str, param: str, line: int, why: str) -> None:
        """A site of ``kernel``'s autotune list (the list, ``configs``, or one entry of it) kernelopt does not edit,
        with no value and refused for ``why``."""
        self.sites.append(Site(name, param, TunableKind.AUTOTUNE_CONFIG, None, line, kernel=kernel, refused=why))

    def autotune_configs_expr(self, kernel: str) -> cst.BaseExpression | None:
        """The ``configs=`` expression of ``kernel``'s ``@triton.autotune`` (``None`` when there is none)."""
        for info in self.functions.get(kernel, []):
            deco = self.decorators(info.node).get("autotune")
            if deco is None or not isinstance(deco.decorator, cst.Call):
                continue
            for i, arg in enumerate(deco.decorator.args):
                if (arg.keyword and arg.keyword.value == "configs") or (arg.keyword is None and i == 0):
                    return arg.value
        return None

    def list_sharers(self, kernel: str) -> list[str]:
        """The other kernels whose ``@triton.autotune(configs=NAME)`` names the module list ``kernel``'s names
        (torchao's fp8 cast: ``atomic_kernel_configs_2D`` under the scales kernel and the cast kernel), in the
        file's order; empty where ``kernel``'s ``configs=`` is no plain name. An edit of that list in place moves
        them all (breaker23's q35)."""
        mine = self.autotune_configs_expr(kernel)
        if not isinstance(mine, cst.Name):
            return []
        out = []
        for other in self.functions:
            expr = self.autotune_configs_expr(other) if other != kernel else None
            if isinstance(expr, cst.Name) and expr.value == mine.value:
                out.append(other)
        return out

    def autotune_argument(self, kernel: str, name: str) -> cst.BaseExpression | None:
        """The ``name=`` argument of ``kernel``'s ``@triton.autotune`` (``None`` when it is not written)."""
        for info in self.functions.get(kernel, []):
            deco = self.decorators(info.node).get("autotune")
            if deco is not None and isinstance(deco.decorator, cst.Call):
                for arg in deco.decorator.args:
                    if arg.keyword is not None and arg.keyword.value == name:
                        return arg.value
        return None

    def named_before(self, name: str | None, line: int) -> bool:
        """``name`` is a function defined, or a name imported, at module level of this file above ``line``: a
        literal written at ``line`` (an autotune list) can name it (a config's ``pre_hook``). A call's text
        (``init_to_zero('C11')``, a hook its factory rebuilds) is read by the name it calls."""
        if name is None:
            return False
        name = name.split("(", 1)[0]
        for stmt in self.module.body:
            if self.positions[stmt].start.line >= line:
                return False
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
                return True
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                        bound = [(a.asname.name if a.asname else a.name) for a in small.names]
                        if any(isinstance(b, cst.Name) and b.value == name for b in bound):
                            return True
        return False

    def written_hook(self, configs_expr: cst.BaseExpression, line: int) -> str | None:
        """``pre_hook=...`` as every ``triton.Config`` of a list built by code writes it, when a pinned list written at
        ``line`` can carry it as written: a call of a module-level function of this file defined above ``line`` with
        literal arguments (GemLite's ``pre_hook=init_to_zero("c_ptr")`` in each config of ``get_autotune_config()``:
        a closure, which no name holds, rebuilt by the same call). The configs are the ``Config`` calls in the
        expression and, for a call of a function of this file (``get_autotune_config()``), in its body; ``None``
        when one writes no hook, they differ, or the hook is anything else."""
        roots: list[cst.CSTNode] = [configs_expr]
        if isinstance(configs_expr, cst.Call) and isinstance(configs_expr.func, cst.Name):
            fns = self.functions.get(configs_expr.func.value, [])
            if len(fns) != 1:
                return None
            roots.append(fns[0].node.body)
        calls = _ConfigCalls()
        for root in roots:
            visit(root, calls)
        hooks = set()
        for call in calls.found:
            given = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "pre_hook"]
            if len(given) != 1:
                return None
            hooks.add(self.code(given[0]))
            hook = given[0]
            if not (
                isinstance(hook, cst.Call)
                and isinstance(hook.func, cst.Name)
                and self.named_before(hook.func.value, line)
                and all(a.keyword is None and a.star == "" and self.literal(a.value) is not None for a in hook.args)
            ):
                return None
        if len(hooks) != 1:
            return None
        return f"pre_hook={hooks.pop()}"

    def config_callee(self) -> str:
        """How this module names ``triton.Config`` (``Config`` when imported from triton, else ``triton.Config``)."""
        for b in self.module_bindings.get("Config", []):
            if b.value is None:
                return "Config"
        return "triton.Config"

    def evaluated_configs(self, kernel: str, configs_expr: cst.BaseExpression, space: AutotuneSpace) -> None:
        """Knobs of an autotune list built by code, from the configs the imported module holds; an edit
        replaces the ``configs=`` expression with an explicit literal list (key, prune and restore
        arguments stay as written)."""
        span = self.span(configs_expr)
        code = self.code(configs_expr)
        hooked = [
            i for i, c in enumerate(space.configs) if c.pre_hook and not self.named_before(c.pre_hook_name, span.line)
        ]
        if hooked and all(c.pre_hook for c in space.configs) and self.written_hook(configs_expr, span.line):
            hooked = []  # each config's hook is rebuilt by the call every config writes (written_hook)
        for ci, config in enumerate(space.configs):
            group = f"{kernel}.configs[{ci}] ({self.loc(span.line)})"
            refused = None
            if hooked:
                refused = (
                    f"config {hooked[0]} of {code} has a pre_hook that no module-level name of {self.filename} "
                    "defined above the decorator holds (a lambda or a closure), which an explicit literal list "
                    "cannot carry; edit the configs by hand"
                )
            for name, value in config.knob_values().items():
                why = (
                    (semantic_reason(name, value) or self.filter_size(kernel, name))
                    if name not in LAUNCH_OPTIONS
                    else None
                )
                self.sites.append(
                    Site(
                        f"{kernel}.configs[{ci}].{name}",
                        name,
                        TunableKind.AUTOTUNE_CONFIG,
                        None,
                        span.line,
                        kernel=kernel,
                        feeds=[name],
                        used_at=[span.line],
                        groups=[group],
                        refused=why or refused,
                        value=value,
                        computed=code,
                        region=ConfigRegion(span, kernel, ci, space, self.config_callee()),
                        semantic=why is not None,
                        value_source=f"evaluated: the configs {code} builds, read back from the imported module",
                    )
                )

    def config_list(self, expr: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
        """The entries of an autotune list written as a literal (directly, through a module-level name, or as the
        one return of a helper called without arguments); ``None`` when code builds it, and when an entry's
        settings are named by code (attorch's ``triton.Config({block_name: 64})``, the name a helper's parameter):
        such a list is read from the module as built (:meth:`evaluated_configs`), where a static reading saw only
        its ``num_warps`` and lost the block."""
        if isinstance(expr, cst.List | cst.Tuple):
            entries = [e.value for e in expr.elements]
            return None if any(_named_by_code(e) for e in entries) else entries
        if isinstance(expr, cst.Name) and self.list_changed(expr) is None:
            binds = self.module_bindings.get(expr.value)
            if binds and len(binds) == 1 and isinstance(binds[0].value, cst.List | cst.Tuple):
                return self.config_list(binds[0].value)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and not expr.args:
            fns = self.functions.get(expr.func.value, [])
            if len(fns) == 1:
                finder = Returns()
                visit(fns[0].node.body, finder)
                if len(finder.values) == 1:
                    return self.config_list(finder.values[0])
        return None

    def list_changed(self, expr: cst.BaseExpression | None) -> tuple[str, bool] | None:
        """Why the module list an autotune's ``configs=`` names (``configs=CONFIGS``) is not the list its literal
        writes: the file changes it in place (``CONFIGS.append(...)``, ``cfgs = CONFIGS; cfgs[0] = ...``:
        :meth:`changed_in_place`, leftovers20's l5), with whether a function changes it (at run time, after the
        module's list was read back); ``None`` where it is not changed. Changed at the module's top level alone, the
        list the import built is read back as any list built by code (:meth:`evaluated_configs`); else refused."""
        if not isinstance(expr, cst.Name):
            return None
        why = self.changed_in_place(expr.value, None)
        if why is None:
            return None
        in_function = any(how is not None and how.startswith("in ") for _, how in self.changes_in_place(expr.value))
        later = "; a function changes it as it runs, after the import's list is read back" if in_function else ""
        return f"configs={expr.value}: {why}{later}", in_function

    def config_entry(self, kernel: str, index: int, el: cst.BaseExpression) -> None:
        line = self.positions[el].start.line
        group = f"{kernel}.configs[{index}] ({self.loc(line)})"
        prefix = f"{kernel}.configs[{index}]"
        fn = _dotted(el.func) if isinstance(el, cst.Call) else None
        if not isinstance(el, cst.Call) or not fn or fn.split(".")[-1] != "Config":
            why = f"config entry is not a triton.Config(...) literal: {self.code(el)}"
            self.refused_configs(kernel, prefix, "config", line, why)
            return
        entries: list[tuple[str, cst.BaseExpression]] = []
        positional = 0
        for arg in el.args:
            if arg.keyword is None:
                if positional == 0 and isinstance(arg.value, cst.Dict):
                    for de in arg.value.elements:
                        if isinstance(de, cst.DictElement) and isinstance(de.key, cst.SimpleString):
                            k = de.key.evaluated_value
                            if isinstance(k, str):
                                entries.append((k, de.value))
                elif positional in (1, 2):
                    entries.append((("num_warps", "num_stages")[positional - 1], arg.value))
                positional += 1
            elif arg.keyword.value in LAUNCH_OPTIONS:
                entries.append((arg.keyword.value, arg.value))
        for name, expr in entries:
            lit = self.literal(expr)
            refused = None
            if lit is None and isinstance(expr, cst.Name):
                res = self.resolve_name(expr.value, None)
                lit, refused = res.literal, res.refused
                if lit is not None:
                    refused = f"value comes from '{expr.value}', which other configs may share; edit that constant"
            elif lit is None:
                refused = f"value is computed: {self.code(expr)}"
            self.add_site(
                Site(
                    f"{prefix}.{name}",
                    name,
                    TunableKind.AUTOTUNE_CONFIG,
                    lit,
                    lit.line if lit else line,
                    kernel=kernel,
                    feeds=[name],
                    used_at=[line],
                    groups=[group],
                    refused=refused,
                    value=lit.value if lit else None,
                )
            )


def _assigned_values(b: _Binding) -> list[cst.BaseExpression]:
    """The right-hand sides of the statement of a binding (the whole call of ``a, b = helper(n)``)."""
    if b.statement is None:
        return [b.value] if b.value is not None else []
    return [
        small.value
        for small in b.statement.body
        if isinstance(small, cst.Assign | cst.AnnAssign) and small.value is not None
    ]


def _keyed_row(test: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression | None]:
    """A tuned row's bound and the device it is keyed by (``M <= 300 and get_arch() == 90``:
    :attr:`TunedTable.key`); ``(test, None)`` for a row of its bound alone."""
    if (
        isinstance(test, cst.BooleanOperation)
        and isinstance(test.operator, cst.And)
        and isinstance(test.right, cst.Comparison)
        and len(test.right.comparisons) == 1
        and isinstance(test.right.comparisons[0].operator, cst.Equal)
        and isinstance(test.right.left, cst.Call)
        and not test.right.left.args
    ):
        return test.left, test.right
    return test, None


def _unpacked_call(binding: _Binding, name: str) -> cst.Call | None:
    """The call whose tuple result ``binding`` unpacks ``name`` from (``config, _ = _get_config(M, N, K)``, AITER's
    getter of a dict and whether it was tuned); ``None`` for any other binding."""
    if binding.value is not None or binding.chained or binding.statement is None:
        return None
    for small in binding.statement.body:
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            continue
        target, value = small.targets[0].target, small.value
        if (
            isinstance(target, cst.Tuple)
            and any(isinstance(e.value, cst.Name) and e.value.value == name for e in target.elements)
            and isinstance(value, cst.Call)
            and _dotted(value.func) not in (None, "dict", *COPIES)
        ):
            return value
    return None


def _dict_get(
    value: cst.BaseExpression,
) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression | None] | None:
    """(the dict, the key, the default) of ``name.get(key)`` or ``name.get(key, default)`` called with positional
    arguments; ``None`` for any other expression."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "get"):
        return None
    if not isinstance(value.func.value, cst.Name) or not 1 <= len(value.args) <= 2:
        return None
    if any(a.keyword is not None or a.star for a in value.args):
        return None
    default = value.args[1].value if len(value.args) == 2 else None
    return value.func.value, value.args[0].value, default


def _dict_copy(small: cst.Assign) -> bool:
    """``cfg = dict(cfg)``: the copy a tuned table makes of a settings dict before it sets its entries."""
    target = small.targets[0].target
    return isinstance(target, cst.Name) and _copies(small.value, target.value)


def _copies(value: cst.BaseExpression | None, name: str) -> bool:
    """``dict(name)``."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "dict"
        and len(value.args) == 1
        and isinstance(value.args[0].value, cst.Name)
        and value.args[0].value.value == name
    )


def _tuned_target(target: cst.BaseExpression) -> str | None:
    """The variable a tuned line assigns (``BLOCK``), or the setting of a settings helper's dict it sets, written
    as edits write it (``cfg["BLOCK"]``); ``None`` for any other target."""
    if isinstance(target, cst.Name):
        return target.value
    if (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and len(target.slice) == 1
        and isinstance(target.slice[0].slice, cst.Index)
        and isinstance(target.slice[0].slice.value, cst.SimpleString)
    ):
        key = target.slice[0].slice.value.evaluated_value
        if isinstance(key, str):
            return _HelperSetting(target.value.value, key, "", None, []).target
    return None


class _NestedScopes(cst.CSTVisitor):
    """The lambdas and comprehensions of a statement (their names are not the function's)."""

    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Lambda | cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp):
            self.nodes.append(node)
        return True


#: The operators a size is folded with (``65536 // 4``, ``1 << 20``, ``2 ** 10``): no ``%`` or minus.
_FOLDED_OPERATORS = frozenset(
    {cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.LeftShift, cst.RightShift, cst.Power}
)


def _fold(expr: cst.BaseExpression) -> int | None:
    """The value of integer arithmetic on integer literals (``65536 // 4``), or ``None``; results outside
    1..2**31 (and powers or shifts past 64) are not sizes and are not folded: the one evaluator
    (:func:`kernelopt.tunables.arithmetic.integer_value`) with every value on the way a size, as before."""
    return integer_value(expr, operators=_FOLDED_OPERATORS, calls=(), within=(1, 2**31))


def _calls_in(expr: cst.CSTNode) -> list[cst.Call]:
    """Every call in ``expr``, outermost first."""

    class _Calls(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Call] = []

        def visit_Call(self, node: cst.Call) -> None:
            self.found.append(node)

    calls = _Calls()
    visit(expr, calls)
    return calls.found


def _argument_reads(expr: cst.CSTNode, param: str) -> list[str]:
    """The kernel arguments a heuristic's lambda reads, as written (``args["n_cols"]``), in order."""

    class _Reads(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[str] = []

        def visit_Subscript(self, node: cst.Subscript) -> None:
            if not (isinstance(node.value, cst.Name) and node.value.value == param and len(node.slice) == 1):
                return
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                key = index.value.evaluated_value
                if isinstance(key, str):
                    self.found.append(f'{param}["{key}"]')

    reads = _Reads()
    visit(expr, reads)
    return list(dict.fromkeys(reads.found))


def _binds(func: _FuncInfo, name: str) -> bool:
    """True when ``name`` is a parameter or a local of ``func``."""
    return name in func.locals or any(p.name.value == name for p in func.params)


def _limit_reason(const: str, where: str) -> str:
    return (
        f"{const} is a limit, not a knob: {where}() raises above it, so a lower value would make sizes the "
        "original handled raise"
    )


class _RaiseGuards(cst.CSTVisitor):
    """The tests of a body's ``if`` statements whose block raises (``if block > MAX_FUSED: raise ...``), not
    those of nested functions."""

    def __init__(self) -> None:
        self.tests: list[cst.BaseExpression] = []

    def visit_If(self, node: cst.If) -> None:
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else []
        small = [s for stmt in body if isinstance(stmt, cst.SimpleStatementLine) for s in stmt.body]
        if isinstance(node.body, cst.SimpleStatementSuite):
            small = list(node.body.body)
        if any(isinstance(s, cst.Raise) for s in small):
            self.tests.append(node.test)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False


class _ConfigCalls(cst.CSTVisitor):
    """The ``triton.Config(...)`` / ``Config(...)`` calls under a node."""

    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        name = _dotted(node.func)
        if name is not None and name.split(".")[-1] == "Config":
            self.found.append(node)


def _named_by_code(entry: cst.BaseExpression) -> bool:
    """A ``Config(...)`` entry whose settings dict has a key that is not a string literal (``{block_name: 64}``)."""
    if not isinstance(entry, cst.Call) or not entry.args or entry.args[0].keyword is not None:
        return False
    first = entry.args[0].value
    return isinstance(first, cst.Dict) and any(
        not isinstance(e, cst.DictElement) or not isinstance(e.key, cst.SimpleString) for e in first.elements
    )


def _docstring(stmt: cst.BaseStatement) -> bool:
    """``stmt`` is a string on its own (a docstring)."""
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


class _GuardedCalls(cst.CSTVisitor):
    """For each call of the function named ``name`` in a body (not in nested functions), the tests of the ``if``
    statements around it, outermost first (``[]`` for a call no ``if`` guards)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stack: list[cst.BaseExpression] = []
        self.tests: list[list[cst.BaseExpression]] = []

    def visit_If(self, node: cst.If) -> bool:
        self.stack.append(node.test)
        visit(node.body, self)
        self.stack.pop()
        if node.orelse is not None:  # an else / elif runs where the test is false: guarded by it too
            self.stack.append(node.test)
            visit(node.orelse, self)
            self.stack.pop()
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == self.name:
            self.tests.append(list(self.stack))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _BoundCalls(cst.CSTVisitor):
    """The arguments of every ``min(...)`` / ``max(...)`` call of an expression."""

    def __init__(self) -> None:
        self.args: list[cst.BaseExpression] = []

    def visit_Call(self, node: cst.Call) -> None:
        if _dotted(node.func) in ("min", "max"):
            self.args += [a.value for a in node.args if a.keyword is None and not a.star]


class _MarkerComments(cst.CSTVisitor):
    """Every ``# kernelopt: tunable`` comment of a module."""

    def __init__(self) -> None:
        self.comments: list[cst.Comment] = []

    def visit_Comment(self, node: cst.Comment) -> None:
        if MARKER in node.value:
            self.comments.append(node)


def _axis(name: str) -> str:
    """``BLOCK_M`` -> ``m``, ``BLOCK_SIZE_N`` -> ``n``."""
    return name.rsplit("_", 1)[-1].lower() if "_" in name else name.lower()


def _looks_like_kernel(name: str | None) -> bool:
    return bool(name) and ("kernel" in (name or "").lower())


_DEVICE_ATTRIBUTES = frozenset({"device", "dtype", "is_cuda"})


def _receiver(func: _FuncInfo) -> set[str]:
    """A method's ``self`` / ``cls``: the object, never a size of the problem (``_warps_for(self.BLOCK)`` reads
    the block the class holds; breaker6's argmax_class was offered "a table by size, by self")."""
    first = func.params[0].name.value if func.params else None
    return {first} if first in ("self", "cls") else set()


def _device_only(expr: cst.CSTNode) -> set[str]:
    """Names ``expr`` reads only for their device or dtype (``_sm_count(a.device)``): no size of the problem, so no
    table by size can be keyed on them (the fifth trial, case i8)."""
    other: set[str] = set()
    device: set[str] = set()

    class _Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if isinstance(node.value, cst.Name) and node.attr.value in _DEVICE_ATTRIBUTES:
                device.add(node.value.value)
                return False
            visit(node.value, self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            other.add(node.value)

        def visit_Arg(self, node: cst.Arg) -> bool:
            visit(node.value, self)
            return False

    visit(expr, _Reads())
    return device - other


@functools.lru_cache(maxsize=NODES_KEPT)
def _names_in(expr: cst.CSTNode) -> tuple[cst.Name, ...]:
    """The names ``expr`` reads (an attribute's base, an argument's value), in source order; kept by node (a
    kernel's body is read so by each launch of it, and again for each candidate of a session)."""

    class _All(cst.CSTVisitor):
        def __init__(self) -> None:
            self.names: list[cst.Name] = []

        def visit_Name(self, node: cst.Name) -> None:
            self.names.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            visit(node.value, self)  # the base object is read; the attribute name is not a variable
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            visit(node.value, self)  # the keyword of an argument is not a variable
            return False

    v = _All()
    visit(expr, v)
    return tuple(v.names)


class _NameReads(cst.CSTVisitor):
    """Reads of some names in a function body (assignment targets and keywords are not reads)."""

    def __init__(self, names: set[str], positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.names = names
        self.positions = positions
        self.reads: list[tuple[cst.CSTNode, int]] = []

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit(node.value, self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            visit(node.default, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.reads.append((node, self.positions[node].start.line))


class _Mutations(cst.CSTVisitor):
    """``name[k] = v``, ``name.update(...)``, ``name |= ...``, ``del name[k]``: a dict changed after it is built."""

    def __init__(self, name: str, *, tuned_lines: bool = True) -> None:
        self.name = name
        self.found = False
        self.tuned_lines = tuned_lines
        self.first: cst.CSTNode | None = None  # the first statement that changes it
        self.statement: cst.CSTNode | None = None  # the statement being visited

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.SimpleStatementLine):
            self.statement = node
        was = self.found
        go = super().on_visit(node)
        if self.found and not was:
            self.first = self.statement or node
        return go

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        return self.tuned_lines or not _is_tuned(node)  # ``cfg["BLOCK"] = 256  # kernelopt: tuned``: an edit's

    def visit_If(self, node: cst.If) -> bool:
        return self.tuned_lines or not _is_tuned(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Subscript) and _dotted(node.target.value) == self.name:
            self.found = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        t = node.target
        if _dotted(t.value if isinstance(t, cst.Subscript) else t) == self.name:
            self.found = True

    def visit_Del(self, node: cst.Del) -> None:
        t = node.target
        if isinstance(t, cst.Subscript) and _dotted(t.value) == self.name:
            self.found = True

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        mutators = ("update", "pop", "setdefault", "clear", "popitem")
        if isinstance(func, cst.Attribute) and _dotted(func.value) == self.name and func.attr.value in mutators:
            self.found = True


def _boolean_expr(expr: cst.BaseExpression) -> bool:
    """True for an expression whose value is a boolean (a comparison, ``and``/``or``, ``not``)."""
    if isinstance(expr, cst.Comparison | cst.BooleanOperation):
        return True
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not)


def _integers(expr: cst.CSTNode) -> list[cst.Integer]:
    """Every integer literal in ``expr``."""
    found = [expr] if isinstance(expr, cst.Integer) else []
    return found + [i for child in child_nodes(expr) for i in _integers(child)]


class _GridLiterals(cst.CSTVisitor):
    """Integer literals of a grid expression, classified.

    ``found`` holds (literal, role, numerator name): role ``divisor`` for the divisor of
    ``cdiv(X, L)``, ``X // L`` or ``X / L``; ``other`` for any other literal. ``partners`` maps a
    divisor to the literals that must move with it (``L - 1`` in ``(X + L - 1) // L``).
    """

    def __init__(self, an: _Analyzer) -> None:
        self.an = an
        self.found: list[tuple[SourceLiteral, str, str | None]] = []
        self.partners: dict[int, list[tuple[SourceLiteral, int]]] = {}
        self.context: dict[int, str] = {}
        self._claimed: set[int] = set()

    def _num_name(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, cst.Name):
            return expr.value
        if isinstance(expr, cst.BinaryOperation):
            return self._num_name(expr.left)
        return None

    def _divisor(self, node: cst.CSTNode, numerator: cst.BaseExpression, divisor: cst.BaseExpression) -> None:
        if isinstance(divisor, cst.IfExp) and read_inline_guard(divisor) is not None:
            # the grid's copy of an inline guard at the launch (``n // (256 if n % 256 == 0 else 128)``): its
            # fallback moves with the knob's, the guard's own literals are no copies
            self._claimed |= {id(n) for n in (divisor.body, *_integers(divisor.test))}
            divisor = divisor.orelse
        lit = self.an.literal(divisor)
        if lit is None or not is_int(lit.value):
            return
        self._claimed.add(id(divisor))
        self.context[id(divisor)] = self.an.code(node)
        self.found.append((lit, "divisor", self._num_name(numerator)))
        partners: list[tuple[SourceLiteral, int]] = []
        # (X + (L - 1)) // L and (X + L - 1) // L: the L - 1 literal (or the second L) moves with L.
        num = numerator
        if isinstance(num, cst.BinaryOperation) and isinstance(num.operator, cst.Add):
            right = self.an.literal(num.right)
            if right is not None and right.value == lit.value - 1:
                partners.append((right, -1))
                self._claimed.add(id(num.right))
        if isinstance(num, cst.BinaryOperation) and isinstance(num.operator, cst.Subtract):
            inner = num.left
            if isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Add):
                rl = self.an.literal(inner.right)
                one = self.an.literal(num.right)
                if rl is not None and rl.value == lit.value and one is not None and one.value == 1:
                    partners.append((rl, 0))
                    self._claimed.update({id(inner.right), id(num.right)})
        self.partners[id(lit.node)] = partners

    def visit_Call(self, node: cst.Call) -> None:
        if (counted := cdiv_args(node)) is not None:
            self._divisor(node, *counted)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.FloorDivide | cst.Divide):
            self._divisor(node, node.left, node.right)

    def visit_Integer(self, node: cst.Integer) -> None:
        if id(node) in self._claimed:
            return
        lit = self.an.literal(node)
        if lit is not None:
            self.found.append((lit, "other", None))


def _marker_rule(comment: str) -> tuple[tuple[list[ActionCategory], Legality] | None, str | None]:
    """Parse ``# kernelopt: tunable [category=a,b] [values=1,2] [min=.] [max=.] [multiple_of=.] [power_of_two]``."""
    text = comment.split(MARKER, 1)[1].strip()
    if not text:
        return None, None
    cats: list[ActionCategory] = []
    legal: dict[str, Any] = {"source": "the # kernelopt: tunable marker"}
    for tok in text.split():
        key, _, val = tok.partition("=")
        try:
            if key == "category":
                cats = [ActionCategory(c) for c in val.split(",") if c]
            elif key == "values":
                legal["values"] = [parse_scalar(v) for v in val.split(",") if v]
            elif key in ("min", "max"):
                legal["minimum" if key == "min" else "maximum"] = float(val)
            elif key == "multiple_of":
                legal["multiple_of"] = int(val)
            elif key == "power_of_two":
                legal["power_of_two"] = True
            else:
                return None, f"unknown option '{tok}' in the tunable marker"
        except ValueError:
            return None, f"bad option '{tok}' in the tunable marker"
    low, high = legal.get("minimum"), legal.get("maximum")
    if low is not None and high is not None and low > high:
        return None, f"min={low:g} is above max={high:g} in the tunable marker: no value is legal"
    return (cats, Legality(**legal)), None


def parse_scalar(text: str) -> Value:
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    if text in ("True", "False"):
        return text == "True"
    return text


# ---------------------------------------------------------------------------------------------------
# Public API


def _knob_legality(s: Site, arange_ranges: frozenset[str] = frozenset()) -> tuple[list[ActionCategory], Legality]:
    """Categories and legality of a site: the marker's options first, then the knob-name rules, then Triton's own
    rule for a name the kernel spans a ``tl.arange`` with (``arange_ranges``: a power of two, at most
    ``TRITON_MAX_TENSOR_NUMEL``, as the block rule says; ``EPI_BLOCK`` was listed ">= 1" while tune searched powers
    of two), which also overrides a name rule that asks no power of two (SGLang's ``BLOCK_DIM = 2048``, a tile's
    width, was read by the CUDA thread rule as ">= 32, <= 1024, multiple of 32", its own value outside; breaker18
    d1): one legality, which the listing shows and the search takes its values from."""
    cats: list[ActionCategory] = []
    legal: Legality | None = None
    for feed in s.feeds or [s.name]:
        r = knob_rule(feed)
        if feed in arange_ranges and (r is None or not r[1].power_of_two):
            tile = knob_rule("BLOCK")
            r = (r[0] if r else tile[0], tile[1]) if tile else r
        if r:
            cats += [c for c in r[0] if c not in cats]
            legal = legal or r[1]
    if s.marker_rule is not None:
        m_cats, m_legal = s.marker_rule
        cats = m_cats or cats
        if m_legal.model_dump(exclude={"source"}, exclude_defaults=True):
            legal = m_legal
    if legal is None:
        is_count = is_int(s.value)
        legal = Legality(minimum=1, source="a count or size: at least 1") if is_count else Legality()
    return cats, legal


def _arange_ranges(an: _Analyzer, kernel: str | None) -> frozenset[str]:
    """The names the ``@triton.jit`` kernel ``kernel`` of this file passes as the end of a ``tl.arange(0, NAME)``."""
    kdef = an.jit_kernel(kernel)
    return frozenset() if kdef is None else _aranges_in(kdef.node.body)


def _atomic_branch(kernel: cst.FunctionDef, name: str) -> cst.If | None:
    """The ``if`` of ``kernel`` whose test reads ``name`` and of whose two branches one calls an atomic
    (``tl.atomic_add`` and the like) and the other does not; ``None`` when there is none."""

    def atomic(node: cst.CSTNode | None) -> bool:
        return node is not None and any(
            isinstance(n, cst.Call) and (_dotted(n.func) or "").split(".")[-1].startswith("atomic_") for n in walk(node)
        )

    for node in walk(kernel.body):
        if not isinstance(node, cst.If) or name not in {n.value for n in _names_in(node.test)}:
            continue
        if atomic(node.body) != atomic(node.orelse):
            return node
    return None


@functools.lru_cache(maxsize=NODES_KEPT)
def _stepped_tiles(kernel: cst.FunctionDef) -> frozenset[str]:
    """:meth:`_Analyzer.stepped_tiles` of one kernel; kept by node (asked for each argument of each launch)."""
    masked, tested = compared_sizes(kernel), _tested_names(kernel.body)
    return frozenset(n for n in _aranges_in(kernel.body) if masked.get(n) and n not in tested and steps_by(kernel, n))


@functools.lru_cache(maxsize=NODES_KEPT)
def _aranges_in(body: cst.CSTNode) -> frozenset[str]:
    """The names passed as the end of a ``tl.arange(0, NAME)`` under ``body``, or as a dimension of a
    ``tl.make_block_ptr``'s ``block_shape`` (a block of a tensor too, a power of two: fla's ``(BT, BS)``, breaker8
    m8); kept by node (asked per knob)."""
    out: set[str] = set()
    for n in walk(body):
        if not isinstance(n, cst.Call):
            continue
        called = (_dotted(n.func) or "").split(".")[-1]
        if called == "arange" and len(n.args) == 2 and isinstance(n.args[1].value, cst.Name):
            out.add(n.args[1].value.value)
        elif called == "make_block_ptr":
            shape = call_args(n, BLOCK_PTR_ARGS).get("block_shape")
            if isinstance(shape, cst.Tuple | cst.List):
                out |= {e.value.value for e in shape.elements if isinstance(e.value, cst.Name)}
    return frozenset(out)


RUN_TELLS = "known only from a run of the task: one of the values its refusal names"
"""The ``value_source`` of a setting whose value at the launch only a run tells (the entry of ``**configs[dtype]``,
the branch of ``64 if x.dtype == ... else 32``), listed without one: its value is left unset, not the first of them,
and its location is the launch's (discovery23 d30: a lone kernel.py listed the dict's first entry's tile, 64 at its
line, where the task runs float32's 32)."""


#: the bytes a tensor descriptor's last block side must hold (Triton's ``make_tensor_descriptor``: "Descriptor block
#: shape must have at least 16 bytes in the last dimension"), whatever its dtype: 16 values hold them in any
DESCRIPTOR_LAST_BYTES = 16


#: a descriptor's last block side as a knob scaled: (knob name, multiplier, divisor), ``BLOCK_N // 2`` (BLOCK_N, 1, 2)
SideScale = tuple[str, int, int]


def _descriptor_last_sides(an: _Analyzer, kernel: str | None) -> frozenset[SideScale]:
    """The knobs the ``@triton.jit`` kernel ``kernel`` passes as the last side of a ``tl.make_tensor_descriptor``'s
    ``block_shape``, each with its scaling: a name (``BLOCK_N``), a name times or over an integer (``BLOCK_N // 2``,
    an epilogue stored in halves: wrongkernel26, v121), each branch of a conditional (``BLOCK_N if not SUBTILE else
    BLOCK_N // 2``: either may run); the shape read through a local bound once to it; a side or shape in a form not
    read, each name its value may read with :data:`UNREAD_SIDE` (wrongkernel30, v152: ``block_shape=block`` was read
    as no shape, and ``tunables --set BLOCK_N=4`` of 8 wrote a bf16 descriptor Triton refuses)."""
    kdef = an.jit_kernel(kernel)
    if kdef is None:
        return frozenset()
    out: set[SideScale] = set(_host_descriptor_sides(an.module))
    once = assigned_once(kdef.node)
    for n in walk(kdef.node.body):
        if isinstance(n, cst.Call) and (_dotted(n.func) or "").split(".")[-1] == "make_tensor_descriptor":
            shape = call_args(n, DESCRIPTOR_ARGS).get("block_shape")
            if isinstance(shape, cst.Name) and shape.value in once:  # ``block = (BLOCK_M, BLOCK_N)``: v152
                shape = once[shape.value]
            if isinstance(shape, cst.Tuple | cst.List) and shape.elements:
                last = shape.elements[-1].value
                out |= _side_scales(last) or {(k, *UNREAD_SIDE) for k in reached_names(last, kdef.node)}
            elif shape is not None:  # a shape kernelopt does not read: each name it may hold, its side unknown
                out |= {(k, *UNREAD_SIDE) for k in reached_names(shape, kdef.node)}
    return frozenset(out)


#: The scaling of a descriptor's last side kernelopt does not read (:func:`_descriptor_last_sides`): unknown, so the
#: knob is held at the original's value (:func:`_descriptor_floor`), which serves every dtype it served
UNREAD_SIDE = (0, 1)


#: a host-side ``TensorDescriptor``'s makers and the arguments each takes, its block shape among them
_HOST_DESCRIPTORS = {"TensorDescriptor": DESCRIPTOR_ARGS, "TensorDescriptor.from_tensor": ("tensor", "block_shape")}


@functools.lru_cache(maxsize=NODES_KEPT)
def _host_descriptor_sides(module: cst.Module) -> frozenset[SideScale]:
    """The knobs a launcher passes as the last side of a host-side ``TensorDescriptor``'s ``block_shape``
    (``TensorDescriptor.from_tensor(x, [BLOCK_M, BLOCK_N])``, Triton's ``triton.tools.tensor_descriptor``), read by
    their names anywhere in the module: the kernel it is passed to checks the same 16 bytes (wrongkernel26, v122:
    v118's floor read the kernel's own descriptors alone); in a function, a block shape bound to a local first
    (``block = [BLOCK_M, BLOCK_N]``: wrongkernel27, v140) and one a hook sets (:func:`_hosted_sides`); kept by
    module."""
    out = _hosted_sides(module, {})
    fns = [n for n in walk(module) if isinstance(n, cst.FunctionDef)]
    for fn in fns:
        sides = _hosted_sides(fn.body, {**_unpacked_pairs(fn), **assigned_once(fn)}, fn)
        out |= sides
        # a helper's parameter (``def _desc(t, bm, bn): return TensorDescriptor.from_tensor(t, [bm, bn])``) is the
        # argument each call passes it (``_desc(x, BLOCK_M, BLOCK_N)``: review26, r68, whose 4-wide bf16 side the
        # floor did not see)
        params = set(param_names(fn))
        for name, times, over in [side for side in sides if side[0] in params]:
            for call in (n for n in walk(module) if isinstance(n, cst.Call) and _dotted(n.func) == fn.name.value):
                passed = named_args([a for a in call.args if not a.star], param_names(fn)).get(name)
                for knob, m, d in _side_scales(passed) if passed is not None else ():
                    out.add((knob, m * times, d * over))
    return frozenset(out)


def _hosted_sides(
    node: cst.CSTNode, local: Mapping[str, cst.BaseExpression], fn: cst.FunctionDef | None = None
) -> set[SideScale]:
    """The last sides of the host descriptors' block shapes under ``node``: each maker's ``block_shape`` argument,
    and each ``X.block_shape = [..]`` a function sets (``nargs["x_desc"].block_shape = [BM, nargs["BLOCK_N"]]``, an
    autotune config's ``pre_hook``, as Triton's persistent matmul tutorial sets its descriptors' blocks on
    placeholders made ``[1, 1]``: wrongkernel27, v133), a shape or a side read through ``local`` (a list bound first,
    ``BLOCK_N = nargs["BLOCK_SIZE_N"]``) to the name it gives (a config's key). In a function ``fn``, a shape or a
    last side kernelopt does not read (a conditional, a local bound twice, ``list(...)``, a side computed into a
    local) gives each name its value may read (:func:`~kernelopt.tunables.bindings.reached_names`, the shape's own
    name aside) with :data:`UNREAD_SIDE` (wrongkernel30, v161: read as no shape, a 4-wide bf16 side was legal)."""
    out: set[SideScale] = set()
    for n in walk(node):
        shape: cst.BaseExpression | None = None
        if isinstance(n, cst.Call):
            maker = _dotted(n.func)
            spelled = next((k for k in _HOST_DESCRIPTORS if maker == k or (maker or "").endswith("." + k)), None)
            shape = call_args(n, _HOST_DESCRIPTORS[spelled]).get("block_shape") if spelled is not None else None
        elif isinstance(n, cst.Assign) and any(
            isinstance(t.target, cst.Attribute) and t.target.attr.value == "block_shape" for t in n.targets
        ):
            shape = n.value
        given = shape
        if isinstance(shape, cst.Call) and _dotted(shape.func) in ("list", "tuple") and len(shape.args) == 1:
            shape = shape.args[0].value if not shape.args[0].star and shape.args[0].keyword is None else shape
        if isinstance(shape, cst.Name):  # ``list(tile)`` of ``tile = (BLOCK_M, BLOCK_N)``: v161
            shape = local.get(shape.value, shape)
        if isinstance(shape, cst.Tuple | cst.List) and shape.elements:
            last = shape.elements[-1].value
            out |= _side_scales(_keyed_names(last, local))
            if fn is not None:  # a side computed into a local (``bn = BLOCK_N // 2`` then ``[BLOCK_M, bn]``)
                out |= {(k, *UNREAD_SIDE) for k in reached_names(last, fn) - read_names(last)}
        elif fn is not None and given is not None:
            out |= {(k, *UNREAD_SIDE) for k in reached_names(given, fn) - read_names(given)}
    return out


def _unpacked_pairs(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Name -> value of each ``a, b = x, y`` in ``fn`` (a tuple of names bound to a tuple of as many values:
    ``bm, bn, bk = nargs["BLOCK_SIZE_M"], ...``, breaker7's tma_persist hook); a name bound twice is left out."""
    pairs: dict[str, list[cst.BaseExpression]] = {}
    for n in walk(fn.body):
        if isinstance(n, cst.Assign) and len(n.targets) == 1:
            names, values = n.targets[0].target, n.value
            if (
                isinstance(names, cst.Tuple)
                and isinstance(values, cst.Tuple)
                and len(names.elements) == len(values.elements)
            ):
                for name, value in zip(names.elements, values.elements, strict=True):
                    if isinstance(name.value, cst.Name):
                        pairs.setdefault(name.value.value, []).append(value.value)
    return {name: values[0] for name, values in pairs.items() if len(values) == 1}


class _KeyedNames(cst.CSTTransformer):
    """Each ``nargs["K"]`` (a string key), and each local bound once to one, as the plain name ``K``."""

    def __init__(self, local: Mapping[str, cst.BaseExpression]) -> None:
        self.local = local

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        bound = self.local.get(updated_node.value)
        return _subscript_key(bound) or updated_node if bound is not None else updated_node

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        return _subscript_key(original_node) or updated_node


def _subscript_key(expr: cst.BaseExpression) -> cst.Name | None:
    """``K`` of ``nargs["K"]`` (one string key that is a name); ``None`` for anything else."""
    if not (isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)):
        return None
    key = expr.slice[0].slice.value
    text = key.evaluated_value if isinstance(key, cst.SimpleString) else None
    return cst.Name(text) if isinstance(text, str) and text.isidentifier() else None


def _keyed_names(side: cst.BaseExpression, local: Mapping[str, cst.BaseExpression]) -> cst.BaseExpression:
    """``side`` with the keys it reads (:class:`_KeyedNames`) as names."""
    return side.visit(_KeyedNames(local))  # type: ignore[return-value]


def _side_scales(side: cst.BaseExpression) -> set[SideScale]:
    """The knob scalings a descriptor's side ``side`` is (:func:`_descriptor_last_sides`); none for anything else."""
    if isinstance(side, cst.Name):
        return {(side.value, 1, 1)}
    if isinstance(side, cst.IfExp):
        return _side_scales(side.body) | _side_scales(side.orelse)
    if isinstance(side, cst.BinaryOperation) and isinstance(side.operator, cst.FloorDivide | cst.Multiply):
        over = isinstance(side.operator, cst.FloorDivide)
        pairs = [(side.left, side.right)] if over else [(side.left, side.right), (side.right, side.left)]
        for knob, by in pairs:
            if isinstance(knob, cst.Name) and isinstance(by, cst.Integer) and int(by.evaluated_value) > 0:
                return {(knob.value, 1, int(by.evaluated_value)) if over else (knob.value, int(by.evaluated_value), 1)}
    return set()


def _descriptor_floor(s: Site, legal: Legality, last_sides: frozenset[SideScale]) -> Legality:
    """``legal`` with a tensor descriptor's last block side kept at or above the original's, or at
    :data:`DESCRIPTOR_LAST_BYTES` values: the side must hold 16 bytes, so the original's serves every dtype of
    ``16 / side`` bytes and more, and a smaller one refuses a narrower dtype the original takes (8 fp32 values hold
    16 bytes, 8 bf16 values too, 4 bf16 values do not: wrongkernel25, v118, whose entries are fp32 alone). A side
    that is the knob scaled (``BLOCK_N // 2``: v121) is floored so, in the knob's values: the least knob whose side
    reaches the floor."""
    names = {*s.feeds, s.name}  # a kernel's parameter, or the launcher's name a host descriptor reads
    scales = [(m, d) for name, m, d in last_sides if name in names]
    if not scales or not is_int(s.value):
        return legal
    value = int(s.value)  # type: ignore[arg-type]
    # the least knob k with k * m // d at the side's floor, the original's side or 16 values, whichever is less; a
    # side not read (m 0), the original's value
    floor = max(-(-min(value * m // d, DESCRIPTOR_LAST_BYTES) * d // m) if m else value for m, d in scales)
    if legal.minimum is not None and legal.minimum >= floor:
        return legal
    scaled = [
        f"{s.name} * {m} // {d}".replace(" * 1", "").replace(" // 1", "") if m else "in a form kernelopt does not read"
        for m, d in scales
        if (m, d) != (1, 1)
    ]
    side = f" (its side {', '.join(scaled)})" if scaled else ""
    why = (
        f"a tensor descriptor's last block side{side} holds {DESCRIPTOR_LAST_BYTES} bytes (Triton's "
        f"make_tensor_descriptor): at least {floor}, its side the original's or {DESCRIPTOR_LAST_BYTES} values, so "
        "every dtype it takes still fits"
    )
    source = f"{legal.source}; {why}" if legal.source else why
    return legal.model_copy(update={"minimum": float(floor), "source": source})


#: Triton's calls whose arguments are a tensor's shape (or a range's end): a side of zero there is no tensor
_SHAPED_CALLS = frozenset(
    {"reshape", "view", "zeros", "full", "arange", "broadcast_to", "make_block_ptr", "make_tensor_descriptor"}
)


@functools.lru_cache(maxsize=NODES_KEPT)
def _shape_quotients(body: cst.CSTNode) -> frozenset[tuple[str, int]]:
    """(name, divisor) of each ``NAME // d`` (``d`` an integer above 1) a shape or a range's end under ``body`` holds
    (``tl.reshape(x, (BLOCK // 2, 2))``, ``tl.arange(0, BLOCK // 2)``); kept by node."""
    out: set[tuple[str, int]] = set()
    for call in walk(body):
        if not (isinstance(call, cst.Call) and (_dotted(call.func) or "").split(".")[-1] in _SHAPED_CALLS):
            continue
        for n in (n for a in call.args for n in walk(a.value)):
            if not (isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.FloorDivide)):
                continue
            if isinstance(n.left, cst.Name) and isinstance(n.right, cst.Integer) and int(n.right.evaluated_value) > 1:
                out.add((n.left.value, int(n.right.evaluated_value)))
    return frozenset(out)


def _quotient_floor(s: Site, legal: Legality, quotients: frozenset[tuple[str, int]]) -> Legality:
    """``legal`` with a knob that a shape divides by ``d`` (``tl.reshape(x, (BLOCK // 2, 2))``: pairs split by
    ``tl.split``) kept at ``d`` or more: below it the side is 0, a tensor of no values that Triton refuses at every
    size ("reshape() cannot change total number of elements"; wrongkernel26, v125: ``tunables --set BLOCK=1`` wrote
    it)."""
    names = {*s.feeds, s.name}
    floor = max((d for name, d in quotients if name in names), default=None)
    if floor is None or (legal.minimum is not None and legal.minimum >= floor):
        return legal
    if is_int(s.value) and int(s.value) < floor:  # type: ignore[arg-type]
        return legal  # the original's own value below it: the shape sits under a branch the original does not take
    why = f"a shape in the kernel holds {s.name} // {floor}, a side of no values below {floor}"
    source = f"{legal.source}; {why}" if legal.source else why
    return legal.model_copy(update={"minimum": float(floor), "source": source})


def _dot_k_floor(s: Site, legal: Legality, kernel: cst.FunctionDef) -> Legality:
    """``legal`` with the shared dimension K of a kernel's ``tl.dot`` (:func:`tile_numel.crossed_ranges`) kept at or
    above the original's value, or at the K every operand width compiles with (32, 8-bit operands'; 16 for wider:
    :data:`~kernelopt.vocabulary.DOT_MIN_K`), whichever is less: a K tile legal for the entries' fp32 (16) fails a GPU
    compile of the int8 operands the original multiplies (wrongkernel27, v138: ``tunables --set BLOCK_K=16`` of 32
    wrote it, "a GPU compile needs K >= 32"); the net builds ``get_inputs``' default dtype only. As v118's descriptor
    floor: the original's value serves every width it serves."""
    names = {*s.feeds, s.name}
    if not is_int(s.value) or not names & crossed_ranges(kernel) or not _multiplies_dot(kernel):
        return legal
    floor = min(int(s.value), max([*DOT_MIN_K.values(), DOT_MIN_K_DEFAULT]))  # type: ignore[arg-type]
    if legal.minimum is not None and legal.minimum >= floor:
        return legal
    why = (
        f"{s.name} is the shared dimension K of the kernel's tl.dot, which a GPU compiles only with K >= "
        f"{DOT_MIN_K_DEFAULT}, K >= {DOT_MIN_K[8]} for 8-bit operands (Triton's NVIDIA backend, min_dot_size): at "
        f"least {floor}, the original's or {DOT_MIN_K[8]}, so every operand width it takes still compiles"
    )
    source = f"{legal.source}; {why}" if legal.source else why
    return legal.model_copy(update={"minimum": float(floor), "source": source})


def _multiplies_dot(kernel: cst.FunctionDef) -> bool:
    """Whether ``kernel``'s body calls ``tl.dot``."""
    return any(isinstance(n, cst.Call) and (_dotted(n.func) or "").split(".")[-1] == "dot" for n in walk(kernel.body))


def _to_tunable(an: _Analyzer, s: Site) -> Tunable:
    cats, legal = _knob_legality(s, _arange_ranges(an, s.kernel))
    legal = _descriptor_floor(s, legal, _descriptor_last_sides(an, s.kernel))
    if (kdef := an.jit_kernel(s.kernel)) is not None:
        legal = _quotient_floor(s, legal, _shape_quotients(kdef.node.body))
        legal = _dot_k_floor(s, legal, kdef.node)
    name = s.key if len(s.feeds) > 1 else s.name
    unknown = s.refused is not None and s.refused.endswith(GIVE_REFERENCE)
    return Tunable(
        key=s.key,
        name=name,
        value=None if unknown else s.literal.value if s.literal else s.value,
        kind=s.kind,
        location=an.loc(s.used_at[0] if unknown and s.used_at else s.location_line),  # no entry's line
        kernel=s.kernel,
        feeds=list(s.feeds),
        used_at=[an.loc(u) for u in s.used_at],
        groups=list(s.groups),
        launch_ids={g: an.launch_ids[g] for g in s.groups if g in an.launch_ids},
        linked=list(dict.fromkeys(an.loc(lk.literal.line) for lk in s.links)),
        legality=legal,
        legal_values=legal.enumerate(),
        constraints=legal.describe(),
        categories=[] if s.semantic else cats,
        refused_reason=s.refused,
        computed=s.computed if s.refused is None else None,
        semantic=s.semantic,
        value_source=RUN_TELLS if unknown else s.value_source,
        size_names=list(s.size_names),
        tuned_at=an.loc(region.line) if (region := s.tuned or s.table_region) is not None else None,
        tuned_table=_table_of(s),
        helper_note=s.helper_note if s.refused is None else None,
        overridden=s.overridden and s.refused is None,
        override_lines=list(s.override_lines) if s.overridden and s.refused is None else [],
        loop_option=an.loop_option(s.kernel, s.name) if not s.semantic else None,
        covers=an.covers(s.kernel, s.feeds or [s.name], held=an.held(s))
        if not s.semantic and s.refused is None
        else [],
    )


def _table_of(s: Site) -> TunedTable | None:
    """The tuned table a computed setting's site holds, in knob names, restricted to its variable (or the
    table written into a heuristic's lambda)."""
    if s.heuristic_table is not None:
        rows = [Bucket(upto=b.upto, values={s.name: b.values[""]}) for b in s.heuristic_table.buckets]
        return TunedTable(size=s.heuristic_table.size, buckets=rows)
    if s.tuned is None or s.tuned.table is None:
        return None
    var = s.tuned.variable
    rows = [Bucket(upto=b.upto, values={s.name: b.values[var]}) for b in s.tuned.table.buckets if var in b.values]
    return TunedTable(size=s.tuned.table.size, buckets=rows, key=s.tuned.table.key) if rows else None


def analyze(
    source: str,
    filename: str,
    *,
    gpu: str | None = None,
    autotune: Mapping[str, AutotuneSpace] | None = None,
    launch_values: Mapping[str, Mapping[str, Value]] | None = None,
    shape: Mapping[str, Value] | None = None,
    shape_sizes: list[ShapeSizes] | None = None,
) -> tuple[_Analyzer, list[Site], list[Tunable]]:
    """The analysis of ``source``: its analyzer, its knob sites and its knobs (pure).

    Made once per text and arguments (:func:`_analyses`): a tuning session analysed its kernel.py 14 times with four
    sets of arguments (discovery, the evaluation, each candidate's edit and its check); on a 20,000-line kernel.py
    of 512 kernels each analysis after the first took about 1.6 CPU-s (the first, with the parse, about 17;
    docs/faults.md, leftovers9 l3). The knobs are the
    callers' own copies (a caller that marks one refused, :func:`kernelopt.tunables.fixed.fix_by_reference`, marks
    only its own); the analyzer and the sites are shared and read only.
    """
    kept = _analyses(source)
    key = repr((filename, gpu, autotune, launch_values, shape, shape_sizes))
    if key not in kept:
        an = _Analyzer(
            source,
            filename,
            gpu=gpu,
            autotune=autotune,
            launch_values=launch_values,
            shape=shape,
            shape_sizes=shape_sizes,
        )
        sites = an.analyze()
        used: dict[str, int] = {}
        for s in sites:  # unique keys
            used[s.key] = used.get(s.key, 0) + 1
        for s in sites:
            if used[s.key] > 1:
                s.key = f"{s.key}@{s.location_line}"
        kept[key] = (an, sites, [_to_tunable(an, s) for s in sites])
    an, sites, tunables = kept[key]
    return an, sites, [t.model_copy() for t in tunables]


@kept_by_text
def _analyses(source: str) -> dict[str, tuple[_Analyzer, list[Site], list[Tunable]]]:
    """The analyses of ``source`` made so far, by their other arguments (:func:`analyze`): kept as its parse is
    (:func:`kernelopt.tunables.syntax.kept_by_text`, bounded by the texts' size)."""
    return {}


def discover_source(
    source: str,
    filename: str = "kernel.py",
    *,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
) -> list[Tunable]:
    """Every knob of the Python source ``source`` (pure; nothing is imported or run).

    Args:
        source: the file's text.
        filename: the name used in locations.
        gpu: the target GPU (wiki spec-sheet name); ``num_ctas`` is offered at launches that leave it
            out only where clusters exist (compute capability >= 9.0).
        evaluation: what importing the module (and one run of the task) told
            (:func:`kernelopt.tunables.evaluate.evaluate_autotune`): the configs of autotune lists built by
            code (without it such a list is refused) and the values computed knobs received at launch.

    Raises:
        TunableError: the source does not parse.
    """
    return analyze(source, filename, gpu=gpu, **evaluated(evaluation))[2]


def evaluated(evaluation: AutotuneEvaluation | None) -> dict[str, Any]:
    """The keyword arguments of :func:`analyze` that carry an evaluation."""
    if evaluation is None:
        return {}
    return {
        "autotune": evaluation.spaces,
        "launch_values": evaluation.launch_values,
        "shape": evaluation.shape,
        "shape_sizes": evaluation.shape_sizes,
    }


def discover(
    path: Path,
    *,
    gpu: str | None = None,
    evaluation: AutotuneEvaluation | None = None,
    reference: Path | None = None,
) -> list[Tunable]:
    """Every knob of the kernel file ``path``, in source order of discovery (see :func:`discover_source`); a knob
    the task's reference fixes (``reference``, else the reference.py beside the file) is listed, not editable
    (:func:`kernelopt.tunables.fixed.fix_by_reference`), and so is one whose edit would leave its launch's grid
    counting the original tile (:func:`kernelopt.tunables.unmoved_grid.refuse_unmoved_grids`).

    Raises:
        TunableError: the file does not parse.
        InputFileError: the file does not exist or is not UTF-8 text.
    """
    from kernelopt.tunables.fixed import fix_by_reference, reference_text
    from kernelopt.tunables.list_pin import refuse_overridden
    from kernelopt.tunables.unmoved_grid import refuse_unmoved_grids

    source = read_source(path)
    found = discover_source(source, Path(path).name, gpu=gpu, evaluation=evaluation)
    fix_by_reference(found, reference_text(Path(path), reference))
    refuse_unmoved_grids(found, source)
    refuse_overridden(found, source)
    return found


def read_source(path: Path) -> str:
    from kernelopt.errors import InputFileError

    p = Path(path)
    if p.is_dir():
        raise InputFileError(p, "is a folder, not a kernel file", hint="give a kernel file (e.g. its kernel.py)")
    if not p.is_file():
        from kernelopt.kernelsource import why_missing

        raise InputFileError(p, why_missing(p))  # no such file, or a symbolic link to nothing
    from kernelopt.fileio import decode_python

    text, _ = decode_python(p.read_bytes(), p)  # Python's rules: a latin-1 file with its coding line is read
    return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as the analysis reads lines
