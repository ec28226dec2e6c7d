"""The stage machine end to end over a real workspace and real git, with deterministic fake stages."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.loop.machine import NEXT_STAGES, VERSION_REF, OptimizeLoop, StageOrderError
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.protocols import EventKind, LoopEvent, Stage
from kernelopt.loop.settings import LoopRequest
from kernelopt.loop.stop import StopReason
from kernelopt.loop.summary import LoopSummary
from kernelopt.memory.model import CorrectnessStatus, GateResult
from kernelopt.workspace import Workspace

from .loop_fakes import (
    DATA,
    TIMING_ONLY,
    FakeCeilings,
    Fakes,
    block_of,
    commit_card,
    journal,
    make_fakes,
    subjects,
)

ITERATION = ["profile", "plan", "implement", "gate", "record", "stop"]


@pytest.fixture
def fakes() -> Fakes:
    return make_fakes()


@pytest.fixture
def ws(ws_root: Path) -> Workspace:
    return open_or_create(DATA, name="loop", root=ws_root).workspace


def run(ws: Workspace, fakes: Fakes, **request: object) -> LoopSummary:
    return OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(**request)).run()


def changed_files(ws: Workspace, ref: str) -> set[str]:
    return set(ws.repo.git.show("--name-only", "--format=", ref).split())


def profile_summaries(n: int) -> set[str]:
    """The profile files a version's commit takes (the rest of profiles/v<N>/ is ignored)."""
    return {f"profiles/v{n}/summary.json", f"profiles/v{n}/summary.txt"}


def kernel_at(ws: Workspace, ref: str) -> str:
    return ws.file_at(ref, "kernel.py")


# -- passing iterations -----------------------------------------------------------------------------


def test_baseline_then_iterations_commit_and_amend_with_hash(ws: Workspace, fakes: Fakes) -> None:
    s = run(ws, fakes, max_iterations=3)
    assert s.stop is not None and s.stop.reason is StopReason.MAX_ITERATIONS
    log = subjects(ws)
    assert log[0].startswith("init:")
    assert log[1] == (
        "V0: baseline 4.10e-05 TFLOPS / 0.4915 GB/s | 100 us "
        "(bottleneck: memory_bound, gpu__compute_memory_throughput 72.4%)"
    )
    assert log[2] == (
        "V1: 6.83e-05 TFLOPS / 0.8192 GB/s | block_size: BLOCK 64 -> 128 "
        "(bottleneck: memory_bound, gpu__compute_memory_throughput 72.4%)"
    )
    assert [x.split(":")[0] for x in log[1:]] == ["V0", "V1", "V2", "V3"]
    assert block_of(ws) == 512 and ws.is_clean()
    assert ws.repo.git.status("--porcelain") == ""  # nothing untracked either: profiles committed or ignored

    # V0 holds the record, the baseline report and its profile summaries; V<N> kernel.py, record, plan, summaries.
    history = ws.repo.git.log("--format=%H").split()[::-1]
    summaries = {"profiles/v{n}/summary.json", "profiles/v{n}/summary.txt"}
    assert changed_files(ws, history[1]) == {"memory/v0.json", "baseline_report.md"} | {
        p.format(n=0) for p in summaries
    }
    for n, commit in enumerate(history[2:], start=1):
        assert changed_files(ws, commit) == {"kernel.py", f"memory/v{n}.json", f"plans/v{n}_plan.md"} | {
            p.format(n=n) for p in summaries
        }
        record = ws.memory.read(n)
        # the record names the commit that holds the kernel change (the pre-amend commit), kept reachable
        h = record.git_commit_hash
        assert h is not None and h != commit
        assert kernel_at(ws, h) == kernel_at(ws, commit)
        assert ws.repo.git.rev_parse(f"{h}^") == ws.repo.git.rev_parse(f"{commit}^")
        assert ws.repo.git.log("-1", "--format=%s", h) == ws.repo.git.log("-1", "--format=%s", commit)
        assert ws.repo.git.rev_parse(VERSION_REF.format(n=n)) == h
        # the committed record is the final one (hash included): amend, not a second commit
        assert f'"git_commit_hash": "{h}"' in ws.file_at(commit, f"memory/v{n}.json")
        assert record.quality_gate.result is GateResult.PASS
        assert record.optimization.action_category is not None
        assert record.optimization.knob_changes == {"BLOCK": [[64, 128, 256][n - 1], [128, 256, 512][n - 1]]}
        assert record.profile_evidence.bottleneck_type == "memory_bound"
        assert record.profile_evidence.evidence_chain == [
            f"profiles/v{n}/summary.json: memory_throughput_pct 72.4 % -> memory-bound -> try block_size"
        ]
        assert record.search_log[0].source == "gpu-wiki"
        assert any("roofline bound, spec peak" in x for x in record.experience.notes)
        assert record.open_directions == ["vectorized_access: memory throughput dominates: the kernel is memory-bound"]
    v0 = ws.memory.read(0)
    assert v0.git_commit_hash is not None and v0.quality_gate.result is GateResult.PASS
    report = (ws.root / "baseline_report.md").read_text()
    assert "# Baseline report: loop (V0)" in report and "| latency (median) | 100.0 us |" in report
    assert "roofline bound, measured ceilings: n/a" in report and "roofline bound, spec peak:" in report

    assert s.baseline_latency_us == 100.0 and s.best_latency_us == 30.0 and s.best_version == "v3"
    assert s.speedup_vs_baseline == pytest.approx(100 / 30)
    assert s.iterations == 3 and s.failures == 0 and [o.version for o in s.this_run] == [0, 1, 2, 3]
    assert [r.version for r in s.versions] == ["v0", "v1", "v2", "v3"]
    # the gate always compared with the last good version
    assert fakes.gate.validated == [(0, None, 64), (1, 0, 128), (2, 1, 256), (3, 2, 512)]


