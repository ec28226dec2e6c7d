"""The profile driver: the program ``ncu`` runs (owned by kernelopt, never the user's file).

``python -m kernelopt.profiling.driver --kernel K --reference R --mode profile|time|list --out JSON``

It imports ``kernel.py`` and ``reference.py`` through :mod:`kernelopt.harness.loader`, builds the inputs
of one shape on the GPU, calls the candidate ``--warmup`` times (JIT compilation and autotuning happen
here, outside the profiled region), then:

- ``profile``: starts the profiler (``cudaProfilerStart``; ncu runs with ``--profile-from-start off``),
  calls the candidate ``--launches`` times, stops the profiler;
- ``time``: times ``--repeats`` calls with CUDA events (the timing-only fallback when counters are not
  readable, and the unprofiled reference run of the profile-cost benchmark);
- ``list``: records one call with the PyTorch profiler and lists the kernel names that ran (to explain a
  kernel filter that matched nothing).

In every mode it writes a :class:`DriverResult` JSON: the timing, the compiled Triton kernels
(registers, spills, shared memory, warps, stages) with their SASS written next to it, and analytic
FLOP/byte counts when the reference provides them. A failure of the user's code is printed as one
``KERNELOPT_DRIVER_ERROR: <type>: <message>`` line (plus the traceback) and exit status 3.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from kernelopt.env import EnvSettings
from kernelopt.kernelsource import INTERPRETER_MAX_SIZE, INTERPRETER_MAX_SIZE_TEXT, shape_size, timed_shape_index
from kernelopt.oneline import one_line
from kernelopt.proc import die_with_parent, exit_process
from kernelopt.profiling.ncu_failures import DRIVER_ERROR_MARK, NO_CUDA_DEVICE
from kernelopt.vocabulary import Device

EXIT_USER_ERROR = 3


class CompiledKernel(BaseModel):
    """Compiler facts of one compiled Triton kernel.

    Attributes:
        name: the kernel function name.
        num_warps: warps per program (block = 32 x num_warps threads).
        num_stages: software-pipelining stages.
        shared_bytes: shared memory per block, bytes.
        registers: registers per thread (``n_regs`` from the loaded binary).
        spilled_registers: registers spilled (``n_spills``).
        sass_file: the SASS listing written for it (file name, next to the result JSON).
    """

    name: str
    num_warps: int | None = None
    num_stages: int | None = None
    shared_bytes: int | None = None
    registers: int | None = None
    spilled_registers: int | None = None
    sass_file: str | None = None


class DriverResult(BaseModel):
    """What one driver run measured and found.

    Attributes:
        mode: ``profile``, ``time`` or ``list``.
        device: GPU name as torch reports it.
        torch_version: torch version.
        triton_version: triton version, when importable.
        form: kernel form (``function`` / ``kernelbench``).
        shape: the shape the inputs were built for.
        samples_us: per-call wall times (time mode; CUDA events on the GPU, perf_counter on the CPU), us.
        warmup: warm-up calls made before the measured region.
        launches: calls made inside the profiled region (profile mode).
        median_us: their median, us.
        flops: FLOP per call from ``reference.flops``, when defined.
        bytes_moved: bytes per call from ``reference.bytes_moved``, else inputs + output sizes.
        bytes_source: where ``bytes_moved`` comes from.
        kernels_launched: kernel names that ran in one call (list mode).
        compiled: compiled Triton kernels of kernel.py.
        autotune_picked: kernel -> the config its ``@triton.autotune`` picked during the warm-up for this
            shape (the one the profiled and timed calls run).
        notes: what could not be collected, and why.
    """

    mode: str
    device: str | None = None
    torch_version: str | None = None
    triton_version: str | None = None
    form: str | None = None
    shape: dict[str, Any] = Field(default_factory=dict)
    warmup: int = 0
    launches: int = 0
    samples_us: list[float] = Field(default_factory=list)
    median_us: float | None = None
    flops: float | None = None
    bytes_moved: float | None = None
    bytes_source: str | None = None
    kernels_launched: list[str] = Field(default_factory=list)
    compiled: list[CompiledKernel] = Field(default_factory=list)
    autotune_picked: dict[str, dict[str, Any]] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


def _to_device(obj: Any, device: str) -> Any:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, list):
        return [_to_device(o, device) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_to_device(o, device) for o in obj)
    return obj


def _nbytes(obj: Any) -> int:
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, list | tuple):
        return sum(_nbytes(o) for o in obj)
    return 0


def _jit_functions(module: Any) -> list[Any]:
    """Triton JIT functions reachable from the module's globals (autotune/heuristics wrappers unwrapped)."""
    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    found = []
    for obj in vars(module).values():
        seen = 0
        while obj is not None and not isinstance(obj, JITFunction) and hasattr(obj, "fn") and seen < 5:
            obj = obj.fn
            seen += 1
        if isinstance(obj, JITFunction) and obj not in found:
            found.append(obj)
    return found


