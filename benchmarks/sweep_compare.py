#!/usr/bin/env python3
"""The benchmark suite: exhaustive sweeps of every example's knob space, and the loop compared with them.

Two jobs, one script:

**Sweep** (default). For each example (``examples/<name>``, ``--example all`` for every one in ``SPACES``)
every configuration of its knob space is written as a variant of ``kernel.py`` (only the knob literals
change, through :func:`kernelopt.tunables.apply_source`), checked against the reference at the main
shape and timed. Configurations that the tunables' resource estimate rejects
(:func:`kernelopt.tunables.resource_problems`: shared memory of a pipelined tile, registers) are
recorded as ``pruned`` and not timed, as the rule-based tuner would not try them. On a GPU the
variants are compiled first in ``--jobs`` processes (a shared Triton cache), bounded by the time budget.

Each example's sweep is one JSON file, ``<sweep-dir>/<example>.json``. It records the sha256 of the
kernel and reference files, the timer version (:func:`timer_version`), the GPU, torch and Triton
versions and the shape; it is written every few configurations, so a sweep cut by ``--time-budget-s``
or killed resumes where it stopped. A sweep is re-run only when one of those changed; a finished sweep
whose record still matches is reused as it is (the rule: :func:`reuse_decision`).

**Compare** (``--compare``, or ``--workspace`` for one example). In one process, for each example with
a finished kernelopt workspace (``<workspace-root>/kernel_opt_<name>``), the example's V0 (its
``kernel.py``), the loop's final kernel (the workspace's ``kernel.py``) and the exhaustive best
configuration of the sweep are checked and re-timed together, interleaved (``0 1 2 2 1 0`` rounds), so
clock drift hits all three alike. The table:

    kernel | V0 | loop final | exhaustive best | final/best | gap % | loop evaluations | loop wall |
    sweep configs | sweep wall | targets

- Loop evaluations: versions (``memory/v*.json`` files) plus candidates timed (entries of each
  record's ``candidates`` list that were not pruned, when the list is not empty) or, for records
  without candidates, failed implementation attempts (``correctness_*`` entries of ``pitfalls_and_fixes``).
- Loop wall: from ``--loop-walls FILE`` (lines ``example seconds``, written by scripts/gpu_suite.sh
  around ``kernelopt optimize``), else the span of the workspace's git commits.
- Sweep configs: configurations timed (pruned ones not counted); sweep wall: compile and timing time
  over every sitting of the sweep.
- Targets (issue 13): final within 3 % of the exhaustive best (re-timed side by side); on spaces of
  300 or more timed configurations also loop wall < sweep wall and loop evaluations <= 1/5 of them.

Usage (GPU machine; see scripts/gpu_suite.sh)::

    python benchmarks/sweep_compare.py --example all --sweep-dir out/sweeps --time-budget-s 240
    python benchmarks/sweep_compare.py --example all --sweep-dir out/sweeps --compare \
        --workspace-root /tmp/kernelopt-ws --loop-walls out/loop_walls.txt --json out/compare.json \
        --markdown out/compare.md

Smoke test without a GPU (Triton interpreter, small shape, a few configurations)::

    python benchmarks/sweep_compare.py --example gelu_fp32 --device cpu --small --max-configs 4

Timing is done in one place (marked TIMING HOOK below) with the harness's own sampler.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import itertools
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))

# The knob space per example: knob -> values, each legal for kernelopt's tunables (checked by the tests).
# Block sizes are powers of two over the range that makes sense for the shape, num_warps Triton's set,
# num_stages 1..4. They were chosen from the shapes, not from measurements.
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
    "skinny_gemm": {  # N = 128: BLOCK_N up to the whole width
        "BLOCK_M": [16, 32, 64, 128, 256],
        "BLOCK_N": [32, 64, 128],
        "BLOCK_K": [32, 64, 128, 256],
        "num_warps": [2, 4, 8],
        "num_stages": [1, 2, 3, 4],
    },
    "linear_bf16": {
        "BLOCK_M": [32, 64, 128, 256],
        "BLOCK_N": [32, 64, 128, 256],
        "BLOCK_K": [32, 64, 128, 256],
        "GROUP_M": [1, 8],
        "num_warps": [4, 8],
        "num_stages": [1, 2, 3, 4],
    },
    "rmsnorm_bf16": {  # chunk widths up to the 2048-column row
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
    "gelu_fp32": {
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768],
        "num_warps": [1, 2, 4, 8, 16, 32],
    },
    "sumsq": {
        "BLOCK_SIZE": [256, 512, 1024, 2048, 4096, 8192, 16384, 32768],
        "num_warps": [1, 2, 4, 8, 16, 32],
    },
    "transpose_fp32": {
        "BLOCK_M": [16, 32, 64, 128, 256],
        "BLOCK_N": [16, 32, 64, 128, 256],
        "num_warps": [1, 2, 4, 8, 16],
    },
    # The realistic-size kernels of issue 22 (512 MiB - 1 GiB per tensor).
    "bias_gelu_fp32": {
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
    "online_softmax_fp32": {  # chunk widths up to the 8192-column row
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
    "rmsnorm_settings_bf16": {  # one block holds the 8192-column row
        "BLOCK_SIZE": [8192, 16384, 32768],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
}
EXAMPLES = tuple(SPACES)

#: Bump when :func:`measure` or :func:`evaluate` changes how a configuration is checked or timed; part of
#: :func:`timer_version` together with the harness timer's source and default settings.
MEASURE_VERSION = 2
SWEEP_SCHEMA = 1
#: Issue 13's targets.
GAP_TARGET_PCT = 3.0
LARGE_SPACE_CONFIGS = 300
EVALS_FRACTION = 5
#: Save the sweep file after this many timed configurations (and at the end).
SAVE_EVERY = 10
#: The result of a configuration during whose check or timing the sweep process died (killed by the
#: outer timeout, or crashed): a resumed sweep records it instead of meeting it again.
DIED = (
    "the sweep process was killed or died while checking or timing this configuration (a hang or a crash); not retried"
)


class Status(StrEnum):
    """What happened to one configuration."""

    OK = "ok"
    WRONG = "wrong"  # ran, result outside tolerance
    ERROR = "error"  # did not compile or launch
    PRUNED = "pruned"  # the tunables' resource estimate rejects it: not timed


class Reuse(StrEnum):
    """What to do with an example's sweep file (see :func:`reuse_decision`)."""

    SKIP = "skip"  # finished and matching: reuse as it is
    RESUME = "resume"  # matching but some configurations are missing: time those
    FRESH = "fresh"  # missing, unreadable or made for another kernel, timer or environment


