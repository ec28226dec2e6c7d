"""Prompts rendered from package templates and workspace state, and `kernelopt prompt`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.backends.prompts import PromptChannel, plan_format, render_prompt, template
from kernelopt.cli.app import main
from kernelopt.errors import UsageError
from kernelopt.evidence.model import (
    BottleneckType,
    EvidenceItem,
    Finding,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)
from kernelopt.evidence.summary import write_summary
from kernelopt.stages.implement import stage_context

from .backends_support import make_plan, make_ws, write_plan


def _summary() -> ProfileSummary:
    finding = Finding(
        rule_id="nv.long_scoreboard",
        symptom="memory_latency_bound",
        evidence=[
            EvidenceItem(
                metric="smsp__pcsamp_warps_issue_stalled_long_scoreboard",
                value=61.0,
                unit="%",
                source="profiles/v2/ncu.ncu-rep",
            )
        ],
        inference="warps wait on global loads",
        action_categories=[ActionCategory.NUM_WARPS],
    )
    k = KernelEvidence(
        kernel_name="add_kernel",
        metrics={"duration_us": Metric(value=8.5, unit="us")},
        bottleneck=BottleneckType.LATENCY_BOUND,
        findings=[finding],
    )
    return ProfileSummary(vendor=Vendor.NVIDIA, tool_used="ncu 2025.3.1 --set full", kernels=[k])


@pytest.fixture
def ws(ws_root: Path):
    w = make_ws(ws_root, card={"gpu": "h200", "dtype": "fp32", "framework": "triton"})
    v0 = w.memory.create(0)
    v0.quality_gate.result = "PASS"
    v0.performance.latency_us = 10.0
    w.memory.write(v0)
    v1 = w.memory.create(1)
    v1.optimization.action_category = "block_size"
    v1.optimization.action_description = "BLOCK_SIZE 1024 -> 4096 (SECRET-MASKED-ATTEMPT)"
    v1.masked = True
    w.memory.write(v1)
    write_summary(w.profile_dir(2), _summary())
    return w


def test_templates_ship_as_package_data() -> None:
    expected = {
        "plan.md": "## Rules of this stage",
        "implement.md": "## Rules of this stage",
        "plan_output_agent.md": "NO_NEW_ACTION",
        "plan_output_api.md": "NO_NEW_ACTION",
        "implement_output_agent.md": "python test_kernel.py",
        "implement_output_api.md": "```diff",
        "plan_format.md": "## Search Log",
    }
    for name, marker in expected.items():
        assert marker in template(name), name
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert '"templates/prompts/*.md"' in pyproject  # shipped in the wheel, not only in the source tree


def test_plan_prompt_agent_channel(ws) -> None:
    ctx = stage_context(ws, 2, knowledge=["gpu-wiki nv-more-warps: more warps hide DRAM latency [wiki]"])
    text = render_prompt(ctx, "plan")
    assert text.startswith("# kernelopt Stage 2 (plan): workspace `add_launch_literal`, iteration V2")
    # the spec's Stage 2 rules
    for rule in (
        "Write only `plans/v2_plan.md`. Do not modify `kernel.py`",
        "Exactly one optimization action of exactly one category",
        "Cite evidence",
        "the built-in gpu-wiki (`kernelopt wiki search",
        "Do not repeat an action already tried",
    ):
        assert rule in text
    assert "smsp__pcsamp_warps_issue_stalled_long_scoreboard = 61 %" in text  # evidence summary
    assert "| add_kernel:num_warps | 4 | launch_kwarg |" in text  # knobs
    assert "- v0 | PASS | latency 10 us" in text  # history
    assert "SECRET-MASKED-ATTEMPT" not in text  # masked records never shown
    assert "gpu-wiki nv-more-warps" in text and "gpu: h200" in text
    assert "NO_NEW_ACTION:" in text and "```markdown" in text and "action_category: num_warps" in text
    assert f"The current kernel is `{ws.kernel_py}`" in text and "def add_kernel" not in text


def test_plan_prompt_api_channel_inlines_the_kernel(ws) -> None:
    text = render_prompt(stage_context(ws, 2), "plan", PromptChannel.API)
    assert "```python\n" in text and "def add_kernel(x_ptr" in text
    assert "Reply with the content of `plans/v2_plan.md` only" in text


def test_implement_prompt_with_plan_and_repair(ws) -> None:
    plan = make_plan(version=2)
    write_plan(ws, plan)
    ctx = stage_context(ws, 2, plan=plan)
    ctx.attempt, ctx.failure = 1, "case 1 (n=1000): rel_err 0.42 > 1e-05"
    text = render_prompt(ctx, "implement", "agent")
    assert text.startswith("# kernelopt Stage 3 (implement)")
    assert "one optimization category, `num_warps`, and nothing else" in text
    assert "run `python test_kernel.py`" in text and "Edit only `kernel.py`." in text
    assert "`kernel.py` defines `run(*inputs)`" in text
    assert "## Repair attempt 1" in text and "rel_err 0.42" in text
    assert "## The plan (plans/v2_plan.md)" in text and "action_category: num_warps" in text
    api = render_prompt(ctx, "implement", "api")
    assert "a unified diff against the `kernel.py` shown above" in api and "def add_kernel(x_ptr" in api


def test_implement_prompt_names_aux_files(ws) -> None:
    plan = make_plan("tiling", {"BLOCK_K": 64}, targets=["BLOCK_K", "csrc/tile.cuh"], version=2)
    text = render_prompt(stage_context(ws, 2, plan=plan), "implement")
    assert "Edit only `kernel.py` and the files the plan names (csrc/tile.cuh)." in text


def test_implement_prompt_needs_a_plan(ws) -> None:
    with pytest.raises(UsageError, match="no plan for v2"):
        render_prompt(stage_context(ws, 2), "implement")
    with pytest.raises(UsageError, match="unknown stage"):
        render_prompt(stage_context(ws, 2), "review")


def test_plan_format_parses_with_the_planning_parser() -> None:
    """Integration: the example plan the prompt shows is a valid plan file (runs once planning is merged)."""
    markdown = pytest.importorskip("kernelopt.planning.markdown")
    if not hasattr(markdown, "parse_plan"):
        pytest.skip("the planning package has no parse_plan")
    from kernelopt.backends.llm_api import fenced_blocks
    from kernelopt.backends.prompts import _sub

    for text in (
        plan_format(3, counters_available=False),
        _sub("plan_format.md", version=3, counters_available="false"),
    ):
        plan = markdown.parse_plan(fenced_blocks(text)[0][1])
        assert plan.version == 3 and plan.action_category is ActionCategory.NUM_WARPS
        assert plan.parameters == {"num_warps": 8} and plan.counters_available is False
        assert plan.search_log[0].source == "gpu-wiki"


def test_cli_prompt(ws, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prompt", str(ws.root), "--stage", "plan"]) == 0
    assert "iteration V2" in capsys.readouterr().out  # newest profiled version by default
    write_plan(ws, make_plan(version=2))
    assert main(["prompt", str(ws.root), "--stage", "implement", "--channel", "api", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 2 and data["channel"] == "api" and "Stage 3 (implement)" in data["prompt"]
    assert main(["prompt", str(ws.root), "--stage", "review"]) == 2
    err = capsys.readouterr().err
    assert "unknown stage 'review'; use plan or implement" in err and "channel" not in err
    assert main(["prompt", str(ws.root), "--stage", "plan", "--version", "-1"]) == 2  # not an internal error
    assert "Invalid value for '--version': version must be >= 0, got -1" in capsys.readouterr().err
    assert main(["prompt", str(ws.root), "--stage", "plan", "--version", "0"]) == 2
    assert "iterations 1 and later" in capsys.readouterr().err
    assert main(["prompt", str(ws.root), "--stage", "plan", "--version", "99"]) == 2
    assert "next iteration is v" in capsys.readouterr().err
