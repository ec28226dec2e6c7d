"""Tensors in the middle of NaN: a kernel that reads past the end of a buffer reads NaN, and one that writes past it
writes into NaN that is read back afterwards.

In Triton's interpreter a kernel reads and writes raw host memory: a block that does not divide a size, its mask
removed, read zeros at times (the wrong K tiles of mm_evenk passed by luck) and a column tile stored past an
output's end passed its check and aborted the process later (transpose_rowmask). :func:`padded` gives an input its
strides inside a buffer of NaN; :func:`fenced_outputs` gives what ``torch.empty``, ``torch.zeros``, their ``_like``
forms and a tensor's ``new_empty`` / ``new_zeros`` allocate while a kernel's ``run()`` runs the same;
:func:`trespassed` says whether anything was written into the NaN. An integer or boolean output is fenced with a
value the reference's outputs do not hold (:func:`integer_fills`), its ``empty`` forms filled with it too, so an
element left unwritten holds a value the reference never gives (net12); where every value of the dtype is held (a
boolean output with both), it is not fenced. Used by the net behind the rules (:mod:`kernelopt.tuning.net`) and the
variants' property test.

torch is imported inside the functions: importing this module does nothing.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator, Sequence
from typing import Any
from unittest import mock

PAD = 4096
"""Elements of NaN on each side of every floating-point tensor (:func:`padded`)."""

OUTPUT_FILL = -1234.5
"""A fence value no computation gives by chance (not NaN): an output's fence filled with it sees a NaN written past the
output's end too, a value read past an input's NaN end and stored past the output's (a kernel without masks), which
a NaN fence cannot tell from its own NaN."""

Fences = list[tuple[Any, int, float]]
"""Each buffer :func:`padded` made, the length of its middle (the tensor's span) and its fill, for
:func:`trespassed`."""


def padded(t: Any, fences: Fences | None = None, fill: float = float("nan"), *, blank: bool = False) -> Any:
    """``t`` with its strides, in the middle of a buffer of ``fill`` (NaN; a floating-point tensor, or an integer or
    boolean one where ``fill`` is an integer (:func:`integer_fills`); anything else as it is).

    ``fences``: each buffer is added with the length of its middle and its fill, for :func:`trespassed`. ``blank``:
    the middle holds ``fill`` too, not ``t``'s values (what an ``empty`` allocation holds is no value of its own)."""
    import torch

    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return t  # nothing to fence in an empty tensor (Triton's interpreter stages each argument in new_empty(0))
    integer = isinstance(fill, int) and (t.dtype == torch.bool or not (t.is_floating_point() or t.is_complex()))
    if not (t.is_floating_point() or integer):
        return t
    span = 1 + sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride(), strict=True))
    try:
        buf = torch.full((span + 2 * PAD,), fill, dtype=t.dtype, device=t.device)
    except RuntimeError:  # a fill the dtype cannot hold (-1234.5 in float8_e4m3fn, at most 448): NaN, as inputs
        fill = float("nan")
        buf = torch.full((span + 2 * PAD,), fill, dtype=t.dtype, device=t.device)
    view = buf.as_strided(t.shape, t.stride(), PAD)
    if not blank:
        view.copy_(t)
    if fences is not None:
        fences.append((buf, span, fill))
    return view


#: What a ``run()`` allocates its outputs with, each fenced while it runs (:func:`fenced_outputs`): torch's functions,
#: and the tensor methods (``x.new_empty(n)``: newuser9 n47, a store past its end went unseen by the net).
FENCED_FUNCTIONS = ("empty", "empty_like", "zeros", "zeros_like")
FENCED_METHODS = ("new_empty", "new_zeros")


