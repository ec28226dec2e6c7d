"""fresh28's cases: a fresh clone tried as a new user and as a coding agent (the skill, the plugin files, the MCP
server driven by the ``mcp`` SDK's stdio client, ``batch`` with a reference that raises or is slow) on the CPU
(docs/faults.md, "A fresh clone, twenty-eighth round")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def test_f60_a_stage_call_s_own_status_names_its_server_not_the_one_before(tmp_path: Path) -> None:
    """f60: a second ``kernelopt mcp`` server (the first, which made the last stage call, had ended) answered
    ``submit_plan`` with a status saying "the run is paused ... and that server has ended (killed, or closed by its
    client): nothing serves it now", ``running: false``, ``served_by: []``, while it was the server serving the call:
    the result's status was read before the call marked the workspace as served. Inside a stage call (the run lock
    held here) the status now reads the mark as the call leaves it."""
    from kernelopt.agents import drive
    from kernelopt.agents.served import MARK
    from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
    from kernelopt.stagenames import Stage
    from kernelopt.workspace import RunLock
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    it = IterationState(version=1, stage=Stage.IMPLEMENT, base_commit=ws.head(), good_version=0)
    settings = RunSettings(planner=drive.AGENT, implementer=drive.AGENT)
    Journal(ws.state_dir).save(RunState(settings=settings, current=it, paused=True))
    (ws.state_dir / MARK).write_text("999999999\n")  # the server of the last call, ended: no lock held on the mark
    between = drive.status(ws)  # between calls, no server lives: said as before
    assert not between.running and (between.interrupted or "").endswith("where it paused"), between
    with RunLock(ws.root, command="mcp"):  # a stage call of this process in flight, its result's status read
        inside = drive.status(ws)
    assert inside.running and inside.interrupted is None, inside
    assert inside.served_by == [os.getpid()] and "has ended" not in inside.why, inside


def test_f61_every_argument_of_every_mcp_tool_is_in_the_agents_page_s_table() -> None:
    """f61: docs/agents.md's table of the MCP tools wrote ``profile(workspace)``, ``tune(path, kernel?, budget?,
    budget_wall_s?)`` and ``memory_summary(workspace)``, where the server takes ``device`` (profile, tune) and
    ``include_masked`` (memory_summary) too: an agent reading the page could not know that ``device="cpu"`` is the
    way to tune without a GPU. Each tool's arguments, as the server lists them, are named in its rows."""
    import ast
    import re

    src = Path(__file__).parents[1] / "src" / "kernelopt" / "agents" / "mcp_server.py"
    tools = {
        node.name: [a.arg for a in node.args.args + node.args.kwonlyargs if "Context" not in ast.unparse(a.annotation)]
        for node in ast.walk(ast.parse(src.read_text(encoding="utf-8")))
        if isinstance(node, ast.AsyncFunctionDef) and any("server.tool" in ast.unparse(d) for d in node.decorator_list)
    }  # the server's tools as declared (their arguments, less the SDK's Context, are the schema's), read, not imported
    page = (Path(__file__).parents[1] / "docs" / "agents.md").read_text(encoding="utf-8")
    table = page.split("| tool | stage | result", 1)[1].split("\n\n", 1)[0]
    cells = [line.split(" | ")[0] for line in table.splitlines()[2:]]  # each row's first cell, its calls
    missing = {}
    for name, arguments in tools.items():
        said = {word for cell in cells if f"`{name}(" in cell for word in re.findall(r"\w+", cell)}
        left = [arg for arg in arguments if arg not in said]
        if left:
            missing[name] = left
    assert len(tools) == 13 and not missing, missing


