#!/usr/bin/env python3
"""Exhaustive sweep of an example's knob space, compared with what `kernelopt optimize` found.

For each example (``examples/<name>``) every configuration of its knob space is written as a variant
of ``kernel.py`` (only the knob literals change), checked against the reference and timed. The best
configuration is then compared with the final kernel of a finished kernelopt workspace
(``<workspace-root>/kernel_opt_<name>`` or ``--workspace``): its latency as recorded by the loop, its
latency re-timed here with the same timer as the sweep (the fair comparison), and the number of
evaluations each approach used.

Usage (on the GPU machine, after ``kernelopt optimize examples/<name>`` for each example)::

    python benchmarks/sweep_compare.py --example all --json sweep.json
    python benchmarks/sweep_compare.py --example matmul --workspace /tmp/kernel_opt_matmul

Smoke test without a GPU (Triton interpreter, small shape, a few configurations)::

    python benchmarks/sweep_compare.py --example elementwise --device cpu --small --max-configs 4

Definitions:

- Knob space: ``SPACES`` below, per example: the launch keywords that kernelopt's tunables discover in
  the example (checked at start-up), each over the practical range of legal values (powers of two
  for block sizes, num_warps in Triton's set, num_stages 1..4). Configurations the tunables' resource
  estimate rejects (shared memory of a pipelined tile over the per-SM limit, an fp32 accumulator over
  255 registers per thread) are not timed, as the rule-based tuner would not try them.
- Exhaustive evaluations: configurations timed (including those that failed to compile or were wrong).
- Loop evaluations: memory records (every version, failed and masked included) plus every failed
  implementation attempt recorded in ``pitfalls_and_fixes`` (``correctness_*`` entries of Stage 3),
  an upper bound on the candidates the loop measured.
- Gap: (loop final latency re-timed - exhaustive best) / exhaustive best, in percent.
- Target (issue 7): gap <= 5 % with at most a fifth of the exhaustive evaluations.

Timing is done by one function, :func:`measure` (marked TIMING HOOK below).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import itertools
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))

EXAMPLES = ("elementwise", "softmax", "layernorm", "matmul")

# The knob space per example: knob -> values (each legal for kernelopt's tunables).
SPACES: dict[str, dict[str, list[int]]] = {
    "elementwise": {
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192, 16384],
        "num_warps": [1, 2, 4, 8, 16, 32],
    },
    "softmax": {  # chunk widths up to the 4096-column row
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
    "layernorm": {  # chunk widths up to the 8192-column row
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
    "matmul": {
        "BLOCK_M": [32, 64, 128, 256],
        "BLOCK_N": [32, 64, 128, 256],
        "BLOCK_K": [32, 64, 128],
        "GROUP_M": [1, 8],
        "num_warps": [4, 8],
        "num_stages": [1, 2, 3, 4],
    },
}

# Used only when kernelopt.tunables is absent from this build: CUDA C++ Programming Guide, "Technical
# Specifications per Compute Capability": at most 255 registers per thread; shared memory per SM comes
# from the GPU's spec sheet (kernelopt.hardware.specs).
MAX_REGISTERS_PER_THREAD = 255


# --------------------------------------------------------------------------------------------------
# Results


@dataclass
class ConfigResult:
    """One configuration of the sweep."""

    config: dict[str, int]
    status: str  # ok | wrong | error | pruned
    latency_us: float | None = None
    iqr_us: float | None = None
    samples: int = 0
    method: str | None = None
    max_abs_err: float | None = None
    message: str | None = None


@dataclass
class LoopResult:
    """What the kernelopt workspace says, and its final kernel re-timed here."""

    workspace: str
    final_version: str | None = None
    final_latency_us: float | None = None
    best_version: str | None = None
    best_latency_us: float | None = None
    baseline_latency_us: float | None = None
    versions: int = 0
    failed_attempts: int = 0
    evaluations: int = 0
    final_config: dict[str, Any] = field(default_factory=dict)
    final_retimed_us: float | None = None
    final_retimed_status: str | None = None
    problem: str | None = None


@dataclass
class ExampleResult:
    example: str
    device: str
    shape: dict[str, Any]
    knobs: dict[str, list[int]]
    naive_config: dict[str, int]
    configs: list[ConfigResult] = field(default_factory=list)
    pruned: int = 0
    wall_s: float = 0.0
    timer: str = ""
    loop: LoopResult | None = None
    warnings: list[str] = field(default_factory=list)

    def timed(self) -> list[ConfigResult]:
        return [c for c in self.configs if c.status != "pruned"]

    def best(self) -> ConfigResult | None:
        ok = [c for c in self.configs if c.status == "ok" and c.latency_us is not None]
        return min(ok, key=lambda c: c.latency_us or math.inf) if ok else None

    def naive(self) -> ConfigResult | None:
        return next((c for c in self.configs if c.config == self.naive_config), None)

    def gap_pct(self) -> float | None:
        best = self.best()
        if best is None or best.latency_us is None or self.loop is None or self.loop.final_retimed_us is None:
            return None
        return 100.0 * (self.loop.final_retimed_us - best.latency_us) / best.latency_us

    def meets_target(self) -> bool | None:
        gap = self.gap_pct()
        if gap is None or self.loop is None:
            return None
        return gap <= 5.0 and self.loop.evaluations * 5 <= len(self.timed())


# --------------------------------------------------------------------------------------------------
# Knobs: discovery, legality, resource pruning, variant source


def discover_knobs(kernel_py: Path) -> dict[str, Any]:
    """Knob name -> current value of ``kernel_py``: kernelopt's tunables when present, else launch literals."""
    try:
        from kernelopt.tunables import discover
    except ImportError:
        return _launch_literals(kernel_py.read_text(encoding="utf-8"))
    return {t.name: t.value for t in discover(kernel_py) if t.editable}


