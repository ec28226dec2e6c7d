"""Which block parameters of a Triton kernel cover a size with one block: the one rule the guard reads them by.

A kernel covers a size with one block of ``BLOCK`` when a range built from ``tl.arange(0, BLOCK)`` is compared
with the size (the mask of a load or a store, a ``tl.where``, a test joined by ``&``) and nothing steps by
``BLOCK``: one program then handles the size up to ``BLOCK`` and masks the rest, so a smaller block leaves the
rest of a larger size undone, silently. Public kernels say it in many forms, all read here:

- the range named (``cols = tl.arange(0, BLOCK)``), built through an intermediate
  (``offs = row_start + tl.arange(0, BLOCK)``, compared with ``row_start + n_cols``: the offsets' base on both
  sides is not the size), or written inline, 2-D included (``tl.arange(0, BLOCK_N)[None, :] < N``);
- the test assigned then passed (``mask = cols < n_cols``), inline in the call (``mask=cols < n_cols``), inside a
  ``tl.where``, joined with another by ``&``, or written size-first (``n_cols > cols``).

The block is a parameter of the kernel, or a global it reads (``BLOCK = tl.constexpr(1024)`` at module level). The
range may be derived from it before ``tl.arange``: ``HALF: tl.constexpr = BLOCK // 2`` (or ``BLOCK * 2``, ``2 *
BLOCK``, ``BLOCK >> 1``, ``BLOCK << 1``, chained) covers ``BLOCK // 2``; the reading keeps that scale
(:attr:`OneBlock.reach`), so the guard compares the size with what the range covers, not with the block.
``BLOCK`` steps (and is no one-block parameter) when a loop header reads it (``range(0, n, BLOCK)``,
``tl.range``, ``tl.static_range``, ``range(tl.cdiv(n, BLOCK))``), when it multiplies a loop variable or a
program id (``c * BLOCK``, ``tl.program_id(0) * BLOCK``), when an offset is advanced by it (``start += BLOCK``),
or when ``tl.cdiv`` divides by it (``tl.cdiv(n, BLOCK)``). A one-block parameter whose comparison leaves no single
kernel parameter as the size (``offs < n_rows * n_cols``) is still one block; its size is ``None``: no guard can be
written for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import typing
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst

from kernelopt.tunables.signature import param_names, params_of

_LESS = (cst.LessThan, cst.LessThanEqual)
_GREATER = (cst.GreaterThan, cst.GreaterThanEqual)
_HINTS = ("multiple_of", "max_contiguous")  # compiler hints that return their first argument
T = TypeVar("T")
N = TypeVar("N", bound=cst.CSTNode)


#: how a range derived from a block scales it: (multiplier, divisor), the range ``block * mul // div`` long;
#: ``None`` where the length is computed from the block in a form not read (``tl.cdiv(BLOCK, 2)``)
Scale = tuple[int, int]
ONE: Scale = (1, 1)


def reach_of(scale: Scale | None, block: int) -> int | None:
    """The largest size one block of ``block`` covers through a range of ``scale``; ``None`` when not read."""
    return None if scale is None else block * scale[0] // scale[1]


def reach_text(scale: Scale | None, block: int) -> str:
    """:func:`reach_of` as the guard writes it, the block's value and the range's scale both in sight
    (``1024 // 2`` for a half-block range, ``256 * 2``, ``512`` for the block itself), so that the guard's test
    names the value it guards and is read as a guard by its form, comment or not
    (:func:`kernelopt.tunables.inline_guard.read_statement_guard`)."""
    mul, div = scale if scale is not None else ONE
    text = str(block) if mul == 1 else f"{block} * {mul}"
    return text if div == 1 else f"{text} // {div}"


def covers_as_before(scale: Scale | None, before: int, after: int) -> bool:
    """Whether a block moved from ``before`` to ``after`` still covers every size ``before`` covered: its range
    reaches as far; a range whose length is not read (``scale`` ``None``) only unmoved."""
    if scale is None:
        return after == before
    return after * scale[0] // scale[1] >= before * scale[0] // scale[1]


@dataclass(frozen=True)
class OneBlock:
    """A block parameter that covers a size with one block: the parameter, the kernel parameter it covers
    (``None``: the comparison names no single one), the comparison as written, and the scale of a range derived
    from the block (``HALF: tl.constexpr = BLOCK // 2`` gives (1, 2); the block itself (1, 1); ``None``: computed
    from the block in a form not read, so no other block is known to cover what it covered)."""

    block: str
    size: str | None
    test: str
    scale: Scale | None = ONE
    bound: cst.BaseExpression | None = field(default=None, compare=False)
    """The comparison's bound in the kernel's parameters where it is not ``size`` itself (``2 * n_pairs`` for
    ``cols < 2 * n_pairs``): what one block must reach; ``None`` where it is ``size``."""
    factors: tuple[str, ...] = ()
    """The other parameters the covering range is a product with: a loop ``for i in tl.static_range(CHUNKS)``
    over ``i * BLOCK + tl.arange(0, BLOCK)`` covers ``CHUNKS * BLOCK`` (v43); the block's reading names
    ``CHUNKS``, the count's names the block."""

    def reach(self, block: int) -> int | None:
        """The largest size one block of ``block`` covers (``block // 2`` for a half-block range)."""
        return reach_of(self.scale, block)

    def holds(self, before: int, after: int) -> bool:
        """Whether the block moved from ``before`` to ``after`` covers every size the original covered."""
        return covers_as_before(self.scale, before, after)

    @property
    def derived(self) -> str:
        """The range's length as a formula of the block, for a note (empty for the block itself)."""
        if self.scale is None:
            return f"a length computed from {self.block}"
        mul, div = self.scale
        if (mul, div) == ONE:
            return ""
        text = self.block if mul == 1 else f"{self.block} * {mul}"
        return text if div == 1 else f"{text} // {div}"


CHILDREN_KEPT = 2_000_000
"""Our choice: how many nodes' children :func:`child_nodes` keeps before it forgets them all (a kernel file's
tree is 5,000-30,000 nodes; the kept nodes stay alive, some tens of MB at most in a long-lived process such as
``kernelopt mcp``). About one node a character of source, so as many as the parse caches keep texts for
(:data:`kernelopt.tunables.syntax.CHARS_KEPT`): at 200,000, a 348 kB kernel.py of 10,000 functions (310,000 nodes)
forgot its children mid-analysis and listed each node's twice (8.4 CPU-s; 7.2 s kept; faults8, f15)."""
_CHILDREN: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = {}


def child_nodes(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """``node.children``, found once per node: libcst computes the property by rebuilding the node through a
    visitor on every access (its own comment calls it slow, to be cached if it is accessed often), and the
    analysis walks the same immutable trees again and again (a third of test_guard_forms' CPU was that property,
    2026-12-05). libcst's nodes compare and hash by identity, so a node that is kept here is the one asked for."""
    found = _CHILDREN.get(node)
    if found is None:
        if len(_CHILDREN) >= CHILDREN_KEPT:
            _CHILDREN.clear()
        found = _CHILDREN[node] = _children(node)
    return found


class _FieldOrder(cst.CSTVisitor):
    """The fields a node's class visits, in the order it visits them (its children's order), and no deeper."""

    def __init__(self) -> None:
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)


def _may_hold_nodes(annotation: object) -> bool:
    """Whether a field so annotated may hold a node (``Optional[Sequence[BaseFormattedStringContent]]``), not only a
    string or a flag (``Optional[str]``, ``Literal["*"]``: a ``Newline``'s ``value``, an ``Index``'s ``star``, which
    no visit passes); an annotation not read (a forward reference) may."""
    if isinstance(annotation, type):
        return issubclass(annotation, cst.CSTNode)
    if typing.get_origin(annotation) is typing.Literal:
        return False
    if isinstance(annotation, str | typing.ForwardRef):
        return True
    return any(_may_hold_nodes(a) for a in typing.get_args(annotation))


def _empty(value: object) -> bool:
    """Whether a node's field holds nothing a visit could pass: ``None``, ``MaybeSentinel`` or an empty sequence."""
    return value is None or isinstance(value, cst.MaybeSentinel) or (isinstance(value, tuple | list) and not value)


_FIELDS: dict[type, tuple[str, ...]] = {}  # a node class -> the fields it visits, in order (:func:`_children`)
_NODE_TYPES: set[type] = set()  # the classes of the children met so far, each a libcst node's


def _children(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """``node.children`` without libcst's price: the property rebuilds the node (a new node of its class, validated)
    to collect what its visit passes, half of a fresh tree's first walk (perf29 s81). Each class visits its fields in
    one fixed order (its generated ``_visit_and_replace_children`` is one constructor call whose arguments visit
    them, each field announced by ``on_visit_attribute`` whether empty or not, but for a few that skip an empty one:
    ``FormattedStringExpression``'s ``format_spec``), so that order is read once per class, from a node that leaves
    no field empty unannounced, and the children are those fields' nodes, a sequence's in its order: the property's
    answer. A value of a form no visit passes (not a node, a tuple or list of them, ``None`` or ``MaybeSentinel``)
    is left to the property."""
    kind = type(node)
    fields = _FIELDS.get(kind)
    if fields is None:
        order = _FieldOrder()
        node._visit_and_replace_children(order)
        fields = tuple(order.fields)
        if any(
            f.name not in fields and _empty(getattr(node, f.name)) and _may_hold_nodes(f.type)
            for f in dataclasses.fields(node)
        ):
            return tuple(node.children)  # a field this node left empty may be one its class visits only when set
        _FIELDS[kind] = fields
    out: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        held = type(value)
        if held is tuple or held is list:
            out.extend(value)
        elif held in _NODE_TYPES:
            out.append(value)
        elif value is None or held is cst.MaybeSentinel:
            continue
        elif issubclass(held, cst.CSTNode):
            _NODE_TYPES.add(held)
            out.append(value)
        else:
            return tuple(node.children)
    return tuple(out)


WALKED_KEPT = 2_000_000
"""Our choice: how many nodes the walks :func:`walk` keeps hold in all before it forgets them all (as many as
:data:`CHILDREN_KEPT`: a tuple of references each, some tens of MB at most)."""
_WALKED: dict[cst.CSTNode, tuple[cst.CSTNode, ...]] = {}
_walked_nodes = [0]  # the nodes the kept walks hold


def walk(node: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """The node and every node under it, depth first (in source order), found once per node: the rules walk the same
    kernel bodies and expressions again and again (1.8 million nodes yielded by this function's generator in one
    edit of breaker10's extend_attn, its largest cost, 2026-12-07)."""
    found = _WALKED.get(node)
    if found is None:
        out: list[cst.CSTNode] = []
        stack = [node]
        while stack:
            here = stack.pop()
            out.append(here)
            stack.extend(reversed(child_nodes(here)))
        found = tuple(out)
        if _walked_nodes[0] + len(found) > WALKED_KEPT:
            _WALKED.clear()
            _walked_nodes[0] = 0
        _WALKED[node] = found
        _walked_nodes[0] += len(found)
    return found


_TYPED: dict[tuple[cst.CSTNode, type | tuple[type, ...]], tuple[cst.CSTNode, ...]] = {}
_typed_nodes = [0]  # the nodes the kept lists hold
_OF_KIND: dict[type | tuple[type, ...], dict[type, bool]] = {}  # a kind -> whether each node class met is of it


def typed(node: cst.CSTNode, kind: type[N] | tuple[type[N], ...]) -> tuple[N, ...]:
    """The nodes of :func:`walk` (``node`` and every node under it, in source order) that are instances of ``kind``,
    found once per node and kind: the rules ask each kernel body for its calls, assignments and products again and
    again, and every ``isinstance`` on libcst's nodes goes through ``ABCMeta`` (27 million of them in 21 guarded
    edits of two kernels, a third of the guard's CPU under cProfile; perf27 s71). Kept as :func:`walk` keeps its
    walks, the trees immutable. Whether a node is of the kind is asked once per class (perf29 s83: a fresh tree's
    nodes each went through ``ABCMeta``'s check, a million a benchmark run; libcst registers no virtual subclass, so
    the class answers for every node of it)."""
    key = (node, kind)
    found = _TYPED.get(key)
    if found is None:
        of_kind = _OF_KIND.get(kind)
        if of_kind is None:
            of_kind = _OF_KIND[kind] = {}
        out = []
        for n in walk(node):
            held = type(n)
            hit = of_kind.get(held)
            if hit is None:
                hit = of_kind[held] = isinstance(n, kind)
            if hit:
                out.append(n)
        found = tuple(out)
        if _typed_nodes[0] + len(found) > WALKED_KEPT:
            _TYPED.clear()
            _typed_nodes[0] = 0
        _TYPED[key] = found
        _typed_nodes[0] += len(found) + 1
    return found  # type: ignore[return-value]


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """``node.visit(visitor)`` for a visitor that only reads: the same ``on_visit`` / ``on_leave`` calls in the same
    order (a node's children only where its ``on_visit`` is true), over the children :func:`child_nodes` keeps.
    libcst's own ``visit`` rebuilds every node it passes, a read-only visitor's included (its result is a new tree),
    and the analysis visits the same parsed trees again and again: 20 % of a tunables test's CPU (cProfile,
    2026-12-05). Per-field visits (``visit_If_body``) are not made: no visitor of kernelopt defines one."""
    if visitor.on_visit(node):
        for child in child_nodes(node):
            visit(child, visitor)
    visitor.on_leave(node)


def is_jit(fn: cst.FunctionDef) -> bool:
    """Whether ``fn`` is a Triton kernel: decorated ``jit``, ``autotune`` or ``heuristics`` (any spelling's last
    name)."""
    for d in fn.decorators:
        expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if dotted(expr).split(".")[-1] in ("jit", "autotune", "heuristics"):
            return True
    return False


def dotted(expr: cst.BaseExpression) -> str:
    """``a.b.c`` for a name or attribute chain; empty for anything else. Asked of every call and every node of many
    walks: the node's exact class is tested (libcst's ``Name`` and ``Attribute`` have no subclass), not through
    ``ABCMeta`` (perf29 s83)."""
    held = type(expr)
    if held is cst.Name:
        return expr.value  # type: ignore[attr-defined]
    if held is cst.Attribute:
        return f"{dotted(expr.value)}.{expr.attr.value}"  # type: ignore[attr-defined]
    return ""


def cdiv_args(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(size, tile) of ``triton.cdiv(size, tile)`` (``tl.cdiv``, any module's ``cdiv``; two positional arguments),
    a count of tiles rounded up; ``None`` for any other node."""
    if not (type(node) is cst.Call and dotted(node.func).split(".")[-1] == "cdiv" and len(node.args) == 2):
        return None
    if any(a.keyword is not None for a in node.args):
        return None
    return node.args[0].value, node.args[1].value


def ceil_args(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(size, tile) of ``math.ceil(size / tile)`` (or ``ceil`` imported by name): a count of tiles rounded up, as
    ``triton.cdiv`` counts them (newuser9 n46: a grid of ``math.ceil(n / 64)`` programs of a kernel without masks was
    read as no count at all, and ``BLOCK=1024`` was written plainly, past the end of ``n`` at 4160 elements)."""
    if not (
        type(node) is cst.Call  # asked of every node of many walks: the exact class, not ``ABCMeta`` (suite30 s111)
        and dotted(node.func).split(".")[-1] == "ceil"
        and len(node.args) == 1
        and node.args[0].keyword is None
        and node.args[0].star == ""
    ):
        return None
    ratio = node.args[0].value
    if isinstance(ratio, cst.BinaryOperation) and isinstance(ratio.operator, cst.Divide):
        return ratio.left.with_changes(lpar=[], rpar=[]), ratio.right
    return None


def ceil_count(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(size, tile) of a count of tiles rounded up written as a call, :func:`cdiv_args` or :func:`ceil_args`: the
    one reading of those calls for every rule of tunables (the guard's grids and loops, a tile's growth, a group's
    count, a block a loop steps by, a literal's partners). The floor spellings (``(size + tile - 1) // tile``) are
    the guard's (:func:`kernelopt.tunables.guard._ceil_floors`)."""
    return cdiv_args(node) or ceil_args(node)


def call_args(call: cst.Call, names: Iterable[str]) -> dict[str, cst.BaseExpression]:
    """``call``'s arguments by parameter name: its positional ones named in the order of ``names`` (the callee's
    parameters), its keyword ones by their keyword (``tl.make_block_ptr``'s, ``tl.make_tensor_descriptor``'s)."""
    return named_args(call.args, names)


def named_args(args: Sequence[cst.Arg], names: Iterable[str]) -> dict[str, cst.BaseExpression]:
    """The arguments ``args`` of a call by parameter name, as :func:`call_args` reads them (a launch's, a helper's
    call's, a partial's bound ones): the one mapping of a call's arguments to the callee's parameters ``names``."""
    named = {k: a.value for k, a in zip(names, args, strict=False) if a.keyword is None}
    return named | {a.keyword.value: a.value for a in args if a.keyword is not None}


#: Wrappers a kernel is launched through as ``wrapper(kernel)[grid](...)``: torch's, so that ``torch.compile``
#: traces the launch (``torch.library.wrap_triton``, before torch 2.6 ``capture_triton``).
LAUNCH_WRAPPERS = frozenset({"wrap_triton", "capture_triton"})


def launched(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The kernel a launch's subscripted value names: ``kernel`` itself, or the kernel a launch wrapper is given
    (``torch.library.wrap_triton(kernel)`` -> ``kernel``)."""
    if (
        isinstance(expr, cst.Call)
        and dotted(expr.func).split(".")[-1] in LAUNCH_WRAPPERS
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
    ):
        return expr.args[0].value
    return expr


_NAMES: dict[cst.CSTNode, frozenset[str]] = {}


def _names_outside_counts(expr: cst.CSTNode, block: str) -> frozenset[str]:
    """:func:`_names` of ``expr`` less what it reads inside a ``tl.cdiv(X, block)`` / ``triton.cdiv(X, block)`` (the
    count of ``block``'s tiles over ``X``; ``block`` itself kept)."""
    if isinstance(expr, cst.Call) and dotted(expr.func).split(".")[-1] == "cdiv":
        args = [a.value for a in expr.args if a.keyword is None and not a.star]
        if len(args) == 2 and isinstance(args[1], cst.Name) and args[1].value == block:
            return frozenset((block,))
    if isinstance(expr, cst.Name | cst.Attribute) or block not in _names(expr):
        return _names(expr)
    return frozenset().union(*(_names_outside_counts(c, block) for c in child_nodes(expr)))


def _names(expr: cst.CSTNode) -> frozenset[str]:
    """The variable names an expression reads (the module of ``tl.arange`` included; not attribute names), found once
    per node as :func:`child_nodes` finds its children: the rule asks again and again for the same expressions of the
    same immutable trees (every local's value at each read of a name, each block at each node of the bodies), 1.85
    million calls for 77,000 expressions in one edit of breaker10's extend_attn, a quarter of its CPU (2026-12-07)."""
    found = _NAMES.get(expr)
    if found is None:
        if isinstance(expr, cst.Name):
            found = frozenset((expr.value,))
        elif isinstance(expr, cst.Attribute):
            found = _names(expr.value)
        else:
            found = frozenset().union(*(_names(c) for c in child_nodes(expr)))
        if len(_NAMES) >= CHILDREN_KEPT:
            _NAMES.clear()
        _NAMES[expr] = found
    return found


def _calls(expr: cst.CSTNode, name: str) -> list[cst.Call]:
    """The calls of ``name`` (``tl.arange``, ``triton.language.arange``, ``arange``: the last dotted part) in
    ``expr``."""
    return [n for n in typed(expr, cst.Call) if dotted(n.func).split(".")[-1] == name]


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` without the ``tl.constexpr(...)`` it may be wrapped in."""
    if isinstance(expr, cst.Call) and dotted(expr.func).split(".")[-1] == "constexpr" and len(expr.args) == 1:
        return expr.args[0].value
    return expr


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


#: The statements :meth:`_Kernel.add` reads (a local's values, a loop's variables).
_BINDS = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)


#: The nodes whose ``target`` binds names (:func:`_names_bound`).
_TARGETED = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.CompFor)
NAMES_BOUND_KEPT = 4096
"""Our choice: how many bodies' names :func:`_names_bound` keeps before it forgets them all (one a kernel body or
helper read; the bodies are those :func:`walk` keeps alive already)."""
_NAMES_BOUND: dict[cst.CSTNode, frozenset[str]] = {}


def _names_bound(code: cst.CSTNode) -> frozenset[str]:
    """The names ``code`` binds: an assignment's, a loop's, a walrus's or a comprehension's targets, a function's
    parameters (a helper's body read at a call). Found once per node, through :func:`typed`: every rule that reads a
    kernel body (:class:`_Kernel`) asked it of the same bodies again, each time a walk with an ``isinstance``
    through ``ABCMeta`` per node, and twice per body read (suite30 s110: 606 walks of 303 bodies in
    test_wrongkernel30's 81 guarded edits). Kept as :func:`walk` keeps its walks, the trees immutable."""
    found = _NAMES_BOUND.get(code)
    if found is None:
        targets = (n.value for node in typed(code, _TARGETED) for n in typed(node.target, cst.Name))
        found = frozenset(targets) | {p.name.value for p in typed(code, cst.Param)}
        if len(_NAMES_BOUND) >= NAMES_BOUND_KEPT:
            _NAMES_BOUND.clear()
        _NAMES_BOUND[code] = found
    return found


class _Kernel:
    """What the rule reads of one kernel body: the local assignments (in order, control flow ignored) and the
    loop variables."""

    def __init__(self, kernel: cst.FunctionDef, fixed: Collection[str] | None = None) -> None:
        self.params = set(param_names(kernel))
        self.body = kernel.body
        # every name the kernel binds (its parameters, its locals, a loop's or a walrus's, and a helper's read at a
        # call: :meth:`add`, :meth:`bind`): any other it reads is the module's (review27 r77, :meth:`_Lanes.lane`)
        self.bound = set(self.params)  # :meth:`add` of the body below adds the names it binds
        # what :meth:`spans` found of a name, by the names it was reached through that it can reach again: the
        # same locals are read once per index of every access (perf27: 38 million calls in 24 guarded edits);
        # forgotten whenever :attr:`values` changes (:meth:`bind`, :meth:`add`, a new dict)
        self._spans_kept: dict[tuple[str, frozenset[str]], dict[str, Scale | None]] = {}
        self._reach_kept: dict[str, frozenset[str]] = {}
        self._values: dict[str, list[cst.BaseExpression]] = {}
        self.loop_vars: set[str] = set()
        # a loop variable counting to a fixed number (``for i in tl.static_range(CHUNKS)``, ``CHUNKS`` in ``fixed``
        # or a literal) -> that count; read only where ``fixed`` is given (:func:`one_block`)
        self.counted: dict[str, cst.BaseExpression] = {}
        self.fixed = fixed
        self.bodies: list[cst.CSTNode] = []  # the body, then each helper's body read at a call
        # a setting the body holds itself, ``RBLOCK: tl.constexpr = 64`` at its top level (Inductor's persistent
        # reductions, SGLang's ``BLOCK_SIZE: tl.constexpr = 512``): a block as a parameter is (breaker13)
        self.held = body_constexprs(kernel)
        self.inlined: dict[cst.Call, cst.BaseSuite] = {}  # a helper's call -> its body there (:class:`_Accesses`)
        self.stepped: dict[str, bool] = {}  # :meth:`steps` of each block read, until a body is added
        self.add(kernel.body)

    @property
    def values(self) -> dict[str, list[cst.BaseExpression]]:
        """Each local's assigned values, in order (control flow ignored); changed only through :meth:`bind` or by
        setting a new dict, so what :meth:`spans` keeps is never stale."""
        return self._values

    @values.setter
    def values(self, values: dict[str, list[cst.BaseExpression]]) -> None:
        self._values = values
        self._forget()

    def bind(self, name: str, value: cst.BaseExpression) -> None:
        """Read ``value`` as assigned to the local ``name`` (after its earlier values)."""
        self._values.setdefault(name, []).append(value)
        self.bound.add(name)
        self._forget()

    def _forget(self) -> None:
        self._spans_kept.clear()
        self._reach_kept.clear()

    def add(self, code: cst.CSTNode) -> None:
        """Read the local assignments and loop variables of ``code``: the body, or a helper's body taken at a
        call (:class:`_Accesses`)."""
        self.bodies.append(code)
        self.bound |= _names_bound(code)
        self.stepped.clear()
        for node in typed(code, _BINDS):
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    for name, value in _unpacked(t.target, node.value):
                        self.bind(name, value)
            elif isinstance(node, cst.AugAssign | cst.AnnAssign) and isinstance(node.target, cst.Name):
                if node.value is not None:
                    self.bind(node.target.value, node.value)
            elif isinstance(node, cst.For):
                count = self._fixed_count(node)
                for name in _names(node.target):
                    if count is not None and name not in self.loop_vars:
                        self.counted[name] = count
                    else:
                        self.counted.pop(name, None)  # bound by another loop too: not read as counted
                self.loop_vars |= _names(node.target)

    def _fixed_count(self, loop: cst.For) -> cst.BaseExpression | None:
        """The count of ``range(C)`` / ``tl.range(C)`` / ``tl.static_range(C)`` (or from a literal 0) when ``C``
        is an integer literal or a name in :attr:`fixed`; ``None`` otherwise, or where ``fixed`` is not given."""
        if self.fixed is None or not isinstance(loop.iter, cst.Call) or not isinstance(loop.target, cst.Name):
            return None
        name = dotted(loop.iter.func)
        if name != "range" and name.split(".")[-1] not in ("range", "static_range"):
            return None
        args = [a.value for a in loop.iter.args if a.keyword is None and not a.star]
        if len(args) == 2 and isinstance(args[0], cst.Integer) and args[0].evaluated_value == 0:
            args = args[1:]
        if len(args) != 1:
            return None
        count = _bare(args[0])
        fixed = isinstance(count, cst.Integer) or (isinstance(count, cst.Name) and count.value in self.fixed)
        return count if fixed else None

    def counts(self, expr: cst.CSTNode, block: str) -> list[cst.BaseExpression]:
        """The fixed counts (:attr:`counted`) whose loop variable multiplies ``block`` in the index ``expr``
        (``i * BLOCK``), through its local assignments."""
        nodes = [expr, *(v for name in self.reads(expr) for v in self.values.get(name, []))]
        out: list[cst.BaseExpression] = []
        for root in nodes:
            for node in walk(root):
                if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
                    continue
                for one, other in ((node.left, node.right), (node.right, node.left)):
                    if block in self.named(one) and not self.ranges(one):
                        out += [self.counted[v] for v in sorted(self.reads(other) & set(self.counted))]
        return out

    def resolved(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """``expr`` with a local bound once followed to its value, again while the value is such a local (``n =
        n_cols``), its parentheses dropped."""
        seen: set[str] = set()
        while isinstance(expr, cst.Name) and expr.value not in self.params and expr.value not in seen:
            values = self.values.get(expr.value, [])
            if len(values) != 1:
                break
            seen.add(expr.value)
            expr = values[0]
        return expr.with_changes(lpar=[], rpar=[]) if hasattr(expr, "lpar") else expr

    def reads(self, expr: cst.CSTNode, outside_counts_of: str | None = None) -> set[str]:
        """Every name ``expr`` reads, through the local assignments of the names it reads; with
        ``outside_counts_of=BLOCK``, not the names read only inside a count of that block's tiles
        (``tl.cdiv(V, BLOCK)``: :func:`_names_outside_counts`)."""

        def named(e: cst.CSTNode) -> frozenset[str]:
            return _names(e) if outside_counts_of is None else _names_outside_counts(e, outside_counts_of)

        seen: set[str] = set()
        todo = list(named(expr))
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for value in self.values.get(name, []):
                todo += named(value)
        return seen

    def ranges(self, expr: cst.CSTNode) -> set[str]:
        """The block parameters whose ``tl.arange(0, BLOCK)`` the index ``expr`` is built from (:meth:`spans`)."""
        return set(self.spans(expr))

    def spans(self, expr: cst.CSTNode, seen: frozenset[str] = frozenset()) -> dict[str, Scale | None]:
        """Block parameter -> the scale of its range, for each ``tl.arange(0, BLOCK)`` the index ``expr`` is built
        from: through arithmetic, subscripts (``[None, :]``), the hints ``tl.multiple_of`` / ``tl.max_contiguous``
        and local assignments, not through any other call (a value loaded at the offsets is data, not an index).
        The range's length may be derived from the block (:meth:`derived`)."""
        return dict(self._spans(expr, seen))

    def _spans(self, expr: cst.CSTNode, seen: frozenset[str]) -> dict[str, Scale | None]:
        """:meth:`spans`, its result not to be changed: a local's is kept (``_spans_kept``) by the names it was
        reached through that its values read again (:meth:`_reach`), the only ones that can cut its walk."""
        if isinstance(expr, cst.Name):
            if expr.value in seen:
                return {}
            key = (expr.value, seen & self._reach(expr.value))
            kept = self._spans_kept.get(key)
            if kept is not None:
                return kept
            inner = seen | {expr.value}
            out: dict[str, Scale | None] = {}
            for v in self.values.get(expr.value, []):
                for block, scale in self._spans(v, inner).items():
                    out.setdefault(block, scale)
            self._spans_kept[key] = out
            return out
        if isinstance(expr, cst.Call):
            name = dotted(expr.func).split(".")[-1]
            args = [a.value for a in expr.args if a.keyword is None and not a.star]
            if name == "arange":
                first = args[0] if len(args) == 2 else None
                zero = isinstance(first, cst.Integer) and first.evaluated_value == 0
                derived = self.derived(args[1]) if zero else None
                return dict([derived]) if derived is not None else {}
            if name in _HINTS and args:
                return self._spans(args[0], seen)
            return {}
        if isinstance(expr, cst.Attribute):
            return {}
        out = {}
        for c in child_nodes(expr):
            for block, scale in self._spans(c, seen).items():
                out.setdefault(block, scale)
        return out

    def _reach(self, name: str) -> frozenset[str]:
        """Every name the values of the local ``name`` read, through the values of those (``name`` itself where
        they read it again); kept until :attr:`values` changes."""
        found = self._reach_kept.get(name)
        if found is None:
            found = self._reach_kept[name] = frozenset().union(*(self.reads(v) for v in self.values.get(name, [])))
        return found

    def derived(self, expr: cst.BaseExpression, seen: frozenset[str] = frozenset()) -> tuple[str, Scale | None] | None:
        """The block parameter a range's length ``expr`` is, and its scale: the parameter itself, a global
        (``BLOCK = tl.constexpr(1024)`` at module level), or a local computed from one of them times, floor-divided
        by or shifted by an integer literal (``HALF: tl.constexpr = BLOCK // 2``; assigned in several branches, the
        smallest scale: the guard then holds in every branch). A length computed from one parameter in any other
        form (``tl.cdiv(BLOCK, 2)``) has the scale ``None``; ``None`` for a length that reads no parameter (a
        literal) or several."""
        expr = _bare(expr)
        if isinstance(expr, cst.Name):
            name = expr.value
            if name in self.params or name in self.held or name not in self.values:
                return name, ONE
            if name in seen:
                return None
            found = [self.derived(v, seen | {name}) for v in self.values[name]]
            blocks = {f[0] for f in found if f is not None}
            if len(blocks) == 1 and all(f is not None for f in found):
                scales = [f[1] for f in found if f is not None]
                if any(sc is None for sc in scales):
                    return blocks.pop(), None
                return blocks.pop(), min((sc for sc in scales if sc is not None), key=lambda sc: sc[0] / sc[1])
            return self._unread(expr)
        if not isinstance(expr, cst.BinaryOperation):
            return self._unread(expr)
        left, right = _bare(expr.left), _bare(expr.right)
        op = expr.operator
        if isinstance(op, cst.Multiply) and isinstance(left, cst.Integer):
            left, right = right, left
        k = int(right.evaluated_value) if isinstance(right, cst.Integer) else None
        inner = self.derived(left, seen) if k is not None and k > 0 else None
        if inner is None or k is None or inner[1] is None:
            return self._unread(expr)
        block, (mul, div) = inner
        if isinstance(op, cst.Multiply):
            return block, (mul * k, div)
        if isinstance(op, cst.FloorDivide):
            return block, (mul, div * k)
        if isinstance(op, cst.LeftShift):
            return block, (mul << k, div)
        if isinstance(op, cst.RightShift):
            return block, (mul, div << k)
        return self._unread(expr)

    def _unread(self, expr: cst.BaseExpression) -> tuple[str, Scale | None] | None:
        """A length computed in a form not read: the one parameter it reads, scale unknown; ``None`` when it reads
        none (a literal) or several."""
        params = {n for n in self.reads(expr) if n in self.params}
        return (params.pop(), None) if len(params) == 1 else None

    def indexes(self, expr: cst.CSTNode, seen: frozenset[str] = frozenset()) -> set[str]:
        """The block parameters whose ``tl.arange(0, BLOCK)`` a pointer ``expr`` is indexed by (:meth:`spans`), less
        those wrapped into range by ``%`` (``(pid * BLOCK_M + tl.arange(0, BLOCK_M)) % M``, the Triton tutorial's
        GEMM: a wrapped index stays inside the size whatever the block)."""
        if isinstance(expr, cst.Name):
            if expr.value in seen:
                return set()
            inner = seen | {expr.value}
            return set().union(*(self.indexes(v, inner) for v in self.values.get(expr.value, [])))
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo):
            return set()
        if isinstance(expr, cst.Call):
            return set(self.spans(expr, seen)) & self.params
        if isinstance(expr, cst.Attribute):
            return set()
        return set().union(*(self.indexes(c, seen) for c in child_nodes(expr)))

    def moving(self, expr: cst.CSTNode) -> bool:
        """Whether ``expr`` reads a loop variable or a program id (directly or through local assignments); a loop
        variable counting to a fixed number (:attr:`counted`) does not move past that count times a block."""
        nodes = [expr, *(v for name in self.reads(expr) for v in self.values.get(name, []))]
        loops = self.loop_vars - set(self.counted)
        return bool(self.reads(expr) & loops) or any(_calls(n, "program_id") for n in nodes)

    def named(self, expr: cst.CSTNode) -> set[str]:
        """The names ``expr`` reads, with the block each local derived from one stands for (``HALF`` of
        ``HALF: tl.constexpr = BLOCK // 2`` reads ``BLOCK``)."""
        names = _names(expr)
        derived = [self.derived(cst.Name(n)) for n in names if n in self.values]
        return {*names, *(d[0] for d in derived if d is not None and d[1] is not None)}

    def steps(self, block: str) -> bool:
        """Whether something steps by ``block`` (see the module docstring); each block's read once."""
        if block not in self.stepped:
            self.stepped[block] = any(self._steps_at(node, block) for body in self.bodies for node in walk(body))
        return self.stepped[block]

    def _steps_at(self, node: cst.CSTNode, block: str) -> bool:
        if isinstance(node, cst.For):
            return block in self.reads(node.iter)  # range(0, n, BLOCK), tl.range, range(tl.cdiv(n, BLOCK))
        if isinstance(node, cst.While):
            return block in self.reads(node.test)
        if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign | cst.SubtractAssign):
            return block in self.named(node.value) and not self.ranges(node.value)  # start += BLOCK
        if (counted := cdiv_args(node)) is not None:
            return block in self.reads(counted[1])  # tl.cdiv(n, BLOCK); tl.cdiv(BLOCK, 3) divides the block itself
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            pairs = ((node.left, node.right), (node.right, node.left))
            return any(block in self.named(one) and not self.ranges(one) and self.moving(other) for one, other in pairs)
        return False

    def size(self, lhs: cst.BaseExpression, rhs: cst.BaseExpression, block: str) -> str | None:
        """The kernel parameter ``rhs`` compares the range ``lhs`` with: what ``rhs`` reads, less the offsets'
        base (what ``lhs`` reads), the block itself and names that are no parameter; ``None`` unless one is left.
        A size the base reads only as the count of the block's own tiles (``tl.cdiv(V, BV)``: fla's ``i_v = pid %
        NV`` with ``NV = tl.cdiv(V, BV)``, the program's tile along V) is no base: the range still tiles it
        (breaker23's q33)."""
        base = self.reads(lhs, outside_counts_of=block)
        left = {n for n in self.reads(rhs) - base - {block} if n in self.params and n not in self.values}
        return left.pop() if len(left) == 1 else None


KERNELS_KEPT = 64
"""Our choice: how many kernels' readings :func:`body_constexprs` and :func:`_read_only` keep before they forget them
all: a file holds a few kernels, and one reading of a file or an edit asks the same ones again and again; each kept
kernel keeps its tree alive (thousands of nodes), so a long-lived process (``kernelopt mcp``) keeps a few files'
worth."""
_HELD: dict[cst.FunctionDef, dict[str, cst.BaseExpression]] = {}
_READ_ONLY: dict[cst.FunctionDef, _Kernel] = {}


def _kept(cache: dict[cst.FunctionDef, T], kernel: cst.FunctionDef, read: Callable[[cst.FunctionDef], T]) -> T:
    """``read(kernel)``, found once per kernel node (libcst's nodes are immutable and hash by identity): the rules
    ask the same kernel again for each block and each launch (154 walks of extend_attn's body for its settings in one
    edit, 2026-12-07)."""
    found = cache.get(kernel)
    if found is None:
        if len(cache) >= KERNELS_KEPT:
            cache.clear()
        found = cache[kernel] = read(kernel)
    return found


CODES_KEPT = 4096
"""Our choice: how many nodes' source texts :func:`node_code` keeps, and how many answers :func:`_by_code` keeps, before
they forget them all (a text per kernel and helper of the files read lately; an answer is a few names)."""
_CODE: dict[cst.CSTNode, str] = {}
_BY_CODE: dict[tuple[object, ...], set[str]] = {}
_NO_MODULE = cst.Module([])


def node_code(node: cst.CSTNode) -> str:
    """``node``'s source text as libcst writes it, found once per node."""
    found = _CODE.get(node)
    if found is None:
        if len(_CODE) >= CODES_KEPT:
            _CODE.clear()
        found = _CODE[node] = _NO_MODULE.code_for_node(node)
    return found


def _by_code(
    reading: Callable[[], set[str]],
    name: str,
    kernel: cst.FunctionDef,
    helpers: Mapping[str, cst.FunctionDef] | None,
    *args: object,
    within: cst.CSTNode | None = None,
) -> set[str]:
    """``reading()``, a reading of ``kernel``'s accesses named ``name`` (its answer block names, no node), found once
    per text rather than per node: each edit the guard judges is a new parse, its kernels new nodes, though the edit
    moved a literal of a launch or a decorator and left their text as it was (tb_streamk's lane simulation,
    :meth:`_Lanes.spoiled`, ran once per edit and per rule, a quarter of the guard's CPU in the benchmark's 26 edits;
    perf29 s82). The answer depends on the kernel's text, on the text of the helpers it reads (those named in it,
    and in them, by a name: the only way a reading finds a helper, :class:`_Accesses` and :func:`_combines`), on
    ``args`` (hashable: the external names, the flags) and on ``within`` (a node of the kernel, by its place in
    :func:`walk`'s order): two calls alike in all of them get the same answer, an edited kernel or helper a new key.
    A copy is returned (the callers may change theirs)."""
    place = None if within is None else next(i for i, n in enumerate(walk(kernel)) if n is within)
    key = (name, node_code(kernel), _helper_codes(kernel, helpers or {}), args, place)
    found = _BY_CODE.get(key)
    if found is None:
        if len(_BY_CODE) >= CODES_KEPT:
            _BY_CODE.clear()
        found = _BY_CODE[key] = reading()
    return set(found)


def _helper_codes(kernel: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef]) -> tuple[tuple[str, str], ...]:
    """(name, text) of each of ``helpers`` named in ``kernel``, or in a helper so named, in the order of their names."""
    read: dict[str, str] = {}
    waiting = [kernel]
    while waiting:
        for name in _names(waiting.pop()):
            helper = helpers.get(name)
            if helper is not None and name not in read:
                read[name] = node_code(helper)
                waiting.append(helper)
    return tuple(sorted(read.items()))


def _read_only(kernel: cst.FunctionDef) -> _Kernel:
    """The reading of ``kernel``'s own body alone (no helper's added), for the rules that only ask it."""
    return _kept(_READ_ONLY, kernel, _Kernel)


def body_constexprs(kernel: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    """Name -> literal for each ``NAME: tl.constexpr = <int literal>`` at the top level of ``kernel``'s body that
    binds its name once: a setting the kernel holds itself, as a default of its signature is."""
    return dict(_kept(_HELD, kernel, _body_constexprs))


def _body_constexprs(kernel: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    found: dict[str, list[cst.BaseExpression]] = {}
    for node in walk(kernel.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                for name in _names(t.target):
                    found.setdefault(name, []).append(node.value)
        elif isinstance(node, cst.AugAssign | cst.AnnAssign) and isinstance(node.target, cst.Name):
            found.setdefault(node.target.value, []).append(node.value or node.target)
    out: dict[str, cst.BaseExpression] = {}
    for stmt in kernel.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        node = stmt.body[0]
        if not (isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name)):
            continue
        annotation = dotted(node.annotation.annotation).split(".")[-1]
        name = node.target.value
        if annotation == "constexpr" and isinstance(node.value, cst.Integer) and len(found.get(name, [])) == 1:
            out[name] = node.value
    return out


def steps_by(kernel: cst.FunctionDef, block: str) -> bool:
    """Whether something in ``kernel`` steps by its parameter ``block`` (a loop, its programs, an offset advanced
    by it; see the module docstring): then any block covers any size the kernel handles."""
    return _read_only(kernel).steps(block)


def programs_tiled_by(kernel: cst.FunctionDef, block: str) -> bool:
    """Whether ``kernel``'s programs step through the data by ``block``: a product of ``block`` with a value read
    from ``tl.program_id`` (directly or through local assignments, not a loop's variable), ``pid_m * BLOCK_M``.
    The launch's grid then counts the programs by the same block (Inductor's mm templates: ``BLOCK_M :
    tl.constexpr = 64`` bound in the body, the wrapper's grid computed from its own ``meta0["BLOCK_M"]``)."""
    body = _read_only(kernel)

    def from_program(expr: cst.CSTNode) -> bool:
        nodes = [expr, *(v for name in body.reads(expr) for v in body.values.get(name, []))]
        return any(_calls(n, "program_id") for n in nodes)

    for node in walk(kernel.body):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            for one, other in ((node.left, node.right), (node.right, node.left)):
                if block in body.named(one) and not body.ranges(one) and from_program(other):
                    return True
    return False


def one_block(
    kernel: cst.FunctionDef,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    external: Collection[str] = (),
    fixed: Collection[str] | None = None,
) -> list[OneBlock]:
    """Every block parameter of ``kernel`` that covers a size with one block, one entry a comparison (see the
    module docstring); ``[]`` when it has none. ``helpers``: the module's ``@triton.jit`` functions, whose bodies
    are read at the kernel's calls as its own (variants v14: a one-block row softmax whose masked load and store
    sit in helpers, ``_load_row(ptr, cols, n_cols)``). ``external``: names of functions imported from another
    module: a block whose range one is given and that nothing steps by may be a row it covers, its size not known
    (:attr:`OneBlock.size` ``None``: it moves only wider). ``fixed``: the parameters a launch gives a fixed
    number (a literal); a loop counting to one of them, or to a literal, over ``i * BLOCK`` covers that many blocks
    and no more (v43: :attr:`OneBlock.factors`); where ``None``, such a loop steps by the block, as before."""
    body = _Kernel(kernel, fixed)
    unread: list[cst.Call] = []
    if helpers or external:
        own = {k: v for k, v in (helpers or {}).items() if k != kernel.name.value}
        reader = _Accesses(body, own, external)
        reader.collect(kernel.body, (), kernel=kernel.name.value)
        unread = reader.unread
    out: list[OneBlock] = []
    for node, left, right in _bounds(*body.bodies):
        spans = body.spans(left)
        blocks = set(spans) - body.ranges(right)
        if not blocks or body.ranges(right):
            continue
        if not body.reads(right) - body.reads(left):
            continue  # a bound read from the offsets themselves, or a constant: no size
        for block in sorted(blocks):
            if not body.steps(block):
                test = _code(node.with_changes(lpar=[], rpar=[]))
                size, bound = body.size(left, right, block), None
                if size is not None:
                    exact = body.resolved(right)
                    shared = body.reads(right) & body.reads(left)  # ``offs < start + n``: a base on both sides
                    if not shared and not (isinstance(exact, cst.Name) and exact.value == size):
                        bound = exact if _arithmetic(exact, body.params) else None  # ``cols < 2 * n_pairs``
                        size = size if bound is not None else None
                counts, scale = body.counts(left, block), spans[block]
                named = tuple(_code(c) for c in counts if isinstance(c, cst.Name))
                for c in counts:  # a literal count widens the range's scale
                    if isinstance(c, cst.Integer) and scale is not None:
                        scale = (scale[0] * int(c.evaluated_value), scale[1])
                out.append(OneBlock(block, size, test, scale, bound, named))
                for i, count in enumerate(named):  # each count covers with the block and the other counts
                    out.append(OneBlock(count, size, test, scale, bound, (block, *named[:i], *named[i + 1 :])))
    out += _block_pointer_blocks(kernel, body) + _descriptor_blocks(kernel, body)
    for call in unread:  # a range handed to a function whose body is not here: maybe a row it covers
        for arg in call.args:
            for block, scale in body.spans(arg.value).items():
                if block in body.params and not body.steps(block):
                    out.append(OneBlock(block, None, f"{_code(call.func)}() is given a range of {block}", scale))
    return out


#: ``tl.make_block_ptr``'s arguments in order
BLOCK_PTR_ARGS = ("base", "shape", "strides", "offsets", "block_shape", "order")


def _block_pointer_blocks(kernel: cst.FunctionDef, body: _Kernel) -> list[OneBlock]:
    """The blocks of ``kernel``'s block pointers that cover a size in one block: an axis of
    ``tl.make_block_ptr(..., shape=(M, N), offsets=(pid * BLOCK_M, 0), block_shape=(BLOCK_M, BLOCK_N))`` whose offset
    is ``0``, whose block is a parameter nothing steps by, in a kernel that advances no block pointer
    (``tl.advance``): one block of ``BLOCK_N`` from the first column, so a smaller block leaves the rest of ``N``
    undone (variants v29, row sums over at most 128 columns). An axis ``tl.advance`` moves steps: each advance of
    a pointer the kernel names is read axis by axis (``w_blk = tl.advance(w_blk, (BLOCK_K, 0))`` moves axis 0 of
    ``w_blk`` and of what it was made from, not axis 1: variants v30, a small GEMM advanced along K with every
    output column in one block); an advance not read so (of a pointer not named, by offsets not a literal tuple)
    leaves no axis one block."""
    calls = typed(kernel.body, cst.Call)
    advanced = _advanced_axes(kernel)
    if advanced is None:
        return []
    out: list[OneBlock] = []
    for call in calls:
        if dotted(call.func).split(".")[-1] != "make_block_ptr":
            continue
        moved = advanced.get(_made_as(kernel, call), set())
        args = call_args(call, BLOCK_PTR_ARGS)
        shape, offsets, block = args.get("shape"), args.get("offsets"), args.get("block_shape")
        if not all(isinstance(t, cst.Tuple) for t in (shape, offsets, block)):
            continue
        axes = [e.value for e in shape.elements], [e.value for e in offsets.elements], [e.value for e in block.elements]  # type: ignore[union-attr]
        if len({len(a) for a in axes}) != 1:
            continue
        for axis, (size, offset, tile) in enumerate(zip(*axes, strict=True)):
            if not (isinstance(size, cst.Name) and isinstance(tile, cst.Name) and isinstance(offset, cst.Integer)):
                continue
            if int(offset.evaluated_value) != 0 or tile.value not in body.params or size.value not in body.params:
                continue
            if axis in moved:
                continue
            if body.steps(tile.value):
                continue
            test = f"block pointer axis {axis} at offset 0: {tile.value} over {size.value}"
            out.append(OneBlock(tile.value, size.value, test))
    return out


#: ``tl.make_tensor_descriptor``'s arguments in order
DESCRIPTOR_ARGS = ("base", "shape", "strides", "block_shape")


def _descriptor_blocks(kernel: cst.FunctionDef, body: _Kernel) -> list[OneBlock]:
    """The blocks of ``kernel``'s tensor descriptors that cover a size in one block: ``desc =
    tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])`` whose every
    ``desc.load(offsets)`` / ``desc.store(offsets, v)`` (or ``tl.load_tensor_descriptor(desc, offsets)``) is at
    offset ``0`` on an axis whose block is a parameter nothing steps by: one block of ``BLOCK_N`` from the first
    column, the rest of ``N`` never read (variants v31, v29's row sums through a descriptor). A descriptor reads
    and writes out of bounds as zeros, so its blocks need no divisor; a descriptor given to anything else (a
    helper, a host-made one) is not read."""
    out: list[OneBlock] = []
    for node in typed(kernel.body, cst.Assign):
        if not (len(node.targets) == 1 and isinstance(node.value, cst.Call)):
            continue
        target, call = node.targets[0].target, node.value
        if not isinstance(target, cst.Name) or dotted(call.func).split(".")[-1] != "make_tensor_descriptor":
            continue
        args = call_args(call, DESCRIPTOR_ARGS)
        shape, block = args.get("shape"), args.get("block_shape")
        if not (isinstance(shape, cst.Tuple | cst.List) and isinstance(block, cst.Tuple | cst.List)):
            continue
        offsets = _descriptor_offsets(kernel, target.value)
        if not offsets:
            continue
        for axis, (size, tile) in enumerate(zip(shape.elements, block.elements, strict=False)):
            size_name, tile_name = size.value, tile.value
            if not (isinstance(size_name, cst.Name) and isinstance(tile_name, cst.Name)):
                continue
            if tile_name.value not in body.params or size_name.value not in body.params:
                continue
            if not all(axis < len(o) and _zero(o[axis]) for o in offsets):
                continue
            if body.steps(tile_name.value):
                continue
            test = f"tensor descriptor {target.value} axis {axis} at offset 0: {tile_name.value} over {size_name.value}"
            out.append(OneBlock(tile_name.value, size_name.value, test))
    return out


def _zero(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Integer) and int(expr.evaluated_value) == 0


def _descriptor_offsets(kernel: cst.FunctionDef, desc: str) -> list[list[cst.BaseExpression]]:
    """The offsets of every access ``kernel`` makes through the descriptor named ``desc``, each a list by axis;
    ``[]`` when one is not read so (offsets not a literal list, the descriptor used otherwise: handed to a call,
    bound again)."""
    out: list[list[cst.BaseExpression]] = []
    uses = 0
    for node in typed(kernel.body, (cst.Name, cst.Call)):
        if isinstance(node, cst.Name) and node.value == desc:
            uses += 1
        if not isinstance(node, cst.Call):
            continue
        name = dotted(node.func)
        if name in (f"{desc}.load", f"{desc}.store") and node.args:
            where = node.args[0].value
        elif name.split(".")[-1] in ("load_tensor_descriptor", "store_tensor_descriptor") and len(node.args) > 1:
            first = node.args[0].value
            if not (isinstance(first, cst.Name) and first.value == desc):
                continue
            where = node.args[1].value
        else:
            continue
        if not isinstance(where, cst.Tuple | cst.List):
            return []
        out.append([e.value for e in where.elements])
    return out if uses == len(out) + 1 else []  # its binding and one use an access: nothing else reads it


def _made_as(kernel: cst.FunctionDef, call: cst.Call) -> str | None:
    """The name ``kernel`` binds the block pointer ``call`` makes to (``x_blk = tl.make_block_ptr(...)``);
    ``None`` where it binds none (made inside a load)."""
    for node in typed(kernel.body, cst.Assign):
        if node.value is call and len(node.targets) == 1:
            target = node.targets[0].target
            return target.value if isinstance(target, cst.Name) else None
    return None


def _advanced_axes(kernel: cst.FunctionDef) -> dict[str | None, set[int]] | None:
    """The axes ``tl.advance`` moves in ``kernel``, by the name of the block pointer first made
    (``w_blk = tl.advance(w_blk, (BLOCK_K, 0))``: ``{"w_blk": {0}}``; ``w2 = tl.advance(w_blk, ..)`` counts for
    ``w_blk``); ``None`` when an advance is not read so (its pointer not a name, its offsets not a literal tuple):
    then any axis may move."""
    advances = [n for n in typed(kernel.body, cst.Call) if dotted(n.func).split(".")[-1] == "advance"]
    origin: dict[str, str] = {}  # ``q = tl.advance(p, ..)``: q's moves are p's
    for node in typed(kernel.body, cst.Assign):
        if len(node.targets) == 1 and node.value in advances:
            target, first = node.targets[0].target, node.value.args[0].value  # type: ignore[attr-defined]
            if isinstance(target, cst.Name) and isinstance(first, cst.Name) and target.value != first.value:
                origin[target.value] = first.value
    out: dict[str | None, set[int]] = {}
    for node in advances:
        pointer = node.args[0].value if node.args else None
        offsets = node.args[1].value if len(node.args) > 1 else None
        if not isinstance(pointer, cst.Name) or not isinstance(offsets, cst.Tuple | cst.List):
            return None
        root, seen = pointer.value, set()
        while root in origin and root not in seen:
            seen.add(root)
            root = origin[root]
        zero = [isinstance(e.value, cst.Integer) and int(e.value.evaluated_value) == 0 for e in offsets.elements]
        out.setdefault(root, set()).update(axis for axis, z in enumerate(zero) if not z)
    return out


def _unpacked(
    target: cst.BaseAssignTargetExpression, value: cst.BaseExpression
) -> list[tuple[str, cst.BaseExpression]]:
    """(name, value) of each name an assignment binds: ``x = v`` one; ``pid_m, pid_n = tl.program_id(0),
    tl.program_id(1)`` each its element (a tuple of as many elements, parenthesized or not); a name of another
    unpacking (``a, b = f()``) none, its value not known."""
    if isinstance(target, cst.Name):
        return [(target.value, value)]
    tuples = isinstance(target, cst.Tuple | cst.List) and isinstance(value, cst.Tuple | cst.List)
    if tuples and len(target.elements) == len(value.elements):  # type: ignore[union-attr]
        pairs = zip(target.elements, value.elements, strict=True)  # type: ignore[union-attr]
        return [pair for t, v in pairs for pair in _unpacked(t.value, v.value)]
    return []


def _bounds(*roots: cst.CSTNode) -> Iterator[tuple[cst.Comparison, cst.BaseExpression, cst.BaseExpression]]:
    """Each single comparison under ``roots`` (in order, each in source order) read as ``left < right`` (``n_cols >
    cols`` turned around): (node, left, right); ``==`` and the like left out. Its comparisons are :func:`typed`'s,
    not a walk testing every node's type per call (perf28)."""
    for node in (n for root in roots for n in typed(root, cst.Comparison)):
        if len(node.comparisons) != 1:
            continue
        op, left, right = node.comparisons[0].operator, node.left, node.comparisons[0].comparator
        if isinstance(op, _GREATER):
            yield node, right, left
        elif isinstance(op, _LESS):
            yield node, left, right


def compared_sizes(kernel: cst.FunctionDef) -> dict[str, set[str]]:
    """Block parameter -> the kernel parameters a range of it is compared with (``rm[:, None] < M`` gives
    ``BLOCK_M`` -> ``{"M"}``): the size each block tiles, as the kernel's own masks say."""
    body = _read_only(kernel)
    out: dict[str, set[str]] = {}
    for _node, left, right in _bounds(kernel.body):
        for block in body.ranges(left) - body.ranges(right):
            size = body.size(left, right, block)
            if size is not None:
                out.setdefault(block, set()).add(size)
    return out


def compared_names(kernel: cst.FunctionDef) -> dict[str, set[str]]:
    """Block parameter -> every kernel parameter a comparison with a range of it names on its other side
    (``rn[None, :] < N`` gives ``BLOCK_N`` -> ``{"N"}`` even where ``rn``'s base reads ``N`` too, which
    :func:`compared_sizes` leaves out: a program mapped to its tile through ``tl.cdiv(N, 64)``, v45)."""
    body = _read_only(kernel)
    out: dict[str, set[str]] = {}
    for _node, left, right in _bounds(kernel.body):
        for block in body.ranges(left) - body.ranges(right):
            named = {n for n in _names(right) if n in body.params and n != block}
            out.setdefault(block, set()).update(named)
    return out


def _arithmetic(expr: cst.BaseExpression, params: Collection[str]) -> bool:
    """Whether ``expr`` is integer arithmetic (``+``, ``-``, ``*``, ``//``) of integer literals and the names
    ``params``: a bound a launch's arguments can be put into."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in params
    if isinstance(expr, cst.BinaryOperation) and isinstance(
        expr.operator, cst.Add | cst.Subtract | cst.Multiply | cst.FloorDivide
    ):
        return _arithmetic(expr.left, params) and _arithmetic(expr.right, params)
    return False


def _accesses(node: cst.CSTNode, params: set[str]) -> Iterator[cst.Call]:
    """The ``tl.load`` / ``tl.store`` calls under ``node``, outside a branch on a flag the launch passes (``if
    EVEN_K:``: the fast path taken only where the flag says the block divides)."""
    for call in _calls_outside_flags(node, params):
        if dotted(call.func).split(".")[-1] in ("load", "store"):
            yield call


_OUTSIDE: dict[tuple[cst.CSTNode, frozenset[str]], tuple[cst.Call, ...]] = {}
_outside_nodes = [0]  # the calls the kept lists hold


def _calls_outside_flags(node: cst.CSTNode, params: Collection[str]) -> tuple[cst.Call, ...]:
    """Every call under ``node``, outside a branch taken only where a flag the launch passes holds (see
    :func:`_accesses`, :func:`_fast_branch`), in source order; found once per node and flags (the tree immutable,
    the flags read only by membership), as :func:`typed` keeps its lists: each guarded edit read one kernel's
    calls again per rule (perf27 s72: 628,000 recursive calls in 21 edits)."""
    key = (node, frozenset(params))
    found = _OUTSIDE.get(key)
    if found is None:
        found = tuple(_walk_calls_outside(node, key[1]))
        if _outside_nodes[0] + len(found) > WALKED_KEPT:
            _OUTSIDE.clear()
            _outside_nodes[0] = 0
        _OUTSIDE[key] = found
        _outside_nodes[0] += len(found) + 1
    return found


def _walk_calls_outside(node: cst.CSTNode, flags: frozenset[str]) -> Iterator[cst.Call]:
    if isinstance(node, cst.Call):
        yield node
    fast = _fast_branch(node, flags)
    for child in child_nodes(node):
        if child is not fast:
            yield from _walk_calls_outside(child, flags)


#: How deep helpers calling helpers are followed (a helper calling itself, or a chain deeper than this, is read
#: as an access kernelopt cannot read: every block it is given a range of is unchecked)
HELPER_DEPTH = 4


class _Inline(cst.CSTTransformer):
    """A ``@triton.jit`` helper's body as the kernel's own code at one call: its parameters replaced by the
    arguments of the call, its locals renamed apart (``__h3_offs``), attribute names and keywords left alone."""

    def __init__(self, given: dict[str, cst.BaseExpression], local: set[str], tag: str) -> None:
        super().__init__()
        self.given, self.local, self.tag = given, local, tag

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        name = original_node.value
        if name in self.given:
            return self.given[name]
        return cst.Name(f"__{self.tag}_{name}") if name in self.local else updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        return updated_node.with_changes(keyword=original_node.keyword)


def _bound_names(fn: cst.FunctionDef) -> set[str]:
    """The names a function's body binds (assignments, loop targets, ``with ... as``): its locals."""
    out: set[str] = set()
    for node in walk(fn.body):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                out |= {n.value for n in walk(t.target) if isinstance(n, cst.Name)}
        elif isinstance(node, cst.AugAssign | cst.AnnAssign) and isinstance(node.target, cst.Name):
            out.add(node.target.value)
        elif isinstance(node, cst.For):
            out |= {n.value for n in walk(node.target) if isinstance(n, cst.Name)}
    return out


def _given(call: cst.Call, helper: cst.FunctionDef) -> dict[str, cst.BaseExpression] | None:
    """Helper parameter -> what ``call`` passes it (a default where it passes nothing); ``None`` for a call that
    cannot be read (a ``*`` argument)."""
    if any(a.star for a in call.args):
        return None
    given = call_args(call, param_names(helper))
    for p in params_of(helper, kwonly=True):
        if p.name.value not in given and p.default is not None:
            given[p.name.value] = p.default
    return given


class _Accesses:
    """The loads and stores of a kernel at a node of it (the body, or a loop's), with those of the
    ``@triton.jit`` helpers it calls there read as its own: each helper's body taken at its call, its parameters
    replaced by the call's arguments (:class:`_Inline`), its local assignments added to the kernel's
    (:attr:`_Kernel.values`), through helpers calling helpers. A call of a helper kernelopt cannot read (a ``*``
    argument, deeper than :data:`HELPER_DEPTH`) or of a function not in ``helpers`` that takes an index (a
    helper imported from another module, its body not in this file) is kept in :attr:`unread`: every block it is
    given a range of is read as unchecked."""

    def __init__(self, body: _Kernel, helpers: Mapping[str, cst.FunctionDef], external: Collection[str]) -> None:
        self.body, self.helpers, self.external = body, helpers, external
        self.calls: list[cst.Call] = []
        self.unread: list[cst.Call] = []
        self._count = 0

    def collect(self, node: cst.CSTNode, params: Collection[str], depth: int = 0, kernel: str = "") -> None:
        for call in _calls_outside_flags(node, params):
            name = dotted(call.func)
            helper = self.helpers.get(name) if isinstance(call.func, cst.Name) else None
            if helper is None:
                if name.split(".")[-1] in ("load", "store"):
                    self.calls.append(call)
                elif name.split(".")[0] in self.external:
                    self.unread.append(call)
                continue
            given = _given(call, helper)
            if given is None or depth >= HELPER_DEPTH or helper.name.value == kernel:
                self.unread.append(call)
                continue
            self._count += 1
            tag = f"h{self._count}"
            local = _bound_names(helper)  # a parameter the helper rebinds is a local first bound to the argument
            for name in local & set(given):
                self.body.bind(f"__{tag}_{name}", given.pop(name))
            inlined = cst.ensure_type(helper.body.visit(_Inline(given, local, tag)), cst.BaseSuite)
            self.body.add(inlined)
            self.body.inlined[call] = inlined
            self.collect(inlined, params, depth + 1, helper.name.value)


def reached_accesses(
    kernel: cst.FunctionDef,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    external: Collection[str] = (),
) -> tuple[list[cst.Call], list[cst.Call]]:
    """Every ``tl.load`` / ``tl.store`` ``kernel`` reaches, its own and those of the ``@triton.jit`` ``helpers`` it
    calls (read at their calls, :class:`_Accesses`), and the calls it makes that kernelopt cannot read (a helper
    imported from another module, ``external``; a helper past :data:`HELPER_DEPTH`): (accesses, unread calls)."""
    body = _Kernel(kernel)
    reader = _Accesses(body, {k: v for k, v in (helpers or {}).items() if k != kernel.name.value}, external)
    reader.collect(kernel.body, (), kernel=kernel.name.value)
    return reader.calls, reader.unread


def unchecked_blocks(
    kernel: cst.FunctionDef,
    within: cst.CSTNode | None = None,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    external: Collection[str] = (),
    flags: Collection[str] | None = None,
) -> set[str]:
    """The block parameters of a kernel with masks that one of its accesses leaves unchecked: a ``tl.load`` or
    ``tl.store`` whose pointer is indexed by ``tl.arange(0, BLOCK)`` (:meth:`_Kernel.indexes`) and whose mask reads
    no range of ``BLOCK`` (a GEMM whose K loads check only the rows, a tile kernel checking only ``offs_m < M``:
    the author knows the other size divides). Such a block covers its size only in whole blocks, as every block
    of a kernel without masks does; a block checked by one access and not by another is unchecked. A
    block-pointer access (``boundary_check``) and one kernelopt cannot read (a ``*`` argument) are left to their
    own rules. ``within``: only the accesses under this node of the kernel (a loop's body). ``helpers``: the
    module's ``@triton.jit`` functions, whose accesses at a call are read as the kernel's own (variants v8: a
    store in a helper checking the rows only, beside a load the kernel checks on both axes). ``external``: names
    of functions imported from another module (their bodies not here): a block whose range one is given is
    unchecked. ``flags``: the parameters whose ``if FLAG:`` branch is the fast path taken only where the block
    divides (``EVEN_K`` set from ``K % BLOCK_K == 0``), its accesses left out; ``None``: every parameter (the
    caller knows no launch). A flag computed from anything else (``K % 16 == 0``, the tile's value copied) says
    nothing of the block once it moves: its branch is read (variants v9). Found once per text (:func:`_by_code`)."""
    kept = None if flags is None else frozenset(flags)
    return _by_code(
        lambda: _unchecked_blocks(kernel, within, helpers, external, flags),
        "unchecked",
        kernel,
        helpers,
        frozenset(external),
        kept,
        within=within,
    )


def _unchecked_blocks(
    kernel: cst.FunctionDef,
    within: cst.CSTNode | None,
    helpers: Mapping[str, cst.FunctionDef] | None,
    external: Collection[str],
    flags: Collection[str] | None,
) -> set[str]:
    body = _Kernel(kernel)
    reader = _Accesses(body, {k: v for k, v in (helpers or {}).items() if k != kernel.name.value}, external)
    skipped = body.params if flags is None else set(flags)
    body.values = _values_outside_flags(body.values, kernel, skipped)
    reader.collect(within if within is not None else kernel.body, skipped, kernel=kernel.name.value)
    out: set[str] = set()
    spoiled: dict[str, set[cst.Call]] | None = None
    for call in reader.unread:
        for arg in call.args:
            out |= body.indexes(arg.value)
    for call in reader.calls:
        if any(a.star for a in call.args) or any(
            a.keyword is not None and a.keyword.value == "boundary_check" for a in call.args
        ):
            continue
        positional = [a.value for a in call.args if a.keyword is None]
        if not positional:
            continue
        mask = _bound(call).get("mask")
        checked = body.ranges(mask) if mask is not None else set()
        if checked and dotted(call.func).split(".")[-1] == "load":
            spoiled = spoiled if spoiled is not None else _Lanes(body, skipped, _combines(helpers)).spoiled()
            checked = {b for b in checked if call not in spoiled.get(b, ())}  # its masked-out lanes read as data
        out |= body.indexes(positional[0]) - checked
    return out


def _values_outside_flags(
    values: dict[str, list[cst.BaseExpression]], kernel: cst.FunctionDef, flags: Collection[str]
) -> dict[str, list[cst.BaseExpression]]:
    """``values`` less those assigned in an ``if FLAG:`` branch of a flag the block divides under (AITER's ``if
    EVEN_MN: offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)`` / ``else: ... % M``, ``EVEN_MN`` set by a
    heuristic from ``M % BLOCK_SIZE_M == 0``): an access after the ``if`` reads that index only where the block
    divides the size, and the wrapped one elsewhere (configs24). A branch taken where the flag fails (``if not
    DIVISIBLE_M: mask_m = offs_m < M``, FlagAttention's) keeps its values: they are what the slow path reads
    (leftovers25, l81: its mask was dropped, the masked loads read as unchecked, breaker19's pick refused)."""
    inside = {
        id(n.value)
        for branch in _flag_branches(kernel.body, flags)
        for n in walk(branch)
        if isinstance(n, cst.Assign | cst.AnnAssign)
    }
    if not inside:
        return values
    return {name: [v for v in vs if id(v) not in inside] for name, vs in values.items()}


def _flag_branches(node: cst.CSTNode, flags: Collection[str]) -> Iterator[cst.CSTNode]:
    """The branches under ``node`` taken only where a flag that vouches for the block holds: the body of ``if FLAG:``
    (``if FLAG and x:``), the ``else`` of ``if not FLAG:``; a test that reads a flag otherwise (``if FLAG or x:``)
    gives none."""
    for here in typed(node, cst.If):
        if (fast := _fast_branch(here, flags)) is not None:
            yield fast


def _fast_branch(node: cst.CSTNode, flags: Collection[str]) -> cst.CSTNode | None:
    """The branch of ``node`` (an ``if``) taken only where a flag that vouches for the block holds (:func:`_flag_held`):
    the body of ``if FLAG:`` (``if FLAG and x:``), the ``else`` of ``if not FLAG:``; ``None`` for any other node or
    test. The one rule every reader of a flag's branches keeps (leftovers26, l111: the walkers of calls and loads left
    out the body of any ``if`` naming the flag, ``if not FLAG:``'s slow path too, and read its ``else``)."""
    if type(node) is not cst.If:  # libcst's ``If`` has no subclass: asked of every node by the walks, without ABCMeta
        return None
    held = _flag_held(node.test, flags)
    if held is True:
        return node.body
    return node.orelse if held is False else None


def _flag_held(test: cst.BaseExpression, flags: Collection[str]) -> bool | None:
    """``True`` where ``test`` holds only where one of ``flags`` holds (``FLAG``, ``FLAG and x``), ``False`` where it
    holds only where one fails (``not FLAG``), ``None`` for any other test."""
    if isinstance(test, cst.Name):
        return True if test.value in flags else None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return False if isinstance(test.expression, cst.Name) and test.expression.value in flags else None
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return True if True in (_flag_held(test.left, flags), _flag_held(test.right, flags)) else None
    return None


def filled_by_data(
    kernel: cst.FunctionDef,
    helpers: Mapping[str, cst.FunctionDef] | None = None,
    flags: Collection[str] | None = None,
) -> set[str]:
    """The blocks whose masked-out lanes reach a ``tl.max`` / ``tl.min`` (or an arg of one) along the block's axis
    holding a known finite value not its identity (a row max over ``other=0.0``): whether it changes the result
    depends on the data's values against it (a row of negatives gives 0), so one run that passed with masked-out
    lanes says nothing of another (fill12: a max over random rows of 200 columns passes, over 2 negative columns
    fails). ``flags``: as :func:`unchecked_blocks`' (their ``if FLAG:`` branches left out of what follows; ``None``:
    every parameter's). A fill chosen by a flag (``other=float("-inf") if IS_MAX else 0.0``) or returned by a
    ``@triton.jit`` helper, and a row a helper loads, are read as the kernel's own (leftovers13). Found once per text
    (:func:`_by_code`)."""
    kept = None if flags is None else frozenset(flags)
    return _by_code(lambda: _filled_by_data(kernel, helpers, flags), "by data", kernel, helpers, kept)


def _filled_by_data(
    kernel: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef] | None, flags: Collection[str] | None
) -> set[str]:
    body = _Kernel(kernel)
    skipped = body.params if flags is None else set(flags)
    # the helpers read at their calls, as unchecked_blocks reads them: a row loaded by a helper is the kernel's
    _Accesses(body, {k: v for k, v in (helpers or {}).items() if k != kernel.name.value}, ()).collect(
        kernel.body, skipped, kernel=kernel.name.value
    )
    lanes = _Lanes(body, skipped, _combines(helpers))
    lanes.spoiled()
    return lanes.by_data


def padded_blocks(kernel: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef] | None = None) -> set[str]:
    """The blocks of ``kernel``'s block pointers whose padding reaches a reduction along the block's axis holding a
    value not neutral for it: a ``boundary_check`` on the axis pads the tail with zeros (or NaN), as a mask's fill
    does (:class:`_Lanes`), so a row max over ``tl.load(blk, boundary_check=(0, 1), padding_option="zero")`` of
    values below zero is right only where the block divides the row (variants v39). A checked axis of such a
    block is as good as unchecked. ``helpers``: the module's ``@triton.jit`` functions, read at their calls. Found
    once per text (:func:`_by_code`)."""
    return _by_code(lambda: _padded_blocks(kernel, helpers), "padded", kernel, helpers)


def _padded_blocks(kernel: cst.FunctionDef, helpers: Mapping[str, cst.FunctionDef] | None) -> set[str]:
    body = _Kernel(kernel)
    reader = _Accesses(body, {k: v for k, v in (helpers or {}).items() if k != kernel.name.value}, ())
    reader.collect(kernel.body, (), kernel=kernel.name.value)
    return set(_Lanes(body, (), _combines(helpers), padded=True).spoiled())


#: What a masked-out lane holds, where it is not a number known: a finite value not known (a parameter, a lane of
#: data), or anything (an infinity or NaN may come of it)
FINITE, ANY = "finite", "any"
Lane = float | str


class _Fixed(str):
    """:data:`FINITE` or :data:`ANY` (equal to it everywhere) where the lane may hold a finite value the text fixes,
    chosen by a flag or a branch (``other=float("-inf") if IS_MAX else 0.0``): a max or min meeting it meets that
    value on some launch, whatever a run showed (:meth:`_Lanes._judge`)."""

    __slots__ = ()


def _fixed(value: Lane) -> bool:
    """A lane that holds, or may hold, a known finite value (``0.0``, or one branch's of :class:`_Fixed`)."""
    return isinstance(value, _Fixed) or (isinstance(value, float) and math.isfinite(value))


Reached = tuple[Lane, frozenset[cst.Call]]
"""A lane's value and the masked loads that reach it."""

#: Reductions across lanes and what a masked-out lane must hold for the result to be the unmasked lanes' alone
_NEUTRAL: dict[str, float] = {
    "sum": 0.0,
    "xor_sum": 0.0,
    "prod": 1.0,
    "max": float("-inf"),
    "argmax": float("-inf"),
    "min": float("inf"),
    "argmin": float("inf"),
}

#: The reductions whose result a lane holding a known finite value changes only where the data lies beyond it
_BY_DATA = frozenset({"max", "min", "argmax", "argmin"})
INT32_MAX = 2**31 - 1
"""The identity of a min over int32 lanes (a max's is ``-INT32_MAX - 1``), as kernels fill an index they min."""
_MATH: dict[str, Callable[[float], float]] = {
    "exp": math.exp,
    "exp2": lambda v: 2.0**v,
    "log": math.log,
    "log2": math.log2,
    "sqrt": math.sqrt,
    "sqrt_rn": math.sqrt,
    "rsqrt": lambda v: 1 / math.sqrt(v),
    "abs": abs,
    "fabs": abs,
    "sin": math.sin,
    "cos": math.cos,
    "tanh": math.tanh,
    "erf": math.erf,
    "sigmoid": lambda v: 1 / (1 + math.exp(-v)),
}
_FINITE_ONLY = frozenset({"exp", "exp2", "abs", "fabs", "sin", "cos", "tanh", "erf", "sigmoid"})
"""Of :data:`_MATH`, those giving a finite value of any finite one (``log`` and ``rsqrt`` of zero do not)."""
_KEEP = frozenset({"to", "cast", "multiple_of", "max_contiguous", "broadcast_to", "expand_dims"})
"""Calls whose value is their first argument's, lane by lane."""
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "Equal": lambda a, b: a == b,
    "NotEqual": lambda a, b: a != b,
    "LessThan": lambda a, b: a < b,
    "LessThanEqual": lambda a, b: a <= b,
    "GreaterThan": lambda a, b: a > b,
    "GreaterThanEqual": lambda a, b: a >= b,
}
#: Methods of a tensor whose lanes are the tensor's own (``x.broadcast_to(...)``, ``x.expand_dims(0)``): read as it
_KEEP_METHODS = frozenset({"broadcast_to", "expand_dims", "multiple_of", "max_contiguous", "cast"})
_MOVES_AXES = frozenset({"trans", "permute", "reshape", "view", "join", "split", "interleave"})
#: Scans across lanes and the reduction each lane's result is over the lanes before it (after it, reversed);
#: ``associative_scan``'s is its combine's (:meth:`_Lanes._kind`)
_SCANS: dict[str, str] = {"cumsum": "sum", "cumprod": "prod", "associative_scan": "reduce"}
#: Calls that move lanes along an axis, and their axis parameter: a flip, a gather or a sort of a block whose tail
#: ``offs < n`` masks out brings that tail onto kept lanes (a sort, unless the tail holds what sorts last: ``+inf``
#: ascending, ``-inf`` descending)
_MOVES_LANES: dict[str, str] = {"flip": "dim", "sort": "dim", "gather": "axis"}
#: The parameters, in order, of the ``tl`` calls whose arguments the lanes read (Triton 3.6's signatures, those of
#: the ``@jit`` functions of ``triton.language.standard`` for the scans, ``sort`` and ``flip``); any other call (a
#: ``tl.sum``, ``tl.max``, ...) ``(input, axis)``. Read with :func:`_bound`, as :func:`call_args` binds a call.
_TL_PARAMS: dict[str, tuple[str, ...]] = {
    "load": ("pointer", "mask", "other", "boundary_check", "padding_option"),
    "store": ("pointer", "value", "mask", "boundary_check"),
    "advance": ("base", "offsets"),
    "full": ("shape", "value", "dtype"),
    "reduce": ("input", "axis", "combine_fn", "keep_dims"),
    "associative_scan": ("input", "axis", "combine_fn", "reverse"),
    "cumsum": ("input", "axis", "reverse", "dtype"),
    "cumprod": ("input", "axis", "reverse"),
    "histogram": ("input", "num_bins", "mask"),
    "sort": ("x", "dim", "descending"),
    "flip": ("x", "dim"),
    "gather": ("src", "index", "axis"),
}


def _bound(call: cst.Call) -> dict[str, cst.BaseExpression]:
    """``call``'s arguments by the parameter names of the ``tl`` function it calls (:data:`_TL_PARAMS`)."""
    return call_args(call, _TL_PARAMS.get(dotted(call.func).split(".")[-1], ("input", "axis")))


def _const(expr: cst.BaseExpression) -> float | None:
    """The number a literal is (``0.0``, ``-1``, ``float("-inf")``, ``-float('inf')``); ``None`` otherwise."""
    if isinstance(expr, cst.Integer | cst.Float):
        return float(expr.evaluated_value)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _const(expr.expression)
        return None if inner is None else -inner
    if isinstance(expr, cst.Call) and dotted(expr.func) == "float" and len(expr.args) == 1:
        arg = expr.args[0].value
        if isinstance(arg, cst.SimpleString):
            with contextlib.suppress(ValueError):
                return float(arg.evaluated_value)
            return None
        return _const(arg)
    return None


def _finite(value: Lane) -> bool:
    return value == FINITE or (isinstance(value, float) and math.isfinite(value))


def _same(a: Lane, b: Lane) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


def _bitcasts(call: cst.Call) -> bool:
    """Whether a ``to`` or ``cast`` call reinterprets the bits (``bitcast=`` anything but ``False``)."""
    return any(
        a.keyword is not None
        and a.keyword.value == "bitcast"
        and not (isinstance(a.value, cst.Name) and a.value.value == "False")
        for a in call.args
    )


def _bitcast_lane(value: Lane) -> Lane:
    """A lane's value with its bits read as another type: +0.0 (all bits zero) stays zero; any other is not known (a
    finite integer's bits may be an infinity or a NaN, ``(e + 127) << 23`` at ``e = 128``; review28 r83: the value was
    kept, so a bitwise operation's finite integer, q95, read as a finite float)."""
    return 0.0 if isinstance(value, float) and value == 0.0 and math.copysign(1.0, value) > 0 else ANY


#: libcst's names of the bitwise operators: Triton applies them to integer tensors alone
_BITWISE = frozenset({"BitAnd", "BitOr", "BitXor", "LeftShift", "RightShift"})


def _apply(op: str, a: Lane, b: Lane) -> Lane:
    """``a op b`` (``op`` ``Add``, ``Subtract``, ``Multiply``, ``Divide``) over lane values: numbers as Python's
    floats give them (``0 * inf`` is NaN), a finite value not known times zero is zero, an infinity plus one is the
    infinity; a bitwise operation (integers alone, never an infinity) finite, zero where a zero is shifted or masked
    (breaker29's q95: an int4 code unpacked from a masked-out byte, ``(packed >> shift) & 0xF``); anything else not
    known."""
    if op in _BITWISE:
        return 0.0 if _same(a, 0.0) and op in ("BitAnd", "LeftShift", "RightShift") else FINITE
    if ANY in (a, b) or op not in ("Add", "Subtract", "Multiply", "Divide"):
        return ANY
    if isinstance(a, float) and isinstance(b, float):
        try:
            return {"Add": a + b, "Subtract": a - b, "Multiply": a * b}[op] if op != "Divide" else a / b
        except ZeroDivisionError:
            return math.nan if a == 0 or math.isnan(a) else ANY
    if not isinstance(a, float) and not isinstance(b, float):
        return FINITE
    known, first = (a, True) if isinstance(a, float) else (b, False)
    assert isinstance(known, float)
    if math.isnan(known):
        return math.nan
    if op in ("Add", "Subtract"):
        if math.isinf(known):
            return known if first or op == "Add" else -known  # an infinity and a finite value
        return FINITE
    if op == "Multiply":
        return 0.0 if known == 0 else FINITE if math.isfinite(known) else ANY
    if first:  # known / finite
        return 0.0 if known == 0 else FINITE if math.isfinite(known) else ANY
    return 0.0 if math.isinf(known) else FINITE if known != 0 else ANY  # finite / known


def _join(values: list[Reached]) -> Reached:
    """One value of several (the branches of an ``if``, a ``tl.where`` not decided): the value they share, else not
    known (finite where all are)."""
    loads = frozenset().union(*(r for _, r in values))
    lanes = [v for v, _ in values]
    if all(_same(v, lanes[0]) for v in lanes):
        return lanes[0], loads
    joined = FINITE if all(_finite(v) for v in lanes) else ANY
    return (_Fixed(joined) if any(_fixed(v) for v in lanes) else joined), loads


def _join_env(a: dict[str, Reached], b: dict[str, Reached], carried: bool = False) -> dict[str, Reached]:
    """Each name's value after two paths (``a`` before a loop or an ``if``'s one branch, ``b`` the other). A loop
    (``carried``) carries its own value over a start no masked lane reaches (``acc = tl.zeros(..)`` then ``acc +=
    x``; ``m = float("-inf")`` then ``m = tl.maximum(m, tl.max(x))``): the start is what the lanes are added to,
    not a lane of its own."""
    out = dict(a)
    for name, value in b.items():
        if name not in a or (carried and not a[name][1]):
            out[name] = value
        else:
            out[name] = _join([a[name], value])
    return out


def _same_env(a: dict[str, Reached], b: dict[str, Reached]) -> bool:
    return a.keys() == b.keys() and all(_same(a[k][0], b[k][0]) and a[k][1] == b[k][1] for k in a)


class _Lanes:
    """What the masked-out lanes of a kernel's masked loads hold as they flow into its reductions (variants v20 and
    the sum side after it, issue 32). A load masked over a block reads its fill there (``other=``; left out, zero:
    what Triton's interpreter gives, and its NVIDIA backend, which zeroes the ``ld``'s destination when a load has
    no ``other``), and arithmetic, ``tl.where`` on a range of the block (its else value), ``tl.exp`` / ``tl.log`` and
    the like carry it into a ``tl.sum`` / ``tl.max`` / ``tl.min`` / ``tl.argmax`` / ``tl.prod`` / ``tl.dot``. Where
    the reduction runs along the block's axis and the lane it meets is not neutral for it (a zero for a sum,
    ``-inf`` for a max), the result is right only where no lane is masked out, at sizes the block divides: the
    block is as good as unchecked. The body is read statement by statement (a name holds its last value; both
    branches of an ``if`` joined; a loop to a fixed point, its start replaced by what the loop carries: ``m =
    float("-inf")`` before ``m = tl.maximum(m, tl.max(x))``); an ``if FLAG:`` branch on a flag that vouches for the
    block is left out; a ``@triton.jit`` helper's body is read after the kernel's, its return value not followed."""

    def __init__(
        self, body: _Kernel, flags: Collection[str], combines: Mapping[str, str] | None = None, padded: bool = False
    ) -> None:
        self.body, self.flags, self.combines, self.padded = body, set(flags), combines or {}, padded
        self.loads = [
            node
            for code in body.bodies
            for node in _outside_flags(code, flags)
            if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "load"
        ]
        self.block = ""
        self.quiet = 0  # inside a loop's passes before its fixed point: reductions not judged yet
        self.undoing = 0  # inside a flip undone by another (a reversed scan's, or a flip's of a flip): not judged
        self.found: set[cst.Call] = set()
        self.by_data: set[str] = set()  # blocks a max or min meets holding a known finite value (:meth:`_judge`)
        self.named_axes: dict[str, set[int]] = {}  # the block's axes in each name's values (:meth:`_axes`)

    def spoiled(self) -> dict[str, set[cst.Call]]:
        """Block -> the masked loads whose masked-out lanes of that block reach a reduction along its axis holding
        a value not neutral for it (``padded``: of the blocks of the block pointers made alone)."""
        out: dict[str, set[cst.Call]] = {}
        masks = [m for m in map(_mask_of, self.loads) if m is not None]
        blocks: set[str] = set() if self.padded else set().union(*(self.body.ranges(m) for m in masks))
        if self.padded:  # the tiles of the block pointers made, read through their loads' padding: only those (each
            # block is read on its own, and the masks' blocks are unchecked_blocks', which read them already)
            for code in self.body.bodies:
                for node in walk(code):
                    if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "make_block_ptr":
                        shape = call_args(node, BLOCK_PTR_ARGS).get("block_shape")
                        if isinstance(shape, cst.Tuple):
                            blocks |= {e.value.value for e in shape.elements if isinstance(e.value, cst.Name)}
        for block in sorted(blocks):
            self.block, self.found, self.named_axes = block, set(), {}
            env: dict[str, Reached] = {}
            for code in self.body.bodies:
                self._run(code, env)
            if self.found:
                out[block] = self.found
        return out

    def _run(self, node: cst.CSTNode, env: dict[str, Reached]) -> None:
        """Read the statements of ``node`` in order, ``env`` holding each name's lane as it goes."""
        if isinstance(node, cst.If):
            self.lane(node.test, env)
            branch = dict(env)
            self._run(node.body, branch)  # its reductions judged (a ``tl.max`` under ``if IS_MAX:``), ...
            if _names(node.test) & self.flags:
                branch = dict(env)  # ... but a flag's branch left out of what follows (its fast path's plain loads)
            other = dict(env)
            if node.orelse is not None:
                self._run(node.orelse, other)
            env.update(_join_env(branch, other))
            return
        if isinstance(node, cst.For | cst.While):
            self.lane(node.iter if isinstance(node, cst.For) else node.test, env)
            start, head = dict(env), dict(env)
            self.quiet += 1
            for _ in range(4):
                passed = dict(head)
                self._run(node.body, passed)
                new = _join_env(start, passed, carried=True)
                if _same_env(new, head):
                    break
                head = new
            else:
                head = {k: (v if _same_env({k: v}, {k: start.get(k, v)}) else (ANY, v[1])) for k, v in head.items()}
            self.quiet -= 1
            passed = dict(head)
            self._run(node.body, passed)  # once more, judging its reductions
            env.update(_join_env(start, passed, carried=True))
            return
        if isinstance(node, cst.Assign):
            value = self.lane(node.value, env)
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    env[t.target.value] = value
            return
        if isinstance(node, cst.AugAssign):
            step = self.lane(node.value, env)
            if isinstance(node.target, cst.Name):
                now = env.get(node.target.value, (FINITE, frozenset()))
                op = type(node.operator).__name__.removesuffix("Assign")
                env[node.target.value] = (_apply(op, now[0], step[0]), now[1] | step[1])
            return
        if isinstance(node, cst.AnnAssign):
            if node.value is not None and isinstance(node.target, cst.Name):
                env[node.target.value] = self.lane(node.value, env)
            return
        if isinstance(node, cst.Expr | cst.Return):
            if node.value is not None:
                self.lane(node.value, env)
            return
        for child in child_nodes(node):
            if isinstance(child, cst.BaseStatement | cst.BaseSmallStatement | cst.BaseSuite):
                self._run(child, env)

    def _returned(self, inlined: cst.BaseSuite, env: dict[str, Reached]) -> Reached:
        """What a helper's body (its parameters the call's arguments, :class:`_Inline`) returns at a masked-out lane:
        its statements read in a copy of ``env``, its ``return`` values joined (a lane of no masked load where it
        returns nothing)."""
        local = dict(env)
        self._run(inlined, local)
        returns = [r.value for r in walk(inlined) if isinstance(r, cst.Return) and r.value is not None]
        return _join([self.lane(v, local) for v in returns]) if returns else (FINITE, frozenset())

    def _judge(self, red: cst.Call, env: dict[str, Reached]) -> bool:
        """Whether the reduction ``red`` meets a masked-out lane not neutral for it, the loads that reach it kept
        (outside a loop's passes before its fixed point)."""
        spoiling = self._spoiling(red, env)
        if spoiling and not self.quiet:
            self.found |= spoiling
            args = [a.value for a in red.args if a.keyword is None and not a.star]
            lane = self.lane(args[0], env)[0] if args else ANY
            if self._kind(red) in _BY_DATA and _fixed(lane):
                self.by_data.add(self.block)
        return bool(spoiling)

    def _kind(self, call: cst.Call) -> str:
        """The reduction a call makes: its name (``sum``, ``max``, ``dot``), or for ``tl.reduce(x, axis, combine)``
        (and a scan's, ``tl.associative_scan(x, axis, combine)``) the one its ``@triton.jit`` combine makes
        (:func:`_combines`; ``reduce`` where it is not read)."""
        name = dotted(call.func).split(".")[-1]
        if name != "reduce":
            return name
        combine = _bound(call).get("combine_fn")
        return self.combines.get(dotted(combine), "reduce") if combine is not None else "reduce"

    def _spoiling(self, red: cst.Call, env: dict[str, Reached], kind: str | None = None) -> frozenset[cst.Call]:
        """The masked loads whose lanes reach ``red`` along the block's axis holding a value not neutral for it
        (``kind``: the reduction it makes where its name does not say, a scan's)."""
        name = kind or self._kind(red)
        args = [a.value for a in red.args if a.keyword is None and not a.star]
        if name == "dot":
            if len(args) < 2:
                return frozenset()
            (a, ra), (b, rb) = self.lane(args[0], env), self.lane(args[1], env)
            rows, cols = self._axes(args[0]), self._axes(args[1])
            if (rows | cols) - {-1} and not (rows <= {1, -1} and cols <= {0, -1}):
                return frozenset()  # the block's lanes are rows of a or columns of b: not summed over
            return frozenset() if _apply("Multiply", a, b) == 0.0 else ra | rb
        if not args:
            return frozenset()
        if name == "histogram":  # every lane counts in some bin, whatever it holds, unless its own mask leaves it out
            mask = _bound(red).get("mask")
            return (
                frozenset() if mask is not None and self.block in self.body.ranges(mask) else self.lane(args[0], env)[1]
            )
        lane, reached = self.lane(args[0], env)
        if name == "reduce":  # a combine not read: any lane it meets may change it
            return reached if reached and self._along(red, args[0]) else frozenset()
        if not reached or not self._along(red, args[0]) or lane == _NEUTRAL[name]:
            return frozenset()
        least = name in ("min", "argmin")
        if isinstance(lane, float) and name != "sum" and (lane >= INT32_MAX if least else -lane > INT32_MAX):
            return frozenset()  # the int32 identity of an integer min or max (``2147483647``)
        if name in ("max", "argmax") and lane == 0.0 and self._non_negative(args[0], frozenset()):
            return frozenset()  # ``tl.max(tl.abs(x))``: a zero lane is no larger than any other
        return reached

    def _non_negative(self, expr: cst.BaseExpression, seen: frozenset[str]) -> bool:
        """Whether every lane of ``expr`` is at least zero: ``tl.abs(x)``, ``tl.zeros``, a ``tl.maximum`` of one
        such, a ``tl.minimum`` of such alone, or a name each assignment of which is one (a running max of
        ``amax = tl.maximum(amax, tl.abs(x))`` from ``tl.zeros``, wrongkernel18's int8 quantization: its fill of
        0.0 was read as reaching the row's ``tl.max`` as data, and the masked ``BLOCK`` as unchecked). A name met
        again on its own path holds what its other assignments hold (read by induction over the loop)."""
        if isinstance(expr, cst.Name):
            if expr.value in seen:
                return True
            values = self.body.values.get(expr.value, [])
            based = any(expr.value not in _names(v) for v in values)  # a start that reads no earlier value of it
            return (
                expr.value not in self.body.params
                and based
                and all(self._non_negative(v, seen | {expr.value}) for v in values)
            )
        if not isinstance(expr, cst.Call):
            return False
        name = dotted(expr.func).split(".")[-1]
        args = [a.value for a in expr.args if a.keyword is None and not a.star]
        if name in ("abs", "fabs", "zeros"):
            return True
        if name == "maximum":
            return any(self._non_negative(a, seen) for a in args)
        return name == "minimum" and bool(args) and all(self._non_negative(a, seen) for a in args)

    def _padded(self, load: cst.Call) -> tuple[int, float] | None:
        """The axis on which ``load``, a load of a block pointer (``tl.make_block_ptr``, made inline or named, advanced
        or not), holds the block in its ``block_shape`` and checks it (``boundary_check``), and the value its
        padding reads there (``padding_option="nan"``: NaN; else zero, as a mask's fill left out); ``None`` for any
        other load."""
        bound = _bound(load)
        check, option, pointer = bound.get("boundary_check"), bound.get("padding_option"), bound.get("pointer")
        if pointer is None or not isinstance(check, cst.Tuple | cst.List):
            return None
        axes = {int(e.value.evaluated_value) for e in check.elements if isinstance(e.value, cst.Integer)}
        fill = math.nan if isinstance(option, cst.SimpleString) and option.evaluated_value == "nan" else 0.0
        for made in self._made(pointer, frozenset()):
            shape = call_args(made, BLOCK_PTR_ARGS).get("block_shape")
            for axis, e in enumerate(shape.elements if isinstance(shape, cst.Tuple) else ()):
                if isinstance(e.value, cst.Name) and e.value.value == self.block and axis in axes:
                    return axis, fill
        return None

    def _made(self, expr: cst.BaseExpression, seen: frozenset[str]) -> Iterator[cst.Call]:
        """The ``tl.make_block_ptr`` calls a pointer ``expr`` is made by (through names and ``tl.advance``)."""
        if isinstance(expr, cst.Call):
            name = dotted(expr.func).split(".")[-1]
            if name == "make_block_ptr":
                yield expr
            elif name == "advance" and (base := _bound(expr).get("base")) is not None:
                yield from self._made(base, seen)
        elif isinstance(expr, cst.Name) and expr.value not in seen:
            for value in self.body.values.get(expr.value, []):
                yield from self._made(value, seen | {expr.value})

    def _moving(self, call: cst.Call, env: dict[str, Reached]) -> frozenset[cst.Call]:
        """The masked loads whose lanes ``call`` (:data:`_MOVES_LANES`: ``tl.flip``, ``tl.gather``, ``tl.sort``) moves
        along the block's axis onto lanes kept: the masked-out tail of ``offs < n`` comes last, and a flip puts it
        first, a gather takes it wherever its index points, and a sort wherever its value falls (unless it holds the
        value sorted last). A kernel whose masks never leave a lane out at the sizes it was written for (rows a
        multiple of the block, or a block of ``next_power_of_2(n)`` over rows of powers of two) is right only
        there (variants v36)."""
        name = dotted(call.func).split(".")[-1]
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        value, reached = self.lane(args[0], env)
        if not reached or not self._along(call, args[0], at=_MOVES_LANES[name]):
            return frozenset()
        if name == "sort":
            given = _bound(call).get("descending")
            flag = given.value if isinstance(given, cst.Name) and given.value in ("True", "False") else None
            last = math.inf if given is None or flag == "False" else -math.inf if flag == "True" else None
            if last is not None and value == last:
                return frozenset()
        return reached

    def _reversed(self, scan: cst.Call, name: str) -> bool:
        """Whether the scan ``scan`` (``tl.cumsum``, ``tl.cumprod``, ``tl.associative_scan``) runs from the block's
        last lane to its first: ``reverse=True`` (or a ``reverse`` not a literal), or its input flipped
        (``tl.flip``). A masked-out lane of ``offs < n`` comes after every lane kept, so a forward scan's kept
        lanes never take it in; a reversed one's all do (variants v34)."""
        bound = _bound(scan)
        given = bound.get("reverse")
        if given is not None and not (isinstance(given, cst.Name) and given.value in ("True", "False")):
            return True  # a flag not read: maybe reversed
        if isinstance(given, cst.Name) and given.value == "True":
            return True
        return "input" in bound and self._flipped(bound["input"], frozenset())

    def _flipped(self, expr: cst.CSTNode, seen: frozenset[str]) -> bool:
        """Whether ``expr`` reads a ``tl.flip`` of the block's lanes (through the names it reads)."""
        for node in walk(expr):
            if isinstance(node, cst.Call) and dotted(node.func).split(".")[-1] == "flip":
                return True
            named = isinstance(node, cst.Name) and node.value not in seen and node.value in self.body.values
            if named and any(self._flipped(v, seen | {node.value}) for v in self.body.values[node.value]):  # type: ignore[union-attr]
                return True
        return False

    def _along(
        self,
        red: cst.Call,
        arg: cst.BaseExpression,
        seen: frozenset[str] = frozenset(),
        at: str = "axis",
    ) -> bool:
        """Whether the reduction ``red`` of ``arg`` runs along the block's axis (or its axis is not read); ``at``:
        the axis parameter's name."""
        axis = _bound(red).get(at)
        if not isinstance(axis, cst.Integer):
            return True  # every axis (``axis=None``), or one not read
        axes, at = self._axes(arg, seen), int(axis.evaluated_value)
        return not axes or -1 in axes or axes == {at} or (axes == {0} and at == -1)

    def _axes(self, expr: cst.CSTNode, seen: frozenset[str] = frozenset()) -> set[int]:
        """The axes the block's lanes take in ``expr``: a range 0, ``offs[None, :]`` 1, a tile loaded through
        ``offs[:, None]`` 0, ``tl.dot(a, b)`` a's rows and b's columns, a reduction along another axis 0; ``-1``
        where a reshape or a transpose leaves it not known; empty where the block's lanes are not there."""
        if isinstance(expr, cst.Subscript):
            inner = self._axes(expr.value, seen)
            places = [i for i, e in enumerate(expr.slice) if isinstance(e.slice, cst.Slice)]
            if not inner or len(places) == len(expr.slice):
                return inner
            return {places[0]} if inner == {0} and len(places) == 1 else {-1}
        if isinstance(expr, cst.Call):
            inlined = self.body.inlined.get(expr)
            if inlined is not None:  # a helper read at this call: the axes of what it returns
                returned = [r.value for r in walk(inlined) if isinstance(r, cst.Return) and r.value is not None]
                return set().union(*(self._axes(v, seen) for v in returned))
            name = dotted(expr.func).split(".")[-1]
            args = [a.value for a in expr.args if a.keyword is None and not a.star]
            if name == "trans" and len(expr.args) == 1 and not expr.args[0].keyword:
                inner = self._axes(args[0], seen) if args else set()
                return {1 - a for a in inner} if inner <= {0, 1} else {-1}  # a 2-D tile's (1, 0) permutation
            if name in _MOVES_AXES:
                return {-1} if any(self._axes(a.value, seen) for a in expr.args) else set()
            if name == "arange":
                return {0} if self.block in self.body.spans(expr) else set()
            if name == "dot" and len(args) >= 2:
                rows, cols = self._axes(args[0], seen), self._axes(args[1], seen)
                return {a for a in rows if a != 1} | {a for a in cols if a != 0}
            if name == "histogram":
                return set()  # the bins
            padded = self._padded(expr) if name == "load" and self.padded else None
            if padded is not None:
                return {padded[0]}
            if name in _NEUTRAL or name == "reduce":
                inner = self._axes(args[0], seen) if args else set()
                return {0} if inner and not self._along(expr, args[0], seen) else set()
        if isinstance(expr, cst.Name):
            if expr.value in seen:
                return set()
            if expr.value in self.named_axes:
                return self.named_axes[expr.value]
            found: set[int] = set()
            for value in self.body.values.get(expr.value, []):
                found |= self._axes(value, seen | {expr.value})
            self.named_axes[expr.value] = found  # a union over its values: a cycle cut adds nothing to it
            return found
        out: set[int] = set()
        for child in child_nodes(expr):
            out |= self._axes(child, seen)
        return out

    def _scaled_zero(
        self,
        op: str,
        left: tuple[Lane, frozenset[cst.Call], cst.BaseExpression],
        right: tuple[Lane, frozenset[cst.Call], cst.BaseExpression],
    ) -> bool:
        """Whether a masked-out zero lane times (or over) a value not known stays zero: the value is one scalar for
        the whole block (none of the block's axes, no masked load reaching it: a row's ``rms`` from ``tl.sum``), so
        where it is not finite (or zero, under a division) every kept lane it scales is not finite either and the
        original's result is not finite there already. SGLang's dual RMS norm, ``r + (a / rms * w1)`` summed again,
        was read as a block that must fill its row (breaker25's q52)."""
        if op not in ("Multiply", "Divide"):
            return False
        (a, ra, x), (b, rb, y) = left, right
        if _same(a, 0.0) and ra and b == ANY and not rb and not self._axes(y):
            return True
        return op == "Multiply" and _same(b, 0.0) and bool(rb) and a == ANY and not ra and not self._axes(x)

    def lane(self, expr: cst.BaseExpression, env: dict[str, Reached]) -> Reached:
        """What ``expr`` holds at a lane the block's masks leave out, and the masked loads that reach it."""
        known = _const(expr)
        if known is not None:
            return known, frozenset()
        if isinstance(expr, cst.Name):
            if expr.value not in env and expr.value not in self.body.bound:  # the module's: a value its text may fix
                # (``other=FILL`` over ``FILL = 0.0``: read as data, a run's evidence lifted the fill rule off a max
                # and a row of negatives gave 0; review27 r77), not read here, so the answers stay the kernel text's
                return _Fixed(FINITE), frozenset()
            return env.get(expr.value, (FINITE, frozenset()))  # a parameter or a local holds data
        if isinstance(expr, cst.UnaryOperation):
            value, reached = self.lane(expr.expression, env)
            if isinstance(expr.operator, cst.Minus) and isinstance(value, float):
                return -value, reached
            return (value if isinstance(expr.operator, cst.Plus) else ANY), reached
        if isinstance(expr, cst.BinaryOperation):
            (a, ra), (b, rb) = self.lane(expr.left, env), self.lane(expr.right, env)
            op = type(expr.operator).__name__
            if self._scaled_zero(op, (a, ra, expr.left), (b, rb, expr.right)):
                return 0.0, ra | rb
            return _apply(op, a, b), ra | rb
        if isinstance(expr, cst.Subscript):
            return self.lane(expr.value, env)
        if isinstance(expr, cst.IfExp):
            return _join([self.lane(expr.body, env), self.lane(expr.orelse, env)])
        if isinstance(expr, cst.Call):
            return self._call(expr, env)
        if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
            (a, ra), (b, rb) = self.lane(expr.left, env), self.lane(expr.comparisons[0].comparator, env)
            test = _COMPARE.get(type(expr.comparisons[0].operator).__name__)
            if isinstance(a, float) and isinstance(b, float) and test is not None:
                return float(test(a, b)), ra | rb  # ``m == float("-inf")`` of a lane filled with ``-inf``
            return FINITE, ra | rb
        return FINITE, frozenset()  # an attribute: no lane of a masked load

    def _module_name(self, expr: cst.BaseExpression, env: dict[str, Reached]) -> bool:
        """Whether ``expr`` names a module (``tl``, ``triton.language``): a name the kernel does not bind."""
        head = expr
        while isinstance(head, cst.Attribute):
            head = head.value
        return isinstance(head, cst.Name) and head.value not in env and head.value not in self.body.bound

    def _call(self, call: cst.Call, env: dict[str, Reached]) -> Reached:
        inlined = self.body.inlined.get(call)
        if inlined is not None:  # a helper read at this call (:class:`_Accesses`): what it returns
            return self._returned(inlined, env)
        name = dotted(call.func).split(".")[-1]
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        if name == "load":
            mask = _mask_of(call)
            if mask is None or self.block not in self.body.ranges(mask):
                padded = self._padded(call) if self.padded else None
                return (FINITE, frozenset()) if padded is None else (padded[1], frozenset({call}))
            fill = _fill_of(call)
            value = 0.0 if fill is None else _const(fill)
            return (value if value is not None else self.lane(cst.ensure_type(fill, cst.BaseExpression), env)[0]), (
                frozenset({call})
            )
        if name == "where" and len(args) == 3:
            if self.block in self.body.ranges(args[0]):
                return self.lane(args[2], env)  # masked again: the else value
            test, reached = self.lane(args[0], env)
            if isinstance(test, float) and not math.isnan(test):  # a test the lane's own value decides
                value, more = self.lane(args[1] if test else args[2], env)
                return value, reached | more
            return _join([self.lane(args[1], env), self.lane(args[2], env)])
        if name in ("zeros", "zeros_like"):
            return 0.0, frozenset()
        if name == "full":
            value = _bound(call).get("value")
            return self.lane(value, env) if value is not None else (ANY, frozenset())
        if name in _KEEP and (isinstance(call.func, cst.Attribute) or args):
            # ``x.to(tl.float32)`` a method of the tensor; ``tl.cast(x, ...)``, ``tl.broadcast_to(x, ...)`` a function
            # of the module, whose value is its first argument's (review28 r83: the lane of ``tl`` was read, finite)
            method = isinstance(call.func, cst.Attribute) and not (args and self._module_name(call.func.value, env))
            value, reached = self.lane(call.func.value if method else args[0], env)  # type: ignore[union-attr]
            return (_bitcast_lane(value) if _bitcasts(call) else value), reached
        if isinstance(call.func, cst.Attribute) and not self._module_name(call.func.value, env):
            # a method of a tensor (``x.max(0)``, ``x.sum(axis=0)``, ``x.reshape(...)``, ``x.trans()``): review28 r86,
            # the receiver was read as no lane at all, and ``x.max(0)`` over a zero fill of negatives left the block
            # checked; a reduction so written is not judged, so a masked load it holds leaves the block unchecked
            value, reached = self.lane(call.func.value, env)
            if name in _MOVES_AXES or name in _KEEP_METHODS:
                return value, reached  # the same lanes, moved or broadcast (a reduction over them is judged there)
            if reached and (name in _NEUTRAL or name in _SCANS or name in ("reduce", "dot")) and not self.quiet:
                self.found |= reached  # a reduction not judged by its method form: the block is left unchecked
            return (ANY if reached else FINITE), reached
        if name in _MATH and args:
            value, reached = self.lane(args[0], env)
            if isinstance(value, float):
                try:
                    return float(_MATH[name](value)), reached
                except ValueError:
                    return math.nan, reached
                except (OverflowError, ZeroDivisionError):
                    return ANY, reached
            return (FINITE if value == FINITE and name in _FINITE_ONLY else ANY), reached
        if name in ("maximum", "minimum") and len(args) == 2:
            (a, ra), (b, rb) = self.lane(args[0], env), self.lane(args[1], env)
            if isinstance(a, float) and isinstance(b, float):
                return (max(a, b) if name == "maximum" else min(a, b)), ra | rb
            identity = -math.inf if name == "maximum" else math.inf
            if identity in (a, b):  # the other value
                return (b if a == identity else a), ra | rb
            return _join([(a, ra), (b, rb)])
        if name in _MOVES_LANES and args:
            undone = name == "flip" and self._flipped(args[0], frozenset())  # flipped back where they were
            self.undoing += undone
            spoiling = frozenset() if undone or self.undoing else self._moving(call, env)
            if spoiling and not self.quiet:
                self.found |= spoiling
            value, reached = self.lane(args[0], env)
            self.undoing -= undone
            return value, reached  # the same values, other lanes: where they land is judged above
        if name in _SCANS and args and self._reversed(call, name):
            kind = (
                _SCANS[name] if name != "associative_scan" else self._kind(call.with_changes(func=cst.Name("reduce")))
            )
            self.undoing += 1  # a flip of its input makes it a reversed scan, judged here as one
            spoiling = self._spoiling(call, env, kind)  # each lane takes in the lanes after it: the masked-out tail
            if spoiling and not self.quiet:
                self.found |= spoiling
            value, reached = self.lane(args[0], env)
            self.undoing -= 1
            return (ANY if reached else FINITE), reached
        name = self._kind(call)
        if name in ("dot", "histogram") or (name in _NEUTRAL and not args):
            spoiling = self._judge(call, env)
            return (ANY if spoiling else FINITE), frozenset().union(*(self.lane(a, env)[1] for a in args))
        if name in _NEUTRAL or name == "reduce":
            value, reached = self.lane(args[0], env)
            if not reached:
                return FINITE, reached
            if self._along(call, args[0]):  # the block's lanes reduced away: judged here, not carried on
                return (ANY if self._judge(call, env) else FINITE), frozenset()
            if name == "reduce":
                return ANY, reached  # a combine not read, along another axis
            if isinstance(value, float) and (value == 0 or not math.isfinite(value) or name not in ("sum", "prod")):
                return value, reached  # the block's lanes along another axis, each reduced over lanes alike
            return (FINITE if _finite(value) else ANY), reached
        found = [self.lane(a.value, env) for a in call.args]
        reached = frozenset().union(*(r for _, r in found))
        return (ANY if reached else FINITE), reached


_COMBINED = {"Add": "sum", "Multiply": "prod", "maximum": "max", "minimum": "min"}


def _combines(helpers: Mapping[str, cst.FunctionDef] | None) -> dict[str, str]:
    """The ``@triton.jit`` functions that combine two values as a reduction does, by name: ``return a + b`` a sum,
    ``a * b`` a product, ``tl.maximum(a, b)`` a max, ``tl.minimum(a, b)`` a min (what ``tl.reduce(x, axis,
    combine)`` then makes: variants v25); others are not read."""
    out: dict[str, str] = {}
    for name, fn in (helpers or {}).items():
        params = param_names(fn)
        body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else []
        line = body[0] if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) else None
        ret = line.body[0] if line is not None and isinstance(line.body[0], cst.Return) else None
        value = ret.value if ret is not None else None
        if isinstance(value, cst.BinaryOperation):
            op, operands = type(value.operator).__name__, [value.left, value.right]
        elif isinstance(value, cst.Call) and len(value.args) == 2:
            op, operands = dotted(value.func).split(".")[-1], [a.value for a in value.args]
        else:
            continue
        if op in _COMBINED and len(params) == 2 and {dotted(o) for o in operands} == set(params):
            out[name] = _COMBINED[op]
    return out


def _outside_flags(node: cst.CSTNode, flags: Collection[str]) -> Iterator[cst.CSTNode]:
    """:func:`walk`, leaving out the branch taken only where a flag that vouches for the block holds
    (:func:`_fast_branch`): the fast path taken only where the block divides, as :func:`_calls_outside_flags` reads
    it."""
    stack = [node]
    while stack:
        here = stack.pop()
        yield here
        fast = _fast_branch(here, flags)
        stack.extend(reversed([c for c in child_nodes(here) if c is not fast]))


def _mask_of(call: cst.Call) -> cst.BaseExpression | None:
    """A ``tl.load``'s mask (``mask=`` or its second positional argument)."""
    return _bound(call).get("mask")


def _fill_of(call: cst.Call) -> cst.BaseExpression | None:
    """A ``tl.load``'s fill (``other=`` or its third positional argument); ``None`` where it is left out."""
    return _bound(call).get("other")


def module_statements(body: Sequence[cst.BaseStatement]) -> list[cst.SimpleStatementLine]:
    """The simple statements of a module body and of its module-level control flow (``if``/``else``,
    ``try``, ``with``), not those of functions or classes."""
    out: list[cst.SimpleStatementLine] = []
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            out.append(stmt)
        elif not isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            for block in child_blocks(stmt):
                out += module_statements(block.body)
    return out


def child_blocks(node: cst.CSTNode) -> list[cst.IndentedBlock]:
    """The indented blocks a compound statement holds (its body, ``elif``/``else``, handlers, ``finally``)."""
    out: list[cst.IndentedBlock] = []
    for child in child_nodes(node):
        if isinstance(child, cst.IndentedBlock):
            out.append(child)
        elif isinstance(child, cst.If | cst.Else | cst.ExceptHandler | cst.Finally | cst.ExceptStarHandler):
            out += child_blocks(child)
    return out
