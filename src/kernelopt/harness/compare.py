"""Compare a candidate's outputs with the reference's (worker side; imports torch).

Checks, in the order their messages are most useful: number and type of outputs, shape, dtype,
device, elements never written (still holding the poison pattern), NaN / Inf where the reference has
none, an all-zero or constant output against a varying reference (fails even when within tolerance),
then the dtype-aware tolerance against the higher-precision reference. Inputs modified in place are judged by
:mod:`kernelopt.harness.inplace` (with :func:`changed_elements`); cached results need state across calls and are
checked by the worker.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from kernelopt.harness.chunks import chunk_for
from kernelopt.harness.indices import judge_selection
from kernelopt.harness.inputs import poisoned_mask, tensors_in
from kernelopt.harness.model import ReferenceFault, shown_value
from kernelopt.harness.tolerance import (
    Tolerance,
    default_tolerance,
    precision_for,
    user_tolerance,
    widened,
    within_steps,
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


def _what(obj: Any) -> str:
    """How an output's container is named in a line: ``a tensor``, ``a tuple of 2``, ``a dict with keys a, b``."""
    if isinstance(obj, list | tuple):
        return f"a {type(obj).__name__} of {len(obj)}"
    if isinstance(obj, dict):
        return f"a dict with keys {', '.join(map(str, obj))}" if obj else "an empty dict"
    return "a tensor" if isinstance(obj, torch.Tensor) else f"a {type(obj).__name__}"


def _built(obj: Any) -> str:
    """:func:`_what`, and what a sequence holds where none of it is a tensor (``a list of 1000 float``: a kernel's
    ``y.tolist()`` read as 1000 outputs, newuser13's n72)."""
    what = _what(obj)
    if isinstance(obj, list | tuple) and obj and not any(isinstance(o, torch.Tensor) for o in obj):
        kinds = sorted({type(o).__name__ for o in obj})
        return f"{what} {' and '.join(kinds)}, not tensors"
    return what


def structure_fault(out: Any, ref: Any, name: str = "output") -> str | None:
    """Why the kernel's output is not built as the reference's is (a tensor where it returns a tuple of one, or the
    reverse; another nesting; a dict with other keys), in one line; ``None`` when it is. A list and a tuple are one
    build, as are a tensor and a number (a number the reference returns may come back as a 0-d tensor). The flat
    comparison (:func:`as_outputs`) read ``relu(x)`` against ``(relu(x),)`` as the same output: a caller that indexes
    or unpacks the reference's result breaks on the kernel's (docs/faults.md refblame14 r12)."""

    def kind(obj: Any) -> str:
        return "sequence" if isinstance(obj, list | tuple) else "dict" if isinstance(obj, dict) else "value"

    if kind(out) != kind(ref):
        return f"{name} is {_what(out)}; the reference returns {_what(ref)}"
    if isinstance(out, dict) and isinstance(ref, dict):
        if set(out) != set(ref):
            return f"{name} is {_what(out)}; the reference returns {_what(ref)}"
        pairs = [(f"{name}[{k!r}]", out[k], ref[k]) for k in ref]
    elif isinstance(out, list | tuple) and isinstance(ref, list | tuple):
        if len(out) != len(ref):
            return f"{name} is {_what(out)}; the reference returns {_what(ref)}"
        pairs = [(f"{name}[{i}]", o, r) for i, (o, r) in enumerate(zip(out, ref, strict=True))]
    else:
        return None
    return next((f for f in (structure_fault(o, r, n) for n, o, r in pairs) if f is not None), None)


def in_order_of(out: Any, ref: Any) -> Any:
    """``out`` with each dict's entries in the order of the reference's dict at its place (the same keys): the
    outputs are compared flat (:func:`as_outputs`), and a dict built in another order is the same output. A sequence
    comes back a plain list or tuple: a named tuple's class takes its fields one by one, not an iterable
    (docs/faults.md break15 b8)."""
    if isinstance(out, dict) and isinstance(ref, dict) and set(out) == set(ref):
        return {k: in_order_of(out[k], ref[k]) for k in ref}
    if isinstance(out, list | tuple) and isinstance(ref, list | tuple) and len(out) == len(ref):
        items = [in_order_of(o, r) for o, r in zip(out, ref, strict=True)]
        return items if isinstance(out, list) else tuple(items)
    return out


def _index_of(flat: int, shape: torch.Size | tuple[int, ...]) -> str:
    """Flat index -> ``(i, j)`` text for the shape (``7`` for 0-d and 1-d tensors)."""
    if len(shape) <= 1:
        return str(flat)
    idx = []
    for dim in reversed(shape):
        idx.append(flat % dim)
        flat //= dim
    return str(tuple(reversed(idx)))


def is_integer_output(t: Any) -> bool:
    """An integer tensor (a quantizer's int8, an index), not a bool: judged exactly, or within one step where the
    reference's own dtype and its float64 run disagree (:func:`_reference_stats`)."""
    return isinstance(t, torch.Tensor) and not (t.is_floating_point() or t.is_complex()) and t.dtype != torch.bool


