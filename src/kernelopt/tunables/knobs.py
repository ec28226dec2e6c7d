"""What is known about knobs by name: the action categories that move them, their legal values (with
the source of each limit), and rough resource costs of a launch configuration."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from kernelopt.actions import ActionCategory
from kernelopt.errors import UsageError
from kernelopt.numeric import is_int
from kernelopt.tunables.model import Legality, Tunable, TunableKind, Value
from kernelopt.vocabulary import Vendor

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

#: The options of a ``tl.range`` loop (Triton 3.x): a loop's pipelining and unrolling, which Triton's interpreter
#: ignores as it ignores the launch's options.
LOOP_OPTIONS = frozenset(
    {"num_stages", "loop_unroll_factor", "warp_specialize", "flatten", "disallow_acc_multi_buffer", "disable_licm"}
)


def loop_option_note(option: str) -> str:
    """Why a ``constexpr`` fed only to a ``tl.range`` loop's ``option`` keeps its value on the CPU: the one wording
    ``tune`` and the planner say."""
    return (
        f"read only as the {option} of a tl.range loop, which Triton's interpreter ignores (as it does the launch's "
        "num_warps and num_stages): its timing on the CPU is noise, so it keeps its value"
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


# ---------------------------------------------------------------------------------------------------
# Knob rules: names -> categories and legality


@dataclass(frozen=True)
class _KnobRule:
    pattern: re.Pattern[str]
    categories: tuple[ActionCategory, ...]
    legality: Legality


#: A work group's name (Unsloth's ``ROPE_GROUP_SIZE``: heads a program): a knob only where the kernel and its launch
#: keep any value correct (:func:`kernelopt.tunables.groups.group_refusal`).
WORK_GROUP = r"^[A-Z][A-Z0-9]*_GROUP_SIZE$"


def is_work_group(name: str) -> bool:
    """Whether ``name`` names a work group (:data:`WORK_GROUP`)."""
    return re.match(WORK_GROUP, name, re.IGNORECASE) is not None


def _rule(regex: str, cats: Iterable[ActionCategory], *, cased: bool = False, **legal: Any) -> _KnobRule:
    return _KnobRule(re.compile(regex, 0 if cased else re.IGNORECASE), tuple(cats), Legality(**legal))


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
        r"^(BLOCK|BLOCK_SIZE|BLOCK_SIZE_[A-Z]+|BLOCK_[A-Z]|[XYZR]_?BLOCK(_SIZE)?|BLOCK_[XYZR]|TILE|TILE_SIZE|BLOCK_D|"
        r"BLOCK_DMODEL)$",  # trident's x_block_size / y_block_size (breaker21's q6)
        [AC.BLOCK_SIZE],
        power_of_two=True,
        minimum=1,
        maximum=TRITON_MAX_TENSOR_NUMEL,
        source=_LEGAL_SOURCE_TRITON_ARANGE,
    ),
    # upper case only: a lower-case group_n / group_k / group_size is the block of a quantization format (vLLM's and
    # SGLang's block-scaled GEMMs, GemLite), never a tile order (breaker23's q32)
    _rule(
        r"^GROUP(_SIZE)?(_[MN])?$",
        [AC.L2_RASTERIZATION],
        cased=True,
        minimum=1,
        source="grouped tile ordering: group >= 1",
    ),
    _rule(
        WORK_GROUP,
        [AC.OCCUPANCY],
        minimum=1,
        source="items a program handles in a loop bounded by min(start + G, n), the groups counted by a ceiling: any "
        "count >= 1 (kernelopt.tunables.groups)",
    ),
    # upper case only, as a constexpr or a setting is spelled: a lower-case rows / n_rows is the problem's size
    _rule(
        r"^ROWS(_PER_(PROG|PROGRAM|BLOCK|CTA))?$",
        [AC.BLOCK_SIZE, AC.OCCUPANCY],
        cased=True,
        minimum=1,
        source="rows a program handles (a band of rows, the grid counted by a ceiling; a tile of rows where a "
        "tl.arange spans it): a count >= 1; more rows a program are fewer programs (docs/faults.md, late50 l202)",
    ),
    _rule(r"^SPLIT_?K$", [AC.SPLIT_K], minimum=1, source="split-K factor >= 1"),
    _rule(
        r"^(NUM_KV_SPLITS|KV_SPLITS|NUM_SPLITS|SPLIT_KV|NUM_SPLITS_KV)$",
        [AC.SPLIT_K],
        minimum=1,
        source="split-KV (flash-decoding) factor >= 1: the sequence split among programs, merged after",
    ),
    _rule(
        r"^(VEC|VEC_SIZE|VECTOR_SIZE|VEC_WIDTH|VECTOR_WIDTH|ELEMS_PER_THREAD|ELEMENTS_PER_THREAD)$",
        [AC.VECTORIZED_ACCESS],
        power_of_two=True,
        minimum=1,
        maximum=16,
        source="vector width in elements: a power of two; 16 B is the widest global access (LDG.128)",
    ),
    _rule(
        r"^(NUM_SMS?|NUM_PROGRAMS|NUM_CTAS_PERSISTENT)$", [AC.PERSISTENT_KERNEL], minimum=1, source="persistent grid"
    ),
    _rule(
        r"^(THREADS|NUM_THREADS|THREADS_PER_BLOCK|BLOCK_THREADS|BLOCK_DIM|THREADS_PER_CTA)$",
        [AC.BLOCK_SIZE, AC.OCCUPANCY],
        minimum=32,
        maximum=MAX_THREADS_PER_BLOCK,
        multiple_of=32,
        source="CUDA C++ Programming Guide: at most 1024 threads per block; whole warps of 32",
    ),
)

BLOCKISH = frozenset({AC.BLOCK_SIZE, AC.TILING})


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
        elem = dtype_bytes(dtype)
        if not gpu:
            return cls(elem_bytes=elem)
        from kernelopt.hardware.specs import lookup

        spec = lookup(gpu)
        smem = spec.figures.get("shared_memory_per_sm_bytes")
        amd = spec.vendor.lower() == Vendor.AMD
        return cls(
            shared_memory_bytes=int(smem.value) if smem and smem.value is not None else None,
            max_registers_per_thread=None if amd else MAX_REGISTERS_PER_THREAD_NVIDIA,
            warp_size=64 if amd else 32,
            elem_bytes=elem,
            source=spec.cite("shared_memory_per_sm_bytes") if smem and smem.value is not None else None,
        )

    @classmethod
    def for_gpu_or_generic(cls, gpu: str | None, dtype: str | None) -> ResourceLimits:
        """:meth:`for_gpu`, or the limits that need no spec sheet when ``gpu`` or ``dtype`` is unknown."""
        try:
            return cls.for_gpu(gpu, dtype)
        except UsageError:
            return cls()

    @classmethod
    def for_target(cls, gpu: str | None, dtype: str | None) -> ResourceLimits:
        """The one rule for the limits a configuration is checked against: the named GPU's (:meth:`for_gpu_or_generic`),
        else, where no GPU is named, those every NVIDIA GPU of the spec sheets meets (:meth:`portable`), so that no
        tuning session nor planned tile edit proposes a tile that cannot launch (docs/faults.md p8, p12)."""
        return cls.for_gpu_or_generic(gpu, dtype) if gpu else cls.portable(dtype)

    @classmethod
    def portable(cls, dtype: str | None) -> ResourceLimits:
        """The limits every NVIDIA GPU of the spec sheets meets, for a configuration chosen where no GPU is named
        (``tune --device cpu``): the smallest shared memory of those sheets (today the L40S's), and operands of
        ``dtype``, unknown (or not a dtype we know): :data:`PORTABLE_ELEM_BYTES`. Without it a CPU tune of an fp32
        GEMM could write 128 x 128 x 256 tiles, which need 512 KiB of shared memory on an H100 (docs/faults.md,
        "Interpreter and GPU disagree", p8)."""
        from kernelopt.hardware.specs import builtin_specs

        key = "shared_memory_per_sm_bytes"
        sheets = [
            s
            for s in builtin_specs()
            if s.vendor.lower() == Vendor.NVIDIA and key in s.figures and s.figures[key].value is not None
        ]
        try:
            elem = dtype_bytes(dtype) or PORTABLE_ELEM_BYTES
        except UsageError:
            elem = PORTABLE_ELEM_BYTES
        if not sheets:
            return cls(elem_bytes=elem)
        smallest = min(sheets, key=lambda s: s.figures[key].value or 0)
        return cls(
            shared_memory_bytes=int(smallest.figures[key].value or 0),
            elem_bytes=elem,
            source=f"no GPU named: the smallest of the NVIDIA spec sheets, {smallest.name}: {smallest.cite(key)}",
        )


#: Bytes per tile element a configuration chosen for no named GPU assumes when the dtype is unknown: an fp32
#: operand, the widest a ``tl.dot`` multiplies on tensor cores (TF32), so the fit errs toward smaller tiles.
PORTABLE_ELEM_BYTES = 4


def dtype_bytes(dtype: str | None) -> int | None:
    """Bytes an element of ``dtype`` (a dtype word or spelling; ``int8``, which no card dtype names, is 1); ``None``
    when none is given or it is not a width we know.

    Raises:
        UsageError: not a known dtype.
    """
    if not dtype:
        return None
    if dtype == "int8":  # an integer GEMM's operands (kernelopt.harness.infer.INT8), which no card dtype names
        return 1
    from kernelopt.hardware.specs import normalize_dtype

    return {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}.get(normalize_dtype(dtype))


#: Block-sized fp32 tensors a 1-D Triton program keeps live at once, at the least: the loaded block and
#: an accumulator (a running max or sum, or the values kept for a second pass). With 255 registers per
#: thread (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability") a block of 128
#: or more elements per thread cannot stay in registers. Measured on the H200 (2026-11-29, the exhaustive
#: sweeps of docs/results.md): of the 22 elementwise, softmax and layernorm configurations with >= 128
#: elements per thread none came within 5 % of its example's best; the fastest was 12 % slower.
LIVE_BLOCK_TENSORS = 2
_ONE_D_BLOCK = re.compile(r"^(BLOCK|BLOCK_SIZE|[XYZR]_?BLOCK|BLOCK_[XYZR])$", re.IGNORECASE)


class ResourceEstimate(BaseModel):
    """Rough per-block resource use of one launch configuration.

    Attributes:
        threads_per_block: ``num_warps * warp_size``.
        smem_bytes: shared memory of a pipelined GEMM tile, ``num_stages * (BM*BK + BK*BN) * elem_bytes``
            (``None`` when the group is not a BM/BN/BK tile or the dtype is unknown).
        acc_registers_per_thread: fp32 accumulator registers per thread, ``BM*BN / threads``.
        block_registers_per_thread: registers per thread of a 1-D block (``BLOCK_SIZE``),
            ``LIVE_BLOCK_TENSORS * BLOCK / threads`` (one fp32 value per element and live tensor).
    """

    threads_per_block: int | None = None
    smem_bytes: int | None = None
    acc_registers_per_thread: float | None = None
    block_registers_per_thread: float | None = None


def _tile_dim(values: Mapping[str, Value | None], axis: str) -> int | None:
    for name, v in values.items():
        if is_int(v):
            up = name.upper()
            if re.fullmatch(rf"(BLOCK|TILE)(_SIZE)?_?{axis}", up):
                return v
    return None


def estimate_resources(values: Mapping[str, Value | None], limits: ResourceLimits) -> ResourceEstimate:
    """Rough resource use of one launch/config given its knob values (Triton defaults fill the gaps).

    A knob given as ``None`` is there with a value nobody could read (``num_warps=nw``, ``nw`` computed):
    it stays unknown, and so does everything estimated from it; only an absent knob takes its default.
    """
    warps = values.get("num_warps", TRITON_DEFAULTS["num_warps"])
    stages = values.get("num_stages", TRITON_DEFAULTS["num_stages"])
    threads = warps * limits.warp_size if isinstance(warps, int) else None
    bm, bn, bk = _tile_dim(values, "M"), _tile_dim(values, "N"), _tile_dim(values, "K")
    smem = None
    if bm and bn and bk and isinstance(stages, int) and limits.elem_bytes:
        smem = max(stages, 1) * (bm * bk + bk * bn) * limits.elem_bytes
    acc = bm * bn / threads if bm and bn and bk and threads else None
    block = next(
        (v for n, v in values.items() if _ONE_D_BLOCK.match(n) and is_int(v)),
        None,
    )
    block_regs = LIVE_BLOCK_TENSORS * block / threads if block and threads else None
    return ResourceEstimate(
        threads_per_block=threads,
        smem_bytes=smem,
        acc_registers_per_thread=acc,
        block_registers_per_thread=block_regs,
    )


def resource_problems(values: Mapping[str, Value | None], limits: ResourceLimits) -> list[str]:
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
    regs = est.block_registers_per_thread
    if regs is not None and reg_cap is not None and regs > reg_cap:
        out.append(
            f"a 1-D block of {regs / LIVE_BLOCK_TENSORS:.0f} elements per thread keeps {regs:.0f} fp32 registers per "
            f"thread live (at least {LIVE_BLOCK_TENSORS} block-sized tensors) > {limits.max_registers_per_thread} "
            "(certain spills)"
        )
    return out


# ---------------------------------------------------------------------------------------------------
# Launch options a launch leaves out

#: Options offered when a launch leaves them out, at the value Triton then uses (triton.Config.__init__ and
#: the NVIDIA backend's CUDAOptions in Triton 3.x: num_warps=4, num_stages=3, num_ctas=1). ``num_ctas`` is
#: offered only where thread-block clusters exist (compute capability 9.0 and later: Hopper, Blackwell;
#: CUDA C++ Programming Guide, "Thread Block Clusters").
ABSENT_OPTION_DEFAULTS: dict[str, int] = {"num_warps": 4, "num_stages": 3, "num_ctas": 1}
ABSENT_OPTION_SOURCE = "Triton's default when the launch leaves it out (triton.Config / CUDAOptions)"
CONSTANT_SOURCE = "an element of literals the launching function binds once (cfg = [1024, 4])"
"""The ``value_source`` of a setting computed from constants alone (``BLOCK=cfg[0]`` of a local ``cfg = [1024, 4]``):
the same at every size, so one value picked for every size is as general as it (leftovers22, l22)."""

#: what a computed setting that reads no size of the problem is said to read (:func:`sizeless_reason`)
NO_SIZE = "no size of the problem (a device, a dtype or constants)"


def table_computed(t: Tunable) -> bool:
    """A knob the kernel computes from the problem, whose pick is written as a table that falls back on it; a setting
    read from literals alone (``cfg[0]`` of a local ``cfg = [1024, 4]``, :data:`CONSTANT_SOURCE`) is the same at
    every size, so its pick is one value, written as a literal's is (leftovers22 l22)."""
    if t.value_source == CONSTANT_SOURCE and not t.size_names:
        return False
    return t.kind is TunableKind.COMPUTED_SETTING or (t.kind is TunableKind.HEURISTIC and t.computed is not None)


def left_reason(t: Tunable, reads: str) -> str:
    """Why ``tune`` leaves a computed setting alone that reads ``reads`` and no size every ``SHAPES`` entry names."""
    return (
        f"computed ({t.computed}) from {reads}, which no SHAPES entry names as a size: a table that falls back on the "
        "computation needs one, so it is left alone"
    )


def sizeless_reason(t: Tunable) -> str | None:
    """Why ``tune`` leaves ``t`` alone whatever a run tells (:func:`left_reason`): a setting computed from the problem
    that reads no size at all (Megatron's ``NUM_SMS = get_compute_units()``); ``None`` for any other knob. The
    planner lists no such knob as a session's target (breaker22: ``optimize``'s plan named ``NUM_SMS``, which its
    session then left alone; late30 z82)."""
    if not table_computed(t) or not t.editable or t.kernel is None or t.size_names:
        return None
    return left_reason(t, NO_SIZE)


def clusters_supported(gpu: str | None) -> bool:
    """True when ``gpu`` (a wiki spec-sheet name) is an NVIDIA GPU of compute capability 9.0 or later.

    An unknown or missing name is ``False`` (``num_ctas`` is then not offered).
    """
    if not gpu:
        return False
    from kernelopt.hardware.specs import lookup

    try:
        spec = lookup(gpu)
    except UsageError:
        return False
    m = re.fullmatch(r"sm_(\d+)", spec.arch)
    return spec.vendor.lower() == "nvidia" and m is not None and int(m.group(1)) >= 90


def absent_options(gpu: str | None) -> dict[str, int]:
    """The launch options offered when a launch leaves them out, with Triton's defaults."""
    out = dict(ABSENT_OPTION_DEFAULTS)
    if not clusters_supported(gpu):
        del out["num_ctas"]
    return out


# ---------------------------------------------------------------------------------------------------
# Semantic parameters: they change what the kernel computes

_SEMANTIC_NAME = re.compile(
    r"^(HAS|RETURN|IS|USE|ENABLE|APPLY|WITH|SAVE|STORE|COMPUTE|EVEN|ADD|FUSE|DO|NEED|CAUSAL|TRANS)(_|$)"
    r"|(^|_)(ACTIVATION|ACT|MODE|REDUCTION|OP|OPERATION|DTYPE|TYPE|KIND|CAUSAL|NORM|TRANSPOSE|TRANS_[AB]|LAYOUT|"
    r"PRECISION|ROUNDING|AXIS|BIAS|RESIDUAL|DROPOUT)$",
    re.IGNORECASE,
)
#: Names of a size of the problem (``embedding_dim``, ``HEAD_DIM``) and of a value the computation reads (an
#: epsilon, a scale, a seed, a multiple the result is padded to): no flag nor selector, said in their own words
#: (liger_embed's ``embedding_dim`` was "a flag or selector", breaker15; Megatron's ``pad_multiple``, each expert's
#: count padded up to it, was tuned 4..64 and failed 8 of 10 candidates, breaker22's p3).
_SIZE_NAME = re.compile(r"(^|_)DIM$", re.IGNORECASE)
_VALUE_NAME = re.compile(r"(^|_)(SCALE|EPS|SEED|MULTIPLE)$", re.IGNORECASE)


def semantic_reason(name: str, value: Value | None) -> str | None:
    """Why the parameter ``name`` (now ``value``) changes what a kernel computes, or ``None``.

    A boolean or string value (a flag, an activation or mode selector) or a name of that family
    (``HAS_BIAS``, ``RETURN_LSE``, ``ACTIVATION``, ``REDUCTION_MODE``, ``EVEN_K``) is semantic, and so is a name of a
    size (``embedding_dim``) or of a value the computation reads (``SCALE``, ``EPS``, ``SEED``), each said in its own
    words. Names of performance knobs (:func:`knob_rule`) with numeric values never are.
    """
    if isinstance(value, bool):
        return f"'{name}' is a boolean flag: it selects what the kernel computes, not how fast"
    if isinstance(value, str):
        return f"'{name}' selects a mode ({value!r}): it changes what the kernel computes"
    if knob_rule(name) is not None:
        return None
    if _SIZE_NAME.search(name):
        return (
            f"'{name}' names a size of the problem (a dimension): another value is another problem, not the same "
            "one faster"
        )
    if _VALUE_NAME.search(name):
        return (
            f"'{name}' names a value the computation reads (a scale, an epsilon, a seed or a multiple to pad to): it "
            "changes the result"
        )
    if _SEMANTIC_NAME.search(name):
        return f"'{name}' names a flag or selector: it changes what the kernel computes"
    return None
