"""A new user's agent (docs/faults.md, "A new user's agent"): what broke when kernelopt was driven from inside
a coding agent as the docs say, each case with the fix it holds.

The MCP tools are called in-process (``build_server(...).call_tool``, the SDK's own dispatch, with anyio for
two calls at once and a cancellation), on the CPU.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from kernelopt.agents.roots import Roots

from .test_mcp_tools import build_server

pytestmark = pytest.mark.timeout(120)

LOOP = Path(__file__).parent / "data" / "loop"

SLOW_KERNEL = """import time

BLOCK = 64  # kernelopt: tunable max=4096


def run(x, y):
    time.sleep(0.3)  # every call a third of a second: the baseline gate takes many seconds
    return x + y
"""


def _sources(root: Path, *, kernel: str | None = None, shapes: str | None = None) -> tuple[Path, Path]:
    """The loop test's kernel and reference under ``root/src`` (a kernel's text or SHAPES line replaced)."""
    src = root / "src"
    shutil.copytree(LOOP, src)
    if kernel is not None:
        (src / "kernel.py").write_text(kernel)
    if shapes is not None:
        ref = src / "reference.py"
        lines = [shapes if line.startswith("SHAPES = ") else line for line in ref.read_text().splitlines()]
        ref.write_text("\n".join(lines) + "\n")
    return src / "kernel.py", src / "reference.py"


def _call(server: Any, tool: str, **arguments: Any) -> Any:
    async def main() -> Any:
        return await server.call_tool(tool, arguments)

    return anyio.run(main)


def _one_line_error(server: Any, tool: str, **arguments: Any) -> str:
    # imported here, not at the top: every pytest-xdist worker collects this file, and the MCP SDK takes
    # ~1.5 CPU-s to import (build_server's module imports it when a server is built)
    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError) as caught:
        _call(server, tool, **arguments)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message, message
    return message


def test_a_shapes_entry_that_fails_at_the_baseline_is_a_tool_error_and_status_says_init(tmp_path: Path) -> None:
    # get_inputs(n=-5) raises (an entry naming an argument get_inputs lacks is refused by init itself)
    kernel, reference = _sources(tmp_path, shapes='SHAPES = [{"n": -5}]')
    server = build_server(Roots([tmp_path]), default_device="cpu")
    _call(server, "init", name="add", kernel=str(kernel), reference=str(reference))
    message = _one_line_error(server, "profile", workspace="add")
    assert "profile: V0 failed its gate" in message and "reference.py" in message, message
    assert "negative dimension" in message and "init a new workspace" in message, message
    status = _call(server, "status", workspace="add").structured_content
    assert status["next"] == "init" and status["stop"]["reason"] == "baseline_failed", status


def test_status_answers_while_a_gate_runs_and_a_cancel_stops_the_gate_at_once(tmp_path: Path) -> None:
    kernel, reference = _sources(tmp_path, kernel=SLOW_KERNEL)
    server = build_server(Roots([tmp_path]), default_device="cpu")
    _call(server, "init", name="slow", kernel=str(kernel), reference=str(reference))
    ws = tmp_path / "kernel_opt_slow"
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with anyio.create_task_group() as tg:

            async def profile() -> None:
                await server.call_tool("profile", {"workspace": "slow"})
                seen["profile finished"] = True  # pragma: no cover - cancelled first

            tg.start_soon(profile)
            for _ in range(100):  # until the baseline gate runs
                await anyio.sleep(0.1)
                status = (await server.call_tool("status", {"workspace": "slow"})).structured_content
                if status["stage"] == "baseline_gate":
                    break
            await anyio.sleep(1.0)  # the gate is measuring now (seconds more of it to come)
            t0 = time.monotonic()
            seen["status"] = (await server.call_tool("status", {"workspace": "slow"})).structured_content
            seen["status_s"] = time.monotonic() - t0
            t0 = time.monotonic()
            tg.cancel_scope.cancel()
        seen["cancel_s"] = time.monotonic() - t0

    anyio.run(main)
    assert seen["status"]["running"] and seen["status"]["stage"] == "baseline_gate", seen
    assert seen["status_s"] < 2.0, seen  # read beside the gate, not after it
    assert seen["cancel_s"] < 5.0 and "profile finished" not in seen, seen  # was the whole gate (30 s here)
    # the run was rolled back as after Ctrl-C and resumes: nothing was committed past the workspace's start
    assert _call(server, "status", workspace="slow").structured_content["next"] == "profile"
    assert (ws / "kernel.py").read_text() == SLOW_KERNEL


def test_a_failure_with_no_plan_teaches_no_lesson_about_an_action() -> None:
    """The real CLIs as planner answering garbage (a plan file that is no plan) or editing kernel.py: V1 failed
    with the lesson "this action failed as planned: do not repeat it unchanged", about an action that never was."""
    from kernelopt.loop.journal import Failure, IterationState
    from kernelopt.loop.record import finalize_record
    from kernelopt.memory.model import GateResult, IterationRecord, version_label
    from kernelopt.stagenames import Stage

    for error_type, reason in [
        ("planner_error", "the planner failed: agent-cli planner: the agent's plans/v1_plan.md is not a valid plan"),
        ("write_violation", "the planner wrote outside plans/v1_plan.md: kernel.py (modified)"),
    ]:
        it = IterationState(version=1, stage=Stage.RECORD, base_commit="0" * 40, good_version=0)
        it.failure = Failure(result=GateResult.FAIL, stage=Stage.PLAN, reason=reason, error_type=error_type)
        record = finalize_record(
            IterationRecord(version=version_label(1)),
            it=it,
            plan=None,
            summary=None,
            result=GateResult.FAIL,
            failure_reason=reason,
            roofline_lines=[],
        )
        (pitfall,) = record.pitfalls_and_fixes
        assert pitfall.lesson is not None and "failed as planned" not in pitfall.lesson, pitfall
        assert "no action was planned" in pitfall.lesson and "plan again" in pitfall.lesson


def test_tune_takes_a_workspace_by_its_name_as_every_other_tool_does(tmp_path: Path) -> None:
    kernel, reference = _sources(tmp_path)
    server = build_server(Roots([tmp_path]), default_device="cpu")
    _call(server, "init", name="add", kernel=str(kernel), reference=str(reference))
    assert _call(server, "status", workspace="add").structured_content["next"] == "profile"
    before = (tmp_path / "kernel_opt_add" / "kernel.py").read_bytes()
    out = _call(server, "tune", path="add", budget=1, budget_wall_s=30).structured_content  # was "holds no kernel.py"
    assert out["kernel_py"] == str(tmp_path / "kernel_opt_add" / "kernel.py") and out["summary"]["budget"] == 1
    # the session's table, as `kernelopt tune` writes it (claims21 w7)
    table = Path(out["table"])
    assert table.name == "candidates.csv" and table.parent == Path(out["summary"]["session_dir"])
    assert table.read_text().startswith("evaluation,") and len(table.read_text().splitlines()) == 2
    assert (tmp_path / "kernel_opt_add" / "kernel.py").read_bytes() == before


def test_a_report_written_to_a_folder_says_it_is_a_folder(tmp_path: Path) -> None:
    from kernelopt.errors import UsageError
    from kernelopt.fileio import atomic_write_text

    folder = tmp_path / "reports"
    (folder / "a" / "b").mkdir(parents=True)  # a folder with subfolders: a link count of 3
    with pytest.raises(UsageError) as caught:
        atomic_write_text(folder, "# report\n")
    assert "is a folder, not a file" in caught.value.one_line() and "hard links" not in caught.value.one_line()
    assert sorted(p.name for p in folder.iterdir()) == ["a"]


def test_nothing_a_tool_returns_or_refuses_with_holds_a_secret_of_the_servers_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference that reads the server's /proc/<pid>/environ and raises with it: `tune` refused with
    "RuntimeError: ref stolen: MY_API_KEY=sk-live-..." (the refusal was not redacted). Here the same at the
    server's boundary: a refusal quoting the value, and a result (a report's kernel name) holding it."""

    secret = "sk-live-0123456789abcdefSECRET"
    monkeypatch.setenv("MY_API_KEY", secret)
    server = build_server(Roots([tmp_path]), default_device="cpu")
    assert secret not in _one_line_error(server, "wiki_spec", gpu=secret)
    (tmp_path / "prof").mkdir()
    summary = {"schema_version": 1, "vendor": "nvidia", "tool_used": "ncu", "kernels": [{"kernel_name": secret}]}
    (tmp_path / "prof" / "summary.json").write_text(json.dumps(summary))
    result = _call(server, "evidence", path=str(tmp_path / "prof"))
    assert not result.is_error, result
    said = json.dumps(result.structured_content) + "".join(getattr(b, "text", "") for b in result.content)
    assert "[redacted]" in said and secret not in said


