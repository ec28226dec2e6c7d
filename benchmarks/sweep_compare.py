#!/usr/bin/env python3
"""The benchmark suite: exhaustive sweeps of every example's knob space, and the loop compared with them.

Two jobs, one script:

**Sweep** (default). For each example (``examples/<name>``, ``--example all`` for every one in ``SPACES``)
every configuration of its knob space goes through the package's tuning engine: the ``exhaustive``
strategy of one tuning session (:func:`kernelopt.tuning.session.tune`) over
:class:`kernelopt.tuning.kernel_evaluator.KernelEvaluator`, the same execution as ``kernelopt tune`` and the
loop's Stage 3: each configuration written as a variant of ``kernel.py`` (only the knob literals change,
through the tunables' edit), compiled in ``--jobs`` processes into one Triton cache (GPU), checked against
the reference at the main shape and timed in one long-lived bench worker that builds the inputs once. A
candidate that hangs or crashes is a result (its worker starts again). Configurations that the tunables'
resource estimate rejects (:func:`kernelopt.tunables.resource_problems`: shared memory of a pipelined tile,
registers) are recorded as ``pruned`` and not timed, as the tuner would not try them.

Each example's sweep is one JSON file, ``<sweep-dir>/<example>.json``, in the documented sweep file
format (schema 1, :class:`kernelopt.tuning.record.SweepFile`, written by
:func:`kernelopt.tuning.record.write_sweep`). It records the sha256 of the kernel and reference files, the
timer version (:func:`timer_version`), the GPU, torch and Triton versions and the shape; it is written after
every batch of candidates, so a sweep cut by ``--time-budget-s`` or killed resumes where it stopped. A sweep
is re-run only when one of those changed; a finished sweep whose record still matches is reused as it is
(the rule: :func:`reuse_decision`).

**Compare** (``--compare``, or ``--workspace`` for one example). In one process, for each example with
a finished kernelopt workspace (``<workspace-root>/kernel_opt_<name>``), the example's V0 (its
``kernel.py``), the loop's final kernel (the workspace's ``kernel.py``) and the exhaustive best
configuration of the sweep are checked and re-timed together by the engine's bench worker, interleaved
(ABBA rounds), so clock drift hits all three alike. The table:

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

Timing is the engine's (the bench worker with the harness's sampler); this script only chooses what to time.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))

from kernelopt.tuning.bench_worker import BenchPlan  # noqa: E402
from kernelopt.tuning.budget import Budget  # noqa: E402
from kernelopt.tuning.candidate import Config, Outcome, Result  # noqa: E402
from kernelopt.tuning.compile_pool import CompileSettings  # noqa: E402
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator, Refusal, knob_editor  # noqa: E402
from kernelopt.tuning.problem import Problem, literal_shapes  # noqa: E402
from kernelopt.tuning.record import SweepEntry, SweepFile, SweepKey, SweepStatus, read_sweeps, write_sweep  # noqa: E402
from kernelopt.tuning.session import tune  # noqa: E402
from kernelopt.tuning.space import Space, knob_of  # noqa: E402

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
    "bias_gelu_fp32": {  # no loop: num_stages has nothing to pipeline (held at the launch's 1, as the engine does)
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192],
        "num_warps": [1, 2, 4, 8, 16, 32],
    },
    "online_softmax_fp32": {  # chunk widths up to the 8192-column row
        "BLOCK_SIZE": [128, 256, 512, 1024, 2048, 4096, 8192],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
    "rmsnorm_settings_bf16": {  # one block holds the 8192-column row; no loop, so no num_stages
        "BLOCK_SIZE": [8192, 16384, 32768],
        "num_warps": [1, 2, 4, 8, 16, 32],
    },
}
#: Kernels written after the strategy was fixed (benchmarks/heldout/, swept with
#: ``--examples-dir benchmarks/heldout``): judged, never tuned on (issue 32 item 6).
HELDOUT_SPACES: dict[str, dict[str, list[int]]] = {
    "mlp_up_fp16": {  # the tiles of a compute-bound GEMM, the warps and stages the GEMM sweeps cover
        "BLOCK_M": [64, 128, 256],
        "BLOCK_N": [64, 128, 256],
        "BLOCK_K": [32, 64, 128],
        "GROUP_M": [1, 8],
        "num_warps": [4, 8],
        "num_stages": [2, 3, 4, 5],
    },
    "logsumexp_fp32": {  # chunk widths up to the 8192-column row
        "BLOCK": [128, 256, 512, 1024, 2048, 4096, 8192],
        "num_warps": [1, 2, 4, 8, 16, 32],
        "num_stages": [1, 2, 3, 4],
    },
}
EXAMPLES = tuple(SPACES)
SPACES.update(HELDOUT_SPACES)

#: Bump when :func:`run_sweep` or :func:`compare_example` changes how a configuration is checked or timed;
#: part of :func:`timer_version` together with the bench worker's and the harness timer's sources and the
#: default bench plan. 3: the tuning engine's bench worker (issue 22).
MEASURE_VERSION = 3
#: Issue 13's targets.
GAP_TARGET_PCT = 3.0
LARGE_SPACE_CONFIGS = 300
EVALS_FRACTION = 5
#: Candidates per round of the sweep's session at least (else ``--jobs``): compiled together, then timed; the
#: file is saved after each.
SAVE_EVERY = 10

#: The sweep file's words, as the tuning package defines them (one format: docs/sweep-format.md).
Status = SweepStatus
ConfigResult = SweepEntry
#: The engine's outcome as a sweep status (the sweep does not tell a compile error from a launch error).
SWEEP_STATUS: dict[Outcome, SweepStatus] = {
    Outcome.OK: SweepStatus.OK,
    Outcome.WRONG_RESULT: SweepStatus.WRONG,
    Outcome.INVALID: SweepStatus.PRUNED,
}


class Reuse(StrEnum):
    """What to do with an example's sweep file (see :func:`reuse_decision`)."""

    SKIP = "skip"  # finished and matching: reuse as it is
    RESUME = "resume"  # matching but some configurations are missing: time those
    FRESH = "fresh"  # missing, unreadable or made for another kernel, timer or environment


