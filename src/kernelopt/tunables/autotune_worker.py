"""The child side of :func:`kernelopt.tunables.evaluate.evaluate_autotune`: import a kernel file the way
Triton's users do, read back what its ``@triton.autotune`` decorators hold, optionally run the task once
and read which config each autotuner picked.

It runs as the ``autotune`` service of ``python -m kernelopt.child autotune`` (:class:`AutotuneService`): one
``read`` request per module, answered by :func:`read_module`'s ``{"spaces": {...}}`` or
``{"error": ..., "line": N}``. Its functions import user code, so only the worker process calls them;
importing this module does nothing.
"""

from __future__ import annotations

import inspect
import math
import sys
import traceback
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from kernelopt import pyparse
from kernelopt.kernelsource import input_list, interpreted_cases, timed_shape_index
from kernelopt.numeric import is_int
from kernelopt.tunables.model import argument_key
from kernelopt.worker.loader import load_module
from kernelopt.worker.messages import JsonObject
from kernelopt.worker.server import EventSink, SetupInfo

READ = "read"
"""The autotune service's one request kind."""


@dataclass(frozen=True)
class FirstCallWatch:
    """How the task's first call is watched for an autotuner benchmarking on its own tensors, given by the service's
    maker (:mod:`kernelopt.child`: :mod:`kernelopt.harness.first_call`, a layer above this one).

    Attributes:
        watch: a context that yields the autotuners that benchmarked so during it (``watch_benchmarks``).
        kept: the first call's outputs, copied before the next call (``kept_outputs``).
        differs: what differs between the first call's kept outputs and the next call's, held to the gate's
            tolerance with the task's reference module (``calls_differ``); ``None`` where they agree.
        line: the line naming the cause and the fix, from them and what differed (``first_call_line``).
        adds_into: whether an autotuned kernel's body (and the names its configs set) adds into an output or stores
            one slot a program (``adds_into``: a ``tl.atomic_*`` write, stored partials), so that only its autotuner's
            own benchmark on the call's tensors tells whether its first call is wrong: a list :func:`pinned_lists`
            would pin from the task's first run is left whole there (late49's l190, wrongkernel32's v195).
    """

    watch: Callable[[], AbstractContextManager[list[Any]]]
    kept: Callable[[Any], list[Any]]
    differs: Callable[[list[Any], Any, Any], str | None]
    line: Callable[[list[Any], str], str]
    adds_into: Callable[[Any, Collection[str]], bool] = lambda fn, keys: False


def _line_in(path: Path, tb: TracebackType | None) -> int | None:
    """The last line of ``path`` on the traceback (where the import failed in the user's file)."""
    line = None
    for frame in traceback.extract_tb(tb):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno
    return line


def _scalar(v: Any) -> Any:
    if isinstance(v, bool | int | float | str):
        return v
    return repr(v)


def _hook_name(hook: Any) -> str | None:
    """The name a config's ``pre_hook`` is bound to at module level in the file that defines it (the persistent
    TMA GEMM's ``_set_block_shapes``), so a literal list written in that file can name it, or the call of a
    module-level factory that rebuilds it (:func:`_factory_call`); ``None`` for a lambda, another closure or a
    callable object, which no name of that file holds."""
    if not inspect.isfunction(hook) or hook.__name__ == "<lambda>":
        return None
    if hook.__globals__.get(hook.__name__) is hook:
        return hook.__name__
    return _factory_call(hook)


