"""``kernelopt mcp``: the SDK's own stdio client drives a whole iteration on the CPU (init, profile, submit_plan,
the agent's edit, validate, record), and every refusal is one line that leaves the workspace untouched."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.loop.journal import JOURNAL_FILE
from kernelopt.stages import guard

from .conftest import BENCH_S

pytestmark = pytest.mark.timeout(240)

SRC = str(Path(__file__).resolve().parents[1] / "src")
LOOP = Path(__file__).parent / "data" / "loop"

PLAN = """---
version: 1
bottleneck_type: latency_bound
action_category: block_size
targets: [BLOCK]
parameters: {{BLOCK: 1024}}
expected_impact: 16x fewer torch.add calls
risk_level: low
counters_available: false
---
# Plan v1: block_size

## Input Evidence

- duration_us = {latency} us [profiles/v1/summary.json] -> one torch call per 64-element chunk dominates -> raise BLOCK to 1024

## Search Log

| Source | Query | Finding | Actionability |
| --- | --- | --- | --- |
| gpu-wiki | per-call overhead block size | larger blocks amortize per-call overhead | actionable: BLOCK 64 -> 1024 |

## This Iteration's Optimization Action

- **Category:** `block_size`
- **Targets:** `BLOCK`
- **Change:** `BLOCK` = 1024

Raise BLOCK from 64 to 1024.

## Expected Impact

16x fewer calls.

## Risks and Rollback

