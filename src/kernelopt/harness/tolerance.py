"""Dtype-aware correctness tolerances (pure; no torch).

An output element passes when ``|out - ref| <= atol + rtol * |ref|`` where ``ref`` is the reference
computed in higher precision (float64 when the reference can run in it). The default ``atol`` is an
absolute floor *scaled by the RMS of the reference output*, so a matmul whose outputs are around 90
and a softmax whose outputs are around 1e-3 are held to the same relative standard. ``ATOL`` / ``RTOL``
in reference.py replace the defaults and are used as given (unscaled, torch.allclose semantics).

Default figures. ``eps`` is the unit roundoff gap of the format (``torch.finfo(dtype).eps``):
fp32 2^-23, tf32 2^-10 (10 mantissa bits), bf16 2^-7, fp16 2^-10, fp8 e4m3 2^-3, e5m2 2^-2.

- fp64: rtol 1e-7, atol 1e-7 (x RMS).
- fp32: rtol 1e-4, atol 1e-4 (x RMS). Tight: about 800 eps, enough for a different summation order
  over K = 8192 terms (error ~ eps * K / sqrt(2) relative to the RMS, about 7e-6) but not for tf32
  (error ~ 2^-11 per product, about 5e-4), so an fp32 kernel that silently uses tf32 fails unless the
  task card declares ``dtype: tf32``.
- tf32, bf16, fp16, fp8: rtol 2 eps, atol 4 eps (x RMS): the output rounding alone is 0.5 eps, the
  rest allows fp32 accumulation in a different order. Compare torch.testing.assert_close (bf16 rtol
  1.6e-2, fp16 rtol 1e-3) and KernelBench (atol = rtol = 1e-2 for every dtype).
- integer and bool outputs: exact, unless the reference itself, run in its own dtype, differs from its float64 run
  by one step (a quantizer rounding ``x * 127 / absmax`` lands on the other side of a tie at a few elements in a
  million): then one step (:func:`within_steps`), whatever reference.py's ATOL says.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Precision(StrEnum):
    """The precision class an output is judged in."""

    FP64 = "fp64"
    FP32 = "fp32"
    TF32 = "tf32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8_E4M3 = "fp8_e4m3"
    FP8_E5M2 = "fp8_e5m2"
    EXACT = "exact"


EPS: dict[Precision, float] = {
    Precision.FP64: 2.0**-52,
    Precision.FP32: 2.0**-23,
    Precision.TF32: 2.0**-10,
    Precision.BF16: 2.0**-7,
    Precision.FP16: 2.0**-10,
    Precision.FP8_E4M3: 2.0**-3,
    Precision.FP8_E5M2: 2.0**-2,
    Precision.EXACT: 0.0,
}

_FIXED: dict[Precision, tuple[float, float]] = {
    Precision.FP64: (1e-7, 1e-7),
    Precision.FP32: (1e-4, 1e-4),
    Precision.EXACT: (0.0, 0.0),
}

_TORCH_NAMES: dict[str, Precision] = {
    "float64": Precision.FP64,
    "float32": Precision.FP32,
    "bfloat16": Precision.BF16,
    "float16": Precision.FP16,
    "float8_e4m3fn": Precision.FP8_E4M3,
    "float8_e4m3fnuz": Precision.FP8_E4M3,
    "float8_e5m2": Precision.FP8_E5M2,
    "float8_e5m2fnuz": Precision.FP8_E5M2,
}


class Tolerance(BaseModel):
    """The tolerance one output was checked with.

    Attributes:
        precision: the precision class.
        rtol: relative part.
        atol: absolute part as applied (already scaled when ``scaled_by_rms``).
        scaled_by_rms: True when ``atol`` is the default floor times the RMS of the reference.
        basis: where the figures come from (``default``, ``reference.py ATOL/RTOL``, ``widened ...``).
    """

    # an inf atol (reference.py's ATOL = math.inf) written as Infinity and read back as such: pydantic's default null
    # made a worker's whole result unreadable, "the worker exited with code 0 without a result", a FAIL (break21 b46)
    model_config = ConfigDict(ser_json_inf_nan="constants")

    precision: Precision
    rtol: float
    atol: float
    scaled_by_rms: bool
    basis: str


def reference_tolerance(reference: object) -> tuple[float | None, float | None]:
    """reference.py's ``ATOL`` and ``RTOL`` (a loaded module), each ``None`` where it gives none (the dtype-aware
    default then holds): the one reading of a problem's own tolerance, by the gate, tune's checks and the first
    call's compare."""
    return getattr(reference, "ATOL", None), getattr(reference, "RTOL", None)


def precision_for(dtype_name: str, *, dtype_hint: str | None = None) -> Precision:
    """The precision class of an output dtype (``torch.float16`` or ``float16``).

    ``dtype_hint`` is the task card's ``dtype``; ``tf32`` there turns fp32 outputs into the tf32 class.
    Unknown floating names fall back to fp32; everything that is not floating is exact.
    """
    name = dtype_name.strip().lower().removeprefix("torch.")
    hint = (dtype_hint or "").strip().lower()
    if name == "float32" and hint in ("tf32", "tfloat32"):
        return Precision.TF32
    if name in _TORCH_NAMES:
        return _TORCH_NAMES[name]
    if name.startswith(("float", "bfloat", "complex")):
        return Precision.FP32
    return Precision.EXACT


def default_tolerance(precision: Precision, *, ref_rms: float) -> Tolerance:
    """The default tolerance of a precision class, with the absolute floor scaled by ``ref_rms``.

    Args:
        precision: the class.
        ref_rms: root mean square of the (finite) reference output; 0 for an all-zero reference,
            in which case the floor is scaled by 1.
    """
    scale = ref_rms if ref_rms > 0 else 1.0
    if precision in _FIXED:
        rtol, atol = _FIXED[precision]
    else:
        eps = EPS[precision]
        rtol, atol = 2.0 * eps, 4.0 * eps
    return Tolerance(precision=precision, rtol=rtol, atol=atol * scale, scaled_by_rms=True, basis="default")


def user_tolerance(precision: Precision, *, atol: float | None, rtol: float | None, ref_rms: float) -> Tolerance:
    """``ATOL`` / ``RTOL`` from reference.py; a missing one keeps its default (the default atol is scaled)."""
    base = default_tolerance(precision, ref_rms=ref_rms)
    return Tolerance(
        precision=precision,
        rtol=float(rtol) if rtol is not None else base.rtol,
        atol=float(atol) if atol is not None else base.atol,
        scaled_by_rms=atol is None,
        basis="reference.py ATOL/RTOL",
    )


def widened(tol: Tolerance, factor: float, reason: str) -> Tolerance:
    """``tol`` with both parts multiplied by ``factor`` (>= 1), recording why."""
    f = max(1.0, factor)
    return Tolerance(
        precision=tol.precision,
        rtol=tol.rtol * f,
        atol=tol.atol * f,
        scaled_by_rms=tol.scaled_by_rms,
        basis=f"{tol.basis}, widened x{f:.3g}: {reason}",
    )


def within_steps(tol: Tolerance, steps: float, reason: str) -> Tolerance:
    """``tol`` with its absolute part raised to ``steps`` (an integer output's unit steps), recording why."""
    return Tolerance(
        precision=tol.precision,
        rtol=tol.rtol,
        atol=max(tol.atol, float(steps)),
        scaled_by_rms=False,
        basis=f"{tol.basis}, {steps:g} step(s) allowed: {reason}",
    )
