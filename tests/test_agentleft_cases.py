"""The agents' and the CLI's leftovers (docs/faults.md, "Agents and CLI leftovers"): each case with the fix it
holds. The MCP tools are called in-process (``build_server(...).call_tool``, the SDK's own dispatch), on the CPU.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.actions import ActionCategory
from kernelopt.cli.app import main
from kernelopt.workspace import Workspace
from tests.conftest import without_since

pytestmark = pytest.mark.timeout(120)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# == memory summary's header at 80 and 100 columns ===================================================


def _records(ws: Workspace) -> None:
    """Three records with the figures a CPU run leaves (a tiny TFLOP/s in exponent form, a FAIL, a mask)."""
    figures = {
        "v0": ["performance.latency_us=413.8", "performance.tflops=9.898e-06", "performance.bandwidth_gbps=0.1188"],
        "v1": ["performance.latency_us=8.774", "performance.tflops=0.0004668", "optimization.action_category=autotune"],
        "v2": ["optimization.action_category=block_size"],
    }
    for version, sets in figures.items():
        ws.memory.create(version)
        ws.memory.update(version, [*sets, f"quality_gate.result={'FAIL' if version == 'v2' else 'PASS'}"])
    ws.memory.set_masked("v2", True)


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("masked", [False, True])
def test_memory_summary_keeps_its_header_words_whole(
    add_workspace: Workspace,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    columns: int,
    masked: bool,
) -> None:
    """At 100 columns the heavy frame folded the header ("latenc" over "y (us)", "correct" over "ness"): the
    table now drops its frame before a word folds, and the masked state is said in the version cell."""
    _records(add_workspace)
    monkeypatch.setenv("COLUMNS", str(columns))
    argv = ["memory", "summary", str(add_workspace.root)] + (["--include-masked"] if masked else [])
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= columns, out
    words = {w for line in lines for w in line.split()}
    for word in ("version", "latency", "(us)", "TFLOP/s", "GB/s", "roofline", "correctness", "gate", "action"):
        assert word in words, (word, out)
    if columns == 100:  # no figure folded either where there is room (at 80, ten columns leave none)
        for cell in ("413.8", "9.898e-06", "0.0004668", "autotune"):
            assert cell in words, (cell, out)
    assert ("v2" in words) is masked and ("(masked)" in words) is masked, out
    assert "False" not in words  # no column of False beside every row


def test_a_table_that_fits_keeps_its_frame(capsys: pytest.CaptureFixture[str]) -> None:
    """Only a table too wide for its frame drops it: a narrow one is drawn as before."""
    from kernelopt.cli.output import table

    table("t", ["quantity", "value"], [["latency (us)", 12.5]])
    out = capsys.readouterr().out
    assert "┃ quantity     ┃ value ┃" in out and "│ latency (us) │ 12.5  │" in out, out


# == profile --vendor: no fake profiler offered ======================================================


@pytest.mark.parametrize("vendor", ["intel", "fake"])
def test_profile_offers_only_real_profilers(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str], vendor: str
) -> None:
    """``profile --vendor intel`` listed ``fake`` (the tests' profiler) among the known vendors, and
    ``--vendor fake`` wrote its made-up evidence into profiles/v0/ as if a profiler had measured it."""
    code, out, err = _run(capsys, "profile", str(add_workspace.root), "--vendor", vendor, "--device", "cpu")
    assert code == 2 and out == ""
    assert err.strip() == (
        f"kernelopt: error: unknown profiler vendor {vendor!r}; use amd (rocprofv3) or nvidia (Nsight Compute)"
    )
    assert not add_workspace.profile_dir(0).exists()


# == kernelopt mcp's report: a digest by default =====================================================


def _call(server: Any, tool: str, **arguments: Any) -> Any:
    async def main() -> Any:
        return await server.call_tool(tool, arguments)

    return anyio.run(main)


def test_the_report_digest_of_twenty_versions_stays_small(add_workspace: Workspace) -> None:
    """The report tool returned the whole data and Markdown: 65 kB for three versions (a CPU workspace of the
    README's demo), past Claude Code's limit on a tool's output. Twenty versions, each with the long plan sentence
    and failure reason the loop writes, now give a digest of a few hundred bytes a version; the full text is in
    the file it names, a section on request."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots
    from kernelopt.memory.model import GateResult

    ws = add_workspace
    sentence = "Tune the launch configuration of `kernel.py` as one category: " + "BLOCK and num_warps, " * 30
    for n in range(20):
        record = ws.memory.create(f"v{n}")
        record.performance.latency_us = 400.0 / (n + 1)
        record.quality_gate.result = GateResult.FAIL if n % 3 == 2 else GateResult.PASS
        record.optimization.action_description = sentence
        if n:
            record.optimization.action_category = ActionCategory.AUTOTUNE
        if n % 3 == 2:
            record.quality_gate.failure_reason = "the tuning session kept nothing: " * 20
        ws.memory.write(record)
    server = build_server(Roots([ws.root.parent]), default_device="cpu")
    result = _call(server, "report", workspace=ws.root.name.removeprefix("kernel_opt_"))
    said = result.content[0].text
    digest = result.structured_content["summary"]
    assert len(digest["versions"]) == 20 and digest["failed"] == 6 and digest["passed"] == 14
    assert digest["best"] == "V19" and digest["versions"][19]["speedup_vs_v0"] == 20.0
    assert all(len(v["action"]) <= 200 and len(v["failure"] or "") <= 200 for v in digest["versions"])
    assert len(said) < 20_000, len(said)  # a few hundred bytes a version (Claude Code warns past 10,000 tokens)
    whole = _call(server, "report", workspace=str(ws.root), section="full").structured_content["markdown"]
    assert Path(result.structured_content["full_report"]).read_text() == whole and len(whole) > len(said)


def test_a_report_version_without_the_evidence_section_is_one_line(add_workspace: Workspace) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    server = build_server(Roots([add_workspace.root.parent]), default_device="cpu")
    with pytest.raises(ToolError) as caught:
        _call(server, "report", workspace=str(add_workspace.root), section="timeline", version=1)
    assert str(caught.value).endswith(": report: version goes with section=evidence, not section=timeline")
    with pytest.raises(ToolError) as caught:
        _call(server, "report", workspace=str(add_workspace.root), section="everything")
    assert "report: bad arguments: section: input should be 'summary', " in str(caught.value)
    assert "\n" not in str(caught.value)


# == stand-alone validate: where nothing was recorded, and why =======================================


def test_validate_before_v0_says_nothing_was_recorded_and_names_the_command_that_records_v0(
    add_workspace: Workspace, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`validate` of a new workspace gated the kernel as "v0" and ended "(record aside: ...)": memory/ stayed
    empty, the next `plan` was numbered v0 and the kernel as given never became the baseline. A record in memory/
    is a version the loop commits with its profile (V0 with baseline_report.md), so the gate alone still records
    nothing, and now says so, where its record went, and the command that records V0."""
    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    ws = add_workspace
    code, out, err = _run(capsys, "validate", str(ws.root), "--device", "cpu")
    assert code == 0, err
    note = next(line for line in out.splitlines() if line.startswith("note: nothing recorded"))
    assert f"its record is set aside at {ws.state_dir / 'validate' / 'v0.json'}" in note
    assert f"`kernelopt optimize {ws.root} --max-iters 0` gates, profiles and commits V0 as the baseline" in note
    assert out.splitlines()[-1] == "quality gate v0: PASS (not recorded in memory/: see the note above)"
    assert ws.memory.versions() == [] and (ws.state_dir / "validate" / "v0.json").is_file()


def test_validate_after_v0_says_the_loop_records_the_version(
    rows_baseline: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With V0 recorded (`optimize --max-iters 0`, as the note above says), a gate of V0 again leaves the loop's
    record as it was, and --json carries the same note."""
    import json

    from .conftest import with_baseline

    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    ws = Workspace(with_baseline(rows_baseline, tmp_path))
    before = ws.memory.path(0).read_bytes()
    code, out, err = _run(capsys, "validate", str(ws.root), "--device", "cpu", "--version", "0", "--json")
    assert code == 0, err
    notes = json.loads(out)["notes"]
    assert (
        "nothing recorded: memory/v0.json is the loop's record of V0, unchanged (its record is set aside at "
        in (notes[-1])
    )
    assert ws.memory.path(0).read_bytes() == before and ws.memory.versions() == [0]


# == a fresh agent-path trial: bad input through kernelopt mcp =======================================

LOOP = Path(__file__).parent / "data" / "loop"


def _refusal(server: Any, tool: str, **arguments: Any) -> str:
    """The one-line refusal of a call, without the SDK's "Error executing tool <name>: " prefix."""
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError) as caught:
        _call(server, tool, **arguments)
    said = str(caught.value)
    assert "\n" not in said and "Traceback" not in said, said
    return said.removeprefix(f"Error executing tool {tool}: ")


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("", "workspace: empty; give a path under the server's roots ("),
        ("a\x00b", "workspace 'a\\x00b': holds a NUL character, which no path can"),
        ("x" * 5000, "...: too long for a path (5000 bytes; at most 4095, and 255 a name)"),
        ("y" * 300, "...: too long for a path (300 bytes; at most 4095, and 255 a name)"),
    ],
    ids=["empty", "nul", "path-5000", "name-300"],
)
def test_a_path_no_system_call_takes_is_one_line(tmp_path: Path, given: str, said: str) -> None:
    """An empty workspace read as the root's own name ("kernel_opt_root: outside the server's roots"); a NUL byte
    (ValueError) or a path past the system's limits (ENAMETOOLONG) crashed the tool: the agent got the SDK's bare
    "Error executing tool status", after seconds of a traceback rendered into the server's log."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    server = build_server(Roots([tmp_path]), default_device="cpu")
    refused = _refusal(server, "status", workspace=given)
    assert said in refused and len(refused) < 500, refused


def test_a_long_argument_is_not_echoed_whole_and_free_text_has_a_bound(tmp_path: Path) -> None:
    """`evidence(kernel=<200 kB>)` was refused with a line of 200 kB quoting it, `init(name=<10 kB>)` likewise; a
    20 MB plan was parsed before it was refused, and a 5 MB description would have gone into the record and the
    commit message; `wiki_search(limit=50)` returned 118 kB of whole records."""
    from kernelopt.agents.mcp_server import ECHO_CHARS, build_server
    from kernelopt.agents.roots import Roots

    shutil.copytree(LOOP, tmp_path / "src")
    server = build_server(Roots([tmp_path]), default_device="cpu")
    said = _refusal(server, "evidence", path="src/summary_timing_only.json", kernel="k" * 200_000)
    assert f"no kernel matches '{'k' * ECHO_CHARS}... (200000 characters)'; kernels in it: " in said
    assert len(said) < 600, said
    said = _refusal(server, "init", name="n" * 10_000, kernel="src/kernel.py", reference="src/reference.py")
    assert len(said) < 400 and "... (10000 characters)'; use 1-64 letters" in said, said
    for tool, arguments, limit in (
        ("submit_plan", {"workspace": "w", "plan": "x" * 1_000_001}, "plan: string should have at most 1000000"),
        ("validate", {"workspace": "w", "description": "d" * 2001}, "description: string should have at most 2000"),
        ("wiki_search", {"query": "q " * 5001}, "query: string should have at most 10000 characters"),
        ("wiki_search", {"query": "dram", "limit": 50}, "limit: input should be less than or equal to 20"),
    ):
        assert limit in _refusal(server, tool, **arguments)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]  # nothing made


def test_every_stage_call_on_a_workspace_another_run_holds_names_that_run(
    add_workspace: Workspace, tmp_path: Path
) -> None:
    """With `kernelopt optimize` gating V0 of the workspace, `status` said "no baseline yet: profile gates and
    records V0" (running false); `submit_plan`, `validate` and `record` were refused as "not the next stage: next
    is profile" (a stage the other run was past), and `tune` ran a whole session beside it, on the kernel.py it
    was editing. Now `status` names the holder, every stage call and `tune` are refused with the lock's line, and
    nothing is written."""
    import subprocess
    import sys

    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    ws = add_workspace
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(ws.root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = (ws.head(), sorted(p.name for p in ws.root.iterdir()))
        server = build_server(Roots([ws.root.parent]), default_device="cpu")
        line = f"another kernelopt optimize is running on {ws.root} (pid {holder.pid})"
        status = _call(server, "status", workspace="add").structured_content
        assert without_since(status["held_by"]) == line
        assert without_since(status["why"]).startswith(f"{line}: wait for it or stop it; as the ")
        for tool, arguments in (
            ("profile", {"workspace": "add"}),
            ("submit_plan", {"workspace": "add", "plan": "x"}),
            ("validate", {"workspace": "add"}),
            ("record", {"workspace": "add"}),
            ("tune", {"path": "add", "budget": 2}),
        ):
            assert without_since(_refusal(server, tool, **arguments)).startswith(f"{line}; wait for it or stop it"), (
                tool
            )
        assert (ws.head(), sorted(p.name for p in ws.root.iterdir())) == before
    finally:
        holder.communicate("", timeout=30)
    assert _call(server, "status", workspace="add").structured_content["held_by"] is None


HOLD = """import sys
from pathlib import Path
from kernelopt.workspace import RunLock
with RunLock(Path(sys.argv[1])):  # as `kernelopt optimize` holds it for its whole run
    print("held", flush=True)
    sys.stdin.read()
