"""Fixes to Triton's CPU interpreter (``TRITON_INTERPRET=1``), applied in kernelopt's workers on the CPU (the gate's
worker and the tuning engine's bench worker) so that ``--device cpu`` runs the kernels an engineer writes, not only
elementwise ones, and refuses what a GPU refuses. The first two, for Triton 3.6:

- ``__index__`` calls ``int()`` on a one-element array, which numpy >= 2.4 refuses, so any
  ``for start in range(0, n, BLOCK)`` over a runtime ``n`` fails with "only 0-dimensional arrays can be
  converted to Python scalars"; this mirrors the upstream fix of Triton 3.7 (``int(self.handle.data.squeeze())``).
- ``tl.dot`` multiplies bf16 operands as their raw 16-bit patterns (the interpreter stores bf16 as ``uint16``
  and converts only fp8 operands before ``np.matmul``), so a bf16 GEMM returns garbage; bf16 operands are
  widened to fp32 first, exactly (a bf16 is the top half of an fp32).

Both are applied only to Triton before 3.7, once per process, and only when Triton is installed.

A third, for every Triton whose autotuner asks the GPU driver for its benchmarker: an ``@triton.autotune`` list
of several configs benchmarks them through ``driver.active``, which the interpreter does not have ("0 active
drivers": a correct kernel failed at V0 on the CPU). Its autotuners benchmark on the CPU instead
(:func:`kernelopt.tunables.autotune_worker.cpu_bench`, the benchmark the evaluation run already used), unless
the kernel gives its own ``do_bench``; the one Triton builds from ``warmup=``/``rep=`` is replaced too (it calls
``triton.testing.do_bench``, which asks the driver). The interpreter's timing says nothing of a GPU's, so at each key
the pick is the first config of the list (as pruned) that runs: the ones after it are not run. A timed pick followed
the machine's load: breaker24's fla_global_cumsum picked ``BT=64`` on a loaded CI machine and another config on a quiet
one, and what ``tune`` wrote (nothing where its pick was the autotuner's own) changed with it (suite24, s30); and each
config cost a run of the interpreter at each key. Configs that differ only in launch options the interpreter ignores
(``num_warps``, ``num_stages``) are one program there: the first of each stands for them all. A config that fails the
kernel's ``tl.static_assert`` is skipped, as a GPU compile's ``CompileTimeAssertionFailure`` is: the next one is tried.

A fourth, for every Triton: ``with torch.cuda.device(x.device):`` around a launch (FlagGems, Liger-Kernel, unsloth)
raises on a CPU tensor; on the CPU it does nothing, as ``torch.cuda.device(-1)`` does (:func:`patch_cuda_device`).

And with it, for a torch whose ``torch.library.wrap_triton`` takes only a compiled kernel (torch before 2.12; pytorch
#185597 fixed it in May 2026): Dao's rotary (``torch.library.wrap_triton(rotary_kernel)[grid](...)``) raised
"wrap_triton only works on functions annotated with triton.jit or triton.autotune" in the interpreter, whose
``@triton.jit`` makes an ``InterpretedFunction``, so every run of it on the CPU failed (torch 2.11 on the H100's host,
gpunet20); such a kernel is launched as it is, as a later torch does (:func:`patch_wrap_triton`).

A fifth, for every Triton: ``libdevice`` (``tl.extra.cuda.libdevice.tanh``, ``from triton.language.extra import
libdevice``), which unsloth's soft-capped cross-entropy, SGLang's and vLLM's per-token quantization (``round``) and
Liger-Kernel's GELU call, does not run in the interpreter at all: a call fails "Did you forget to add @triton.jit ?"
(the library is not given the interpreter's semantic), the generic module's stubs return ``None``, and the builder
raises "extern_elementwise not supported in interpreter mode". The library's functions are computed with numpy
by the symbol's name (``__nv_tanhf``, ``__ocml_tanh_f32``: :data:`EXTERN_NUMPY`); a symbol with no numpy
equivalent says so by name (:func:`_patch_libdevice`). A function the kernel's module imports by name (Liger-Kernel's
``from triton.language.extra.libdevice import rsqrt``) is patched in that module's globals too, and so is a builtin
of the language a module binds to a name of its own (fla's ``exp = tl.exp``).

A sixth, for every Triton: a float narrowed to an 8-bit float (fp8 quantization: FBGEMM, torchao) is rounded to
nearest even and saturated as a GPU does, and an 8-bit float widened reads its NaN and infinity codes
(:func:`_patch_fp8`); Triton's interpreter lost the rounding's carry into the exponent (31.6 became 16).

A seventh, for every Triton: ``and`` / ``or`` / ``not`` of block tensors (FlagGems' cumsum: ``mask = m_offset[:, None,
None] < M and n_offset[None, :, None] < N``) are the elementwise ``logical_and`` / ``logical_or`` / ``logical_not``
a GPU compile makes of them (Triton's code generator, ``visit_BoolOp`` / ``visit_UnaryOp``), where the interpreter ran
Python's: a block is always true there, so ``a and b`` was ``b`` alone, the row mask was lost and the store wrote past
the output (a heap corrupted, the process aborted). A scalar tensor is joined so too, never cut short (break16's
b14: ``pid < 0 and tl.atomic_add(c, 1) >= 0`` adds in every program on a GPU); values that are no tensor keep
Python's short circuit, as the compiler keeps a constexpr's (:func:`_patch_bool_ops`), and so does an integer argument
of 1 that Triton's JIT specializes to a constexpr, told from a 1 the kernel loads, an argument under
``do_not_specialize`` and a local assigned one (all tensors on a GPU) by a mark the launch gives it
(:func:`_patch_specialized`, leftovers17's l1).

An eighth, for every Triton that keeps a bf16 as its 16 bits (``np.uint16``, Triton 3.6): the float arithmetic,
comparisons and math of bf16 operands (:data:`BF16_FLOAT_OPS`) computed on those bits, so unsloth's SwiGLU
(``f_row.to(g_row.dtype) * g_row`` of bf16 rows) gave NaN and a correct kernel failed V0 on the CPU (breaker17 d1).
Such operands are widened to fp32 exactly and the result rounded back to bf16 to nearest even, as a GPU's bf16
arithmetic rounds each operation (:func:`_patch_bf16_arithmetic`); a comparison's result stays a boolean. And an fp32
narrowed to bf16 with no rounding named (``x.to(tl.bfloat16)``, a store of fp32 values into a bf16 tensor) is rounded
to nearest even as a GPU's ``cvt.rn.bf16.f32`` is, where the interpreter cut the low bits off; a bf16 block's sum,
maximum, minimum, cumulative sum and product are computed on its values (:func:`_patch_bf16_reductions`).

A ninth, for every Triton whose interpreter rewrites a kernel's source (3.6): the rewritten kernel keeps the
annotations of its parameters as written, so a constexpr annotated by a string (``B: "tl.constexpr"``) is one there
too (:func:`_patch_annotations`).

And, for every Triton, two rules a GPU compile enforces and the interpreter does not (docs/faults.md, "Interpreter
and GPU disagree"), so that what passes its check on the CPU (a kernel as written, a candidate ``tune`` writes)
also compiles on a GPU:

- ``tl.dot`` needs K >= 16, K >= 32 for 8-bit operands: the NVIDIA backend's ``min_dot_size`` (Triton 3.6,
  ``triton/backends/nvidia/compiler.py``; M and N may be 1, padded; AMD's backend accepts every size). The
  interpreter's own is (1, 1, 1), so a ``BLOCK_K = 8`` ran on the CPU and failed to compile on the GPU
  (:data:`DOT_MIN_K`).
- ``num_warps`` must be one of the knob's legal values (a power of two, at most 1024 threads of 32:
  :func:`kernelopt.tunables.knob_rule`); the interpreter drops every launch option unread, so
  ``num_warps=6`` ran on the CPU where the GPU backends assert "num_warps must be a power of 2".

And one a GPU launch enforces: a grid's second and third axes hold at most 65535 programs (CUDA's ``gridDim.y`` and
``gridDim.z``, :data:`GRID_AXES_MOST`; the first 2**31 - 1). Triton passes its grid to the driver unchecked and the
interpreter runs any, so a size where the kernel as written launches 65536 programs on axis 1 passed on the CPU and
fails on the GPU (:func:`_patch_grid_limits`): such a size is one the original cannot run, which the net, the V0 rule
and ``tune`` read so only when the CPU fails it too (docs/faults.md refblame14 r14). A launch that cannot finish in
the time its run is given (:data:`INTERPRETER_LIMIT_ENV`) stops in one line that counts its programs
(:func:`programs_problem`, knobs17's k5).

A tenth, for every Triton: ``tl.reduce`` of a combine function of the kernel's own (trident's Welford
``combine_welford``, an argmax of pairs) ran one element at a time in the interpreter, a Python call of the
combine function and its operations per element (``ReduceOps.generic_reduce``): trident's ``var_mean`` took 18.8 s
for a 4 x 100 matrix, so ``tune --device cpu`` timed out (breaker21's q1). The elements are combined pairwise in
``log2(n)`` vectorized steps instead, neighbours in their order (``combine(x[2i], x[2i + 1])``, an odd last one
carried), which a GPU's tree reduction is too and which the combine function's associativity (``tl.reduce``'s
contract) makes equal to the sequential fold up to rounding (:func:`_patch_generic_reduce`).

An eleventh, for every Triton whose interpreter checks no ``device_assert`` (3.6: its options' ``debug`` is always
off): each integer ``+``, ``-`` and ``*`` of a kernel computed its operands again in int64 and compared the result
with the type's bounds, for an overflow assertion (``binary_op_sanitize_overflow_impl``) that ``device_assert`` then
dropped unread: about a third of an interpreted GEMM's or row kernel's time (7,888 such calls were 12.7 of the 38
interpreted CPU-s of test_knob_patterns_e2e under cProfile: suite22 s10). The interpreter's builder sanitizes only
where it asserts (:func:`_patch_unasserted_overflow`); nothing a kernel computes, raises or returns changes.

A twelfth, for every Triton whose interpreter types a Python ``bool`` argument as an int1 over int32 data (3.6's
``_implicit_cvt``: ``mangle_type(False)`` is ``i1``, the value an int): SGLang's grouped GEMM passes
``use_fp8_w8a8=False`` to a parameter that is no constexpr, which a GPU compiles as an ``i1`` argument, and every
launch failed in the interpreter "numpy data itemsize (32 bits) exceeds dtype primitive_bitwidth (1 bits)"
(breaker23's q30). A bool argument is an int1 scalar of numpy's bool (:func:`_patch_bool_args`).

:func:`mirrored_programs` runs a grid's programs last first, for the net: a kernel right only in the interpreter's
order (a race on a GPU, wrongkernel17's v69) fails there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.util
import os
import traceback
from collections.abc import Iterator
from typing import Any

from kernelopt.numeric import is_int
from kernelopt.vocabulary import DOT_MIN_K, DOT_MIN_K_DEFAULT, GRID_AXES_MOST

FIXED_IN = (3, 7)
#: The launch options the GPU backends check and the interpreter drops unread.
CHECKED_OPTIONS = ("num_warps",)


def exception_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or during (``__cause__``, else ``__context__``), outermost
    first: Triton's interpreter wraps what a kernel raised in an ``InterpreterError`` whose own traceback ends at
    the launch."""
    out = [exc]
    while len(out) < 8 and (inner := out[-1].__cause__ or out[-1].__context__) is not None and inner not in out:
        out.append(inner)
    return out