def changed_elements(before: torch.Tensor, after: torch.Tensor) -> int:
    """Elements that differ (NaN equal to NaN; a changed shape or dtype counts every element), compared a chunk at
    a time (:func:`~kernelopt.harness.chunks.chunk_for`): its masks never take the memory of a whole tensor (a
    check of an 8 GiB input beside the kernel ran out of device memory in them, H100 80GB, 2026-12-05)."""
    if before.shape != after.shape or before.dtype != after.dtype:
        return max(before.numel(), after.numel())
    b, a = before.detach().reshape(-1), after.detach().reshape(-1)
    floating = before.is_floating_point() or before.is_complex()
    changed = 0
    for start, end in _ranges(b.numel(), chunk_for(b.numel())):
        x, y = b[start:end], a[start:end]
        diff = (x != y) & ~(torch.isnan(x) & torch.isnan(y)) if floating else x != y
        changed += int(diff.sum().item())
    return changed


class _Mismatch(Exception):
    """An output that cannot be compared with the reference's: what is wrong, and its error class."""

    def __init__(self, message: str, error_class: str) -> None:
        super().__init__(message)
        self.message = message
        self.error_class = error_class


def _as_tensors(name: str, out: Any, ref: Any, hi: Any) -> tuple[torch.Tensor, torch.Tensor, Any]:
    """The output and the reference's as tensors (a number the reference returns becomes one, and so does
    the output, on the reference's device).

    Raises:
        _Mismatch: the output is not a tensor (or a number where the reference returns one).
    """
    if not isinstance(ref, torch.Tensor):
        ref = torch.as_tensor(ref)
        hi = torch.as_tensor(hi)
        if not isinstance(out, torch.Tensor):
            try:
                out = torch.as_tensor(out)
            except (TypeError, ValueError, RuntimeError):
                raise _Mismatch(f"{name} is {type(out).__name__}; the reference's is a number", "WrongType") from None
        out = out.to(ref.device)
    if not isinstance(out, torch.Tensor):
        raise _Mismatch(
            f"{name} is {type(out).__name__}, not a tensor (the reference returns a tensor)",
            "WrongType" if out is not None else "NotWritten",
        )
    return out, ref, hi


def _same_layout(
    name: str, out: torch.Tensor, ref: torch.Tensor, device_type: str | None = None, inputs_type: str | None = None
) -> None:
    """Raises :class:`_Mismatch` when the output's shape, dtype or device type is not the reference's (the device
    type the reference's outputs were made on: ``device_type`` when they wait on the host), nor its inputs'
    (``inputs_type``: a reference that makes its output elsewhere is its own fault, :func:`reference_device_line`)."""
    if tuple(out.shape) != tuple(ref.shape):
        raise _Mismatch(f"{name} has shape {tuple(out.shape)}; the reference's is {tuple(ref.shape)}", "WrongShape")
    if out.dtype != ref.dtype:
        raise _Mismatch(f"{name} has dtype {out.dtype}; the reference's is {ref.dtype}", "WrongDtype")
    made_on = device_type or ref.device.type
    if out.device.type not in (made_on, inputs_type):
        inputs = f" and its inputs' on {inputs_type}" if inputs_type not in (None, made_on) else ""
        raise _Mismatch(f"{name} is on {out.device.type}; the reference's is on {made_on}{inputs}", "WrongDevice")


NO_VALUES_DEVICES = ("meta",)
"""Device types whose tensors hold no values (shapes only): nothing to compare a kernel's output with."""


class ReferenceElsewhere(ReferenceFault):
    """A reference output on a device with no values (:data:`NO_VALUES_DEVICES`): the reference's fault, its line
    naming reference.py and the fix."""


class ReferenceIncomparable(ReferenceFault):
    """A reference output no tensor holds (a string, an object, a list holding one): nothing to check a kernel
    against, the problem's fault (:func:`incomparable_reference_line`)."""


def incomparable_reference_line(ref_obj: Any, what: str = "reference.py") -> str | None:
    """The one line saying the reference returned an output the check cannot compare: a leaf of its result
    (:func:`as_outputs`) that is neither a tensor, ``None``, nor a value ``torch.as_tensor`` takes (a number, a list
    of numbers, a numeric ndarray): a string, an object, an ndarray of objects. ``None`` where every output can be
    compared. wrongkernel32, v191 (late46 l180's Seen line): such an output raised in the comparison's own call
    (``_as_tensors``, "TypeError: new(): invalid data type 'str'"), past every boundary, and the row read "kernelopt's
    harness failed ... (a bug in kernelopt; please report)" for the problem's own output."""
    outs = as_outputs(ref_obj)
    for k, out in enumerate(outs):
        if out is None or isinstance(out, torch.Tensor):
            continue
        try:
            torch.as_tensor(out)
        except (TypeError, ValueError, RuntimeError):
            name = f"output {k}" if len(outs) > 1 else "its output"
            kind = type(out).__name__ + (f" of dtype {out.dtype}" if hasattr(out, "dtype") else "")
            shown = shown_value(out, as_repr=True)
            return (
                f"{what} returns {name} as {kind} ({shown}), which the check cannot compare (it compares tensors and "
                "numbers): nothing to check the kernel against; return tensors or numbers, and keep such a value out "
                "of what reference() and run() return"
            )
    return None


def inputs_device_type(inputs: Any) -> str | None:
    """The device type of a problem's inputs: the one type of their tensors other than the CPU's (index tensors may
    stay on the host beside the data on the device), else ``cpu``; ``None`` without tensors or with two others."""
    types = {t.device.type for t in tensors_in(inputs)}
    others = types - {"cpu"}
    if len(others) == 1:
        return others.pop()
    return "cpu" if types == {"cpu"} else None


