#!/usr/bin/env python3
"""The re-time's per-pick estimate against what a re-time spends, replaying the H100's scaled_mm session.

The session's re-time of its top few is sized at an estimate of what it spends a pick (``session._retime_each_s``):
the median of the passing candidates' check and timing seconds, at most the rounds' pace. Across ``SHAPES`` entries on
a GPU a candidate's check at each entry after the primary includes its first call there, which compiles it for that
entry's own specialization; the re-time finds it compiled and spends only a check and a timing at each entry. Before
leftovers15 the estimate counted those compiles (the fourteenth closing note: about 3x for scaled_mm).

The model is the H100's scaled_mm session of 2026-12-06 (docs/gpu-runs/2026-12-06-h100-g, pace12_tune_scaled_mm.json
and table14's model, benchmarks/entry_checks.py): three entries; the primary's check 0.3 s (a cache hit: the compile
pool compiled the candidate there); each other entry's first request 2.2 s, its compile (1.9 s) and the same 0.3 s
check; the timing 2.38 s over 9 candidates, 0.088 s an entry. Each entry's evaluator is a stand-in that sleeps its
modelled seconds (at ``--scale``) and answers with the figures a bench worker gives (``compile_s`` for a first call
not compiled ahead, inside ``check_s``); the session's ``ShapesEvaluator`` checks the entries after the primary at
once, as on a GPU. Three rounds of three candidates set the pace; the top four are then re-timed through
``ShapesEvaluator.retime`` (each entry: a check and a timing). The script prints the estimate before and after, the
re-time measured, and how many of the top 8 each estimate fits in the wall left of the session (``--left-s``).

    python benchmarks/retime_estimate.py [--scale 0.1] [--left-s 6]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "benchmarks"))  # entry_checks' stand-in of an entry's evaluator

import entry_checks  # noqa: E402

from kernelopt.tuning import session  # noqa: E402
from kernelopt.tuning.candidate import Config, Outcome, Result  # noqa: E402
from kernelopt.tuning.problem import Problem, ProblemShape  # noqa: E402
from kernelopt.tuning.shape_evaluator import ShapesEvaluator  # noqa: E402

ADD = REPO / "tests" / "data" / "tuning" / "add"
CHECK_S, COMPILE_S, TIME_S = 0.3, 1.9, 2.38 / 9 / 3


class ModelEntry(entry_checks.ModelEntry):
    """One entry's evaluator: a candidate's first request compiles it (``compile_s``, not at the primary: the compile
    pool did) and checks it; a timing request times what its check kept loaded; a re-time checks and times again."""

    def __init__(self, scale: float, *, primary: bool) -> None:
        super().__init__(0.0)
        self.scale, self.primary = scale, primary

    def evaluate(self, batch: Sequence[Config], *, timed: bool = True) -> list[Result]:
        out = []
        for c in batch:
            first = c not in self.seen
            self.seen.add(c)
            compile_s = COMPILE_S if first and not self.primary else None
            check_s = CHECK_S + (compile_s or 0.0) if first else None
            bench_s = TIME_S if timed else None
            time.sleep(((check_s or 0.0) + (bench_s or 0.0)) * self.scale)
            us = 1.0 + len(self.seen) / 100 if timed else None
            out.append(Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=us, samples_us=[us] if us else [],
                              compile_s=compile_s, check_s=check_s, bench_s=bench_s))  # fmt: skip
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        time.sleep(len(batch) * (CHECK_S + TIME_S) * self.scale)
        return [Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=1.0, samples_us=[1.0],
                       check_s=CHECK_S, bench_s=TIME_S) for c in batch]  # fmt: skip


def replay(scale: float, rounds: int = 3, batch: int = 3, top: int = 4) -> tuple[list[Result], float, float]:
    """The rounds' results, their pace (s a candidate) and the re-time's seconds a pick, at the model's scale."""
    with tempfile.TemporaryDirectory() as tmp:
        problem = Problem.from_folder(ADD, device="cpu")
        shapes = [ProblemShape(kwargs={"n": 1024 * (k + 1)}) for k in range(3)]
        ev = ShapesEvaluator(problem, shapes, "", lambda c: "", session_dir=Path(tmp))
        ev.evaluators = [ModelEntry(scale, primary=k == 0) for k in range(3)]  # type: ignore[list-item]
        ev.interpreted = False  # a GPU's session: the entries after the primary check at once
        results: list[Result] = []
        started = time.perf_counter()
        for r in range(rounds):
            results += ev.evaluate([Config.of({"BLOCK": 64 * (r * batch + k + 1)}) for k in range(batch)])
        pace = (time.perf_counter() - started) / scale / len(results)
        started = time.perf_counter()
        ev.retime([Config.of(r.config) for r in results[:top]])
        each = (time.perf_counter() - started) / scale / top
    return results, pace, each


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.1, help="the model's seconds are slept at this scale")
    parser.add_argument("--left-s", type=float, default=6.0, help="the wall left for the re-time, s")
    args = parser.parse_args()
    results, pace, measured = replay(args.scale)
    run = SimpleNamespace(budget=SimpleNamespace(candidate_s=pace), results=results)
    before = min(statistics.median((r.check_s or 0.0) + (r.bench_s or 0.0) for r in results), pace)
    after = session._retime_each_s(run)  # type: ignore[arg-type]
    assert after is not None
    print(f"| estimate | s a pick | over the re-time measured | of the top 8 in {args.left_s:g} s left |")
    print("|---|---|---|---|")
    print(f"| the rounds' pace | {pace:.2f} | | |")
    for name, each in (
        ("before (check + timing, at most the pace)", before),
        ("now (less the entries' compiles)", after),
    ):
        print(f"| {name} | {each:.2f} | {each / measured:.2f}x | {min(8, int(args.left_s // each))} |")
    print(f"| the re-time measured (top 4) | {measured:.2f} | 1.00x | {min(8, int(args.left_s // measured))} |")


if __name__ == "__main__":
    main()
