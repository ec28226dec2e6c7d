"""Whether kernel.py replaced one of torch's operators that the reference calls too (a monkeypatch).

A kernel that assigns ``torch.sum = ...`` (at import, in ``__init__`` or in ``forward``) changes the reference
as well: the check then compares the kernel with itself and passes anything. The worker takes a
:func:`snapshot` of torch's public callables after reference.py is imported and before kernel.py is, and
:func:`replaced` names those that are no longer the same object. Only names present in the snapshot are
compared (a submodule imported later adds names; it does not replace them), and only callables (a flag such
as a default dtype is not an operator). A replacement is torch's own when its code lives in torch's package
folder, so a ``functools.wraps`` wrapper, which wears the wrapped function's name and module, is still the
user's.
"""

from __future__ import annotations

import importlib
import os
from enum import Enum
from types import ModuleType
from typing import Any

#: The namespaces a reference's operators are looked up in: ``torch.sum``, ``F.relu``, ``x.sum()``, ``nn.Linear``,
#: ``model(x)`` (``torch.nn.Module.__call__``, which runs a KernelBench reference's ``Model``: a kernel.py that set it
#: to return zeros passed the gate returning zeros, the class object all the snapshot held of it; break19's b30).
NAMESPACES = ("torch", "torch.nn.functional", "torch.Tensor", "torch.nn", "torch.nn.Module")


def _namespaces() -> dict[str, Any]:
    import torch
    import torch.nn.functional

    return {
        "torch": torch,
        "torch.nn.functional": torch.nn.functional,
        "torch.Tensor": torch.Tensor,
        "torch.nn": torch.nn,
        "torch.nn.Module": torch.nn.Module,
    }


def _bound() -> dict[str, Any]:
    """``namespace.name`` -> object, for the public names of :data:`NAMESPACES` (a class's inherited ones too:
    ``torch.Tensor.sum`` is ``TensorBase``'s until someone assigns it)."""
    bound: dict[str, Any] = {}
    for prefix, namespace in _namespaces().items():
        if isinstance(namespace, type):
            names = [n for n in dir(namespace) if not n.startswith("_")]
            items = [(n, getattr(namespace, n, None)) for n in names]
            items += [(n, _static(namespace, n)) for n in dir(namespace) if n.startswith("__") and n.endswith("__")]
        else:
            items = [(n, v) for n, v in list(vars(namespace).items()) if not n.startswith("_")]
        bound.update((f"{prefix}.{name}", value) for name, value in items)
    return bound