def test_init_of_a_name_taken_says_so_without_the_clis_flag(tmp_path: Path) -> None:
    kernel, reference = _sources(tmp_path)
    server = build_server(Roots([tmp_path]), default_device="cpu")
    (tmp_path / "kernel_opt_add").mkdir()
    message = _one_line_error(server, "init", name="add", kernel=str(kernel), reference=str(reference))
    assert "already exists: choose another name" in message and "--force" not in message, message


def test_a_stop_event_is_said_once_in_a_step_result() -> None:
    from kernelopt.agents.drive import event_line
    from kernelopt.loop.protocols import EventKind, LoopEvent

    stop = LoopEvent(EventKind.STOPPED, 0, None, "stopped: baseline_failed: reference.py fails", 1.0)
    assert event_line(stop) == "stopped: baseline_failed: reference.py fails"  # was "stopped: stopped: ..."
    note = LoopEvent(EventKind.NOTE, 1, None, "V1 plan: block_size", 1.0)
    assert event_line(note) == "note: V1 plan: block_size"


def test_an_edit_that_does_not_parse_is_refused_at_validate_and_the_action_stays_untried(tmp_path: Path) -> None:
    """The agent's kernel.py with a typo: validate failed V1 ("kernel.py does not parse", after two "repair"
    attempts of the same edit), and the next version's plan of the same action was refused as already tried.
    Then a wrong result: Stage 3's repair attempts re-applied the same edit; now each goes back to the agent."""
    from kernelopt.stages import guard

    from .test_mcp_server import PLAN

    kernel, reference = _sources(tmp_path)
    server = build_server(Roots([tmp_path]), default_device="cpu")
    _call(server, "init", name="add", kernel=str(kernel), reference=str(reference))
    ws = tmp_path / "kernel_opt_add"
    _call(server, "profile", workspace="add")
    summary = json.loads((ws / "profiles/v1/summary.json").read_text())
    latency = summary["kernels"][0]["metrics"]["duration_us"]["value"]
    _call(server, "submit_plan", workspace="add", plan=PLAN.format(latency=latency))
    good = (ws / "kernel.py").read_text()
    (ws / "kernel.py").write_text(good.replace("BLOCK = 64", "BLOCK = 1024").replace("def run(x, y):", "def run(x, y:"))
    before = guard.snapshot(ws)
    message = _one_line_error(server, "validate", workspace="add")
    assert "validate: kernel.py does not parse: line" in message and "validate again" in message, message
    assert guard.snapshot(ws) == before and not (ws / "memory/v1.json").exists()  # nothing recorded
    # the typo fixed, but the result wrong: Stage 3's check fails, and its repair attempt is the agent's
    (ws / "kernel.py").write_text(good.replace("BLOCK = 64", "BLOCK = 1024").replace("return out", "return out * 2"))
    wrong = (ws / "kernel.py").read_bytes()
    message = _one_line_error(server, "validate", workspace="add")
    assert "validate: the edit fails its check: correctness FAIL" in message and "1 more repair" in message, message
    assert (ws / "kernel.py").read_bytes() == wrong and not (ws / "memory/v1.json").exists()
    assert _call(server, "status", workspace="add").structured_content["next"] == "implement_then_validate"
    (ws / "kernel.py").write_text(good.replace("BLOCK = 64", "BLOCK = 1024"))  # repaired
    gated = _call(server, "validate", workspace="add").structured_content
    assert gated["record"]["quality_gate"]["result"] == "PASS", gated