# --------------------------------------------------------------------------------------------------
# Records


@dataclass
class ConfigResult:
    """One configuration of the sweep (``latency_us`` and ``samples`` only for ``ok``)."""

    config: dict[str, int]
    status: Status
    latency_us: float | None = None
    iqr_us: float | None = None
    samples: int = 0
    method: str | None = None
    max_abs_err: float | None = None
    message: str | None = None


@dataclass
class SweepKey:
    """What a sweep's measurements depend on: a sweep file is reused only when all of it matches."""

    example: str
    kernel_sha256: str
    reference_sha256: str
    timer_version: str
    device: str
    gpu: str | None
    torch: str
    triton: str
    shape: dict[str, Any]


@dataclass
class SweepFile:
    """``<sweep-dir>/<example>.json``: the key, the space and every configuration measured so far."""

    key: SweepKey
    space: dict[str, list[int]]
    naive_config: dict[str, int]
    configs: list[ConfigResult] = field(default_factory=list)
    complete: bool = False
    wall_s: float = 0.0  # over every sitting
    sittings: int = 0
    warnings: list[str] = field(default_factory=list)
    schema: int = SWEEP_SCHEMA

    def timed(self) -> list[ConfigResult]:
        return [c for c in self.configs if c.status != Status.PRUNED]

    def best(self) -> ConfigResult | None:
        ok = [c for c in self.configs if c.status == Status.OK and c.latency_us is not None]
        return min(ok, key=lambda c: c.latency_us or math.inf) if ok else None

    def naive(self) -> ConfigResult | None:
        return next((c for c in self.configs if c.config == self.naive_config), None)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> SweepFile:
        """Raises KeyError / TypeError / ValueError on a document of another shape."""
        if doc.get("schema") != SWEEP_SCHEMA:
            raise ValueError(f"sweep file schema {doc.get('schema')!r} != {SWEEP_SCHEMA}")
        configs = [ConfigResult(**{**c, "status": Status(c["status"])}) for c in doc["configs"]]
        return cls(
            key=SweepKey(**doc["key"]),
            space={k: list(v) for k, v in doc["space"].items()},
            naive_config=dict(doc["naive_config"]),
            configs=configs,
            complete=bool(doc["complete"]),
            wall_s=float(doc["wall_s"]),
            sittings=int(doc["sittings"]),
            warnings=list(doc.get("warnings", [])),
        )


def _config_id(config: Mapping[str, int]) -> str:
    return json.dumps(dict(sorted(config.items())))


def reuse_decision(old: SweepFile | None, key: SweepKey, configs: Sequence[Mapping[str, int]]) -> tuple[Reuse, str]:
    """Whether the sweep file ``old`` can stand for a sweep of ``configs`` under ``key``, and why.

    Reused only when every field of the key matches (kernel and reference sha256, timer version, device,
    GPU, torch, Triton, shape); then it is ``SKIP`` when every configuration wanted is in it, else
    ``RESUME`` (time only the missing ones).
    """
    if old is None:
        return Reuse.FRESH, "no sweep file"
    changed = [name for name, value in asdict(key).items() if asdict(old.key).get(name) != value]
    if changed:
        return Reuse.FRESH, f"changed since the sweep: {', '.join(changed)}"
    have = {_config_id(c.config) for c in old.configs}
    missing = sum(1 for c in configs if _config_id(c) not in have)
    if missing:
        return Reuse.RESUME, f"{missing} of {len(configs)} configurations not measured yet"
    return Reuse.SKIP, f"kernel, reference and timer unchanged ({len(configs)} configurations measured)"


def read_sweep(path: Path) -> tuple[SweepFile | None, str | None]:
    """The sweep file at ``path`` (``None`` when absent), and why it could not be read."""
    if not path.is_file():
        return None, None
    try:
        return SweepFile.from_json(json.loads(path.read_text(encoding="utf-8"))), None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"{path}: unreadable ({type(exc).__name__}: {exc}); sweeping again"


def write_json(path: Path, doc: Any) -> None:
    """Write ``doc`` as JSON atomically (temporary file, then rename)."""
    from kernelopt.memory.store import atomic_write_text

    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")