def is_static_assert(exc: BaseException) -> bool:
    """A ``tl.static_assert`` of the kernel that failed: on a GPU the compiler raises it
    (``CompileTimeAssertionFailure``, which Triton's autotuner skips), in Triton's interpreter its
    ``_new_static_assert`` does (breaker8 m5)."""
    chain = exception_chain(exc)
    if any(type(e).__name__ == "CompileTimeAssertionFailure" for e in chain):
        return True
    inner = traceback.extract_tb(chain[-1].__traceback__)
    return bool(inner) and inner[-1].name == "_new_static_assert" and "/triton/runtime/" in inner[-1].filename


@contextlib.contextmanager
def mirrored_programs() -> Iterator[None]:
    """Triton's interpreter runs a grid's programs last first inside the block: each program's id mirrored on every
    axis (``n - 1 - i``). It runs them one after another, first to last, so a kernel right only in that order (split 0
    stores its partial and the others add theirs: a race on a GPU, which runs programs in any order; wrongkernel17's
    v69) passes; mirrored, it fails, and a kernel right in any order, as a GPU needs, passes still. Outside the
    interpreter (``TRITON_INTERPRET`` not 1) or without its builder, nothing changes."""
    builder = None
    if os.environ.get("TRITON_INTERPRET") == "1" and importlib.util.find_spec("triton") is not None:
        import triton.runtime.interpreter as interp

        builder = getattr(interp, "interpreter_builder", None)
    own = getattr(builder, "set_grid_idx", None)
    if builder is None or own is None or "set_grid_idx" in vars(builder):
        yield
        return

    def mirrored(x: int, y: int, z: int) -> None:
        nx, ny, nz = builder.grid_dim
        own(nx - 1 - x, ny - 1 - y, nz - 1 - z)

    builder.set_grid_idx = mirrored
    try:
        yield
    finally:
        del builder.set_grid_idx


def patch_interpreter() -> bool:
    """Apply the fixes (see the module docstring); True when they are in place after the call."""
    if importlib.util.find_spec("triton") is None:
        return False
    import triton

    _patch_autotuner()
    patch_cuda_device()
    patch_wrap_triton()
    import triton.runtime.interpreter as interp

    version = tuple(int(p) for p in triton.__version__.split(".")[:2] if p.isdigit())
    fixes = version < FIXED_IN
    if not getattr(interp, "_kernelopt_patched", False):
        if fixes:
            _patch_index(interp)
        _patch_dot(interp, widen_bf16=fixes)
        _patch_launch_options(interp)
        _patch_grid_limits(interp)
        _patch_libdevice(interp)
        _patch_fp8(interp)
        _patch_bool_ops(interp)
        _patch_annotations(interp)
        _patch_specialized(interp)
        _patch_bf16_arithmetic(interp)
        _patch_generic_reduce(interp)
        _patch_unasserted_overflow(interp)
        _patch_bool_args(interp)
        interp._kernelopt_patched = True
    return fixes


#: libdevice functions by their name without the library's prefix and type suffix (``__nv_tanhf`` -> ``tanh``),
#: as numpy computes them: a numpy function's name, or one of the forms :func:`_extern_numpy` builds (``round`` is
#: libdevice's half away from zero, not numpy's half to even).
EXTERN_NUMPY = {
    **{n: n for n in ("tanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos")},
    **{n: n for n in ("tan", "sinh", "cosh", "floor", "ceil", "trunc", "rint", "fmod", "fmax", "fmin", "copysign")},
    **{n: n for n in ("hypot", "isnan", "isinf", "signbit")},
    "nearbyint": "rint",
    "llrint": "rint",
    "lrint": "rint",
    "llround": "round_half_away",
    "lround": "round_half_away",
    "fabs": "abs",
    "abs": "abs",
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "asinh": "arcsinh",
    "acosh": "arccosh",
    "atanh": "arctanh",
    "atan2": "arctan2",
    "pow": "power",
    "powi": "power",
    "div_rn": "divide",
    "fast_exp": "exp",
    "fast_log": "log",
    "fast_tanh": "tanh",
    "round": "round_half_away",
    "rsqrt": "rsqrt",
    "exp10": "exp10",
    "erf": "erf",
    "erfc": "erfc",
}
_EXTERN_PREFIXES = ("__nv_", "__ocml_")
_EXTERN_SUFFIXES = ("_f32", "_f64", "_f16", "f")