"""


def test_an_unknown_device_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """`profile(device="tpu")` gated V0 and then said "no NVIDIA GPU found" (6 s later, on a machine without
    one); `tune(device="tpu")` likewise. Both are now bad arguments, as `--device tpu` is for the CLI."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    server = build_server(Roots([tmp_path]), default_device="cpu")
    for tool, arguments in (("profile", {"workspace": "w"}), ("tune", {"path": "w"})):
        said = _refusal(server, tool, **arguments, device="tpu")
        assert said == f"{tool}: bad arguments: device: value error, unknown device 'tpu'; use cuda or cpu", said
    assert list(tmp_path.iterdir()) == []


def test_a_report_or_an_output_folder_never_replaces_a_workspace_file(add_workspace: Workspace) -> None:
    """`report(markdown=<ws>/kernel.py)` replaced the kernel with the Markdown report, `html=<ws>/reference.py`
    the ground truth, `markdown=<ws>/memory/v0.json` a record, and `markdown=<ws>/.git/HEAD` the workspace's git
    (every later call: "not a kernelopt workspace"): confined to the roots, nothing kept a write out of a
    workspace's own files. A report is now a .md / .html file outside every workspace; a profiled command's
    folder and a new workspace's parent lie outside every workspace too."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    ws = add_workspace
    before = {p: p.read_bytes() for p in ws.root.rglob("*") if p.is_file()}
    server = build_server(Roots([ws.root.parent]), default_device="cpu")
    for tool, arguments, said in (
        ("report", {"markdown": "kernel.py"}, "name a .md or .markdown file"),
        ("report", {"html": "reference.py"}, "name a .html or .htm file"),
        ("report", {"markdown": ".git/HEAD"}, "name a .md or .markdown file"),
        ("report", {"markdown": "README.md"}, "whose files only its stages write; name a path outside it"),
        ("report", {"html": "plans/report.html"}, "whose files only its stages write; name a path outside it"),
        ("profile", {"command": ["python3", "-c", "pass"], "out": "."}, "whose files only its stages write"),
    ):
        named = {k: str(ws.root / v) if k in ("markdown", "html", "out") else v for k, v in arguments.items()}
        if tool == "report":
            named["workspace"] = str(ws.root)
        assert said in _refusal(server, tool, **named), (tool, arguments)
    said = _refusal(server, "init", name="inner", kernel="add_kernel.py", reference="r.py", root=str(ws.root))
    assert said.startswith(f"root {ws.root}: inside the workspace {ws.root}, whose files only its stages write")
    assert {p: p.read_bytes() for p in ws.root.rglob("*") if p.is_file()} == before
    result = _call(server, "report", workspace=str(ws.root), markdown=str(ws.root.parent / "reports" / "add.md"))
    assert Path(result.structured_content["written"]["markdown"]).is_file()  # outside it: written


def test_the_report_digest_of_a_workspace_on_a_full_disk_says_why_no_full_report(
    add_workspace: Workspace, small_disk: Path
) -> None:
    """The digest writes the full report into `.kernelopt/report.md` at every call: on a full (or read-only)
    disk that write must not cost the digest, which reads only."""
    from kernelopt.agents.mcp_server import build_server
    from kernelopt.agents.roots import Roots

    from .conftest import fill_disk

    ws = Workspace(Path(shutil.copytree(add_workspace.root, small_disk / add_workspace.root.name)))
    ws.memory.create("v0")
    ws.memory.update("v0", ["performance.latency_us=12.5", "quality_gate.result=PASS"])
    fill_disk(small_disk)
    server = build_server(Roots([small_disk]), default_device="cpu")
    result = _call(server, "report", workspace=str(ws.root)).structured_content
    assert result["full_report"] is None and [v["version"] for v in result["summary"]["versions"]] == ["V0"]
    assert result["summary"]["more"].startswith("the full report was not written (")
    assert "no space left" in result["summary"]["more"].lower(), result["summary"]["more"]
    assert not (ws.state_dir / "report.md").exists()
