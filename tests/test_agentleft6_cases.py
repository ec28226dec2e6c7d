"""The agent path's leftovers of the sixth session (docs/agents.md, "Trial of 2026-12-05"): each case with the fix it
holds. The MCP tools are called in-process (``build_server(...).call_tool``, the SDK's own dispatch), on the CPU.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.digits import sig
from kernelopt.workspace import Workspace

from .nvidia_data import raw_report

pytestmark = pytest.mark.timeout(120)

LOOP = Path(__file__).parent / "data" / "loop"


def _call(server: Any, tool: str, **arguments: Any) -> Any:
    async def main() -> Any:
        return await server.call_tool(tool, arguments)

    return anyio.run(main)


def _refusal(server: Any, tool: str, **arguments: Any) -> str:
    """The one-line refusal of a call, without the SDK's "Error executing tool <name>: " prefix."""
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError) as caught:
        _call(server, tool, **arguments)
    said = str(caught.value)
    assert "\n" not in said and "Traceback" not in said, said
    return said.removeprefix(f"Error executing tool {tool}: ")


def _said(result: Any) -> str:
    """What the agent's context gets: the text blocks of a result (its JSON, indented by the SDK)."""
    return "".join(getattr(block, "text", "") for block in result.content)


# == MCP evidence: a digest by default, the whole evidence on request ==================================


@pytest.mark.parametrize("name", ["h200_matmul", "ncu_a10g_sgemm_multikernel"])
def test_the_evidence_of_a_real_report_is_a_digest_with_the_measured_values(tmp_path: Path, name: str) -> None:
    """`evidence` on a real Nsight Compute report returned the whole summary: 50 kB (the H200 GEMM) and 90 kB (four
    A10G GEMM kernels) into the agent's context. It now returns each kernel's key metrics and top findings with
    their measured values and units (5 and 13 kB); `full=true` returns the whole, exactly as before. The report is
    read once per test process (a worker process, seconds) into a profile folder's summary.json, which the tool reads
    as it reads any ``profiles/v<N>/``; a plan that cites the digest's figures passes the planner's citation rule."""
    from kernelopt.agents.evidence_digest import FINDINGS
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.evidence.nvidia import build_summary
    from kernelopt.evidence.summary import KEY_METRICS, write_summary
    from kernelopt.planning.citations import cited_fact, summary_facts

    read = build_summary(raw_report(name))
    folder = tmp_path / "profiles" / "v1"
    write_summary(folder, read)
    server = build_server(Roots([tmp_path]))
    brief = _call(server, "evidence", path=str(folder))
    whole = _call(server, "evidence", path=str(folder), full=True)
    summary, digest = whole.structured_content["summary"], brief.structured_content["digest"]
    assert whole.structured_content["digest"] is None and brief.structured_content["summary"] is None
    assert summary == json.loads(read.model_dump_json())
    size, full_size = len(_said(brief)), len(_said(whole))
    assert size < 16_000 and size * 4 < full_size, (size, full_size)
    assert digest["kernel_count"] == len(summary["kernels"]) and digest["gpu"] == summary["gpu"]
    assert "full=true" in digest["more"] and str(folder) in digest["more"]
    by_name = {k["kernel_name"]: k for k in summary["kernels"]}
    totals = [k["metrics"]["duration_us"]["value"] * k["launch_count"] for k in digest["kernels"]]
    assert totals == sorted(totals, reverse=True)  # the longest in all first
    facts = summary_facts(read)
    for kernel in digest["kernels"]:
        full = by_name[kernel["kernel_name"]]
        assert kernel["bottleneck"] == full["bottleneck"]
        for metric in KEY_METRICS:  # every key metric: its value (4 digits) and unit, or said not measured
            measured = full["metrics"].get(metric)
            if measured is None:
                assert metric not in kernel["metrics"] and metric not in kernel["not_measured"]
            elif measured["value"] is None:
                assert metric in kernel["not_measured"]
            else:
                shown = kernel["metrics"][metric]
                assert (
                    shown["value"] == pytest.approx(measured["value"], rel=5e-4) and shown["unit"] == measured["unit"]
                )
                claim = f"{metric} = {shown['value']:g} {shown['unit'] or ''}"
                assert cited_fact(claim, facts) is not None, claim  # a plan may cite it
        assert len(kernel["findings"]) == min(FINDINGS, len(full["findings"]))
        for line, finding in zip(kernel["findings"], full["findings"], strict=False):  # the top ones, in order
            assert finding["rule_id"] in line and " -> try " in line
            fact = finding["evidence"][0]
            assert fact["metric"] in line and sig(fact["value"]) in line and f"[{fact['source']}]" not in line
    last = digest["kernels"][-1]["kernel_name"][:12]
    one = _call(server, "evidence", path=str(folder), kernel=last).structured_content["digest"]
    assert one["kernels"] and f"kernel={last!r}" in one["more"]


# == MCP profile with no GPU: refused before V0's gate ===============================================


