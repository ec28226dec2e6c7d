#!/usr/bin/env python3
"""How repeatable is the harness's timing, and what is the smallest speedup the gate can detect?

For a small (~10 us), medium (~100 us) and large (~1 ms) memory-bound Triton kernel, plus a ~5 us row
softmax (the case where ``triton.testing.do_bench`` gave a 23 % coefficient of variation between
repeated medians on the H200, issue 3):

- the coefficient of variation (stdev / mean) of the median over ``--repeats`` repeated timings with the
  harness's method (CUDA-graph replays with rotating inputs below 100 us, else per-launch CUDA events;
  L2 flushed before each sample), and of ``triton.testing.do_bench`` medians for comparison;
- ``--repeats`` A/A comparisons (the same kernel as "previous" and "current", ABBA): how many say "no
  significant change", the median half-width of the speedup's 95 % interval (sampling noise within one
  sitting) and the largest deviation of an A/A speedup from 1 (systematic effects between sittings,
  which the interval does not see). The gate calls an improvement only when the whole interval clears
  1 + 2 %, so the smallest speedup it detects reliably is about ``1.02 + half-width + max deviation``.

Usage: ``python benchmarks/timing_noise.py [--repeats 8] [--seconds 0.5] [--json OUT]`` (needs a CUDA GPU).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch
import triton
import triton.language as tl

from kernelopt.harness.model import BenchSettings
from kernelopt.harness.stats import Verdict, abba_ratios, estimate_speedup, summarize
from kernelopt.harness.timers import L2Flusher, rotation_count, time_versions


@triton.jit
def _add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    return out


@triton.jit
def _softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


def softmax(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    rows, cols = x.shape
    _softmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
    return out


def _cases() -> list[tuple[str, Any, Any]]:
    def add_inputs(n: int) -> Any:
        return lambda: [torch.randn(n, device="cuda"), torch.randn(n, device="cuda")]

    return [
        ("softmax 4096x256 (~5 us)", softmax, lambda: [torch.randn(4096, 256, device="cuda")]),
        ("add 4M fp32 (~10 us)", add, add_inputs(1 << 22)),
        ("add 32M fp32 (~100 us)", add, add_inputs(1 << 25)),
        ("add 256M fp32 (~1 ms)", add, add_inputs(1 << 28)),
    ]


def _cv_pct(values: list[float]) -> float:
    return 100.0 * statistics.stdev(values) / statistics.mean(values)


def measure(name: str, fn: Any, make: Any, repeats: int, seconds: float, min_gain: float) -> dict[str, Any]:
    settings = BenchSettings(seconds_per_case=seconds)
    first = make()
    set_bytes = sum(t.numel() * t.element_size() for t in first)
    sets = [first] + [make() for _ in range(rotation_count(set_bytes, "cuda", settings) - 1)]
    flusher = L2Flusher("cuda")
    medians, method = [], ""
    for _ in range(repeats):
        samplers, (samples,) = time_versions([fn], sets, "cuda", settings, flusher=flusher)
        medians.append(summarize(samples).median)
        method = f"{samplers[0].method.value} x{samplers[0].launches}, {samplers[0].input_sets} input sets"
    do_bench = [
        float(triton.testing.do_bench(lambda: fn(*first), return_mode="median")) * 1000.0 for _ in range(repeats)
    ]
    half_widths, ratios, no_change = [], [], 0
    for _ in range(repeats):
        _, (sa, sb) = time_versions([fn, fn], sets, "cuda", settings, flusher=flusher)
        est = estimate_speedup(abba_ratios(sa, sb), min_gain)
        no_change += est.verdict is Verdict.NO_CHANGE
        ratios.append(est.speedup)
        half_widths.append(100.0 * max(est.speedup - est.ci_low, est.ci_high - est.speedup))
    hw = statistics.median(half_widths)
    dev = 100.0 * max(abs(r - 1.0) for r in ratios)
    return {
        "kernel": name,
        "median_us": statistics.median(medians),
        "method": method,
        "harness_cv_pct": _cv_pct(medians),
        "harness_medians_us": medians,
        "do_bench_median_us": statistics.median(do_bench),
        "do_bench_cv_pct": _cv_pct(do_bench),
        "do_bench_medians_us": do_bench,
        "aa_no_change": f"{no_change}/{repeats}",
        "aa_speedups": ratios,
        "aa_ci_half_width_pct": hw,
        "aa_max_deviation_pct": dev,
        "smallest_detectable_speedup": 1.0 + (min_gain + hw + dev) / 100.0,
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=8)
    p.add_argument("--seconds", type=float, default=0.5, help="measurement time per timing, seconds")
    p.add_argument("--min-gain-pct", type=float, default=2.0)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        sys.stderr.write("timing_noise.py needs a CUDA GPU\n")
        return 3
    head = (
        f"{datetime.now(UTC):%Y-%m-%d} {torch.cuda.get_device_name()} torch {torch.__version__} "
        f"triton {triton.__version__}; {args.repeats} repeats, {args.seconds} s per timing"
    )
    print(head)
    rows = [measure(*case, args.repeats, args.seconds, args.min_gain_pct) for case in _cases()]
    print(
        f"{'kernel':26s} {'median us':>10s} {'harness CV':>11s} {'do_bench CV':>12s} {'A/A no chg':>11s} "
        f"{'A/A CI +-':>10s} {'A/A max dev':>12s} {'detectable':>11s}  method"
    )
    for r in rows:
        print(
            f"{r['kernel']:26s} {r['median_us']:10.2f} {r['harness_cv_pct']:10.2f}% {r['do_bench_cv_pct']:11.2f}% "
            f"{r['aa_no_change']:>11s} {r['aa_ci_half_width_pct']:9.2f}% {r['aa_max_deviation_pct']:11.2f}% "
            f"{r['smallest_detectable_speedup']:10.3f}x  "
            f"{r['method']}"
        )
    if args.json:
        args.json.write_text(json.dumps({"header": head, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
