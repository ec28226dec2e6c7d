#!/usr/bin/env python3
"""The check's wall across ``SHAPES`` entries: a session's evaluator (``ShapesEvaluator``) with the entries checked one
after another against the entries after the primary checked at once (``ShapesEvaluator.together``), replaying a
timing model of a GPU session in which each entry's first call of a candidate compiles it for its own specialization.

The model is the H100's scaled_mm session of 2026-12-06 08:22 (docs/gpu-runs/2026-12-06-h100-g, three entries, 44.7 s
of checks in a 60 s wall): the primary entry's check a cache hit (the compile pool compiled the candidate at that
entry), each other entry's a compile. Each entry's evaluator is a stand-in that sleeps its modelled seconds at a
candidate's first request there (its check) and answers at once after (its timing, of the candidate its check kept
loaded); the rounds are three of three candidates. The script prints the wall of each order and that wall at the
model's full scale.

    python benchmarks/entry_checks.py [--primary-s 0.3] [--entry-s 2.2] [--scale 0.1] [--rounds 3] [--batch 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from kernelopt.tuning.candidate import Config, Outcome, Result  # noqa: E402
from kernelopt.tuning.problem import MemoryNeed, Problem, ProblemShape  # noqa: E402
from kernelopt.tuning.shape_evaluator import ShapesEvaluator  # noqa: E402

ADD = REPO / "tests" / "data" / "tuning" / "add"


class ModelEntry:
    """One entry's evaluator: ``check_s`` seconds at a candidate's first request (its compile and check), none after."""

    def __init__(self, check_s: float) -> None:
        self.check_s, self.seen = check_s, set()
        self.ready = SimpleNamespace(need=MemoryNeed(inputs_bytes=2**20, outputs_bytes=2**20), free_bytes=80 * 2**30)

    def spawn(self) -> None:
        pass

    def start(self, compile_workers: int = 0) -> object:
        return self.ready

    def evaluate(self, batch: Sequence[Config], *, timed: bool = True) -> list[Result]:
        fresh = [c for c in batch if c not in self.seen]
        self.seen |= set(fresh)
        time.sleep(self.check_s * len(fresh))
        us = 1.0 if timed else None
        return [
            Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=us, samples_us=[us] if us else []) for c in batch
        ]

    def close(self) -> None:
        pass


def wall_s(together: bool, seconds: Sequence[float], rounds: int, batch: int) -> float:
    """The wall of ``rounds`` rounds of ``batch`` new candidates over entries checking in ``seconds`` each."""
    with tempfile.TemporaryDirectory() as tmp:
        problem = Problem.from_folder(ADD, device="cpu")
        shapes = [ProblemShape(kwargs={"n": 1024 * (k + 1)}) for k in range(len(seconds))]
        ev = ShapesEvaluator(problem, shapes, "", lambda c: "", session_dir=Path(tmp))
        ev.evaluators = [ModelEntry(s) for s in seconds]  # type: ignore[list-item]
        ev.interpreted = not together  # in the interpreter the entries check one after another
        started = time.perf_counter()
        for r in range(rounds):
            ev.evaluate([Config.of({"BLOCK": 64 * (r * batch + k + 1)}) for k in range(batch)])
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--primary-s", type=float, default=0.3, help="the primary entry's check, s (a cache hit)")
    parser.add_argument("--entry-s", type=float, default=2.2, help="each other entry's check, s (its compile)")
    parser.add_argument("--entries", type=int, default=3)
    parser.add_argument("--scale", type=float, default=0.1, help="the model's seconds are slept at this scale")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=3)
    args = parser.parse_args()
    seconds = [args.primary_s * args.scale] + [args.entry_s * args.scale] * (args.entries - 1)
    for together in (False, True):
        took = wall_s(together, seconds, args.rounds, args.batch)
        order = "the others at once" if together else "one after another"
        print(f"{order}: {took:.2f} s ({took / args.scale:.1f} s at the model's scale)")


if __name__ == "__main__":
    main()
