"""The rule-based planner only plans knob moves the rule-based implementer accepts.

Regression from the H200 run of 2026-11-29: on examples/softmax (compute-bound, sm__throughput 81 %)
the planner planned ``BLOCK_SIZE 128 -> 256`` under category ``tiling``; tunable discovery files
``BLOCK_SIZE`` under ``block_size``, so the implementer refused the plan and V1 was a revert.
"""

from __future__ import annotations

from pathlib import Path

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import BottleneckType
from kernelopt.memory.model import GateResult, IterationRecord
from kernelopt.planning.history import build_history
from kernelopt.planning.ranking import knob_moves
from kernelopt.planning.rules import knobs_from_tunables
from kernelopt.tunables import discover
from kernelopt.tunables.model import PLAN_KNOB_CATEGORIES, expresses

ROOT = Path(__file__).resolve().parents[1]


def test_softmax_block_size_is_not_moved_by_tiling() -> None:
    knobs = knobs_from_tunables(discover(ROOT / "examples" / "softmax" / "kernel.py"))
    block = next(k for k in knobs if k.name == "BLOCK_SIZE")
    assert block.categories == (ActionCategory.BLOCK_SIZE,)
    tiling = knob_moves(ActionCategory.TILING, knobs, ["compute_bound"], BottleneckType.COMPUTE_BOUND)
    assert all(k.name != "BLOCK_SIZE" for k, _ in tiling)
    grow = knob_moves(ActionCategory.BLOCK_SIZE, knobs, ["compute_bound"], BottleneckType.COMPUTE_BOUND)
    assert [(k.name, new) for k, new in grow] == [("BLOCK_SIZE", 256)]


def test_every_planned_move_is_one_the_implementer_accepts() -> None:
    for example in ("elementwise", "softmax", "layernorm", "matmul"):
        knobs = knobs_from_tunables(discover(ROOT / "examples" / example / "kernel.py"))
        for category in PLAN_KNOB_CATEGORIES:
            for knob, _ in knob_moves(category, knobs, [], BottleneckType.MEMORY_BOUND):
                assert knob.categories is not None
                assert expresses(category, knob.categories), (example, category, knob.name)


def _record(version: int, knob: str, before: int, after: int, verdict: str) -> IterationRecord:
    rec = IterationRecord(version=f"v{version}")
    rec.optimization.action_category = ActionCategory.SOFTWARE_PIPELINING
    rec.optimization.knob_changes = {knob: [before, after]}
    rec.quality_gate.result = GateResult.PASS
    rec.performance.comparison_with_previous.verdict = verdict
    return rec


def test_two_no_change_moves_end_a_direction() -> None:
    """As on the H200 run: num_stages 1 -> 2 -> 3 changed nothing, so 3 -> 4 is not planned."""
    one = build_history([_record(1, "num_stages", 1, 2, "no significant change")])
    assert one.banned("num_stages", 2, 1) is None, "one flat step is not enough evidence"
    two = build_history(
        [
            _record(1, "num_stages", 1, 2, "no significant change"),
            _record(2, "num_stages", 2, 3, "no significant change"),
        ]
    )
    assert two.banned("num_stages", 3, 1) is not None
    assert two.banned("num_stages", 3, -1) is None
    mixed = build_history(
        [_record(1, "num_stages", 1, 2, "no significant change"), _record(2, "num_stages", 2, 3, "improvement")]
    )
    assert mixed.banned("num_stages", 3, 1) is None


def test_planner_and_validation_read_the_tunables_table_only() -> None:
    from kernelopt.planning.knobs import Knob, knob_categories, may_move

    # without discovered categories, a knob's name gives them through the tunables' own rules
    assert knob_categories("BLOCK_SIZE") == (ActionCategory.BLOCK_SIZE,)
    assert Knob("BLOCK_SIZE", 128).serves(ActionCategory.VECTORIZED_ACCESS)  # elements per thread
    assert Knob("num_stages", 2).serves(ActionCategory.TILING)  # a tile is searched with its pipeline depth
    assert not Knob("num_stages", 2).serves(ActionCategory.BLOCK_SIZE)
    assert not Knob("MY_OWN_KNOB", 3).serves(ActionCategory.BLOCK_SIZE)  # unknown: never moved
    for category in PLAN_KNOB_CATEGORIES:
        for name in ("BLOCK_SIZE", "BLOCK_M", "num_warps", "num_stages", "GROUP_M"):
            cats = knob_categories(name)
            assert cats is not None
            assert may_move(category, name) == expresses(category, cats), (category, name)