def reference_device_line(ref_obj: Any, inputs: Any, what: str = "reference.py") -> str | None:
    """The one line saying the reference returned an output on a device type other than its inputs' (``torch.zeros``
    without ``device=``, beside cuda inputs: breaker12's LoRA reference on the H100, 2026-12-06, failed a correct
    kernel as "output is on cuda; the reference's is on cpu"). Its values are right, so a kernel's output on its
    inputs' device is compared with them there (``check_outputs(inputs_type=...)``); ``None`` when every output is
    on its inputs' device type.

    Raises:
        ReferenceElsewhere: an output on a device with no values (``meta``): nothing to check a kernel against.
    """
    home = inputs_device_type(inputs)
    outs = as_outputs(ref_obj)
    for k, t in enumerate(outs):
        if not isinstance(t, torch.Tensor) or home is None or t.device.type == home:
            continue
        name = f"output {k}" if len(outs) > 1 else "its output"
        fix = "make it on its inputs' device (device=x.device)"
        if t.device.type in NO_VALUES_DEVICES:
            raise ReferenceElsewhere(
                f"{what} returns {name} on {t.device.type} while its inputs are on {home}, and a {t.device.type} "
                f"tensor holds no values: nothing to check the kernel against; {fix}"
            )
        return (
            f"{what} returns {name} on {t.device.type} while its inputs are on {home} (its own doing, not the "
            f"kernel's): a kernel's output on {home} is compared with its values there; {fix}"
        )
    return None


def check_outputs(
    out_obj: Any,
    ref_native_obj: Any,
    ref_hi_obj: Any,
    *,
    dtype_hint: str | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    chunk_elems: int | None = None,
    prepared: Sequence[ReferenceStats | None] | None = None,
    device_type: str | None = None,
    inputs_type: str | None = None,
    inputs: Sequence[Any] | None = None,
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
        chunk_elems: compare this many elements at a time (``None``: :func:`~kernelopt.harness.chunks.chunk_for`
            of each output), so a 1 GB output never gets a float64 copy.
        prepared: :func:`prepare_reference` of ``ref_hi_obj``, for a reference checked against many
            candidates (the tuning engine's bench worker): its statistics are then read once, not per check;
            or :func:`prepare_pair` of both, read on the device before they were moved to the host.
        device_type: the device type the reference's outputs were made on, when they wait elsewhere (the
            gate's worker moves them to the host while a kernel runs on a device short of memory:
            :mod:`kernelopt.harness.footprint`); ``None``: where they are.
        inputs_type: the device type of the inputs (:func:`inputs_device_type`): an output there is compared with
            a reference that made its own elsewhere (:func:`reference_device_line`); ``None``: the reference's only.
        inputs: the call's inputs: an integer output the values refuse is judged by what it selects from the one
            the reference's indices order (:func:`~kernelopt.harness.indices.judge_selection`: equal keys of a sort
            in another order pass); ``None``: by its values only.

    Every output gets the fast pass first, chunk by chunk in float32 (float64 outputs in float64): the
    errors and whether every element is within tolerance. Only an output it cannot vouch for gets the full
    float64 scan that finds what is wrong and says it (same verdicts and messages either way). This is the
    one comparison of the gate and the bench worker; a 54 M-element output takes about a second, not 13.
    """
    out_obj = in_order_of(out_obj, ref_native_obj)
    outs, refs, his = as_outputs(out_obj), as_outputs(ref_native_obj), as_outputs(ref_hi_obj)
    result = OutputCheck()
    if len(outs) != len(refs):
        result.message = (
            f"kernel returned {len(outs)} output(s) ({_built(out_obj)}); the reference returns {len(refs)} "
            f"({_built(ref_native_obj)})"
        )
        result.error_class = "WrongOutputCount"
        return result
    built = structure_fault(out_obj, ref_native_obj)
    if built is not None:
        result.message, result.error_class = built, "WrongType"
        return result
    rel_errs: list[float] = []
    abs_errs: list[float] = []
    ratios: list[float] = []
    for k, (out, ref, hi) in enumerate(zip(outs, refs, his if len(his) == len(refs) else refs, strict=True)):
        name = f"output {k}" if len(outs) > 1 else "output"
        if ref is None:  # nothing there (nn.MultiheadAttention's weights with need_weights=False): break22 b52
            if out is None:
                continue
            result.message, result.error_class = f"{name} is {_what(out)}; the reference's is None", "WrongType"
            return result
        try:
            out, ref, hi = _as_tensors(name, out, ref, hi)
            if result.output_dtype is None:
                result.output_dtype = str(ref.dtype).removeprefix("torch.")
            _same_layout(name, out, ref, device_type, inputs_type)
        except _Mismatch as exc:
            result.message, result.error_class = exc.message, exc.error_class
            return result
        if out.numel() == 0:
            continue
        out, ref, hi = _real(out), _real(ref), _real(hi)
        stats = prepared[k] if prepared is not None and k < len(prepared) else None
        check = _check_values(
            name, out, ref, hi, dtype_hint=dtype_hint, atol=atol, rtol=rtol, chunk_elems=chunk_elems, prepared=stats
        )
        if check.error_class == "Mismatch" and inputs is not None and is_integer_output(ref):
            selection = judge_selection(name, out, ref, inputs)
            if selection is not None:  # judged by what it selects, not by its indices' equality (l30)
                check.message = selection.fault
                check.error_class = "Mismatch" if selection.fault is not None else None
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


def rerun_differs(
    again: Any,
    native: Any,
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
    device_type: str | None = None,
) -> str | None:
    """Why ``again``, a callable's run on the same inputs as ``native`` (another run of it), is not ``native`` within
    the tolerance ``native`` holds a kernel to (``native`` its own values truth); ``None`` when it agrees. The one
    comparison of a run with another of the same code: the reference from another random state (:mod:`.draws`) or
    imported afresh (:mod:`.history`), a task's first call against its next (:mod:`.first_call`)."""
    return check_outputs(
        again, native, native, dtype_hint=dtype_hint, atol=atol, rtol=rtol, device_type=device_type
    ).message