def _launch_literals(source: str) -> dict[str, Any]:
    """Literal keyword arguments of ``kernel[grid](...)`` calls (fallback discovery)."""
    out: dict[str, Any] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            for kw in node.keywords:
                if kw.arg and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, int):
                    out[kw.arg] = kw.value.value
    return out


def resource_problem(config: dict[str, int], gpu: str | None, dtype: str | None) -> str | None:
    """Why ``config`` cannot fit on the GPU (the tunables' estimate), or None."""
    try:
        from kernelopt.tunables import ResourceLimits, resource_problems
    except ImportError:
        return _builtin_resource_problem(config, gpu, dtype)
    problems = resource_problems(config, ResourceLimits.for_gpu(gpu, dtype))
    return "; ".join(problems) or None


def _builtin_resource_problem(config: dict[str, int], gpu: str | None, dtype: str | None) -> str | None:
    bm, bn, bk = config.get("BLOCK_M"), config.get("BLOCK_N"), config.get("BLOCK_K")
    if not (bm and bn and bk):
        return None
    warps, stages = config.get("num_warps", 4), config.get("num_stages", 3)
    elem = {"fp16": 2, "bf16": 2, "fp32": 4, "fp8": 1}.get(dtype or "", 2)
    if gpu:
        from kernelopt.hardware.specs import lookup

        fig = lookup(gpu).figures.get("shared_memory_per_sm_bytes")
        if fig is not None and fig.value is not None and stages * (bm * bk + bk * bn) * elem > fig.value:
            return f"shared memory {stages * (bm * bk + bk * bn) * elem} B > {fig.value:.0f} B per SM"
    if bm * bn / (warps * 32) > MAX_REGISTERS_PER_THREAD:
        return f"fp32 accumulator needs {bm * bn / (warps * 32):.0f} registers per thread > 255"
    return None


def variant_source(source: str, changes: dict[str, int]) -> str:
    """``source`` with the knob literals set to ``changes`` (tunables' libcst edit when present)."""
    current = _launch_literals(source)
    moved = {k: v for k, v in changes.items() if current.get(k) != v}
    if not moved:
        return source
    try:
        from kernelopt.tunables import apply_source
    except ImportError:
        return _splice(source, moved)
    return apply_source(source, moved).new_source


