"""The loop after a rejected winner (issue 32, item 4): the region of a winner the gate rejected is left out of
the next session, that session is planned before any "converged", and "converged" comes only after a session
that ran and kept nothing. The session on a recorded sweep (pure replay); the planner and Stage 3 on a real
workspace on the CPU (``tests/data/search``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.actions import LAUNCH_CONFIGURATION, SEARCH_NO_GAIN
from kernelopt.backends.launch_tuning import rejected_winners
from kernelopt.backends.protocol import StageContext
from kernelopt.backends.rules import RuleImplementer, RulePlanner
from kernelopt.loop.wiring import cpu_timing_summary
from kernelopt.memory.model import CandidateResult, CandidateStatus, GateResult, IterationRecord, PitfallAndFix
from kernelopt.planning.markdown import parse_plan
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome
from kernelopt.tuning.exclusion import Exclusion, excluder, region_of
from kernelopt.tuning.replay import space_from_sweep
from kernelopt.tuning.session import tune

from .data.planning import fakes
from .test_launch_tuning import QUICK, _bowl
from .test_tuning_session import Counting, sweep

REJECTED = "correctness: output 0 differs from the reference on the SHAPES entry n=192"


@pytest.mark.timeout(10)
def test_the_region_is_the_tiles_the_winner_moved() -> None:
    before = {"BLOCK_M": 16, "BLOCK_N": 256, "num_warps": 4}
    assert region_of({"BLOCK_M": 128, "BLOCK_N": 256, "num_warps": 8}, before) == {"BLOCK_M": 128}
    assert region_of({"BLOCK_M": 16, "BLOCK_N": 256, "num_warps": 8}, before) == {  # only a launch option moved
        "BLOCK_M": 16,
        "BLOCK_N": 256,
        "num_warps": 8,
    }
    assert region_of({"BLOCK_M": 32}, None) == {"BLOCK_M": 32}
    why = excluder([Exclusion(region={"BLOCK_M": 128}, reason="v1's gate rejected BLOCK_M=128: wrong")])
    assert why is not None and excluder([]) is None
    assert why(Config.of({"BLOCK_M": 128, "num_warps": 2})) == "excluded: v1's gate rejected BLOCK_M=128: wrong"
    assert why(Config.of({"BLOCK_M": 64, "num_warps": 2})) is None


@pytest.mark.timeout(30)
def test_a_session_never_evaluates_nor_picks_an_excluded_configuration() -> None:
    s = sweep("sumsq")
    space = space_from_sweep(s)
    clock = ManualClock()
    first = tune(space, Counting(s, clock), budget=Budget.default(space.size.count, clock), rng_seed=7)
    assert first.best_config is not None
    region = dict(first.best_config)
    clock = ManualClock()
    ev = Counting(s, clock)
    why = excluder([Exclusion(region=region, reason="v1's gate rejected it")])
    again = tune(space, ev, budget=Budget.default(space.size.count, clock), rng_seed=7, excluded=why)
    assert again.best_config is not None and again.best_config != region
    assert Config.of(region).key() not in ev.asked + ev.retimed  # never timed, never re-timed
    left = [r for r in again.results if r.config == region]
    assert all(r.outcome is Outcome.INVALID and r.reason == "excluded: v1's gate rejected it" for r in left)


def _v0(ws_root: Path) -> tuple:  # type: ignore[type-arg]
    ws = _bowl(ws_root)
    v0 = IterationRecord(version="v0")
    v0.quality_gate.result = GateResult.PASS
    v0.performance.latency_us = 5000.0
    ws.memory.write(v0)
    return ws, v0


def _session_record(n: int, *, chosen: dict | None, gate: GateResult, reason: str) -> IterationRecord:
    r = IterationRecord(version=f"v{n}")
    r.optimization.action_category = LAUNCH_CONFIGURATION
    r.quality_gate.result = gate
    r.quality_gate.failure_reason = reason
    r.candidates = [
        CandidateResult(
            parameters={"BLOCK_M": 16, "BLOCK_N": 256}, status=CandidateStatus.OK, latency_us=5000.0, current=True
        )
    ]
    if chosen is not None:
        r.candidates.append(
            CandidateResult(parameters=chosen, status=CandidateStatus.OK, latency_us=900.0, chosen=True)
        )
    return r


@pytest.mark.timeout(180)
def test_after_a_rejected_winner_the_next_version_tunes_again_outside_its_region(ws_root: Path) -> None:
    ws, v0 = _v0(ws_root)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})

    def plan(n: int, records: list[IterationRecord]):  # type: ignore[no-untyped-def]
        summary = cpu_timing_summary(ws, n)
        return planner.plan(StageContext(workspace=ws, version=n, summary=summary, history=list(records))), summary

    first, _ = plan(1, [v0])
    assert first.plan is not None and first.plan.action_category is LAUNCH_CONFIGURATION
    # V1's gate rejected the session's winner (on a shape the session could not check): V2 tunes again
    v1 = _session_record(1, chosen={"BLOCK_M": 64, "BLOCK_N": 32}, gate=GateResult.FAIL, reason=REJECTED)
    ws.memory.write(v1)
    second, summary = plan(2, [v0, v1])
    assert second.plan is not None, second.reason
    assert second.plan.excluding == ["v1"] and parse_plan(ws.plan_path(2).read_text()).excluding == ["v1"]
    [excluded] = rejected_winners([v0, v1])
    assert excluded.region == {"BLOCK_M": 64, "BLOCK_N": 32} and "v1's gate rejected BLOCK_M=64, BLOCK_N=32" in (
        excluded.reason
    )
    implementer = RuleImplementer({**QUICK, "strategy": "exhaustive", "budget": 25})
    ctx = StageContext(workspace=ws, version=2, summary=summary, plan=second.plan, history=[v0, v1])
    out = implementer.implement(ctx)
    by = {(c.parameters["BLOCK_M"], c.parameters["BLOCK_N"]): c for c in out.candidates}
    assert by[(64, 32)].status is CandidateStatus.REFUSED and not by[(64, 32)].chosen
    assert (by[(64, 32)].reason or "").startswith("invalid: excluded: v1's gate rejected BLOCK_M=64, BLOCK_N=32")
    assert out.changed and out.knob_changes != {"BLOCK_M": (16, 64), "BLOCK_N": (256, 32)}  # another winner
    # a session that ran and kept nothing: now, and only now, converged
    ws.kernel_py.write_text(ws.file_at("HEAD", "kernel.py"))
    v2 = _session_record(2, chosen=None, gate=GateResult.FAIL, reason="kept nothing")
    v2.pitfalls_and_fixes = [PitfallAndFix(error_type=SEARCH_NO_GAIN, error_message="kept nothing")]
    ws.memory.write(v2)
    third, _ = plan(3, [v0, v1, v2])
    assert third.plan is None and (third.reason or "").startswith("converged: the launch configuration"), third.reason


@pytest.mark.timeout(60)
def test_a_session_that_failed_without_a_result_is_not_called_converged(ws_root: Path) -> None:
    ws, v0 = _v0(ws_root)
    planner = RulePlanner({"knob_only": True, "wiki_search": fakes.FakeWiki()})
    summary = cpu_timing_summary(ws, 1)
    assert planner.plan(StageContext(workspace=ws, version=1, summary=summary, history=[v0])).plan is not None
    v1 = _session_record(1, chosen=None, gate=GateResult.FAIL, reason="implementer_error: num_stages is ignored")
    ws.memory.write(v1)
    summary = cpu_timing_summary(ws, 2)
    out = planner.plan(StageContext(workspace=ws, version=2, summary=summary, history=[v0, v1]))
    assert out.plan is None and not (out.reason or "").startswith("converged")
    assert "failed in v1 without a result (v1: implementer_error: num_stages is ignored); not converged" in (
        out.reason or ""
    )


@pytest.mark.timeout(30)
def test_a_rejected_winner_excludes_its_region_only_from_sessions_of_its_own_launch() -> None:
    """breaker4 case h11: a kernel.py of two launches is tuned one launch a session; the winner the gate rejected
    for one launch names that launch's knobs, and the other launch's session excludes nothing of it."""
    v1 = _session_record(1, chosen={"BLOCK_M": 64, "BLOCK_N": 32}, gate=GateResult.FAIL, reason="differs")
    v1.optimization.launch = "launch _mm (kernel.py:40)"
    assert rejected_winners([v1], "launch _other (kernel.py:60)") == []
    [own] = rejected_winners([v1], "launch _mm (kernel.py:40)")
    assert own.region == rejected_winners([v1])[0].region and "v1's gate rejected" in own.reason