def extern_name(symbol: str) -> str | None:
    """The :data:`EXTERN_NUMPY` name of a libdevice symbol (``__nv_roundf`` -> ``round``, ``__ocml_tanh_f32`` ->
    ``tanh``), or ``None`` when it has none."""
    base = symbol
    for prefix in _EXTERN_PREFIXES:
        base = base.removeprefix(prefix)
    if base in EXTERN_NUMPY:
        return base
    for suffix in _EXTERN_SUFFIXES:
        if base.endswith(suffix) and base[: -len(suffix)] in EXTERN_NUMPY:
            return base[: -len(suffix)]
    return None


def _extern_numpy(name: str) -> Any:
    """The numpy computation of :data:`EXTERN_NUMPY`'s ``name``."""
    import math

    import numpy as np

    how = EXTERN_NUMPY[name]
    special = {
        "round_half_away": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x),
        "rsqrt": lambda x: 1.0 / np.sqrt(x),
        "exp10": lambda x: np.power(10.0, x),
        "erf": np.vectorize(math.erf, otypes=[np.float64]),
        "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
    }
    return special.get(how) or getattr(np, how)


def _patch_libdevice(interp: Any) -> None:
    """Let kernels call libdevice in the interpreter (the module docstring's fifth fix)."""
    import importlib
    import inspect

    modules = []
    for name in ("triton.language.extra.cuda.libdevice", "triton.language.extra.hip.libdevice"):
        try:
            modules.append(importlib.import_module(name))
        except ImportError:  # a Triton built without that backend
            continue
    stub = importlib.import_module("triton.language.extra.libdevice")

    def create_extern_elementwise(
        self: Any, lib_name: Any, lib_path: Any, symbol: str, args: Any, ret_type: Any, is_pure: Any
    ) -> Any:
        name = extern_name(symbol)
        if name is None:
            raise NotImplementedError(
                f"libdevice's {symbol} has no numpy equivalent in kernelopt's interpreter fixes (EXTERN_NUMPY); "
                "run this kernel on a GPU"
            )
        scalar = getattr(ret_type, "scalar", ret_type)
        out = _extern_numpy(name)(*[a.data for a in args])
        return interp.TensorHandle(out.astype(interp._get_np_dtype(scalar)), scalar)

    interp.InterpreterBuilder.create_extern_elementwise = create_extern_elementwise
    original = interp._patch_lang
    members, stubs = _libdevice_builtins(interp, modules, stub)
    wrapped: dict[tuple[int, int, str], Any] = {}

    def wrapper(obj: Any, name: str, member: Any, builder: Any) -> Any:
        key = (id(builder), id(obj), name)
        if key not in wrapped:
            made = _Made()
            interp._patch_attr(obj, name, member, builder, made)
            wrapped[key] = made.value
        return wrapped[key]

    patched: list[set[int] | None] = []  # per launch running (innermost last): the language modules it patched

    by_object = _builtins_by_object(interp, members, stubs)

    def patch_globals(fn: Any, scope: Any) -> Any:
        names = fn.__globals__
        for name, value in list(names.items()):
            member = by_object.get(id(value))
            if member is not None and not inspect.ismodule(value):
                view = _Globals(names)
                scope.set_attr(view, name, wrapper(names, name, member, interp.interpreter_builder))
        return scope

    def patch_lang(fn: Any) -> Any:
        langs = {id(v) for v in fn.__globals__.values() if inspect.ismodule(v) and v in (interp.tl, interp.tl.core)}
        if patched and patched[-1] is not None and langs <= patched[-1]:
            # a jit'd helper called inside a launch that patched its language already: Triton would patch the same
            # functions again (a third of a launch whose helper is called in a loop), never restoring that scope
            return patch_globals(fn, interp._LangPatchScope())
        if patched:
            # the launch's own language, or a helper's that the launch had not patched yet (``tl.max`` and
            # ``tl.sum`` are helpers of triton.language.standard, whose module holds triton.language.core): Triton
            # leaves a helper's patches in place, so the launch's later helpers of that language find it patched
            # (every call of ``tl.max`` read the whole of triton.language.core again: suite22 s11)
            patched[-1] = langs if patched[-1] is None else patched[-1] | langs
        scope = original(fn)
        builder = interp.interpreter_builder
        for module, name, member in members:
            if getattr(module, name) is member:
                scope.set_attr(module, name, wrapper(module, name, member, builder))
        for obj, name, member, own in stubs:
            if getattr(obj, name) is own:
                scope.set_attr(obj, name, wrapper(obj, name, member, builder))
        return patch_globals(fn, scope)

    launch = interp.GridExecutor.__call__

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        patched.append(None)
        try:
            return launch(self, *args, **kwargs)
        finally:
            patched.pop()

    interp.GridExecutor.__call__ = call
    interp._patch_lang = patch_lang


#: the name the rewritten kernels call for ``and`` / ``or`` (set on the interpreter's module, whose names the
#: interpreter copies into a kernel's globals when it rewrites the kernel)
BOOL_OP_NAME = "_kernelopt_bool_op"
NOT_NAME = "_kernelopt_not"


def _is_tensor(value: Any) -> bool:
    """A block or a scalar tensor (the code generator's ``_is_triton_tensor``): never cut short, joined elementwise."""
    import triton.language as tl

    return isinstance(value, tl.core.tensor)


#: the attribute of the scalar tensor an integer argument of 1 becomes at a launch where Triton's JIT specializes it
#: to a constexpr (:func:`_specialized_names`); a value loaded or computed in the kernel never carries it
SPECIALIZED = "_kernelopt_specialized"
ASSIGNED_NAME = "_kernelopt_assigned"


def _specialized(value: Any) -> Any:
    """``value``, or ``1`` where it is the scalar tensor of an integer argument of 1 that Triton's JIT specializes to
    a constexpr (:func:`_specialized_names`), whose ``and`` / ``or`` / ``not`` the code generator reads as Python's,
    where the interpreter passes every argument as a tensor (``flag and n > 0`` with ``flag=1`` compiles for sm_90;
    with ``flag=0``, an int32 joined by ``logical_and``, it fails, as the interpreter then raises). A 1 loaded from
    memory, an argument under ``do_not_specialize`` and a local assigned the argument are tensors on a GPU, as here
    (late16's l3)."""
    return 1 if _is_tensor(value) and getattr(value, SPECIALIZED, False) else value


def _assigned(value: Any) -> Any:
    """The value a kernel's ``x = value`` binds (``x, y = a, b``: each element): a specialized argument's constexpr
    made a tensor, as the code generator's ``visit_Assign`` makes every constexpr it assigns (``_sanitize_value``)."""
    if _is_tensor(value) and getattr(value, SPECIALIZED, False):
        return type(value)(value.handle, value.type)
    if type(value) is tuple:  # ``f, k = flag, n``: each element bound as it is alone
        return tuple(_assigned(v) for v in value)
    return value


