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

import contextlib
import inspect
import math
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from kernelopt.digits import size_text
from kernelopt.harness.chunks import chunk_for
from kernelopt.harness.footprint import HIGH_BYTES_PER_ELEMENT
from kernelopt.harness.hostmem import InputsDoNotFit, host_available_bytes
from kernelopt.harness.loader import KernelPair
from kernelopt.harness.model import HOST_DOES_NOT_FIT, SIZE_REMEDY, ReferenceFault, shown_value
from kernelopt.harness.poison import OTHER_POISON_BYTE, POISON_BYTE, host_fill
from kernelopt.kernelsource import input_list, unreadable_input
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
    return "get_inputs(" + ", ".join(f"{k}={shown_value(v, as_repr=True)}" for k, v in shape.items()) + ")"


def high_copy_bytes(numel: int, dtype: torch.dtype) -> int:
    """Bytes of the copy the reference's run in higher precision makes of a tensor (:func:`upcast_tree` to float64:
    :data:`~kernelopt.harness.footprint.HIGH_BYTES_PER_ELEMENT` per floating element, a clone of any other), and of
    an output it returns: the one rule of the host's budget and the device's footprint
    (:func:`kernelopt.harness.highrun.high_bytes`)."""
    if dtype.is_floating_point:
        return numel * HIGH_BYTES_PER_ELEMENT
    return numel * dtype.itemsize


def host_need_bytes(inputs: list[Any], outputs: Any = None) -> tuple[int, int, int]:
    """What a check of one case holds on the host at once: the inputs' bytes, the reference's outputs' bytes, and
    the total: the inputs and their float64 copy (:func:`upcast_tree`), the reference's outputs in their dtype and
    in float64, and the kernel's outputs (as many as the reference's). The gate's check and the tuning engine's
    run the same float64 run (:mod:`kernelopt.harness.highrun`): one count for both."""
    own_in, own_out = nbytes(inputs), nbytes(outputs)
    copies = sum(high_copy_bytes(t.numel(), t.dtype) for t in [*tensors_in(inputs), *tensors_in(outputs)])
    return own_in, own_out, own_in + 2 * own_out + copies


def meta_reference(reference: Any) -> Callable[[list[Any]], Any]:
    """reference.py's ground truth as a function of inputs on the meta device: ``reference(*inputs)``, or a
    KernelBench ``Model(*get_init_inputs())`` built there (parameters with no storage) and called under
    ``torch.no_grad()``. Raises what the user's code raises."""

    def run(inputs: list[Any]) -> Any:
        with torch.device("meta"), torch.no_grad():
            model = meta_model(reference)
            return model(*inputs) if model is not None else reference.reference(*inputs)

    return run


def meta_model(reference: Any) -> Any | None:
    """A KernelBench reference's ``Model(*get_init_inputs())`` built on the meta device (parameters with no storage),
    ``None`` where reference.py defines a ``reference`` function instead. Raises what the user's code raises."""
    if not hasattr(reference, "Model"):
        return None
    with torch.device("meta"):
        init = reference.get_init_inputs() if hasattr(reference, "get_init_inputs") else []
        return reference.Model(*init)


_SIZED = {torch.rand: 0, torch.randn: 0, torch.empty: 0, torch.zeros: 0, torch.ones: 0}
"""Factory functions whose size is their positional arguments (or one sequence of them), as ``size=``."""
_LIKE = (torch.rand_like, torch.randn_like, torch.empty_like, torch.zeros_like, torch.ones_like, torch.full_like)