def test_stage_order_is_enforced_and_complete(ws: Workspace, fakes: Fakes) -> None:
    run(ws, fakes, max_iterations=2)
    assert fakes.sink.stages(0) == ["baseline_gate", "baseline_profile", "record", "stop"]
    assert fakes.sink.stages(1) == ITERATION and fakes.sink.stages(2) == ITERATION
    # each collaborator ran inside its stage, in order
    assert fakes.profiler.calls == [0, 1, 2] and fakes.planner.calls == [1, 2]
    ends = [e for e in fakes.sink.events if e.kind is EventKind.STAGE_END and e.version == 1]
    assert [e.stage.value for e in ends if e.stage] == ITERATION
    # the planner saw the current evidence and history
    ctx = fakes.planner.contexts[1]
    assert ctx.summary is not None and ctx.summary.version == "v2"
    assert [r.version for r in ctx.history] == ["v0", "v1"]


def test_transition_table_refuses_skips(ws: Workspace, fakes: Fakes) -> None:
    assert Stage.GATE not in NEXT_STAGES[Stage.PLAN] and Stage.IMPLEMENT not in NEXT_STAGES[Stage.PROFILE]
    loop = OptimizeLoop(ws, fakes.collaborators())
    from kernelopt.loop.journal import IterationState

    it = IterationState(version=1, stage=Stage.PROFILE, base_commit=ws.head(), good_version=0)
    with pytest.raises(StageOrderError, match="profile -> gate"):
        loop.context.advance(it, Stage.GATE)


def test_progress_events_carry_best_latency_and_utilization(ws: Workspace, fakes: Fakes) -> None:
    fakes.ceilings.value = FakeCeilings(memory_gbps=2.0)
    run(ws, fakes, max_iterations=1)
    last = fakes.sink.events[-1]
    assert last.kind is EventKind.STOPPED and last.best_latency_us == 60.0
    # roofline latency = 49152 B / 2 GB/s = 24.576 us; 24.576 / 60 = 41 %
    assert last.best_roofline_pct == pytest.approx(40.96)
    assert all(e.elapsed_s >= 0 for e in fakes.sink.events)


