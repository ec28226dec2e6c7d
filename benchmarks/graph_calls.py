#!/usr/bin/env python3
"""Does the per-call time a tuning session reports for a short kernel depend on how many calls its CUDA graph holds?

A tuning session's bench worker caps the outputs a CUDA graph keeps at the problem's own bytes (inputs + outputs),
split among the callables timed together. For a problem of a few kilobytes that cap admits one or two calls a graph,
so the graph's own start is part of every per-call figure, and a re-time of six candidates (a sixth of the cap each)
holds fewer calls than the first round did. On an H100 (2026-12-06) xformers' RMS norm at 2 x 3 x 100 read 2.46 us
in the first round and 4.06 us in the re-time, every sample of each within 0.1 us.

This times one Triton kernel (xformers' RMS norm of ``tests/data/breaker11/xformers_rms``) at small and large rows,
with the gate's sampler (:func:`kernelopt.harness.timers.make_sampler`, L2 flushed) at several graph-output caps:
the first round's, the re-time's, and the gate's own (1 GB), beside ``triton.testing.do_bench``. One process, one
table: calls per sample and the median microseconds per call.

Usage: ``python benchmarks/graph_calls.py [--samples 40]`` (needs a CUDA GPU).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path

import torch

from kernelopt.harness.model import BenchSettings
from kernelopt.harness.timers import L2Flusher, make_sampler

KERNEL = Path(__file__).resolve().parent.parent / "tests" / "data" / "breaker11" / "xformers_rms" / "kernel.py"


def _run():
    spec = importlib.util.spec_from_file_location("xformers_rms_kernel", KERNEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=40)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("needs a CUDA GPU", file=sys.stderr)
        return 2
    import triton.testing

    run = _run()
    flusher = L2Flusher("cuda")
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'rows x D':>12} {'graph cap':>22} {'calls/sample':>12} {'us per call':>12}")
    for rows, d in ((6, 100), (3, 777), (5, 9000), (8192, 4096)):
        x = torch.randn(rows, d, device="cuda")
        w = torch.randn(d, device="cuda")
        for _ in range(3):
            run(x, w)
        torch.cuda.synchronize()
        total = 2 * x.numel() * 4 + w.numel() * 4  # inputs + output, as the session's MemoryNeed counts them
        caps = (("re-time of 6", total // 6), ("first round", total), ("64 MiB", 64 * 2**20), ("gate (1 GB)", None))
        for name, cap in caps:
            settings = BenchSettings(l2_flush=True, rotate_inputs=False, max_graph_output_bytes=cap)
            sampler = make_sampler(run, [[x, w]], "cuda", settings, flusher)
            us = statistics.median(sampler.sample() for _ in range(args.samples))
            label = f"{name} ({cap if cap is not None else 2**30} B)"
            print(f"{rows:>5} x {d:<5} {label:>22} {sampler.launches:>12} {us:>12.3f}")
        bench = triton.testing.do_bench(lambda x=x, w=w: run(x, w), return_mode="median")
        print(f"{rows:>5} x {d:<5} {'triton do_bench':>22} {'-':>12} {bench * 1000:>12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
