"""Knowledge search order, the reference project (path:line hits) and the web hook (no hardware figures)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.backends.rules import RulePlanner
from kernelopt.memory.model import SearchLogEntry
from kernelopt.planning.knowledge import Decision, KnowledgeSearch, KnowledgeSource, Query, categories_in
from kernelopt.planning.markdown import render_plan
from kernelopt.planning.plan import PlanError
from kernelopt.planning.reference import ReferenceIndex, tokenize
from kernelopt.planning.validate import check_search_log
from kernelopt.planning.web import (
    REMOVED,
    WebSearchConfig,
    build_argv,
    hardware_figures,
    strip_hardware_figures,
    web_search,
)
from kernelopt.proc import CommandResult, run_command

from .data.planning import fakes
from .test_planning_rules import SOFTMAX_KNOBS, make_ws, run_planner

FAKE_WEB = [sys.executable, str(fakes.DATA / "fake_web.py"), "{query}"]
FIGURES = ("4.8", "141", "4800", "1980", "132 SM", "50 MB")


def test_tokenize_splits_code_words() -> None:
    toks = tokenize("GROUP_SIZE_M = 128  # loadTile x")
    assert toks == ["group_size_m", "group", "size", "128", "loadtile", "load", "tile"]


def test_reference_project_hits_are_path_line(tmp_path: Path) -> None:
    root = fakes.copy_reference_project(tmp_path)
    index = ReferenceIndex.build(root)
    hits = index.search("vectorized float4 loads dram bandwidth", limit=3)
    assert hits and hits[0].path == "csrc/copy.cu"
    lines = (root / "csrc" / "copy.cu").read_text().splitlines()
    assert "float4" in lines[hits[0].line - 1] or "vectorized" in lines[hits[0].line - 1]
    assert hits[0].ref == f"csrc/copy.cu:{hits[0].line}"
    group = index.search("l2 rasterization GROUP_SIZE_M", limit=2)[0]
    assert group.path == "kernels/matmul.py" and "GROUP_SIZE_M" in group.text
    # hidden folders and non-source files are not indexed; nothing matches nonsense
    assert all(not h.path.startswith((".cache", "README")) for h in index.search("hidden skipped", limit=10))
    assert index.search("zyxwvut") == []
    assert index.search("vectorized float4 loads dram bandwidth", limit=3) == hits  # deterministic


def test_reference_project_is_second(ws_root: Path) -> None:
    ref = fakes.copy_reference_project(ws_root)
    ws = make_ws(ws_root, "refws", f"framework: triton\ngpu: H200\nreference_project: {ref}\n")
    # only the reduce_bytes record in the wiki: no knob path there in knob-only mode
    wiki = fakes.FakeWiki(records=[fakes.RECORDS[0]])
    out = run_planner(ws, "softmax_memory_bound", SOFTMAX_KNOBS, knob_only=True, wiki_search=wiki)
    plan = out.plan
    assert plan is not None
    sources = [e.source for e in plan.search_log]
    assert sources[0] == "gpu-wiki" and "reference-project" in sources and "web" not in sources
    wiki_rows = [e for e in plan.search_log if e.source == "gpu-wiki"]
    assert all(e.actionability.startswith("not actionable: reduce_bytes") for e in wiki_rows)
    ref_rows = [e for e in plan.search_log if e.source == "reference-project"]
    assert any("csrc/copy.cu:" in e.finding for e in ref_rows)
    assert plan.action_category is ActionCategory.VECTORIZED_ACCESS
    assert plan.parameters == {"BLOCK_SIZE": 2048}
    assert any(r.startswith("csrc/copy.cu:") for r in plan.references)
    assert "csrc/copy.cu:" in plan.action


def test_relative_reference_project_and_missing_folder(ws_root: Path) -> None:
    ws = make_ws(ws_root, "relref", "framework: triton\nreference_project: ../no_such_project\n")
    wiki = fakes.FakeWiki(records=[fakes.RECORDS[0]])
    out = run_planner(ws, "softmax_memory_bound", SOFTMAX_KNOBS, knob_only=True, wiki_search=wiki)
    rows = [e for e in out.plan.search_log if e.source == "reference-project"] if out.plan else []
    assert rows and "no_such_project not found" in rows[0].finding


def test_strip_hardware_figures() -> None:
    text = "The H200 peak bandwidth is 4800 GB/s; L2 is 50 MB. Use BLOCK_SIZE 1024 and num_warps=8 for 2x speed."
    clean, removed = strip_hardware_figures(text)
    assert "4800" not in clean and "50 MB" not in clean and REMOVED in clean
    assert "BLOCK_SIZE 1024" in clean and "num_warps=8" in clean and "2x" in clean
    assert set(removed) == {"4800 GB/s", "50 MB"}
    assert hardware_figures("it runs at 1.98 GHz on 132 SMs") == ["1.98 GHz", "132 SMs"]
    assert hardware_figures("memory bandwidth of 3.35 per second") == ["3.35"]  # spec sentence, no unit
    assert hardware_figures("try 4 warps and BLOCK_M=128") == []


def test_web_search_command(tmp_path: Path) -> None:
    cfg = WebSearchConfig(tuple(FAKE_WEB), timeout_s=30)
    assert build_argv(cfg, "q w")[-1] == "q w"
    assert build_argv(WebSearchConfig(("search", "--json")), "q")[-1] == "q"
    results, note = web_search(cfg, "narrow global loads")
    assert note is None and len(results) == 2
    text = " ".join(f"{r.title} {r.snippet}" for r in results)
    assert not any(f in text for f in FIGURES), text
    assert results[0].removed and results[1].url == "https://example.com/vectorize"
    assert "narrow global loads" in results[1].snippet


def test_web_search_failures_are_notes(tmp_path: Path) -> None:
    results, note = web_search(WebSearchConfig(("/no/such/search-tool",)), "q")
    assert results == [] and note == "web command not found: /no/such/search-tool"
    fail = tmp_path / "fail.py"
    fail.write_text("import sys\nsys.stderr.write('quota exceeded')\nsys.exit(3)\n")
    _, note = web_search(WebSearchConfig((sys.executable, str(fail))), "q")
    assert note == "web command exited 3: quota exceeded"
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(30)\n")
    _, note = web_search(WebSearchConfig((sys.executable, str(hang)), timeout_s=0.5), "q")
    assert note is not None and "ran past its 0.5 s limit" in note


def test_web_hook_cannot_inject_a_hardware_figure(ws_root: Path) -> None:
    ws = make_ws(ws_root, "webws")
    wiki = fakes.FakeWiki(records=[fakes.RECORDS[0]])
    calls: list[list[str]] = []

    def runner(argv, *, timeout_s):
        calls.append(list(argv))
        return run_command(argv, timeout_s=timeout_s)

    out = run_planner(
        ws, "softmax_memory_bound", SOFTMAX_KNOBS, knob_only=True, wiki_search=wiki, web_command=FAKE_WEB, runner=runner
    )
    plan = out.plan
    assert plan is not None and calls
    assert [e.source for e in plan.search_log][:3] == ["gpu-wiki", "gpu-wiki", "reference-project"]
    assert plan.search_log[2].actionability == "skipped"
    web_rows = [e for e in plan.search_log if e.source == "web"]
    assert web_rows and any("example.com/vectorize" in e.finding for e in web_rows)
    text = ws.plan_path(1).read_text()
    assert not any(f in text for f in FIGURES), text
    assert plan.action_category is ActionCategory.VECTORIZED_ACCESS
    # an agent's plan that copies a web figure into the log is refused
    bad = plan.model_copy(
        update={
            "search_log": [
                *plan.search_log,
                SearchLogEntry(source="web", query="h200", finding="H200 has 4.8 TB/s", actionability="idea"),
            ]
        }
    )
    with pytest.raises(PlanError, match="hardware figure '4.8 TB/s'"):
        check_search_log(bad, reference_configured=False)
    assert "4.8 TB/s" in render_plan(bad)  # (the refusal is validation's job, not rendering's)


def test_later_sources_are_not_searched_when_the_wiki_has_a_path(ws_root: Path) -> None:
    ws = make_ws(ws_root, "order")
    calls: list[object] = []

    def runner(argv, *, timeout_s):
        calls.append(argv)
        return CommandResult(tuple(argv), 0, "", "", 0.0, False)

    out = run_planner(ws, "softmax_memory_bound", SOFTMAX_KNOBS, web_command=["search"], runner=runner)
    assert out.plan is not None and calls == []
    assert {e.source for e in out.plan.search_log} == {"gpu-wiki"}


def test_run_order_and_rows() -> None:
    seen: list[KnowledgeSource] = []

    def choose(source: KnowledgeSource, ideas: list) -> Decision[str]:
        seen.append(source)
        return Decision(None)

    wiki = fakes.FakeWiki()
    search = KnowledgeSearch(wiki_search=wiki, vendor="nvidia", framework="triton")
    out = search.run([Query("small grid", ("small_grid",)), Query("latency bound", ("latency_bound",))], choose)
    assert out.chosen is None and seen == [KnowledgeSource.GPU_WIKI]
    assert [(e.source, e.query) for e in out.log] == [
        ("gpu-wiki", "small grid"),
        ("gpu-wiki", "latency bound"),
        ("reference-project", "(not searched)"),
        ("web", "(not searched)"),
    ]
    assert out.log[0].actionability == "no category to act on"


def test_categories_in_text() -> None:
    assert categories_in("use tl.multiple_of hints then num_stages=3") == [
        ActionCategory.VECTORIZED_ACCESS,
        ActionCategory.SOFTWARE_PIPELINING,
    ]
    assert categories_in("nothing here") == []


def test_planner_rejects_non_argv_web_command() -> None:
    from kernelopt.errors import UsageError

    with pytest.raises(UsageError, match="web_command must be a list"):
        RulePlanner({"web_command": "search {query}"})