def _splice(source: str, changes: dict[str, int]) -> str:
    """Replace the launch-keyword literals named in ``changes`` (fallback edit, by AST position)."""
    lines = source.splitlines(keepends=True)
    offsets = list(itertools.accumulate((len(line) for line in lines), initial=0))
    spans = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            for kw in node.keywords:
                if kw.arg in changes and isinstance(kw.value, ast.Constant):
                    v = kw.value
                    assert v.end_lineno is not None and v.end_col_offset is not None
                    start = offsets[v.lineno - 1] + v.col_offset
                    end = offsets[v.end_lineno - 1] + v.end_col_offset
                    spans.append((start, end, str(changes[kw.arg])))
    if len(spans) != len(changes):
        raise ValueError(f"could not find every knob of {sorted(changes)} at a launch site")
    out = source
    for start, end, text in sorted(spans, reverse=True):
        out = out[:start] + text + out[end:]
    return out


def enumerate_space(space: dict[str, list[int]]) -> list[dict[str, int]]:
    keys = list(space)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*(space[k] for k in keys))]


def subsample(configs: list[dict[str, int]], naive: dict[str, int], limit: int | None) -> list[dict[str, int]]:
    """At most ``limit`` configurations: the naive one, then others evenly spread over the space."""
    if limit is None or len(configs) <= limit:
        return configs
    others = [c for c in configs if c != naive]
    k = limit - 1
    idx = sorted({round(i * (len(others) - 1) / max(k - 1, 1)) for i in range(k)}) if k > 0 else []
    return [naive, *(others[i] for i in idx)]


# --------------------------------------------------------------------------------------------------
# Running user code


def interpreter_shim() -> None:
    """Triton 3.6's interpreter calls int() on a one-element array, which numpy >= 2.4 refuses.

    Mirrors the upstream fix of triton 3.7 (``int(self.handle.data.squeeze())``); needed for any
    ``range(0, n, BLOCK)`` over a runtime ``n`` under TRITON_INTERPRET=1.
    """
    import triton.runtime.interpreter as interp

    original = interp._patch_lang_tensor

    def patched(tensor: Any, scope: Any) -> None:
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.squeeze()))

    interp._patch_lang_tensor = patched


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def check_output(out: Any, expected: Any, atol: float, rtol: float) -> tuple[bool, float | None, str | None]:
    """(within tolerance, max abs error, problem) of ``out`` against ``expected``."""
    import torch

    if not isinstance(out, torch.Tensor) or out.shape != expected.shape:
        return False, None, f"output shape {getattr(out, 'shape', type(out).__name__)} != {tuple(expected.shape)}"
    diff = (out.double() - expected.double()).abs()
    if not torch.isfinite(out).all():
        return False, None, "non-finite values in the output"
    ok = bool((diff <= atol + rtol * expected.double().abs()).all())
    err = float(diff.max())
    return ok, err, None if ok else f"max abs err {err:.3g} over tolerance (atol {atol}, rtol {rtol})"


@dataclass
class Timing:
    median_us: float
    iqr_us: float | None
    samples: int
    method: str
    warnings: list[str] = field(default_factory=list)


# ==================================================================================================
# TIMING HOOK: the one place that measures a configuration (and the loop's final kernel).
#
# It uses the harness's own sampler (kernelopt.harness.timers: CUDA events with the L2 flushed
# outside the timed window, CUDA-graph batches for kernels under 100 us) and its statistics, so the
# sweep and the loop's Stage 4 gate measure the same way. Without that module (an older build) it
# falls back to CUDA events with an L2 flush per sample (GPU) or perf_counter (CPU).
# ==================================================================================================


def measure(fn: Callable[..., Any], inputs: list[Any], device: str, samples: int) -> Timing:
    """Median latency of ``fn(*inputs)`` in microseconds over ``samples`` samples (warm-up done by the caller)."""
    try:
        from kernelopt.harness.model import BenchSettings
        from kernelopt.harness.stats import summarize
        from kernelopt.harness.timers import L2Flusher, make_sampler
    except ImportError:
        return _builtin_measure(fn, inputs, device, samples)
    flusher = L2Flusher(device) if device.startswith("cuda") else None
    sampler = make_sampler(fn, [inputs], device, BenchSettings(), flusher)
    values = [sampler.sample() for _ in range(samples)]
    stats = summarize(values)
    return Timing(stats.median, stats.iqr, stats.n, str(sampler.method), list(sampler.warnings) + stats.warnings)


