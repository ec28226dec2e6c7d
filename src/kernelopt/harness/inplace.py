"""The in-place rule: what a kernel may leave in its inputs (worker side; imports torch).

One walk of the inputs for both processes that check a kernel: the gate's worker (a copy of the inputs, so a
failure counts the changed elements) and the tuning engine's checks (a checksum of each input,
:func:`fingerprint`, so the bench worker keeps no copy of a large problem). Each takes an
:class:`InputSnapshot` before the kernel's call and asks :func:`input_fault` after it.

The rule, by input (its index among the inputs' tensors, depth first):

- an input the reference leaves alone must be left alone (``InputMutated``);
- an input the reference modifies in place must be modified, to what the reference leaves in it (within the
  output check's tolerance): the caller sees its inputs after the call, so the modification is part of the
  reference's contract, whether it also returns an output (RoPE rotating q and returning it) or returns nothing
  (an optimizer step: its inputs are its whole result). A kernel that returns the right output but leaves
  such an input as it was fails ``InputNotWritten``, naming the input; one that writes something else fails
  ``InputMutated``.

After a timing (many calls in a row) an input the reference modifies may hold anything: only the inputs it
leaves alone are checked then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

import torch

from kernelopt.harness.chunks import chunk_for
from kernelopt.harness.compare import changed_elements, check_outputs
from kernelopt.harness.inputs import tensors_in


class InputFaultKind(StrEnum):
    """How a kernel broke the in-place rule (the check's error class)."""

    MUTATED = "InputMutated"
    NOT_WRITTEN = "InputNotWritten"


@dataclass(frozen=True)
class InputFault:
    """One broken input: its index among the inputs' tensors, how, and the line that says so (``kernel ...``)."""

    index: int
    kind: InputFaultKind
    message: str


class InputSnapshot(Protocol):
    """The inputs as they were before a call, read back after it."""

    def changed(self, inputs: Any) -> dict[int, int | None]:
        """The inputs' tensors that differ now, by index: how many elements changed (``None``: not counted)."""
        ...


def _extra(now: int, before: int) -> dict[int, int | None]:
    """A call that added or removed a tensor among the inputs (a list appended to): the first index past the
    shorter, as changed."""
    return {min(now, before): None} if now != before else {}


@dataclass
class InputCopy:
    """A copy of every input tensor (the gate's worker): exact, and a change is counted by element."""

    tensors: list[torch.Tensor] = field(default_factory=list)

    @classmethod
    def of(cls, inputs: Any) -> InputCopy:
        return cls([t.detach().clone() for t in tensors_in(inputs)])

    def changed(self, inputs: Any) -> dict[int, int | None]:
        now = tensors_in(inputs)
        out: dict[int, int | None] = {}
        for j, (before, after) in enumerate(zip(self.tensors, now, strict=False)):
            n = changed_elements(before, after)
            if n:
                out[j] = n
        return out | _extra(len(now), len(self.tensors))


_WEIGHTS: dict[tuple[str, int], torch.Tensor] = {}


def _weights(device: Any, n: int) -> torch.Tensor:
    """``1, 2, ..., n`` as int64 on ``device``, made once per device and chunk size."""
    key = (str(device), n)
    if key not in _WEIGHTS:
        _WEIGHTS[key] = torch.arange(1, n + 1, dtype=torch.int64, device=device)
    return _WEIGHTS[key]


def fingerprint(obj: Any) -> list[tuple[int, int, int]]:
    """A checksum of every tensor in ``obj`` (its bytes read as integers, chunk by chunk): ``(bytes, sum,
    position-weighted sum)`` each, so a changed or moved element changes it but for a vanishing chance, with no
    copy of the inputs kept."""
    out = []
    for t in tensors_in(obj):
        if t.is_meta:  # no data to sum: a kernel's output made there is said by the output check, by its device
            out.append((t.numel() * t.element_size(), 0, 0))  # (newuser18's n122: "Tensor.item() cannot be called")
            continue
        raw = t.detach().contiguous().reshape(-1).view(torch.uint8)
        words = raw.view(torch.int32) if raw.numel() % 4 == 0 else raw
        total, weighted = 0, 0
        step = chunk_for(words.numel())
        for a in range(0, words.numel(), step):
            chunk = words[a : a + step].to(torch.int64)
            total = (total + int(chunk.sum().item())) % (1 << 64)
            chunk.mul_(_weights(chunk.device, chunk.numel()))
            weighted = (weighted + int(chunk.sum().item()) + a) % (1 << 64)
            del chunk
        out.append((raw.numel(), total, weighted))
    return out


@dataclass
class InputPrints:
    """A :func:`fingerprint` of every input tensor (the tuning engine's checks): no copy kept, a change not
    counted."""

    prints: list[tuple[int, int, int]] = field(default_factory=list)

    @classmethod
    def of(cls, inputs: Any) -> InputPrints:
        return cls(fingerprint(inputs))

    def changed(self, inputs: Any) -> dict[int, int | None]:
        now = fingerprint(inputs)
        out: dict[int, int | None] = {j: None for j, (a, b) in enumerate(zip(now, self.prints, strict=False)) if a != b}
        return out | _extra(len(now), len(self.prints))


def modified_inputs(before: Any, after: Any) -> dict[int, torch.Tensor]:
    """The tensors of ``after`` (inputs after a call) that differ from ``before`` (their copy from before it), by
    their index among the inputs' tensors: what a reference that works in place leaves in its inputs."""
    pairs = zip(tensors_in(before), tensors_in(after), strict=False)
    return {j: b for j, (a, b) in enumerate(pairs) if changed_elements(a, b)}


@dataclass
class InPlaceContract:
    """What the reference does to its inputs: what it leaves in each one it modifies (by index; empty: it
    modifies none), and whether it returns nothing (then those inputs are its whole result)."""

    left: dict[int, torch.Tensor] = field(default_factory=dict)
    returns_nothing: bool = False

    @property
    def whole_result(self) -> bool:
        """The reference works in place and returns nothing: its inputs are all there is to compare."""
        return self.returns_nothing and bool(self.left)


def left_unwritten(j: int, returns_nothing: bool) -> str:
    """Why a kernel fails that left input ``j`` as it was, where the reference modifies it in place."""
    if returns_nothing:
        return (
            f"kernel left input {j} as it was, which the reference modifies in place (returning nothing: its inputs "
            "are its result)"
        )
    return (
        f"kernel left input {j} as it was, which the reference modifies in place besides returning its output "
        "(the caller sees its inputs after the call: the kernel must modify it too; a reference that only writes "
        "into it as scratch should work on a copy, x = x.clone())"
    )


def left_unlike_reference(
    j: int,
    after: torch.Tensor,
    reference_left: torch.Tensor,
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
) -> str | None:
    """Why input ``j``, which the kernel modified in place as the reference modifies it, does not hold what the
    reference leaves in it (the output check's tolerance); ``None`` when it does. An in-place op (RoPE rotating q,
    an optimizer step) is right to modify what its reference modifies, and only that (issue 32, breaker5 i2)."""
    # what the reference left may wait on the host while the kernel runs (harness.footprint): it was made where the
    # inputs are
    chk = check_outputs(
        after,
        reference_left,
        reference_left,
        dtype_hint=dtype_hint,
        atol=atol,
        rtol=rtol,
        device_type=after.device.type,
    )
    if chk.message is None:
        return None
    return (
        f"kernel modified input {j} in place, as the reference does, but not to what the reference leaves in it: "
        f"{chk.message}"
    )


#: What a kernel that modified an input its reference leaves alone is told to do (newuser18's n118: a ``run(x, out)``
#: writing ``out=`` beside a reference returning ``x * 2.0`` was told "inputs must be left untouched", where an input
#: the reference writes may be written: the in-place rule above).
UNTOUCHED = (
    "which the reference leaves as it was: leave it so, or, for an output buffer passed in (out=), have the reference "
    "write it too"
)


def _modified(j: int, count: int | None, tensors: list[torch.Tensor]) -> str:
    counted = f" ({count} of {tensors[j].numel()} elements changed)" if count is not None and j < len(tensors) else ""
    return f"kernel modified input {j} in place{counted}, {UNTOUCHED}"


def input_fault(
    before: InputSnapshot,
    inputs: Any,
    contract: InPlaceContract,
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
    after_timing: bool = False,
) -> InputFault | None:
    """The first input (by index) that breaks the in-place rule (module docstring) after a kernel's call, or
    ``None``. ``before`` is the snapshot taken before the call; ``after_timing``: many calls ran, so only the
    inputs the reference leaves alone are checked."""
    changed = before.changed(inputs)
    tensors = tensors_in(inputs)
    for j in sorted(set(changed) | set(contract.left)):
        if j not in contract.left or j >= len(tensors):
            return InputFault(j, InputFaultKind.MUTATED, _modified(j, changed[j], tensors))
        if after_timing:
            continue
        if j not in changed:
            return InputFault(j, InputFaultKind.NOT_WRITTEN, left_unwritten(j, contract.returns_nothing))
        why = left_unlike_reference(j, tensors[j], contract.left[j], dtype_hint=dtype_hint, atol=atol, rtol=rtol)
        if why is not None:
            return InputFault(j, InputFaultKind.MUTATED, why)
    return None
