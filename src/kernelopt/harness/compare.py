"""Compare a candidate's outputs with the reference's (worker side; imports torch).

Checks, in the order their messages are most useful: number and type of outputs, shape, dtype,
device, elements never written (still holding the poison pattern), NaN / Inf where the reference has
none, an all-zero or constant output against a varying reference (fails even when within tolerance),
then the dtype-aware tolerance against the higher-precision reference. Input mutation and cached
results need state across calls and are checked by the worker with :func:`changed_elements`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from kernelopt.harness.inputs import poisoned_mask, tensors_in
from kernelopt.harness.tolerance import (
    Tolerance,
    default_tolerance,
    precision_for,
    user_tolerance,
    widened,
)


@dataclass
class OutputCheck:
    """The verdict on one call's outputs.

    Attributes:
        message: failure reason without the case prefix, ``None`` when it passed.
        error_class: check name of the failure.
        rel_err: max over outputs of ``||out - ref|| / ||ref||`` (finite elements, float64).
        max_abs_err: max absolute error over outputs.
        worst_ratio: max of ``|out - ref| / (atol + rtol |ref|)``.
        tolerance: tolerance of the first output.
        output_dtype: dtype of the first reference output.
    """

    message: str | None = None
    error_class: str | None = None
    rel_err: float | None = None
    max_abs_err: float | None = None
    worst_ratio: float | None = None
    tolerance: Tolerance | None = None
    output_dtype: str | None = None


def as_outputs(obj: Any) -> list[Any]:
    """A call's result as a flat list: a tensor, or the leaves of a tuple / list / dict (other values kept)."""
    if isinstance(obj, list | tuple):
        return [o for x in obj for o in as_outputs(x)]
    if isinstance(obj, dict):
        return [o for x in obj.values() for o in as_outputs(x)]
    return [obj]


def _index_of(flat: int, shape: torch.Size | tuple[int, ...]) -> str:
    """Flat index -> ``(i, j)`` text for the shape (``7`` for 0-d and 1-d tensors)."""
    if len(shape) <= 1:
        return str(flat)
    idx = []
    for dim in reversed(shape):
        idx.append(flat % dim)
        flat //= dim
    return str(tuple(reversed(idx)))


def _first_index(mask: torch.Tensor, shape: torch.Size) -> str:
    return _index_of(int(torch.nonzero(mask.reshape(-1))[0].item()), shape)


def _count(mask: torch.Tensor, total: int) -> str:
    return f"{int(mask.sum().item())} of {total} elements, first at index {_first_index(mask, mask.shape)}"


def changed_elements(before: torch.Tensor, after: torch.Tensor) -> int:
    """Elements that differ (NaN equal to NaN; a changed shape or dtype counts every element)."""
    if before.shape != after.shape or before.dtype != after.dtype:
        return max(before.numel(), after.numel())
    if before.is_floating_point() or before.is_complex():
        diff = (before != after) & ~(torch.isnan(before) & torch.isnan(after))
    else:
        diff = before != after
    return int(diff.sum().item())


def _rms(t: torch.Tensor) -> float:
    finite = t[torch.isfinite(t)] if t.is_floating_point() else t.double()
    if finite.numel() == 0:
        return 0.0
    return float(finite.double().pow(2).mean().sqrt().item())