def test_f62_an_agent_s_run_whose_server_ended_names_the_commands_that_continue_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f62: ``kernelopt status`` of a workspace an MCP server drove, the server ended between its calls, said
    "`kernelopt optimize WS` resumes it, rolling that stage back first"; that command refused "unknown implementer
    backend 'mcp-agent'; known: agent-cli, llm-api, rules" (exit 2), and a paused run has no stage to roll back.
    ``status`` names the server's next stage call and ``optimize --planner rules --implementer rules``; ``optimize``
    without backends says whose run it is and the same command."""
    from kernelopt.agents import drive
    from kernelopt.agents.served import MARK
    from kernelopt.cli.app import main
    from kernelopt.cli.status import standing
    from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
    from kernelopt.oneline import shell_word
    from kernelopt.stagenames import Stage
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    it = IterationState(version=1, stage=Stage.PLAN, base_commit=ws.head(), good_version=0)
    settings = RunSettings(planner=drive.AGENT, implementer=drive.AGENT, device="cpu")
    Journal(ws.state_dir).save(RunState(settings=settings, current=it, paused=True))
    (ws.state_dir / MARK).write_text("999999999\n")  # the server that paused it has ended
    command = f"`kernelopt optimize {shell_word(ws.root)} --planner rules --implementer rules`"
    now = standing(ws)
    assert now.run == "interrupted" and now.next == (
        f"a `kernelopt mcp` server's next stage call (submit_plan) continues it where it paused; or {command} "
        "continues it with kernelopt's own backends"
    ), now.next
    it.stage = Stage.IMPLEMENT  # the agent's edit is due: the call that takes it is validate
    Journal(ws.state_dir).save(RunState(settings=settings, current=it, paused=True))
    assert standing(ws).next.startswith(
        "a `kernelopt mcp` server's next stage call (validate, after the edit of kernel.py) continues it where it paused"
    )
    assert main(["optimize", str(ws.root), "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"kernelopt: error: {ws.root}: this run is an agent's, through `kernelopt mcp`"), err
    assert err.endswith(f"name kernelopt's own backends: {command} (or agent-cli, llm-api: docs/backends.md)"), err


def test_f63_a_kernel_folder_given_to_a_stage_tool_is_refused_in_the_tools_words(tmp_path: Path) -> None:
    """f63: ``status(workspace="loop")`` (any stage tool) on a kernel folder under the server's root answered with the
    CLI's advice: "`kernelopt init NAME --kernel ...` makes one from it ...; a workspace of this folder's name is
    /tmp/kernel_opt_loop ...: give that", a path outside the server's roots that the next call was refused for. The
    refusal names the ``init`` call that makes a workspace from it; a workspace's own fault is said as before."""
    from kernelopt.agents import drive
    from kernelopt.errors import WorkspaceError
    from tests.backends_support import make_ws

    folder = tmp_path / "loop"
    folder.mkdir()
    for name in ("kernel.py", "reference.py"):
        (folder / name).write_text("")
    with pytest.raises(WorkspaceError) as refused:
        drive.open_workspace(folder)
    kernel, reference = str(folder / "kernel.py"), str(folder / "reference.py")
    assert refused.value.one_line() == (
        f"{folder}: a kernel folder, not a kernelopt workspace: call init(name=..., kernel={kernel!r}, "
        f"reference={reference!r}) to make one from it (under the server's first root), then call the stages on that "
        "workspace; tune takes the folder as it is"
    )
    ws = make_ws(tmp_path / "w")
    (ws.root / "kernel.py").unlink()
    with pytest.raises(WorkspaceError, match="kernel.py deleted from the workspace"):
        drive.open_workspace(ws.root)


def test_f64_an_agent_s_plan_is_shown_without_a_current_value_it_does_not_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """f64: ``kernelopt plan WS --planner agent-cli`` of an agent's plan (``parameters: {BLOCK: 2048}``, no current
    values, which only the rules planner fills) printed "v3: block_size (BLOCK ? -> 2048), risk low". The line names
    the new value alone where the plan names no current one, and the change as before where it does."""
    from kernelopt.cli.plan import _show
    from kernelopt.stages.plan import PlanResult, PlanVerdict
    from tests.backends_support import make_plan

    agent = make_plan("block_size", {"BLOCK": 2048}, version=3)
    ruled = agent.model_copy(update={"current_values": {"BLOCK": 1024}})
    for plan in (agent, ruled):
        _show(3, tmp_path / "v3_plan.md", PlanResult(3, "x", PlanVerdict.PLANNED, plan=plan), False)
    out = capsys.readouterr()
    said = [line for line in (out.out + out.err).splitlines() if line.startswith("v3: ")]
    assert said == ["v3: block_size (BLOCK = 2048), risk medium", "v3: block_size (BLOCK 1024 -> 2048), risk medium"], (
        said
    )


def test_f65_an_mcp_agent_s_edit_past_its_repairs_is_checked_once_and_counted_once(tmp_path: Path) -> None:
    """f65: the third ``validate`` of an MCP agent whose edit kept failing its check (its two repairs spent in the
    calls before) ran Stage 3's two repair attempts on the same edit: three checks of one kernel.py, events "...;
    repairing" twice, and a record of "repair attempt by the implementer" at attempts 2 and 3 of 3 that no one made.
    Past its repairs the agent's edit is checked once and fails the version; with repairs left, a failed check still
    goes back to the agent (``_RepairByTheAgent``)."""
    from kernelopt.agents import drive
    from kernelopt.harness.model import CorrectnessReport, CorrectnessStatus
    from kernelopt.stages.guard import RunGuard
    from kernelopt.stages.implement import run_implement
    from tests.backends_support import make_plan, make_ws

    ws = make_ws(tmp_path)
    plan = make_plan("block_size", {"BLOCK": 2048})
    edit = ws.kernel_py.read_bytes() + b"\n# the agent's edit\n"
    checks: list[str] = []

    def check(_ws: object) -> CorrectnessReport:
        checks.append(ws.kernel_py.read_text())
        return CorrectnessReport(passed=False, status=CorrectnessStatus.FAIL, message="output differs")

    def stage(repairs: bool) -> object:
        agent = drive.AgentEdits("BLOCK 2048", repairs=repairs)
        agent.edits = {"kernel.py": edit}
        return run_implement(
            ws, 1, plan, agent, guard=RunGuard(ws), check=check, repair_attempts=2, history=[], summary=None
        )

    res = stage(repairs=False)
    assert len(checks) == 1 and not res.ok and res.attempts == 1, (len(checks), res.attempts)
    assert res.reason == "correctness FAIL: output differs", res.reason
    assert [p.fix_applied for p in res.pitfalls] == ["none: kernel.py restored to the last good version"]
    with pytest.raises(drive._RepairByTheAgent):  # repairs left: the failure goes back to the agent, as before
        stage(repairs=True)
    assert len(checks) == 2