def test_gate_record_is_kept_when_the_gate_only_returns_it(ws: Workspace, fakes: Fakes) -> None:
    fakes.gate.write_record = False
    run(ws, fakes, max_iterations=1)
    assert ws.memory.read(0).performance.latency_us == 100.0
    r1 = ws.memory.read(1)
    assert r1.performance.latency_us == 60.0 and r1.optimization.action_description == "set BLOCK to 128"


# -- failures -------------------------------------------------------------------------------------


def test_gate_failure_reverts_kernel_and_commits_marker(ws: Workspace, fakes: Fakes) -> None:
    fakes.implementer.modes[2] = "regress"  # BLOCK 4096: 90 us, slower than V1's 60 us
    s = run(ws, fakes, max_iterations=3)
    log = subjects(ws)
    assert log[3] == "V2: revert (regression: 90 us vs 60 us (V1))"
    marker = ws.repo.git.log("--format=%H").split()[1]
    assert changed_files(ws, marker) == {"memory/v2.json", "plans/v2_plan.md"} | profile_summaries(2)
    assert kernel_at(ws, marker) == kernel_at(ws, f"{marker}^")
    r2 = ws.memory.read(2)
    assert r2.quality_gate.result is GateResult.FAIL
    assert r2.quality_gate.failure_reason == "regression: 90 us vs 60 us (V1)"
    pit = r2.pitfalls_and_fixes[-1]
    assert pit.error_type == "quality_gate" and "restored to V1" in (pit.fix_applied or "")
    assert "block_size {'BLOCK': 256}" in (pit.lesson or "")
    assert r2.git_commit_hash is not None and r2.git_commit_hash != marker
    # the next plan does not repeat the failed one, and V3 is gated against V1 (the last good version)
    assert fakes.gate.validated[-1] == (3, 1, 512)
    assert block_of(ws) == 512 and s.failures == 1
    assert [o.result for o in s.this_run] == [GateResult.PASS, GateResult.PASS, GateResult.FAIL, GateResult.PASS]


def test_gate_timeout_is_timeout_fail(ws: Workspace, fakes: Fakes) -> None:
    fakes.implementer.modes[1] = "hang"
    run(ws, fakes, max_iterations=1)
    assert subjects(ws)[-1] == "V1: revert (case 0 exceeded the 30 s timeout)"
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.TIMEOUT_FAIL
    assert "# HANG" not in ws.kernel_py.read_text() and block_of(ws) == 64


def test_repair_attempt_fixes_a_broken_implementation(ws: Workspace, fakes: Fakes) -> None:
    fakes.implementer.modes[1] = "bug"
    run(ws, fakes, max_iterations=1)
    assert fakes.implementer.attempts == [(1, 0, None), (1, 1, "correctness FAIL: max abs err 1.0 at index 7")]
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.PASS and "# BUG" not in ws.kernel_py.read_text()
    assert r1.pitfalls_and_fixes[0].error_type == "correctness_fail"
    assert r1.pitfalls_and_fixes[0].fix_applied == "repair attempt by the implementer"
    assert "correctness passed after 2 implementation attempts" in r1.experience.notes


def test_repair_attempts_spent_fails_the_iteration(ws: Workspace, fakes: Fakes) -> None:
    fakes.implementer.modes[1] = "always_bug"
    run(ws, fakes, max_iterations=1, repair_attempts=1)
    assert [a[:2] for a in fakes.implementer.attempts] == [(1, 0), (1, 1)]
    assert subjects(ws)[-1] == "V1: revert (correctness FAIL: max abs err 1.0 at index 7 after 2 attempt(s))"
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.FAIL and r1.correctness.status is CorrectnessStatus.FAIL
    assert [p.error_type for p in r1.pitfalls_and_fixes] == ["correctness_fail", "correctness_fail", "correctness"]
    assert all(v != 1 for v, *_ in fakes.gate.validated)  # the gate never ran on a wrong kernel
    assert ws.is_clean() and block_of(ws) == 64


