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
    the rounds (and once more for each kernel to write checked there), where each candidate after the fault
    started one (4 evaluations in 47.6 s, about 35 s unnamed, on the H100 of 2026-12-06); the pace's parts sum to its
    rounds, the workers' restarts a few seconds at most; more than 4 candidates are evaluated."""
    import json
    import subprocess
    import sys

    from kernelopt.tuning.folder import NEXT_PICKS

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "breaker16" / "bnb_int8_mm", tmp_path / "bnb"))
    out = tmp_path / "sessions"
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--budget-wall-s",
            "60", "--out", str(out)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=260)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout)
    pace = said["pace"]
    (session,) = (p for p in out.iterdir() if p.name != "triton-cache")  # discovery's, beside it (l186)
    starts = sorted(p.name for p in (session / "logs").glob("bench-shape1-*.log"))
    print(f"gpufind19 g2: evaluations {said['evaluations']}, pace {json.dumps(pace)}, shape1 starts {starts}")
    assert list(said["set_aside"]) == ["M=37,N=130,K=72"], said["set_aside"]
    # one start for the rounds; one more for each kernel to write checked there (the pick, at most NEXT_PICKS after it)
    assert len(starts) <= 2 + NEXT_PICKS, starts
    parts = pace["compile_s"] + pace["check_s"] + pace["bench_s"] + pace["restart_s"] + pace["redone_s"]
    assert pace["rest_s"] == pytest.approx(max(0.0, pace["rounds_s"] - parts), abs=1e-6), pace
    assert pace["restart_s"] < 5.0 and said["evaluations"] > 4, (said["evaluations"], pace)


def test_g3_a_net_the_wall_cuts_leaves_its_sizes_unchecked_and_a_kernel_written_beside_them_says_which() -> None:
    """g3: breaker16's mamba_chunk_state on the H100 (2026-12-06, main at 758f3ac2, before leftovers19) wrote a
    per-bucket table with 16 of its net's 24 sizes "not run, it would end past the session's wall time". A replay of
    that session with leftovers19's reservation (its best's figures from the record: check 0.746 s on the 3 entries,
    timing 0.280 s, compile 0.491 s, compiled for the GPU's own target; a 60 s wall): the search keeps the checks after
    it 7.96 s, two of them for the net, and the net's 24 sizes at the recorded pace (a build and a check request a
    size, 0.4 s and 1.15 s: 12.4 s for 8) still do not fit the wall and its margin: sizes go unrun. Such a size is one
    the original may handle; it is now marked unchecked (a size the original refuses is not), and a kernel written
    beside it says so in its verdict and on stderr (``tune --json``'s ``net_unchecked``), where before only the net's
    info line listed it among "skipped" ones, with "the session record keeps the rest for a rerun" (a rerun tunes
    the kernel written)."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import DerivedSize, NetCap, SizeClass, cast
    from kernelopt.tuning.problem import ProblemShape
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.tail_wall import TailCost, TailWall

    best = Result(config={"BLOCK_SIZE_N": 16}, outcome="ok", latency_us=7.08, check_s=0.746, bench_s=0.280,
                  compile_s=0.491)  # fmt: skip
    need = TailCost(entries=3, target=True, wall_s=60.0).need_s([best])
    assert need == pytest.approx(0.746 * 2 + 0.746 + 2 * (0.746 + 0.280) / 3 + 5.0, abs=1e-6)  # 7.96 s
    clock = ManualClock()
    budget = Budget(1000, clock, wall_s=60.0)
    budget.start()
    clock.advance(60.0 - need + 0.746 + 5.0)  # the search ends, then the entries' check and the own-target compile
    wall = TailWall.of(budget)
    sizes = [DerivedSize(kind=SizeClass.PAST, tries=(ProblemShape(kwargs={"n": 1001 + 2 * k}),)) for k in range(24)]

    def build_at(shape: ProblemShape) -> tuple[Outcome, str | None]:
        clock.advance(0.4)
        return Outcome.OK, None

    def check_at(source: str, shape: ProblemShape) -> tuple[Outcome, str | None]:
        clock.advance(1.15)
        if shape.kwargs["n"] == 1001:  # the original refuses the first size too: skipped, yet no size it handles
            return Outcome.RUN_ERROR, "an assert of its own"
        return Outcome.OK, None

    verdict = cast(sizes, "original", "written", check_at, build_at=build_at, cap=NetCap.of(54.7, clock(), wall),
                   clock=clock)  # fmt: skip
    ran = [c for c in verdict.checks if c.passed]
    assert verdict.failed is None and verdict.checks[0].passed is None and not verdict.checks[0].unchecked
    assert 0 < len(ran) < 23 and len(verdict.unchecked) == 23 - len(ran), verdict.line()
    assert "past the session's wall time of 60 s (about" in verdict.line() and "rerun" not in verdict.line()
    line = verdict.unchecked_line()
    assert line is not None and line.startswith(f"the net did not check the written kernel at {len(verdict.unchecked)} "
                                                f"of its 24 sizes for want of time (n=")  # fmt: skip
    fast = Result(config={"BLOCK": 256}, outcome=Outcome.OK, latency_us=10.0)
    slow = Result(config={"BLOCK": 64}, outcome=Outcome.OK, latency_us=20.0)
    result = SessionResult(
        best_config={"BLOCK": 256}, best_latency_us=10.0, current_config={"BLOCK": 64}, current_latency_us=20.0,
        results=[fast, slow], retimed=[], evaluations=2, served=0, budget=4, space_size=8, wall_s=54.7,
        stop=StopReason.CANDIDATES, strategy="local",
    )  # fmt: skip
    judged = judge_gain(result)
    assert judged.better
    said = verdict_line(result, judged, kernel_py="kernel.py", written=True, dry_run=False, unchecked=line)
    assert said.endswith(f"; written to kernel.py; {line}"), said
    kept = verdict_line(result, judged, kernel_py="kernel.py", written=False, dry_run=False, unchecked=line)
    assert line not in kept, kept  # nothing written: nothing to say of it
