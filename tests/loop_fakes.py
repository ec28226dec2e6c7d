"""Deterministic collaborators for the loop tests: a replay profiler, a block-size planner, a regex
implementer and a gate with a latency model. Each can misbehave on request (fail, hang as a timeout,
write outside its allowance, or be killed at a chosen point).

The fakes return the real result models (``GateReport``, ``CorrectnessReport``, ``ImplementOutcome``,
``PlanOutcome``), so a field the real code lacks fails when the fake builds it.

The kernel under test (tests/data/loop/kernel.py) has ``BLOCK = <n>``; the fake gate's latency is
``LATENCY_US[BLOCK]``. Markers written into kernel.py by the fake implementer steer the fake harness:
``# BUG`` fails correctness, ``# SLOW`` times out the correctness check, ``# HANG`` times out the gate.
"""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelopt.actions import ActionCategory
from kernelopt.backends.protocol import BackendFailure, ImplementOutcome, PlanOutcome, StageContext
from kernelopt.errors import UsageError
from kernelopt.evidence.model import ProfileSummary
from kernelopt.evidence.summary import write_summary
from kernelopt.harness.gate import GateReport
from kernelopt.harness.model import CorrectnessReport
from kernelopt.loop.protocols import Collaborators, EventKind, LoopEvent, Stage
from kernelopt.memory.model import (
    CorrectnessStatus,
    GateResult,
    IterationRecord,
    QualityGate,
    ReferenceSpeedup,
    SearchLogEntry,
    version_label,
)
from kernelopt.planning.plan import Plan
from kernelopt.profiling.reuse import reuse_note
from kernelopt.workspace import Workspace

DATA = Path(__file__).parent / "data" / "loop"
MEMORY_BOUND = DATA / "summary_memory_bound.json"
TIMING_ONLY = DATA / "summary_timing_only.json"

N_ELEMENTS = 4096
BYTES_MOVED = 3 * N_ELEMENTS * 4  # fp32 add: read x, y, write out
FLOPS = N_ELEMENTS
LATENCY_US = {64: 100.0, 128: 60.0, 256: 40.0, 512: 30.0, 1024: 45.0, 2048: 80.0, 4096: 90.0}
BLOCK_SEQUENCE = (128, 256, 512, 1024, 2048, 4096)
_BLOCK_RE = re.compile(r"^BLOCK = (\d+)", re.M)
_PLAN_RE = re.compile(r"```json\n(.*?)\n```", re.S)


class Killer:
    """Raises (or SIGKILLs the process) once, at an armed (point, version)."""

    def __init__(self) -> None:
        self.armed: tuple[str, int] | None = None
        self.hard = False
        self.exc: type[BaseException] = KeyboardInterrupt
        self.fired: list[tuple[str, int]] = []

    def arm(
        self, point: str, version: int, *, hard: bool = False, exc: type[BaseException] = KeyboardInterrupt
    ) -> None:
        self.armed, self.hard, self.exc = (point, version), hard, exc

    def check(self, point: str, version: int) -> None:
        if self.armed == (point, version):
            self.armed = None
            self.fired.append((point, version))
            if self.hard:
                os.kill(os.getpid(), signal.SIGKILL)
            raise self.exc(f"simulated kill at {point} of V{version}")


def block_of(ws: Workspace) -> int:
    m = _BLOCK_RE.search(ws.kernel_py.read_text())
    assert m, "kernel.py lost its BLOCK line"
    return int(m.group(1))


# -- Stage 1 ---------------------------------------------------------------------------------------