def _ranges(n: int, chunk_elems: int | None) -> list[tuple[int, int]]:
    """``[start, end)`` element ranges of at most ``chunk_elems`` each (one range when ``None``)."""
    step = n if chunk_elems is None or chunk_elems <= 0 else chunk_elems
    return [(a, min(n, a + step)) for a in range(0, n, max(1, step))]


def _f64(t: torch.Tensor, floating: bool) -> torch.Tensor:
    return t.detach().to(torch.float64) if floating else t.detach().to(torch.int64).to(torch.float64)


@dataclass
class ReferenceStats:
    """What the value checks need of one reference output, read once (chunk by chunk).

    Attributes:
        tolerance: the tolerance its outputs are held to.
        finite: finite elements of the reference; squares: the sum of their squares (inf where they overflow);
            norm: their 2-norm, finite however large they are; ref_min, ref_max, ref_absmax: over them.
    """

    tolerance: Tolerance
    finite: int = 0
    squares: float = 0.0
    norm: float = 0.0
    ref_min: float = math.inf
    ref_max: float = -math.inf
    ref_absmax: float = 0.0
    own_answer: bool = False  # the own run's value is one answer at every element (its widening read a rounded run)
    own_abs_err: float = 0.0  # the largest |own-dtype run - float64 run| over the elements the own run kept (b55)


def _norm(t: torch.Tensor) -> float:
    """The 2-norm of ``t``'s elements (every one finite), finite however large they are: where their squares
    overflow (past 1e154 in float64, 1e19 in float32), the norm is scaled by the largest magnitude (seen21 u25: a
    failure line over float64 outputs near 1e300 said ``rel_err nan``, the error's squares and the reference's both
    inf)."""
    if t.numel() == 0:
        return 0.0
    flat = t.reshape(-1)
    squares = float(torch.dot(flat, flat).item())
    if math.isfinite(squares):
        return math.sqrt(squares)
    largest = float(flat.abs().max().item())
    if largest == 0 or not math.isfinite(largest):
        return largest
    scaled = (flat / largest).to(torch.float64)
    return largest * math.sqrt(float(torch.dot(scaled, scaled).item()))


