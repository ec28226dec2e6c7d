"""Strategies: never a repeat, only fitting configurations (the seeds excepted), within the budget,
deterministic per seed; the registry; the learned filter; and the seeds Stage 1's evidence favours."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory as A
from kernelopt.errors import UsageError
from kernelopt.evidence.model import BottleneckType, Confidence, EvidenceItem, Finding, KernelEvidence
from kernelopt.tunables import ResourceLimits, discover
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.record import read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.seeds import GEMM_SEED_LIMIT, evidence_seeds, favoured_categories, gemm_seeds, seeds
from kernelopt.tuning.session import tune
from kernelopt.tuning.strategies import STRATEGIES, make_strategy
from kernelopt.tuning.strategies.surrogate import Surrogate

REPO = Path(__file__).resolve().parents[1]
MATMUL = read_sweeps(REPO / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "matmul.json")[0]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_strategy_never_repeats_fits_and_respects_the_budget(name: str) -> None:
    space = space_from_sweep(MATMUL)
    clock = ManualClock()
    res = tune(space, ReplayEvaluator(MATMUL, clock), budget=Budget(60, clock), strategy=name, rng_seed=5)
    keys = [r.key for r in res.results]
    assert len(keys) == len(set(keys)) == 60 == res.evaluations
    assert all(space.fits(Config.of(r.config)) for r in res.results[1:])  # the first is the current one
    again = tune(
        space, ReplayEvaluator(MATMUL, ManualClock()), budget=Budget(60, ManualClock()), strategy=name, rng_seed=5
    )
    assert [r.key for r in again.results] == keys
    if name != "exhaustive":
        other = tune(
            space, ReplayEvaluator(MATMUL, ManualClock()), budget=Budget(60, ManualClock()), strategy=name, rng_seed=6
        )
        assert [r.key for r in other.results] != keys


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_on_a_small_space_a_strategy_ends_when_everything_was_tried(name: str) -> None:
    sumsq = read_sweeps(REPO / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "sumsq.json")[0]
    space = space_from_sweep(sumsq)
    strat = make_strategy(name, space, seeds=[space.default()], budget=1000, rng_seed=0)
    seen: list[Config] = []
    ev = ReplayEvaluator(sumsq)
    while not strat.done:
        batch = strat.propose(3)
        assert len(batch) <= 3 and not set(batch) & set(seen)
        seen += batch
        strat.observe(ev.evaluate(batch))
    assert set(seen) == set(space.configs()) and strat.propose(3) == []


def test_unknown_strategy_is_bad_input() -> None:
    with pytest.raises(UsageError, match="unknown strategy 'annealing'"):
        make_strategy("annealing", space_from_sweep(MATMUL), seeds=[], budget=10, rng_seed=0)


def test_the_filter_ranks_unseen_configurations_by_expected_improvement() -> None:
    space = space_from_sweep(MATMUL)
    timed = [c for c in MATMUL.configs if c.latency_us is not None][::6]
    steps = [[float(k.index(c.config[k.name])) for k in space.knobs] for c in timed]
    model = Surrogate([*steps], [c.latency_us or 0.0 for c in timed])
    assert model.length in (0.7, 1.0, 1.5, 2.2, 3.3)
    best = min(range(len(timed)), key=lambda i: timed[i].latency_us or 0.0)
    predicted = model.mean_latency_us([steps[best]])[0]
    assert predicted == pytest.approx(timed[best].latency_us, rel=0.05)  # it fits what it saw
    scores = model.expected_improvement(steps)
    assert all(s >= 0 and math.isfinite(s) for s in scores)
    assert Surrogate.maybe(steps[:3], [1.0, 2.0, 3.0]) is None


# ---------------------------------------------------------------------------------------------- seeds


def kernel(symptom: str, categories: list[A], bottleneck: BottleneckType) -> KernelEvidence:
    finding = Finding(
        rule_id=f"test.{symptom}",
        symptom=symptom,
        confidence=Confidence.HIGH,
        evidence=[EvidenceItem(metric="m", value=1.0, source="test")],
        inference="test",
        action_categories=categories,
    )
    return KernelEvidence(kernel_name="k", bottleneck=bottleneck, findings=[finding])


LIMITS = ResourceLimits.for_gpu("H200", "fp16")


def test_latency_bound_seeds_more_warps() -> None:
    space = space_from_tunables(discover(REPO / "examples" / "elementwise" / "kernel.py"), limits=LIMITS)
    ev = kernel("latency_bound", [A.NUM_WARPS, A.SOFTWARE_PIPELINING], BottleneckType.LATENCY_BOUND)
    assert favoured_categories(ev)[0] is A.NUM_WARPS
    got = seeds(space, ev)
    assert got[0] == space.current()
    assert got[1] == space.current().with_values({"num_warps": 8})  # type: ignore[union-attr]
    assert got[2]["num_warps"] == 16


def test_a_tensor_core_gemm_seeds_larger_tiles_and_spills_smaller_ones() -> None:
    space = space_from_tunables(discover(REPO / "examples" / "matmul" / "kernel.py"), limits=LIMITS)
    current = space.current()
    assert current is not None
    grow = evidence_seeds(space, kernel("compute_bound", [A.TILING], BottleneckType.COMPUTE_BOUND))
    assert grow and all(c["BLOCK_M"] >= current["BLOCK_M"] for c in grow)  # type: ignore[operator]
    assert any(c["BLOCK_M"] > current["BLOCK_M"] for c in grow)  # type: ignore[operator]
    spills = kernel("register_spills", [A.REGISTER_PRESSURE], BottleneckType.LATENCY_BOUND)
    shrink = evidence_seeds(space, spills)
    assert shrink and shrink[0]["BLOCK_M"] < current["BLOCK_M"]  # type: ignore[operator]
    assert all(space.fits(c) for c in grow + shrink) and len(shrink) <= 4


def test_a_gemm_launch_is_seeded_with_known_good_tiles_at_the_nearest_legal_values() -> None:
    space = space_from_tunables(discover(REPO / "examples" / "matmul" / "kernel.py"), limits=LIMITS)
    tiles = gemm_seeds(space)
    assert 0 < len(tiles) <= GEMM_SEED_LIMIT and all(space.fits(c) for c in tiles)
    assert tiles[0].with_values({}) == space.current().with_values(  # type: ignore[union-attr]
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3}
    )
    assert seeds(space)[1:] == tiles  # after the current configuration, with no evidence
    # a recorded sweep whose knobs stop short of a tile's value: the nearest legal one (num_stages 5 -> 4)
    sweep = read_sweeps(REPO / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "matmul.json")[0]
    small = space_from_sweep(sweep)
    assert all(c["num_stages"] in (3, 4) and small.fits(c) for c in gemm_seeds(small, limit=8))
    # not a GEMM: no tiles
    elementwise = space_from_tunables(discover(REPO / "examples" / "elementwise" / "kernel.py"), limits=LIMITS)
    assert gemm_seeds(elementwise) == []