# --------------------------------------------------------------------------------------------------
# Knobs: the tunables package finds them, checks the fit and writes the variants


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def timer_version() -> str:
    """``m<MEASURE_VERSION>-<digest>``: the digest covers the harness timer's source and its default settings."""
    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings

    digest = hashlib.sha256(Path(timers.__file__).read_bytes())
    digest.update(BenchSettings().model_dump_json().encode())
    return f"m{MEASURE_VERSION}-{digest.hexdigest()[:16]}"


def discover_knobs(kernel_py: Path) -> dict[str, Any]:
    """Knob name -> current value of the editable tunables of ``kernel_py``."""
    from kernelopt.tunables import discover

    return {t.name: t.value for t in discover(kernel_py) if t.editable}


def resource_problem(config: Mapping[str, int], limits: Any) -> str | None:
    """Why ``config`` cannot fit (the tunables' estimate under ``limits``), or None."""
    from kernelopt.tunables import resource_problems

    return "; ".join(resource_problems(dict(config), limits)) or None


def variant_source(source: str, config: Mapping[str, int]) -> str:
    """``source`` with the knob literals set to ``config`` (the tunables' libcst edit)."""
    from kernelopt.tunables import apply_source, discover_source

    current = {t.name: t.value for t in discover_source(source) if t.editable}
    moved = {k: v for k, v in config.items() if current.get(k) != v}
    return apply_source(source, moved).new_source if moved else source


def enumerate_space(space: Mapping[str, Sequence[int]]) -> list[dict[str, int]]:
    keys = list(space)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*(space[k] for k in keys))]


def assign_lanes(examples: Sequence[str], lanes: int, *, by_space: bool = True) -> list[list[str]]:
    """Spread ``examples`` over ``lanes`` GPUs so that the lanes finish about together.

    Heaviest first onto the least loaded lane (the LPT rule). The weight of an example is the size of
    its space (``by_space``, for sweeps) or 1 (for loops, which all run to the same wall-time limit).
    """
    loads = [0] * max(1, lanes)
    out: list[list[str]] = [[] for _ in loads]
    weight = {e: len(enumerate_space(SPACES[e])) if by_space else 1 for e in examples}
    for name in sorted(examples, key=lambda e: -weight[e]):
        i = loads.index(min(loads))
        out[i].append(name)
        loads[i] += weight[name]
    return out


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
    """Two fixes to Triton 3.6's interpreter (TRITON_INTERPRET=1) that the examples need on the CPU.

    - ``__index__`` calls ``int()`` on a one-element array, which numpy >= 2.4 refuses, so any
      ``range(0, n, BLOCK)`` over a runtime ``n`` fails; mirrors the upstream fix of Triton 3.7
      (``int(self.handle.data.squeeze())``).
    - ``tl.dot`` multiplies bf16 operands as their raw 16-bit patterns (the interpreter stores bf16 as
      ``uint16`` and converts only fp8 operands before ``np.matmul``), so a bf16 GEMM returns garbage;
      bf16 operands are widened to fp32 first, exactly (bf16 is the top half of an fp32).
    """
    import numpy as np
    import triton.language as tl
    import triton.runtime.interpreter as interp

    if getattr(interp, "_kernelopt_shim", False):
        return
    original = interp._patch_lang_tensor

    def patched(tensor: Any, scope: Any) -> None:
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.squeeze()))

    interp._patch_lang_tensor = patched
    create_dot = interp.InterpreterBuilder.create_dot

    def widen(h: Any) -> Any:
        if h.dtype.scalar != tl.bfloat16:
            return h
        data = interp._convert_float(h.data, tl.bfloat16, tl.float32, None).view(np.float32)
        return interp.TensorHandle(data, tl.float32)

    def dot(self: Any, a: Any, b: Any, d: Any, input_precision: Any, max_num_imprecise_acc: Any) -> Any:
        return create_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    interp.InterpreterBuilder.create_dot = dot
    interp._kernelopt_shim = True


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
    if out.dtype != expected.dtype:
        return False, None, f"output dtype {out.dtype} != {expected.dtype}"
    if not torch.isfinite(out).all():
        return False, None, "non-finite values in the output"
    diff = (out.double() - expected.double()).abs()
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
# TIMING HOOK: the one place that measures kernels.
#
# The harness's own sampler (kernelopt.harness.timers: CUDA events with the L2 flushed outside the
# timed window, CUDA-graph batches for kernels under 20 us, a spin kernel ahead of each window) and its
# statistics, so the sweep and the loop's Stage 4 gate measure the same way. :func:`measure` times one
# callable; :func:`measure_together` several, interleaved in ``0 1 2 2 1 0`` rounds.
# ==================================================================================================


def measure(fn: Callable[..., Any], inputs: list[Any], device: str, samples: int) -> Timing:
    """Median latency of ``fn(*inputs)`` in microseconds over ``samples`` samples (warm-up done by the caller)."""
    return measure_together([fn], inputs, device, samples)[0]


def measure_together(fns: Sequence[Callable[..., Any]], inputs: list[Any], device: str, rounds: int) -> list[Timing]:
    """Latency of each of ``fns`` on the same inputs, sampled in interleaved rounds (2 samples each per round
    when there are several, ``rounds`` samples for one)."""
    from kernelopt.harness.model import BenchSettings
    from kernelopt.harness.stats import summarize
    from kernelopt.harness.timers import L2Flusher, make_sampler

    flusher = L2Flusher(device) if device.startswith("cuda") else None
    samplers = [make_sampler(fn, [inputs], device, BenchSettings(), flusher) for fn in fns]
    n = len(samplers)
    order = list(range(n)) * rounds if n == 1 else [*range(n), *reversed(range(n))] * rounds
    values: list[list[float]] = [[] for _ in samplers]
    for i in order:
        values[i].append(samplers[i].sample())
    out = []
    for sampler, vals in zip(samplers, values, strict=True):
        stats = summarize(vals)
        out.append(Timing(stats.median, stats.iqr, stats.n, str(sampler.method), [*sampler.warnings, *stats.warnings]))
    return out