def _data_size(data: Any) -> tuple[int, torch.dtype] | None:
    """The elements and dtype of the tensor ``torch.tensor(data)`` makes, read from ``data`` without copying it: a
    tensor, a numpy array (numpy names its dtypes as torch does: ``float32``, ``int64``, ``bool``), or a nested list
    of Python numbers (its lengths along the first elements, the type of the first number); ``None`` otherwise."""
    if isinstance(data, torch.Tensor):
        return data.numel(), data.dtype
    dims, dt = getattr(data, "shape", None), getattr(data, "dtype", None)
    if dims is not None and dt is not None:
        dtype = getattr(torch, str(getattr(dt, "name", "")), None)
        return (math.prod(int(d) for d in dims), dtype) if isinstance(dtype, torch.dtype) else None
    lengths, leaf = [], data
    while isinstance(leaf, list | tuple):
        lengths.append(len(leaf))
        if not leaf:
            break
        leaf = leaf[0]
    if isinstance(leaf, bool):
        dtype = torch.bool
    elif isinstance(leaf, int):
        dtype = torch.int64
    elif isinstance(leaf, float) or (isinstance(leaf, list | tuple) and not leaf):
        dtype = torch.get_default_dtype()
    else:
        return None
    return math.prod(lengths), dtype


def _range_size(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, torch.dtype] | None:
    """Elements and dtype of ``arange``, ``linspace``, ``randperm`` and ``eye`` from their arguments; ``None`` for
    any other function."""
    if func is torch.arange:
        pos = [0, *args[:1]] if len(args) == 1 else list(args[:3])
        start = kwargs.get("start", pos[0] if pos else 0)
        end = kwargs.get("end", pos[1] if len(pos) > 1 else None)
        step = kwargs.get("step", pos[2] if len(pos) > 2 else 1)
        numel = max(0, math.ceil((float(end) - float(start)) / float(step)))
        exact = all(isinstance(v, int) for v in (start, end, step))
        return numel, kwargs.get("dtype") or (torch.int64 if exact else torch.get_default_dtype())
    if func is torch.linspace:
        return int(kwargs.get("steps", args[2] if len(args) > 2 else 0)), kwargs.get(
            "dtype"
        ) or torch.get_default_dtype()
    if func is torch.randperm:
        return int(kwargs.get("n", args[0] if args else 0)), kwargs.get("dtype") or torch.int64
    if func is torch.eye:
        n = int(kwargs.get("n", args[0] if args else 0))
        m = kwargs.get("m", args[1] if len(args) > 1 else None)
        return n * (n if m is None else int(m)), kwargs.get("dtype") or torch.get_default_dtype()
    return None


def requested_bytes(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, int] | None:
    """What a torch factory call is about to allocate (or, ``as_tensor`` of a numpy array, to hold), and the float64
    copy a check makes of it: from its size and dtype alone, before it runs (``torch.rand(16, 64, 2048, 2048)``:
    16 GiB and 32 GiB; ``torch.tensor(array)``: the array's elements in its dtype or the one asked; ``arange``,
    ``linspace``, ``randperm``, ``eye``); ``None`` for any other call, one whose arguments do not say, and
    ``as_tensor`` of a tensor (the same tensor, already counted when a factory made it).

    What numpy builds (``np.random.rand(n)``) cannot be sized before it is made: numpy allocates outside torch,
    where no hook of ours sees it. It is counted when torch takes it (``torch.tensor`` / ``as_tensor``, above), and
    the built inputs as a whole before the check's copies (:func:`check_outputs_room`); ``torch.from_numpy``
    shares the array and is no torch function to see: counted there too."""
    try:
        if func in (torch.tensor, torch.as_tensor):
            data = args[0] if args else kwargs.get("data")
            if func is torch.as_tensor and isinstance(data, torch.Tensor) and kwargs.get("dtype") in (None, data.dtype):
                return None
            sized = _data_size(data)
            if sized is None:
                return None
            numel, dtype = sized[0], kwargs.get("dtype") or sized[1]
        elif (ranged := _range_size(func, args, kwargs)) is not None:
            numel, dtype = ranged
        elif func in _LIKE:
            like = args[0]
            numel, dtype = like.numel(), kwargs.get("dtype") or like.dtype
        else:
            if func in _SIZED:
                size = kwargs.get("size", args[0] if len(args) == 1 and not isinstance(args[0], int) else args)
                dtype = kwargs.get("dtype") or torch.get_default_dtype()
            elif func is torch.full:
                size = kwargs.get("size", args[0] if args else None)
                fill = kwargs.get("fill_value", args[1] if len(args) > 1 else 0.0)
                dtype = kwargs.get("dtype") or (torch.get_default_dtype() if isinstance(fill, float) else torch.int64)
            elif func is torch.randint:
                size = kwargs.get("size", args[-1] if len(args) >= 2 else None)
                dtype = kwargs.get("dtype") or torch.int64
            else:
                return None
            numel = math.prod(int(d) for d in size)
    except (TypeError, ValueError, IndexError, AttributeError, OverflowError, ZeroDivisionError):
        return None
    return numel * torch.empty((), dtype=dtype, device="meta").element_size(), high_copy_bytes(numel, dtype)


