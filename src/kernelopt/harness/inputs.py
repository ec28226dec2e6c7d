"""Inputs for a case: built fresh per seed on the device, cloned, upcast (worker side; imports torch).

Inputs come from ``reference.get_inputs(**shape)`` under ``torch.manual_seed(seed)``, with the device as
torch's default device so that they are made where they run (:func:`make_inputs`: the one place inputs are
built, for the gate's worker and the tuning engine's bench worker), and with ``device=``
and ``seed=`` when the function takes those arguments (a reference that seeds its own generator then
builds each seed's inputs itself, with the structure it gives them). A reference that seeds its own
generator and takes no seed returns the same inputs for every seed; then the floating-point inputs of
seeds 1, 2, ... are permuted along their first dimension (:func:`rerandomize`): whole rows move, so what
a row holds stays valid (a row of a RoPE cos/sin table keeps its two equal halves, a probability row its
sum), and a kernel that returns a cached result for new inputs is still caught. A check that fails on
such inputs says they were permuted (:data:`PERMUTED_NOTE`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

from kernelopt.digits import size_text
from kernelopt.harness.hostmem import InputsDoNotFit, host_available_bytes
from kernelopt.harness.loader import KernelPair
from kernelopt.harness.poison import POISON_BYTE
from kernelopt.oneline import first_line


def tensors_in(obj: Any) -> list[torch.Tensor]:
    """The tensors of a nested list / tuple / dict, depth first."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, list | tuple):
        return [t for o in obj for t in tensors_in(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in tensors_in(o)]
    return []


def map_tensors(obj: Any, fn: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    """``obj`` with every tensor replaced by ``fn(tensor)`` (lists, tuples and dicts rebuilt)."""
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, list):
        return [map_tensors(o, fn) for o in obj]
    if isinstance(obj, tuple):
        return tuple(map_tensors(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    return obj


def clone_tree(obj: Any) -> Any:
    return map_tensors(obj, lambda t: t.detach().clone())


def upcast_tree(obj: Any, dtype: torch.dtype) -> Any:
    """Floating tensors of lower precision than ``dtype`` converted to it; others unchanged."""

    def up(t: torch.Tensor) -> torch.Tensor:
        if t.is_floating_point() and torch.finfo(t.dtype).bits < torch.finfo(dtype).bits:
            return t.detach().to(dtype)
        return t.detach().clone()

    return map_tensors(obj, up)


def _accepts_device(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "device" in params


def _accepts(fn: Callable[..., Any], name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def get_inputs_kwargs(get_inputs: Callable[..., Any], shape: dict[str, Any], device: str, seed: int) -> dict[str, Any]:
    """The keyword arguments of ``get_inputs`` for one case: the shape, ``device=`` and ``seed=`` when it takes
    them (and the shape does not set them)."""
    kwargs = dict(shape)
    if "device" not in kwargs and _accepts_device(get_inputs):
        kwargs["device"] = device
    if "seed" not in kwargs and _accepts(get_inputs, "seed"):
        kwargs["seed"] = seed
    return kwargs


def host_inputs_note(device: str, exc: BaseException) -> str:
    """What the log says once when ``get_inputs()`` could not run with ``device`` as the default device."""
    detail = first_line(str(exc), 200)
    return (
        f"get_inputs() raised {type(exc).__name__} with {device} as the default device"
        + (f" ({detail})" if detail else "")
        + "; its inputs are built on the CPU and moved, which is slow for large inputs"
    )


def _call_label(shape: dict[str, Any]) -> str:
    return "get_inputs(" + ", ".join(f"{k}={v!r}" for k, v in shape.items()) + ")"


def host_need_bytes(inputs: list[Any]) -> tuple[int, int]:
    """The bytes of ``inputs`` and of the float64 copy of their floating tensors below 64 bits: the gate's
    reference check holds both at once (:func:`upcast_tree`), so their sum is the least a check of them needs."""
    tensors = tensors_in(inputs)
    own = sum(t.numel() * t.element_size() for t in tensors)
    upcast = sum(t.numel() * 8 for t in tensors if t.is_floating_point() and torch.finfo(t.dtype).bits < 64)
    return own, upcast


def check_host_room(get_inputs: Callable[..., Any], shape: dict[str, Any], seed: int) -> None:
    """Refuse, before any tensor is built, the inputs of a case that cannot fit the host's available memory.

    ``get_inputs(**shape)`` runs once under ``with torch.device("meta")``: its tensors get shapes and dtypes
    and no storage (a 16 GiB ``torch.rand`` takes no time and no memory). When their bytes plus their float64
    copy (:func:`host_need_bytes`) exceed :func:`~kernelopt.harness.hostmem.host_available_bytes`, building them
    would swap or bring the kernel's out-of-memory killer onto this process or another one (a full-size
    KernelBench level-1 problem holds 8-16 GiB of inputs). A ``get_inputs`` that cannot run on the meta device
    (it calls ``.item()``, ``.numpy()``, draws from a CPU generator) is not estimated: its inputs are built as
    before.

    Raises:
        InputsDoNotFit: one line with the figures and what to do.
    """
    available = host_available_bytes()
    if available is None:
        return
    kwargs = get_inputs_kwargs(get_inputs, shape, "meta", seed)
    try:
        with torch.device("meta"):
            sized = list(get_inputs(**kwargs))
    except Exception:  # user code the meta device cannot run: no estimate, built as before
        return
    own, upcast = host_need_bytes(sized)
    if own + upcast <= available:
        return
    raise InputsDoNotFit(
        f"{_call_label(shape)} makes {size_text(own)} of inputs, and checking them needs "
        f"{size_text(own + upcast)} with their float64 copy; this machine has {size_text(available)} of memory "
        "available, so nothing was built: give a smaller SHAPES entry (a batch: --size-scale), or run it on a "
        "GPU"
    )


def make_inputs(
    get_inputs: Callable[..., Any],
    shape: dict[str, Any],
    device: str,
    seed: int,
    *,
    on_host: Callable[[str], None] | None = None,
) -> list[Any]:
    """``get_inputs(**shape)`` under ``torch.manual_seed(seed)``, built where it runs, as a list on ``device``.

    The call runs under ``with torch.device(device)``, so the tensors its factory calls make (``torch.rand``,
    ``randn``, ``randint``, ``zeros``, ``tensor``...) are allocated on ``device`` at once: on a GPU a 6.4 GB
    ``torch.rand`` takes 0.02 s there against 12 s on 16 CPU threads plus 0.8 s to copy (measured on an
    H200, 2026-12-05). ``torch.manual_seed`` seeds the CUDA generators too, so a seed gives the same inputs
    every time (on a GPU not the CPU's values: the device's generator makes them). A ``get_inputs`` that
    cannot run so (it calls ``.numpy()``, or draws from a CPU ``torch.Generator``) runs again the old way,
    on the CPU under the same seed, its tensors then moved; ``on_host`` gets the one line that says so (only when
    that call succeeds and ``device`` is not the CPU: a ``get_inputs`` that raises both times is the entry's fault,
    and "built on the CPU and moved" blamed the device for it).
    Tensors it puts on a device itself are moved to ``device`` all the same.

    On the CPU the inputs are sized first and refused when they cannot fit its memory (:func:`check_host_room`).

    Raises:
        InputsDoNotFit: on the CPU, the inputs would not fit the available memory (nothing built).
        torch.OutOfMemoryError: the inputs do not fit the device (no CPU build: they could not be moved).
        Exception: whatever ``get_inputs`` raises on the CPU (the caller's boundary blames the problem).
    """
    if torch.device(device).type == "cpu":
        check_host_room(get_inputs, shape, seed)
    kwargs = get_inputs_kwargs(get_inputs, shape, device, seed)
    torch.manual_seed(seed)
    try:
        with torch.device(device):
            inputs = list(get_inputs(**kwargs))
    except torch.OutOfMemoryError:
        raise  # they do not fit the device: built on the CPU they could not be moved there either
    except Exception as exc:  # user code that needs the CPU as its default device: built there instead
        torch.manual_seed(seed)
        inputs = list(get_inputs(**kwargs))  # raising here too, the fault is get_inputs's own: no note
        if on_host is not None and torch.device(device).type != "cpu":  # on the CPU nothing was moved
            on_host(host_inputs_note(device, exc))
    return [map_tensors(x, lambda t: t.to(device)) for x in inputs]


def build_inputs(
    pair: KernelPair, shape: dict[str, Any], device: str, seed: int, *, on_host: Callable[[str], None] | None = None
) -> list[Any]:
    """Fresh inputs of one case for ``seed``, on ``device`` (:func:`make_inputs` of the reference's
    ``get_inputs``)."""
    return make_inputs(pair.reference.get_inputs, shape, device, seed, on_host=on_host)


def same_values(a: Any, b: Any) -> bool:
    """True when the floating tensors of ``a`` and ``b`` are equal (NaN equal to NaN)."""
    ta = [t for t in tensors_in(a) if t.is_floating_point()]
    tb = [t for t in tensors_in(b) if t.is_floating_point()]
    if len(ta) != len(tb) or not ta:
        return False
    return all(
        x.shape == y.shape and bool(torch.equal(x.nan_to_num(0.0), y.nan_to_num(0.0)))
        for x, y in zip(ta, tb, strict=True)
    )


PERMUTED_NOTE = (
    "get_inputs() returns the same values for every seed and takes no seed, so this seed's floating-point "
    "inputs are seed 0's with their rows (first dimension) permuted"
)
"""What a failing check of seeds 1+ says when their inputs were permuted (:func:`rerandomize`)."""


def rerandomize(inputs: list[Any], seed: int) -> list[Any]:
    """Floating tensors with their slices along the first dimension randomly permuted (seeded): every row
    keeps its values and their order, so the structure a row has (equal halves of a RoPE table, a
    probability row's sum) stays; a 1-D tensor's elements are its rows. Other inputs unchanged."""
    gen = torch.Generator().manual_seed(1_000_003 + seed)

    def permute(t: torch.Tensor) -> torch.Tensor:
        if not t.is_floating_point() or t.dim() == 0 or t.shape[0] < 2:
            return t
        idx = torch.randperm(t.shape[0], generator=gen).to(t.device)
        return t.detach()[idx].contiguous()

    return [map_tensors(x, permute) for x in inputs]


def all_zero_inputs(inputs: list[Any]) -> list[int]:
    """Indices of top-level floating tensor inputs that are all zeros (skipped work would go unnoticed)."""
    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 0 and not bool(x.any()):
            out.append(i)
    return out


def nbytes(obj: Any) -> int:
    """Bytes of all tensors in ``obj``."""
    return sum(t.numel() * t.element_size() for t in tensors_in(obj))


def poison_device_memory(device: str, like: list[torch.Tensor], copies: int = 2) -> bool:
    """Fill freed blocks of the CUDA caching allocator with :data:`POISON_BYTE`; False when out of memory.

    For every tensor in ``like`` (the reference outputs), ``copies`` buffers of the same byte size are
    allocated, filled and freed, so a candidate that allocates its output with ``torch.empty`` most
    likely gets poisoned memory and unwritten elements show up. No-op on the CPU (glibc does it there).
    """
    if not device.startswith("cuda"):
        return True
    bufs = []
    try:
        for t in like:
            size = max(1, t.numel() * t.element_size())
            for _ in range(copies):
                bufs.append(torch.empty(size, dtype=torch.uint8, device=device).fill_(POISON_BYTE))
    except torch.cuda.OutOfMemoryError:
        return False  # not enough room to poison: the check runs without it (the caller warns)
    finally:
        del bufs
    return True


def poisoned_mask(t: torch.Tensor) -> torch.Tensor:
    """Boolean mask (flat) of elements of ``t`` whose every byte is :data:`POISON_BYTE`."""
    flat = t.detach().contiguous().reshape(-1)
    if flat.numel() == 0:
        return torch.zeros(0, dtype=torch.bool, device=t.device)
    if flat.dtype == torch.bool:
        return torch.zeros(flat.numel(), dtype=torch.bool, device=t.device)
    raw = flat.view(torch.uint8).reshape(flat.numel(), -1)
    return (raw == POISON_BYTE).all(dim=1)