def _reference_stats(
    ref: torch.Tensor,
    hi: torch.Tensor,
    ranges: list[tuple[int, int]],
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
    rounded: torch.Tensor | None = None,
) -> ReferenceStats:
    """The tolerance of one output (the default scaled by the RMS of the reference, widened to the reference's
    own error in its dtype, or reference.py's ATOL/RTOL) and the reference's range, read chunk by chunk. With
    ``rounded`` (the reference rounded as its dtype rounds, without its range, where an operation's result lay past
    that range: :func:`~kernelopt.harness.highrun.run_rounded`) the own error is that run's, its rounding alone, and
    the own run's value is one answer wherever it is (``own_answer``; verdicts22 x8)."""
    floating = ref.is_floating_point() or ref.is_complex()
    precision = precision_for(str(ref.dtype), dtype_hint=dtype_hint)
    hi_flat, ref_flat = hi.detach().reshape(-1), ref.detach().reshape(-1)
    squares, stats = 0.0, ReferenceStats(tolerance=default_tolerance(precision, ref_rms=1.0))
    for a, b in ranges:
        r64 = hi_flat[a:b].to(torch.float64)
        chunk_squares = float(torch.dot(r64, r64).item()) if r64.numel() else 0.0
        # a finite sum of squares means every element is finite: no mask, no copy (the usual case; a mask
        # costs more than the rest of the pass together on a CPU)
        finite = r64 if math.isfinite(chunk_squares) else r64[torch.isfinite(r64)]
        squares += chunk_squares if finite is r64 else float(torch.dot(finite, finite).item())
        if finite.numel():
            lo, hi_value = torch.aminmax(finite)
            stats.finite += finite.numel()
            stats.ref_min = min(stats.ref_min, float(lo.item()))
            stats.ref_max = max(stats.ref_max, float(hi_value.item()))
            stats.ref_absmax = max(stats.ref_absmax, -stats.ref_min, stats.ref_max)
    stats.squares = squares
    ref_rms = math.sqrt(squares / stats.finite) if stats.finite else 0.0
    if not math.isfinite(ref_rms) and stats.ref_absmax > 0:
        # finite values whose squares overflow (magnitudes past 1e154): the RMS scaled by the largest, else the
        # tolerance was inf, every kernel within it, and a worker's result holding it was unreadable (break21 b46)
        # (the 2-norm of the finite elements, chunk by chunk: one overflow-safe norm for this and the errors, u25)
        norm = 0.0
        for a, b in ranges:
            r64 = hi_flat[a:b].to(torch.float64)
            norm = math.hypot(norm, _norm(r64[torch.isfinite(r64)]))
        ref_rms = norm / math.sqrt(stats.finite)
    stats.norm = ref_rms * math.sqrt(stats.finite)
    if atol is not None or rtol is not None:
        stats.tolerance = user_tolerance(precision, atol=atol, rtol=rtol, ref_rms=ref_rms)
    else:
        stats.tolerance = default_tolerance(precision, ref_rms=ref_rms)
    if not floating and ref is not hi:
        # an integer output of a float computation (a quantizer's round): the reference in its own dtype lands on
        # the other side of a rounding tie where its float64 run does not; no candidate is held to more. One step
        # only: an index (an argmax on a tie) that moves further says nothing of a neighbour's value
        steps = _own_steps(ref_flat, hi_flat, ranges)
        if is_integer_output(ref) and steps == 1 and steps > stats.tolerance.atol:
            reason = f"the reference in its own dtype differs from its float64 run by up to {steps:g}"
            stats.tolerance = within_steps(stats.tolerance, steps, reason)
        # where they differ (an argmax over fp16 values tied in the own dtype, apart in float64; a threshold of an
        # fp16 value rounded across it), the own run's value is the answer the reference itself gives: a kernel
        # giving it passes (break22 b54)
        stats.own_answer = steps > 0
    if atol is not None or rtol is not None or not floating or ref is hi:
        return stats
    tol = stats.tolerance
    if rounded is not None and tuple(rounded.shape) == tuple(ref.shape):
        ref_flat, stats.own_answer = rounded.detach().reshape(-1), True
    # The candidate is not held to more than the reference itself achieves in this dtype.
    own: float | None = None
    for a, b in ranges:
        r64 = hi_flat[a:b].to(torch.float64)
        rn64 = ref_flat[a:b].to(torch.float64).to(r64.device)
        err = (rn64 - r64).abs_()
        ratio = err / r64.abs().mul_(tol.rtol).add_(tol.atol)
        # x918 on a naive fp16 softmax (z12), x200 on an fp16 sum kept at 65504 (x3): a kernel 10 % off passed
        lost = overflow_trace(rn64, r64, tol.atol, _largest(ref))
        worst = float(ratio.max().item()) if ratio.numel() else None
        gap = float(err.max().item()) if err.numel() else None
        if worst is not None and (not math.isfinite(worst) or bool(lost.any().item())):
            # a NaN or Inf, or a lost value: over the finite elements the own run kept only
            kept = torch.isfinite(rn64) & torch.isfinite(r64) & ~lost
            worst = float(ratio[kept].max().item()) if bool(kept.any()) else None
            gap = float(err[kept].max().item()) if bool(kept.any()) else None
        if worst is not None:
            own = worst if own is None else max(own, worst)
        if gap is not None:
            stats.own_abs_err = max(stats.own_abs_err, gap)
    if own is not None and own > 0.5:
        stats.tolerance = widened(tol, 2.0 * own, "the reference's own error in its dtype")
    return stats


def overflow_trace(own: torch.Tensor, r64: torch.Tensor, atol: float, largest: float = math.inf) -> torch.Tensor:
    """Where the reference's own-dtype run gave 0 for a float64 value past the tolerance's floor (a quotient by a sum
    that overflowed, ``exp(s) / inf``: late22 z12), or where the float64 value is past ``largest``, the own dtype's
    largest finite value, whatever that run left there (an infinity, or a finite value a ``torch.nan_to_num`` or a
    clamp made of it, 65504 in fp16 for a float64 102400: verdicts22 x3): an overflow's trace, no rounding. It widens
    no tolerance, and a kernel reproducing the own run's value there is given it as one answer."""
    return ((own == 0) & (r64.abs() > atol)) | (r64.abs() > largest)


def _largest(t: torch.Tensor) -> float:
    """The largest finite value of a floating (or complex) tensor's dtype, ``inf`` for any other."""
    return float(torch.finfo(t.dtype).max) if t.is_floating_point() or t.is_complex() else math.inf


def _own_steps(ref_flat: torch.Tensor, hi_flat: torch.Tensor, ranges: list[tuple[int, int]]) -> float:
    """The largest difference between an integer reference in its own dtype and its float64 run, chunk by chunk."""
    steps = 0
    for a, b in ranges:
        r = ref_flat[a:b].to(torch.int64)
        h = hi_flat[a:b].to(torch.int64).to(r.device)
        if r.numel():
            steps = max(steps, int((r - h).abs_().max().item()))
    return float(steps)


def _real(t: torch.Tensor) -> torch.Tensor:
    """A complex tensor as its real and imaginary parts (a last dimension of 2, no copy), else ``t``: every check reads
    real numbers (``aminmax`` has no complex form: an FFT's output crashed the checker, "the worker exited with code
    1", the kernel's FAIL: break21 b49)."""
    return torch.view_as_real(t.resolve_conj()) if t.is_complex() else t


def prepare_reference(
    ref_obj: Any,
    *,
    dtype_hint: str | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    chunk_elems: int | None = None,
) -> list[ReferenceStats | None]:
    """:class:`ReferenceStats` of each output of a reference computed once and compared with many candidates
    (the tuning engine's bench worker); ``None`` for an output that is not a floating or integer tensor.
    Passed to :func:`check_outputs` as ``prepared``, it makes each check read the reference once, not three times."""
    out: list[ReferenceStats | None] = []
    for ref in as_outputs(ref_obj):
        if not isinstance(ref, torch.Tensor) or ref.numel() == 0:
            out.append(None)
            continue
        ref = _real(ref)
        ranges = _ranges(ref.numel(), chunk_elems or chunk_for(ref.numel()))
        out.append(_reference_stats(ref, ref, ranges, dtype_hint=dtype_hint, atol=atol, rtol=rtol))
    return out