def _room_line(shape: dict[str, Any], made: str, need: int, available: int, done: str) -> str:
    """The one line of a case refused for the host's memory: what it makes, what its check needs, what there is;
    ``done``: what was not (``built``, ``checked``)."""
    return (
        f"{_call_label(shape)} {made}, and checking them needs {size_text(need)} with their float64 copies; this "
        f"machine has {size_text(available)} {HOST_DOES_NOT_FIT} {done}: {SIZE_REMEDY}, or run it on a GPU"
    )


class HostBudget(TorchFunctionMode):
    """While ``get_inputs`` builds a case on the CPU: before each factory call, what the calls so far and this one
    allocate (and their float64 copies, :func:`requested_bytes`) against the host's available memory; past it,
    :class:`~kernelopt.harness.hostmem.InputsDoNotFit` before that allocation. Costs nothing per call, and
    builds nothing twice (a run on the meta device costs a first-use import of 1.5-8 s per process)."""

    def __init__(self, available: int, shape: dict[str, Any]) -> None:
        super().__init__()
        self.available, self.shape, self.total, self.copies = available, shape, 0, 0

    def __torch_function__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        asked = requested_bytes(func, args, kwargs)
        if asked is not None:
            self.total += asked[0] + asked[1]
            self.copies += asked[1]
            if self.total > self.available:
                made = f"asks for {size_text(self.total - self.copies)} of tensors"
                raise InputsDoNotFit(_room_line(self.shape, made, self.total, self.available, "built"))
        return func(*args, **kwargs)


#: Our choice: inputs whose check takes over this share of the available memory have their reference's outputs
#: sized too (on the meta device: 1.5-8 s of first-use import, paid only where building them costs as much).
OUTPUT_CHECK_SHARE = 8


def check_outputs_room(
    inputs: list[Any], shape: dict[str, Any], reference: Callable[[list[Any]], Any] | None, available: int
) -> None:
    """After a large case was built on the CPU, before the check's copies: its outputs sized on the meta device
    (:func:`meta_reference`), and the whole check (:func:`host_need_bytes`) against the available memory (the
    inputs built are freed when this raises).

    Raises:
        InputsDoNotFit: one line with the figures (KernelBench's 19_ReLU at full size: 6 GiB of inputs and 6 GiB of
            outputs need 42 GiB checked).
    """
    _, _, need_in = host_need_bytes(inputs)
    if reference is None or need_in * OUTPUT_CHECK_SHARE < available:
        return
    try:
        outputs = reference([t.to("meta") if isinstance(t, torch.Tensor) else t for t in inputs])
    except Exception:  # an operation the meta device lacks: the inputs alone, built here (numpy's, say) are counted
        outputs = None
    own_in, own_out, need = host_need_bytes(inputs, outputs)
    if need > available:
        made = f"makes {size_text(own_in)} of inputs" + (
            f" and {size_text(own_out)} of outputs" if outputs is not None else " (its outputs not sized)"
        )
        raise InputsDoNotFit(_room_line(shape, made, need, available, "checked"))


