"""What a ``tl.dot``'s precision means for a kernel's check, and what ``tune`` says of it. It reads kernel.py and
reference.py; the dtype of the operands, where no task card names it, is what reference.py's tensors mostly hold, read
by the probe of :func:`kernelopt.harness.infer.operand_dtype` (a worker, once per file and process).

Triton's interpreter multiplies a ``tl.dot``'s operands in fp32; a GPU multiplies fp32 operands in TF32 where the
kernel leaves ``input_precision`` to Triton's default, and sums an fp8 dot's K tile in fewer bits than fp32. A check
on the CPU cannot show either error, and a check on a GPU held to an fp32 tolerance fails the kernel as written:
:func:`tf32_line` says so before a session on the CPU, :func:`current_failed_hint` when the kernel as written fails
its own check (only a failure of values hears of precision: :func:`kernelopt.harness.hints.hint_fits`).
"""

from __future__ import annotations

from kernelopt.errors import UsageError
from kernelopt.harness.sizes import size_constants
from kernelopt.kernelsource import dot_operand_casts, dots_default_precision, triton_dots
from kernelopt.tunables.knobs import dtype_bytes
from kernelopt.tuning.problem import Problem

#: The relative tolerance a check of a TF32 ``tl.dot`` needs: the one the H100 run's fp32 GEMMs were given
#: (docs/gpu-runs/2026-12-05-h100-d: their worst element differed by 7.7e-4 relative, past 1e-3).
TF32_RTOL = 1e-2


def tf32_line(problem: Problem) -> str | None:
    """One line for a Triton kernel checked on the CPU whose ``tl.dot`` leaves ``input_precision`` to Triton's default
    (TF32 on NVIDIA GPUs) while reference.py's ``RTOL`` is tighter than :data:`TF32_RTOL` and no task card says the
    operands are not fp32: the interpreter multiplies in fp32, so the check passes here and fails on a GPU
    (docs/faults.md, "Interpreter and GPU disagree", p3); ``None`` otherwise."""
    if not problem.interpreted or not dots_default_precision(problem.kernel_py):
        return None
    rtol = problem.rtol if problem.rtol is not None else size_constants(problem.reference_py).get("RTOL")
    if isinstance(rtol, int | float) and rtol >= TF32_RTOL:
        return None
    if not _in_tf32(problem, _operand_kind(problem)):
        return None  # bf16 / fp16 / fp8 / int8 operands, or tf32 already asked for: no fp32 multiplied in TF32
    return (
        f"on a GPU {problem.kernel_py.name}'s tl.dot multiplies fp32 operands in TF32 (Triton's default, about 1e-3 "
        f"relative); Triton's interpreter multiplies them in fp32, so this check cannot show that error: {_TF32_FIX}"
    )


_TF32_FIX = (
    f'pass input_precision="ieee", or give reference.py an RTOL of {TF32_RTOL:g} (what TF32 meets) and an ATOL near '
    "1e-3 of the output's largest magnitude (a long dot's error does not shrink where an output is near zero)"
)
"""What a kernel whose ``tl.dot`` runs in TF32 against an fp32 check can do (:func:`tf32_line`,
:func:`current_failed_hint`). The ATOL: breaker25's Lightning Attention (causal linear attention, fp32 operands),
TF32 emulated in torch, was 0.016 off at 1024 steps where its outputs reached 41, 0.027 at 2048 (58), 0.048 at 8192
(128): about 4e-4 of the largest output, past an ATOL of 5e-3 with an RTOL of 0.01 for 173 of 131072 outputs at 1024
steps (q54)."""


def current_failed_hint(problem: Problem, error_class: str | None = None) -> str:
    """What to do about a kernel that fails its own check as written (the session's ``current_failed`` stop), by the
    failure's class (``error_class``, the check's name: :func:`kernelopt.harness.hints.hint_fits`, one rule):
    `validate` runs the gate's check; only values beyond the tolerance hear of precision: on a GPU, a ``tl.dot`` left
    to Triton's default precision multiplies fp32 in TF32, which an fp32 tolerance does not allow, and one of fp8
    operands sums its K tile in fewer bits than fp32 (:data:`FP8_DOT_LINE`), which no input precision changes. A
    device, shape or dtype mismatch hears of neither, nor of the tolerance; ``None``: not known (a value's hints)."""
    from kernelopt.harness.hints import Hint, failure_class, hint_fits

    check = "`kernelopt validate` runs the gate's check"
    if error_class is not None and not hint_fits(Hint.PRECISION, failure_class(error_class)):
        return f"fix the kernel (no tolerance or precision changes this failure); {check}"
    if not problem.interpreted and triton_dots(problem.kernel_py):
        kind = _operand_kind(problem)
        if kind == "fp8":
            return f"{FP8_DOT_LINE}; then {check}"
        if _in_tf32(problem, kind):
            return (
                "its tl.dot multiplies fp32 operands in TF32 (Triton's default on NVIDIA GPUs, about 1e-3 relative): "
                f"{_TF32_FIX}; then {check}"
            )
    return f"fix the kernel, or its tolerance (ATOL/RTOL in reference.py); {check}"