def prepare_pair(
    ref_native_obj: Any,
    ref_hi_obj: Any,
    *,
    dtype_hint: str | None = None,
    atol: float | None = None,
    rtol: float | None = None,
    rounded_obj: Any = None,
) -> list[ReferenceStats | None]:
    """:class:`ReferenceStats` of each output of a reference run in its own dtype (``ref_native_obj``) and in
    higher precision (``ref_hi_obj``), as :func:`check_outputs` would read them: read where they are (on the
    device), so that they can wait on the host while the kernel runs; ``None`` for an output that is not a tensor.
    ``rounded_obj``: the reference's rounded run (:func:`_reference_stats`' ``rounded``), where one was made."""
    refs, his = as_outputs(ref_native_obj), as_outputs(ref_hi_obj)
    roundeds = as_outputs(rounded_obj) if rounded_obj is not None else []
    out: list[ReferenceStats | None] = []
    for k, (ref, hi) in enumerate(zip(refs, his if len(his) == len(refs) else refs, strict=True)):
        rounded = roundeds[k] if len(roundeds) == len(refs) and isinstance(roundeds[k], torch.Tensor) else None
        if not isinstance(ref, torch.Tensor) or not isinstance(hi, torch.Tensor) or ref.numel() == 0:
            out.append(None)
            continue
        if tuple(hi.shape) != tuple(ref.shape):  # as _check_values: a reference that changed shape in float64
            hi = ref
        ref, hi = _real(ref), _real(hi)
        rounded = rounded if rounded is not None and not rounded.is_complex() else None
        ranges = _ranges(ref.numel(), chunk_for(ref.numel()))
        out.append(_reference_stats(ref, hi, ranges, dtype_hint=dtype_hint, atol=atol, rtol=rtol, rounded=rounded))
    return out


@dataclass
class _Count:
    """Elements of one kind found so far, and the flat index of the first."""

    n: int = 0
    first: int | None = None

    def add(self, mask: torch.Tensor, offset: int) -> None:
        k = int(mask.sum().item())
        if k and self.first is None:
            self.first = offset + int(torch.nonzero(mask)[0].item())
        self.n += k


@dataclass
class _Scan:
    """What a chunk-by-chunk pass over one output found (the reference's range comes from its stats)."""

    ref: ReferenceStats
    not_written: _Count = field(default_factory=_Count)
    new_nan: _Count = field(default_factory=_Count)
    new_inf: _Count = field(default_factory=_Count)
    lost_nonfinite: _Count = field(default_factory=_Count)
    bad: _Count = field(default_factory=_Count)
    max_abs_err: float = 0.0
    err_norm: float = 0.0
    ref_norm: float = 0.0
    worst_ratio: float = 0.0
    worst_finite: tuple[float, int, float, float] | None = None  # (ratio, index, got, expected)
    out_finite: int = 0
    out_min: float = math.inf
    out_max: float = -math.inf

    def add_output_range(self, o: torch.Tensor, floating: bool) -> None:
        """Count a chunk whose every element is finite (a clean chunk of the fast pass) into the output's range."""
        if o.numel() == 0:
            return
        # an 8-bit float (fp8 quantization's output) has no aminmax on the CPU: its range read widened
        wide = o.detach().float() if floating and o.element_size() == 1 else o.detach()
        lo, hi = torch.aminmax(wide if floating else o.detach().to(torch.int64))
        self.out_finite += o.numel()
        self.out_min = min(self.out_min, float(lo.item()))
        self.out_max = max(self.out_max, float(hi.item()))


