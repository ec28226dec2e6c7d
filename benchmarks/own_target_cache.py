#!/usr/bin/env python3
"""The own-target check's cost with and without the session's Triton cache (leftovers19's l2).

A session on an NVIDIA GPU compiles its pick for the GPU's own target before the write
(``folder.target_checked``, ``target_compile.target_check(asked=False)``: a race, a vector wider than the hints).
Its compile pool and bench workers have compiled that pick for that GPU already, into the session's Triton cache; the
check's compile process did not read it, and compiled the pick (and kernel.py as it is, where a launch is hinted or
spills) again. It is now given that cache (``triton_cache``), and Triton's ``compile`` serves each launch compiled
there from it (the same key: the JIT's launch and the check's compile bind the same signature, constexprs, attributes
and options for the same target).

On this CPU machine nothing compiles in the session (Triton's interpreter), so the session's compiles are stood in
for by one compile of the written kernel and the original into a cache first (what the GPU's JIT writes there). Each
round times the check with a fresh empty cache (before: what the check saw) and with the filled one (after),
alternating; the medians of the wall and of the compile process's CPU seconds, and how many launches each read from
the cache, are printed.

    python benchmarks/own_target_cache.py [--rounds 3] [--case fla_kkt|gemm_nomask]
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from kernelopt.harness.target_compile import compile_for_target, target_check  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--case", choices=sorted(CASES), default="fla_kkt")
    parser.add_argument("--target", default="sm_90")
    args = parser.parse_args()
    original, written, reference = CASES[args.case]()
    timings: dict[str, list[float]] = {"before": [], "after": []}
    cpu: dict[str, list[float]] = {"before": [], "after": []}
    lines: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        filled = work / "session-cache"
        for name, text in (("pick", written), ("original", original)):  # the session's compiles, stood in for
            folder = work / "session" / name
            folder.mkdir(parents=True)
            (folder / "kernel.py").write_text(text)
            (folder / "reference.py").write_text(reference.read_text())
            compile_for_target([folder], args.target, triton_cache=filled)
        for k in range(args.rounds):
            for name in ("before", "after"):
                cache = filled if name == "after" else work / f"empty-{k}"
                started, used = time.monotonic(), _children_cpu_s()
                checked = target_check(
                    written, reference, work / f"{name}-{k}", args.target, original, asked=False, triton_cache=cache
                )
                timings[name].append(time.monotonic() - started)
                cpu[name].append(_children_cpu_s() - used)
                lines[name] = checked.line
    for name, seconds in timings.items():
        print(
            f"{name}: wall median {statistics.median(seconds):.2f} s of {[round(s, 2) for s in seconds]}, the compile "
            f"process's CPU median {statistics.median(cpu[name]):.2f} s of {[round(s, 2) for s in cpu[name]]}: "
            f"{lines[name]}"
        )
    return 0


def _gemm() -> tuple[str, str, Path]:
    """tests/data/tuning/gemm_nomask, the pick BM=64, BN=64: kernel.py as it is, the pick's text, reference.py."""
    folder = REPO / "tests" / "data" / "tuning" / "gemm_nomask"
    original = (folder / "kernel.py").read_text()
    return original, original.replace("BM=16, BN=16", "BM=64, BN=64"), folder / "reference.py"


def _kkt() -> tuple[str, str, Path]:
    """fla's chunk kkt (tests/data/breaker16/fla_kkt) at its K loop's entry B=1,T=70,H=3,K=128 (as
    tests/test_target18_cases.py holds it), its autotune list pinned to BK=128 on 4 warps, 2 stages (a GPU session's
    pick): kernel.py as it is, the pick's text, and reference.py (written beside the others, one entry)."""
    folder = REPO / "tests" / "data" / "breaker16" / "fla_kkt"
    original = (folder / "kernel.py").read_text()
    head = 'configs=[\n        triton.Config({"BK": BK}, num_warps=num_warps, num_stages=num_stages)\n'
    pinned = f"{head}        for BK, num_warps, num_stages in [(128, 4, 2)]\n    ],"
    written, count = re.subn(r"configs=\[\n.*?\n    \],", lambda _: pinned, original, count=1, flags=re.S)
    assert count == 1, "fla_kkt's autotune list moved"
    reference = Path(tempfile.mkdtemp()) / "reference.py"
    shapes = re.compile(r"^SHAPES = .*$", re.M)
    text = (folder / "reference.py").read_text()
    reference.write_text(shapes.sub(lambda _: 'SHAPES = [{"B": 1, "T": 70, "H": 3, "K": 128}]', text, count=1))
    return original, written, reference


CASES = {"gemm_nomask": _gemm, "fla_kkt": _kkt}


def _children_cpu_s() -> float:
    """The CPU seconds (user and system) this process's finished children have used: the compile process's own,
    which a loaded machine's wall time hides."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


if __name__ == "__main__":
    raise SystemExit(main())