def check_outputs(
    out_obj: Any,
    ref_native_obj: Any,
    ref_hi_obj: Any,
    *,
    dtype_hint: str | None = None,
    atol: float | None = None,
    rtol: float | None = None,
) -> OutputCheck:
    """Check one call's outputs against the reference.

    Args:
        out_obj: what the candidate returned.
        ref_native_obj: what the reference returned in the inputs' own dtypes (shape/dtype truth, and a
            measure of the reference's own rounding error).
        ref_hi_obj: the reference computed in higher precision (values truth).
        dtype_hint: the task card's dtype (``tf32`` relaxes fp32 outputs).
        atol: reference.py ``ATOL`` (used as given), or ``None`` for the default.
        rtol: reference.py ``RTOL``, or ``None``.
    """
    outs, refs, his = as_outputs(out_obj), as_outputs(ref_native_obj), as_outputs(ref_hi_obj)
    result = OutputCheck()
    if len(outs) != len(refs):
        result.message = f"kernel returned {len(outs)} output(s); the reference returns {len(refs)}"
        result.error_class = "WrongOutputCount"
        return result
    rel_errs: list[float] = []
    abs_errs: list[float] = []
    ratios: list[float] = []
    for k, (out, ref, hi) in enumerate(zip(outs, refs, his if len(his) == len(refs) else refs, strict=True)):
        name = f"output {k}" if len(outs) > 1 else "output"
        if not isinstance(ref, torch.Tensor):
            ref = torch.as_tensor(ref)
            hi = torch.as_tensor(hi)
            if not isinstance(out, torch.Tensor):
                try:
                    out = torch.as_tensor(out)
                except (TypeError, ValueError, RuntimeError):
                    result.message = f"{name} is {type(out).__name__}; the reference's is a number"
                    result.error_class = "WrongType"
                    return result
            out = out.to(ref.device)
        if not isinstance(out, torch.Tensor):
            result.message = f"{name} is {type(out).__name__}, not a tensor (the reference returns a tensor)"
            result.error_class = "WrongType" if out is not None else "NotWritten"
            return result
        if result.output_dtype is None:
            result.output_dtype = str(ref.dtype).removeprefix("torch.")
        if tuple(out.shape) != tuple(ref.shape):
            result.message = f"{name} has shape {tuple(out.shape)}; the reference's is {tuple(ref.shape)}"
            result.error_class = "WrongShape"
            return result
        if out.dtype != ref.dtype:
            result.message = f"{name} has dtype {out.dtype}; the reference's is {ref.dtype}"
            result.error_class = "WrongDtype"
            return result
        if out.device.type != ref.device.type:
            result.message = f"{name} is on {out.device.type}; the reference's is on {ref.device.type}"
            result.error_class = "WrongDevice"
            return result
        if out.numel() == 0:
            continue
        check = _check_values(name, out, ref, hi, dtype_hint=dtype_hint, atol=atol, rtol=rtol)
        if result.tolerance is None:
            result.tolerance = check.tolerance
        for lst, v in ((rel_errs, check.rel_err), (abs_errs, check.max_abs_err), (ratios, check.worst_ratio)):
            if v is not None:
                lst.append(v)
        if check.message is not None:
            result.message, result.error_class = check.message, check.error_class
            break
    result.rel_err = max(rel_errs) if rel_errs else None
    result.max_abs_err = max(abs_errs) if abs_errs else None
    result.worst_ratio = max(ratios) if ratios else None
    return result


