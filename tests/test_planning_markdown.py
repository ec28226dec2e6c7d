"""plans/v<N>_plan.md: render -> parse round trip, tolerant reading, precise refusals."""

from __future__ import annotations

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.memory.model import SearchLogEntry
from kernelopt.planning.markdown import TIMING_ONLY_NOTE, parse_plan, render_plan
from kernelopt.planning.plan import Plan, PlanError, RiskLevel

from .data.planning.fakes import DATA

WIKI_ROW = SearchLogEntry(
    source="gpu-wiki",
    query="latency bound num_warps triton",
    finding="wiki:nv-num-warps-latency (num_warps)",
    actionability="actionable, chosen: num_warps: num_warps 4 -> 8",
)

KNOB_PLAN = Plan(
    version=3,
    bottleneck_type="latency_bound",
    action_category=ActionCategory.NUM_WARPS,
    targets=["num_warps"],
    parameters={"num_warps": 8},
    current_values={"num_warps": 4},
    action="Change `num_warps` from 4 to 8 at kernel.py:57; change nothing else.",
    evidence=[
        "smsp__pcsamp_warps_issue_stalled_long_scoreboard = 61 % [ncu.ncu-rep] -> warps wait on loads -> num_warps up"
    ],
    search_log=[WIKI_ROW],
    expected_impact="Lower latency; the profiler estimates up to 18.2 %.",
    expected_speedup_pct=18.2,
    risk_level=RiskLevel.LOW,
    risks_and_rollback="More registers per program.\nRollback: restore `num_warps` = 4.",
    planner="rules",
    references=["wiki:nv-num-warps-latency", "https://triton-lang.org/main/index.html"],
)

CODE_PLAN = Plan(
    version=0,
    bottleneck_type="memory_bound",
    action_category=ActionCategory.REDUCE_BYTES,
    targets=["kernel.py:21"],
    action="Read each row once (online softmax).\n\nKeep the running max and sum in registers.",
    evidence=[
        "dram__throughput.avg.pct_of_peak_sustained_elapsed = 88.1 % [ncu.ncu-rep] -> two passes over DRAM -> reduce_bytes",
        "a second line\nwith a continuation -> inference -> action",
    ],
    search_log=[
        WIKI_ROW,
        SearchLogEntry(source="reference-project", query="a | b", finding="x.py:3 (l2)\nsecond", actionability="none"),
        SearchLogEntry(source="web", query="(not searched)", finding="", actionability="skipped"),
    ],
    expected_impact="About half the DRAM traffic.",
    risk_level=RiskLevel.HIGH,
    risks_and_rollback="Numerics of the rescaling.",
    enabling_step=True,
)

TIMING_PLAN = Plan(
    version=12,
    bottleneck_type="memory_bound",
    action_category=ActionCategory.BLOCK_SIZE,
    targets=["BLOCK_SIZE"],
    parameters={"BLOCK_SIZE": 2048, "flag": True, "ratio": 0.5, "mode": "fast"},
    action="Double BLOCK_SIZE.",
    evidence=["duration_us = 31.5 us [timing.json] -> slow -> block_size"],
    search_log=[],
    expected_impact="Some.",
    risks_and_rollback="Fewer programs.",
    counters_available=False,
    planner=None,
)


@pytest.mark.parametrize("plan", [KNOB_PLAN, CODE_PLAN, TIMING_PLAN], ids=["knob", "code", "timing-only"])
def test_round_trip(plan: Plan) -> None:
    text = render_plan(plan)
    assert parse_plan(text, origin=f"plans/v{plan.version}_plan.md") == plan
    assert render_plan(parse_plan(text)) == text


def test_rendered_layout() -> None:
    text = render_plan(KNOB_PLAN)
    for heading in (
        "## Input Evidence",
        "## Search Log",
        "## This Iteration's Optimization Action",
        "## Expected Impact",
        "## Risks and Rollback",
    ):
        assert f"\n{heading}\n" in text
    assert "| Source | Query | Finding | Actionability |" in text
    assert "- **Category:** `num_warps`" in text and "- **Change:** `num_warps` 4 -> 8" in text
    assert text.startswith("---\nversion: 3\nbottleneck_type: latency_bound\naction_category: num_warps\n")
    assert TIMING_ONLY_NOTE in render_plan(TIMING_PLAN) and TIMING_ONLY_NOTE not in text
    assert "a \\| b" in render_plan(CODE_PLAN) and "(l2)<br>second" in render_plan(CODE_PLAN)


