#!/usr/bin/env python3
"""Seconds a tuning session spends on candidates that fail one ``SHAPES`` entry, against one that passes.

Builds the session's evaluator across shapes (:class:`kernelopt.tuning.shape_evaluator.ShapesEvaluator`, real
bench workers) on ``tests/data/shape_failures/assert_block`` (one block per row, ``assert n_cols <= BLOCK`` at the
launch; SHAPES of 40 and 300 columns, Triton's interpreter on the CPU) and evaluates, in turn, a batch of blocks
that trip the assert at 300 columns only (64, 128, 256) and a batch that passes both (512, 1024), ``--rounds``
times each after one warm-up. Prints each batch's wall seconds and what each failing candidate's result says it
cost (``check_s``, ``bench_s``: null when it was never timed).

    PYTHONPATH=src python benchmarks/shape_failures.py [--rounds 3] [--device cpu|cuda] [--json FILE]

On ``--device cuda`` the primary shape's evaluator compiles in its compile pool, as a session does.

Run it with another checkout's ``src`` on ``PYTHONPATH`` to compare (before 2026-12-05 a failing candidate was
checked and timed at 40 columns before it failed at 300).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from kernelopt.tuning.candidate import Config
from kernelopt.tuning.kernel_evaluator import knob_editor
from kernelopt.tuning.problem import Problem, literal_shapes
from kernelopt.tuning.shape_evaluator import ShapesEvaluator
from kernelopt.tuning.shapes import session_shapes

FOLDER = Path(__file__).resolve().parents[1] / "tests" / "data" / "shape_failures" / "assert_block"
FAILING = (64, 128, 256)
PASSING = (512, 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "assert_block"
        shutil.copytree(FOLDER, folder)
        problem = Problem.from_folder(folder, device=args.device)
        shapes = session_shapes(problem, literal_shapes(folder / "reference.py") or [])
        base = (folder / "kernel.py").read_text()
        editor = knob_editor(base, kernel="_row_max_scale", pin_current=problem.interpreted)
        walls: dict[str, list[float]] = {"failing": [], "passing": []}
        costs: list[dict[str, object]] = []
        with ShapesEvaluator(problem, shapes, base, editor, session_dir=Path(tmp) / "session") as ev:
            ev.evaluate([Config.of({"BLOCK": 512})])  # warm-up: workers started, the interpreter's first run
            for _ in range(args.rounds):
                for name, blocks in (("failing", FAILING), ("passing", PASSING)):
                    t0 = time.monotonic()
                    results = ev.evaluate([Config.of({"BLOCK": b}) for b in blocks])
                    walls[name].append(time.monotonic() - t0)
                    if name == "failing":
                        costs += [{"BLOCK": r.config["BLOCK"], "outcome": r.outcome.value, "check_s": r.check_s,
                                   "bench_s": r.bench_s} for r in results]  # fmt: skip
    out = {
        name: {"blocks": list(FAILING if name == "failing" else PASSING), "wall_s": w, "median_s": statistics.median(w)}
        for name, w in walls.items()
    }
    out["failing_costs"] = costs  # type: ignore[assignment]
    for name in ("failing", "passing"):
        w = walls[name]
        print(f"{name} {out[name]['blocks']}: {', '.join(f'{x:.2f}' for x in w)} s (median {statistics.median(w):.2f})")
    print(
        "failing candidates' own seconds:",
        ", ".join(f"{c['BLOCK']}: check {c['check_s']}, bench {c['bench_s']}" for c in costs[:3]),
    )
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
