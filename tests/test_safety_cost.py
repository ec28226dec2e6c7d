"""benchmarks/safety_cost.py: today's legality rules over a recorded complete sweep (cost30), the real figures."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "safety_cost.py"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("safety_cost", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["safety_cost"] = module  # its dataclasses resolve their annotations through it
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("safety_cost", None)


def test_the_11_29_elementwise_sweep_loses_nothing_to_the_rules_that_forbid_six_configurations_it_timed(
    bench: ModuleType, tmp_path: Path
) -> None:
    """The 2026-11-29 sitting recorded no digest: its kernel is the one committed that day; today's register estimate
    forbids six configurations that ran then (128 elements a thread or more), none of them the best (BLOCK_SIZE 1024,
    4 warps, 371.23 us), the fastest of them 1.12 times it."""
    held, left = bench.held_sweeps({"elementwise"})
    sitting = next(h for h in held if h.label.startswith("elementwise (11-29"))
    assert not left and len(held) == 2  # the 12-01 sitting too, its digest found in the working tree
    cost = bench.cost_of(sitting, tmp_path)
    assert (cost.size, cost.timed) == (48, 48)
    assert dict(cost.forbidden) == {"fit: resources": 6} and dict(cost.forbidden_ok) == {"fit: resources": 6}
    ran = {(e.config["BLOCK_SIZE"], e.config["num_warps"]) for e in sitting.sweep.configs if e.status == "ok"}
    assert {(4096, 1), (8192, 1), (8192, 2), (16384, 1), (16384, 2), (16384, 4)} <= ran
    assert "128 elements per thread" in cost.reasons["fit: resources"]
    assert cost.best is not None and cost.best.config == {"BLOCK_SIZE": 1024, "num_warps": 4}
    assert cost.best.latency_us == pytest.approx(371.23, abs=0.01)
    assert cost.best_admissible is cost.best and cost.ratio == 1.0 and cost.best_rule is None
    assert cost.fastest_forbidden is not None and cost.fastest_forbidden.config == {"BLOCK_SIZE": 16384, "num_warps": 4}
    assert cost.fastest_forbidden.latency_us / cost.best.latency_us == pytest.approx(1.122, abs=0.001)
    assert cost.edits == 8  # one editor request per block size: launch options are the fit's