def _specialized_names(fn: Any, do_not_specialize: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """The parameters of ``fn`` a GPU launch with these arguments makes constexprs by value: an integer (no bool) of
    1 with no type annotation and not in ``do_not_specialize`` (by name or position), as Triton's JIT specializes
    (``native_specialize_impl``: ``("constexpr", 1)``; an annotated type replaces the tag)."""
    names = []
    for i, (name, default, open_to) in enumerate(_open_params(fn, tuple(do_not_specialize or ()))):
        value = args[i] if i < len(args) else kwargs.get(name, default)
        if open_to and is_int(value) and value == 1:
            names.append(name)
    return names


@functools.lru_cache(maxsize=256)
def _open_params(fn: Any, exempt: tuple[Any, ...]) -> list[tuple[str, Any, bool]]:
    """Each parameter of ``fn``: its name, its default, and whether Triton's JIT specializes it by value (no
    constexpr, no type annotation, not named or numbered in ``exempt``); read once a kernel (a launch's cost)."""
    import inspect

    from triton.runtime.jit import KernelParam

    out = []
    for i, param in enumerate(inspect.signature(fn).parameters.values()):
        kept = KernelParam(i, param, i in exempt or param.name in exempt, False)
        out.append(
            (param.name, param.default, not (kept.is_constexpr or kept.do_not_specialize or kept.annotation_type))
        )
    return out


def _patch_specialized(interp: Any) -> None:
    """Each launch's integer arguments of 1 that Triton's JIT specializes are passed as marked scalar tensors
    (:data:`SPECIALIZED`), so that :func:`_specialized` tells them from a 1 the kernel loads or computes."""
    run = interp.InterpretedFunction.run

    def specialized_run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        names = [] if warmup else _specialized_names(self.fn, self.kwargs.get("do_not_specialize"), args, kwargs)
        if names:
            at = {p: i for i, p in enumerate(self.arg_names)}
            args, kwargs = list(args), dict(kwargs)
            for name in names:
                marked = interp._implicit_cvt(1)
                setattr(marked, SPECIALIZED, True)
                if at[name] < len(args):
                    args[at[name]] = marked
                else:
                    kwargs[name] = marked
        return run(self, *args, grid=grid, warmup=warmup, **kwargs)

    interp.InterpretedFunction.run = specialized_run
    setattr(interp, ASSIGNED_NAME, _assigned)


def _bool_op(is_and: bool, *thunks: Any) -> Any:
    """``a and b and ...`` (``or`` when not ``is_and``) as Triton's code generator computes it: the values in order,
    one that is no tensor short-circuiting as in Python (a falsy one ends an ``and``, a truthy one an ``or``), the
    tensors (blocks and scalars: a scalar tensor's value is not known at compile time, so the code generator never
    cuts short at one, and what follows it runs, an atomic included) joined elementwise by ``logical_and`` /
    ``logical_or``; no tensor at all: Python's result."""
    blocks: list[Any] = []
    value: Any = None
    for thunk in thunks:
        value = _specialized(thunk())
        if _is_tensor(value):
            blocks.append(value)
        elif bool(value) is not is_and:
            return value
    if not blocks:
        return value
    out = blocks[0]
    for block in blocks[1:]:
        out = out.logical_and(block) if is_and else out.logical_or(block)
    return out


def _not(value: Any) -> Any:
    """``not value``: a tensor's elementwise ``logical_not`` (the code generator's ``__not__``), else Python's (an
    integer argument of 1 too: :func:`_specialized`)."""
    value = _specialized(value)
    return value.__not__() if _is_tensor(value) else not value


def _patch_bool_args(interp: Any) -> None:
    """A Python ``bool`` passed to a parameter that is no constexpr becomes an int1 scalar over numpy's bool, as a
    GPU launch passes an ``i1``; the interpreter built int32 data under an int1 type and raised (breaker23's q30).
    Tuples of arguments reach it too: the interpreter's own recursion looks the module's name up."""
    import numpy as np
    import triton.language as tl

    convert = interp._implicit_cvt

    def implicit_cvt(arg: Any) -> Any:
        if isinstance(arg, bool):
            return tl.tensor(interp.TensorHandle(np.array([arg], dtype=np.bool_), tl.int1), tl.int1)
        return convert(arg)

    interp._implicit_cvt = implicit_cvt


def _patch_bool_ops(interp: Any) -> None:
    """Rewrite ``and`` / ``or`` / ``not`` in interpreted kernels as a GPU compile reads them (the module docstring's
    seventh fix): the interpreter's own rewriter (``FunctionRewriter.ast_transformer``) extended, its assignments'
    values visited too (it wraps them unvisited)."""
    import ast

    rewriter = getattr(interp, "FunctionRewriter", None)
    if rewriter is None or not hasattr(rewriter, "ast_transformer"):
        return  # a Triton whose interpreter rewrites kernels otherwise: left as it is
    base = type(rewriter.ast_transformer)

    def thunk(value: ast.expr) -> ast.Lambda:
        no_args = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
        return ast.Lambda(args=no_args, body=value)

    class BoolOps(base):  # type: ignore[misc, valid-type]
        def visit_Assign(self, node: ast.Assign) -> Any:
            node.value = self.visit(node.value)
            node = super().visit_Assign(node)
            node.value = ast.Call(func=ast.Name(id=ASSIGNED_NAME, ctx=ast.Load()), args=[node.value], keywords=[])
            return node

        def visit_BoolOp(self, node: ast.BoolOp) -> Any:
            self.generic_visit(node)
            call = ast.Call(
                func=ast.Name(id=BOOL_OP_NAME, ctx=ast.Load()),
                args=[ast.Constant(value=isinstance(node.op, ast.And)), *(thunk(v) for v in node.values)],
                keywords=[],
            )
            return ast.copy_location(call, node)

        def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
            self.generic_visit(node)
            if not isinstance(node.op, ast.Not):
                return node
            call = ast.Call(func=ast.Name(id=NOT_NAME, ctx=ast.Load()), args=[node.operand], keywords=[])
            return ast.copy_location(call, node)

    setattr(interp, BOOL_OP_NAME, _bool_op)
    setattr(interp, NOT_NAME, _not)
    rewriter.ast_transformer = BoolOps()


def _patch_annotations(interp: Any) -> None:
    """A rewritten kernel keeps its own parameters' annotations (the module docstring's ninth fix): the interpreter
    compiles its rewrite in a module under ``from __future__ import annotations``, which ``compile`` passes on, so an
    annotation written as a string (``BLOCK_SIZE_X: "tl.constexpr"``, PyTorch's own Triton test kernels) became the
    string of that string (``"'tl.constexpr'"``): the launch did not take it for a constexpr and ``tl.arange(0,
    BLOCK_SIZE_X)`` failed "arange's arguments must be of type tl.constexpr", where a GPU compile reads the
    signature and runs it (breaker20's torch_add2d)."""
    rewriter = getattr(interp, "FunctionRewriter", None)
    if rewriter is None or not hasattr(rewriter, "rewrite_ast"):
        return  # a Triton whose interpreter rewrites kernels otherwise: left as it is
    rewrite = rewriter.rewrite_ast

    def rewrite_ast(self: Any) -> Any:
        fn = rewrite(self)
        if fn is not self.fn and hasattr(self.fn, "__annotations__"):
            fn.__annotations__ = dict(self.fn.__annotations__)
        return fn

    rewriter.rewrite_ast = rewrite_ast


class _Globals:
    """A module's globals as attributes, so that a patch scope (``setattr`` / ``getattr`` / ``delattr``) sets and
    restores a name a kernel's module binds."""

    def __init__(self, names: dict[str, Any]) -> None:
        object.__setattr__(self, "_names", names)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._names[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self._names[name] = value

    def __delattr__(self, name: str) -> None:
        del self._names[name]


def _libdevice_builtins(
    interp: Any, modules: list[Any], stub: Any
) -> tuple[list[tuple[Any, str, Any]], list[tuple[Any, str, Any, Any]]]:
    """What a launch patches, listed once: each libdevice backend module's builtins (module, name, member), and the
    generic module's stubs that stand for the backend's functions, as a GPU compile maps them (stub module, name,
    the backend's member, the stub).

    Triton patches at every launch and at every call of a jit'd helper in every program, and listing the two libdevice
    modules there (inspect.getmembers, ~400 members) and wrapping each member again made an interpreted launch 3x
    slower (4 programs calling a helper: 10.4 against 3.2 ms; 2026-12-05). Each wrapper is Triton's own
    (interp._patch_attr), made once for the builder every launch uses. At a helper's call inside a launch everything
    is patched already (a patched member is no longer a builtin, a stub no longer its own): nothing is patched again
    there, as Triton's own listing finds no builtin left."""
    import inspect

    is_builtin = interp.tl.core.is_builtin
    members = [(m, name, f) for m in modules for name, f in inspect.getmembers(m) if is_builtin(f)]
    stubs = [
        (stub, name, member, getattr(stub, name))
        for name in (dir(stub) if modules else [])
        if not name.startswith("_")
        and callable(getattr(stub, name))
        and is_builtin(member := getattr(modules[0], name, None))
    ]
    return members, stubs


def _builtins_by_object(
    interp: Any, members: list[tuple[Any, str, Any]], stubs: list[tuple[Any, str, Any, Any]]
) -> dict[int, Any]:
    """Object id -> the builtin that stands for it where a kernel's module binds it to a name of its own.

    A function imported by name (Liger-Kernel's ``from triton.language.extra.libdevice import rsqrt``) is bound in the
    kernel's module, where patching the library's modules never reaches it: by its object, what stands for it. And a
    builtin of the language itself bound to a name of the kernel's module (fla's ``exp = tl.exp``, its fast-ops
    switch; ``from triton.language import program_id``): a correct kernel failed V0 "Did you forget to add
    @triton.jit ?" (breaker14 b2)."""
    import inspect

    is_builtin = interp.tl.core.is_builtin
    by_object = {id(member): member for _, _, member in members}
    by_object.update({id(own): member for _, _, member, own in stubs})
    by_object.update({id(f): f for m in (interp.tl, interp.tl.math) for _, f in inspect.getmembers(m) if is_builtin(f)})
    return by_object


class _Made:
    """A patch scope that keeps the one value it is given (the wrapper ``interp._patch_attr`` made) and sets nothing."""

    value: Any = None

    def set_attr(self, obj: Any, name: str, value: Any) -> None:
        self.value = value


def patch_cuda_device() -> None:
    """``with torch.cuda.device(x.device):`` around a launch, as FlagGems (``torch_device_fn.device``), Liger-Kernel
    and unsloth write it: on a CPU tensor torch raises "Expected a cuda device, but got: cpu", so a correct kernel
    failed every check on the CPU (breaker6 j12). In a worker running Triton's interpreter on the CPU the context
    of a CPU device is what ``torch.cuda.device(-1)`` is: nothing. Mamba's and fla's
    ``torch.cuda.device(x.device.index)`` is ``torch.cuda.device(None)`` for a CPU tensor, which a torch without CUDA
    fails ("'<' not supported between instances of 'NoneType' and 'int'", breaker8 m1) and a CUDA torch reads as
    "stay on the current device": nothing too. A CUDA device or index is passed on unchanged. The compile for a GPU
    on a machine without one calls the kernel on CPU tensors as well (:mod:`kernelopt.harness.target_compile`)."""
    import torch

    cls = torch.cuda.device
    if getattr(cls, "_kernelopt_patched", False):
        return
    original = cls.__init__

    def __init__(self: Any, device: Any) -> None:
        if device is None or (isinstance(device, torch.device | str) and torch.device(device).type == "cpu"):
            device = -1  # no device to switch to: the context does nothing
        original(self, device)

    cls.__init__ = __init__  # type: ignore[method-assign]
    cls._kernelopt_patched = True  # type: ignore[attr-defined]


def _interpreted(kernel: Any) -> bool:
    """Whether ``kernel`` is, or wraps (an autotuner's, a heuristic's ``fn``), a kernel of Triton's interpreter."""
    from triton.runtime.interpreter import InterpretedFunction

    seen = 0
    while kernel is not None and seen < 8:  # a wrapper's chain is short; a cycle is not followed
        if isinstance(kernel, InterpretedFunction):
            return True
        kernel, seen = getattr(kernel, "fn", None), seen + 1
    return False


def patch_wrap_triton() -> None:
    """``torch.library.wrap_triton(kernel)`` (``capture_triton`` before torch 2.6) of a kernel Triton's interpreter
    made returns the kernel itself, launched as it is: a torch before 2.12 refuses an ``InterpretedFunction`` ("only
    works on functions annotated with triton.jit"), and a later one returns it unchanged (the module docstring). A
    compiled kernel goes to torch's own."""
    import torch.library

    for name in ("wrap_triton", "capture_triton"):
        original = getattr(torch.library, name, None)
        if original is None or getattr(original, "_kernelopt_patched", False):
            continue

        def wrapped(triton_kernel: Any, /, _torch: Any = original) -> Any:
            return triton_kernel if _interpreted(triton_kernel) else _torch(triton_kernel)

        wrapped._kernelopt_patched = True  # type: ignore[attr-defined]
        setattr(torch.library, name, wrapped)


def _patch_index(interp: Any) -> None:
    original = interp._patch_lang_tensor

    def patched(tensor: Any, scope: Any) -> None:
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.squeeze()))

    interp._patch_lang_tensor = patched


