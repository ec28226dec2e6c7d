"""Tensors in the middle of NaN: a kernel that reads past the end of a buffer reads NaN, and one that writes past it
writes into NaN that is read back afterwards.

In Triton's interpreter a kernel reads and writes raw host memory: a block that does not divide a size, its mask
removed, read zeros at times (the wrong K tiles of mm_evenk passed by luck) and a column tile stored past an
output's end passed its check and aborted the process later (transpose_rowmask). :func:`padded` gives an input its
strides inside a buffer of NaN; :func:`fenced_outputs` gives what ``torch.empty``, ``torch.zeros``, their ``_like``
forms and a tensor's ``new_empty`` / ``new_zeros`` allocate while a kernel's ``run()`` runs the same;
:func:`trespassed` says whether anything was written into the NaN. Used by the net behind the rules
(:mod:`kernelopt.tuning.net`) and the variants' property test.

torch is imported inside the functions: importing this module does nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
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


def padded(t: Any, fences: Fences | None = None, fill: float = float("nan")) -> Any:
    """``t`` with its strides, in the middle of a buffer of ``fill`` (NaN; a floating-point tensor; anything else as
    it is).

    ``fences``: each buffer is added with the length of its middle and its fill, for :func:`trespassed`."""
    import torch

    if not (isinstance(t, torch.Tensor) and t.is_floating_point()) or t.numel() == 0:
        return t  # nothing to fence in an empty tensor (Triton's interpreter stages each argument in new_empty(0))
    span = 1 + sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride(), strict=True))
    try:
        buf = torch.full((span + 2 * PAD,), fill, dtype=t.dtype, device=t.device)
    except RuntimeError:  # a fill the dtype cannot hold (-1234.5 in float8_e4m3fn, at most 448): NaN, as inputs
        fill = float("nan")
        buf = torch.full((span + 2 * PAD,), fill, dtype=t.dtype, device=t.device)
    view = buf.as_strided(t.shape, t.stride(), PAD)
    view.copy_(t)
    if fences is not None:
        fences.append((buf, span, fill))
    return view


#: What a ``run()`` allocates its outputs with, each fenced while it runs (:func:`fenced_outputs`): torch's functions,
#: and the tensor methods (``x.new_empty(n)``: newuser9 n47, a store past its end went unseen by the net).
FENCED_FUNCTIONS = ("empty", "empty_like", "zeros", "zeros_like")
FENCED_METHODS = ("new_empty", "new_zeros")


@contextlib.contextmanager
def fenced_outputs(fences: Fences, fill: float = float("nan")) -> Iterator[None]:
    """While the block runs, what ``torch.empty``, ``torch.empty_like``, ``torch.zeros``, ``torch.zeros_like`` and a
    tensor's ``new_empty`` and ``new_zeros`` allocate is, for a floating-point tensor, in the middle of ``fill`` (NaN;
    :func:`padded`), each fence added to ``fences``: a store past an output's end is seen, not a corrupt heap
    (:data:`OUTPUT_FILL` sees a NaN stored there too)."""
    import torch

    def fenced(make: Any) -> Any:
        def allocate(*args: Any, **kwargs: Any) -> Any:
            return padded(make(*args, **kwargs), fences, fill)

        return allocate

    with contextlib.ExitStack() as stack:
        for name in FENCED_FUNCTIONS:
            stack.enter_context(mock.patch.object(torch, name, fenced(getattr(torch, name))))
        for name in FENCED_METHODS:
            stack.enter_context(mock.patch.object(torch.Tensor, name, fenced(getattr(torch.Tensor, name))))
        yield


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