def _static(cls: type, name: str) -> Any:
    """``cls.name`` as its class dictionary holds it (the first in the method resolution order that has it): an
    operator (``__sub__``, ``__eq__``, ``__getitem__``) of ``torch.Tensor``, found without the binding ``getattr``
    makes anew at each lookup. The operators were left out with every ``_`` name, so a kernel.py that set
    ``torch.Tensor.__sub__`` to return zeros made the checker's every difference zero, and a kernel returning ``x``
    for ``x + y`` passed (agents19, a13)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def snapshot() -> dict[str, int]:
    """``namespace.name`` -> ``id`` of every public callable of :data:`NAMESPACES` now."""
    return {name: id(value) for name, value in _bound().items() if callable(value)}


def _code_of(value: Any) -> Any:
    """The Python code object a callable runs first (a function's, a method's, a callable object's ``__call__``);
    ``None`` for a builtin or a class."""
    code = getattr(value, "__code__", None) or getattr(getattr(value, "__func__", None), "__code__", None)
    if code is None and callable(value) and not isinstance(value, type):
        code = getattr(type(value).__call__, "__code__", None)
    return code


def _torch_s_own(value: Any, torch_dir: str) -> bool:
    """Whether a callable is torch's: Python code from a file under torch's package folder, else (a builtin, a
    class) a ``__module__`` of torch's. The file decides where there is one: ``functools.wraps`` copies the
    wrapped function's ``__module__``, ``__name__`` and ``__doc__`` onto a wrapper defined anywhere."""
    code = _code_of(value)
    if code is not None:
        return os.path.realpath(code.co_filename).startswith(torch_dir + os.sep)
    module = getattr(value, "__module__", None) or ""
    return module == "torch" or module.startswith("torch.")


def replaced(before: dict[str, int]) -> list[str]:
    """The names of ``before`` now bound to a callable defined outside torch, sorted.

    torch replaces a few of its own on a lazy import (``torch._dynamo`` wraps ``torch.manual_seed``; seen with
    torch 2.13): a replacement whose code lives in torch's package folder is not the user's patch, unless it is
    another of the operators the snapshot holds (``F.relu = torch.abs``: the reference would compute ``abs``). A
    wrapper made with ``functools.wraps`` around torch's own is the user's: its code is in the user's file. This
    finds patches, it is no sandbox.
    """
    import torch

    torch_dir = os.path.realpath(os.path.dirname(torch.__file__))
    now = _bound()
    known = set(before.values())  # another public operator swapped in (F.relu = torch.abs) is a patch too
    out = []
    for name, ident in before.items():
        value = now.get(name)
        if value is None or id(value) == ident:
            continue  # a deleted name breaks the reference loudly; the same object is no patch
        if id(value) in known or not _torch_s_own(value, torch_dir):
            out.append(name)
    return sorted(out)


CHECKER_MODULES = (
    "kernelopt.harness.compare",
    "kernelopt.harness.draws",
    "kernelopt.harness.hints",
    "kernelopt.harness.history",
    "kernelopt.harness.inplace",
    "kernelopt.harness.inputs",
    "kernelopt.harness.loader",
    "kernelopt.harness.stats",
    "kernelopt.harness.timers",
    "kernelopt.harness.tolerance",
)
"""The checker's modules the worker imports where it uses them: imported before :func:`checker_snapshot`, so that a
kernel.py cannot import one first and patch it before the snapshot sees it."""


TIMING_CLOCKS = ("perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time")
"""The clocks of ``time`` the timers read: a kernel that slowed ``time.perf_counter`` down during its own calls would
be timed as fast as it liked."""


def _checker_values() -> dict[str, Any]:
    """``module.name`` (``module.Class.name``) -> the callable, for every callable of kernelopt's modules loaded now and
    of the classes they define; and the clocks the timers read (``time``'s, ``torch.cuda.Event``'s,
    ``torch.cuda.synchronize``)."""
    import sys
    import time

    import torch

    out: dict[str, Any] = {f"time.{n}": getattr(time, n) for n in TIMING_CLOCKS if hasattr(time, n)}
    out["torch.cuda.synchronize"] = torch.cuda.synchronize
    out.update((f"torch.cuda.Event.{n}", v) for n, v in vars(torch.cuda.Event).items() if callable(v))
    for mname, module in list(sys.modules.items()):
        if module is None or not (mname == "kernelopt" or mname.startswith("kernelopt.")):
            continue
        for name, value in list(vars(module).items()):
            if not callable(value):
                continue
            out[f"{mname}.{name}"] = value
            if isinstance(value, type) and value.__module__ == mname:
                for attr, member in list(vars(value).items()):
                    member = getattr(member, "__func__", member)  # a classmethod's or staticmethod's function
                    if callable(member):
                        out[f"{mname}.{name}.{attr}"] = member
    return out


CHECKER_STATE = ("kernelopt.harness.inplace._WEIGHTS",)
"""Module data of :data:`CHECKER_MODULES` the checker itself changes as it runs (a cache): compared by its binding
alone, not its content."""

_PLAIN = (int, float, complex, str, bytes, bool, type(None), Enum)


def _content(value: Any) -> Any:
    """What plain data holds, to compare (a number, a string, an enum, and dicts, lists, tuples and sets of them, a
    callable among them by its ``id``); ``None`` for anything else (a tensor, an object: its binding alone is
    compared)."""
    if isinstance(value, _PLAIN):
        return (type(value), value)
    if callable(value):
        return ("callable", id(value))
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        items = value.items() if isinstance(value, dict) else value
        parts = [tuple(_content(x) for x in item) if isinstance(value, dict) else _content(item) for item in items]
        if isinstance(value, (set, frozenset)):
            parts.sort(key=repr)
        return (type(value), tuple(parts))
    return None


def _checker_data() -> dict[str, tuple[Any, ...]]:
    """``module.name`` -> (``id``, content: :func:`_content`) for every binding of :data:`CHECKER_MODULES` that is not
    a callable nor a module (a tolerance table, a threshold); the checker's own cache (:data:`CHECKER_STATE`) by its
    binding alone."""
    import sys

    out: dict[str, tuple[Any, ...]] = {}
    for mname in CHECKER_MODULES:
        module = sys.modules.get(mname)
        for name, value in list(vars(module).items()) if module is not None else []:
            if callable(value) or name.startswith("__") or isinstance(value, ModuleType):
                continue
            kept = f"{mname}.{name}" in CHECKER_STATE
            out[f"{mname}.{name}"] = (id(value), None if kept else _content(value))
    return out


def _identity(value: Any) -> tuple[Any, ...]:
    """A callable as compared: its ``id``, its code's, and its default arguments by content (a kernel that set
    ``check_outputs.__kwdefaults__`` changes what it does without replacing it)."""
    defaults = (_content(getattr(value, "__defaults__", None)), _content(getattr(value, "__kwdefaults__", None)))
    return (id(value), id(_code_of(value)), *defaults)


def _checker_bound() -> dict[str, tuple[Any, ...]]:
    """Each of :func:`_checker_values` as :func:`_identity` says it, and :func:`_checker_data`."""
    return {name: _identity(value) for name, value in _checker_values().items()} | _checker_data()


def checker_snapshot() -> dict[str, tuple[Any, ...]]:
    """Every callable of kernelopt's own modules (the checker, the timers, the worker) and its code, before kernel.py
    is imported: :func:`checker_replaced` names what the kernel replaced since.

    A kernel.py that set ``kernelopt.harness.compare.check_outputs`` to a function saying "passed" (at import) passed
    the quality gate returning zeros (agents19, a12); one that replaced the timers would time what it liked. Like
    :func:`replaced`, this finds patches; it is no sandbox."""
    import importlib

    for name in CHECKER_MODULES:
        importlib.import_module(name)
    return _checker_bound()


def checker_replaced(before: dict[str, tuple[Any, ...]]) -> list[str]:
    """The names of ``before`` now bound to another callable, or to the same one running other code or with other
    defaults, or to other data or the same data changed, sorted (agents19's a12 looked at callables alone: a kernel.py
    that set every tolerance of ``kernelopt.harness.tolerance`` to 1e9 at import passed the gate computing ``x`` for
    ``x + y``; review19 r3)."""
    import torch

    torch_dir = os.path.realpath(os.path.dirname(torch.__file__))
    values, data = _checker_values(), _checker_data()
    out = [name for name, ident in data.items() if name in before and before[name] != ident]
    for name, ident in before.items():
        value = values.get(name)
        if value is None or _identity(value) == ident:
            continue
        if name.startswith("torch.") and _torch_s_own(value, torch_dir):
            continue  # torch's own rebinding (as in :func:`replaced`), not the kernel's
        out.append(name)
    return sorted(out)


REFERENCE_READS = (
    "reference",
    "get_inputs",
    "Model",
    "get_init_inputs",
    "ATOL",
    "RTOL",
    "SHAPES",
    "flops",
    "bytes_moved",
)
"""The bindings of reference.py the checker reads through its module after kernel.py is imported (the loader, the
tolerance, the figures): those :func:`module_snapshot` holds. Its other globals are the reference's own to change (a
cache filled on its first call, a model built lazily)."""


def module_snapshot(module: ModuleType) -> dict[str, tuple[Any, ...]]:
    """The bindings of :data:`REFERENCE_READS` reference.py's module holds before kernel.py is imported: a callable by
    its ``id``, its code's and its defaults' (a class's own members too: ``Model.forward``), data by its ``id`` and
    content (:func:`_content`: ``ATOL``, ``SHAPES``). :func:`module_replaced` names what changed since.

    The checker reads the reference through its module after kernel.py ran: a kernel.py that set the module's
    ``reference`` to return zeros (found through ``sys.modules`` at import) passed the quality gate returning zeros,
    and one that set ``ATOL = RTOL = 1e9`` passed computing ``x`` for ``x + y`` (break19's b29). Like
    :func:`replaced`, this finds patches; it is no sandbox."""
    return _module_bound(module)


def _own_identity(value: Any) -> tuple[Any, ...]:
    """A reference's callable as compared: its ``id``, its code's and its default arguments' (by ``id``: a default
    dictionary the reference fills as a cache is its own)."""
    return (id(value), id(_code_of(value)), id(getattr(value, "__defaults__", None)),
            id(getattr(value, "__kwdefaults__", None)))  # fmt: skip


def _module_bound(module: ModuleType) -> dict[str, tuple[Any, ...]]:
    out: dict[str, tuple[Any, ...]] = {}
    held = vars(module)
    for name in REFERENCE_READS:
        if name not in held:
            continue
        value = held[name]
        if not callable(value):
            out[name] = (id(value), _content(value))
            continue
        out[name] = _own_identity(value)
        if isinstance(value, type):
            for attr, member in list(vars(value).items()):
                member = getattr(member, "__func__", member)
                if callable(member) and not isinstance(member, type):
                    out[f"{name}.{attr}"] = _own_identity(member)
    return out


def module_replaced(module: ModuleType, before: dict[str, tuple[Any, ...]]) -> list[str]:
    """The names of :func:`module_snapshot`'s ``before`` now bound otherwise, changed or gone, sorted."""
    now = _module_bound(module)
    return sorted(name for name, ident in before.items() if now.get(name) != ident)


def mode_ids() -> set[int]:
    """The identities of the torch function and dispatch modes active now (whoever entered them): taken before
    kernel.py runs, a mode its caller had entered already (a test's simulated device, a profiler's) is not
    kernel.py's to answer for (:func:`active_modes`)."""
    return {id(m) for m in _current_modes()}


def _current_modes() -> list[Any]:
    """The torch function and dispatch modes active now, where this torch keeps them where it has since 2.0 (private
    stacks); none where it does not."""
    modes: list[Any] = []
    for stack in ("torch.overrides._get_current_function_mode_stack",
                  "torch.utils._python_dispatch._get_current_dispatch_mode_stack"):  # fmt: skip
        module, _, fn = stack.rpartition(".")
        try:
            modes += list(getattr(importlib.import_module(module), fn)())
        except (AttributeError, ImportError, RuntimeError):
            continue
    return modes


def active_modes(before: set[int] | None = None) -> list[str]:
    """The torch function and dispatch modes active now whose classes are not torch's own (their names), which
    intercept every torch call the reference and the checker make: ``[]`` between a case's runs, where the worker has
    none of its own. A kernel.py that entered a ``TorchFunctionMode`` at import, answering zeros for
    ``Tensor.__add__``, left every callable as it was and passed the gate returning zeros (break19's b31). Torch's own
    (``torch.set_default_device``'s ``DeviceContext``) compute what they are asked, and a mode already active
    ``before`` kernel.py ran (:func:`mode_ids`) is its caller's."""
    seen = before or set()
    return [type(m).__qualname__ for m in _current_modes() if id(m) not in seen and not _answers_as_torch(type(m))]


def _answers_as_torch(kind: type) -> bool:
    """Whether a mode's or a tensor subclass's own answers to torch calls (its ``__torch_function__`` and
    ``__torch_dispatch__``) are torch's code, by the file the code lives in (a class's ``__module__`` is a string
    anyone may set to ``torch.nn``)."""
    import torch

    torch_dir = os.path.realpath(os.path.dirname(torch.__file__))
    hooks = [getattr(kind, name, None) for name in ("__torch_function__", "__torch_dispatch__")]
    return all(hook is None or _torch_s_own(hook, torch_dir) for hook in hooks)


def own_subclasses(tensors: list[Any], reference_s: list[Any] | None = None) -> list[str]:
    """The names of the tensor subclasses among ``tensors`` that are not torch's own and answer torch calls
    themselves (a ``__torch_function__`` or ``__torch_dispatch__`` of their own): a kernel's output so made can be
    whatever it is compared with. One whose ``__torch_function__`` put the other operand in its own place, returning
    ``x * 3`` for ``x + y``, passed the gate with no error at all (break19's b32).

    A class the reference's own outputs (``reference_s``) are of is not the kernel's: a library's tensor (a float8
    or quantized tensor of torchao's, say) that the reference returns too is what the kernel is asked to return
    (late19 saw every such correct kernel fail)."""
    import torch

    asked = {type(t) for t in reference_s or []}
    out = [
        type(t).__qualname__
        for t in tensors
        if type(t) is not torch.Tensor and type(t) not in asked and not _answers_as_torch(type(t))
    ]
    return list(dict.fromkeys(out))
