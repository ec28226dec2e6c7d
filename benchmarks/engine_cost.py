#!/usr/bin/env python3
"""The wall cost of one candidate: the tuning engine's KernelEvaluator against Stage 3's harness/candidates.py.

Both evaluate the same N distinct candidate sources of a problem (default: tests/data/tuning/add, a 16 Ki fp32
add on the CPU; the sources differ by a comment, so nothing is served twice). The engine starts one bench
worker (inputs built once) and sends it one request per candidate; the old sweep starts workers that each
build the inputs again. Printed: the start-up, the batch wall and the wall per candidate of each.

    PYTHONPATH=src python benchmarks/engine_cost.py [--n 20] [--device cpu] [--folder tests/data/tuning/add]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if (REPO / "src" / "kernelopt").is_dir():
    sys.path.insert(0, str(REPO / "src"))

from kernelopt.harness.candidates import Candidate, SweepSettings, evaluate  # noqa: E402
from kernelopt.tuning.candidate import Config, Outcome  # noqa: E402
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator  # noqa: E402
from kernelopt.tuning.problem import Problem  # noqa: E402

TORCH_KERNEL = "def run(x, y):\n    return x + y  # candidate {k}\n"


def engine(folder: Path, device: str, n: int, scratch: Path) -> tuple[float, float, int]:
    problem = Problem.from_folder(folder, device=device)
    sources = [TORCH_KERNEL.format(k=k) for k in range(n)]
    with KernelEvaluator(
        problem,
        sources[0],
        lambda c: sources[int(c["k"])],
        session_dir=scratch / "engine",
        settings=EvaluatorSettings(),
    ) as ev:
        t0 = time.monotonic()
        ev.start()
        start_s = time.monotonic() - t0
        t1 = time.monotonic()
        results = ev.evaluate([Config.of({"k": k}) for k in range(n)])
        batch_s = time.monotonic() - t1
    return start_s, batch_s, sum(r.outcome is Outcome.OK for r in results)


def old_sweep(folder: Path, device: str, n: int, scratch: Path) -> tuple[float, int]:
    candidates = [Candidate(label=f"c{k}", source=TORCH_KERNEL.format(k=k)) for k in range(n)]
    t0 = time.monotonic()
    done = evaluate(
        candidates,
        reference_py=folder / "reference.py",
        sweep_dir=scratch / "old",
        settings=SweepSettings(device=device),
    )
    return time.monotonic() - t0, sum(e.status.value == "ok" for e in done)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=20)
    p.add_argument("--device", default="cpu")
    p.add_argument("--folder", type=Path, default=REPO / "tests" / "data" / "tuning" / "add")
    p.add_argument("--skip-old", action="store_true", help="time only the engine")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        start_s, batch_s, ok = engine(args.folder, args.device, args.n, scratch)
        print(
            f"engine: start {start_s:.2f} s, {args.n} candidates in {batch_s:.2f} s = "
            f"{batch_s / args.n:.3f} s per candidate ({ok} ok)"
        )
        if not args.skip_old:
            wall_s, ok_old = old_sweep(args.folder, args.device, args.n, scratch)
            print(
                f"harness/candidates.py: {args.n} candidates in {wall_s:.2f} s = "
                f"{wall_s / args.n:.3f} s per candidate ({ok_old} ok)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
