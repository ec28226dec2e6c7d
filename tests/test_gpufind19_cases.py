"""gpufind19: what the H100 run of 2026-12-06 showed (docs/faults.md, "Today's H100 run (gpufind19, 2026-12-06)")."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Result
from kernelopt.tuning.replay import space_from_sweep
from kernelopt.tuning.session import tune
from tests.test_pace12_cases import Paced, _sweep

FAULT = Path(__file__).parent / "data" / "gpufind19" / "fault"
"""A scale whose ``run`` faults at an odd length ("CUDA error: misaligned address", an error after which a CUDA process
is unusable), as kernel.py as written and every candidate does: the entry n=257 is set aside."""


@pytest.mark.timeout(120)
def test_g2_an_entry_the_original_faults_at_is_checked_alone_and_its_worker_not_restarted_per_candidate(
    tmp_path: Path,
) -> None:
    """g2: bnb_int8_mm's M=37 on the H100 restarted that entry's bench worker for each candidate of the batch after
    the fault (a fresh Python, torch, Triton and CUDA context each; main at 87fa2fa5 on this kernel, the CPU:
    bench-shape1-0-1 to -4 in one round of four). Now the kernel as written goes first and alone at an entry after
    the primary: it raises there, the rest of the batch is never sent there, and the entry is set aside; its worker
    starts again only for the check of a kernel to write there, once. The pass thrown away is counted."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    folder = Path(shutil.copytree(FAULT, tmp_path / "fault"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRITON_INTERPRET", "1")
        prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    base = prepared.base_source
    current = Config.of({"BLOCK": 64})
    batch = [current, *(Config.of({"BLOCK": b}) for b in (128, 256, 32))]

    def apply(c: Config) -> str:
        return base.replace("BLOCK = 64", f"BLOCK = {c['BLOCK']}")

    with ShapesEvaluator(
        prepared.problem, prepared.shapes, base, apply, session_dir=prepared.session_dir, env=prepared.env,
        original=current,
    ) as ev:  # fmt: skip
        results = ev.evaluate(batch)
        assert [r.outcome.value for r in results] == ["ok"] * 4, [r.reason for r in results]
        assert list(ev.set_aside) == ["n=257"] and ev.labels == ["n=256"]
        aside = ev.set_aside["n=257"][0]
        assert aside.bench_starts == 1, aside.bench_starts  # before: one start a candidate of the batch
        assert ev.redone_s > 0
        checked = ev.check_source(apply(Config.of({"BLOCK": 128})), current)  # raises there as kernel.py does
        assert checked.outcome.ok and aside.bench_starts == 2, (checked.reason, aside.bench_starts)
    assert sorted(p.name for p in (prepared.session_dir / "logs").glob("bench-shape1-*.log")) == [
        "bench-shape1-0-1.log", "bench-shape1-0-2.log"
    ]  # fmt: skip


class Restarting(Paced):
    """:class:`Paced` whose every candidate waits on its worker's start again (``restart_s``), and whose first batch
    is thrown away and evaluated again (``redone_s``), as :class:`ShapesEvaluator` counts them."""

    def __init__(self, *args, restart_s: float, redo_s: float, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.restart_s, self.redo_s = restart_s, redo_s
        self.worker_start_s = 0.0
        self.redone_s = 0.0

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        if self.redone_s == 0.0:
            self.clock.advance(self.redo_s)
            self.redone_s = self.redo_s
        self.clock.advance(self.restart_s * len(batch))
        self.worker_start_s += self.restart_s * len(batch)
        return super().evaluate(batch)


def test_g2_the_pace_names_the_workers_restarts_and_the_pass_thrown_away_and_its_parts_sum_to_the_rounds() -> None:
    """g2 (a): bnb_int8_mm's pace said rounds 43.5 s against compile 1.95 + check 1.22 + timing 0.72 s: the workers'
    restarts inside the rounds, and the pass thrown away when an entry was set aside, were counted nowhere. Now each
    is a part of the pace (``restart_s``, ``redone_s``), and ``rest_s`` is what is left of the rounds."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = Restarting(s, clock, per_s=1.0, hung=set(), start_s=5.0, restart_s=8.0, redo_s=3.0)
    res = tune(space, ev, budget=Budget(12, clock, wall_s=600.0), rng_seed=1, batch_size=4)
    pace = res.pace
    assert pace is not None and res.evaluations == 12
    assert pace.start_s == 5.0 and pace.restart_s == pytest.approx(8.0 * 12), pace
    assert pace.redone_s == pytest.approx(3.0), pace
    own = pace.compile_s + pace.check_s + pace.bench_s
    assert pace.rounds_s == pytest.approx(own + pace.restart_s + pace.redone_s + pace.rest_s), pace
    assert pace.rest_s == pytest.approx(0.0, abs=1e-9), pace  # this fake spends nothing else
    assert f"workers' restarts {pace.restart_s:.1f}, redone 3.0, rest 0.0 s)" in pace.line(), pace.line()


@pytest.mark.gpu
@pytest.mark.timeout(280)
def test_on_cuda_bnb_int8_mm_s_faulting_entry_costs_one_worker_start_and_its_pace_sums(tmp_path: Path) -> None:
    """g2 on an NVIDIA GPU: ``tune --device cuda --json --budget-wall-s 60`` on breaker16's bnb_int8_mm, whose kernel as
    written faults at M=37 ("CUDA error: misaligned address"). The entry is set aside; its bench worker starts once for
    the rounds (at most once more for the check of a kernel to write there), where each candidate after the fault
    started one (4 evaluations in 47.6 s, about 35 s unnamed, on the H100 of 2026-12-06); the pace's parts sum to its
    rounds, the workers' restarts a few seconds at most; more than 4 candidates are evaluated."""
    import json
    import subprocess
    import sys

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "breaker16" / "bnb_int8_mm", tmp_path / "bnb"))
    out = tmp_path / "sessions"
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--budget-wall-s",
            "60", "--out", str(out)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=260)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout)
    pace = said["pace"]
    (session,) = out.iterdir()
    starts = sorted(p.name for p in (session / "logs").glob("bench-shape1-*.log"))
    print(f"gpufind19 g2: evaluations {said['evaluations']}, pace {json.dumps(pace)}, shape1 starts {starts}")
    assert list(said["set_aside"]) == ["M=37,N=130,K=72"], said["set_aside"]
    assert len(starts) <= 2, starts
    parts = pace["compile_s"] + pace["check_s"] + pace["bench_s"] + pace["restart_s"] + pace["redone_s"]
    assert pace["rest_s"] == pytest.approx(max(0.0, pace["rounds_s"] - parts), abs=1e-6), pace
    assert pace["restart_s"] < 5.0 and said["evaluations"] > 4, (said["evaluations"], pace)