@contextlib.contextmanager
def fenced_outputs(fences: Fences, fill: float = float("nan"), integers: IntegerFills | None = None) -> Iterator[None]:
    """While the block runs, what ``torch.empty``, ``torch.empty_like``, ``torch.zeros``, ``torch.zeros_like`` and a
    tensor's ``new_empty`` and ``new_zeros`` allocate is, for a floating-point tensor, in the middle of ``fill`` (NaN;
    :func:`padded`), each fence added to ``fences``: a store past an output's end is seen, not a corrupt heap
    (:data:`OUTPUT_FILL` sees a NaN stored there too). ``integers``: an integer or boolean tensor is fenced with its
    dtype's value (:func:`integer_fills`), and what the ``empty`` forms allocate holds it too, so an element left
    unwritten is seen whatever the allocator handed back; a dtype without one, as it is."""
    import torch

    inside: list[bool] = []  # an allocation made while one is fenced (torch's own, below padded's torch.full)

    def fenced(make: Any, blank: bool) -> Any:
        def allocate(*args: Any, **kwargs: Any) -> Any:
            t = make(*args, **kwargs)
            if inside or not _storage_backed(t):
                return t
            inside.append(True)
            try:
                if integers is None or t.is_floating_point() or t.is_complex():
                    return padded(t, fences, fill)
                value = integers(t.dtype)
                return t if value is None else padded(t, fences, value, blank=blank)
            finally:
                inside.pop()

        return allocate

    with contextlib.ExitStack() as stack:
        for name in FENCED_FUNCTIONS:
            made = fenced(getattr(torch, name), name.startswith("empty"))
            stack.enter_context(mock.patch.object(torch, name, made))
        for name in FENCED_METHODS:
            made = fenced(getattr(torch.Tensor, name), name == "new_empty")
            stack.enter_context(mock.patch.object(torch.Tensor, name, made))
        yield


def _storage_backed(t: Any) -> bool:
    """Whether ``t`` is a plain tensor with memory a kernel can read or write past: not a meta or fake tensor, nor a
    subclass (a nested tensor's shape is computed by torch's meta functions, which allocate with ``torch.empty`` in
    turn: fencing those recursed without end, breaker20's tb_jagged_sum)."""
    import torch

    return type(t) is torch.Tensor and t.device.type != "meta"


class IntegerFills:
    """For an integer or boolean dtype, a value no integer or boolean tensor of the reference's outputs (at the size
    checked) holds: the dtype's least, else its largest (no index, count or code a reference gives), else the least
    value between them that none holds; ``None`` where every value of the dtype is held (a boolean output with both,
    a ``uint8`` one with all 256): such an output is not fenced, and :attr:`unfenced` names its dtype. Each dtype's
    found once."""

    def __init__(self, outputs: Sequence[Any]) -> None:
        import torch

        self._held = [(t, r) for t in outputs if isinstance(t, torch.Tensor) and (r := _bounds(t.dtype)) is not None]
        self._found: dict[Any, int | None] = {}
        self.unfenced: list[str] = []  # the dtypes asked for that no value fences

    def _holds(self, v: int) -> bool:  # a tensor whose dtype cannot hold v is not compared (uint8 == -128 wraps)
        return any(r[0] <= v <= r[1] and bool((t == v).any()) for t, r in self._held)

    def __call__(self, dtype: Any) -> int | None:
        if dtype not in self._found:
            self._found[dtype] = self._fill(dtype)
            if self._found[dtype] is None:
                self.unfenced.append(str(dtype).removeprefix("torch."))
        return self._found[dtype]

    def _fill(self, dtype: Any) -> int | None:
        import torch

        if (range_ := _bounds(dtype)) is None:  # no integer range (a quantized dtype): not fenced
            return None
        lo, hi = range_
        found = next((v for v in (lo, hi) if not self._holds(v)), None)
        if found is None and self._held:  # the least value none holds: the first gap in the values held
            values = torch.unique(torch.cat([t.detach().flatten().to(torch.int64).cpu() for t, _ in self._held]))
            inside = values[(values >= lo) & (values <= hi)].tolist()
            found = next((a + 1 for a, b in itertools.pairwise(inside) if b > a + 1), None)
        return bool(found) if dtype == torch.bool and found is not None else found


def integer_fills(outputs: Sequence[Any]) -> IntegerFills:
    """The fences of integer and boolean outputs for a reference's ``outputs`` (:class:`IntegerFills`)."""
    return IntegerFills(outputs)


def _bounds(dtype: Any) -> tuple[int, int] | None:
    """The least and largest value of an integer or boolean torch dtype; ``None`` for any other."""
    import torch

    try:
        return (0, 1) if dtype == torch.bool else (torch.iinfo(dtype).min, torch.iinfo(dtype).max)
    except TypeError:  # a floating-point or quantized dtype
        return None


def trespassed(fences: Fences) -> bool:
    """Whether anything was written into the fill around a tensor of ``fences`` (:func:`padded`)."""
    import math

    import torch

    def intact(part: Any, fill: float) -> bool:
        return bool(torch.isnan(part).all()) if math.isnan(fill) else bool((part == fill).all())

    def kept(buf: Any, span: int, fill: float) -> bool:
        held = torch.full((1,), fill, dtype=buf.dtype).item()  # the fill as the dtype holds it
        return intact(buf[:PAD], held) and intact(buf[PAD + span :], held)

    return any(not kept(buf, span, fill) for buf, span, fill in fences)