def test_f66_the_timing_s_inputs_are_off_the_case_clock_as_the_check_s_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """f66: ``batch`` (and every gate) of a correct kernel of 20 ms a call whose reference's ``get_inputs`` takes
    1.96 s, ``TEST_TIMEOUT_SEC=2``: TIMEOUT_FAIL, "timing of case 0 (n=4096) [v0] ran past the per-case limit of 2 s
    (TEST_TIMEOUT_SEC); the kernel hangs or is far too slow": the check built its inputs on the checker's clock, the
    timing on the kernel's. The timing's inputs are now the checker's work too (``check_start`` / ``check_end``), so
    the per-case clock the watchdog keeps holds none of ``get_inputs``'s seconds."""
    import json

    from kernelopt.harness.progress import Limits, Watchdog
    from tests.bench_job import bench_job

    reference = (
        "import time\nimport torch\n\n\ndef get_inputs():\n    time.sleep(0.3)\n    return [torch.ones(8)]\n\n\n"
        "def reference(x):\n    return x + 1\n"
    )
    res = bench_job(tmp_path, monkeypatch, reference, "def run(x):\n    return x + 1\n")
    assert res.failure is None and res.timings, res.failure
    dog = Watchdog(limits=Limits(startup_s=60, compile_s=60, case_s=0.25, run_s=60, check_s=60), started_at=0.0)
    events = [json.loads(line) for line in (tmp_path / "progress.jsonl").read_text().splitlines()]
    past = []
    for event in events:
        timeout = dog.check(event["t"])  # the kernel's 20 us calls fit 0.25 s; get_inputs's 0.3 s does not
        if timeout is not None and timeout.kind.value == "case":
            past.append(timeout.message)
        dog.feed(event)
    assert any(e.get("phase") == "bench" for e in events) and not past, past


def test_f67_the_mcp_server_s_help_ends_with_the_line_that_starts_it(capsys: pytest.CaptureFixture[str]) -> None:
    """f67: ``kernelopt mcp --help`` gave its two options and nothing to run: a stdio server started by hand waits
    in silence for its client. Its help ends with the client's line that starts it (Claude Code's ``claude mcp
    add``) and where Codex's table goes; n144's test parses every example line against its command's options."""
    from kernelopt.cli.app import main

    assert main(["mcp", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "claude mcp add kernelopt -- kernelopt mcp --root /tmp --device cpu" in said, said
    assert "# Codex: mcp_servers.kernelopt in ~/.codex/config.toml (docs/agents.md)" in said, said
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "`mcp` (the client's line that starts it) and `agent install` end with examples" in readme  # l275 too


def test_f68_the_agents_page_says_which_commit_memory_summary_names() -> None:
    """f68: MCP ``memory_summary`` gave V0's ``git_commit_hash`` as the record holds it, the commit before its amend
    (in no branch), beside ``status``'s outcome naming the amended commit, and docs/agents.md did not say which is
    which (docs/loop.md does). The tool's row says it."""
    page = " ".join((Path(__file__).parents[1] / "docs" / "agents.md").read_text(encoding="utf-8").split())
    row = page.split("| `memory_summary(", 1)[1].split(" | `", 1)[0]
    assert "the commit before its amend" in row and "`status` and `report` name the commit as amended" in row, row


def test_f69_status_of_an_agent_s_live_run_names_the_call_that_takes_the_edit(tmp_path: Path) -> None:
    """f69: ``kernelopt status`` of a run an MCP server drives and serves, its plan accepted, said "the agent's next
    stage call through `kernelopt mcp`: implement_then_validate (...)": a step's name, no tool. It names the call,
    validate, after the edit (as f62 does where the server has ended)."""
    from kernelopt.agents import drive
    from kernelopt.agents.served import mark_served
    from kernelopt.cli.status import standing
    from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
    from kernelopt.stagenames import Stage
    from tests.backends_support import make_ws

    ws = make_ws(tmp_path)
    it = IterationState(version=1, stage=Stage.IMPLEMENT, base_commit=ws.head(), good_version=0)
    settings = RunSettings(planner=drive.AGENT, implementer=drive.AGENT, device="cpu")
    Journal(ws.state_dir).save(RunState(settings=settings, current=it, paused=True))
    mark_served(ws.state_dir)  # this process serves it, as a live server does between its calls
    now = standing(ws)
    assert now.run == "agent" and now.next.startswith(
        "the agent's next stage call through `kernelopt mcp`: validate, after the edit of kernel.py (V1's plan is "
        "accepted"
    ), now.next