# ==================================================================================================


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def _problem(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200] if text else ''}"


def load_checked(
    path: Path, name: str, inputs: list[Any], expected: Any, ref: ModuleType, device: str
) -> tuple[Status, ModuleType | None, float | None, str | None]:
    """Load ``path``, run it once and check it: (status, module when ok, max abs err, problem)."""
    try:
        module = load_module(path, name)
        out = module.run(*inputs)
        _sync(device)
    except Exception as exc:  # a configuration that does not compile or launch is a result of the sweep
        return Status.ERROR, None, None, _problem(exc)
    ok, err, problem = check_output(out, expected, ref.ATOL, ref.RTOL)
    if not ok:
        return Status.WRONG, None, err, problem
    for _ in range(2):  # warm-up
        module.run(*inputs)
    _sync(device)
    return Status.OK, module, err, None


def evaluate(
    path: Path, name: str, inputs: list[Any], expected: Any, ref: ModuleType, device: str, samples: int
) -> tuple[Status, Timing | None, float | None, str | None]:
    """Load, check and time one kernel file: (status, timing, max abs err, message)."""
    status, module, err, problem = load_checked(path, name, inputs, expected, ref, device)
    if module is None:
        return status, None, err, problem
    try:
        return status, measure(module.run, inputs, device, samples), err, None
    except Exception as exc:  # a launch that fails only under the timer (graph capture, ...) is a result
        return Status.ERROR, None, err, f"while timing: {_problem(exc)}"