_DOT_BYTES = [0]  # the largest tl.dot's operands (bytes, one stage) since dot_operand_bytes(reset=True)


def dot_operand_bytes(*, reset: bool = False) -> int:
    """The bytes of the largest ``tl.dot``'s two operand tiles run in the interpreter since the last reset: the
    shared memory one pipeline stage of it takes on a GPU (a lower bound of the compile's; the tile names play no
    part, so a K tile named ``KSTEP`` is counted as ``BLOCK_K`` is). ``reset``: read, then start again at 0."""
    seen = _DOT_BYTES[0]
    if reset:
        _DOT_BYTES[0] = 0
    return seen


_DOT_K_SHORT: list[str | None] = [None]  # the last min_dot_size refusal since dot_k_short(reset=True)


def dot_k_short(*, reset: bool = False) -> str | None:
    """The last ``tl.dot`` refused since the last reset because its K is under what a GPU compile needs
    (:func:`dot_k_problem`'s line), else ``None``; ``reset``: read, then forget it. A K shrinks with the tiles, so
    smaller tiles are refused too (:attr:`kernelopt.tuning.candidate.Result.shrinks_with_tiles`)."""
    seen = _DOT_K_SHORT[0]
    if reset:
        _DOT_K_SHORT[0] = None
    return seen


def dot_min_k(bits: int) -> int:
    """The smallest K a GPU compiles a ``tl.dot`` of ``bits``-wide operands with (:data:`DOT_MIN_K`): the one rule
    the interpreter's refusal and the tuning space's floor of a dot's K tile read."""
    return DOT_MIN_K.get(bits, DOT_MIN_K_DEFAULT)


def dot_k_problem(k: int, bits: int) -> str | None:
    """Why a ``tl.dot`` whose operands are ``bits`` wide and share the dimension ``k`` does not compile on a GPU
    (:data:`DOT_MIN_K`), or ``None``."""
    need = dot_min_k(bits)
    if k >= need:
        return None
    return (
        f"tl.dot with K = {k} ({bits}-bit operands): a GPU compile needs K >= {need} (Triton's NVIDIA backend, "
        "min_dot_size), which Triton's interpreter does not check"
    )