def test_hand_written_plan_is_read() -> None:
    plan = parse_plan((DATA / "handwritten_v4_plan.md").read_text(), origin="plans/v4_plan.md")
    assert plan.version == 4
    assert plan.bottleneck_type == "memory_bound"
    assert plan.action_category is ActionCategory.SOFTWARE_PIPELINING
    assert plan.parameters == {"num_stages": 3} and plan.current_values == {"num_stages": 2}
    assert plan.targets == ["num_stages"]
    assert plan.risk_level is RiskLevel.HIGH
    assert plan.counters_available is False  # said in prose: "timing-only"
    assert len(plan.evidence) == 2 and plan.evidence[1].startswith("kernel.sass: 14 LDG.E.32")
    assert [e.source for e in plan.search_log] == ["gpu-wiki", "reference-project"]
    assert plan.search_log[1].finding == "kernels/matmul.py:31 uses num_stages=3"
    assert plan.action.startswith("Deepen the software pipeline")
    assert "Keep `BLOCK_K`" in plan.action
    assert plan.expected_impact.startswith("Hide global-load latency")


def _valid() -> str:
    return render_plan(KNOB_PLAN)


def _swap(old: str, new: str) -> str:
    text = _valid()
    assert old in text
    return text.replace(old, new, 1)


BAD = [
    ("no front matter bottleneck", lambda: _swap("bottleneck_type: latency_bound\n", ""), "no bottleneck_type"),
    ("yaml", lambda: _swap("version: 3\n", "version: [3\n"), "front matter is not valid YAML"),
    (
        "unknown category",
        lambda: _swap("action_category: num_warps", "action_category: num_warp").replace(
            "**Category:** `num_warps`", "**Category:** `num_warp`"
        ),
        "unknown action category 'num_warp' (did you mean 'num_warps'?)",
    ),
    (
        "several categories on one line",
        lambda: _swap("**Category:** `num_warps`", "**Category:** `num_warps`, `block_size`"),
        "names several categories (num_warps, block_size)",
    ),
    (
        "two category lines",
        lambda: _swap("- **Category:** `num_warps`\n", "- **Category:** `num_warps`\n- **Category:** `tiling`\n"),
        "names several categories (num_warps, tiling)",
    ),
    (
        "several action headings",
        lambda: _swap("Change `num_warps` from 4", "### Action 1\nA.\n### Action 2\nChange `num_warps` from 4"),
        "holds several actions (Action 1, Action 2)",
    ),
    (
        "front matter lists two categories",
        lambda: _swap("action_category: num_warps", "action_category: [num_warps, tiling]"),
        "front matter action_category lists 2 categories",
    ),
    (
        "front matter and section disagree",
        lambda: _swap("**Category:** `num_warps`", "**Category:** `tiling`"),
        "front matter action_category 'num_warps' but This Iteration's Optimization Action says 'tiling'",
    ),
    (
        "zero actions",
        lambda: _swap("action_category: num_warps\n", "").replace("- **Category:** `num_warps`\n", ""),
        "no optimization action",
    ),
    (
        "category without a change",
        lambda: _swap("- **Change:** `num_warps` 4 -> 8\n", "").replace(
            "Change `num_warps` from 4 to 8 at kernel.py:57; change nothing else.", ""
        ),
        "names category 'num_warps' but describes no change",
    ),
    (
        "missing section",
        lambda: _swap("## Risks and Rollback", "## Risks of it all"),
        "missing section '## Risks and Rollback'",
    ),
    ("duplicate section", lambda: _valid() + "\n## Input Evidence\n- x\n", "section 'Input Evidence' appears twice"),
    (
        "search log not a table",
        lambda: "\n".join(ln for ln in _valid().splitlines() if not ln.startswith("|")).replace(
            "## Search Log\n", "## Search Log\n- gpu-wiki: looked up num_warps\n"
        ),
        "Search Log must be a table with columns Source | Query | Finding | Actionability",
    ),
    (
        "table without header",
        lambda: _swap("| Source | Query | Finding | Actionability |\n| --- | --- | --- | --- |\n", ""),
        "Search Log table has no 'Source' column",
    ),
    (
        "table column missing",
        lambda: _swap("| Source | Query | Finding | Actionability |", "| Source | Query | Result | Actionability |"),
        "Search Log table has no 'Finding' column",
    ),
    (
        "table row short",
        lambda: _swap("| gpu-wiki | latency bound num_warps triton |", "| gpu-wiki |"),
        "Search Log row 1 has",
    ),
    (
        "bad risk",
        lambda: _swap("risk_level: low", "risk_level: extreme"),
        "risk_level 'extreme' is not one of low, medium, high",
    ),
    ("bad version", lambda: _swap("version: 3", "version: three"), "version 'three' is not v<N> or a number"),
    (
        "empty risks",
        lambda: _valid().split("## Risks and Rollback")[0] + "## Risks and Rollback\n\n",
        "section 'Risks and Rollback' is empty",
    ),
    (
        "parameters not a mapping",
        lambda: _swap("parameters:\n  num_warps: 8\n", "parameters: 8\n"),
        "parameters must be a mapping",
    ),
    ("bad bool", lambda: _swap("enabling_step: false", "enabling_step: maybe"), "enabling_step must be true or false"),
]


