"""Two fixes to Triton 3.6's CPU interpreter (``TRITON_INTERPRET=1``), applied in kernelopt's workers on the
CPU (the gate's worker and the tuning engine's bench worker) so that ``--device cpu`` runs the kernels an
engineer writes, not only elementwise ones.

- ``__index__`` calls ``int()`` on a one-element array, which numpy >= 2.4 refuses, so any
  ``for start in range(0, n, BLOCK)`` over a runtime ``n`` fails with "only 0-dimensional arrays can be
  converted to Python scalars"; this mirrors the upstream fix of Triton 3.7 (``int(self.handle.data.squeeze())``).
- ``tl.dot`` multiplies bf16 operands as their raw 16-bit patterns (the interpreter stores bf16 as ``uint16``
  and converts only fp8 operands before ``np.matmul``), so a bf16 GEMM returns garbage; bf16 operands are
  widened to fp32 first, exactly (a bf16 is the top half of an fp32).

Both are applied only to Triton before 3.7, once per process, and only when Triton is installed.

A third, for every Triton whose autotuner asks the GPU driver for its benchmarker: an ``@triton.autotune`` list
of several configs benchmarks them through ``driver.active``, which the interpreter does not have ("0 active
drivers": a correct kernel failed at V0 on the CPU). Its autotuners time each config on the CPU instead
(:func:`kernelopt.tunables.autotune_worker.cpu_bench`, the benchmark the evaluation run already used), unless
the kernel gives its own ``do_bench``; the one Triton builds from ``warmup=``/``rep=`` is replaced too (it calls
``triton.testing.do_bench``, which asks the driver).
"""

from __future__ import annotations

import importlib.util
from typing import Any

FIXED_IN = (3, 7)


def patch_interpreter() -> bool:
    """Apply the fixes (see the module docstring); True when they are in place after the call."""
    if importlib.util.find_spec("triton") is None:
        return False
    import triton

    _patch_autotuner()

    version = tuple(int(p) for p in triton.__version__.split(".")[:2] if p.isdigit())
    if version >= FIXED_IN:
        return False
    import triton.runtime.interpreter as interp

    if getattr(interp, "_kernelopt_patched", False):
        return True
    _patch_index(interp)
    _patch_dot(interp)
    interp._kernelopt_patched = True
    return True


def _patch_index(interp: Any) -> None:
    original = interp._patch_lang_tensor

    def patched(tensor: Any, scope: Any) -> None:
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.squeeze()))

    interp._patch_lang_tensor = patched


def _patch_dot(interp: Any) -> None:
    import numpy as np
    import triton.language as tl

    create_dot = interp.InterpreterBuilder.create_dot

    def widen(h: Any) -> Any:
        if h.dtype.scalar != tl.bfloat16:
            return h
        data = interp._convert_float(h.data, tl.bfloat16, tl.float32, None).view(np.float32)
        return interp.TensorHandle(data, tl.float32)

    def dot(self: Any, a: Any, b: Any, d: Any, input_precision: Any, max_num_imprecise_acc: Any) -> Any:
        return create_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    interp.InterpreterBuilder.create_dot = dot


def _patch_autotuner() -> None:
    """Autotuners without a ``do_bench`` of their own benchmark on the CPU (see the module docstring); left
    alone when Triton's autotuner reads its benchmarker some other way."""
    from functools import cached_property

    from triton.runtime.autotuner import Autotuner

    from kernelopt.tunables.autotune_worker import cpu_bench

    if getattr(Autotuner, "_kernelopt_cpu_bench", False):
        return
    if not isinstance(Autotuner.__dict__.get("do_bench"), cached_property):
        return

    def do_bench(self: Any) -> Any:
        own = getattr(self, "_do_bench", None)
        # ``warmup=``/``rep=`` (deprecated) make Triton build its own benchmarker, a lambda over
        # ``triton.testing.do_bench``, which asks the driver too; a ``do_bench`` the kernel passes is kept
        built = own is not None and getattr(own, "__qualname__", "").startswith(f"{Autotuner.__name__}.__init__.")
        return cpu_bench if own is None or built else own

    Autotuner.do_bench = property(do_bench)  # type: ignore[assignment]
    Autotuner._kernelopt_cpu_bench = True  # type: ignore[attr-defined]