class ReplayProfiler:
    """Serves recorded ProfileSummary JSON files (per version, default the memory-bound one)."""

    def __init__(self, killer: Killer, *, default: Path = MEMORY_BOUND, per_version: dict[int, Path] | None = None):
        self.killer = killer
        self.default = default
        self.per_version = per_version or {}
        self.trespass_at: set[int] = set()
        self.reused_at: dict[int, int] = {}  # version -> the version whose profile it copies (Stage 1's reuse)
        self.calls: list[int] = []

    def profile(self, workspace: Workspace, version: int) -> ProfileSummary:
        self.calls.append(version)
        summary = ProfileSummary.model_validate_json(self.per_version.get(version, self.default).read_text())
        summary.version = version_label(version)
        if version in self.reused_at:
            summary.notes.append(reuse_note(self.reused_at[version]))
        folder = workspace.profile_dir(version)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "profile.log").write_text(f"replayed for v{version} (kernel BLOCK={block_of(workspace)})\n")
        self.killer.check("profile", version)
        if version in self.trespass_at:
            (workspace.root / "README.md").write_text("overwritten by the profiler\n")
        write_summary(folder, summary)
        return summary


# -- Stage 2 ---------------------------------------------------------------------------------------


def render_plan(plan: Plan) -> str:
    return f"# Plan V{plan.version}\n\n{plan.action}\n\n```json\n{plan.model_dump_json(indent=2)}\n```\n"


class FakePlanReader:
    def parse(self, text: str) -> Plan:
        m = _PLAN_RE.search(text)
        if not m:
            raise UsageError("plan has no json block")
        try:
            return Plan.model_validate_json(m.group(1))
        except ValueError as exc:
            raise UsageError(f"plan json invalid: {str(exc).splitlines()[0]}") from None

    def validate(self, plan: Plan, workspace: Workspace, history: list[IterationRecord], summary: Any) -> None:
        if not any(f"profiles/v{plan.version}/" in e for e in plan.evidence):
            raise UsageError(f"plan evidence cites nothing in profiles/v{plan.version}/")