def _factory_call(hook: Any) -> str | None:
    """``init_to_zero('C11', 'C12')`` for a closure that call of a module-level factory returned, where the call
    rebuilds it exactly: the factory's body only defines the closure and returns it, and each variable the closure
    reads from it is a parameter holding a literal (xformers' ``init_to_zero(*names)``, whose ``def
    result(nargs)`` zeroes each named argument: breaker27's q70). ``None`` for any other closure."""
    import ast
    import textwrap

    qualname = hook.__qualname__.split(".<locals>.")
    factory = hook.__globals__.get(qualname[0]) if len(qualname) == 2 and qualname[1] == hook.__name__ else None
    if not inspect.isfunction(factory) or hook.__closure__ is None:
        return None
    try:
        tree = pyparse.parse(textwrap.dedent(inspect.getsource(factory))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    body = [s for s in getattr(tree, "body", []) if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not (
        len(body) == 2
        and isinstance(body[0], ast.FunctionDef)
        and body[0].name == hook.__name__
        and isinstance(body[1], ast.Return)
        and isinstance(body[1].value, ast.Name)
        and body[1].value.id == hook.__name__
    ):
        return None
    held = dict(zip(hook.__code__.co_freevars, (c.cell_contents for c in hook.__closure__), strict=True))
    args: list[str] = []
    skipped = False  # a positional parameter left to its default: no later one can be given by position
    for name, p in inspect.signature(factory).parameters.items():
        if name not in held:
            if p.default is inspect.Parameter.empty and p.kind is not p.VAR_POSITIONAL:
                return None  # a parameter the closure does not read: its value is not known here
            skipped = True
            continue
        value = held.pop(name)
        values = list(value) if p.kind is p.VAR_POSITIONAL else [value]
        written = [_literal_repr(v) for v in values]
        if p.kind is p.VAR_KEYWORD or None in written or (skipped and p.kind is not p.KEYWORD_ONLY):
            return None
        args += [f"{name}={w}" if p.kind is p.KEYWORD_ONLY else str(w) for w in written]
    return f"{factory.__name__}({', '.join(args)})" if not held else None


def _literal_repr(v: Any) -> str | None:
    """``repr(v)`` where it reads back as ``v`` (a str, int, finite float, bool or ``None``), ``float('-inf')`` for
    an infinite or NaN float (its ``repr``, ``-inf``, reads as a name: review26, r64, a hook factory's
    ``init_to_value('M', float('-inf'))`` was written back as ``init_to_value('M', -inf)``, a NameError at the pinned
    file's import); else ``None``."""
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    return repr(v) if v is None or isinstance(v, str | int | float | bool) else None


def _config(c: Any) -> dict[str, Any]:
    hook = getattr(c, "pre_hook", None)
    return {
        "kwargs": {str(k): _scalar(v) for k, v in dict(getattr(c, "kwargs", {}) or {}).items()},
        "num_warps": int(getattr(c, "num_warps", 4) or 4),
        "num_stages": int(getattr(c, "num_stages", 3) or 3),
        "num_ctas": int(getattr(c, "num_ctas", 1) or 1),
        "maxnreg": getattr(c, "maxnreg", None),
        "pre_hook": hook is not None,
        "pre_hook_name": _hook_name(hook) if hook is not None else None,
    }


def autotuners(module: ModuleType) -> list[Any]:
    """The ``triton.runtime.autotuner.Autotuner`` objects a module's names hold (under its heuristics too), and those
    of the classes it defines: trident's kernels are static methods (``class VarMean: forward = staticmethod(
    triton.autotune(...)(triton.jit(...)))``), which the module's names never held (breaker21's q3)."""
    from triton.runtime.autotuner import Autotuner

    found: list[Any] = []
    held = list(vars(module).values())
    for obj in list(held):
        if isinstance(obj, type) and obj.__module__ == module.__name__:
            held += [getattr(m, "__func__", m) for m in vars(obj).values()]
    for obj in held:
        cur, depth = obj, 0
        while cur is not None and depth < 6:
            if isinstance(cur, Autotuner) and all(cur is not f for f in found):
                found.append(cur)
            cur, depth = getattr(cur, "fn", None), depth + 1
    return found


def base_fn(at: Any) -> Any:
    """The Python function an autotuner wraps (its name is the kernel's)."""
    fn = getattr(at, "base_fn", None) or at.fn
    while not inspect.isfunction(fn) and getattr(fn, "fn", None) is not None:
        fn = fn.fn
    return fn


def _space(at: Any) -> dict[str, Any]:
    fn = base_fn(at)
    prune = []
    if getattr(at, "early_config_prune", None):
        prune.append("early_config_prune")
    if getattr(at, "perf_model", None):
        prune.append("perf_model")
        prune.append(f"top_k={getattr(at, 'configs_top_k', 1.0)}")
    code = getattr(fn, "__code__", None)
    return {
        "kernel": getattr(fn, "__name__", "?"),
        "line": code.co_firstlineno if code is not None else None,
        "configs": [_config(c) for c in at.configs],
        "key": [str(k) for k in (at.keys or [])],
        "reset_to_zero": [str(k) for k in (getattr(at, "reset_to_zero", None) or [])],
        "restore_value": [str(k) for k in (getattr(at, "restore_value", None) or [])],
        "prune": prune,
    }


class _LaunchRecorder:
    """Records the keyword arguments of the last launch of every Triton kernel (compiled or interpreted):
    the values computed settings, heuristics and the picked autotune config take for the task's shape; and the
    sizes of its launches, each the largest any launch of the run gave it (a kernel launched twice at different
    sizes, LMDeploy's RMS norm over the hidden size and then over each head: the last launch's 250 alone said the
    block covers ``N_COLS`` up to 250, and the search offered only blocks the first launch's 1000 outgrows)."""

    def __init__(self, kernel_file: str | None = None) -> None:
        self.launches: dict[str, dict[str, Any]] = {}
        #: kernel -> the integer locals of the kernel file's function that launched it (``n_cols``), and its
        #: integer arguments: the values a tuned table's size expression takes at this shape, the largest of the
        #: run's launches of it
        self.sizes: dict[str, dict[str, int]] = {}
        self._file = kernel_file
        self._saved: list[tuple[Any, Any]] = []
        #: the lines of the kernel file the run executed (its host code's branches: which override ran)
        self.lines: set[int] = set()
        self._trace: Any = None

    def __enter__(self) -> _LaunchRecorder:
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction

        for cls in (JITFunction, InterpretedFunction):
            original = cls.run
            self._saved.append((cls, original))
            setattr(cls, "run", self._wrap(original))  # noqa: B010 (a class attribute patched and restored)
        if self._file is not None:
            self._trace = sys.gettrace()
            sys.settrace(self._on_call)
        return self

    def _on_call(self, frame: Any, event: str, arg: Any) -> Any:
        """Line events only in the kernel file's frames: every other frame runs untraced."""
        return self._on_line if frame.f_code.co_filename == self._file else None

    def _on_line(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            self.lines.add(frame.f_lineno)
        return self._on_line

    def _wrap(self, original: Any) -> Any:
        recorder = self

        def run(fn_self: Any, *args: Any, **kwargs: Any) -> Any:
            fn = getattr(fn_self, "fn", None)
            name = getattr(fn, "__name__", None)
            if name:  # the last launch wins: after autotuning, the picked config's
                recorder.launches[name] = {
                    k: v
                    for k, v in kwargs.items()
                    if k not in ("grid", "warmup") and isinstance(v, bool | int | float | str)
                }
                now = {**recorder.caller_sizes(), **_argument_sizes(fn_self, args, kwargs)}
                seen = recorder.sizes.get(name, {})
                recorder.sizes[name] = {k: max(v, seen[k]) if k in seen else v for k, v in now.items()}
            return original(fn_self, *args, **kwargs)

        return run

    def caller_sizes(self) -> dict[str, int]:
        """The integer locals of the innermost frame of the kernel file on the stack (its launching function)."""
        frame = inspect.currentframe()
        while frame is not None and (self._file is None or frame.f_code.co_filename != self._file):
            frame = frame.f_back
        if frame is None:
            return {}
        return {k: v for k, v in frame.f_locals.items() if is_int(v)}

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            sys.settrace(self._trace)
        for cls, original in self._saved:
            setattr(cls, "run", original)  # noqa: B010


def _argument_sizes(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, int]:
    """The integer arguments of a launch, keyed as a ``@triton.heuristics`` lambda reads them
    (:func:`~kernelopt.tunables.model.argument_key`): the values a tuned table inside a heuristic buckets on."""
    names = list(getattr(fn, "arg_names", None) or [])
    bound = {**dict(zip(names, args, strict=False)), **kwargs}
    return {argument_key(k): v for k, v in bound.items() if is_int(v) and k in names}


def time_autotune_on_cpu(module: ModuleType) -> None:
    """Let the autotuners of ``module`` benchmark on the CPU (Triton's interpreter has no benchmarker)."""
    for at in autotuners(module):
        if getattr(at, "_do_bench", None) is None:
            at._do_bench = cpu_bench


def picked_configs(module: ModuleType) -> dict[str, dict[str, Any]]:
    """Kernel name -> the config its autotuner picked in the last call (``kwargs``, ``num_warps``, ...);
    autotuners not yet run are left out."""
    out = {}
    for at in autotuners(module):
        best = getattr(at, "best_config", None)
        if best is not None:
            out[str(getattr(base_fn(at), "__name__", "?"))] = _config(best)
    return out


def cpu_bench(kernel_call: Any, quantiles: Any = None) -> list[float]:
    """The autotuner's benchmark on the CPU (interpreter): one call, ms (as the median, 20th and 80th percentile).

    One call, with no warm-up: the interpreter compiles nothing, and its timing says nothing of a GPU's, so the
    autotuner's pick on the CPU only has to be a config of the list (the first that runs: the figure is not compared,
    :mod:`kernelopt.harness.interpreter`). Four calls a config (a warm-up and three)
    made an autotuned split-K GEMM's first call take 17-25 s in the gate, past its per-case limit of 30 s, a
    correct kernel failed as "hangs or is far too slow" (issue 32, breaker5 i3)."""
    import time

    t0 = time.perf_counter()
    kernel_call()
    ms = (time.perf_counter() - t0) * 1e3
    return [ms, ms, ms]


def _shapes(reference_py: Path) -> tuple[ModuleType, list[dict[str, Any]]]:
    reference = load_module(reference_py)
    return reference, [dict(s) for s in (getattr(reference, "SHAPES", None) or [{}])]


def _run_task(kernel: ModuleType, reference_py: Path, device: str, index: int | None = None) -> dict[str, Any]:
    """Call the task once (the ``SHAPES`` entry ``index``; by default the first, the smallest on the CPU);
    return that shape."""
    return _call_task(kernel, reference_py, device, index)[0]


def _call_task(
    kernel: ModuleType, reference_py: Path, device: str, index: int | None = None
) -> tuple[dict[str, Any], Any]:
    """:func:`_run_task`'s shape, and what the call returned."""
    import torch

    reference, shapes = _shapes(reference_py)
    # the main (timed) shape on a GPU; on the CPU (Triton's interpreter) the smallest one
    if index is None:
        index = timed_shape_index(shapes, interpreted=device == "cpu")  # an autotuned kernel is Triton
    shape = shapes[index]
    kwargs = dict(shape)
    try:
        if "device" in inspect.signature(reference.get_inputs).parameters:
            kwargs["device"] = device
    except (TypeError, ValueError):
        pass
    torch.manual_seed(0)
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in input_list(reference.get_inputs(**kwargs))]
    if hasattr(reference, "Model"):
        init = list(reference.get_init_inputs()) if hasattr(reference, "get_init_inputs") else []
        model = kernel.ModelNew(*init)
        model = model.to(device) if hasattr(model, "to") else model
        out = model(*inputs)
    else:
        out = kernel.run(*inputs)
    return {k: _scalar(v) for k, v in shape.items()}, out


def _first_call_line(
    kernel: ModuleType, reference_py: Path, device: str, first: Any, benchmarked: list[Any], watch: FirstCallWatch
) -> str | None:
    """Where the task's first call benchmarked an autotune list on its own tensors with nothing to undo what the runs
    wrote (:attr:`FirstCallWatch.watch`), the task called once more on the same inputs: when the two outputs differ
    (:attr:`FirstCallWatch.differs`, the gate's comparison), the kernel as written is wrong on its first call at each
    new key (leftovers13's partial sum), and the line names the cause and the fix; else ``None``. Costs one more
    call, and only where an autotuner benchmarked so."""
    if not benchmarked:
        return None
    reference, _ = _shapes(reference_py)
    kept = watch.kept(first)  # a buffer the next call reuses: its first values
    _, again = _call_task(kernel, reference_py, device)
    mismatch = watch.differs(kept, again, reference)
    return watch.line(benchmarked, mismatch) if mismatch is not None else None


def read_module(
    kernel_py: Path,
    reference: Path | None = None,
    device: str = "auto",
    on_cpu: Callable[[], object] | None = None,
    first_call: FirstCallWatch | None = None,
    sizes: bool = True,
    pin_lists: int = 0,
    key_call: str | None = None,
) -> dict[str, Any]:
    """What the autotuners of ``kernel_py`` hold (``{"spaces": ...}``), after one run of the task when
    ``reference`` is given (``launch_values``, ``shape``, each space's ``best_config``; ``sizes``: then a run at each
    ``SHAPES`` entry for ``shape_sizes``, none for a first-call check alone); a module that fails to import is
    ``{"error": ..., "line": N}``. A result, never an exception of the user's code. ``key_call``: the call by which
    the file keys its settings by the device, read from its text by the caller (:func:`_device_key`)."""
    if reference is not None and device == "auto":
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    if reference is not None and device == "cpu" and on_cpu is not None:
        # the interpreter fixes the gate's and the bench worker's runs have (loops over a runtime n), before the
        # import: a kernel.py that binds `from torch.library import wrap_triton` keeps what it finds (late20's z8)
        on_cpu()
    try:
        module = load_module(kernel_py)
    except BaseException as exc:  # the user's module failed to import: a result, reported in one line
        return {
            "error": f"importing the module failed: {type(exc).__name__}: {exc}",
            "line": _line_in(kernel_py, exc.__traceback__),
        }
    spaces = {s["kernel"]: s for s in (_space(at) for at in autotuners(module))}
    result: dict[str, Any] = {"spaces": spaces}
    if reference is None:
        return result
    if device == "cpu":
        time_autotune_on_cpu(module)
    # a keyed list of 2 to pin_lists configs runs pinned to its first from the task's first run on: its autotuner's
    # benchmark (a compile and a do_bench of every config at each new key) tells discovery nothing it needs, the
    # session times each config pinned (l101), and it was most of the seconds before a GPU session (late49's l190)
    keep = first_call.adds_into if first_call is not None else None
    for pin in (pin_lists, 0) if pin_lists else (0,):
        recorder = _LaunchRecorder(str(kernel_py.resolve()))
        with pinned_lists(module, pin, keep=keep) as first_pinned:
            try:
                with recorder, first_call.watch() if first_call is not None else nullcontext([]) as benchmarked:
                    shape, first = _call_task(module, reference, device)
            except BaseException as exc:  # the task run failed (pinned: as written, next); the configs are known
                if pin and first_pinned and isinstance(exc, Exception):
                    continue
                result["run_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
                return result
            try:  # the kernel as written wrong on its first call (leftovers13's leftover: tune never said so)
                if first_call is not None:
                    result["first_call"] = _first_call_line(module, reference, device, first, benchmarked, first_call)
            except Exception:  # the second call failed: the checks say why, not this
                result["first_call"] = None
        break
    result["launch_values"] = recorder.launches
    result["device_key"] = _device_key(module, key_call)
    result["shape"] = shape
    result["shape_sizes"] = (
        _shape_sizes(module, kernel_py, reference, device, pin_lists, shape, first_pinned) if sizes else []
    )
    for name, best in picked_configs(module).items():
        if name in spaces and name not in first_pinned:  # a list pinned from the first run has no pick of its own
            spaces[name]["best_config"] = best
            spaces[name]["best_config_shape"] = shape
    return result


def _device_key(module: ModuleType, call: str | None) -> list[Any] | None:
    """``[call, value]``: what ``call``, the call by which kernel.py keys the settings it reads from files by the device
    (``get_arch()``), answers in this run (``"cpu"`` in Triton's interpreter, ``90`` on an H100); ``None`` where the
    file has none (``call`` None) or it answers no string or integer. The call is read from the file's text by the
    process that asks for the evaluation (:func:`kernelopt.tunables.dict_origin.device_key`, kept there by text):
    read here, each worker imported the tunables' libcst readers for it, about 0.3 CPU-s a worker (suite29 s100)."""
    if call is None:
        return None
    first, *rest = call.removesuffix("()").split(".")
    try:
        getter = vars(module)[first]
        for name in rest:
            getter = getattr(getter, name)
        value = getter()
    except Exception:  # the user's getter failed here: no key, the pick is written as before
        return None
    return [call, value] if isinstance(value, str) or is_int(value) else None


def _shape_sizes(
    module: ModuleType,
    kernel_py: Path,
    reference: Path,
    device: str,
    pin_lists: int = 0,
    first: dict[str, Any] | None = None,
    first_pinned: frozenset[str] | set[str] = frozenset(),
) -> list[dict[str, Any]]:
    """For each ``SHAPES`` entry the device runs (in Triton's interpreter: those small enough for it), the
    integer locals of each kernel's launching function (:attr:`_LaunchRecorder.sizes`) and the config each autotuner
    picked there (:func:`picked_configs`: what the list as written runs at that key); an entry whose run fails is
    left out (the checks say why, not this). ``pin_lists``: a keyed list of 2 to that many configs runs pinned to
    the config its autotuner picked in the task's first run (:func:`pinned_lists`), its pick kept only at that run's
    entry (``first``: elsewhere it is not the autotuner's own), and nowhere for a kernel the first run held pinned too
    (``first_pinned``); an entry whose pinned run fails runs again as written."""
    _, shapes = _shapes(reference)
    indices = interpreted_cases(shapes) if device == "cpu" else list(range(len(shapes)))
    out = []
    for i in indices:
        found = None
        for pin in (pin_lists, 0) if pin_lists else (0,):
            recorder = _LaunchRecorder(str(kernel_py.resolve()))
            try:
                with recorder, pinned_lists(module, pin) as pinned:
                    shape = _run_task(module, reference, device, i)
            except Exception:  # the user's code failed on this entry (pinned: as written, next): it has no sizes
                continue
            found = shape, recorder, pinned
            break
        if found is None:
            continue
        shape, recorder, pinned = found
        # each autotuner's pick at this entry's key (the list as written), of those this entry launched
        own = shape == first or not pinned  # a pinned list's pick is its own at the first run's key alone
        picks = {
            k: v
            for k, v in picked_configs(module).items()
            if k in recorder.launches and (own or k not in pinned) and k not in first_pinned
        }
        out.append(
            {
                "shape": shape,
                "sizes": recorder.sizes,
                "launch_values": recorder.launches,
                "picks": picks,
                "ran_lines": sorted(recorder.lines),
            }
        )
    return out


@contextmanager
def pinned_lists(
    module: ModuleType, most: int, keep: Callable[[Any, Collection[str]], bool] | None = None
) -> Iterator[set[str]]:
    """Within it, each keyed autotune list of ``module`` holding 2 to ``most`` configs runs pinned to one: the config
    its autotuner picked last (the task's first run), else its first; yields the names of the kernels pinned. A keyed
    list the session judges as a list (at most ``folder.LIST_CURRENT_MOST`` configs) is timed there entry by entry,
    each config pinned (late42's l101): discovery's runs at the other ``SHAPES`` entries need their sizes, not the
    autotuner's benchmark of every config at each new key (fla_matmul: 3 keys x 8 compiles, 118 s on the H100 before
    its session; leftovers27 l133); since late49's l190 the task's first run too. ``keep``: a list whose kernel it
    holds true of (the function the autotuner wraps: :attr:`FirstCallWatch.adds_into`) is left whole. ``most`` 0:
    nothing pinned."""
    held: list[tuple[Any, list[Any]]] = []
    names: set[str] = set()
    for at in autotuners(module) if most else []:
        configs = list(getattr(at, "configs", None) or [])
        keys = {k for c in configs for k in (getattr(c, "kwargs", None) or {})}
        if (
            not getattr(at, "keys", None)
            or not 2 <= len(configs) <= most
            or (keep is not None and keep(base_fn(at), keys))
        ):
            continue
        best = getattr(at, "best_config", None)
        held.append((at, configs))
        at.configs = [best if best is not None else configs[0]]
        names.add(str(getattr(base_fn(at), "__name__", "?")))
    try:
        yield names
    finally:
        for at, configs in held:
            at.configs = configs


class AutotuneService:
    """The ``autotune`` service of ``python -m kernelopt.child autotune``: one ``read`` request per module
    (payload ``{"kernel_py": ..., "reference": ... | None, "device": "auto", "device_key": call | None}``), answered
    by :func:`read_module`'s result. Setup does nothing."""

    def __init__(self, on_cpu: Callable[[], object] | None = None, first_call: FirstCallWatch | None = None) -> None:
        self._on_cpu, self._first_call = on_cpu, first_call

    def setup(self, payload: JsonObject, events: EventSink) -> SetupInfo:
        return SetupInfo()

    def handle(self, kind: str, payload: JsonObject, events: EventSink) -> JsonObject:
        if kind != READ:
            raise ValueError(f"the autotune service has no request kind {kind!r}")
        reference = payload.get("reference")
        return read_module(
            Path(payload["kernel_py"]),
            Path(reference) if reference else None,
            str(payload.get("device", "auto")),
            self._on_cpu,
            self._first_call,
            bool(payload.get("sizes", True)),
            int(payload.get("pin_lists", 0)),
            key if isinstance(key := payload.get("device_key"), str) else None,
        )

    def close(self) -> None:
        pass