# --------------------------------------------------------------------------------------------------
# Records: the package's sweep file (kernelopt.tuning.record)


def new_sweep(key: SweepKey, space: Mapping[str, list[int]], naive: Mapping[str, int]) -> SweepFile:
    """An empty sweep of ``space`` under ``key``."""
    return SweepFile(
        key=key,
        space={k: list(v) for k, v in space.items()},
        naive_config=dict(naive),
        configs=[],
        complete=False,
        wall_s=0.0,
        sittings=0,
    )


def naive_entry(sweep: SweepFile) -> SweepEntry | None:
    return next((c for c in sweep.configs if c.config == sweep.naive_config), None)


def sweep_json(sweep: SweepFile) -> dict[str, Any]:
    return sweep.model_dump(mode="json", by_alias=True)


def _config_id(config: Mapping[str, Any]) -> str:
    return json.dumps(dict(sorted(config.items())))


def reuse_decision(old: SweepFile | None, key: SweepKey, configs: Sequence[Mapping[str, int]]) -> tuple[Reuse, str]:
    """Whether the sweep file ``old`` can stand for a sweep of ``configs`` under ``key``, and why.

    Reused only when every field of the key matches (kernel and reference sha256, timer version, device,
    GPU, torch, Triton, shape); then it is ``SKIP`` when every configuration wanted is in it, else
    ``RESUME`` (time only the missing ones).
    """
    if old is None:
        return Reuse.FRESH, "no sweep file"
    changed = [name for name, value in key.model_dump().items() if old.key.model_dump().get(name) != value]
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
    from kernelopt.errors import KerneloptError

    try:
        sweeps = read_sweeps(path)
    except KerneloptError as exc:
        return None, f"{path}: unreadable ({exc.one_line()}); sweeping again"
    if len(sweeps) != 1:
        return None, f"{path}: holds {len(sweeps)} sweeps; sweeping again"
    return sweeps[0], None