def _bf16_widened(interp: Any, h: Any) -> Any:
    """The interpreter's handle ``h`` of bf16 values kept as their 16 bits, widened to fp32 exactly (a bf16 is the top
    half of an fp32); any other value as it is. The one widening the dot, the float arithmetic, the reductions and the
    fp8 conversion read."""
    import numpy as np
    import triton.language as tl

    if not isinstance(h, interp.TensorHandle) or h.dtype.scalar != tl.bfloat16:
        return h
    return interp.TensorHandle(
        interp._convert_float(h.data, tl.bfloat16, tl.float32, None).view(np.float32), tl.float32
    )


def _patch_dot(interp: Any, *, widen_bf16: bool) -> None:

    create_dot = interp.InterpreterBuilder.create_dot

    def widen(h: Any) -> Any:
        return _bf16_widened(interp, h) if widen_bf16 else h

    def dot(self: Any, a: Any, b: Any, d: Any, input_precision: Any, max_num_imprecise_acc: Any) -> Any:
        problem = dot_k_problem(int(a.data.shape[-1]), a.dtype.scalar.primitive_bitwidth)
        if problem is not None:
            _DOT_K_SHORT[0] = problem
            raise ValueError(problem)
        operands = (
            a.data.size * a.dtype.scalar.primitive_bitwidth + b.data.size * b.dtype.scalar.primitive_bitwidth
        ) // 8
        _DOT_BYTES[0] = max(_DOT_BYTES[0], operands)
        return create_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    interp.InterpreterBuilder.create_dot = dot


#: Triton's 8-bit float types by the torch dtype of the same format (``tl.float8e4b15`` has none: left to Triton).
FP8_TORCH = {
    "fp8e4nv": "float8_e4m3fn",
    "fp8e5": "float8_e5m2",
    "fp8e4b8": "float8_e4m3fnuz",
    "fp8e5b16": "float8_e5m2fnuz",
}

WIDE_TORCH = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}


def _patch_fp8(interp: Any) -> None:
    """A float narrowed to an 8-bit float (``x.to(tl.float8e4nv)``, a store into a ``torch.float8_e4m3fn`` tensor)
    the way a GPU converts it: rounded to nearest even, saturated to the format's largest finite value (NVIDIA's
    ``cvt.rn.satfinite``), NaN kept. Triton 3.6's interpreter (``_convert_float``) adds its rounding bit to the
    mantissa without carrying it into the exponent (-31.6 becomes -16, not -32) and wraps what is past the largest
    value: FBGEMM's fp8 row quantization failed V0 on the CPU in one value of ten (breaker10). torch's conversion
    of the clamped value is the GPU's; other roundings and formats are left to Triton."""
    import numpy as np
    import torch
    import triton.language as tl

    convert = interp.InterpreterBuilder.create_fp_to_fp

    def create_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        source, target = src.dtype.scalar, dst_type.scalar
        narrow_twin = getattr(torch, FP8_TORCH.get(target.name, ""), None)
        wide_twin = getattr(torch, FP8_TORCH.get(source.name, ""), None)
        if wide_twin is not None and target.name in WIDE_TORCH:
            # widened by torch: its NaN and infinity codes too (Triton's reads 0x7f of e4m3 as 480, not NaN)
            wide = torch.from_numpy(np.ascontiguousarray(src.data, dtype=np.uint8)).view(wide_twin)
            out = wide.to(getattr(torch, WIDE_TORCH[target.name]))
            bits = out.view(torch.int16).numpy().view(np.uint16) if target == tl.bfloat16 else out.numpy()
            return interp.TensorHandle(bits.reshape(np.shape(src.data)), target)
        if narrow_twin is None or rounding_mode != interp._ir.ROUNDING_MODE.RTNE or source.primitive_bitwidth <= 8:
            return convert(self, src, dst_type, rounding_mode)
        data = src.data
        if source == tl.bfloat16:  # kept as its 16 bits: widened exactly (a bf16 is the top half of an fp32)
            data = _bf16_widened(interp, src).data
        wide = torch.from_numpy(
            np.ascontiguousarray(data, dtype=np.float64 if source.primitive_bitwidth == 64 else np.float32)
        )
        top = torch.finfo(narrow_twin).max
        narrow = wide.clamp(-top, top).to(narrow_twin).view(torch.uint8).numpy()
        return interp.TensorHandle(narrow.reshape(np.shape(src.data)), target)

    interp.InterpreterBuilder.create_fp_to_fp = create_fp_to_fp


#: The interpreter's builder methods that compute a float result (or comparison) from their operands' numpy values
#: (Triton 3.6's ``InterpreterBuilder``); a select, an absolute value, a negation by sign bit, a load or a store move
#: bits and are right for bf16 as they are.
BF16_FLOAT_OPS = (
    *(f"create_{n}" for n in ("fadd", "fsub", "fmul", "fdiv", "frem", "precise_divf", "fma", "clampf")),
    *(f"create_{n}" for n in ("minimumf", "minnumf", "maximumf", "maxnumf")),
    *(f"create_fcmp{o}{c}" for o in "OU" for c in ("LT", "GT", "LE", "GE", "EQ", "NE")),
    *(f"create_{n}" for n in ("exp", "exp2", "log", "log2", "sqrt", "precise_sqrt", "sin", "cos", "floor", "ceil")),
    *(f"create_{n}" for n in ("erf", "rsqrt")),
)


def _patch_bf16_arithmetic(interp: Any) -> None:
    """bf16 operands of :data:`BF16_FLOAT_OPS` widened to fp32 (exact: a bf16 is the top half of an fp32), the op
    computed there, a float result rounded back to bf16 to nearest even by torch (the GPU's ``cvt.rn.bf16.f32``); a
    Python float beside a bf16 block made a bf16 constant (``get_bf16``, which the interpreter's builder lacks).
    Nothing changes where the interpreter keeps bf16 as anything but its 16 bits."""
    import numpy as np
    import torch
    import triton.language as tl

    if interp._get_np_dtype(tl.bfloat16) != np.dtype(np.uint16):
        return

    def widen(h: Any) -> Any:
        return _bf16_widened(interp, h)

    def narrow(h: Any) -> Any:
        wide = torch.from_numpy(np.ascontiguousarray(h.data, dtype=np.float32))
        bits = wide.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
        return interp.TensorHandle(bits.reshape(np.shape(h.data)), tl.bfloat16)

    def wrapped(op: Any) -> Any:
        def run(self: Any, *args: Any) -> Any:
            if not any(isinstance(a, interp.TensorHandle) and a.dtype.scalar == tl.bfloat16 for a in args):
                return op(self, *args)
            out = op(self, *(widen(a) for a in args))
            return narrow(out) if out.dtype.scalar == tl.float32 else out

        return run

    for name in BF16_FLOAT_OPS:
        op = getattr(interp.InterpreterBuilder, name, None)
        if op is not None:
            setattr(interp.InterpreterBuilder, name, wrapped(op))

    trunc = interp.InterpreterBuilder.create_fp_trunc

    def create_fp_trunc(self: Any, src: Any, dst_type: Any) -> Any:
        # an fp32 narrowed to bf16 with no rounding named (``x.to(tl.bfloat16)``, a store into a bf16 tensor): the
        # GPU's cvt.rn (nearest even), where the interpreter cut the low 16 bits off (3.0714 became 3.0625)
        if dst_type.scalar != tl.bfloat16 or src.dtype.scalar not in (tl.float32, tl.float64):
            return trunc(self, src, dst_type)
        return narrow(interp.TensorHandle(np.asarray(src.data, dtype=np.float32), tl.float32))

    interp.InterpreterBuilder.create_fp_trunc = create_fp_trunc
    if not hasattr(interp.InterpreterBuilder, "get_bf16"):

        def get_bf16(self: Any, value: float) -> Any:
            # a Python float met by a bf16 block (``x * 2.0``) is made a bf16 constant by the builder the GPU's
            # compile has; the interpreter's had none ("no attribute 'get_bf16'": a correct kernel failed, n83)
            return narrow(interp.TensorHandle(np.array([value], dtype=np.float32), tl.float32))

        interp.InterpreterBuilder.get_bf16 = get_bf16
    _patch_bf16_reductions(interp, widen, narrow)