def _builtin_measure(fn: Callable[..., Any], inputs: list[Any], device: str, samples: int) -> Timing:
    import statistics

    import torch

    values: list[float] = []
    if device.startswith("cuda"):
        flush = torch.empty(2 * 64 * 2**20, dtype=torch.int8, device=device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(samples):
            flush.zero_()
            start.record()
            fn(*inputs)
            end.record()
            end.synchronize()
            values.append(start.elapsed_time(end) * 1000.0)
        method = "cuda_events (builtin)"
    else:
        for _ in range(samples):
            t0 = time.perf_counter()
            fn(*inputs)
            values.append((time.perf_counter() - t0) * 1e6)
        method = "cpu_perf_counter (builtin)"
    q = statistics.quantiles(values, n=4) if len(values) >= 2 else [values[0]] * 3
    return Timing(statistics.median(values), q[2] - q[0], len(values), method)


# ==================================================================================================


def evaluate(
    path: Path, name: str, inputs: list[Any], expected: Any, ref: ModuleType, device: str, samples: int
) -> tuple[str, Timing | None, float | None, str | None]:
    """Load, check and time one kernel file: (status, timing, max abs err, message)."""
    import torch

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    try:
        module = load_module(path, name)
        out = module.run(*inputs)
        sync()
    except Exception as exc:  # a configuration that does not compile or launch is a result of the sweep
        return "error", None, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    ok, err, problem = check_output(out, expected, ref.ATOL, ref.RTOL)
    if not ok:
        return "wrong", None, err, problem
    del out
    for _ in range(2):  # warm-up
        module.run(*inputs)
    sync()
    return "ok", measure(module.run, inputs, device, samples), err, None


def _precompile_worker(job: tuple[str, str, dict[str, Any], list[tuple[str, str]]]) -> list[tuple[str, str | None]]:
    """Compile a batch of variants by running each once (fills the shared Triton cache)."""
    reference_py, device, shape, variants = job
    import torch

    ref = load_module(Path(reference_py), "sweep_reference")
    torch.manual_seed(0)
    inputs = ref.get_inputs(**shape, device=device)
    out: list[tuple[str, str | None]] = []
    for path, name in variants:
        try:
            load_module(Path(path), name).run(*inputs)
            torch.cuda.synchronize()
            out.append((name, None))
        except Exception as exc:  # reported again (and recorded) by the timing pass
            out.append((name, f"{type(exc).__name__}"))
    return out


def precompile(
    reference_py: Path, device: str, shape: dict[str, Any], variants: list[tuple[Path, str]], jobs: int
) -> None:
    """Compile every variant in ``jobs`` processes so the timing pass finds them in the Triton cache."""
    import multiprocessing

    batches = [variants[i::jobs] for i in range(jobs)]
    work = [(str(reference_py), device, shape, [(str(p), n) for p, n in batch]) for batch in batches if batch]
    try:
        with ProcessPoolExecutor(max_workers=len(work), mp_context=multiprocessing.get_context("spawn")) as pool:
            list(pool.map(_precompile_worker, work))
    except BrokenProcessPool as exc:  # a variant killed its compile worker: the timing pass meets it again
        print(f"warning: a compile worker died ({exc}); the rest compile while timing", file=sys.stderr)


# --------------------------------------------------------------------------------------------------
# The loop's side


def loop_result(ws_path: Path, knobs: Sequence[str]) -> LoopResult:
    """Final and best versions, evaluations used and the final knob values of a kernelopt workspace."""
    from kernelopt.errors import KerneloptError
    from kernelopt.report.reader import collect
    from kernelopt.workspace import Workspace

    result = LoopResult(workspace=str(ws_path))
    try:
        data = collect(Workspace(ws_path), measured=None)
    except KerneloptError as exc:
        result.problem = exc.one_line()
        return result
    final, best, base = data.final(), data.best(), data.baseline()
    result.final_version = final.label if final else None
    result.final_latency_us = final.record.performance.latency_us if final else None
    result.best_version = best.label if best else None
    result.best_latency_us = best.record.performance.latency_us if best else None
    result.baseline_latency_us = base.record.performance.latency_us if base else None
    result.versions = len(data.versions) + len(data.unreadable)
    result.failed_attempts = sum(
        1 for v in data.versions for p in v.record.pitfalls_and_fixes if p.error_type.startswith("correctness")
    )
    result.evaluations = result.versions + result.failed_attempts
    found = discover_knobs(ws_path / "kernel.py")
    result.final_config = {k: found.get(k) for k in knobs}
    return result


# --------------------------------------------------------------------------------------------------
# The sweep


def sweep_example(args: argparse.Namespace, example: str, device: str) -> ExampleResult:
    """Sweep one example; its variant files live in a temporary folder removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"sweep_{example}_") as work:
        return _sweep_example(args, example, device, Path(work))


def _sweep_example(args: argparse.Namespace, example: str, device: str, work: Path) -> ExampleResult:
    import torch

    folder = Path(args.examples_dir) / example
    kernel_py, reference_py = folder / "kernel.py", folder / "reference.py"
    from kernelopt.taskcard import TaskCard

    card = TaskCard.load(folder / "README.md")
    space = SPACES[example]
    found = discover_knobs(kernel_py)
    warnings = []
    missing = [k for k in space if k not in found]
    if missing:
        raise SystemExit(f"{example}: knobs {missing} not found in {kernel_py} (found {sorted(found)})")
    extra = sorted(set(found) - set(space))
    if extra:
        warnings.append(f"knobs the tuner can move but the sweep keeps fixed: {extra}")
    naive = {k: int(found[k]) for k in space}

    ref = load_module(reference_py, f"sweep_{example}_reference")
    shape = dict(ref.SHAPES[-1] if args.small else ref.SHAPES[0])
    result = ExampleResult(
        example=example, device=device, shape=shape, knobs=space, naive_config=naive, warnings=warnings
    )
    configs = subsample(enumerate_space(space), naive, args.max_configs)
    if args.max_configs is not None and len(configs) < len(enumerate_space(space)):
        result.warnings.append(f"subsampled: {len(configs)} of {len(enumerate_space(space))} configurations")

    start = time.perf_counter()
    source = kernel_py.read_text(encoding="utf-8")
    variants: list[tuple[int, dict[str, int], Path, str]] = []
    for i, cfg in enumerate(configs):
        problem = resource_problem(cfg, card.gpu, card.dtype)
        if problem:
            result.configs.append(ConfigResult(config=cfg, status="pruned", message=problem))
            result.pruned += 1
            continue
        path = work / f"c{i:05d}.py"
        path.write_text(variant_source(source, cfg), encoding="utf-8")
        variants.append((i, cfg, path, f"sweep_{example}_c{i:05d}"))

    if device.startswith("cuda") and args.jobs > 1 and len(variants) > 1:
        print(f"[{example}] compiling {len(variants)} variants in {args.jobs} processes", flush=True)
        precompile(reference_py, device, shape, [(p, n) for _, _, p, n in variants], args.jobs)

    torch.manual_seed(0)
    inputs = ref.get_inputs(**shape, device=device)
    expected = ref.reference(*inputs)
    for k, (_, cfg, path, name) in enumerate(variants):
        status, timing, err, message = evaluate(path, name, inputs, expected, ref, device, args.samples)
        result.configs.append(
            ConfigResult(
                config=cfg,
                status=status,
                latency_us=timing.median_us if timing else None,
                iqr_us=timing.iqr_us if timing else None,
                samples=timing.samples if timing else 0,
                method=timing.method if timing else None,
                max_abs_err=err,
                message=message,
            )
        )
        if timing:
            result.timer = timing.method
        if (k + 1) % 50 == 0 or k + 1 == len(variants):
            best = result.best()
            shown = f"{best.latency_us:.2f} us {best.config}" if best and best.latency_us else "n/a"
            print(f"[{example}] {k + 1}/{len(variants)} timed, best {shown}", flush=True)

    ws = Path(args.workspace) if args.workspace else Path(args.workspace_root) / f"kernel_opt_{example}"
    if ws.is_dir():
        loop = loop_result(ws, list(space))
        status, timing, _, message = evaluate(
            ws / "kernel.py", f"sweep_{example}_loop_final", inputs, expected, ref, device, args.samples
        )
        loop.final_retimed_status = status if message is None else f"{status}: {message}"
        loop.final_retimed_us = timing.median_us if timing else None
        result.loop = loop
    else:
        result.warnings.append(f"no kernelopt workspace at {ws}: loop columns are n/a")
    result.wall_s = time.perf_counter() - start
    return result


# --------------------------------------------------------------------------------------------------
# Output


def _f(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def table(results: list[ExampleResult]) -> str:
    head = (
        "example",
        "configs timed",
        "pruned",
        "naive (us)",
        "exhaustive best (us)",
        "best config",
        "loop final (us, recorded)",
        "loop final (us, re-timed)",
        "gap %",
        "loop evals",
        "evals ratio",
        "target met",
    )
    rows = []
    for r in results:
        best, naive, loop = r.best(), r.naive(), r.loop
        timed = len(r.timed())
        rows.append(
            (
                r.example,
                str(timed),
                str(r.pruned),
                _f(naive.latency_us if naive else None),
                _f(best.latency_us if best else None),
                " ".join(f"{k}={v}" for k, v in best.config.items()) if best else "n/a",
                _f(loop.final_latency_us if loop else None),
                _f(loop.final_retimed_us if loop else None),
                _f(r.gap_pct(), 1),
                str(loop.evaluations) if loop else "n/a",
                f"1/{timed / loop.evaluations:.1f}" if loop and loop.evaluations else "n/a",
                {True: "yes", False: "no", None: "n/a"}[r.meets_target()],
            )
        )
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("-+-".join("-" * w for w in widths))
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--example", default="all", help=f"one of {', '.join(EXAMPLES)}, or all")
    p.add_argument("--examples-dir", default=str(REPO / "examples"), help="folder holding the examples")
    p.add_argument("--workspace", help="the kernelopt workspace of the example (single example only)")
    p.add_argument("--workspace-root", default="/tmp", help="where kernel_opt_<example> workspaces live")
    p.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda when available, else cpu")
    p.add_argument("--small", action="store_true", help="use the small shape (SHAPES[-1]) instead of the main one")
    p.add_argument("--max-configs", type=int, help="time at most this many configurations (evenly spread)")
    p.add_argument("--samples", type=int, default=10, help="timing samples per configuration")
    p.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1), help="compile processes (GPU)")
    p.add_argument("--json", help="write every configuration's result here")
    args = p.parse_args(argv)
    if args.example != "all" and args.example not in EXAMPLES:
        p.error(f"unknown example {args.example!r}")
    if args.workspace and args.example == "all":
        p.error("--workspace needs a single --example")
    if args.samples < 1 or (args.max_configs is not None and args.max_configs < 1):
        p.error("--samples and --max-configs must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    import torch

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cpu":
        if os.environ.get("TRITON_INTERPRET") != "1":
            print("sweep_compare: CPU needs the Triton interpreter: pass --device cpu", file=sys.stderr)
            return 2
        interpreter_shim()
    examples = list(EXAMPLES) if args.example == "all" else [args.example]
    with tempfile.TemporaryDirectory(prefix="sweep_triton_cache_") as cache:
        if device.startswith("cuda") and "TRITON_CACHE_DIR" not in os.environ:
            os.environ["TRITON_CACHE_DIR"] = cache  # fresh: every variant is compiled by this run
        results = [sweep_example(args, ex, device) for ex in examples]
    print()
    print(table(results))
    for r in results:
        for w in r.warnings:
            print(f"note [{r.example}]: {w}")
        if r.loop and r.loop.problem:
            print(f"note [{r.example}]: workspace unreadable: {r.loop.problem}")
    if args.json:
        doc = {
            "device": device,
            "torch": torch.__version__,
            "gpu": torch.cuda.get_device_name() if device.startswith("cuda") else None,
            "results": [
                {
                    **asdict(r),
                    "best": asdict(b) if (b := r.best()) else None,
                    "gap_pct": r.gap_pct(),
                    "meets_target": r.meets_target(),
                }
                for r in results
            ],
        }
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