def write_json(path: Path, doc: Any) -> None:
    """Write ``doc`` as JSON atomically (temporary file, then rename)."""
    from kernelopt.fileio import atomic_write_text

    atomic_write_text(path, json.dumps(doc, indent=1) + "\n")


# --------------------------------------------------------------------------------------------------
# Knobs: the tunables package finds them, checks the fit and writes the variants


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def timer_version() -> str:
    """``m<MEASURE_VERSION>-<digest>``: the digest covers the bench worker's and the harness timer's sources and
    the default bench plan."""
    import importlib.util

    digest = hashlib.sha256()
    for module in ("kernelopt.harness.timers", "kernelopt.tuning.bench_worker"):  # found, not imported (torch)
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        digest.update(Path(spec.origin).read_bytes())
    digest.update(BenchPlan().model_dump_json().encode())
    return f"m{MEASURE_VERSION}-{digest.hexdigest()[:16]}"


def discover_knobs(kernel_py: Path, device: str = "auto") -> dict[str, Any]:
    """Knob name -> current value of the editable tunables of ``kernel_py``; a computed setting's value is
    the one its launch received when the task (``reference.py`` beside the kernel) ran once."""
    from kernelopt.tunables.evaluate import discover_evaluated
    from kernelopt.worker.environment import worker_env

    reference = kernel_py.parent / "reference.py"
    found, _ = discover_evaluated(
        kernel_py,
        reference=reference if reference.is_file() else None,
        device=device,
        env=worker_env(None, device=None if device == "auto" else device),
    )
    return {t.name: t.value for t in found if t.editable}


def resource_problem(config: Mapping[str, int], limits: Any) -> str | None:
    """Why ``config`` cannot fit (the tunables' estimate under ``limits``), or None."""
    from kernelopt.tunables import resource_problems

    return "; ".join(resource_problems(dict(config), limits)) or None


def variant_source(source: str, config: Mapping[str, Any]) -> str:
    """``source`` with the knob literals set to ``config`` (the tunables' libcst edit, as the engine makes it)."""
    made = knob_editor(source)(Config.of(config))
    if isinstance(made, Refusal):
        raise ValueError(made.reason)
    return made