def _scan_chunk(
    scan: _Scan,
    o64: torch.Tensor,
    r64: torch.Tensor,
    poisoned: torch.Tensor,
    tol: Tolerance,
    a: int,
    own: torch.Tensor | None = None,
    largest: float = math.inf,
) -> None:
    """Add one chunk's verdicts to ``scan``. ``own``: the reference's own-dtype run of the chunk (``None``: the values
    are that run's). Where it gave NaN or an infinity over a finite float64 value, either is the answer: that NaN or
    infinity reproduced (b47: fp16 row sums near 80000, inf in fp16, which a kernel computing the sum exactly gives
    too; seen21 u27: ``inf - inf`` after an overflow), or the float64 value within tolerance (review21 r18:
    ``torch.softmax`` beside a naive fp16 softmax's NaN; late22 z14: a kernel giving 65504 where the float64 value is
    65521 and the own run's inf, within tolerance, failed "finite where the reference is NaN or Inf"). So is its 0 where
    that is an overflow's trace (:func:`overflow_trace`: the naive softmax's rows whose sum overflowed), or any value it
    gave over a float64 value past ``largest``, its dtype's largest finite value."""
    if own is not None:
        own = own.to(o64.device)
        traced = (~torch.isfinite(own) | overflow_trace(own, r64, tol.atol, largest)) & torch.isfinite(r64)
        if scan.ref.own_answer:  # its tolerance is its rounding alone: the own run's value is an answer everywhere
            traced = torch.isfinite(r64)
        reproduced = traced & ((o64 == own) | (torch.isnan(o64) & torch.isnan(own)))
        r64 = torch.where(reproduced, own, r64)
    nan_o, nan_r = torch.isnan(o64), torch.isnan(r64)
    inf_o, inf_r = torch.isinf(o64), torch.isinf(r64)
    fin_o, fin_r = torch.isfinite(o64), torch.isfinite(r64) & ~nan_r
    both_finite = fin_o & fin_r
    err = torch.where(both_finite, (o64 - r64).abs(), torch.zeros_like(o64))
    bound = tol.atol + tol.rtol * r64.abs()
    if tol.atol == 0 and tol.rtol == 0:
        ratio = torch.where(err > 0, torch.full_like(err, float("inf")), torch.zeros_like(err))
    else:
        ratio = err / torch.where(bound > 0, bound, torch.full_like(bound, 1e-300))
    inf_mismatch = (inf_o | inf_r) & ~(inf_o & inf_r & (torch.sign(o64) == torch.sign(r64)))
    bad = (ratio > 1.0) | (nan_o != nan_r) | inf_mismatch
    scan.not_written.add(poisoned & bad, a)
    scan.new_nan.add(nan_o & ~nan_r, a)
    scan.new_inf.add(inf_o & ~inf_r, a)
    scan.lost_nonfinite.add((nan_r | inf_r) & ~(nan_o | inf_o), a)
    scan.bad.add(bad, a)
    scan.max_abs_err = max(scan.max_abs_err, float(err.max().item()))
    scan.err_norm = math.hypot(scan.err_norm, _norm(err))
    scan.ref_norm = math.hypot(scan.ref_norm, _norm(torch.where(both_finite, r64, torch.zeros_like(r64))))
    scan.worst_ratio = max(scan.worst_ratio, float(ratio.max().item()))
    if tol.atol == 0 and tol.rtol == 0:  # exact: every difference's ratio is inf, so the worst is the largest one
        finite_ratio = err
    else:
        finite_ratio = torch.where(torch.isfinite(ratio), ratio, torch.zeros_like(ratio))
    k = int(torch.argmax(finite_ratio).item())
    value = float(finite_ratio[k].item())
    if scan.worst_finite is None or value > scan.worst_finite[0]:
        scan.worst_finite = (value, a + k, float(o64[k].item()), float(r64[k].item()))
    if bool(fin_o.any()):
        fo = o64[fin_o]
        scan.out_finite += fo.numel()
        scan.out_min = min(scan.out_min, float(fo.min().item()))
        scan.out_max = max(scan.out_max, float(fo.max().item()))


@dataclass
class _Fast:
    """What the fast pass found over the chunks so far: all within tolerance, and the errors."""

    clean: bool = True
    max_abs_err: float = 0.0
    err_norm: float = 0.0
    worst_ratio: float = 0.0


def _fast_chunk(fast: _Fast, o: torch.Tensor, r: torch.Tensor, tol: Tolerance, floating: bool) -> bool:
    """The fast pass of a chunk: True when every element is within tolerance (so finite, written and
    matching), its errors added to ``fast``; a chunk it cannot vouch for gets the full scan. Computed in
    float32 for 16- and 32-bit floats (exact for the 16-bit ones; a rounding error of 1e-7 relative beside a
    tolerance of 1e-4 for fp32)."""
    if not floating:
        fast.clean = bool(torch.equal(o, r.to(o.device))) if tol.atol == 0 and tol.rtol == 0 else False
        return fast.clean
    work = torch.float64 if o.dtype == torch.float64 else torch.float32
    ow, rw = o.detach().to(work), r.detach().to(work).to(o.device)
    err = (ow - rw).abs_()
    bound = rw.abs().mul_(tol.rtol).add_(tol.atol)  # rw may be the reference itself: never in place
    # an infinite bound (a reference that is Inf there) vouches for nothing: any finite output is within it, and the
    # full scan's "finite where the reference is NaN or Inf" never ran (break21 b48: 1e30 passed for 1 / 0)
    if not bool(((err <= bound) & torch.isfinite(bound)).all().item()):
        fast.clean = False
        return False
    fast.max_abs_err = max(fast.max_abs_err, float(err.max().item()))
    fast.err_norm = math.hypot(fast.err_norm, _norm(err))
    if tol.atol > 0 or tol.rtol > 0:
        tiny = torch.finfo(work).tiny
        fast.worst_ratio = max(fast.worst_ratio, float(err.div_(bound.clamp_(min=tiny)).max().item()))
    return True


def _verdict(name: str, scan: _Scan, n: int, shape: torch.Size, res: OutputCheck) -> None:
    """Set ``res.message`` / ``error_class`` from ``scan``, in the order the messages are most useful."""

    def where(c: _Count) -> str:
        return f"{c.n} of {n} elements, first at index {_index_of(c.first or 0, shape)}"

    nw = scan.not_written
    if nw.n:
        res.message = (
            f"{name} not written: {nw.n} of {n} elements still hold the poison pattern "
            f"(bytes 0x7F) the harness filled the memory with before the run "
            f"(first at index {_index_of(nw.first or 0, shape)})"
        )
        res.error_class = "NotWritten"
    elif scan.new_nan.n:
        res.message, res.error_class = (
            f"{name} contains NaN where the reference has none ({where(scan.new_nan)})",
            "NaN",
        )
    elif scan.new_inf.n:
        res.message, res.error_class = (
            f"{name} contains Inf where the reference is finite ({where(scan.new_inf)})",
            "Inf",
        )
    elif scan.lost_nonfinite.n:
        res.message = f"{name} is finite where the reference is NaN or Inf ({where(scan.lost_nonfinite)})"
        res.error_class = "Mismatch"
    elif _constant(name, scan, n, res):
        return
    elif scan.bad.n:
        tol = res.tolerance
        assert tol is not None and scan.worst_finite is not None
        _, worst, got, expected = scan.worst_finite
        size = (
            f"rel_err {res.rel_err:.3g}"
            if res.rel_err is not None
            else f"rel_err undefined (the reference is all zeros), max abs err {res.max_abs_err:.3g}"
        )
        res.message = (
            f"{name} differs from the reference beyond tolerance ({where(scan.bad)}; "
            f"worst at {_index_of(worst, shape)}: got {got:.6g}, expected {expected:.6g}; "
            f"{size}, atol {tol.atol:.3g}, rtol {tol.rtol:.3g}, {tol.precision.value})"
        )
        res.error_class = "Mismatch"