class BlockPlanner:
    """Proposes the next untried BLOCK of BLOCK_SEQUENCE; modes per version: ``repeat``, ``invalid``,
    ``trespass``, ``error``, ``none``."""

    name = "fake-planner"

    def __init__(self, killer: Killer, reader: FakePlanReader) -> None:
        self.killer = killer
        self.reader = reader
        self.modes: dict[int, str] = {}
        self.calls: list[int] = []
        self.contexts: list[StageContext] = []

    def _tried(self, ctx: StageContext) -> list[int]:
        out = []
        for r in ctx.history:
            p = ctx.workspace.plan_path(r.number)
            if r.number > 0 and p.is_file():
                out.append(int(self.reader.parse(p.read_text()).parameters["BLOCK"]))
        return out

    def plan(self, ctx: StageContext) -> PlanOutcome:
        self.calls.append(ctx.version)
        self.contexts.append(ctx)
        mode = self.modes.get(ctx.version, "")
        if mode == "error":
            raise UsageError("planner backend exploded")
        if mode == "failure":  # a backend whose agent wrote outside its allowance, then failed
            ctx.workspace.kernel_py.write_text(ctx.workspace.kernel_py.read_text() + "# stray agent write\n")
            raise BackendFailure("agent-cli planner: the agent exited with status 1", tokens={"prompt": 7})
        tried = self._tried(ctx)
        if mode == "repeat" and tried:
            block = tried[0]
        else:
            left = [b for b in BLOCK_SEQUENCE if b not in tried]
            if not left or mode == "none":
                return PlanOutcome(plan=None, reason="every block size in the sequence was tried")
            block = left[0]
        n = ctx.version
        plan = Plan(
            version=n,
            bottleneck_type="memory_bound",
            action_category=ActionCategory.BLOCK_SIZE,
            targets=["BLOCK"],
            parameters={"BLOCK": block},
            action=f"set BLOCK to {block}",
            evidence=[f"profiles/v{n}/summary.json: memory_throughput_pct 72.4 % -> memory-bound -> try block_size"],
            search_log=[
                SearchLogEntry(source="gpu-wiki", query="memory_bound block_size", finding="t", actionability="high")
            ],
            expected_impact="lower latency",
            risks_and_rollback="revert kernel.py",
            counters_available=ctx.summary.counters_available if ctx.summary else True,
            planner=self.name,
            # ``launches``: one launch of two, the other not yet tuned (breaker4 case h11)
            untuned_launches=["launch _other (kernel.py:9)"] if mode == "launches" else [],
        )
        path = ctx.workspace.plan_path(n)
        text = render_plan(plan)
        if mode == "invalid":
            text = text.replace(f"profiles/v{n}/", "nowhere/")
        path.write_text(text[: len(text) // 2] if mode == "torn" else text)
        self.killer.check("plan", n)
        if mode == "trespass":
            ctx.workspace.kernel_py.write_text(ctx.workspace.kernel_py.read_text() + "# planner was here\n")
        return PlanOutcome(plan=plan, tokens={"prompt": 10, "completion": 5} if mode == "tokens" else {})


# -- Stage 3 ---------------------------------------------------------------------------------------


class BlockImplementer:
    """Sets BLOCK as planned. Modes per version: ``bug`` (broken first try, repaired on retry),
    ``always_bug``, ``slow`` (correctness timeout), ``hang`` (gate timeout), ``regress`` (BLOCK 4096),
    ``trespass`` (edits reference.py), ``litter`` (creates notes.txt), ``noop``, ``error``,
    ``half`` (writes half of kernel.py, then the killer fires), ``aux`` (edits helper.py too),
    ``commit`` (poisons reference.py and commits everything with a tag and a branch, as a cheating agent
    would)."""

    name = "fake-implementer"

    def __init__(self, killer: Killer) -> None:
        self.killer = killer
        self.modes: dict[int, str] = {}
        self.attempts: list[tuple[int, int, str | None]] = []
        self.wall_left: list[float | None] = []

    def implement(self, ctx: StageContext) -> ImplementOutcome:
        assert ctx.plan is not None
        n = ctx.version
        self.attempts.append((n, ctx.attempt, ctx.failure))
        self.wall_left.append(ctx.wall_left_s)
        mode = self.modes.get(n, "")
        ws = ctx.workspace
        if mode == "error":
            return ImplementOutcome(changed=False, error="no tunable named BLOCK")
        if mode == "noop":
            return ImplementOutcome(changed=False, description="nothing")
        if mode == "kept_nothing":  # a tuning session that ran and found nothing better
            return ImplementOutcome(changed=False, error="the tuning session kept nothing", no_gain=True)
        before = block_of(ws)
        after = 4096 if mode == "regress" else int(ctx.plan.parameters["BLOCK"])
        text = _BLOCK_RE.sub(f"BLOCK = {after}", ws.kernel_py.read_text(), count=1)
        text = text.replace("# BUG\n", "")
        if mode == "always_bug" or (mode == "bug" and ctx.attempt == 0):
            text += "# BUG\n"
        if mode == "slow":
            text += "# SLOW\n"
        if mode == "hang":
            text += "# HANG\n"
        if mode == "half":
            ws.kernel_py.write_text(text[: len(text) // 2])
            self.killer.check("implement", n)
        ws.kernel_py.write_text(text)
        if mode == "aux":
            (ws.root / "helper.py").write_text(f"HELPER_BLOCK = {after}\n")
        self.killer.check("implement", n)
        if mode == "trespass":
            (ws.root / "reference.py").write_text("# replaced by a cheating implementer\n")
        if mode == "litter":
            (ws.root / "notes.txt").write_text("scratch\n")
        if mode == "commit":
            (ws.root / "reference.py").write_text("def reference(x, y):\n    return x * 0\n")
            ws.repo.git.add("-A")
            ws.repo.git.commit("-q", "-m", "agent: faster")
            ws.repo.git.tag("agent-tag")
            ws.repo.git.branch("agent-branch")
        return ImplementOutcome(
            changed=True, description=f"BLOCK {before} -> {after}", knob_changes={"BLOCK": (before, after)}
        )


# -- Stage 3 correctness and Stage 4 ----------------------------------------------------------------


def correctness(passed: bool, status: CorrectnessStatus, rel_err: float | None, message: str) -> CorrectnessReport:
    return CorrectnessReport(passed=passed, status=status, rel_err=rel_err, message=message, device="cpu")


class GateReportWithReference(GateReport):
    """GateReport plus the reference latency the ``reference`` work (issue 16) adds to the real model;
    used only by the one test of the speedup-over-reference stop, until then."""

    reference_latency_us: float | None = None


class FakeGate:
    """Latency = LATENCY_US[BLOCK]; FAIL on a regression over 2 % against ``previous``."""

    def __init__(self, killer: Killer) -> None:
        self.killer = killer
        self.latency_of: Callable[[int], float] = lambda b: LATENCY_US[b]
        self.reference_latency_us: float | None = None
        self.trespass_at: set[int] = set()
        self.fail_at: set[int] = set()
        self.write_record = True
        self.device = "NVIDIA H200"  # what the records say the versions were timed on
        self.timing_method = "cuda_graph, 100 launch(es)/sample, 40 samples"
        self.validated: list[tuple[int, int | None, int]] = []
        self.checked: list[int] = []

    def check_correctness(self, workspace: Workspace) -> CorrectnessReport:
        text = workspace.kernel_py.read_text()
        self.checked.append(block_of(workspace))
        planned = [int(p.name[1:].split("_")[0]) for p in workspace.plans_dir.glob("v*_plan.md")]
        self.killer.check("correctness", max(planned, default=0))
        if "# SLOW" in text:
            return correctness(False, CorrectnessStatus.TIMEOUT_FAIL, None, "case 0 ran past 30 s")
        if "# BUG" in text:
            return correctness(False, CorrectnessStatus.FAIL, 0.5, "max abs err 1.0 at index 7")
        return correctness(True, CorrectnessStatus.PASS, 1e-7, "1 case(s) passed")

    def validate(self, workspace: Workspace, version: int, *, previous: int | None, plan: Plan | None) -> GateReport:
        block = block_of(workspace)
        self.validated.append((version, previous, block))
        store = workspace.memory
        record = store.read(version) if store.exists(version) else IterationRecord(version=version_label(version))
        self.killer.check("gate", version)
        text = workspace.kernel_py.read_text()
        lat = self.latency_of(block)
        p = record.performance
        p.latency_us = lat
        p.tflops = FLOPS / (lat * 1e-6) / 1e12
        p.bandwidth_gbps = BYTES_MOVED / (lat * 1e-6) / 1e9
        p.gpu = self.device
        p.timing_method = self.timing_method
        if self.reference_latency_us is not None:  # what the real gate measures beside the candidate
            p.speedup_vs_reference = ReferenceSpeedup(
                eager=self.reference_latency_us / lat, eager_latency_us=self.reference_latency_us
            )
        record.correctness.status = CorrectnessStatus.PASS
        record.correctness.rel_err = 1e-7
        result, reason, speedup = GateResult.PASS, None, None
        if previous is not None:
            prev = store.read(previous).performance.latency_us
            assert prev is not None
            speedup = prev / lat
            p.comparison_with_previous.speedup = speedup
            p.comparison_with_previous.latency_delta = 100.0 * (lat - prev) / prev
            if lat > prev * 1.02:
                result, reason = GateResult.FAIL, f"regression: {lat:g} us vs {prev:g} us (V{previous})"
        if "# HANG" in text:
            result, reason = GateResult.TIMEOUT_FAIL, "case 0 exceeded the 30 s timeout"
            p.latency_us = p.tflops = p.bandwidth_gbps = None
        if version in self.fail_at:
            result, reason = GateResult.FAIL, "injected failure"
        record.quality_gate = QualityGate(result=result, failure_reason=reason)
        if self.write_record:
            store.write(record)
        if version in self.trespass_at:
            workspace.kernel_py.write_text(text + "# gate was here\n")
        fields: dict[str, Any] = {
            "result": result,
            "failure_reason": reason,
            "latency_us": p.latency_us,
            "speedup_vs_previous": speedup,
            "record": record,
            "version": version,
            "previous": previous,
            "correctness": correctness(True, CorrectnessStatus.PASS, 1e-7, "1 case(s) passed"),
        }
        if self.reference_latency_us is not None:
            return GateReportWithReference(**fields, reference_latency_us=self.reference_latency_us)
        return GateReport(**fields)


@dataclass
class FakeCeilings:
    memory_gbps: float | None
    matmul_tflops: dict[str, float] = field(default_factory=dict)
    memory_stream: str | None = "copy"


class FixedCeilings:
    def __init__(self, ceilings: FakeCeilings | None) -> None:
        self.value = ceilings
        self.asked: list[str | None] = []

    def ceilings(self, gpu_name: str | None) -> FakeCeilings | None:
        self.asked.append(gpu_name)
        return self.value


class RecordingSink:
    """Keeps every event; the killer can fire on (event kind, version)."""

    def __init__(self, killer: Killer) -> None:
        self.killer = killer
        self.events: list[LoopEvent] = []
        self.hooks: list[Callable[[LoopEvent], None]] = []  # e.g. a user editing files between iterations

    def event(self, event: LoopEvent) -> None:
        self.events.append(event)
        for hook in self.hooks:
            hook(event)
        if event.version is not None:
            if event.kind is EventKind.COMMITTED:
                self.killer.check("committed", event.version)
            if event.kind is EventKind.STAGE_START and event.stage is Stage.RECORD:
                self.killer.check("record", event.version)
            if event.kind is EventKind.STAGE_START and event.stage is Stage.STOP:
                self.killer.check("stop", event.version)

    def stages(self, version: int) -> list[str]:
        return [
            e.stage.value
            for e in self.events
            if e.kind is EventKind.STAGE_START and e.version == version and e.stage is not None
        ]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Fakes:
    killer: Killer
    profiler: ReplayProfiler
    reader: FakePlanReader
    planner: BlockPlanner
    implementer: BlockImplementer
    gate: FakeGate
    ceilings: FixedCeilings
    sink: RecordingSink
    clock: Clock

    def collaborators(self) -> Collaborators:
        return Collaborators(
            profiler=self.profiler,
            planner=self.planner,
            plan_reader=self.reader,
            implementer=self.implementer,
            gate=self.gate,
            ceilings=self.ceilings,
            progress=self.sink,
            clock=self.clock,
        )


def make_fakes() -> Fakes:
    killer = Killer()
    reader = FakePlanReader()
    return Fakes(
        killer=killer,
        profiler=ReplayProfiler(killer),
        reader=reader,
        planner=BlockPlanner(killer, reader),
        implementer=BlockImplementer(killer),
        gate=FakeGate(killer),
        ceilings=FixedCeilings(None),
        sink=RecordingSink(killer),
        clock=Clock(),
    )


def write_card(ws: Workspace, **stop: Any) -> None:
    """Replace the workspace task card's stop_conditions (as a user editing README.md would)."""
    from kernelopt.taskcard import StopConditions

    card = ws.task_card()
    card.stop_conditions = StopConditions(**stop)
    ws.readme.write_text(card.render())


def commit_card(ws: Workspace, **stop: Any) -> None:
    write_card(ws, **stop)
    ws.commit(["README.md"], "task card: stop conditions")


def subjects(ws: Workspace) -> list[str]:
    return [s for _, s in reversed(ws.log(max_count=1000))]


def journal(ws: Workspace) -> dict[str, Any]:
    return json.loads((ws.state_dir / "loop_state.json").read_text())
