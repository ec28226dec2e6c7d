"""Load a workspace's kernel and reference (both kernel forms) and build inputs.

Shared by the validation worker (Stage 4) and the profile driver (Stage 1). This module runs inside a
worker process: it imports user code, so it is never imported by the orchestrator itself.

Function form: ``kernel.run(*inputs)`` vs ``reference.reference(*inputs)``. KernelBench form:
``kernel.ModelNew(*get_init_inputs())(*inputs)`` vs ``reference.Model(*get_init_inputs())(*inputs)``.
Inputs come from ``reference.get_inputs(**shape)`` for each entry of the optional ``SHAPES`` list.
Files are imported by the one module loader, :func:`kernelopt.worker.loader.load_module`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from kernelopt.kernelsource import input_list
from kernelopt.worker.loader import load_module, unload  # the one loader; the harness's callers import it here

__all__ = ["KernelPair", "check_shapes", "load_module", "load_pair", "loaded_afresh", "pair_of", "unload"]


@dataclass
class KernelPair:
    """The candidate and the reference of one workspace, ready to call.

    Attributes:
        kernel: the imported kernel.py module.
        reference: the imported reference.py module.
        form: ``function`` or ``kernelbench``.
        shapes: the reference's ``SHAPES`` (``[{}]`` when absent: ``get_inputs()`` with no arguments).
    """

    kernel: ModuleType
    reference: ModuleType
    form: str
    shapes: list[dict[str, Any]] = field(default_factory=lambda: [{}])
    _candidate: Callable[..., Any] | None = None
    _ref: Callable[..., Any] | None = None

    def build_inputs(self, shape: dict[str, Any]) -> list[Any]:
        """``reference.get_inputs(**shape)`` as a list."""
        return input_list(self.reference.get_inputs(**shape))

    def init_inputs(self) -> list[Any]:
        fn = getattr(self.reference, "get_init_inputs", None)
        return list(fn()) if fn else []

    def candidate(self, device: str | None = None) -> Callable[..., Any]:
        """The callable under test (a ModelNew instance moved to ``device``, or ``kernel.run``)."""
        if self._candidate is None:
            if self.form == "kernelbench":
                model = self.kernel.ModelNew(*self.init_inputs())
                self._candidate = model.to(device) if device and hasattr(model, "to") else model
            else:
                self._candidate = self.kernel.run
        return self._candidate

    def reference_fn(self, device: str | None = None) -> Callable[..., Any]:
        """The ground truth callable (a Model instance moved to ``device``, or ``reference.reference``)."""
        if self._ref is None:
            if self.form == "kernelbench":
                model = self.reference.Model(*self.init_inputs())
                self._ref = model.to(device) if device and hasattr(model, "to") else model
            else:
                self._ref = self.reference.reference
        return self._ref

    def optional(self, name: str) -> Callable[..., Any] | None:
        """An optional reference hook (``flops``, ``bytes_moved``) or ``None``."""
        fn = getattr(self.reference, name, None)
        return fn if callable(fn) else None


def check_shapes(reference: ModuleType) -> None:
    """Refuse a ``SHAPES`` that names no case: an empty one (the run would fall back to ``get_inputs()``'s
    defaults, often the GPU-sized problem, without a word) or one whose entries are not dicts.

    Raises:
        ValueError: one line, what to write instead.
    """
    from kernelopt.kernelsource import shapes_fault

    fault = shapes_fault(getattr(reference, "SHAPES", None))
    if fault is not None:
        raise ValueError(fault)


@contextmanager
def loaded_afresh(reference_py: Path, constants: Mapping[str, object] | None = None) -> Iterator[ModuleType]:
    """reference.py imported again, as a module of its own (``constants``: its ``SHAPES`` entry's sizes), and
    forgotten when the block ends: the one reload of a reference that asks whether its output came from its earlier
    calls (:mod:`kernelopt.harness.history`; the gate's check and ``tune``'s net). The import's and the block's
    exceptions propagate: a file that imports once only (``torch.library`` registering an op) is the caller's "no
    verdict"."""
    module = load_module(reference_py, overrides=constants)
    try:
        yield module
    finally:
        unload(module)


def load_pair(kernel_py: Path, reference_py: Path, constants: Mapping[str, object] | None = None) -> KernelPair:
    """Import both files and detect the form (KernelBench when the reference defines ``Model``);
    ``constants`` are the problem's sizes, substituted as reference.py runs."""
    reference = load_module(reference_py, overrides=constants)
    return pair_of(load_module(kernel_py), reference)


def pair_of(kernel: ModuleType, reference: ModuleType) -> KernelPair:
    """The pair of imported modules, with the form (KernelBench when the reference defines ``Model``)."""
    form = "kernelbench" if hasattr(reference, "Model") else "function"
    shapes: Sequence[dict[str, Any]] = getattr(reference, "SHAPES", None) or [{}]
    return KernelPair(kernel=kernel, reference=reference, form=form, shapes=[dict(s) for s in shapes])