record reverts kernel.py on a FAIL.
"""

Call = Callable[..., Awaitable[Any]]


def _env() -> dict[str, str]:
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "TMPDIR", "PATH")
    keep += ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "KERNELOPT_NCU")  # the GPU runs (tests/test_mcp_gpu.py)
    env = {k: os.environ[k] for k in keep if k in os.environ}
    # the GPU machine's carried wheels (/tmp/site) stay importable: the server needs the MCP SDK from there
    path = os.pathsep.join([SRC, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]])
    return {**env, "PYTHONPATH": path, "KERNELOPT_BENCH_S": BENCH_S, "KERNELOPT_SEEDS": "1", "OMP_NUM_THREADS": "1"}


def session(roots: list[Path], body: Callable[[Call], Awaitable[None]], *, device: str = "cpu") -> None:
    """Start ``kernelopt mcp --root ... --device DEVICE`` with the SDK's stdio client and run ``body(call)``;
    ``call(tool, **arguments)`` returns (result, progress messages, seconds)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    args = ["-m", "kernelopt", "mcp", "--device", device]
    for root in roots:
        args += ["--root", str(root)]

    fd, log = tempfile.mkstemp(prefix="kernelopt-mcp-stderr-", suffix=".log")
    os.close(fd)

    async def main() -> None:
        params = StdioServerParameters(command=sys.executable, args=args, env=_env())
        with open(log, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as streams, ClientSession(*streams) as client:
                await client.initialize()

                async def call(tool: str, _cancel: bool = False, **arguments: Any) -> tuple[Any, list[str], float]:
                    """The tool's result, its progress messages and seconds; ``_cancel``: the client cancels
                    the call at its first progress notification (the result is then ``None``)."""
                    progress: list[str] = []
                    result = None
                    t0 = time.monotonic()
                    with anyio.CancelScope() as scope:

                        async def on_progress(done: float, total: float | None, message: str | None) -> None:
                            progress.append(message or "")
                            if _cancel:
                                scope.cancel()

                        result = await client.call_tool(tool, arguments, progress_callback=on_progress)
                    return result, progress, time.monotonic() - t0

                await body(call)

    try:
        anyio.run(main)
        said = Path(log).read_text()
    finally:
        os.unlink(log)
    # the client's log of the server: no line per knowledge search (the index library's own DEBUG logger)
    assert "DEBUG" not in said, said[-2000:]


def _refused(result: Any, *words: str) -> str:
    assert result.is_error, result
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text, text
    for w in words:
        assert w in text, text
    return text


def _state(ws: Path) -> tuple[dict[str, str], str, bytes]:
    """What a refusal must leave as it was: every file, HEAD, the loop's journal."""
    import subprocess

    head = subprocess.run(["git", "-C", str(ws), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    journal = ws / ".kernelopt" / JOURNAL_FILE
    return guard.snapshot(ws), head.stdout.strip(), journal.read_bytes() if journal.is_file() else b""


def test_a_whole_iteration_through_the_stdio_client_and_the_refusals(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(LOOP, root / "src")
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(LOOP / "kernel.py", outside / "kernel.py")
    (root / "escape").symlink_to(outside)  # a link out of the root is outside it
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    seen: dict[str, Any] = {}

    async def body(call: Call) -> None:
        tools = ("init", "status", "profile", "evidence", "compare", "wiki_search", "wiki_spec", "submit_plan")
        init, _, _ = await call("init", name="add", kernel=str(root / "src/kernel.py"), reference="src/reference.py")
        assert not init.is_error, init
        ws = Path(init.structured_content["workspace"])
        assert ws == (root / "kernel_opt_add").resolve() and init.structured_content["kernel_form"] == "function"
        status, _, _ = await call("status", workspace="add")  # a name under the first root
        assert status.structured_content["next"] == "profile"

        # stage order: no plan, gate or record before the evidence
        before = _state(ws)
        _refused((await call("submit_plan", workspace=str(ws), plan="x"))[0], "not the next stage", "next is profile")
        _refused((await call("validate", workspace=str(ws)))[0], "not the next stage")
        _refused((await call("record", workspace=str(ws)))[0], "not the next stage")
        assert _state(ws) == before

        profiled, progress, seen["profile_s"] = await call("profile", workspace=str(ws))
        assert not profiled.is_error, profiled
        out = profiled.structured_content
        assert out["stages"] == [
            "V0: baseline_gate",
            "V0: baseline_profile",
            "V0: record",
            "V0: stop check",
            "V1: profile",
        ]
        assert out["status"]["next"] == "submit_plan" and out["status"]["version"] == 1
        assert len(progress) >= 5 and any("committed" in p for p in progress)  # MCP progress notifications
        latency = out["profile"]["kernels"][0]["metrics"]["duration_us"]["value"]
        evidence, _, _ = await call("evidence", path=str(ws / "profiles/v1"))
        assert evidence.structured_content["digest"]["kernels"][0]["metrics"]["duration_us"]["value"] == latency
        hits, _, _ = await call("wiki_search", query="block size per-call overhead", limit=3)
        assert 0 < len(hits.structured_content["hits"]) <= 3
        spec, _, _ = await call("wiki_spec", gpu="H200")
        assert spec.structured_content["id"] and not spec.is_error

        # the refusals: outside the roots, a version that does not exist, a plan that skips the evidence
        before = _state(ws)
        _refused((await call("status", workspace="/etc"))[0], "outside the server's roots")
        _refused((await call("evidence", path=str(root / "escape" / "kernel.py")))[0], "outside the server's roots")
        _refused(
            (await call("init", name="x", kernel=str(outside / "kernel.py"), reference="src/reference.py"))[0],
            "kernel",
            "outside the server's roots",
        )
        _refused((await call("report", workspace=str(ws), html="/tmp/x.html"))[0], "outside the server's roots")
        _refused((await call("compare", workspace=str(ws), before=0, after=7))[0], "no version 7")
        uncited = PLAN.format(latency=latency).replace(f"duration_us = {latency} us", "duration_us = 12345 us")
        _refused((await call("submit_plan", workspace=str(ws), plan=uncited))[0], "cites no metric value")
        no_evidence = PLAN.format(latency=latency).split("## Input Evidence")[0] + "## Search Log\n"
        _refused((await call("submit_plan", workspace=str(ws), plan=no_evidence))[0], "plan refused")
        assert _state(ws) == before
        assert not (root / "kernel_opt_x").exists()

        mine.write_bytes((ws / "kernel.py").read_bytes())  # the user's project file, linked from here
        (ws / "kernel.py").unlink()
        (ws / "kernel.py").symlink_to(mine)
        planned, _, _ = await call("submit_plan", workspace=str(ws), plan=PLAN.format(latency=latency))
        assert not planned.is_error, planned
        assert planned.structured_content["plan"]["action_category"] == "block_size"
        assert planned.structured_content["status"]["next"] == "implement_then_validate"
        assert (ws / "plans/v1_plan.md").is_file()

        # the agent edits kernel.py itself; validate runs Stage 3's check under the guard, then the gate. The user
        # keeps kernel.py as a link to their project's file (late20's z6): read through, never refused as a link
        # the agent made nor written over with a plain file; the agent's plain file in its place is written through
        # the link (z7), so their file is the one edited
        kernel = ws / "kernel.py"
        _refused((await call("validate", workspace=str(ws)))[0], "kernel.py is unchanged")
        mine.write_text(mine.read_text().replace("BLOCK = 64", "BLOCK = 1024 +"))
        _refused((await call("validate", workspace=str(ws)))[0], "kernel.py does not parse")
        text = mine.read_text().replace("BLOCK = 1024 +", "BLOCK = 1024")
        kernel.unlink()
        kernel.write_text(text)
        edited = kernel.read_bytes()
        cancelled, progress, _ = await call("validate", _cancel=True, workspace=str(ws))
        assert cancelled is None and progress  # cancelled by the client at its first progress notification
        after, _, _ = await call("status", workspace=str(ws))  # served once the cancelled stage has rolled back
        assert after.structured_content["next"] in ("implement_then_validate", "validate"), after
        assert kernel.read_bytes() == edited or after.structured_content["next"] == "validate"
        gated, progress, seen["validate_s"] = await call("validate", workspace=str(ws))
        assert not gated.is_error, gated.content[0].text
        out = gated.structured_content
        assert out["stages"] == ["V1: implement", "V1: gate"] and progress
        assert out["record"]["quality_gate"]["result"] == "PASS"
        assert out["status"]["next"] == "record"
        assert kernel.readlink() == mine and mine.read_bytes() == edited  # the user's link kept, their file edited
        _refused((await call("profile", workspace=str(ws)))[0], "not the next stage", "next is record")

        recorded, _, _ = await call("record", workspace=str(ws))
        assert not recorded.is_error, recorded
        out = recorded.structured_content
        assert [o["version"] for o in out["status"]["outcomes"]] == [0, 1]
        assert out["status"]["outcomes"][1]["result"] == "PASS" and out["status"]["next"] == "profile"
        summary, _, _ = await call("memory_summary", workspace=str(ws))
        rows = summary.structured_content["rows"]
        assert [(r["version"], r["quality_gate"], r["action_category"]) for r in rows] == [
            ("v0", "PASS", None),
            ("v1", "PASS", "block_size"),
        ]
        # the report: a digest by default (it was the whole data and Markdown, 65 kB for three versions, past
        # Claude Code's limit on a tool's output), the full text written to a file it names, a section on request
        report, _, _ = await call("report", workspace=str(ws))
        digest, said = report.structured_content["summary"], report.content[0].text
        assert [(v["version"], v["status"]) for v in digest["versions"]] == [("V0", "PASS"), ("V1", "PASS")]
        assert (
            digest["best"] == "V1" and digest["versions"][1]["action"] == "block_size: Raise BLOCK from 64 to 1024."
        ), digest["versions"]
        assert digest["versions"][1]["speedup_vs_v0"] > 1 and digest["versions"][0]["commit"]
        full = Path(report.structured_content["full_report"])
        assert full.parent == ws / ".kernelopt" and str(full) in digest["more"]
        assert "## Evidence -> action -> result" in full.read_text()
        data, _, _ = await call("report", workspace=str(ws), section="data")
        seen["report_chars"] = (len(said), len(data.content[0].text))
        assert len(said) < 5000 and len(data.content[0].text) > 4 * len(said), seen["report_chars"]
        one, _, _ = await call("report", workspace=str(ws), section="evidence", version=1)
        text = one.structured_content["markdown"]
        assert text.startswith("## Evidence -> action -> result") and "### V1" in text and "### V0" not in text
        whole, _, _ = await call("report", workspace=str(ws), section="full")
        assert whole.structured_content["markdown"] == full.read_text()
        listed = await call("status", workspace=str(ws))
        assert listed[0].structured_content["running"]
        seen["tools"] = tools

    session([root], body)
    ws = root / "kernel_opt_add"
    import subprocess

    log = subprocess.run(["git", "-C", str(ws), "log", "--format=%s"], capture_output=True, text=True, check=True)
    subjects = log.stdout.splitlines()
    assert subjects[0].startswith("V1: ") and "block_size: BLOCK=1024" in subjects[0]
    assert subjects[1].startswith("V0: baseline")
    record = json.loads((ws / "memory/v1.json").read_text())
    assert record["quality_gate"]["result"] == "PASS" and record["git_commit_hash"]
    assert "BLOCK = 1024" in (ws / "kernel.py").read_text() and (ws / "kernel.py").readlink() == mine
    status = subprocess.run(["git", "-C", str(ws), "status", "--porcelain"], capture_output=True, text=True, check=True)
    assert status.stdout == ""  # everything committed through record