def test_correctness_timeout_is_timeout_fail(ws: Workspace, fakes: Fakes) -> None:
    fakes.implementer.modes[1] = "slow"
    run(ws, fakes, max_iterations=1, repair_attempts=0)
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.TIMEOUT_FAIL
    assert r1.correctness.status is CorrectnessStatus.TIMEOUT_FAIL


@pytest.mark.parametrize(
    ("mode", "error_type", "reason"),
    [
        ("error", "implementer_error", "the implementer could not apply the plan: no tunable named BLOCK"),
        ("noop", "no_change", "the implementer left kernel.py unchanged"),
    ],
)
def test_implementer_that_cannot_act_fails(
    ws: Workspace, fakes: Fakes, mode: str, error_type: str, reason: str
) -> None:
    fakes.implementer.modes[1] = mode
    run(ws, fakes, max_iterations=1)
    assert subjects(ws)[-1] == f"V1: revert ({reason})"
    assert ws.memory.read(1).pitfalls_and_fixes[-1].error_type == error_type


def test_invalid_and_repeated_plans_fail(ws: Workspace, fakes: Fakes) -> None:
    fakes.planner.modes[2] = "invalid"
    fakes.planner.modes[3] = "repeat"
    run(ws, fakes, max_iterations=4)
    log = subjects(ws)
    assert log[3] == "V2: revert (invalid plan: plan evidence cites nothing in profiles/v2/)"
    assert log[4] == "V3: revert (the plan repeats the action of V1 (block_size {'BLOCK': 128}))"
    assert log[5].startswith("V4: ") and "BLOCK 128 -> 512" in log[5]  # 256 was V2's (invalid) plan
    assert ws.memory.read(3).pitfalls_and_fixes[-1].error_type == "repeated_plan"
    v2_marker = ws.repo.git.log("--format=%H").split()[2]  # the marker keeps the rejected plan, for audit
    assert changed_files(ws, v2_marker) == {"memory/v2.json", "plans/v2_plan.md"} | profile_summaries(2)


def test_planner_exception_is_an_iteration_failure(ws: Workspace, fakes: Fakes) -> None:
    fakes.planner.modes[1] = "error"
    run(ws, fakes, max_iterations=1)
    assert subjects(ws)[-1] == "V1: revert (the planner failed: planner backend exploded)"
    assert changed_files(ws, "HEAD") == {"memory/v1.json"} | profile_summaries(1)


def test_writes_of_a_failed_backend_are_undone_and_recorded(ws: Workspace, fakes: Fakes) -> None:
    kernel = ws.kernel_py.read_bytes()
    fakes.planner.modes[1] = "failure"
    run(ws, fakes, max_iterations=1)
    assert subjects(ws)[-1] == "V1: revert (the planner wrote outside plans/v1_plan.md: kernel.py (modified))"
    r1 = ws.memory.read(1)
    assert r1.pitfalls_and_fixes[0].error_message == "planner wrote outside its allowance: kernel.py (modified)"
    assert (r1.pitfalls_and_fixes[0].fix_applied or "").startswith("undone: git state restored")
    assert "tokens (plan): prompt=7" in r1.experience.notes
    assert ws.kernel_py.read_bytes() == kernel and ws.is_clean()


# -- failure budget ----------------------------------------------------------------------------------


def test_failure_budget_default_three(ws: Workspace, fakes: Fakes) -> None:
    fakes.gate.fail_at = {1, 2, 3, 4, 5}
    s = run(ws, fakes, max_iterations=10)
    assert s.stop is not None and s.stop.reason is StopReason.FAILURE_BUDGET
    assert s.stop.detail == "3 consecutive failed iterations (budget 3)"
    assert [x.split(":")[0] for x in subjects(ws)[1:]] == ["V0", "V1", "V2", "V3"]
    assert block_of(ws) == 64