def test_profile_with_no_gpu_is_refused_before_the_baseline_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`profile(workspace)` on a machine with no GPU gated V0 for 12-16 s before Stage 1's profiler said "no NVIDIA
    GPU found". The device is now checked first: one line in the caller's form, at once, nothing written."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.hardware import gpu

    monkeypatch.setattr(gpu, "gpu_driver_present", lambda: False)
    shutil.copytree(LOOP, tmp_path / "src")
    server = build_server(Roots([tmp_path]))  # no --device: cuda
    made = _call(server, "init", name="demo", kernel="src/kernel.py", reference="src/reference.py")
    ws = Workspace(Path(made.structured_content["workspace"]))
    head, files = ws.head(), sorted(p.relative_to(ws.root) for p in ws.root.rglob("*") if ".git" not in p.parts)
    started = time.monotonic()
    said = _refusal(server, "profile", workspace="demo")
    assert time.monotonic() - started < 2.0
    assert said == (
        "no GPU found: no GPU driver on this machine (no /dev/nvidiactl, no /dev/kfd, no NVML library); run "
        '`kernelopt doctor` to check the setup; device="cpu" takes timing-only evidence on the CPU'
    ), said
    assert ws.head() == head and not (ws.state_dir / "loop_state.json").exists()
    assert sorted(p.relative_to(ws.root) for p in ws.root.rglob("*") if ".git" not in p.parts) == files
    assert json.loads(_said(_call(server, "status", workspace="demo")))["next"] == "profile"
    # a file given for the workspace said "no such workspace" of a file that is there
    assert _refusal(server, "status", workspace="src/kernel.py").endswith(
        "/src/kernel.py: is a file, not a workspace folder"
    )


# == report's parts: the report's own section names ===================================================


def test_the_report_tool_offers_the_reports_own_sections_and_each_one_answers(add_workspace: Workspace) -> None:
    """`ReportPart` repeated `Section`'s names (plus summary/full/data): a section added to the report would have
    been missing from the tool. The tool's list is now the report's sections and the two wholes, and every name in it
    answers."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.report.markdown import Section

    add_workspace.memory.create("v0")
    server = build_server(Roots([add_workspace.root.parent]), default_device="cpu")

    async def schema() -> dict[str, Any]:
        return next(t for t in await server.list_tools() if t.name == "report").input_schema

    offered = anyio.run(schema)["properties"]["section"]["enum"]
    assert offered == [s.value for s in Section] + ["full", "data"]
    for part in offered:
        got = _call(server, "report", workspace=str(add_workspace.root), section=part).structured_content
        assert got["section"] == part
        if part == "summary":
            assert got["summary"]["versions"][0]["version"] == "V0"
        elif part == "data":
            assert got["report"]["versions"]
        elif part == "full":
            assert all(f"## {s.title}" in got["markdown"] for s in Section)
        else:
            assert got["markdown"].startswith(f"## {Section(part).title}"), got["markdown"][:80]


# == a call the client cancels at its tool timeout: status says so =====================================

SLOW_KERNEL = """import time

BLOCK = 64  # kernelopt: tunable max=4096


def run(x, y):
    time.sleep(0.3)  # every call a third of a second: the baseline gate takes many seconds
    return x + y
"""


def test_a_call_the_client_cancelled_is_named_by_status_until_the_next_call_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code 2.1.197 and Codex 0.171.0 both cancel a call at their tool timeout (`notifications/cancelled`) and
    tell the model only "timed out after 4s": with a timeout shorter than V0's gate, the trial's agent called
    `profile` again and again, each call rolled back, and `status` said "V0 has no Stage 1 evidence yet: profile it"
    each time. It now says the last call was cancelled, after how long, what that left, and which client setting
    to raise; the next call on the workspace drops the note when it starts."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.hardware import gpu

    shutil.copytree(LOOP, tmp_path / "src")
    (tmp_path / "src" / "kernel.py").write_text(SLOW_KERNEL)
    server = build_server(Roots([tmp_path]), default_device="cpu")
    _call(server, "init", name="slow", kernel="src/kernel.py", reference="src/reference.py")

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.call_tool, "profile", {"workspace": "slow"})
            for _ in range(200):  # until the baseline gate runs
                await anyio.sleep(0.05)
                if (await server.call_tool("status", {"workspace": "slow"})).structured_content["stage"]:
                    break
            await anyio.sleep(0.3)
            tg.cancel_scope.cancel()  # as the SDK does on the client's notifications/cancelled

    anyio.run(main)
    status = _call(server, "status", workspace="slow").structured_content
    note = status["cancelled"]
    assert note.startswith("the last profile call was cancelled by the client after "), note
    assert "its stage was rolled back; the next profile runs it again" in note, note
    assert "MCP_TOOL_TIMEOUT" in note and "tool_timeout_sec" in note, note
    assert status["why"].startswith(note) and status["next"] == "profile", status
    monkeypatch.setattr(gpu, "gpu_driver_present", lambda: False)
    _refusal(server, "profile", workspace="slow", device="cuda")  # a call that starts (and is refused at once)
    status = _call(server, "status", workspace="slow").structured_content
    assert status["cancelled"] is None and status["why"].startswith("V0 has no Stage 1 evidence yet"), status


@pytest.mark.parametrize(
    "name", ["amd_mi300x_att_stats_bmm_mfma_dispatch3.csv", "amd_mi300x_vcopy_pmc_perf_rocprofv2.csv"]
)
def test_the_digest_of_an_amd_profile_shows_its_own_metrics(tmp_path: Path, name: str) -> None:
    """The digest's key metrics are the NVIDIA-named ones summary.txt lists first: an AMD profile (ATT stats, rocprof
    counters) showed none or two of them. Its other measured metrics now fill the digest up to as many."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.evidence.summary import CONFIG_METRICS, KEY_METRICS

    shutil.copy(Path(__file__).parent / "data" / "amd" / name, tmp_path / name)
    server = build_server(Roots([tmp_path]))
    (kernel,) = _call(server, "evidence", path=name).structured_content["digest"]["kernels"]
    (full,) = _call(server, "evidence", path=name, full=True).structured_content["summary"]["kernels"]
    measured = {n: m for n, m in full["metrics"].items() if m["value"] is not None and n not in CONFIG_METRICS}
    assert len(kernel["metrics"]) == min(len(measured), len(KEY_METRICS)) and len(kernel["metrics"]) >= 6
    for metric, shown in kernel["metrics"].items():
        assert shown["value"] == pytest.approx(measured[metric]["value"], rel=5e-4)
        assert shown["unit"] == measured[metric]["unit"]


