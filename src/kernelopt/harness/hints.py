"""Which hints a failed check's line may carry: one rule, by the class of the failure (pure; no torch).

A hint appended to a failure (a ``tl.dot`` in TF32 or on fp8 operands, seeds 1+ made of seed 0's rows permuted,
Triton's interpreter running one program at a time) is about one kind of failure only. breaker12's LoRA reference
made its output on the CPU beside cuda inputs (H100, 2026-12-06) and `tune` said "output is on cuda; the reference's
is on cpu ...: its tl.dot multiplies fp32 operands in TF32 ...": a precision hint on a device mismatch, which no
precision explains. Every place that appends a hint asks :func:`hint_fits` first.
"""

from __future__ import annotations

from enum import StrEnum

from kernelopt.harness.model import Culprit


class FailureClass(StrEnum):
    """What a failed check is about."""

    LAYOUT = "layout"
    """The outputs' count, type, shape, dtype or device is not the reference's: no value was compared."""
    VALUES = "values"
    """Values beyond the tolerance (the only class a precision explains)."""
    CONTENT = "content"
    """NaN or Inf where the reference has none, elements never written, a constant output, a cached result."""
    INPUTS = "inputs"
    """The in-place rule: the kernel wrote into an input, or left one the reference modifies."""
    RAISED = "raised"
    """The kernel raised, crashed or replaced torch's operators."""
    FIRST_CALL = "first_call"
    """Wrong on its first call only, right on the next (:func:`kernelopt.harness.first_call.first_call_line`: an
    autotuner benchmarked configs on the call's own tensors): its line names the cause and the fix, its own hint; no
    other hint explains it (the permuted-rows note once followed it as a raise's, rounds13)."""
    TIMEOUT = "timeout"
    """The kernel ran past its limit."""
    CACHED = "cached"
    """reference.py's output came from its earlier calls (:mod:`kernelopt.harness.history`): its line names the cause
    and the fix; no hint of the table explains it (the inputs the harness made are not what it answers to)."""
    REFERENCE = "reference"
    """reference.py's own fault (:attr:`Culprit.PROBLEM`): it raised, made its output where no value is, ..."""
    CHECKER = "checker"
    """The check could not run here (the checker's time or memory, :attr:`Culprit.CHECKER`)."""


class Hint(StrEnum):
    """A hint some failures carry."""

    PRECISION = "precision"
    """A ``tl.dot`` multiplying fp32 operands in TF32, or fp8 operands summed in fewer bits, on a GPU."""
    PERMUTED = "permuted"
    """The seed's inputs are seed 0's with their rows permuted (:data:`kernelopt.harness.inputs.PERMUTED_NOTE`)."""
    INTERPRETER = "interpreter"
    """On the CPU a Triton kernel runs in Triton's interpreter, one program at a time
    (:data:`kernelopt.harness.gate.INTERPRETER_HINT`)."""


HINT_CLASSES: dict[Hint, frozenset[FailureClass]] = {
    Hint.PRECISION: frozenset({FailureClass.VALUES}),
    # inputs the harness made may be what the values, the kernel's or the reference's raise, answer to; never a
    # layout or the in-place rule
    Hint.PERMUTED: frozenset({FailureClass.VALUES, FailureClass.CONTENT, FailureClass.RAISED, FailureClass.REFERENCE}),
    Hint.INTERPRETER: frozenset({FailureClass.TIMEOUT}),
}
"""The failure classes each hint is about: the one rule."""

LAYOUT_ERRORS = frozenset({"WrongOutputCount", "WrongType", "WrongShape", "WrongDtype", "WrongDevice"})
"""The error classes of :mod:`kernelopt.harness.compare` that say the outputs' layout is not the reference's."""

VALUE_ERRORS = frozenset({"Mismatch"})
"""The error class of values beyond the tolerance."""

CONTENT_ERRORS = frozenset({"NaN", "Inf", "NotWritten", "ZeroOutput", "ConstantOutput", "CachedResult"})
"""The error classes of outputs whose content is wrong whatever the tolerance."""

FIRST_CALL_ONLY = "FirstCallOnly"
"""The error class of a kernel wrong on its first call only (:attr:`FailureClass.FIRST_CALL`)."""

REFERENCE_CACHED = "ReferenceCached"
"""The error class of a reference whose output depends on its earlier calls (:attr:`FailureClass.CACHED`)."""

INPUT_ERRORS = frozenset({"InputMutated", "InputNotWritten"})
"""The error classes of the in-place rule (:class:`kernelopt.harness.inplace.InputFaultKind`, which imports torch)."""


ERROR_CLASSES: dict[str, FailureClass] = {
    **dict.fromkeys(LAYOUT_ERRORS, FailureClass.LAYOUT),
    **dict.fromkeys(VALUE_ERRORS, FailureClass.VALUES),
    **dict.fromkeys(CONTENT_ERRORS, FailureClass.CONTENT),
    **dict.fromkeys(INPUT_ERRORS, FailureClass.INPUTS),
    FIRST_CALL_ONLY: FailureClass.FIRST_CALL,
    "Timeout": FailureClass.TIMEOUT,
}
"""The class of each error class a check names; any other is an exception's type (:attr:`FailureClass.RAISED`)."""


def failure_class(error_class: str | None, culprit: Culprit | None = Culprit.KERNEL) -> FailureClass | None:
    """The class of a failure from its error class (the check's name, or the exception's type) and whose it is;
    ``None`` for no failure."""
    if error_class == REFERENCE_CACHED:
        return FailureClass.CACHED
    if culprit is Culprit.PROBLEM:
        return FailureClass.REFERENCE
    if culprit is Culprit.CHECKER:
        return FailureClass.CHECKER
    if error_class is None:
        return None
    return ERROR_CLASSES.get(error_class, FailureClass.RAISED)


def hint_fits(hint: Hint, failed: FailureClass | None) -> bool:
    """Whether ``hint`` is about a failure of class ``failed`` (:data:`HINT_CLASSES`)."""
    return failed is not None and failed in HINT_CLASSES[hint]
