"""The CLI's wiring of the real stages: the exact names and call shapes, through stand-in modules."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kernelopt.errors import EnvironmentProblem, UsageError
from kernelopt.evidence.model import ProfileSummary, Vendor
from kernelopt.evidence.summary import read_summary
from kernelopt.loop.journal import RunSettings
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.wiring import (
    CPU_REASON,
    StageOneProfiler,
    build_collaborators,
    vendor_of,
)
from kernelopt.memory.model import GateResult, IterationRecord
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, MEMORY_BOUND


@pytest.fixture
def ws(ws_root: Path) -> Workspace:
    return open_or_create(DATA, name="loop", root=ws_root).workspace


@dataclass
class Calls:
    log: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)

    def fn(self, name: str, result: Any = None) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.log.append((name, args, kwargs))
            if isinstance(result, BaseException):
                raise result
            return result

        return call


def module(monkeypatch: pytest.MonkeyPatch, name: str, **attrs: Any) -> types.ModuleType:
    mod = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(mod, k, v)
    monkeypatch.setitem(sys.modules, name, mod)
    return mod


def test_build_collaborators_calls_the_real_stage_names(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    import kernelopt.loop.wiring as wiring
    import kernelopt.report.baseline as report_baseline
    import kernelopt.stages.plan as stage_plan

    calls = Calls()
    summary = ProfileSummary.model_validate_json(MEMORY_BOUND.read_text())
    monkeypatch.setattr(wiring.profiling, "profile", calls.fn("profile", summary))
    monkeypatch.setattr(stage_plan, "parse_plan", calls.fn("parse_plan", "PLAN"))
    monkeypatch.setattr(stage_plan, "validate_plan", calls.fn("validate_plan"))
    monkeypatch.setattr(stage_plan, "shadowing_target", calls.fn("shadowing_target"))  # late19's z2, after the rules
    monkeypatch.setattr(wiring, "check_correctness", calls.fn("check_correctness", "CORRECT"))
    monkeypatch.setattr(wiring, "validate", calls.fn("validate", "REPORT"))
    monkeypatch.setattr(wiring, "cached_ceilings", calls.fn("cached_ceilings", "CEILINGS"))
    monkeypatch.setattr(report_baseline, "render_baseline", calls.fn("render_baseline", "# report\n"))

    c = build_collaborators(ws, RunSettings(device="cuda"))
    assert type(c.planner).__name__ == "RulePlanner" and c.planner.options.knob_only is True  # type: ignore[attr-defined]
    assert type(c.implementer).__name__ == "RuleImplementer"
    assert c.implementer.options == {"device": "cuda"}  # candidates are timed where the gate runs
    assert c.profiler.profile(ws, 3) is summary
    assert c.plan_reader.parse("text") == "PLAN"
    c.plan_reader.validate("PLAN", ws, [], summary)  # type: ignore[arg-type]
    assert c.gate.check_correctness(ws) == "CORRECT"
    assert c.gate.validate(ws, 3, previous=2, plan=None) == "REPORT"
    assert c.ceilings.ceilings("H200") == "CEILINGS"
    record = IterationRecord(version="v0")
    text = c.baseline_renderer.render(workspace=ws, record=record, summary=summary, roofline_lines=["a", "b"])  # type: ignore[union-attr]
    assert text == "# report\n"  # the report package's renderer, called as it is
    assert calls.log == [
        ("profile", (ws, 3), {"vendor": Vendor.NVIDIA, "kernel_regex": None, "fast": False, "timeout_s": 900.0}),
        ("parse_plan", ("text",), {}),
        ("validate_plan", ("PLAN", ws, [], summary), {}),
        ("shadowing_target", ("PLAN",), {}),
        ("check_correctness", (ws,), {"device": "cuda"}),
        ("validate", (ws, 3), {"previous": 2, "plan": None, "device": "cuda", "baseline": False}),
        ("cached_ceilings", (), {"gpu_name": "H200"}),
        ("render_baseline", (ws, record, summary), {"roofline_lines": ["a", "b"]}),
    ]


def test_bad_backend_names_and_options_fail_before_any_stage(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KERNELOPT_AGENT_COMMAND", raising=False)
    with pytest.raises(UsageError, match="unknown planner backend 'nosuch'"):
        build_collaborators(ws, RunSettings(planner="nosuch"))
    with pytest.raises(UsageError, match="agent-cli: setting 'command' is required"):
        build_collaborators(ws, RunSettings(planner="agent-cli", implementer="agent-cli"))
    with pytest.raises(UsageError, match="agent-cli: unknown option 'timing_only'"):
        build_collaborators(
            ws, RunSettings(implementer="agent-cli"), implementer_options={"command": "true", "timing_only": True}
        )
    with pytest.raises(EnvironmentProblem, match="agent command not found: '/no/such/agent'"):
        build_collaborators(
            ws, RunSettings(planner="agent-cli"), planner_options={"command": "/no/such/agent {prompt_file}"}
        )
    c = build_collaborators(
        ws,
        RunSettings(planner="agent-cli", implementer="agent-cli"),
        planner_options={"command": "true {prompt_file}"},
        implementer_options={"command": "cat {prompt_file}"},
    )
    assert type(c.planner).__name__ == "AgentCliPlanner"


def test_cpu_device_profiles_timing_only_from_the_gate(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = Calls()
    monkeypatch.setattr("kernelopt.profiling.profile", calls.fn("profile"), raising=False)
    record = IterationRecord(version="v0")
    record.performance.latency_us = 12.5
    record.performance.bandwidth_gbps = 3.0
    record.quality_gate.result = GateResult.PASS
    ws.memory.write(record)
    s = StageOneProfiler(device="cpu").profile(ws, 1)
    assert calls.log == []  # no GPU profiler on --device cpu
    assert not s.counters_available and s.counters_unavailable_reason == CPU_REASON
    k = s.primary()
    assert k is not None and k.metric("duration_us") == 12.5 and k.metric("achieved_gbps") == 3.0
    f = k.findings[0]
    assert f.rule_id == "timing_only" and f.evidence[0].source == "memory/v0.json: performance.latency_us (CPU)"
    assert [e.metric for e in f.evidence] == ["duration_us", "hardware_counters", "achieved_gbps"]
    assert f.evidence[1].source == CPU_REASON
    assert "only timing (time.perf_counter on the CPU) and analytic byte/FLOP counts are known" in f.inference
    assert k.metrics["achieved_tflops"].missing_reason == "memory/v0.json has no performance.tflops"
    assert read_summary(ws.profile_dir(1)) == s


def test_vendor_of() -> None:
    assert vendor_of("NVIDIA") is Vendor.NVIDIA and vendor_of("amd") is Vendor.AMD
    assert vendor_of(None) is None and vendor_of("intel") is None