def test_failure_budget_from_task_card_and_reset_by_a_pass(ws: Workspace, fakes: Fakes) -> None:
    commit_card(ws, max_consecutive_failures=2)
    fakes.gate.fail_at = {1, 3, 4}
    s = run(ws, fakes, max_iterations=10)
    assert s.stop is not None and s.stop.reason is StopReason.FAILURE_BUDGET
    assert [o.result.value for o in s.this_run] == ["PASS", "FAIL", "PASS", "FAIL", "FAIL"]


def test_stop_on_failure(ws: Workspace, fakes: Fakes) -> None:
    fakes.gate.fail_at = {2}
    s = run(ws, fakes, max_iterations=10, stop_on_failure=True)
    assert s.stop is not None and s.stop.reason is StopReason.STOP_ON_FAILURE
    assert s.iterations == 2 and block_of(ws) == 128


# -- write guard ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "mode", "path"),
    [
        ("planner", "trespass", "kernel.py (modified)"),
        ("implementer", "trespass", "reference.py (modified)"),
        ("implementer", "litter", "notes.txt (added)"),
    ],
)
def test_backend_writes_outside_allowance_are_reverted_and_recorded(
    ws: Workspace, fakes: Fakes, who: str, mode: str, path: str
) -> None:
    reference = ws.reference_py.read_text()
    getattr(fakes, who).modes[1] = mode
    run(ws, fakes, max_iterations=1)
    assert ws.reference_py.read_text() == reference and not (ws.root / "notes.txt").exists()
    assert "# planner was here" not in ws.kernel_py.read_text() and block_of(ws) == 64
    r1 = ws.memory.read(1)
    v = r1.pitfalls_and_fixes[0]
    assert v.error_type == "write_violation" and v.error_message.endswith(f"wrote outside its allowance: {path}")
    assert (v.fix_applied or "").startswith("undone: git state restored, protected files written back")
    assert r1.quality_gate.result is GateResult.FAIL and path in (r1.quality_gate.failure_reason or "")
    assert ws.is_clean()


def test_tooling_stages_are_guarded_too(ws: Workspace, fakes: Fakes) -> None:
    readme = ws.readme.read_text()
    fakes.profiler.trespass_at = {1}
    fakes.gate.trespass_at = {2}
    run(ws, fakes, max_iterations=2)
    assert ws.readme.read_text() == readme and "# gate was here" not in ws.kernel_py.read_text()
    log = subjects(ws)
    assert log[2] == "V1: revert (Stage 1 wrote outside profiles/v1/: README.md (modified))"
    assert log[3] == "V2: revert (the gate wrote outside memory/v2.json: kernel.py (modified))"
    assert block_of(ws) == 64


def test_aux_file_named_by_the_plan_may_be_written_and_is_committed(ws: Workspace, fakes: Fakes) -> None:
    from kernelopt.planning.plan import Plan

    original = fakes.planner.plan

    def plan_with_aux(ctx):  # type: ignore[no-untyped-def]
        out = original(ctx)
        assert out.plan is not None
        plan = Plan.model_validate({**out.plan.model_dump(), "targets": ["BLOCK", "helper.py"]})
        from .loop_fakes import render_plan

        ctx.workspace.plan_path(ctx.version).write_text(render_plan(plan))
        return out

    fakes.planner.plan = plan_with_aux  # type: ignore[method-assign]
    fakes.implementer.modes[1] = "aux"
    run(ws, fakes, max_iterations=1)
    assert changed_files(ws, "HEAD") == {
        "kernel.py",
        "helper.py",
        "memory/v1.json",
        "plans/v1_plan.md",
    } | profile_summaries(1)
    assert (ws.root / "helper.py").read_text() == "HELPER_BLOCK = 128\n"


def test_unplanned_aux_file_is_a_violation(ws: Workspace, fakes: Fakes) -> None:
    fakes.implementer.modes[1] = "aux"
    run(ws, fakes, max_iterations=1)
    assert not (ws.root / "helper.py").exists()
    assert "helper.py (added)" in subjects(ws)[-1]