def _patch_bf16_reductions(interp: Any, widen: Any, narrow: Any) -> None:
    """``tl.sum`` / ``tl.max`` / ``tl.min`` / ``tl.argmax`` / ``tl.cumsum`` / ``tl.cumprod`` of a bf16 block, which
    the interpreter hands numpy's reductions as the 16-bit patterns (the sum of 64 values near 1 read 3248), computed
    on the values widened to fp32 and the result rounded back to bf16; an index stays an index. A combine function
    of the kernel's own runs through the builder's patched arithmetic."""
    import triton.language as tl

    def as_tensor(handle: Any, like: Any) -> Any:
        shape = list(handle.data.shape)
        kind = tl.block_type(handle.dtype.scalar, shape) if like.type.is_block() else handle.dtype.scalar
        return tl.core.tensor(handle, kind)

    def widened(op: Any) -> Any:
        def run(self: Any, input: Any, *args: Any, **kwargs: Any) -> Any:
            first = input[0] if isinstance(input, tuple) else input
            if first.dtype != tl.bfloat16:
                return op(self, input, *args, **kwargs)
            wide = as_tensor(widen(first.handle), first)
            out = op(self, (wide, *input[1:]) if isinstance(input, tuple) else wide, *args, **kwargs)
            many = isinstance(out, (list, tuple))
            outs = [
                as_tensor(narrow(o.handle), o) if isinstance(o, tl.core.tensor) and o.dtype == tl.float32 else o
                for o in (out if many else [out])
            ]
            if not many:
                return outs[0]
            return type(out)(outs) if isinstance(out, tuple) else outs

        return run

    for cls, names in ((interp.ReduceOps, ("sum", "min_max")), (interp.ScanOps, ("cumsum", "cumprod"))):
        for name in names:
            op = getattr(cls, name, None)
            if op is not None:
                setattr(cls, name, widened(op))


def launch_option_problems(options: dict[str, Any]) -> list[str]:
    """Why the launch options ``options`` (``num_warps=6``) do not compile on a GPU (:data:`CHECKED_OPTIONS`, each
    against its knob's legality); empty when they do, or say nothing checked."""
    from kernelopt.tunables import knob_rule

    out = []
    for name in CHECKED_OPTIONS:
        value, rule = options.get(name), knob_rule(name)
        if value is None or rule is None:
            continue
        why = rule[1].problem(value)
        if why is not None:
            out.append(f"{name}={value!r} {why} on a GPU ({rule[1].source}); Triton's interpreter ignores it")
    return out