CONSTANT_CLASSES = ("ZeroOutput", "ConstantOutput")
"""The error classes of an output constant where the reference's varies (:func:`_constant`)."""
VALUE_CLASSES = (*CONSTANT_CLASSES, "Mismatch")
"""The error classes of an output whose values the check refused (constant, beyond tolerance, finite where the
reference is not): the verdicts a reading of the reference's own rounding can change."""


def _constant(name: str, scan: _Scan, n: int, res: OutputCheck) -> bool:
    """An all-zero or constant output against a varying reference (fails even when within tolerance)."""
    if n <= 1 or scan.ref.finite <= 1:
        return False
    spread = scan.ref.ref_max - scan.ref.ref_min
    if spread <= scan.ref.own_abs_err:
        # the reference varies less than its own run's rounding error (a group norm of one channel a group: zero in
        # exact arithmetic, noise of 1e-14 in float64 and 1e-5 in float32): constant at its own resolution, a kernel
        # computing the exact constant is right (break22 b55); the tolerance judges it
        return False
    if not (
        spread > 1e-12 * max(scan.ref.ref_absmax, 1e-300) and scan.out_finite == n and scan.out_min == scan.out_max
    ):
        return False
    if scan.out_min == 0.0:
        res.message = f"{name} is all zeros while the reference is not constant (it spans {spread:.3g})"
        res.error_class = CONSTANT_CLASSES[0]
    else:
        res.message = f"{name} is constant (every element = {scan.out_min:.6g}) while the reference varies"
        res.error_class = CONSTANT_CLASSES[1]
    return True


def _check_values(
    name: str,
    out: torch.Tensor,
    ref: torch.Tensor,
    hi: torch.Tensor,
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
    chunk_elems: int | None = None,
    prepared: ReferenceStats | None = None,
) -> OutputCheck:
    """The value checks of one output, ``chunk_elems`` elements at a time (``None``: all at once), so no
    float64 copy of a large output ever exists: at most a few float64 chunks.

    With ``prepared`` (:func:`prepare_reference`) the output first gets a cheap fast pass, chunk by chunk;
    only when it finds an element it cannot vouch for does the full scan run (the same verdict and message
    as without it). An output the fast pass accepts has ``rel_err``, ``max_abs_err`` and ``worst_ratio``
    ``None``.
    """
    n = out.numel()
    floating = ref.is_floating_point() or ref.is_complex()
    if tuple(hi.shape) != tuple(ref.shape):  # a reference that changed shape in float64: use its native result
        hi = ref
    ranges = _ranges(n, chunk_elems or chunk_for(n))
    stats = prepared or _reference_stats(ref, hi, ranges, dtype_hint=dtype_hint, atol=atol, rtol=rtol)
    res = OutputCheck(tolerance=stats.tolerance)
    out_flat, hi_flat = out.detach().reshape(-1), hi.detach().reshape(-1)
    fast = _Fast()
    if all(_fast_chunk(fast, out_flat[a:b], hi_flat[a:b], stats.tolerance, floating) for a, b in ranges):
        scan = _Scan(ref=stats)
        for a, b in ranges:
            scan.add_output_range(out_flat[a:b], floating)
        if floating:
            res.max_abs_err, res.worst_ratio = fast.max_abs_err, fast.worst_ratio
            res.rel_err = _relative(fast.err_norm, stats.norm)
        _verdict(name, scan, n, out.shape, res)  # only the constant-output rule can fire on clean chunks
        return res
    scan = _Scan(ref=stats)  # something to report: the full scan, so the message is the whole-tensor one
    own_run = hi is not ref and (ref.dtype != hi.dtype or not floating)  # an integer or bool output: b54
    own_flat = ref.detach().reshape(-1) if own_run else None
    for a, b in ranges:
        o64 = _f64(out_flat[a:b], floating)
        r64 = hi_flat[a:b].to(torch.float64).to(o64.device)
        own = own_flat[a:b].to(torch.float64) if own_flat is not None else None
        _scan_chunk(scan, o64, r64, poisoned_mask(out_flat[a:b]), stats.tolerance, a, own, _largest(ref))
        del o64, r64
    res.max_abs_err = scan.max_abs_err
    res.rel_err = _relative(scan.err_norm, scan.ref_norm)
    res.worst_ratio = scan.worst_ratio
    _verdict(name, scan, n, out.shape, res)
    return res


def _relative(err_norm: float, ref_norm: float) -> float | None:
    """``||out - ref|| / ||ref||``; relative to a zero reference only "no error" is defined (``None`` otherwise)."""
    if ref_norm > 0:
        return err_norm / ref_norm
    return 0.0 if err_norm == 0 else None


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