def write_variant(source: str, config: Mapping[str, int], path: Path) -> None:
    """Write the variant of ``source`` with ``config`` to ``path`` atomically (a killed writer leaves nothing)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(variant_source(source, config), encoding="utf-8")
    os.replace(tmp, path)


_WORKER_INPUTS: dict[tuple[str, str], list[Any]] = {}


def _precompile_worker(job: tuple[str, str, dict[str, Any], str, dict[str, int], str, str]) -> str:
    """Write one variant and compile it by running it once (fills the shared Triton cache); returns its name.

    Writing happens here too because the libcst edit costs about 0.1-0.3 s a variant: in ``--jobs``
    processes it is no longer the sweep's bottleneck. The inputs are made once per process.
    """
    reference_py, device, shape, source, config, path, name = job
    import torch

    write_variant(source, config, Path(path))
    key = (reference_py, json.dumps(shape, sort_keys=True))
    if key not in _WORKER_INPUTS:
        ref = load_module(Path(reference_py), "sweep_reference")
        torch.manual_seed(0)
        _WORKER_INPUTS.clear()
        _WORKER_INPUTS[key] = ref.get_inputs(**shape, device=device)
    try:
        load_module(Path(path), name).run(*_WORKER_INPUTS[key])
        torch.cuda.synchronize()
    except Exception:  # reported again (and recorded) by the timing pass
        pass
    return name


def precompile(
    reference_py: Path,
    device: str,
    shape: dict[str, Any],
    source: str,
    variants: Sequence[tuple[dict[str, int], Path, str]],
    jobs: int,
    timeout_s: float,
) -> str | None:
    """Write and compile ``variants`` in ``jobs`` processes within ``timeout_s``; a note when not all finished."""
    import multiprocessing

    work = [(str(reference_py), device, shape, source, cfg, str(p), n) for cfg, p, n in variants]
    done = 0
    deadline = time.monotonic() + timeout_s
    pool = multiprocessing.get_context("spawn").Pool(processes=min(jobs, len(work)))
    try:
        results = pool.imap_unordered(_precompile_worker, work)
        while done < len(work):
            left = deadline - time.monotonic()
            if left <= 0:
                raise multiprocessing.TimeoutError
            results.next(timeout=left)
            done += 1
    except multiprocessing.TimeoutError:
        return f"compiled {done} of {len(work)} variants in {timeout_s:.0f} s; the rest compile while timing"
    finally:
        pool.terminate()
        pool.join()
    return None


# --------------------------------------------------------------------------------------------------
# The sweep


@dataclass
class Context:
    """An example ready to run: its files, task card limits, reference module, shape and inputs."""

    example: str
    folder: Path
    ref: ModuleType
    shape: dict[str, Any]
    inputs: list[Any]
    expected: Any
    limits: Any
    source: str
    naive: dict[str, int]
    warnings: list[str]


def environment(device: str) -> tuple[str | None, str, str]:
    import torch
    import triton

    gpu = torch.cuda.get_device_name() if device.startswith("cuda") else None
    return gpu, str(torch.__version__), str(triton.__version__)


def prepare(args: argparse.Namespace, example: str, device: str) -> Context:
    import torch

    from kernelopt.taskcard import TaskCard
    from kernelopt.tunables import ResourceLimits

    folder = Path(args.examples_dir) / example
    kernel_py = folder / "kernel.py"
    card = TaskCard.load(folder / "README.md")
    space = SPACES[example]
    found = discover_knobs(kernel_py)
    missing = [k for k in space if k not in found]
    if missing:
        raise SystemExit(f"{example}: knobs {missing} not found in {kernel_py} (found {sorted(found)})")
    warnings = []
    extra = sorted(set(found) - set(space))
    if extra:
        warnings.append(f"knobs the tuner can move but the sweep keeps fixed: {extra}")
    ref = load_module(folder / "reference.py", f"sweep_{example}_reference")
    shape = dict(ref.SHAPES[-1] if args.small else ref.SHAPES[0])
    torch.manual_seed(0)
    inputs = ref.get_inputs(**shape, device=device)
    return Context(
        example=example,
        folder=folder,
        ref=ref,
        shape=shape,
        inputs=inputs,
        expected=ref.reference(*inputs),
        limits=ResourceLimits.for_gpu(card.gpu, card.dtype),
        source=kernel_py.read_text(encoding="utf-8"),
        naive={k: int(found[k]) for k in space},
        warnings=warnings,
    )


def sweep_key(ctx: Context, device: str) -> SweepKey:
    gpu, torch_version, triton_version = environment(device)
    return SweepKey(
        example=ctx.example,
        kernel_sha256=sha256_file(ctx.folder / "kernel.py"),
        reference_sha256=sha256_file(ctx.folder / "reference.py"),
        timer_version=timer_version(),
        device=device,
        gpu=gpu,
        torch=torch_version,
        triton=triton_version,
        shape=ctx.shape,
    )


def run_sweep(args: argparse.Namespace, ctx: Context, device: str, path: Path, log: Callable[[str], None]) -> SweepFile:
    """Sweep ``ctx``'s example into ``path``, reusing or resuming what the file already holds."""
    space = SPACES[ctx.example]
    configs = subsample(enumerate_space(space), ctx.naive, args.max_configs)
    configs.sort(key=lambda c: c != ctx.naive)  # the naive start first: a cut sweep still has V0's latency
    key = sweep_key(ctx, device)
    old, unreadable = read_sweep(path)
    if unreadable:
        log(unreadable)
    decision, why = (Reuse.FRESH, "--force") if args.force else reuse_decision(old, key, configs)
    log(f"[{ctx.example}] sweep {decision.value}: {why}")
    if decision == Reuse.SKIP and old is not None:
        return old
    sweep = old if decision == Reuse.RESUME and old is not None else SweepFile(key, space, ctx.naive)
    sweep.space, sweep.naive_config, sweep.sittings = space, ctx.naive, sweep.sittings + 1
    sweep.warnings = list(ctx.warnings)
    if len(configs) < len(enumerate_space(space)):
        sweep.warnings.append(f"subsampled: {len(configs)} of {len(enumerate_space(space))} configurations")
    wanted = {_config_id(c) for c in configs}
    sweep.configs = [c for c in sweep.configs if _config_id(c.config) in wanted]
    have = {_config_id(c.config) for c in sweep.configs}
    inflight = path.with_name(f"{ctx.example}.inflight.json")  # the configuration being checked or timed
    if decision == Reuse.RESUME and inflight.is_file():
        try:
            died = json.loads(inflight.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            died = None
        if isinstance(died, dict) and _config_id(died) in wanted and _config_id(died) not in have:
            sweep.configs.append(ConfigResult(config=died, status=Status.ERROR, message=DIED))
            have.add(_config_id(died))
            log(f"[{ctx.example}] {died}: {DIED}")
    inflight.unlink(missing_ok=True)
    todo = [c for c in configs if _config_id(c) not in have]

    start = time.monotonic()
    budget = args.time_budget_s

    def elapsed() -> float:
        return time.monotonic() - start

    def save() -> None:
        sweep.complete = not [c for c in configs if _config_id(c) not in {_config_id(r.config) for r in sweep.configs}]
        sweep.wall_s = wall_before + elapsed()
        if args.sweep_dir:
            write_json(path, sweep.to_json())

    wall_before = sweep.wall_s
    with tempfile.TemporaryDirectory(prefix=f"sweep_{ctx.example}_") as work:
        variants: list[tuple[dict[str, int], Path, str]] = []
        for cfg in todo:
            problem = resource_problem(cfg, ctx.limits)
            if problem:
                sweep.configs.append(ConfigResult(config=cfg, status=Status.PRUNED, message=problem))
                continue
            name = f"sweep_{ctx.example}_c{len(variants):05d}"
            variants.append((cfg, Path(work) / f"{name}.py", name))
        if device.startswith("cuda") and args.jobs > 1 and len(variants) > 1:
            log(f"[{ctx.example}] writing and compiling {len(variants)} variants in {args.jobs} processes")
            note = precompile(
                ctx.folder / "reference.py",
                device,
                ctx.shape,
                ctx.source,
                variants,
                args.jobs,
                max(1.0, 0.6 * budget - elapsed()) if budget else 3600.0,
            )
            if note:
                sweep.warnings.append(note)
                log(f"[{ctx.example}] {note}")
        for k, (cfg, file, name) in enumerate(variants):
            if budget and elapsed() > budget:
                left = len(variants) - k
                sweep.warnings.append(f"time budget of {budget:.0f} s spent: {left} configurations left for later")
                log(f"[{ctx.example}] time budget spent, {left} configurations left (resume with the same command)")
                break
            if not file.exists():  # not written by a compile process (CPU, or the compile time ran out)
                write_variant(ctx.source, cfg, file)
            if args.sweep_dir:
                write_json(inflight, cfg)
            status, timing, err, message = evaluate(file, name, ctx.inputs, ctx.expected, ctx.ref, device, args.samples)
            sweep.configs.append(
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
            if (k + 1) % SAVE_EVERY == 0:
                save()
            if (k + 1) % 50 == 0 or k + 1 == len(variants):
                best = sweep.best()
                shown = f"{best.latency_us:.2f} us {best.config}" if best and best.latency_us else "n/a"
                log(f"[{ctx.example}] {k + 1}/{len(variants)} timed, best {shown}")
    save()
    inflight.unlink(missing_ok=True)
    return sweep


# --------------------------------------------------------------------------------------------------
# The loop's side and the comparison


@dataclass
class LoopResult:
    """What a kernelopt workspace says about the loop's run."""

    workspace: str
    final_version: str | None = None
    final_latency_us: float | None = None  # as recorded by the loop's gate
    baseline_latency_us: float | None = None
    versions: int = 0
    candidates_timed: int = 0
    failed_attempts: int = 0
    evaluations: int = 0
    wall_s: float | None = None
    wall_source: str | None = None
    final_config: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None


def count_evaluations(records: Sequence[Mapping[str, Any]]) -> tuple[int, int, int]:
    """(versions, candidates timed, failed attempts) of raw ``memory/v*.json`` documents.

    A record with a non-empty ``candidates`` list counts its entries that were not pruned; one without
    (or with the empty list every record written since the field exists carries when Stage 3 ran no
    search) counts its failed implementation attempts (``correctness_*`` entries of
    ``pitfalls_and_fixes``) instead.
    """
    candidates = failed = 0
    for rec in records:
        listed = rec.get("candidates")
        if isinstance(listed, list) and listed:
            candidates += sum(
                1 for c in listed if not (isinstance(c, Mapping) and str(c.get("status", "")).lower() == "pruned")
            )
        else:
            failed += sum(
                1 for p in rec.get("pitfalls_and_fixes") or [] if str(p.get("error_type", "")).startswith("correctness")
            )
    return len(records), candidates, failed


def read_loop_walls(path: Path | None) -> dict[str, float]:
    """``example seconds`` per line (``#`` comments allowed); a later line for the same example wins."""
    walls: dict[str, float] = {}
    if path is None or not path.is_file():
        return walls
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("#", 1)[0].split()
        if len(parts) >= 2:
            try:
                walls[parts[0]] = float(parts[1])
            except ValueError:
                continue
    return walls


def loop_result(ws_path: Path, knobs: Sequence[str], wall_s: float | None) -> LoopResult:
    """Final version, evaluations, wall time and final knob values of a kernelopt workspace."""
    from kernelopt.errors import KerneloptError
    from kernelopt.report.reader import collect
    from kernelopt.workspace import Workspace

    result = LoopResult(workspace=str(ws_path))
    ws = Workspace(ws_path)
    records = []
    for f in sorted(ws.memory_dir.glob("v*.json")):
        try:
            records.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            records.append({})  # still a version the loop spent
    result.versions, result.candidates_timed, result.failed_attempts = count_evaluations(records)
    result.evaluations = result.versions + result.candidates_timed + result.failed_attempts
    if wall_s is not None:
        result.wall_s, result.wall_source = wall_s, "optimize command"
    else:
        stamps = [c.committed_date for c in ws.repo.iter_commits()]
        if stamps:
            result.wall_s, result.wall_source = float(max(stamps) - min(stamps)), "git commit span"
    try:
        data = collect(ws, measured=None)
    except KerneloptError as exc:
        result.problem = exc.one_line()
    else:
        final, base = data.final(), data.baseline()
        result.final_version = final.label if final else None
        result.final_latency_us = final.record.performance.latency_us if final else None
        result.baseline_latency_us = base.record.performance.latency_us if base else None
    found = discover_knobs(ws.kernel_py)
    result.final_config = {k: found.get(k) for k in knobs}
    return result


@dataclass
class CompareRow:
    """One example of the comparison; latencies re-timed together in this process."""

    example: str
    space_configs: int
    sweep_configs: int  # timed (not pruned)
    sweep_wall_s: float | None
    sweep_complete: bool
    best_config: dict[str, int] | None
    loop: LoopResult | None
    v0_us: float | None = None
    final_us: float | None = None
    best_us: float | None = None
    final_status: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        return self.final_us / self.best_us if self.final_us and self.best_us else None

    @property
    def gap_pct(self) -> float | None:
        r = self.ratio
        return None if r is None else 100.0 * (r - 1.0)

    @property
    def large_space(self) -> bool:
        return self.sweep_configs >= LARGE_SPACE_CONFIGS

    def targets(self) -> dict[str, bool | None]:
        """Each target of issue 13: met, missed, or ``None`` when it cannot be judged."""
        gap = self.gap_pct
        out: dict[str, bool | None] = {"within_3pct": None if gap is None else gap <= GAP_TARGET_PCT}
        if self.large_space:
            loop = self.loop
            out["wall_below_sweep"] = (
                None
                if loop is None or loop.wall_s is None or self.sweep_wall_s is None
                else loop.wall_s < self.sweep_wall_s
            )
            out["evals_fifth"] = None if loop is None else loop.evaluations * EVALS_FRACTION <= self.sweep_configs
        return out

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio, "gap_pct": self.gap_pct, "targets": self.targets()}


def compare_example(
    args: argparse.Namespace, ctx: Context, sweep: SweepFile | None, device: str, loop_wall_s: float | None
) -> CompareRow:
    """Re-time V0, the loop's final kernel and the exhaustive best together (one process, interleaved)."""
    ws = Path(args.workspace) if args.workspace else Path(args.workspace_root) / f"kernel_opt_{ctx.example}"
    best = sweep.best() if sweep else None
    row = CompareRow(
        example=ctx.example,
        space_configs=len(enumerate_space(SPACES[ctx.example])),
        sweep_configs=len(sweep.timed()) if sweep else 0,
        sweep_wall_s=sweep.wall_s if sweep else None,
        sweep_complete=bool(sweep and sweep.complete),
        best_config=best.config if best else None,
        loop=loop_result(ws, list(SPACES[ctx.example]), loop_wall_s) if ws.is_dir() else None,
    )
    if sweep is None:
        row.notes.append("no sweep: exhaustive columns are n/a")
    else:
        if not sweep.complete:
            row.notes.append("sweep incomplete: the best is the best of the configurations measured so far")
        decision, why = reuse_decision(sweep, sweep_key(ctx, device), [])
        if decision == Reuse.FRESH:
            row.notes.append(f"the sweep file was made for another setting ({why}): its best may not be this one's")
    if row.loop is None:
        row.notes.append(f"no kernelopt workspace at {ws}: loop columns are n/a")
    elif row.loop.problem:
        row.notes.append(f"workspace unreadable: {row.loop.problem}")
    if row.loop is not None or best is not None:
        shown = [
            f"{label} {' '.join(f'{k}={v}' for k, v in cfg.items())}"
            for label, cfg in (("loop final", row.loop.final_config if row.loop else None), ("best", row.best_config))
            if cfg
        ]
        row.notes.append("; ".join(shown))
    with tempfile.TemporaryDirectory(prefix=f"compare_{ctx.example}_") as work:
        files: list[tuple[str, Path]] = [("v0", ctx.folder / "kernel.py")]
        if row.loop is not None:
            files.append(("final", ws / "kernel.py"))
        if best is not None:
            path = Path(work) / "best.py"
            path.write_text(variant_source(ctx.source, best.config), encoding="utf-8")
            files.append(("best", path))
        fns, labels = [], []
        for label, path in files:
            status, module, _, problem = load_checked(
                path, f"compare_{ctx.example}_{label}", ctx.inputs, ctx.expected, ctx.ref, device
            )
            if label == "final":
                row.final_status = status.value if problem is None else f"{status.value}: {problem}"
            if module is None:
                row.notes.append(f"{label} not timed: {status.value}: {problem}")
                continue
            fns.append(module.run)
            labels.append(label)
        if fns:
            timings = measure_together(fns, ctx.inputs, device, args.compare_rounds)
            for label, t in zip(labels, timings, strict=True):
                setattr(row, f"{label}_us", t.median_us)
                row.notes += [f"{label}: {w}" for w in t.warnings]
    return row


# --------------------------------------------------------------------------------------------------
# Output


def _f(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _wall(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _targets_cell(row: CompareRow) -> str:
    names = {"within_3pct": "3 %", "wall_below_sweep": "wall", "evals_fifth": "1/5"}
    marks = {True: "met", False: "MISSED", None: "n/a"}
    return ", ".join(f"{names[k]} {marks[v]}" for k, v in row.targets().items())


COMPARE_HEAD = (
    "kernel",
    "V0 (us)",
    "loop final (us)",
    "exhaustive best (us)",
    "final/best",
    "gap %",
    "loop evaluations",
    "loop wall",
    "sweep configs",
    "sweep wall",
    "targets",
)


def compare_cells(row: CompareRow) -> tuple[str, ...]:
    loop = row.loop
    if loop is None:
        evals = "n/a"
    else:
        extra = f" + {loop.candidates_timed} candidates" if loop.candidates_timed else ""
        extra += f" + {loop.failed_attempts} failed" if loop.failed_attempts else ""
        evals = f"{loop.evaluations} ({loop.versions} versions{extra})"
    configs = f"{row.sweep_configs}" + ("" if row.sweep_complete else " (incomplete)")
    return (
        row.example,
        _f(row.v0_us),
        _f(row.final_us),
        _f(row.best_us),
        "n/a" if row.ratio is None else f"{row.ratio:.3f}x",
        _f(row.gap_pct, 1),
        evals,
        _wall(loop.wall_s if loop else None),
        configs,
        _wall(row.sweep_wall_s),
        _targets_cell(row),
    )


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def compare_table(rows: Sequence[CompareRow]) -> str:
    return markdown_table(COMPARE_HEAD, [compare_cells(r) for r in rows])


SWEEP_HEAD = ("kernel", "configs", "timed", "pruned", "wrong/error", "naive (us)", "best (us)", "best config", "wall")


def sweep_table(sweeps: Mapping[str, SweepFile]) -> str:
    rows = []
    for name, s in sweeps.items():
        best, naive = s.best(), s.naive()
        bad = sum(1 for c in s.configs if c.status in (Status.WRONG, Status.ERROR))
        rows.append(
            (
                name,
                str(len(enumerate_space(s.space))),
                f"{len(s.timed())}" + ("" if s.complete else " (incomplete)"),
                str(sum(1 for c in s.configs if c.status == Status.PRUNED)),
                str(bad),
                _f(naive.latency_us if naive else None),
                _f(best.latency_us if best else None),
                " ".join(f"{k}={v}" for k, v in best.config.items()) if best else "n/a",
                _wall(s.wall_s),
            )
        )
    return markdown_table(SWEEP_HEAD, rows)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--example", default="all", help=f"one of {', '.join(EXAMPLES)}, a comma list, or all")
    p.add_argument("--examples-dir", default=str(REPO / "examples"), help="folder holding the examples")
    p.add_argument("--sweep-dir", help="keep each example's sweep as <dir>/<example>.json and reuse it")
    p.add_argument("--force", action="store_true", help="sweep again even when the sweep file matches")
    p.add_argument("--no-sweep", action="store_true", help="only read sweep files (compare with what is there)")
    p.add_argument("--compare", action="store_true", help="re-time V0, the loop's final kernel and the best")
    p.add_argument("--workspace", help="the kernelopt workspace of the example (single example; implies --compare)")
    p.add_argument("--workspace-root", default="/tmp", help="where kernel_opt_<example> workspaces live")
    p.add_argument("--loop-walls", help="file of 'example seconds' lines: the loop's wall time per example")
    p.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda when available, else cpu")
    p.add_argument("--small", action="store_true", help="use the small shape (SHAPES[-1]) instead of the main one")
    p.add_argument("--max-configs", type=int, help="time at most this many configurations (evenly spread)")
    p.add_argument("--samples", type=int, default=10, help="timing samples per configuration")
    p.add_argument("--compare-rounds", type=int, default=20, help="interleaved rounds of the comparison")
    p.add_argument("--time-budget-s", type=float, help="per example: stop timing after this many seconds")
    p.add_argument("--jobs", type=int, default=min(16, os.cpu_count() or 1), help="compile processes (GPU)")
    p.add_argument("--json", help="write the sweeps' summary and the comparison here")
    p.add_argument("--markdown", help="write the tables here")
    args = p.parse_args(argv)
    names = list(EXAMPLES) if args.example == "all" else args.example.split(",")
    unknown = [n for n in names if n not in SPACES]
    if unknown:
        p.error(f"unknown example(s) {unknown}; known: {', '.join(EXAMPLES)}")
    args.examples = names
    if args.workspace:
        if len(names) != 1:
            p.error("--workspace needs a single --example")
        args.compare = True
    if args.samples < 1 or args.compare_rounds < 1 or (args.max_configs is not None and args.max_configs < 1):
        p.error("--samples, --compare-rounds and --max-configs must be >= 1")
    if args.time_budget_s is not None and args.time_budget_s <= 0:
        p.error("--time-budget-s must be > 0")
    return args


def _log(message: str) -> None:
    print(message, flush=True)


@dataclass
class SuiteRun:
    """Everything one invocation produced (for ``--json``)."""

    device: str
    gpu: str | None
    torch: str
    triton: str
    date_utc: str
    sweeps: dict[str, SweepFile]
    compare: list[CompareRow]

    def to_json(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "gpu": self.gpu,
            "torch": self.torch,
            "triton": self.triton,
            "date_utc": self.date_utc,
            "sweeps": {
                k: {
                    "space_configs": len(enumerate_space(s.space)),
                    "timed": len(s.timed()),
                    "complete": s.complete,
                    "wall_s": s.wall_s,
                    "sittings": s.sittings,
                    "best": asdict(b) if (b := s.best()) else None,
                    "naive": asdict(n) if (n := s.naive()) else None,
                    "key": asdict(s.key),
                    "warnings": s.warnings,
                }
                for k, s in self.sweeps.items()
            },
            "compare": [r.to_json() for r in self.compare],
        }


def _examples(args: argparse.Namespace, device: str) -> Iterator[tuple[str, Context | None]]:
    """Each example, prepared (inputs made, reference computed) only when something will run."""
    for name in args.examples:
        yield name, prepare(args, name, device) if args.compare or not args.no_sweep else None


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
    sweep_dir = Path(args.sweep_dir) if args.sweep_dir else None
    if sweep_dir:
        sweep_dir.mkdir(parents=True, exist_ok=True)
    walls = read_loop_walls(Path(args.loop_walls) if args.loop_walls else None)
    gpu, torch_version, triton_version = environment(device)
    run = SuiteRun(
        device, gpu, torch_version, triton_version, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), {}, []
    )
    with tempfile.TemporaryDirectory(prefix="sweep_") as scratch:
        if device.startswith("cuda") and "TRITON_CACHE_DIR" not in os.environ:
            os.environ["TRITON_CACHE_DIR"] = str(Path(scratch) / "triton")  # fresh: every variant compiles here
        for name, ctx in _examples(args, device):
            path = (sweep_dir or Path(scratch)) / f"{name}.json"
            sweep: SweepFile | None
            if ctx is None or args.no_sweep:
                sweep, problem = read_sweep(path)
                if problem:
                    _log(problem)
            else:
                sweep = run_sweep(args, ctx, device, path, _log)
            if sweep is not None:
                run.sweeps[name] = sweep
            if args.compare and ctx is not None:
                row = compare_example(args, ctx, sweep, device, walls.get(name))
                run.compare.append(row)
                _log(f"[{name}] compare: " + " | ".join(compare_cells(row)[1:]))
    text = f"Sweeps ({run.date_utc}, {run.gpu or run.device}):\n\n{sweep_table(run.sweeps)}\n"
    if args.compare:
        text += f"\nComparison, re-timed together:\n\n{compare_table(run.compare)}\n"
        notes = [f"- {r.example}: {n}" for r in run.compare for n in r.notes]
        if notes:
            text += "\nNotes:\n" + "\n".join(notes) + "\n"
    print()
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")
    if args.json:
        write_json(Path(args.json), run.to_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