FP8_DOT_LINE = (
    "its tl.dot multiplies fp8 operands, and NVIDIA's fp8 tensor cores sum each K tile in fewer bits than fp32 "
    "(an H100 was off by 2.7e-3 where the fp64 reference read 4.33, on 2026-12-06): give reference.py an ATOL near "
    "1e-3 of the output's largest magnitude, not an fp32 RTOL"
)
"""Why a GEMM of fp8 operands fails an fp32 tolerance on a GPU and passes in the interpreter (which multiplies in
fp32): breaker11's fp8_block_gemm, DeepSeek-V3's block-scaled GEMM, judged failed as written on an H100 with an RTOL
of 1e-4 (docs/gpu-runs/2026-12-06-h100-e), and told of TF32, which it does not use."""


def operands_dtype(problem: Problem, named: str | None) -> str | None:
    """The dtype a kernel's ``tl.dot`` multiplies: ``named`` (``--dtype``, the task card's), else, for a kernel with
    a ``tl.dot``, what reference.py's tensors mostly hold (:func:`kernelopt.harness.infer.operand_dtype`, int8
    included: breaker11's int8 GEMM was sized at 4 B an element and told of TF32, docs/faults.md small11 s1); and
    where the kernel casts a dot's operand to a wider dtype (:func:`~kernelopt.kernelsource.dot_operand_casts`), the
    widest of those casts: breaker29's int4_mm multiplies its uint8 codes and float16 activations in float32, and
    its tiles were sized at 1 B an element (docs/faults.md, l200)."""
    if not triton_dots(problem.kernel_py):
        return named
    found = named
    if not found:
        from kernelopt.harness.infer import operand_dtype

        found = operand_dtype(problem.reference_py, device=problem.device or "auto")
    return _widest([found, *(_cast_word(c) for c in dot_operand_casts(problem.kernel_py))])


def _cast_word(tl_dtype: str) -> str | None:
    """``float32`` -> ``fp32``, ``float8e4nv`` -> ``fp8``, ``int8``/``uint8`` -> ``int8``; ``None``: not an operand
    width we know (an integer index, ``int32``)."""
    if tl_dtype.startswith("float8"):
        return "fp8"
    if tl_dtype in ("int8", "uint8"):
        return "int8"
    return _dtype_of(tl_dtype)


def _widest(dtypes: list[str | None]) -> str | None:
    """The dtype of the most bytes an element among ``dtypes`` (the first of them on a tie, so a named dtype stays
    where nothing is wider); ``None`` when none is given."""
    best, most = None, 0
    for dtype in dtypes:
        if dtype is None:
            continue
        try:
            size = dtype_bytes(dtype) or 0
        except UsageError:
            size = 0
        if best is None or size > most:
            best, most = dtype, size
    return best


def _operand_kind(problem: Problem) -> str | None:
    """The dtype word of what a kernel's ``tl.dot`` multiplies (:func:`operands_dtype` of the task card's dtype:
    ``fp32``, ``bf16``, ``fp8``, ...; ``int8``, which no card dtype names, as itself); ``None`` when nothing tells.
    The one reading of the operands :func:`tf32_line` and :func:`current_failed_hint` judge by."""
    operands = operands_dtype(problem, problem.dtype_hint)
    return None if operands is None else (_dtype_of(operands) or operands)


def _in_tf32(problem: Problem, kind: str | None) -> bool:
    """Whether ``problem``'s ``tl.dot`` multiplies in TF32 on an NVIDIA GPU: it leaves ``input_precision`` to Triton's
    default and its operands (``kind``, :func:`_operand_kind`) are fp32 or named by nothing."""
    return kind in (None, "fp32") and dots_default_precision(problem.kernel_py)


def _dtype_of(hint: str) -> str | None:
    from kernelopt.hardware.specs import normalize_dtype

    try:
        return normalize_dtype(hint)
    except UsageError:
        return None
