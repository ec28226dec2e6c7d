"""Knobs of a kernel source file: discovery and literal edits through a concrete syntax tree (libcst).

A *tunable* is a literal the rule-based implementer may move without touching anything else:

- ``launch_kwarg``: a literal keyword (or positional ``tl.constexpr``) argument at a Triton launch
  site, ``kern[grid](x, BLOCK_SIZE=1024, num_warps=4)``; a name passed there is followed to the
  literal that defines it (a local assignment, a tuple assignment, a parameter default);
- ``module_constant``: a module-level constant that feeds a launch argument (``BLOCK_M = 128``);
- ``autotune_config``: a value inside the ``triton.Config`` list of an existing ``@triton.autotune``;
- ``marked_constant``: a module-level constant marked ``# kernelopt: tunable`` (a CUDA block size, a
  value fed into a ``#define``), optionally with ``category=... values=... min=... max=...``.

Edits replace only the characters of the literal (and of grid literals kept consistent with it), so
formatting and comments survive byte for byte. When a launch grid repeats a block-size literal
(``triton.cdiv(n, 1024)`` beside ``BLOCK_SIZE=1024``) the two are edited together; when the repeat
sits in an expression that cannot be rewritten safely, or could belong to two knobs, the knob is
refused with the reason.

Legal values come from Triton's and CUDA's documented limits (see ``_KNOB_RULES``); rough resource
costs (shared memory of a pipelined GEMM tile, accumulator registers) reject configurations that
cannot fit (:func:`estimate_resources`).
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from pydantic import BaseModel, ConfigDict, Field

from kernelopt.actions import ActionCategory
from kernelopt.errors import KerneloptError

Value = int | float | bool | str

MARKER = "kernelopt: tunable"

# Triton launch options that are knobs (not kernel parameters). Source: triton.Config / the NVIDIA
# and AMD backends' compile options in Triton 3.x (num_warps, num_stages, num_ctas, maxnreg;
# waves_per_eu, matrix_instr_nonkdim, kpack on ROCm).
LAUNCH_OPTIONS = (
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "waves_per_eu",
    "matrix_instr_nonkdim",
    "kpack",
)

# Defaults Triton 3.x applies when a launch or triton.Config omits an option (triton.Config.__init__
# and CUDAOptions: num_warps=4, num_stages=3). Used only to estimate resources.
TRITON_DEFAULTS: dict[str, int] = {"num_warps": 4, "num_stages": 3}

# CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": at most 1024 threads
# per block and 255 32-bit registers per thread (all compute capabilities >= 5.0). AMD CDNA: at most
# 1024 work-items per workgroup (HIP programming guide).
MAX_THREADS_PER_BLOCK = 1024
MAX_REGISTERS_PER_THREAD_NVIDIA = 255
# Triton's TRITON_MAX_TENSOR_NUMEL (triton/language/core.py): the largest block a tl.arange may span.
TRITON_MAX_TENSOR_NUMEL = 1048576

_LEGAL_SOURCE_TRITON_ARANGE = "Triton: tl.arange ranges must be powers of two, at most TRITON_MAX_TENSOR_NUMEL"


class TunableError(KerneloptError):
    """A knob cannot be found, is refused, or the requested value is illegal or ambiguous."""

    exit_code = 2


class TunableKind(StrEnum):
    """Where the edited literal lives."""

    LAUNCH_KWARG = "launch_kwarg"
    AUTOTUNE_CONFIG = "autotune_config"
    MODULE_CONSTANT = "module_constant"
    MARKED_CONSTANT = "marked_constant"


class Legality(BaseModel):
    """The legal values of one knob.

    Attributes:
        values: the explicit set of legal values, when finite.
        power_of_two: the value must be a power of two.
        minimum: smallest legal value (inclusive).
        maximum: largest legal value (inclusive).
        multiple_of: the value must be a multiple of this.
        source: where the rule comes from (documentation or API contract).
    """

    model_config = ConfigDict(extra="forbid")

    values: list[Value] | None = None
    power_of_two: bool = False
    minimum: float | None = None
    maximum: float | None = None
    multiple_of: int | None = None
    source: str | None = None

    def problem(self, value: Value) -> str | None:
        """Why ``value`` is illegal, or ``None`` when it is legal."""
        if self.values is not None:
            return None if value in self.values else f"must be one of {self.values}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        if self.minimum is not None and value < self.minimum:
            return f"must be >= {_num(self.minimum)}"
        if self.maximum is not None and value > self.maximum:
            return f"must be <= {_num(self.maximum)}"
        if self.power_of_two and not (isinstance(value, int) and value > 0 and value & (value - 1) == 0):
            return "must be a power of two"
        if self.multiple_of and (not isinstance(value, int) or value % self.multiple_of):
            return f"must be a multiple of {self.multiple_of}"
        return None

    def enumerate(self) -> list[int] | None:
        """Every legal integer value when the set is finite and small (<= 32 values), else ``None``."""
        if self.values is not None:
            return [v for v in self.values if isinstance(v, int)] or None
        if self.minimum is None or self.maximum is None:
            return None
        lo, hi = math.ceil(self.minimum), int(self.maximum)
        if self.power_of_two:
            out = [1 << i for i in range(0, 40) if lo <= (1 << i) <= hi]
        else:
            step = self.multiple_of or 1
            start = lo + (-lo) % step
            out = list(range(start, hi + 1, step))
        if self.multiple_of:
            out = [v for v in out if v % self.multiple_of == 0]
        return out if len(out) <= 32 else None

    def describe(self) -> list[str]:
        """Human-readable constraints, one per line."""
        if self.values is not None:
            return [f"one of {self.values}"]
        out = []
        if self.power_of_two:
            out.append("power of two")
        if self.minimum is not None:
            out.append(f">= {_num(self.minimum)}")
        if self.maximum is not None:
            out.append(f"<= {_num(self.maximum)}")
        if self.multiple_of:
            out.append(f"multiple of {self.multiple_of}")
        return out


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


class Tunable(BaseModel):
    """One knob of a kernel file.

    Attributes:
        key: unique handle for :func:`apply` (``BLOCK_M`` for a constant, ``add_kernel:num_warps`` for a
            launch literal, ``matmul_kernel.configs[2].BLOCK_K`` inside an autotune list).
        name: the knob as the kernel sees it (``BLOCK_SIZE``, ``num_warps``).
        value: its current value.
        kind: where the literal lives.
        location: ``file:line`` of the literal that an edit rewrites.
        kernel: the Triton kernel it feeds, when known.
        feeds: every kernel parameter / launch option this literal feeds (a constant may feed several).
        used_at: ``file:line`` of the launch sites or configs that use it.
        groups: the launch sites / autotune configs it belongs to (resource estimates are per group).
        linked: ``file:line`` of grid literals kept consistent with it on edit.
        legality: the legal values.
        legal_values: the finite set of legal values, when small enough to list.
        constraints: human-readable legality constraints.
        categories: the action categories that move it, primary first.
        refused_reason: why it cannot be edited safely; ``None`` when it can.
    """

    model_config = ConfigDict(extra="forbid")

    key: str
    name: str
    value: Value | None
    kind: TunableKind
    location: str
    kernel: str | None = None
    feeds: list[str] = Field(default_factory=list)
    used_at: list[str] = Field(default_factory=list)
    groups: list[str] = Field(default_factory=list)
    linked: list[str] = Field(default_factory=list)
    legality: Legality = Field(default_factory=Legality)
    legal_values: list[Value] | None = None
    constraints: list[str] = Field(default_factory=list)
    categories: list[ActionCategory] = Field(default_factory=list)
    refused_reason: str | None = None

    @property
    def editable(self) -> bool:
        return self.refused_reason is None and self.value is not None

    @property
    def category(self) -> ActionCategory | None:
        """The primary action category that moves this knob."""
        return self.categories[0] if self.categories else None


class KnobEdit(BaseModel):
    """One knob moved by :func:`apply`."""

    model_config = ConfigDict(extra="forbid")

    key: str
    name: str
    before: Value
    after: Value
    location: str
    linked: list[str] = Field(default_factory=list)


class EditResult(BaseModel):
    """The outcome of :func:`apply`.

    Attributes:
        path: the edited file.
        edits: the knobs moved, in source order.
        diff: unified diff of the file (empty when nothing changed).
        written: True when the new text was written to ``path``.
        new_source: the edited text.
    """

    model_config = ConfigDict(extra="forbid")

    path: str
    edits: list[KnobEdit]
    diff: str
    written: bool = False
    new_source: str = Field(default="", exclude=True, repr=False)

    @property
    def knob_changes(self) -> dict[str, tuple[Value, Value]]:
        """Knob -> (before, after): by name when a name was edited at one place, else by key."""
        counts: dict[str, int] = {}
        for e in self.edits:
            counts[e.name] = counts.get(e.name, 0) + 1
        return {(e.name if counts[e.name] == 1 else e.key): (e.before, e.after) for e in self.edits}


# ---------------------------------------------------------------------------------------------------
# Knob rules: names -> categories and legality


@dataclass(frozen=True)
class _KnobRule:
    pattern: re.Pattern[str]
    categories: tuple[ActionCategory, ...]
    legality: Legality


def _rule(regex: str, cats: Iterable[ActionCategory], **legal: Any) -> _KnobRule:
    return _KnobRule(re.compile(regex, re.IGNORECASE), tuple(cats), Legality(**legal))


AC = ActionCategory
_KNOB_RULES: tuple[_KnobRule, ...] = (
    _rule(
        r"^num_warps$",
        [AC.NUM_WARPS, AC.OCCUPANCY],
        values=[1, 2, 4, 8, 16, 32],
        source="Triton: num_warps is a power of two; 32 warps x 32 threads = 1024, the CUDA limit of threads per block",
    ),
    _rule(
        r"^num_stages$",
        [AC.SOFTWARE_PIPELINING],
        minimum=1,
        source="Triton: num_stages >= 1 (software-pipelining depth of tl.range / K loops)",
    ),
    _rule(r"^num_ctas$", [], power_of_two=True, minimum=1, source="Triton: CTAs per cluster (Hopper), a power of two"),
    _rule(
        r"^maxnreg$",
        [AC.REGISTER_PRESSURE],
        minimum=1,
        maximum=MAX_REGISTERS_PER_THREAD_NVIDIA,
        source="CUDA C++ Programming Guide: at most 255 registers per thread",
    ),
    _rule(r"^waves_per_eu$", [AC.WAVE_OCCUPANCY, AC.OCCUPANCY], minimum=0, source="ROCm Triton: waves per EU hint"),
    _rule(
        r"^matrix_instr_nonkdim$",
        [AC.MFMA_USE],
        values=[0, 16, 32],
        source="ROCm Triton: MFMA instruction size (16 or 32; 0 lets the compiler choose)",
    ),
    _rule(r"^kpack$", [AC.MFMA_USE], values=[1, 2], source="ROCm Triton: kpack 1 or 2"),
    _rule(
        r"^(BLOCK|TILE)(_SIZE)?_?[MN]$|^BLOCK_SIZE_[MN]$|^TILE_SIZE_[MN]$",
        [AC.TILING, AC.BLOCK_SIZE],
        power_of_two=True,
        minimum=1,
        maximum=TRITON_MAX_TENSOR_NUMEL,
        source=_LEGAL_SOURCE_TRITON_ARANGE,
    ),
    _rule(
        r"^(BLOCK|TILE)(_SIZE)?_?K$|^BLOCK_SIZE_K$",
        [AC.TILING],
        power_of_two=True,
        minimum=1,
        maximum=TRITON_MAX_TENSOR_NUMEL,
        source=_LEGAL_SOURCE_TRITON_ARANGE,
    ),
    _rule(
        r"^(BLOCK|BLOCK_SIZE|BLOCK_SIZE_[A-Z]+|BLOCK_[A-Z]|[XYZR]_?BLOCK|BLOCK_[XYZR]|TILE|TILE_SIZE|BLOCK_D|BLOCK_DMODEL)$",
        [AC.BLOCK_SIZE],
        power_of_two=True,
        minimum=1,
        maximum=TRITON_MAX_TENSOR_NUMEL,
        source=_LEGAL_SOURCE_TRITON_ARANGE,
    ),
    _rule(r"^GROUP(_SIZE)?(_[MN])?$", [AC.L2_RASTERIZATION], minimum=1, source="grouped tile ordering: group >= 1"),
    _rule(r"^SPLIT_?K$", [AC.SPLIT_K], minimum=1, source="split-K factor >= 1"),
    _rule(
        r"^(VEC|VEC_SIZE|VECTOR_SIZE|VEC_WIDTH|VECTOR_WIDTH|ELEMS_PER_THREAD|ELEMENTS_PER_THREAD)$",
        [AC.VECTORIZED_ACCESS],
        power_of_two=True,
        minimum=1,
        maximum=16,
        source="vector width in elements: a power of two; 16 B is the widest global access (LDG.128)",
    ),
    _rule(r"^(NUM_SMS|NUM_PROGRAMS|NUM_CTAS_PERSISTENT)$", [AC.PERSISTENT_KERNEL], minimum=1, source="persistent grid"),
    _rule(
        r"^(THREADS|NUM_THREADS|THREADS_PER_BLOCK|BLOCK_THREADS|BLOCK_DIM|THREADS_PER_CTA)$",
        [AC.BLOCK_SIZE, AC.OCCUPANCY],
        minimum=32,
        maximum=MAX_THREADS_PER_BLOCK,
        multiple_of=32,
        source="CUDA C++ Programming Guide: at most 1024 threads per block; whole warps of 32",
    ),
)

_BLOCKISH = frozenset({AC.BLOCK_SIZE, AC.TILING})


def knob_rule(name: str) -> tuple[list[ActionCategory], Legality] | None:
    """Categories and legality of a knob named ``name`` (``None`` when the name is not a known knob)."""
    for r in _KNOB_RULES:
        if r.pattern.match(name):
            return list(r.categories), r.legality.model_copy(deep=True)
    return None


# ---------------------------------------------------------------------------------------------------
# Resources


class ResourceLimits(BaseModel):
    """Per-block limits used to reject configurations that cannot fit.

    Attributes:
        shared_memory_bytes: shared memory (LDS) per SM/CU, the upper bound of one block's share.
        max_registers_per_thread: registers per thread before spilling (NVIDIA: 255), ``None`` to skip.
        max_threads_per_block: threads per block.
        warp_size: threads per warp (32 NVIDIA, 64 AMD CDNA).
        elem_bytes: bytes per element of the tile operands (from the task card's dtype), ``None`` unknown.
        source: where the figures come from.
    """

    model_config = ConfigDict(extra="forbid")

    shared_memory_bytes: int | None = None
    max_registers_per_thread: int | None = MAX_REGISTERS_PER_THREAD_NVIDIA
    max_threads_per_block: int = MAX_THREADS_PER_BLOCK
    warp_size: int = 32
    elem_bytes: int | None = None
    source: str | None = None

    @classmethod
    def for_gpu(cls, gpu: str | None, dtype: str | None) -> ResourceLimits:
        """Limits of the GPU named ``gpu`` (wiki spec sheet) for operands of ``dtype``.

        Unknown figures stay ``None`` (their checks are skipped).

        Raises:
            UsageError: unknown GPU name or dtype.
        """
        elem = _dtype_bytes(dtype)
        if not gpu:
            return cls(elem_bytes=elem)
        from kernelopt.hardware.specs import lookup

        spec = lookup(gpu)
        smem = spec.figures.get("shared_memory_per_sm_bytes")
        amd = spec.vendor.lower() == "amd"
        return cls(
            shared_memory_bytes=int(smem.value) if smem and smem.value is not None else None,
            max_registers_per_thread=None if amd else MAX_REGISTERS_PER_THREAD_NVIDIA,
            warp_size=64 if amd else 32,
            elem_bytes=elem,
            source=spec.cite("shared_memory_per_sm_bytes") if smem and smem.value is not None else None,
        )


def _dtype_bytes(dtype: str | None) -> int | None:
    if not dtype:
        return None
    from kernelopt.hardware.specs import normalize_dtype

    return {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}.get(normalize_dtype(dtype))


class ResourceEstimate(BaseModel):
    """Rough per-block resource use of one launch configuration.

    Attributes:
        threads_per_block: ``num_warps * warp_size``.
        smem_bytes: shared memory of a pipelined GEMM tile, ``num_stages * (BM*BK + BK*BN) * elem_bytes``
            (``None`` when the group is not a BM/BN/BK tile or the dtype is unknown).
        acc_registers_per_thread: fp32 accumulator registers per thread, ``BM*BN / threads``.
    """

    threads_per_block: int | None = None
    smem_bytes: int | None = None
    acc_registers_per_thread: float | None = None


def _tile_dim(values: Mapping[str, Value], axis: str) -> int | None:
    for name, v in values.items():
        if isinstance(v, int) and not isinstance(v, bool):
            up = name.upper()
            if re.fullmatch(rf"(BLOCK|TILE)(_SIZE)?_?{axis}", up):
                return v
    return None


def estimate_resources(values: Mapping[str, Value], limits: ResourceLimits) -> ResourceEstimate:
    """Rough resource use of one launch/config given its knob values (Triton defaults fill the gaps)."""
    warps = values.get("num_warps", TRITON_DEFAULTS["num_warps"])
    stages = values.get("num_stages", TRITON_DEFAULTS["num_stages"])
    threads = warps * limits.warp_size if isinstance(warps, int) else None
    bm, bn, bk = _tile_dim(values, "M"), _tile_dim(values, "N"), _tile_dim(values, "K")
    smem = None
    if bm and bn and bk and isinstance(stages, int) and limits.elem_bytes:
        smem = max(stages, 1) * (bm * bk + bk * bn) * limits.elem_bytes
    acc = bm * bn / threads if bm and bn and bk and threads else None
    return ResourceEstimate(threads_per_block=threads, smem_bytes=smem, acc_registers_per_thread=acc)


def resource_problems(values: Mapping[str, Value], limits: ResourceLimits) -> list[str]:
    """Why the configuration ``values`` cannot fit the block limits (empty when it fits or is unknown)."""
    est = estimate_resources(values, limits)
    out = []
    if est.threads_per_block is not None and est.threads_per_block > limits.max_threads_per_block:
        out.append(f"{est.threads_per_block} threads per block > {limits.max_threads_per_block}")
    smem_cap = limits.shared_memory_bytes
    if est.smem_bytes is not None and smem_cap is not None and est.smem_bytes > smem_cap:
        out.append(
            f"estimated shared memory {est.smem_bytes} B (stages x (BM*BK + BK*BN) x {limits.elem_bytes} B) "
            f"> {limits.shared_memory_bytes} B per SM ({limits.source or 'spec sheet'})"
        )
    reg_cap = limits.max_registers_per_thread
    if est.acc_registers_per_thread is not None and reg_cap is not None and est.acc_registers_per_thread > reg_cap:
        out.append(
            f"fp32 accumulator alone needs {est.acc_registers_per_thread:.0f} registers per thread "
            f"> {limits.max_registers_per_thread} (certain spills)"
        )
    return out


# ---------------------------------------------------------------------------------------------------
# Analysis (internal): find the literal nodes behind every knob


@dataclass
class _Literal:
    node: cst.CSTNode
    value: Value
    start: int
    end: int
    line: int


@dataclass
class _Link:
    literal: _Literal
    delta: int  # the linked literal holds value + delta (0 for the divisor, -1 for "+ (B - 1)")


@dataclass
class _Site:
    key: str
    name: str
    kind: TunableKind
    literal: _Literal | None
    location_line: int
    kernel: str | None = None
    feeds: list[str] = field(default_factory=list)
    used_at: list[int] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    links: list[_Link] = field(default_factory=list)
    refused: str | None = None
    marker_rule: tuple[list[ActionCategory], Legality] | None = None
    value: Value | None = None


@dataclass
class _Binding:
    """One assignment of a name: the value expression (``None`` when not a simple assignment)."""

    value: cst.BaseExpression | None
    line: int
    chained: bool = False
    statement: cst.SimpleStatementLine | None = None


@dataclass
class _Resolved:
    """Where a name leads: its literal (or why it cannot be edited) and the variable that holds it."""

    literal: _Literal | None = None
    refused: str | None = None
    at_module: bool = False
    defined_as: str | None = None


@dataclass
class _FuncInfo:
    node: cst.FunctionDef
    params: list[cst.Param]
    locals: dict[str, list[_Binding]]


def _dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        base = _dotted(expr.value)
        return f"{base}.{expr.attr.value}" if base else None
    return None


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


class _BindingCollector(cst.CSTVisitor):
    """Assignments in one scope (a module body or a function body), not descending into nested scopes."""

    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange], root: cst.CSTNode) -> None:
        self.positions = positions
        self.root = root
        self.bindings: dict[str, list[_Binding]] = {}
        self._stmt: cst.SimpleStatementLine | None = None

    def _add(self, name: str, b: _Binding) -> None:
        self.bindings.setdefault(name, []).append(b)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        if node is not self.root:
            self._add(node.name.value, _Binding(None, self.positions[node].start.line))
            return False
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._add(node.name.value, _Binding(None, self.positions[node].start.line))
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

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._add(node.target.value, _Binding(node.value, self.positions[node].start.line, False, self._stmt))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self._add(node.target.value, _Binding(None, self.positions[node].start.line))

    def visit_For(self, node: cst.For) -> None:
        for name, _ in _bind_targets(node.target, None, self.positions[node].start.line):
            self._add(name, _Binding(None, self.positions[node].start.line))

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


class _LaunchCollector(cst.CSTVisitor):
    """Every ``x[grid](...)`` call with its enclosing function, and every function definition."""

    def __init__(self, positions: Mapping[cst.CSTNode, CodeRange]) -> None:
        self.positions = positions
        self.stack: list[_FuncInfo] = []
        self.launches: list[_Launch] = []
        self.functions: dict[str, list[_FuncInfo]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        bc = _BindingCollector(self.positions, node)
        node.body.visit(bc)
        params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
        info = _FuncInfo(node, params, bc.bindings)
        self.functions.setdefault(node.name.value, []).append(info)
        self.stack.append(info)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Subscript):
            self.launches.append(_Launch(node, self.stack[-1] if self.stack else None, self.positions[node].start.line))


class _Analyzer:
    """Finds every knob of one source text."""

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename
        try:
            wrapper = MetadataWrapper(cst.parse_module(source))
        except cst.ParserSyntaxError as exc:
            raise TunableError(f"{filename}: cannot parse: line {exc.raw_line}: {exc.message}") from None
        self.module = wrapper.module
        self.positions = wrapper.resolve(PositionProvider)
        self.line_starts = [0]
        for i, ch in enumerate(source):
            if ch == "\n":
                self.line_starts.append(i + 1)
        mc = _BindingCollector(self.positions, self.module)
        self.module.visit(mc)
        self.module_bindings = mc.bindings
        lc = _LaunchCollector(self.positions)
        self.module.visit(lc)
        self.launches = lc.launches
        self.functions = lc.functions
        self.sites: list[_Site] = []

    # -- helpers ----------------------------------------------------------------------------------

    def loc(self, line: int) -> str:
        return f"{self.filename}:{line}"

    def code(self, node: cst.CSTNode) -> str:
        return " ".join(self.module.code_for_node(node).split())

    def literal(self, expr: cst.BaseExpression | None) -> _Literal | None:
        """The editable literal of ``expr`` (``64``, ``True``, ``"x"``, ``tl.constexpr(64)``), or ``None``."""
        if expr is None:
            return None
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].keyword:
            fn = _dotted(expr.func)
            if fn and fn.split(".")[-1] == "constexpr":
                return self.literal(expr.args[0].value)
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
        return _Literal(expr, value, start, end, rng.start.line)

    def jit_kernel(self, name: str | None) -> _FuncInfo | None:
        """The ``@triton.jit`` function named ``name`` in this file (only when unique)."""
        if not name:
            return None
        found = [f for f in self.functions.get(name, []) if self.decorators(f.node)]
        return found[0] if len(found) == 1 else None

    def decorators(self, fn: cst.FunctionDef) -> dict[str, cst.Decorator]:
        out = {}
        for d in fn.decorators:
            expr = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            name = _dotted(expr)
            if name and name.split(".")[-1] in ("jit", "autotune", "heuristics"):
                out[name.split(".")[-1]] = d
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

    def _from_bindings(self, name: str, binds: list[_Binding], func: _FuncInfo | None, depth: int) -> _Resolved:
        where = f"{func.node.name.value}()" if func else "the module"
        if len(binds) > 1:
            lines = ", ".join(str(b.line) for b in binds)
            return _Resolved(refused=f"'{name}' is assigned more than once in {where} (lines {lines})")
        b = binds[0]
        if b.chained:
            return _Resolved(
                refused=f"'{name}' is assigned together with other names (line {b.line}); an edit would move both"
            )
        lit = self.literal(b.value)
        if lit is not None:
            return _Resolved(lit, at_module=func is None, defined_as=name)
        if isinstance(b.value, cst.Name):  # BLOCK = DEFAULT_BLOCK: follow the name
            inner = b.value.value
            scope = func if func is not None and inner in func.locals else None
            return self.resolve_name(inner, scope, depth + 1)
        if b.value is None:
            return _Resolved(refused=f"'{name}' is not a simple assignment in {where} (line {b.line})")
        return _Resolved(refused=f"'{name}' is computed in {where} (line {b.line}): {self.code(b.value)}")

    # -- sites ------------------------------------------------------------------------------------

    def add_site(self, site: _Site) -> None:
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

    def analyze(self) -> list[_Site]:
        self.marked_constants()
        self.launch_sites()
        self.autotune_configs()
        return self.sites

    def marked_constants(self) -> None:
        for stmt in self.module.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
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
            rule, problem = _marker_rule(comment)
            for small in stmt.body:
                pairs: list[tuple[str, Any]] = []
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    pairs = _bind_targets(small.targets[0].target, small.value, line)
                elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    pairs = [(small.target.value, small.value)]
                if not pairs:
                    self.sites.append(
                        _Site(
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
                    if len(self.module_bindings.get(name, [])) > 1:
                        refused = refused or f"'{name}' is assigned more than once in the module"
                    if lit is None:
                        refused = refused or "marked tunable but its value is not a literal"
                    self.sites.append(
                        _Site(
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

    def launch_sites(self) -> None:
        per_kernel: dict[str, int] = {}
        for la in self.launches:
            sub = la.call.func
            assert isinstance(sub, cst.Subscript)
            kname = _dotted(sub.value)
            kname = kname.split(".")[-1] if kname else None
            per_kernel[kname or "?"] = per_kernel.get(kname or "?", 0) + 1
        seen: dict[str, int] = {}
        for la in self.launches:
            sub = la.call.func
            assert isinstance(sub, cst.Subscript)
            dotted = _dotted(sub.value)
            kname = dotted.split(".")[-1] if dotted else None
            kdef = self.jit_kernel(kname)
            label = kname or "?"
            seen[label] = seen.get(label, 0) + 1
            launch_id = label if per_kernel[label] == 1 else f"{label}#{seen[label]}"
            args = self.launch_knobs(la, kdef)
            if not args:
                continue
            if kdef is None and not any(n in LAUNCH_OPTIONS for n, _ in args) and not _looks_like_kernel(kname):
                continue
            group = f"launch {launch_id} ({self.loc(la.line)})"
            launch_sites: list[_Site] = []
            for name, expr in args:
                lit = self.literal(expr)
                kind = TunableKind.LAUNCH_KWARG
                key = f"{launch_id}:{name}"
                refused = None
                if lit is None and isinstance(expr, cst.Name):
                    res = self.resolve_name(expr.value, la.func)
                    lit, refused = res.literal, res.refused
                    if lit is not None and res.at_module:
                        kind = TunableKind.MODULE_CONSTANT
                        key = res.defined_as or expr.value
                elif lit is None:
                    refused = f"value is computed at the launch: {self.code(expr)}"
                if lit is not None and not isinstance(lit.value, int | bool):
                    refused = refused or f"value {lit.value!r} is not an integer"
                site = _Site(
                    key,
                    name,
                    kind,
                    lit,
                    lit.line if lit else la.line,
                    kernel=kname,
                    feeds=[name],
                    used_at=[la.line],
                    groups=[group],
                    refused=refused,
                    value=lit.value if lit else None,
                )
                launch_sites.append(site)
            self.grid_links(la, launch_sites)
            for s in launch_sites:
                self.add_site(s)

    def launch_knobs(self, la: _Launch, kdef: _FuncInfo | None) -> list[tuple[str, cst.BaseExpression]]:
        constexpr = {p.name.value for p in kdef.params if _is_constexpr(p.annotation)} if kdef else set()
        out: list[tuple[str, cst.BaseExpression]] = []
        positional = 0
        for arg in la.call.args:
            if arg.star:
                positional = -(10**6)  # positions unknown after *args
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
        return out

    # -- grid consistency -------------------------------------------------------------------------

    def grid_exprs(self, la: _Launch) -> list[cst.CSTNode]:
        """The expression(s) computing the launch grid (followed through a name / lambda / def)."""
        sub = la.call.func
        assert isinstance(sub, cst.Subscript)
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

    def grid_links(self, la: _Launch, sites: list[_Site]) -> None:
        blockish = []
        for s in sites:
            rule = knob_rule(s.name)
            lit = s.literal
            is_int = lit is not None and isinstance(lit.value, int) and not isinstance(lit.value, bool)
            if is_int and s.refused is None and rule and _BLOCKISH & set(rule[0]):
                blockish.append(s)
        if not blockish:
            return
        for expr in self.grid_exprs(la):
            finder = _GridLiterals(self)
            expr.visit(finder)
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
                line = self.positions[deco].start.line
                configs_expr = None
                for i, arg in enumerate(deco.decorator.args):
                    if (arg.keyword and arg.keyword.value == "configs") or (arg.keyword is None and i == 0):
                        configs_expr = arg.value
                configs = self.config_list(configs_expr)
                if configs is None:
                    what = self.code(configs_expr) if configs_expr is not None else "missing"
                    self.sites.append(
                        _Site(
                            f"{fname}.configs",
                            "configs",
                            TunableKind.AUTOTUNE_CONFIG,
                            None,
                            line,
                            kernel=fname,
                            refused=f"autotune configs are built by code ({what}); edit them by hand",
                        )
                    )
                    continue
                for ci, el in enumerate(configs):
                    self.config_entry(fname, ci, el)

    def config_list(self, expr: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
        if isinstance(expr, cst.List | cst.Tuple):
            return [e.value for e in expr.elements]
        if isinstance(expr, cst.Name):
            binds = self.module_bindings.get(expr.value)
            if binds and len(binds) == 1 and isinstance(binds[0].value, cst.List | cst.Tuple):
                return self.config_list(binds[0].value)
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and not expr.args:
            fns = self.functions.get(expr.func.value, [])
            if len(fns) == 1:
                finder = _Returns()
                fns[0].node.body.visit(finder)
                if len(finder.values) == 1:
                    return self.config_list(finder.values[0])
        return None

    def config_entry(self, kernel: str, index: int, el: cst.BaseExpression) -> None:
        line = self.positions[el].start.line
        group = f"{kernel}.configs[{index}] ({self.loc(line)})"
        prefix = f"{kernel}.configs[{index}]"
        fn = _dotted(el.func) if isinstance(el, cst.Call) else None
        if not isinstance(el, cst.Call) or not fn or fn.split(".")[-1] != "Config":
            self.sites.append(
                _Site(
                    prefix,
                    "config",
                    TunableKind.AUTOTUNE_CONFIG,
                    None,
                    line,
                    kernel=kernel,
                    refused=f"config entry is not a triton.Config(...) literal: {self.code(el)}",
                )
            )
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
                _Site(
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


def _axis(name: str) -> str:
    """``BLOCK_M`` -> ``m``, ``BLOCK_SIZE_N`` -> ``n``."""
    return name.rsplit("_", 1)[-1].lower() if "_" in name else name.lower()


def _looks_like_kernel(name: str | None) -> bool:
    return bool(name) and ("kernel" in (name or "").lower())


class _Returns(cst.CSTVisitor):
    def __init__(self) -> None:
        self.values: list[cst.BaseExpression] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.values.append(node.value)


class _GridLiterals(cst.CSTVisitor):
    """Integer literals of a grid expression, classified.

    ``found`` holds (literal, role, numerator name): role ``divisor`` for the divisor of
    ``cdiv(X, L)``, ``X // L`` or ``X / L``; ``other`` for any other literal. ``partners`` maps a
    divisor to the literals that must move with it (``L - 1`` in ``(X + L - 1) // L``).
    """

    def __init__(self, an: _Analyzer) -> None:
        self.an = an
        self.found: list[tuple[_Literal, str, str | None]] = []
        self.partners: dict[int, list[tuple[_Literal, int]]] = {}
        self.context: dict[int, str] = {}
        self._claimed: set[int] = set()

    def _num_name(self, expr: cst.BaseExpression) -> str | None:
        if isinstance(expr, cst.Name):
            return expr.value
        if isinstance(expr, cst.BinaryOperation):
            return self._num_name(expr.left)
        return None

    def _divisor(self, node: cst.CSTNode, numerator: cst.BaseExpression, divisor: cst.BaseExpression) -> None:
        lit = self.an.literal(divisor)
        if lit is None or not isinstance(lit.value, int) or isinstance(lit.value, bool):
            return
        self._claimed.add(id(divisor))
        self.context[id(divisor)] = self.an.code(node)
        self.found.append((lit, "divisor", self._num_name(numerator)))
        partners: list[tuple[_Literal, int]] = []
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
        fn = _dotted(node.func)
        if fn and fn.split(".")[-1] == "cdiv" and len(node.args) == 2:
            self._divisor(node, node.args[0].value, node.args[1].value)

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
                legal["values"] = [_parse_scalar(v) for v in val.split(",") if v]
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
    return (cats, Legality(**legal)), None


def _parse_scalar(text: str) -> Value:
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


def _knob_legality(s: _Site) -> tuple[list[ActionCategory], Legality]:
    """Categories and legality of a site: the marker's options first, then the knob-name rules."""
    cats: list[ActionCategory] = []
    legal: Legality | None = None
    for feed in s.feeds or [s.name]:
        r = knob_rule(feed)
        if r:
            cats += [c for c in r[0] if c not in cats]
            legal = legal or r[1]
    if s.marker_rule is not None:
        m_cats, m_legal = s.marker_rule
        cats = m_cats or cats
        if m_legal.model_dump(exclude={"source"}, exclude_defaults=True):
            legal = m_legal
    if legal is None:
        is_count = isinstance(s.value, int) and not isinstance(s.value, bool)
        legal = Legality(minimum=1, source="a count or size: at least 1") if is_count else Legality()
    return cats, legal


def _to_tunable(an: _Analyzer, s: _Site) -> Tunable:
    cats, legal = _knob_legality(s)
    name = s.key if len(s.feeds) > 1 else s.name
    return Tunable(
        key=s.key,
        name=name,
        value=s.literal.value if s.literal else s.value,
        kind=s.kind,
        location=an.loc(s.location_line),
        kernel=s.kernel,
        feeds=list(s.feeds),
        used_at=[an.loc(u) for u in s.used_at],
        groups=list(s.groups),
        linked=list(dict.fromkeys(an.loc(lk.literal.line) for lk in s.links)),
        legality=legal,
        legal_values=legal.enumerate(),
        constraints=legal.describe(),
        categories=cats,
        refused_reason=s.refused,
    )


def _analyze(source: str, filename: str) -> tuple[_Analyzer, list[_Site], list[Tunable]]:
    an = _Analyzer(source, filename)
    sites = an.analyze()
    used: dict[str, int] = {}
    for s in sites:  # unique keys
        used[s.key] = used.get(s.key, 0) + 1
    for s in sites:
        if used[s.key] > 1:
            s.key = f"{s.key}@{s.location_line}"
    return an, sites, [_to_tunable(an, s) for s in sites]


def discover_source(source: str, filename: str = "kernel.py") -> list[Tunable]:
    """Every knob of the Python source ``source`` (pure; nothing is imported or run).

    Raises:
        TunableError: the source does not parse.
    """
    return _analyze(source, filename)[2]


def discover(path: Path) -> list[Tunable]:
    """Every knob of the kernel file ``path``, in source order of discovery.

    Raises:
        TunableError: the file does not parse.
        InputFileError: the file does not exist or is not UTF-8 text.
    """
    return discover_source(_read(path), Path(path).name)


def _read(path: Path) -> str:
    from kernelopt.errors import InputFileError

    p = Path(path)
    if not p.is_file():
        raise InputFileError(p, "no such file")
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputFileError(p, "not UTF-8 text") from None


_DIRECTION = re.compile(r"^\s*(x|\*|/|\+|-)\s*(\d+(?:\.\d+)?)\s*$")
_UP_WORDS = {"up", "increase", "bigger", "larger", "more", "deeper", "double", "next"}
_DOWN_WORDS = {"down", "decrease", "smaller", "fewer", "less", "shallower", "halve", "previous"}


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
    if isinstance(cur, bool):
        if text in ("True", "False", "true", "false"):
            return text.lower() == "true"
        raise TunableError(f"{t.key}: {direction!r} is not a boolean")
    if isinstance(cur, str):
        return text
    scalar = _parse_scalar(text)
    if isinstance(scalar, int | float) and not isinstance(scalar, bool) and not text.startswith(("+", "-")):
        return _typed(t, scalar)
    m = _DIRECTION.match(text)
    if m and isinstance(cur, int | float):
        op, num = m.group(1), float(m.group(2))
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
    if isinstance(t.value, int) and not isinstance(t.value, bool):
        if isinstance(value, float) and (math.isnan(value) or value != int(value)):
            raise TunableError(f"{t.key}: {value:g} is not an integer")
        return int(value)
    return float(value)


def _render(lit: _Literal, value: Value) -> str:
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
    if kernel is not None:
        mine = [t for t in found if t.kernel in (kernel, None)]
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
        refused = [t for t in found if not t.editable]
        if refused:
            t = refused[0]
            raise TunableError(f"{t.key} cannot be edited safely: {t.refused_reason or 'no literal value'}")
        if len(found) > 1 and not _is_direction(requested) and len({repr(t.value) for t in found}) > 1:
            sites = ", ".join(f"{t.key}={t.value}" for t in found)
            raise TunableError(f"{ident!r} is ambiguous: {sites}", hint="name one by its key, or give a direction (x2)")
        for t in found:
            new = step(t, requested)
            if type(new) is not type(t.value) and not (isinstance(t.value, float) and isinstance(new, int)):
                raise TunableError(f"{t.key}: {new!r} has the wrong type (the knob holds {type(t.value).__name__})")
            problem = t.legality.problem(new)
            if problem:
                src = f" ({t.legality.source})" if t.legality.source else ""
                raise TunableError(f"{t.key}={new!r} is illegal: {problem}{src}")
            if new == t.value:
                raise TunableError(f"{t.key} is already {t.value!r}: the change does nothing")
            out[t.key] = new
    return out


def _group_values(tunables: list[Tunable], new: Mapping[str, Value], group: str) -> dict[str, Value]:
    values: dict[str, Value] = {}
    for t in tunables:
        if group in t.groups and t.value is not None:
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
) -> EditResult:
    """Apply ``changes`` to ``source`` (pure); see :func:`apply`."""
    _, sites, tunables = _analyze(source, filename)
    new_values = plan_edits(tunables, changes, kernel=kernel)
    if limits is not None:
        touched = {g for t in tunables if t.key in new_values for g in t.groups}
        for g in sorted(touched):
            problems = resource_problems(_group_values(tunables, new_values, g), limits)
            if problems:
                raise TunableError(f"{g}: the new configuration cannot fit: {'; '.join(problems)}")
    by_key = {s.key: s for s in sites}
    spans: list[tuple[int, int, str]] = []
    edits: list[KnobEdit] = []
    for t in tunables:
        if t.key not in new_values:
            continue
        s = by_key[t.key]
        assert s.literal is not None
        new = new_values[t.key]
        spans.append((s.literal.start, s.literal.end, _render(s.literal, new)))
        for lk in s.links:
            if not isinstance(new, int):
                raise TunableError(f"{t.key}: grid literal needs an integer")
            spans.append((lk.literal.start, lk.literal.end, str(new + lk.delta)))
        edits.append(KnobEdit(key=t.key, name=t.name, before=t.value, after=new, location=t.location, linked=t.linked))
    spans.sort()
    for (_, e1, _), (s2, _, _) in itertools.pairwise(spans):
        if s2 < e1:
            raise TunableError("two requested edits overlap (the same literal named twice)")
    out, pos = [], 0
    for start, end, text in spans:
        out.append(source[pos:start])
        out.append(text)
        pos = end
    out.append(source[pos:])
    new_source = "".join(out)
    problems = _verify(source, sites, tunables, new_source, {e.key: e.after for e in edits}, filename)
    if problems:  # our bug, not the user's: the splice must touch only the planned literals
        raise AssertionError(f"tunable edit touched more than planned: {problems}")
    diff = "".join(
        difflib.unified_diff(
            source.splitlines(keepends=True),
            new_source.splitlines(keepends=True),
            fromfile=f"a/{filename}",
            tofile=f"b/{filename}",
        )
    )
    return EditResult(path=filename, edits=edits, diff=diff, new_source=new_source)


def apply(
    path: Path,
    changes: Mapping[str, Value],
    *,
    write: bool = True,
    limits: ResourceLimits | None = None,
    kernel: str | None = None,
) -> EditResult:
    """Move the knobs named in ``changes`` in the file ``path``, touching nothing but their literals.

    Args:
        path: the kernel file.
        changes: knob name or key -> new value or direction (see :func:`step`), e.g.
            ``{"num_warps": 8}``, ``{"BLOCK_SIZE": 2048}``, ``{"BLOCK_M": "x2"}``.
        write: write the new text to ``path`` (atomically); False for a dry run.
        limits: block resource limits; when given, configurations that cannot fit are refused.
        kernel: when a knob name occurs in several kernels, move only this kernel's (the profiled one).

    Returns:
        The edits with before/after values and the unified diff.

    Raises:
        TunableError: unknown, refused, ambiguous or illegal change, or a change that does nothing.
        InputFileError: the file is missing or not UTF-8.
    """
    from kernelopt.memory.store import atomic_write_text

    p = Path(path)
    result = apply_source(_read(p), changes, filename=p.name, limits=limits, kernel=kernel)
    result.path = str(p)
    if write and result.edits:
        atomic_write_text(p, result.new_source)
        result.written = True
    return result


def verify_only(old: str, new: str, expected: Mapping[str, Value], *, filename: str = "kernel.py") -> list[str]:
    """Problems if ``new`` differs from ``old`` in anything but the knobs ``expected`` (key -> value).

    Checks the knob values (every other knob unchanged, each expected one at its value) and the text
    (only lines holding a moved literal or its linked grid literals differ).
    """
    try:
        _, old_sites, before = _analyze(old, filename)
    except TunableError as exc:
        return [exc.message]
    return _verify(old, old_sites, before, new, expected, filename)


def _verify(
    old: str,
    old_sites: list[_Site],
    before: list[Tunable],
    new: str,
    expected: Mapping[str, Value],
    filename: str,
) -> list[str]:
    problems: list[str] = []
    try:
        after = {t.key: t for t in _analyze(new, filename)[2]}
    except TunableError as exc:
        return [exc.message]
    for t in before:
        now = after.get(t.key)
        if now is None:
            problems.append(f"{t.key} disappeared")
        elif t.key in expected:
            if now.value != expected[t.key]:
                problems.append(f"{t.key} is {now.value!r}, expected {expected[t.key]!r}")
        elif now.value != t.value:
            problems.append(f"{t.key} changed {t.value!r} -> {now.value!r} but was not planned")
    allowed_lines: set[int] = set()
    for s in old_sites:
        if s.key in expected and s.literal is not None:
            allowed_lines.add(s.literal.line)
            allowed_lines.update(lk.literal.line for lk in s.links)
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if len(old_lines) != len(new_lines):
        problems.append(f"line count changed ({len(old_lines)} -> {len(new_lines)})")
    else:
        for i, (x, y) in enumerate(zip(old_lines, new_lines, strict=True), start=1):
            if x != y and i not in allowed_lines:
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


__all__ = [
    "EditResult",
    "KnobEdit",
    "Legality",
    "ResourceEstimate",
    "ResourceLimits",
    "Tunable",
    "TunableError",
    "TunableKind",
    "apply",
    "apply_source",
    "discover",
    "discover_source",
    "estimate_resources",
    "knob_diff",
    "knob_rule",
    "plan_edits",
    "resource_problems",
    "step",
    "verify_only",
]