def _cuobjdump_sass(cubin: bytes, out_dir: Path, name: str) -> str | None:
    from triton import knobs

    from kernelopt.proc import run_command

    tool = knobs.nvidia.cuobjdump.path
    cubin_path = out_dir / f"{name}.cubin"
    cubin_path.write_bytes(cubin)
    try:
        res = run_command([tool, "-sass", str(cubin_path)], timeout_s=120)
    finally:
        cubin_path.unlink(missing_ok=True)
    if not res.ok:
        return None
    sass_file = out_dir / f"{name}.sass"
    sass_file.write_text(res.stdout, encoding="utf-8")
    return sass_file.name


def _compiled_kernels(module: Any, out_dir: Path | None, notes: list[str]) -> list[CompiledKernel]:
    import torch

    out: list[CompiledKernel] = []
    device = torch.cuda.current_device()
    for jit in _jit_functions(module):
        caches = getattr(jit, "device_caches", None)
        if caches is None or device not in caches:
            continue
        kernel_cache = caches[device][0]
        for compiled in list(kernel_cache.values()):
            md = compiled.metadata
            name = str(getattr(compiled, "name", None) or getattr(md, "name", "kernel"))
            ck = CompiledKernel(
                name=name,
                num_warps=getattr(md, "num_warps", None),
                num_stages=getattr(md, "num_stages", None),
                shared_bytes=getattr(md, "shared", None),
                registers=getattr(compiled, "n_regs", None),
                spilled_registers=getattr(compiled, "n_spills", None),
            )
            if out_dir is not None and "cubin" in compiled.asm:
                try:
                    ck.sass_file = _cuobjdump_sass(compiled.asm["cubin"], out_dir, name)
                except (OSError, RuntimeError) as exc:
                    notes.append(f"SASS of {name} not written: {exc}")
            if all(ck.name != o.name for o in out):
                out.append(ck)
    return out


def run(args: argparse.Namespace) -> DriverResult:
    """Execute one driver run (imports torch; needs a CUDA GPU)."""
    import torch

    result = DriverResult(mode=args.mode, torch_version=torch.__version__, warmup=args.warmup)
    try:
        import triton

        result.triton_version = triton.__version__
    except ImportError:
        result.notes.append("triton is not importable")
    on_gpu = args.device == Device.CUDA
    if on_gpu and not torch.cuda.is_available():
        raise RuntimeError(f"{NO_CUDA_DEVICE} (torch.cuda.is_available() is False)")
    result.device = torch.cuda.get_device_name() if on_gpu else "cpu"
    if not on_gpu:  # Triton's interpreter with the gate's fixes: a `range(0, n, BLOCK)` loop failed here (n29)
        from kernelopt.harness.interpreter import patch_interpreter

        patch_interpreter()
    sync = torch.cuda.synchronize if on_gpu else (lambda: None)
    pair, inputs = _problem(args, result)
    fn = pair.candidate(device=args.device)
    out = _warm_up(args, pair, fn, inputs, sync, result)
    _work(pair, inputs, out, result)
    if args.mode == "profile":
        _profile_calls(args, fn, inputs, sync, result, on_gpu=on_gpu)
    elif args.mode == "time":
        _time_calls(args, fn, inputs, result, on_gpu=on_gpu)
    elif args.mode == "list":
        _list_kernels(fn, inputs, sync, result, on_gpu=on_gpu)
    out_dir = Path(args.out).parent if args.out else None
    if on_gpu:
        result.compiled = _compiled_kernels(pair.kernel, out_dir if args.sass else None, result.notes)
    return result


def _problem(args: argparse.Namespace, result: DriverResult) -> tuple[Any, list[Any]]:
    """The kernel and reference pair at the gate's problem sizes, and the inputs of the chosen shape."""
    from kernelopt.harness.loader import load_pair
    from kernelopt.harness.sizes import card_constants

    constants = card_constants(Path(args.reference), EnvSettings.read().size_scale)
    pair = load_pair(Path(args.kernel), Path(args.reference), constants)
    result.form = pair.form
    if not 0 <= args.shape_index < len(pair.shapes):
        raise IndexError(f"shape index {args.shape_index} out of range (reference has {len(pair.shapes)} shapes)")
    index = args.shape_index
    if args.device != Device.CUDA and shape_size(pair.shapes[index]) > INTERPRETER_MAX_SIZE:
        # a main shape sized for a GPU (examples/softmax's 32768 x 4096) on the CPU: the one the gate times there
        # (`kernelopt plan WS --device cpu` failed in Triton's interpreter on it, newuser7 n29)
        smaller = timed_shape_index(pair.shapes, interpreted=True)
        if smaller != index:
            result.notes.append(
                f"SHAPES[{index}] is sized for a GPU (over {INTERPRETER_MAX_SIZE_TEXT}): timed SHAPES[{smaller}] on "
                "the CPU, the entry the gate times there"
            )
            index = smaller
    shape = pair.shapes[index]
    result.shape = {k: v if isinstance(v, int | float | str | bool) else repr(v) for k, v in shape.items()}
    return pair, _to_device(pair.build_inputs(shape), args.device)