def test_compare_of_two_real_profiles_is_a_digest_of_the_key_metrics_and_largest_changes(tmp_path: Path) -> None:
    """`compare` returned every metric's change with its full floats: 18.5 kB for one kernel pair of two real H200
    reports. It now returns the key metrics before and after, the largest changes and the symptoms gained or lost
    (2 kB); `full=true` returns every change as before. Here the H200 GEMM report against itself with its duration
    cut by a fifth and its DRAM throughput raised (the rest as measured)."""
    from kernelopt.agents.evidence_digest import CHANGES
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.evidence.nvidia import build_summary
    from kernelopt.evidence.summary import KEY_METRICS, write_summary

    before = build_summary(raw_report("h200_matmul"))
    after = before.model_copy(deep=True)
    metrics = after.kernels[0].metrics
    metrics["duration_us"].value = before.kernels[0].metrics["duration_us"].value * 0.8
    metrics["dram_gbps"].value = before.kernels[0].metrics["dram_gbps"].value * 1.25
    write_summary(tmp_path / "v1", before)
    write_summary(tmp_path / "v2", after)
    server = build_server(Roots([tmp_path]))
    paths = {"before_path": str(tmp_path / "v1"), "after_path": str(tmp_path / "v2")}
    brief, whole = _call(server, "compare", **paths), _call(server, "compare", **paths, full=True)
    (kernel,) = brief.structured_content["digest"]["kernels"]
    changes = whole.structured_content["diff"]["kernels"][0]["metrics"]
    assert len(_said(brief)) * 4 < len(_said(whole)) and brief.structured_content["diff"] is None
    assert kernel["kernel"] == "matmul_kernel" and kernel["bottleneck"] == "compute_bound"
    assert (
        f"duration_us: {sig(metrics['duration_us'].value / 0.8)} -> {sig(metrics['duration_us'].value)} us (-20.0 %)"
        in (kernel["key_metrics"])
    )
    assert [line.split(":")[0] for line in kernel["key_metrics"]] == [
        m for m in KEY_METRICS if any(c["name"] == m for c in changes)
    ]
    assert kernel["largest_changes"] == [] and kernel["left_out"] is None  # nothing else moved
    assert "full=true" in brief.structured_content["digest"]["more"] and CHANGES > 0


def test_wiki_search_returns_what_a_client_keeps_whole(tmp_path: Path) -> None:
    """Ten whole records came to 17.5-20.5 kB, and Codex 0.171.0 keeps about 12 kB of a tool's output (the head and
    the tail, `…N tokens truncated…` between): the middle records were lost. The default is five (8-10 kB); more on
    request, up to twenty."""
    from kernelopt.agents.mcp_server import WIKI_DEFAULT_HITS, build_server
    from kernelopt.agents.roots import Roots

    server = build_server(Roots([tmp_path]))
    for query in ("memory bound block size", "warp stall long_scoreboard"):
        found = _call(server, "wiki_search", query=query)
        compact = json.dumps(found.structured_content, separators=(",", ":"))
        assert len(found.structured_content["hits"]) == WIKI_DEFAULT_HITS and len(compact) < 11_000, len(compact)
    assert len(_call(server, "wiki_search", query="memory bound", limit=12).structured_content["hits"]) == 12