# -- timing-only -----------------------------------------------------------------------------------


def test_timing_only_evidence_is_said_everywhere(ws: Workspace, fakes: Fakes) -> None:
    fakes.profiler.default = TIMING_ONLY
    s = run(ws, fakes, max_iterations=2)
    assert s.timing_only
    report = (ws.root / "baseline_report.md").read_text()
    assert "**Timing-only evidence**: hardware counters were unavailable (ERR_NVGPUCTRPERM" in report
    for n in (1, 2):
        plan = ws.plan_path(n).read_text()
        assert "**Timing-only evidence**: hardware counters were unavailable for this iteration" in plan
        r = ws.memory.read(n)
        assert r.profile_evidence.tool_used == (
            "timing-only (timing-only: ERR_NVGPUCTRPERM: no permission to read GPU performance counters)"
        )
        assert any(x.startswith("timing-only evidence: counters unavailable") for x in r.experience.notes)
    assert "timing-only" in subjects(ws)[2]
    assert all(o.timing_only for o in s.this_run)
    warnings = [e.message for e in fakes.sink.events if e.kind is EventKind.WARNING]
    assert any("timing-only evidence" in w for w in warnings)
    # the planner learns it from the evidence, never from an option (agent backends refuse unknown ones)
    ctx = fakes.planner.contexts[0]
    assert ctx.options == {} and ctx.summary is not None and not ctx.summary.counters_available


# -- protected content, git state, the user's task card --------------------------------------------


def test_an_implementer_that_commits_around_the_guard(ws: Workspace, fakes: Fakes) -> None:
    reference = ws.reference_py.read_bytes()
    fakes.implementer.modes[1] = "commit"
    s = run(ws, fakes, max_iterations=2)
    assert [o.result for o in s.this_run][:2] == [GateResult.PASS, GateResult.FAIL]
    assert ws.reference_py.read_bytes() == reference
    log = subjects(ws)
    assert "agent: faster" not in log and log[2].startswith("V1: revert (the implementer wrote outside its allowance")
    assert ws.repo.git.tag() == "" and "agent-branch" not in ws.repo.git.branch()
    parents = ws.repo.git.log("--format=%p").splitlines()
    assert all(len(p.split()) <= 1 for p in parents)
    r1 = ws.memory.read(1)
    assert "(commits made)" in r1.pitfalls_and_fixes[0].error_message
    assert s.this_run[2].result is GateResult.PASS  # V0's kernel and reference still pass afterwards
    assert ws.is_clean()


def test_a_task_card_edit_between_iterations_is_accepted(ws: Workspace, fakes: Fakes) -> None:
    edited = ws.readme.read_text() + "\nThe user adds context between iterations.\n"

    def user_edit(event: LoopEvent) -> None:
        if event.kind is EventKind.ITERATION_END and event.version == 1:
            ws.readme.write_text(edited)

    fakes.sink.hooks.append(user_edit)
    s = run(ws, fakes, max_iterations=2)
    assert [o.result for o in s.this_run] == [GateResult.PASS, GateResult.PASS, GateResult.PASS]
    assert ws.readme.read_text() == edited  # not reverted
    notes = [e.message for e in fakes.sink.events if e.kind is EventKind.NOTE]
    assert any("README.md (the task card) was edited: accepted" in n for n in notes)
    assert journal(ws)["protected"]["README.md"] is not None


def test_stage_times_and_profiles_are_journaled(ws: Workspace, fakes: Fakes) -> None:
    lat = fakes.gate.latency_of

    def slow(block: int) -> float:
        fakes.clock.now += 2.0
        return lat(block)

    fakes.gate.latency_of = slow
    s = run(ws, fakes, max_iterations=2)
    assert s.profiles_taken == 3 and journal(ws)["profiles_taken"] == 3
    assert s.stage_seconds["gate"] == 4.0 and s.stage_seconds["baseline_gate"] == 2.0