def _patch_launch_options(interp: Any) -> None:
    run = interp.InterpretedFunction.run

    def checked(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        problems = launch_option_problems(kwargs)
        if problems:
            raise ValueError(f"{self.fn.__name__}: {'; '.join(problems)}")
        return run(self, *args, grid=grid, warmup=warmup, **kwargs)

    interp.InterpretedFunction.run = checked


def grid_problem(grid: tuple[int, int, int]) -> str | None:
    """Why a launch of ``grid`` (programs on each axis) fails on a GPU (:data:`GRID_AXES_MOST`); ``None`` when it
    launches."""
    for axis, (count, most) in enumerate(zip(grid, GRID_AXES_MOST, strict=True)):
        if count > most:
            return (
                f"the grid's axis {axis} has {count} programs, more than the {most} a GPU launch takes there (CUDA "
                "refuses it: invalid argument); Triton's interpreter runs it"
            )
    return None


#: The environment variable that gives a process running kernels in Triton's interpreter the time one run of the
#: kernel is given, seconds (a tuning session's bench workers: ``bench_timeout_s``); unset: no launch is stopped
#: (:func:`programs_problem`). kernelopt sets it for its workers (:func:`child_limit`), keeping a smaller value of
#: the user's.
INTERPRETER_LIMIT_ENV = "KERNELOPT_INTERPRETER_LIMIT_S"
#: Launches of fewer programs are never judged, and measure nothing (:func:`_program_floor_s`).
_JUDGED_PROGRAMS = 4096
#: A launch is judged each time this many more of its programs have run.
_JUDGE_EVERY = 256
#: How many programs of an empty kernel time the interpreter's least cost of a program (:func:`_program_floor_s`).
_FLOOR_PROGRAMS = 64
_FLOOR_S: list[float] = []  # the interpreter's least cost of a program in this process, measured once
_MEASURING: list[bool] = [False]


def programs_problem(
    grid: tuple[int, int, int], done: int, elapsed_s: float, floor_s: float, limit_s: float | None
) -> str | None:
    """Why a launch of ``grid`` that has run ``done`` programs in ``elapsed_s`` cannot finish in the time its run is
    given (``limit_s``; ``None``: not judged), or ``None``. Triton's interpreter runs one program at a time and each
    costs at least ``floor_s`` (one that returns at once, :func:`_program_floor_s`), so a launch whose time so far
    and its programs left at that least cost pass the limit cannot finish, whatever the programs left do: it stops
    there, in one line that counts its programs. newuser13's entry of 70000 programs on axis 0 (140000 elements, far
    under the size check's 2**22 elements) ran past its 60 s candidate limit as a timeout; now its original raises
    and the entry is set aside as one of 70000 programs on axis 1 is. A run that finishes in its time is never
    stopped: the time it has left always holds the programs left at the least cost."""
    programs = grid[0] * grid[1] * grid[2]
    if not limit_s or elapsed_s + (programs - done) * floor_s <= limit_s:
        return None
    rate = elapsed_s / done if done else 0.0
    return (
        f"the grid {grid} has {programs} programs: Triton's interpreter ran {done} in {elapsed_s:.0f} s "
        f"({rate * 1e3:.2g} ms a program), and the {programs - done} left take at least {floor_s * 1e3:.2g} ms each "
        f"here, past the {limit_s:g} s this run is given; a size for a GPU, not the interpreter"
    )


def child_limit(limit_s: float) -> str:
    """The value of :data:`INTERPRETER_LIMIT_ENV` for a worker whose run is given ``limit_s``: the smaller of it and
    the user's own (set in kernelopt's environment: newuser15's ``KERNELOPT_INTERPRETER_LIMIT_S=20`` changed nothing
    in a ``tune``, its line still "past the 60 s this run is given"); a user's value that is no positive number is
    not one."""
    user = _env_limit()
    return f"{min(limit_s, user) if user and user > 0 else limit_s:g}"


def _env_limit() -> float | None:
    try:
        return float(os.environ.get(INTERPRETER_LIMIT_ENV, "") or 0) or None
    except ValueError:
        return None


def _program_floor_s() -> float | None:
    """Seconds a program that returns at once costs Triton's interpreter in this process, measured once: a launch of
    :data:`_FLOOR_PROGRAMS` more programs than one, the cost of a launch itself left out; ``None`` where it fails."""
    if _FLOOR_S:
        return _FLOOR_S[0]
    import time

    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def _returns(x, n):
        if tl.program_id(0) >= n:
            return

    def launched(programs: int) -> float:
        start = time.perf_counter()
        _returns[(programs,)](torch.empty(1), 0)
        return time.perf_counter() - start

    _MEASURING[0] = True
    try:
        one = min(launched(1) for _ in range(2))  # what a launch costs whatever its programs: left out
        _FLOOR_S.append(max(0.0, launched(_FLOOR_PROGRAMS + 1) - one) / _FLOOR_PROGRAMS)
    except Exception:  # no floor measured: nothing refused
        return None
    finally:
        _MEASURING[0] = False
    return _FLOOR_S[0]


def _patch_grid_limits(interp: Any) -> None:
    """A launch whose grid a GPU refuses (:func:`grid_problem`) raises before any program runs, as on the GPU; one that
    cannot finish in the time its run is given (:func:`programs_problem`) raises where that is known."""
    import time

    set_grid_dim, set_grid_idx = interp.InterpreterBuilder.set_grid_dim, interp.InterpreterBuilder.set_grid_idx
    launch: dict[str, Any] = {}

    def checked(self: Any, nx: int, ny: int, nz: int) -> Any:
        grid = (int(nx), int(ny), int(nz))
        problem = grid_problem(grid)
        if problem is not None:
            raise ValueError(problem)
        limit = None if _MEASURING[0] else _env_limit()
        judged = limit is not None and grid[0] * grid[1] * grid[2] >= _JUDGED_PROGRAMS
        floor = _program_floor_s() if judged else None  # before this launch's programs: it launches one of its own
        launch.update(grid=grid, done=0, limit=limit if floor is not None else None, floor=floor or 0.0)
        launch["start"] = time.perf_counter()
        return set_grid_dim(self, nx, ny, nz)

    def counted(self: Any, x: int, y: int, z: int) -> Any:
        if launch.get("limit") is not None:
            launch["done"] += 1
            if launch["done"] % _JUDGE_EVERY == 0:
                elapsed = time.perf_counter() - launch["start"]
                problem = programs_problem(launch["grid"], launch["done"], elapsed, launch["floor"], launch["limit"])
                if problem is not None:
                    launch["limit"] = None
                    raise ValueError(problem)
        return set_grid_idx(self, x, y, z)

    interp.InterpreterBuilder.set_grid_dim = checked
    interp.InterpreterBuilder.set_grid_idx = counted


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
    pruned = Autotuner.prune_configs

    def prune_configs(self: Any, kwargs: dict[str, Any]) -> Any:
        # a new key's benchmark follows (Triton prunes right before it): no config of it has run yet
        self._kernelopt_ran = False
        # configs that differ only in launch options the interpreter ignores (num_warps, num_stages, ...) run one
        # program: the first of each stands for them. attorch's warps_kernel_configs(), six configs of no meta
        # parameter, ran six times a shape, and a correct layer norm failed V0 past the per-case limit (breaker9)
        kept: dict[str, Any] = {}
        for config in pruned(self, kwargs):
            kept.setdefault(f"{sorted(config.kwargs.items())!r} {id(config.pre_hook)}", config)
        return list(kept.values())

    Autotuner.prune_configs = prune_configs  # type: ignore[method-assign]
    benched = Autotuner._bench

    def _bench(self: Any, *args: Any, config: Any, **meta: Any) -> Any:
        # the first config that runs is the pick at this key (see the module docstring): the ones after it are not run
        if getattr(self, "_kernelopt_ran", False):
            return [float("inf"), float("inf"), float("inf")]
        # a config that fails the kernel's tl.static_assert is skipped, as a GPU compile's CompileTimeAssertionFailure
        # is: in the interpreter it raised through the autotuner, and a list keyed by size whose config is refused at
        # one key (leftovers10's per-entry screen writes such tables) failed on the CPU where a GPU runs another
        try:
            timing = benched(self, *args, config=config, **meta)
        except Exception as exc:
            if not is_static_assert(exc):
                raise
            return [float("inf"), float("inf"), float("inf")]
        self._kernelopt_ran = min(timing) < float("inf") if isinstance(timing, (list, tuple)) else timing < float("inf")
        return timing

    Autotuner._bench = _bench  # type: ignore[method-assign]
    Autotuner._kernelopt_cpu_bench = True  # type: ignore[attr-defined]


def _tree_reduce(ops: Any, data: list[Any], dtypes: list[Any], axis: int) -> list[Any]:
    """``data`` (numpy arrays of one shape) reduced along ``axis`` by ``ops.combine_fn`` in pairwise steps, each a
    vectorized call of the combine function on every pair ``(x[2i], x[2i + 1])``; the arrays without the axis."""
    import numpy as np

    while data[0].shape[axis] > 1:
        n = data[0].shape[axis]
        pairs = (n // 2) * 2
        left = [np.take(d, np.arange(0, pairs, 2), axis=axis) for d in data]
        right = [np.take(d, np.arange(1, pairs, 2), axis=axis) for d in data]
        out = ops.combine_fn.fn(
            *(ops.to_tensor(x, t) for x, t in zip(left, dtypes, strict=True)),
            *(ops.to_tensor(x, t) for x, t in zip(right, dtypes, strict=True)),
        )
        out = out if isinstance(out, tuple) else (out,)
        combined = [
            np.broadcast_to(o.handle.data if hasattr(o, "handle") else np.asarray(o), lo.shape).astype(lo.dtype)
            for o, lo in zip(out, left, strict=True)
        ]
        if pairs < n:  # the odd last element, carried to the next step in its place
            combined = [
                np.concatenate([c, np.take(d, [n - 1], axis=axis)], axis=axis)
                for c, d in zip(combined, data, strict=True)
            ]
        data = combined
    return [np.squeeze(d, axis=axis) for d in data]


def _unasserted(options: Any) -> Any:
    """``options`` with the overflow sanitizer off where its assertion would be dropped (``debug`` off)."""
    sanitizing = getattr(options, "sanitize_overflow", False) and not getattr(options, "debug", True)
    if sanitizing and dataclasses.is_dataclass(options) and not isinstance(options, type):
        return dataclasses.replace(options, sanitize_overflow=False)
    return options


def _patch_unasserted_overflow(interp: Any) -> None:
    """The interpreter's builders, the module's own and each one made later, sanitize integer overflow only where
    ``device_assert`` checks what the sanitizer computes (see the module docstring)."""
    builder_class = interp.InterpreterBuilder
    made = builder_class.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        self.options = _unasserted(self.options)

    builder_class.__init__ = __init__
    for builder in (getattr(interp, "interpreter_builder", None),):
        if builder is not None and hasattr(builder, "options"):
            builder.options = _unasserted(builder.options)


def _patch_generic_reduce(interp: Any) -> None:
    """Triton's ``ReduceOps.generic_reduce`` (a reduction by a combine function of the kernel's own) by
    :func:`_tree_reduce` (see the module docstring); an empty axis is left to Triton's."""
    import numpy as np

    ops_class = interp.ReduceOps
    sequential = ops_class.generic_reduce

    def generic_reduce(self: Any, input: Any) -> Any:
        original_axis = self.axis
        tensors, axis = self.unravel(input, self.axis)
        if tensors[0].handle.data.shape[axis] == 0:
            return sequential(self, input)
        rank = len(tensors[0].handle.data.shape)
        dtypes = [t.dtype for t in tensors]
        reduced = _tree_reduce(self, [t.handle.data for t in tensors], dtypes, axis)
        ret = []
        for data, dtype in zip(reduced, dtypes, strict=True):
            if self.keep_dims:
                data = np.expand_dims(data, axis) if original_axis is not None else data.reshape((1,) * rank)
            elif original_axis is None:
                data = data.item()
            ret.append(self.to_tensor(data, dtype))
        return ret

    ops_class.generic_reduce = generic_reduce