def make_inputs(
    get_inputs: Callable[..., Any],
    shape: dict[str, Any],
    device: str,
    seed: int,
    *,
    on_host: Callable[[str], None] | None = None,
    reference: Callable[[list[Any]], Any] | None = None,
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

    On the CPU each factory call of ``get_inputs`` is sized before it allocates (:class:`HostBudget`), and a large
    case's outputs (``reference``, :func:`meta_reference`) before its check (:func:`check_outputs_room`): a case
    whose check cannot fit the host's available memory is refused in one line.

    Raises:
        InputsDoNotFit: on the CPU, the inputs would not fit the available memory (nothing built).
        torch.OutOfMemoryError: the inputs do not fit the device (no CPU build: they could not be moved).
        TypeError: ``get_inputs`` returned a tensor the harness cannot check or time (a meta, sparse, MKL-DNN or
            nested one: :func:`~kernelopt.kernelsource.unreadable_input`), in one line naming it.
        Exception: whatever ``get_inputs`` raises on the CPU (the caller's boundary blames the problem).
    """
    available = host_available_bytes() if torch.device(device).type == "cpu" else None
    budget = HostBudget(available, shape) if available is not None else contextlib.nullcontext()
    kwargs = get_inputs_kwargs(get_inputs, shape, device, seed)
    torch.manual_seed(seed)
    try:
        with torch.device(device), budget:
            inputs = input_list(get_inputs(**kwargs))
        if available is not None:
            check_outputs_room(inputs, shape, reference, available)
    except (InputsDoNotFit, torch.OutOfMemoryError):
        raise  # they do not fit the host, or the device: built on the CPU they could not be moved there either
    except Exception as exc:  # user code that needs the CPU as its default device: built there instead
        torch.manual_seed(seed)
        inputs = input_list(get_inputs(**kwargs))  # raising here too, the fault is get_inputs's own: no note
        if on_host is not None and torch.device(device).type != "cpu":  # on the CPU nothing was moved
            on_host(host_inputs_note(device, exc))
    # a tensor the harness cannot read is get_inputs' value, said so (l180); on the meta device itself (a stand-in
    # for one, as the tests build it) a meta tensor is the device's own, a sparse or nested one not (v192)
    for i, value in enumerate(inputs):
        why = unreadable_input(value, f"input {i}", meta_device=torch.device(device).type == "meta")
        if why is not None:
            raise TypeError(why)
    return [map_tensors(x, lambda t: t.to(device)) for x in inputs]


def build_inputs(
    pair: KernelPair, shape: dict[str, Any], device: str, seed: int, *, on_host: Callable[[str], None] | None = None
) -> list[Any]:
    """Fresh inputs of one case for ``seed``, on ``device`` (:func:`make_inputs` of the reference's
    ``get_inputs``)."""
    return make_inputs(
        pair.reference.get_inputs, shape, device, seed, on_host=on_host, reference=meta_reference(pair.reference)
    )


def same_values(a: Any, b: Any) -> bool:
    """True when the floating tensors of ``a`` and ``b`` are equal (NaN equal to NaN; an fp8 tensor, which has no
    ``nan_to_num``, by its float32 values: breaker28's q82, LMDeploy's fp8 KV caches among the inputs)."""
    ta = [t for t in tensors_in(a) if t.is_floating_point()]
    tb = [t for t in tensors_in(b) if t.is_floating_point()]
    if len(ta) != len(tb) or not ta:
        return False
    return all(
        x.shape == y.shape and bool(torch.equal(_nan_zeroed(x), _nan_zeroed(y))) for x, y in zip(ta, tb, strict=True)
    )


def _nan_zeroed(t: torch.Tensor) -> torch.Tensor:
    """``t`` with its NaNs as 0 (a one-byte float, fp8, widened to float32 first: torch has no ``nan_to_num`` for
    it)."""
    return (t.float() if t.element_size() == 1 else t).nan_to_num(0.0)


PERMUTED_NOTE = (
    "get_inputs() takes no seed (give it one where rows must agree across inputs), so this seed's floating-point "
    "inputs are seed 0's with their rows permuted (the first dimension; a vector in sorted order kept in it; where "
    "every input is one, scaled by a power of two)"
)
"""What a failing check of seeds 1+ says when their inputs were permuted (:func:`rerandomize`)."""


def rerandomize(inputs: list[Any], seed: int) -> list[Any]:
    """Floating tensors with their slices along the first dimension randomly permuted (seeded): every row
    keeps its values and their order, so the structure a row has (equal halves of a RoPE table, a
    probability row's sum) stays; a 1-D tensor's elements are its rows. Other inputs unchanged. Each keeps its
    layout (``torch.empty_like``): Liger's Qwen2-VL mrope is given q as a transposed view of (batch, seq, heads,
    dim) storage and rotates that storage in place; a contiguous permutation made its ``.contiguous()`` copy, and
    the gate failed seeds 1+ with "kernel left input 0 as it was" (breaker11). A 1-D tensor in sorted order keeps it
    (:func:`_in_order`: a table the data is read with, whose order is what it means) where the set holds other data
    (a tensor of two values or more, of any dtype, not such a vector). Where every input is such a vector, each is
    scaled by one power of two, so that a seed differs from seed 0 (review20 r4: ``torch.arange`` as a reference's one
    input kept in every seed, and a kernel that ignored it passed) and the order, the equal values and every order
    across them stay (break20 b39: permuted, as r4 had them, a merge of two sorted vectors and a unique over one, each
    relying on its order beside an order-free reference, failed seed 1, "output has shape (4091,); the reference's is
    (1007,)"); left as it is where a value would overflow."""
    gen = torch.Generator().manual_seed(1_000_003 + seed)
    every = [t for x in inputs for t in tensors_in(x) if t.numel() >= 2]
    tables = [t for t in every if t.is_floating_point() and _in_order(t)]
    kept = {id(t) for t in tables}
    if tables and len(tables) == len(every):
        scale = float(2 ** (1 + seed % 2))  # exact: no two values made equal, none moved past another
        if all(bool(torch.isfinite(t.detach() * scale).all()) for t in tables):

            def scaled(t: torch.Tensor) -> torch.Tensor:
                return torch.empty_like(t).copy_(t.detach() * scale) if id(t) in kept else t

            return [map_tensors(x, scaled) for x in inputs]

    def permute(t: torch.Tensor) -> torch.Tensor:
        if not t.is_floating_point() or t.dim() == 0 or t.shape[0] < 2 or id(t) in kept:
            return t
        idx = torch.randperm(t.shape[0], generator=gen).to(t.device)
        return torch.empty_like(t).copy_(t.detach()[idx])

    return [map_tensors(x, permute) for x in inputs]


def _in_order(t: torch.Tensor) -> bool:
    """Whether ``t`` is a vector of at least 3 values in ascending or descending order: a table searched by value
    (bitsandbytes' 256-level quantization code, bin edges), whose order its kernel and its reference both rely on. A
    permuted one is no table (breaker20's bnb_8bit_quant: seed 1's unsorted code failed the kernel as written and its
    reference alike, "kernel.py as it is fails it too"); random values of that length are rarely in order."""
    if t.dim() != 1 or t.shape[0] < 3:
        return False
    step = torch.diff(t.detach().float())
    return bool((step >= 0).all()) or bool((step <= 0).all())


def refill(targets: list[list[Any]], fresh: list[Any]) -> bool:
    """Copy ``fresh``'s tensors into every input set of ``targets``, in place (the same storage: a result cached by
    input pointer is read again); False, every target untouched, where one is not alike (count, shapes, dtypes, the
    other arguments) or a tensor of one cannot take values of its own (an expanded one, or storage shared with
    another input of its set). Sets may share a tensor among them (a ``get_inputs`` returning a module's one weight):
    it takes the same values each time."""
    new = tensors_in(fresh)
    for target in targets:
        old = tensors_in(target)
        if len(old) != len(new) or not _same_arguments(map_tensors(target, _none), map_tensors(fresh, _none)):
            return False
        if any(a.shape != b.shape or a.dtype != b.dtype for a, b in zip(old, new, strict=True)):
            return False
        storages = [t.untyped_storage().data_ptr() for t in old]
        if len(set(storages)) != len(storages) or any(
            stride == 0 and size > 1 for t in old for stride, size in zip(t.stride(), t.shape, strict=True)
        ):
            return False
    with torch.no_grad():
        for target in targets:
            for a, b in zip(tensors_in(target), new, strict=True):
                a.copy_(b)
    return True


def _none(_: Any) -> None:
    return None


def _same_arguments(a: Any, b: Any) -> bool:
    """Whether two input sets' other arguments (their tensors taken out) are equal; False where they cannot be
    compared (an array's ``==`` answers elementwise)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError, RuntimeError):
        return False


def same_bits(a: Any, b: Any) -> bool:
    """True when ``a`` and ``b`` hold as many tensors, each of one shape and dtype and equal bit for bit (a NaN equal
    to the same NaN); False where either holds none."""
    ta, tb = tensors_in(a), tensors_in(b)
    if len(ta) != len(tb) or not ta:
        return False
    return all(
        x.shape == y.shape and x.dtype == y.dtype and bool(torch.equal(_raw(x), _raw(y)))
        for x, y in zip(ta, tb, strict=True)
    )


def _raw(t: torch.Tensor) -> torch.Tensor:
    """``t``'s bytes, in its elements' order: a strided view (a column, ``x[:, 0]``) made contiguous first, since only a
    tensor whose last stride is 1 can be viewed as bytes, and a conjugate or negative view (``z.conj()``) resolved,
    which cannot be viewed so at all (review20 r7: a column ``same_bits`` was given raised)."""
    return t.detach().resolve_conj().resolve_neg().contiguous().reshape(-1).view(torch.uint8)


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


def poison_device_memory(device: str, like: list[torch.Tensor], copies: int = 2, byte: int = POISON_BYTE) -> bool:
    """Fill freed blocks of the CUDA caching allocator with ``byte`` (:data:`POISON_BYTE`); False when out of memory.

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
                bufs.append(torch.empty(size, dtype=torch.uint8, device=device).fill_(byte))
    except torch.cuda.OutOfMemoryError:
        return False  # not enough room to poison: the check runs without it (the caller warns)
    finally:
        del bufs
    return True


def poisoned_mask(t: torch.Tensor, byte: int = POISON_BYTE) -> torch.Tensor:
    """Boolean mask (flat) of elements of ``t`` whose every byte is ``byte`` (:data:`POISON_BYTE`)."""
    flat = t.detach().contiguous().reshape(-1)
    if flat.numel() == 0:
        return torch.zeros(0, dtype=torch.bool, device=t.device)
    if flat.dtype == torch.bool:
        return torch.zeros(flat.numel(), dtype=torch.bool, device=t.device)
    raw = flat.view(torch.uint8).reshape(flat.numel(), -1)
    return (raw == byte).all(dim=1)


def _chance_count(t: torch.Tensor) -> float:
    """How many of an integer tensor's elements may hold the poison pattern by chance, were its values uniform over
    the dtype: their expected count ``m`` (one in 256 to the element's bytes) and seven standard deviations over it,
    plus 2 (a Poisson tail under 1e-9 from a handful of elements to billions; our bound). A floating output's pattern
    (3.4e38 in fp32, 1.4e306 in fp64, a NaN payload in fp16) is no value arithmetic gives: none are allowed there."""
    m = t.numel() / 256.0 ** t.element_size()
    return m + 7.0 * math.sqrt(m) + 2.0


class ReferenceNotWritten(ReferenceFault):
    """A reference whose output holds elements it never wrote (:func:`unwritten_reference_line`): no kernel can be
    checked against it; the reference's fault, never a kernel's."""


@contextlib.contextmanager
def other_fill(device: str, like: list[torch.Tensor]) -> Iterator[None]:
    """Fresh memory filled with :data:`~kernelopt.harness.poison.OTHER_POISON_BYTE` while the block runs: the host's
    allocations (glibc's perturb), and on a GPU the caching allocator's freed blocks of ``like``'s sizes (as
    :func:`poison_device_memory` fills them with the poison byte: likely, not sure, to be what an output gets)."""
    poison_device_memory(device, like, byte=OTHER_POISON_BYTE)
    with host_fill(OTHER_POISON_BYTE):
        yield


def unwritten_reference_line(outputs: Any, high: Any = None, rerun: Callable[[], Any] | None = None) -> str | None:
    """The line saying the reference returned memory it never wrote, else ``None``: elements of its outputs still
    holding the poison pattern (:data:`POISON_BYTE`) the harness fills fresh memory with (on the CPU every allocation:
    a ``torch.empty`` it fills in part). Their values are whatever the allocator held, another in each run, so its
    float64 run's other garbage read as its own rounding widened the tolerance past any kernel's error (break21 b46:
    rtol 6.49 at fp32, a kernel computing x * 3 for x * 2 passed). Outputs of one-byte elements are left alone (0x7F
    is 127 there), and a tensor with no element. In an integer output the pattern is a value like any other (32639 in
    int16, one element in 65536 of a random one), so there only a count past what chance gives
    (:func:`_chance_count`) is memory never written (review21 r16: a correct int16 ``x.flip(0)`` of a million random
    elements was the problem's ERROR, "holds 14 of 1048576 elements it never wrote"). In bf16 the pattern is the
    dtype's largest value, which ``torch.nan_to_num`` and a clamp at ``finfo.max`` give: where ``high`` (the
    reference's float64 run, of the same structure) is given, a bf16 element is unwritten only where that run's is
    too (review21 r17). An integer output holding the pattern in no more elements than chance gives is read again,
    where ``rerun`` is given (the reference run once more on the same inputs, its fresh memory filled with
    :data:`~kernelopt.harness.poison.OTHER_POISON_BYTE`: :func:`other_fill`): an element holding the first run's
    pattern and the rerun's other one was written by neither run, however few (verdicts22 x5: three elements of an
    int16 output, under the chance count of 46, were the reference's answer); one holding the same value in both was
    written. So is a bf16 output's where no float64 run is given (one that does not fit beside the problem: a
    reference at ``finfo.max`` was refused there, verdicts22 x6)."""
    highs = tensors_in(high) if high is not None else []
    again: list[torch.Tensor] | None = None
    for i, t in enumerate(tensors_in(outputs)):
        if t.element_size() < 2 or t.is_complex() or t.numel() == 0:
            continue
        flat, step = t.detach().reshape(-1), chunk_for(t.numel())  # chunk by chunk: no mask of a whole output
        hi = highs[i] if i < len(highs) else None
        if t.dtype != torch.bfloat16 or hi is None or hi.dtype == t.dtype or hi.shape != t.shape:
            hi = None
        hi_flat = hi.detach().reshape(-1) if hi is not None else None
        unwritten, first = 0, None
        for a in range(0, flat.numel(), step):
            mask = poisoned_mask(flat[a : a + step])
            if hi_flat is not None:
                mask &= poisoned_mask(hi_flat[a : a + step]).to(mask.device)
            count = int(mask.sum().item())
            if count and first is None:
                first = a + int(mask.nonzero()[0].item())
            unwritten += count
        limit = 0.0 if t.is_floating_point() else _chance_count(t)
        # chance or a few left unwritten, or bf16's largest value with no float64 run to tell: the rerun tells
        if unwritten > 0 and rerun is not None and (unwritten <= limit or (t.dtype == torch.bfloat16 and hi is None)):
            if again is None:
                try:
                    again = tensors_in(rerun())
                except torch.cuda.OutOfMemoryError:  # no room for a second run: the rule without it, as before x5
                    again, rerun = [], None
            other = again[i] if i < len(again) else None
            if other is not None and other.shape == t.shape and other.dtype == t.dtype:
                (unwritten, first), limit = _unwritten_in_both(flat, other.detach().reshape(-1), step), 0.0
        if unwritten > limit:
            return (
                f"the reference's output {i} holds {unwritten} of {t.numel()} elements it never wrote (still the "
                f"poison pattern, bytes 0x{POISON_BYTE:02X}, the harness filled fresh memory with; first at flat "
                f"index {first}): its values are whatever memory held, another each run; write every element "
                "(torch.zeros, or fill what torch.empty leaves)"
            )
    return None


def _unwritten_in_both(flat: torch.Tensor, again: torch.Tensor, step: int) -> tuple[int, int | None]:
    """How many elements hold :data:`POISON_BYTE`'s pattern in ``flat`` and the other byte's in ``again`` (the same
    output of a run whose fresh memory held the other byte), and the first of them: written by neither run."""
    count, first = 0, None
    for a in range(0, flat.numel(), step):
        both = poisoned_mask(flat[a : a + step]) & poisoned_mask(again[a : a + step], OTHER_POISON_BYTE).to(flat.device)
        found = int(both.sum().item())
        if found and first is None:
            first = a + int(both.nonzero()[0].item())
        count += found
    return count, first