def enumerate_space(space: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
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
# The engine: what runs the candidates


def entry_of(result: Result, method: str) -> SweepEntry:
    """One candidate's result as a sweep entry."""
    samples = sorted(result.samples_us)
    iqr = None
    if len(samples) >= 4:
        q = statistics.quantiles(samples, n=4)
        iqr = q[2] - q[0]
    return SweepEntry(
        config=dict(result.config),
        status=SWEEP_STATUS.get(result.outcome, SweepStatus.ERROR),
        latency_us=result.latency_us if result.outcome is Outcome.OK else None,
        iqr_us=iqr if result.outcome is Outcome.OK else None,
        samples=len(samples) if result.outcome is Outcome.OK else 0,
        method=method if result.outcome is Outcome.OK else None,
        message=_why_not_timed_in_full(result),
    )


def _why_not_timed_in_full(result: Result) -> str | None:
    """A failed configuration's outcome and reason; a timed one's reason only when its timing was cut far slower than
    the best so far (fewer samples than asked, its latency a lower bound: the tuning engine's ``cut_slow``)."""
    if result.outcome is not Outcome.OK:
        return f"{result.outcome.value}: {result.reason}"
    return result.reason if result.cut_slow else None


def evaluator_for(
    ctx: Context, device: str, args: argparse.Namespace, session_dir: Path, apply: Any
) -> KernelEvaluator:
    """The engine's evaluator of ``ctx``'s problem at its shape: compile pool on a GPU, one bench worker."""
    problem = Problem.from_folder(ctx.folder, device=device).model_copy(update={"shape": ctx.shape})
    rounds = max(1, getattr(args, "compare_rounds", 10))
    settings = EvaluatorSettings(
        plan=BenchPlan(warmup_calls=2, repetitions=args.samples, retime_rounds=rounds),
        compile=CompileSettings(workers=args.jobs),
    )
    return KernelEvaluator(problem, ctx.source, apply, session_dir=session_dir, settings=settings)


def sweep_space(space: Mapping[str, Sequence[int]], naive: Mapping[str, int]) -> Space:
    """The example's space for the session (its knobs as listed; fit pruning is done before, recorded)."""
    return Space(tuple(knob_of(k, list(v), naive[k]) for k, v in space.items()))


def measure(
    ctx: Context,
    device: str,
    args: argparse.Namespace,
    todo: Sequence[dict[str, int]],
    work: Path,
    on_batch: Callable[[Sequence[Result]], None],
) -> bool:
    """Evaluate ``todo`` in order: one tuning session, exhaustive strategy, seeded with ``todo`` (so it runs
    exactly them, the naive configuration first); ``on_batch`` gets each round's results. True when the
    time budget cut it."""
    space = sweep_space(SPACES[ctx.example], ctx.naive)
    extra = 0 if ctx.naive in todo else 1  # a session evaluates the current (naive) configuration first
    budget = Budget(len(todo) + extra, time.monotonic, wall_s=args.time_budget_s or float("inf"))
    with evaluator_for(ctx, device, args, work / "session", knob_editor(ctx.source)) as evaluator:
        result = tune(
            space,
            evaluator,
            budget=budget,
            seeds=[Config.of(c) for c in todo],
            strategy="exhaustive",
            on_progress=lambda p: on_batch(p.batch),
            batch_size=max(SAVE_EVERY, args.jobs),  # one round compiles in every compile worker at once
            retime_top=0,
        )
    return result.stop.value == "wall_time"


# --------------------------------------------------------------------------------------------------
# The sweep


@dataclass
class Context:
    """An example ready to run: its files, task card limits, shape and knobs."""

    example: str
    folder: Path
    shape: dict[str, Any]
    limits: Any
    source: str
    naive: dict[str, int]
    warnings: list[str]


def environment(device: str) -> tuple[str | None, str, str]:
    """(GPU name, torch version, Triton version), read without importing torch or touching the GPU."""
    gpu = None
    if device.startswith("cuda"):
        from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus

        try:
            gpus = nvidia_gpus()
            gpu = gpus[0].name if gpus else None
        except NvmlUnavailable:
            gpu = None
    return gpu, metadata.version("torch"), metadata.version("triton")


def prepare(args: argparse.Namespace, example: str, device: str) -> Context:
    from kernelopt.taskcard import TaskCard
    from kernelopt.tunables import ResourceLimits

    folder = Path(args.examples_dir) / example
    kernel_py = folder / "kernel.py"
    card = TaskCard.load(folder / "README.md")
    space = SPACES[example]
    found = discover_knobs(kernel_py, device)
    missing = [k for k in space if k not in found]
    if missing:
        raise SystemExit(f"{example}: knobs {missing} not found in {kernel_py} (found {sorted(found)})")
    warnings = []
    extra = sorted(set(found) - set(space))
    if extra:
        warnings.append(f"knobs the tuner can move but the sweep keeps fixed: {extra}")
    shapes = literal_shapes(folder / "reference.py")
    if not shapes:
        raise SystemExit(f"{example}: reference.py has no literal SHAPES list")
    return Context(
        example=example,
        folder=folder,
        shape=dict(shapes[-1] if args.small else shapes[0]),
        limits=ResourceLimits.for_gpu(card.gpu, card.dtype),
        source=kernel_py.read_text(encoding="utf-8"),
        naive=naive_config(example, space, found),
        warnings=warnings,
    )


def naive_config(example: str, space: Mapping[str, Sequence[int]], found: Mapping[str, Any]) -> dict[str, int]:
    """The kernel's own configuration (its V0) as a configuration of the sweep's space.

    Raises:
        SystemExit: a knob whose value neither the literals nor a run of the task told.
    """
    unknown = [k for k in space if not isinstance(found.get(k), int)]
    if unknown:
        raise SystemExit(f"{example}: the value of {unknown} is unknown (computed, and the task did not tell it)")
    outside = [f"{k}={found[k]}" for k in space if found[k] not in space[k]]
    if outside:
        raise SystemExit(f"{example}: the kernel's own {', '.join(outside)} is not in the sweep's space")
    return {k: int(found[k]) for k in space}


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


def _start(
    args: argparse.Namespace, ctx: Context, device: str, path: Path, log: Callable[[str], None]
) -> tuple[SweepFile, list[dict[str, int]], Reuse]:
    """The sweep file to continue (reused, resumed or fresh) and the configurations wanted."""
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
        return old, configs, decision
    sweep = old if decision == Reuse.RESUME and old is not None else new_sweep(key, space, ctx.naive)
    sweep.space = {k: list(v) for k, v in space.items()}
    sweep.naive_config = dict(ctx.naive)
    sweep.sittings += 1
    sweep.warnings = list(ctx.warnings)
    if len(configs) < len(enumerate_space(space)):
        sweep.warnings.append(f"subsampled: {len(configs)} of {len(enumerate_space(space))} configurations")
    wanted = {_config_id(c) for c in configs}
    sweep.configs = [c for c in sweep.configs if _config_id(c.config) in wanted]
    return sweep, configs, decision


def run_sweep(args: argparse.Namespace, ctx: Context, device: str, path: Path, log: Callable[[str], None]) -> SweepFile:
    """Sweep ``ctx``'s example into ``path``, reusing or resuming what the file already holds."""
    sweep, configs, decision = _start(args, ctx, device, path, log)
    if decision == Reuse.SKIP:
        return sweep
    have = {_config_id(c.config) for c in sweep.configs}
    todo: list[dict[str, int]] = []
    for cfg in (c for c in configs if _config_id(c) not in have):
        problem = resource_problem(cfg, ctx.limits)
        if problem:
            sweep.configs.append(SweepEntry(config=cfg, status=SweepStatus.PRUNED, message=problem))
        else:
            todo.append(cfg)
    wall_before, start = sweep.wall_s, time.monotonic()
    method = "cuda_events" if device.startswith("cuda") else "perf_counter"

    def save(batch: Sequence[Result] = ()) -> None:
        known = {_config_id(c.config) for c in sweep.configs}
        sweep.configs += [entry_of(r, method) for r in batch if _config_id(r.config) not in known]
        sweep.complete = {_config_id(c) for c in configs} <= {_config_id(r.config) for r in sweep.configs}
        sweep.wall_s = wall_before + time.monotonic() - start
        if args.sweep_dir:
            write_sweep(path, sweep)
        timed = sum(1 for c in sweep.configs if c.status is not SweepStatus.PRUNED)
        best = sweep.best()
        shown = f"{best.latency_us:.2f} us {best.config}" if best and best.latency_us else "n/a"
        if batch:
            log(f"[{ctx.example}] {timed} timed, best {shown}")

    if todo:
        with tempfile.TemporaryDirectory(prefix=f"sweep_{ctx.example}_") as work:
            cut = measure(ctx, device, args, todo, Path(work), save)
        if cut:
            done = {_config_id(r.config) for r in sweep.configs}
            left = sum(1 for c in todo if _config_id(c) not in done)
            sweep.warnings.append(f"time budget of {args.time_budget_s:.0f} s spent: {left} configurations left")
            log(f"[{ctx.example}] time budget spent, {left} configurations left (resume with the same command)")
    save()
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

    A record with a non-empty ``candidates`` list counts its entries that were not pruned nor served from a
    tuning session's record (an earlier version's session measured them); one without
    (or with the empty list every record written since the field exists carries when Stage 3 ran no
    search) counts its failed implementation attempts (``correctness_*`` entries of
    ``pitfalls_and_fixes``) instead.
    """
    candidates = failed = 0
    for rec in records:
        listed = rec.get("candidates")
        if isinstance(listed, list) and listed:
            candidates += sum(
                1
                for c in listed
                if not (isinstance(c, Mapping) and (str(c.get("status", "")).lower() == "pruned" or c.get("served")))
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
    if not (ws_path / ".git").exists():
        return tuned_folder_result(ws_path, knobs, wall_s)
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


def tuned_folder_result(folder: Path, knobs: Sequence[str], wall_s: float | None) -> LoopResult:
    """A folder that ``kernelopt tune`` edited in place (no git, no records): its kernel.py is the final
    kernel; the evaluations are those of ``tune.json`` beside it (``kernelopt tune --json``'s output), when
    there is one."""
    result = LoopResult(workspace=str(folder), final_version="tuned")
    summary = folder / "tune.json"
    if summary.is_file():
        try:
            doc = json.loads(summary.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            doc = {}
        result.candidates_timed = int(doc.get("evaluations") or 0) + int(doc.get("served") or 0)
        result.evaluations = result.candidates_timed
    if wall_s is not None:
        result.wall_s, result.wall_source = wall_s, "tune command"
    found = discover_knobs(folder / "kernel.py")
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
    best_config: dict[str, Any] | None
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
        # "within 3 % of the exhaustive best" is judged only against a complete sweep: a cut one's best is the best
        # of the configurations it timed (issue 32 item 8)
        judged = gap is not None and self.sweep_complete
        out: dict[str, bool | None] = {"within_3pct": gap <= GAP_TARGET_PCT if judged else None}  # type: ignore[operator]
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
    sources = {"v0": ctx.source}
    if row.loop is not None:
        sources["final"] = (ws / "kernel.py").read_text(encoding="utf-8")
    if best is not None:
        sources["best"] = variant_source(ctx.source, best.config)
    for label, r in retime_sources(ctx, device, args, sources).items():
        status = SWEEP_STATUS.get(r.outcome, SweepStatus.ERROR).value
        if label == "final":
            row.final_status = status if r.outcome is Outcome.OK else f"{status}: {r.reason}"
        if r.outcome is not Outcome.OK or r.latency_us is None:
            row.notes.append(f"{label} not timed: {r.outcome.value}: {r.reason}")
            continue
        setattr(row, f"{label}_us", r.latency_us)
    return row


def retime_sources(ctx: Context, device: str, args: argparse.Namespace, sources: dict[str, str]) -> dict[str, Result]:
    """Check each source once in the engine's bench worker, then re-time those that pass together,
    interleaved (ABBA rounds, ``--compare-rounds``); label -> its result."""
    configs = [Config.of({"which": label}) for label in sources]

    def apply(config: Config) -> str:
        return sources[str(config["which"])]

    with (
        tempfile.TemporaryDirectory(prefix=f"compare_{ctx.example}_") as work,
        evaluator_for(ctx, device, args, Path(work), apply) as evaluator,
    ):
        checked = evaluator.evaluate(configs)
        ok = [c for c, r in zip(configs, checked, strict=True) if r.outcome is Outcome.OK]
        retimed = evaluator.retime(ok) if ok else []
    out = {str(c["which"]): r for c, r in zip(configs, checked, strict=True)}
    out.update({str(r.config["which"]): r for r in retimed})
    return out


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
    cut = "" if row.sweep_complete else f" (best of {row.sweep_configs} timed)"  # never called the exhaustive best
    return (
        row.example,
        _f(row.v0_us),
        _f(row.final_us),
        _f(row.best_us) + (cut if row.best_us is not None else ""),
        "n/a" if row.ratio is None else f"{row.ratio:.3f}x{cut}",
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
        best, naive = s.best(), naive_entry(s)
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
                    "best": b.model_dump(mode="json") if (b := s.best()) else None,
                    "naive": n.model_dump(mode="json") if (n := naive_entry(s)) else None,
                    "key": s.key.model_dump(mode="json"),
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
    from kernelopt.hardware.gpu import NvmlUnavailable, nvidia_gpus

    try:
        has_gpu = bool(nvidia_gpus())
    except NvmlUnavailable:
        has_gpu = False
    device = args.device or ("cuda" if has_gpu else "cpu")  # on the CPU the engine's workers interpret Triton
    sweep_dir = Path(args.sweep_dir) if args.sweep_dir else None
    if sweep_dir:
        sweep_dir.mkdir(parents=True, exist_ok=True)
    walls = read_loop_walls(Path(args.loop_walls) if args.loop_walls else None)
    gpu, torch_version, triton_version = environment(device)
    run = SuiteRun(
        device, gpu, torch_version, triton_version, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), {}, []
    )
    with tempfile.TemporaryDirectory(prefix="sweep_") as scratch:
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