def _warm_up(args: argparse.Namespace, pair: Any, fn: Any, inputs: list[Any], sync: Any, result: DriverResult) -> Any:
    """The warm-up calls (JIT, autotuning; on the CPU each autotune config is timed first); the config
    each autotuner picked; the last output."""
    from kernelopt.tunables.autotune_worker import picked_configs, time_autotune_on_cpu

    with_triton = result.triton_version is not None
    if with_triton and args.device != Device.CUDA:
        time_autotune_on_cpu(pair.kernel)
    out = None
    for _ in range(args.warmup):
        out = fn(*inputs)
    sync()
    if with_triton:  # autotuning happened in the warm-up: the profiled and timed calls run this config
        result.autotune_picked = picked_configs(pair.kernel)
    return out


def _work(pair: Any, inputs: list[Any], out: Any, result: DriverResult) -> None:
    """FLOPs and bytes moved: the reference's ``flops`` / ``bytes_moved``, else bytes as the sum of the
    input and output sizes."""
    for hook in ("flops", "bytes_moved"):
        f = pair.optional(hook)
        if f is not None:
            setattr(result, hook, float(f(*inputs)))
    if result.bytes_moved is not None:
        result.bytes_source = "reference.bytes_moved"
    elif out is not None:
        result.bytes_moved = float(_nbytes(inputs) + _nbytes(out))
        result.bytes_source = "sum of input and output tensor sizes"


def _profile_calls(
    args: argparse.Namespace, fn: Any, inputs: list[Any], sync: Any, result: DriverResult, *, on_gpu: bool
) -> None:
    """The profiled calls, between cudaProfilerStart and cudaProfilerStop."""
    import torch

    cudart = torch.cuda.cudart() if on_gpu else None
    if cudart is not None:
        cudart.cudaProfilerStart()
    for _ in range(args.launches):
        fn(*inputs)
    sync()
    if cudart is not None:
        cudart.cudaProfilerStop()
    result.launches = args.launches


def _time_calls(args: argparse.Namespace, fn: Any, inputs: list[Any], result: DriverResult, *, on_gpu: bool) -> None:
    """``args.repeats`` calls, each timed (CUDA events, or the CPU's clock), and their median."""
    import torch

    for _ in range(args.repeats):
        if on_gpu:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn(*inputs)
            end.record()
            end.synchronize()
            result.samples_us.append(start.elapsed_time(end) * 1e3)
        else:
            t = time.perf_counter()
            fn(*inputs)
            result.samples_us.append((time.perf_counter() - t) * 1e6)
    result.median_us = statistics.median(result.samples_us) if result.samples_us else None


def _list_kernels(fn: Any, inputs: list[Any], sync: Any, result: DriverResult, *, on_gpu: bool) -> None:
    """The names of the kernels one call launches (torch's profiler)."""
    from torch.profiler import ProfilerActivity, profile

    activity = ProfilerActivity.CUDA if on_gpu else ProfilerActivity.CPU
    with profile(activities=[activity]) as prof:
        fn(*inputs)
        sync()
    kind = "CUDA" if on_gpu else "CPU"
    names = [e.name for e in prof.events() if str(getattr(e, "device_type", "")).endswith(kind)]
    result.kernels_launched = list(dict.fromkeys(n for n in names if n))


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m kernelopt.profiling.driver", description=__doc__.split("\n")[0])
    p.add_argument("--kernel", required=True, help="kernel.py")
    p.add_argument("--reference", required=True, help="reference.py")
    p.add_argument("--mode", choices=("profile", "time", "list"), default="profile")
    p.add_argument("--warmup", type=int, default=3, help="calls before the measured region (JIT, autotune)")
    p.add_argument("--launches", type=int, default=1, help="calls inside the profiled region")
    p.add_argument("--repeats", type=int, default=20, help="timed calls (time mode)")
    p.add_argument("--shape-index", type=int, default=0, help="which entry of reference.SHAPES")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help="cpu: exercise the pipeline without a GPU")
    p.add_argument("--out", help="write the DriverResult JSON here")
    p.add_argument("--sass", action="store_true", help="write the SASS of compiled Triton kernels next to --out")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    die_with_parent()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    t0 = time.monotonic()
    try:
        result = run(args)
    except BaseException as exc:  # the user's code failed: report it on one line, keep the traceback
        if isinstance(exc, KeyboardInterrupt):
            raise
        traceback.print_exc()
        message = one_line(str(exc), 500)
        sys.stderr.write(f"{DRIVER_ERROR_MARK} {type(exc).__name__}: {message}\n")
        sys.stderr.flush()
        return EXIT_USER_ERROR
    result.notes.append(f"driver wall time {time.monotonic() - t0:.2f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(result.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    exit_process(main())
