"""validate_plan: each Stage 2 rule refuses a plan with a precise one-line reason."""

from __future__ import annotations

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.memory.model import SearchLogEntry
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import Plan, PlanError
from kernelopt.planning.validate import validate_plan

from .data.planning import fakes

WIKI = SearchLogEntry(
    source="gpu-wiki", query="dram bandwidth bound", finding="wiki:x (block_size)", actionability="ok"
)


def _plan(**kw: object) -> Plan:
    base: dict[str, object] = dict(
        version=1,
        bottleneck_type="memory_bound",
        action_category=ActionCategory.BLOCK_SIZE,
        targets=["BLOCK_SIZE"],
        parameters={"BLOCK_SIZE": 2048},
        current_values={"BLOCK_SIZE": 1024},
        action="Change BLOCK_SIZE from 1024 to 2048.",
        evidence=[
            "dram__throughput.avg.pct_of_peak_sustained_elapsed = 62.4 % [ncu.ncu-rep] -> below the roof -> block_size"
        ],
        search_log=[WIKI],
        expected_impact="Lower latency.",
        risks_and_rollback="Fewer programs. Rollback: BLOCK_SIZE = 1024.",
    )
    base.update(kw)
    return Plan.model_validate(base)


@pytest.fixture
def ws(add_workspace):
    fakes.install_summary(add_workspace, 1, "add_memory_bound")
    return add_workspace


def _refused(plan: Plan, ws, history=(), summary=None) -> str:
    with pytest.raises(PlanError) as info:
        validate_plan(plan, ws, list(history), summary)
    line = info.value.one_line()
    assert "\n" not in line
    return line


def test_valid_plan_passes(ws) -> None:
    validate_plan(_plan(), ws, [], None)  # summary read from profiles/v1/
    validate_plan(_plan(), ws, [], fakes.summary("add_memory_bound"))


def test_evidence_citing_nothing_measured(ws) -> None:
    bad = _plan(evidence=["dram__throughput.avg.pct_of_peak_sustained_elapsed = 97 % -> at the roof -> block_size"])
    assert "Input Evidence line 1 cites no metric value found in profiles/v1/" in _refused(bad, ws)
    # the value exists but under another name: a number alone is no citation
    bad = _plan(evidence=["something = 62.4 % -> x -> block_size"])
    assert "line 1 cites no metric value" in _refused(bad, ws)
    # a number only in the action part (the new knob value) proves nothing
    bad = _plan(evidence=["waves_per_sm is high -> x -> set waves_per_sm=31"])
    assert "line 1 cites no metric value" in _refused(bad, ws)


def test_evidence_rounding_and_names(ws) -> None:
    ok = [
        "dram_throughput_pct 62 % -> below the roof -> block_size",  # kernelopt name, rounded
        "long scoreboard stalls 63.0 % of samples -> latency -> block_size",  # stall reason, spaced
        "CPIStall estimates 18.2 % -> latency -> block_size",  # profiler rule id + estimate
        "dram__bytes.sum.per_second = 2.984e+03 GB/s -> x -> block_size",  # Metric.source name, 4 digits
    ]
    validate_plan(_plan(evidence=ok), ws, [], None)


def test_evidence_from_text_artifact(ws) -> None:
    (ws.profile_dir(1) / "pmc").mkdir()
    (ws.profile_dir(1) / "pmc" / "counters.csv").write_text("Counter,Value\nSQ_LDS_BANK_CONFLICT,123456\n")
    good = "pmc/counters.csv: SQ_LDS_BANK_CONFLICT = 123456 -> LDS bank conflicts -> block_size"
    validate_plan(_plan(evidence=[good]), ws, [], None)
    wrong_value = "pmc/counters.csv: SQ_LDS_BANK_CONFLICT = 999 -> LDS bank conflicts -> block_size"
    assert "cites no metric value" in _refused(_plan(evidence=[wrong_value]), ws)
    other_file = "pmc/other.csv: SQ_LDS_BANK_CONFLICT = 123456 -> LDS bank conflicts -> block_size"
    assert "cites no metric value" in _refused(_plan(evidence=[other_file]), ws)


