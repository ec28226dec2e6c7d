"""Whether a reference draws random numbers, and whether its higher-precision run drew the same ones (worker side).

The check runs the reference twice from one random state: in its own dtype (the kernel's peer) and in float64
(the values' truth); the difference between the two is read as the reference's own rounding error and widens
the tolerance (:mod:`kernelopt.harness.compare`). That holds only when both runs compute the same thing. A
reference whose draws depend on the dtype (``torch.rand(n, dtype=x.dtype)``, ``torch.randn_like(x)``,
``torch.bernoulli(p)`` with ``p`` upcast, a branch on ``x.dtype`` that picks what to draw) draws other numbers
in float64: the difference is then its noise, not its rounding, and widening by it would let a kernel that
leaves the noise out pass. torch's CPU generator gives ``torch.rand(8)`` and ``torch.rand(8,
dtype=torch.float64)`` different values from one seed (torch 2.13).

How it is told: a run that draws moves the default generator's state (:func:`generator_states`,
:func:`drew`). Only then the reference runs once more in its own dtype from another random state, and the
float64 run counts as the same draws when it differs from the own-dtype run by at most
:data:`SAME_DRAWS_RATIO` of what the other state's draws change (:func:`same_draws`): rounding is far smaller
than noise, other numbers are about as far as the other state's. When it does not, the kernel is checked
against the own-dtype run, from the same random state, with the dtype's default tolerance, never widened.
A reference that draws nothing costs nothing more.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kernelopt.harness.model import ReferenceFault

SAME_DRAWS_RATIO = 0.25
"""Our choice: a float64 run within this share of the other random state's change drew the same numbers
(rounding); two runs drawing independent numbers differ by about the same as the other state's run, ratio near 1
(sqrt(2) / sqrt(2) for independent noise of one size)."""

OTHER_STATE_SEED = 999
"""Our choice: the random state (``torch.manual_seed``) of the extra own-dtype run; below
:data:`kernelopt.harness.worker.RUN_SEED_BASE`, so no check seed's run starts from it."""


def generator_states(device: str) -> list[Any]:
    """Copies of the default random generators' states that the reference's draws move: the CPU generator, the
    current CUDA device's when ``device`` is a CUDA device and CUDA has started, and Python's and numpy's global
    generators (numpy's when something imported it): a reference drawing ``np.random.rand`` was never told, and its
    float64 run's other draws widened the tolerance by its noise (docs/faults.md refblame13 r9)."""
    import random
    import sys

    import torch

    states: list[Any] = [torch.get_rng_state()]
    if device.startswith("cuda") and torch.cuda.is_available() and torch.cuda.is_initialized():
        states.append(torch.cuda.get_rng_state())
    states.append(random.getstate())
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        states.append(numpy.random.get_state(legacy=False))
    return states


def drew(before: list[Any], after: list[Any]) -> bool:
    """Whether anything drew from the generators between the two :func:`generator_states`."""
    return len(before) != len(after) or any(not _same_state(a, b) for a, b in zip(before, after, strict=True))


def _same_state(a: Any, b: Any) -> bool:
    import pickle

    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return torch.equal(a, b)
    return pickle.dumps(a) == pickle.dumps(b)  # Python's tuple, numpy's dict (its key an array)


def _distance(a: Any, b: Any) -> float | None:
    """``||a - b||`` over the elements finite in both (float64, chunk by chunk); ``None`` when they cannot be
    compared (not both floating tensors of one shape)."""
    import torch

    from kernelopt.harness.chunks import chunk_for

    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        if isinstance(a, int | float) and isinstance(b, int | float):
            return abs(float(a) - float(b)) if math.isfinite(float(a) - float(b)) else 0.0
        try:
            return 0.0 if type(a) is type(b) and bool(a == b) else None
        except (TypeError, ValueError, RuntimeError):  # an output whose == is not a truth value
            return None
    if a.shape != b.shape:
        return None
    if not (a.is_floating_point() and b.is_floating_point()):
        return 0.0 if torch.equal(a.to(torch.int64), b.to(torch.int64).to(a.device)) else math.inf
    fa, fb = a.detach().reshape(-1), b.detach().reshape(-1)
    step = chunk_for(fa.numel())
    squares = 0.0
    for start in range(0, fa.numel(), step):
        x = fa[start : start + step].to(torch.float64)
        y = fb[start : start + step].to(torch.float64).to(x.device)
        d = x - y
        d = d[torch.isfinite(d)]
        squares += float(torch.dot(d, d).item()) if d.numel() else 0.0
    return math.sqrt(squares)


def same_draws(native: Any, high: Any, other: Any) -> bool:
    """Whether the higher-precision run ``high`` drew the numbers the own-dtype run ``native`` drew.

    Args:
        native: the reference's outputs in its own dtype, from random state s.
        high: its outputs in float64 (or float32), from the same state s.
        other: its outputs in its own dtype from another state (:data:`OTHER_STATE_SEED`).

    Returns:
        True when, for every output the draws reach (``native`` and ``other`` differ), ``high`` is within
        :data:`SAME_DRAWS_RATIO` of that difference; False when an output cannot be compared.
    """
    from kernelopt.harness.compare import as_outputs

    natives, highs, others = as_outputs(native), as_outputs(high), as_outputs(other)
    if not len(natives) == len(highs) == len(others):
        return False
    for n, h, o in zip(natives, highs, others, strict=True):
        spread = _distance(n, o)
        if spread is None:
            return False
        if spread == 0.0:
            continue  # the draws do not reach this output
        gap = _distance(n, h)
        if gap is None or not gap <= SAME_DRAWS_RATIO * spread:
            return False
    return True


class ReferenceNondeterministic(ReferenceFault):
    """A reference whose output changes with the random state beyond the tolerance (:func:`state_dependence`): no
    kernel that draws its own numbers, or none, can be checked against it; the reference's fault, never a kernel's."""


def state_dependence(
    rerun: Callable[[], Any],
    native: Any,
    *,
    dtype_hint: str | None,
    atol: float | None,
    rtol: float | None,
    what: str = "the reference",
) -> str | None:
    """The one line saying a reference that drew random numbers returns other values from another random state
    (``rerun()`` runs it again on the same inputs; started here from :data:`OTHER_STATE_SEED`) beyond the tolerance
    its outputs ``native`` hold a kernel to; ``None`` when its output does not depend on its draws that much.

    A ``torch.randn`` inside ``reference()`` (weights or noise drawn there, not in ``get_inputs()``) failed a
    correct kernel as "output differs from the reference beyond tolerance" (docs/faults.md refblame13 r2)."""
    import torch

    from kernelopt.harness.compare import rerun_differs

    torch.manual_seed(OTHER_STATE_SEED)
    differs = rerun_differs(rerun(), native, dtype_hint=dtype_hint, atol=atol, rtol=rtol)
    if differs is None:
        return None
    return (
        f"{what} draws random numbers and its output changes with the random state (run again from another: "
        f"{differs}), so no kernel that draws its own numbers, or none, can be checked against it; draw them "
        "in get_inputs(), or from a generator seeded in reference()"
    )
