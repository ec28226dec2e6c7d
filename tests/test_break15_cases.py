"""A fresh clone broken by hand, fifteenth trial (2026-12-06): the fourteenth session's changes (a per-bucket table's
next-best rows, a reference caching its output, a kernel output of another structure, entries the kernel cannot run,
the first-call compare in the gate, launch options moving computed covers, autotune lists built by code, fla's
partial axes, a constexpr under a true division, and the refactors said to change no behaviour) tried on neighbours
of the kernels they were made for; one test per fix (docs/faults.md, "A fresh clone broken, fifteenth trial")."""

from __future__ import annotations

import collections

import torch


def test_b8_a_kernel_returning_the_reference_s_named_tuple_is_checked() -> None:
    """b8: r12 puts a call's output in the reference's dict order before the flat comparison (``in_order_of``), and
    rebuilt each sequence as ``type(out)(iterable)``: a named tuple's class takes its fields one by one, so a kernel
    returning the same ``Pair(scaled, shifted)`` as its reference failed validate with "TypeError: Pair.__new__()
    missing 1 required positional argument" (a correct kernel refused; at 66667e5c it passed). A wrong value in the
    same build is still found, and a tensor for the pair is still WrongType."""
    from kernelopt.harness.compare import check_outputs

    pair = collections.namedtuple("Pair", "scaled shifted")
    x = torch.randn(37)
    ref, hi = pair(2 * x, x + 1), pair(2 * x.double(), x.double() + 1)
    assert check_outputs(pair(2 * x, x + 1), ref, hi).error_class is None
    assert check_outputs((2 * x, x + 1), ref, hi).error_class is None
    assert (
        check_outputs(torch.max(x.view(1, -1), dim=1), tuple(torch.max(x.view(1, -1), dim=1)), None).error_class is None
    )
    wrong = check_outputs(pair(2 * x, x + 2), ref, hi)
    assert wrong.error_class is not None and "output 1" in wrong.message
    assert check_outputs(2 * x, ref, hi).error_class == "WrongOutputCount"
    assert check_outputs({"a": 2 * x, "b": x + 1}, ref, hi).error_class == "WrongType"