@pytest.mark.parametrize(("case", "make", "reason"), BAD, ids=[b[0] for b in BAD])
def test_malformed_plans_are_refused(case: str, make, reason: str) -> None:
    with pytest.raises(PlanError) as info:
        parse_plan(make(), origin="plans/v3_plan.md")
    line = info.value.one_line()
    assert reason in line, line
    assert line.startswith("plans/v3_plan.md: ") and "\n" not in line


def test_version_from_file_name_and_title() -> None:
    text = _swap("version: 3\n", "")
    assert parse_plan(text, origin="plans/v3_plan.md").version == 3  # title "# Plan v3"
    untitled = text.replace("# Plan v3: num_warps\n", "")
    assert parse_plan(untitled, origin="plans/v7_plan.md").version == 7
    with pytest.raises(PlanError, match="no version"):
        parse_plan(untitled, origin="somewhere.md")


def test_a_tuning_session_is_a_new_action_once_the_kernel_changed() -> None:
    """The same session run again after another action changed kernel.py is a new action (issue 13: no
    category is banned for good); against the same kernel it repeats the old one."""
    session = TIMING_PLAN.model_copy(
        update={"parameters": {}, "current_values": {"BLOCK_SIZE": 1024}, "base_kernel_sha256": "a" * 64}
    )
    text = render_plan(session)
    assert "base_kernel_sha256" in text and parse_plan(text) == session
    assert session.is_tuning_session() and not TIMING_PLAN.is_tuning_session()
    same_kernel = session.model_copy(update={"version": 14})
    changed_kernel = session.model_copy(update={"version": 14, "base_kernel_sha256": "b" * 64})
    assert same_kernel.signature() == session.signature()
    assert changed_kernel.signature() != session.signature()


def test_an_older_plans_candidate_set_is_read_and_dropped() -> None:
    """A plan file from before one tuning session replaced the candidate set still parses: the set, its
    budget and what was pruned are dropped, the Candidates section is not read as part of the risks, and
    the plan is a tuning session of its targets."""
    session = TIMING_PLAN.model_copy(
        update={"parameters": {}, "current_values": {"BLOCK_SIZE": 1024}, "base_kernel_sha256": "a" * 64}
    )
    text = render_plan(session)
    old_front = (
        "candidate_budget: 4\ncandidates:\n- parameters: {BLOCK_SIZE: 2048}\n  evidence: up\n"
        "pruned: [BLOCK_SIZE=8192 cannot fit]\nbase_kernel_sha256:"
    )
    old = text.replace("base_kernel_sha256:", old_front, 1) + (
        "\n## Candidates\n\nBudget: 4 candidates per iteration.\n\n| # | Configuration | Evidence |\n"
        "| --- | --- | --- |\n| 1 | BLOCK_SIZE=2048 | up |\n"
    )
    assert "candidate_budget: 4" in old
    assert parse_plan(old) == session