def test_evidence_shape(ws) -> None:
    assert "has no evidence line" in _refused(_plan(evidence=[]), ws)
    line = _refused(_plan(evidence=["dram_throughput_pct 62.4 % means memory bound"]), ws)
    assert "Input Evidence line 1 is not 'evidence -> inference -> action'" in line


def test_no_summary_no_citation(add_workspace) -> None:
    line = _refused(_plan(), add_workspace)
    assert "cites no metric value found in profiles/v1/ (an artifact (there is no summary.json)" in line


def test_several_actions_via_parameters(ws) -> None:
    bad = _plan(parameters={"BLOCK_SIZE": 2048, "num_warps": 8})
    line = _refused(bad, ws)
    assert "parameter 'num_warps' is a num_warps/occupancy knob, which 'block_size' does not move" in line
    assert "several actions in one plan" in line
    # a tiling plan may move two tile sizes; unknown knobs are not judged
    validate_plan(_plan(action_category="tiling", parameters={"BLOCK_M": 128, "BLOCK_N": 128}), ws, [], None)
    validate_plan(_plan(parameters={"BLOCK_SIZE": 2048, "EVEN_K": True}), ws, [], None)


def test_zero_actions_and_unknown_category(ws) -> None:
    assert "describes no change (zero actions)" in _refused(_plan(action="  "), ws)
    bogus = _plan().model_copy(update={"action_category": "make_it_fast"})
    assert "unknown action category 'make_it_fast'" in _refused(bogus, ws)


def test_timing_only_must_be_said(ws) -> None:
    fakes.install_summary(ws, 1, "timing_only")
    ev = ["achieved_bandwidth_gbps = 2131 GB/s [timing.json] -> below the roof -> block_size"]
    line = _refused(_plan(evidence=ev), ws)
    assert "hardware counters were unavailable for this version (ERR_NVGPUCTRPERM" in line
    assert "planned from timing-only evidence" in line
    plan = _plan(evidence=ev, counters_available=False)
    validate_plan(plan, ws, [], None)
    assert "Planned from timing-only evidence" in render_plan(plan)


def test_search_log_order(ws) -> None:
    web = SearchLogEntry(source="web", query="q", finding="use wider loads", actionability="idea")
    ref = SearchLogEntry(source="reference-project", query="q", finding="a.py:3", actionability="none")
    assert "has no gpu-wiki row" in _refused(_plan(search_log=[]), ws)
    assert "has no gpu-wiki row" in _refused(_plan(search_log=[web]), ws)
    assert "row 2 searches gpu-wiki after a later source" in _refused(_plan(search_log=[ref, WIKI]), ws)
    assert "row 3 searches reference-project after a later source" in _refused(_plan(search_log=[WIKI, web, ref]), ws)
    validate_plan(_plan(search_log=[WIKI, ref, web]), ws, [], None)
    other = SearchLogEntry(source="profile-rules", query="q", finding="f", actionability="a")
    validate_plan(_plan(search_log=[other, WIKI, other]), ws, [], None)


def test_web_before_configured_reference_project(ws_root, tmp_path) -> None:
    from kernelopt.workspace import Workspace

    from .conftest import KERNELS

    card = tmp_path / "README.md"
    card.write_text("---\nreference_project: ../refproj\n---\ntask\n")
    w = Workspace.create(
        "refd", kernel=KERNELS / "add_kernel.py", reference=KERNELS / "add_reference.py", root=ws_root, task_card=card
    )
    fakes.install_summary(w, 1, "add_memory_bound")
    web = SearchLogEntry(source="web", query="q", finding="use wider loads", actionability="idea")
    assert "searches the web but not the reference project README.md names" in _refused(
        _plan(search_log=[WIKI, web]), w
    )