def _check_values(
    name: str,
    out: torch.Tensor,
    ref: torch.Tensor,
    hi: torch.Tensor,
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
) -> OutputCheck:
    n = out.numel()
    res = OutputCheck()
    floating = ref.is_floating_point() or ref.is_complex()
    o64 = out.detach().to(torch.float64) if floating else out.detach().to(torch.int64).to(torch.float64)
    if tuple(hi.shape) != tuple(ref.shape):  # a reference that changed shape in float64: use its native result
        hi = ref
    r64 = hi.detach().to(torch.float64).to(o64.device)
    rn64 = ref.detach().to(torch.float64).to(o64.device)

    poisoned = poisoned_mask(out).reshape(out.shape)
    nan_o, nan_r = torch.isnan(o64), torch.isnan(r64)
    inf_o, inf_r = torch.isinf(o64), torch.isinf(r64)
    both_finite = torch.isfinite(o64) & torch.isfinite(r64)

    precision = precision_for(str(ref.dtype), dtype_hint=dtype_hint)
    ref_rms = _rms(r64)
    if atol is None and rtol is None:
        tol = default_tolerance(precision, ref_rms=ref_rms)
        # The candidate is not held to more than the reference itself achieves in this dtype.
        finite_ref = torch.isfinite(rn64) & torch.isfinite(r64)
        if floating and bool(finite_ref.any()):
            own = ((rn64 - r64).abs() / (tol.atol + tol.rtol * r64.abs()))[finite_ref].max().item()
            if own > 0.5:
                tol = widened(tol, 2.0 * own, "the reference's own error in its dtype")
    else:
        tol = user_tolerance(precision, atol=atol, rtol=rtol, ref_rms=ref_rms)
    res.tolerance = tol

    err = (o64 - r64).abs()
    err = torch.where(both_finite, err, torch.zeros_like(err))
    bound = tol.atol + tol.rtol * r64.abs()
    if tol.atol == 0 and tol.rtol == 0:
        ratio = torch.where(err > 0, torch.full_like(err, float("inf")), torch.zeros_like(err))
    else:
        ratio = err / torch.where(bound > 0, bound, torch.full_like(bound, 1e-300))
    bad_values = ratio > 1.0
    nan_mismatch = nan_o != nan_r
    inf_mismatch = (inf_o | inf_r) & ~(inf_o & inf_r & (torch.sign(o64) == torch.sign(r64)))
    bad = bad_values | nan_mismatch | inf_mismatch

    res.max_abs_err = float(err.max().item())
    ref_norm = float(torch.where(both_finite, r64, torch.zeros_like(r64)).norm().item())
    err_norm = float(err.norm().item())
    # relative to a zero reference only "no error" is defined; any other error has no relative size
    res.rel_err = err_norm / ref_norm if ref_norm > 0 else (0.0 if err_norm == 0 else None)
    res.worst_ratio = float(ratio.max().item()) if ratio.numel() else None

    not_written = poisoned & bad
    if bool(not_written.any()):
        res.message = (
            f"{name} not written: {int(not_written.sum().item())} of {n} elements still hold the poison pattern "
            f"(bytes 0x7F) the harness filled the memory with before the run "
            f"(first at index {_first_index(not_written, out.shape)})"
        )
        res.error_class = "NotWritten"
        return res
    if bool((nan_o & ~nan_r).any()):
        res.message = f"{name} contains NaN where the reference has none ({_count(nan_o & ~nan_r, n)})"
        res.error_class = "NaN"
        return res
    if bool((inf_o & ~inf_r).any()):
        res.message = f"{name} contains Inf where the reference is finite ({_count(inf_o & ~inf_r, n)})"
        res.error_class = "Inf"
        return res
    if bool(((nan_r | inf_r) & ~(nan_o | inf_o)).any()):
        res.message = (
            f"{name} is finite where the reference is NaN or Inf ({_count((nan_r | inf_r) & ~(nan_o | inf_o), n)})"
        )
        res.error_class = "Mismatch"
        return res

    finite_r = r64[torch.isfinite(r64)]
    if n > 1 and finite_r.numel() > 1:
        spread = float((finite_r.max() - finite_r.min()).item())
        scale = float(finite_r.abs().max().item())
        finite_o = o64[torch.isfinite(o64)]
        if spread > 1e-12 * max(scale, 1e-300) and finite_o.numel() == n and bool((finite_o == finite_o[0]).all()):
            value = float(finite_o[0].item())
            if value == 0.0:
                res.message = f"{name} is all zeros while the reference is not constant (it spans {spread:.3g})"
                res.error_class = "ZeroOutput"
            else:
                res.message = f"{name} is constant (every element = {value:.6g}) while the reference varies"
                res.error_class = "ConstantOutput"
            return res

    if bool(bad.any()):
        worst = int(torch.argmax(torch.where(torch.isfinite(ratio), ratio, torch.zeros_like(ratio))).item())
        idx = _index_of(worst, out.shape)
        size = (
            f"rel_err {res.rel_err:.3g}"
            if res.rel_err is not None
            else f"rel_err undefined (the reference is all zeros), max abs err {res.max_abs_err:.3g}"
        )
        res.message = (
            f"{name} differs from the reference beyond tolerance ({_count(bad, n)}; "
            f"worst at {idx}: got {o64.reshape(-1)[worst].item():.6g}, expected {r64.reshape(-1)[worst].item():.6g}; "
            f"{size}, atol {tol.atol:.3g}, rtol {tol.rtol:.3g}, {tol.precision.value})"
        )
        res.error_class = "Mismatch"
    return res


def outputs_equal(a: Any, b: Any) -> bool:
    """True when two calls returned bitwise-equal tensors (same count, shapes and values)."""
    ta, tb = tensors_in(a), tensors_in(b)
    if len(ta) != len(tb) or not ta:
        return False
    return all(
        x.shape == y.shape and x.dtype == y.dtype and changed_elements(x, y) == 0 for x, y in zip(ta, tb, strict=True)
    )


def same_storage(a: Any, b: Any) -> bool:
    """True when the outputs of two calls share memory (the same tensor returned again)."""
    ta, tb = tensors_in(a), tensors_in(b)
    return (
        bool(ta)
        and len(ta) == len(tb)
        and all(x.data_ptr() == y.data_ptr() and x.numel() > 0 for x, y in zip(ta, tb, strict=True))
    )