def test_web_row_with_hardware_figure(ws) -> None:
    web = SearchLogEntry(source="web", query="h200", finding="H200 moves 4.8 TB/s; use wider loads", actionability="x")
    line = _refused(_plan(search_log=[WIKI, web]), ws)
    assert "web Search Log row states hardware figure '4.8 TB/s'" in line
    skipped = SearchLogEntry(source="web", query="(not searched)", finding="not configured", actionability="skipped")
    validate_plan(_plan(search_log=[WIKI, skipped]), ws, [], None)


def test_tried_action_in_unmasked_memory(ws) -> None:
    tried = fakes.record(0, "block_size", {"BLOCK_SIZE": [1024, 2048]})
    line = _refused(_plan(), ws, [tried])
    assert "action block_size (BLOCK_SIZE=2048) was already tried in v0 (unmasked memory)" in line
    # masked records are not active data: the same action may be planned again
    validate_plan(_plan(), ws, [tried.model_copy(update={"masked": True})], None)
    # another value of the same knob is a new action
    validate_plan(_plan(parameters={"BLOCK_SIZE": 4096}), ws, [tried], None)
    # a float-valued record of the same change is the same action
    as_float = fakes.record(0, "block_size", {"BLOCK_SIZE": [1024.0, 2048.0]})
    assert "already tried in v0" in _refused(_plan(), ws, [as_float])


def test_tried_code_action_and_past_plan_file(ws) -> None:
    code = _plan(action_category="coalescing", parameters={}, current_values={}, targets=["kernel.py:12"])
    rec = fakes.record(0, "coalescing")
    assert "action coalescing (no parameters) was already tried in v0" in _refused(code, ws, [rec])
    # the record holds no knob changes (the iteration failed before Stage 3 applied them):
    # the plan file of that version still says what was tried
    failed = fakes.record(0, "block_size", quality_gate={"result": "FAIL"})
    ws.plan_path(0).write_text(render_plan(_plan(version=0)))
    assert "already tried in v0" in _refused(_plan(), ws, [failed])
    # ... and a masked record's plan does not count
    validate_plan(_plan(), ws, [failed.model_copy(update={"masked": True})], None)


def test_a_helper_named_like_an_installed_module_is_refused_with_its_reason(ws, tmp_path, monkeypatch) -> None:
    """late19 z2: review19 r4 left a plan's ``.py`` target out of Stage 3's allowance where an installed module takes
    its name, and said nothing: the plan passed, the implementer wrote the helper the plan asked for, and its write
    failed as outside the allowance with no word of why. The plan is refused naming the module and where it is."""
    from kernelopt.stages.allowance import aux_files_of
    from kernelopt.stages.plan import MarkdownPlanReader

    site = tmp_path / "site-packages"
    (site / "utils").mkdir(parents=True)
    (site / "utils" / "__init__.py").write_text("")  # a distribution that ships a top-level `utils`
    monkeypatch.syspath_prepend(str(site))
    reader = MarkdownPlanReader()
    for target, module, where in [
        ("utils.py", "utils", site / "utils" / "__init__.py"),
        ("utils/tiles.py", "utils", site / "utils" / "__init__.py"),
        ("json.py", "json", "the standard library or the harness's own imports"),
    ]:
        plan = _plan(targets=["BLOCK_SIZE", f"{target}:3"])
        assert aux_files_of(plan) == []
        with pytest.raises(PlanError) as info:
            reader.validate(plan, ws, [], None)
        line = info.value.one_line()
        assert f"target {target}: a module {module} is imported from {where}, " in line, line
        assert line.endswith(f"(kernel_{module}.py)")
    plan = _plan(targets=["BLOCK_SIZE", "kernel.py:12", "kernel_utils.py", "reference.py"])
    reader.validate(plan, ws, [], None)  # kernel.py, a free name and a protected file (left out, as before) pass
    assert aux_files_of(plan) == ["kernel_utils.py"]
