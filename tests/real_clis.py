"""The agent path with the real Claude Code and Codex CLIs, through ``kernelopt optimize --device cpu``: the
scenarios, run once per CLI by tests/test_agent_cli_claude.py and tests/test_agent_cli_codex.py (two files,
so that the suite's per-file workers run the two CLIs side by side).

The CLIs are the pinned npm releases (``KNOWN`` in kernelopt/backends/coding_agents.py), installed once by
:func:`installed_cli` into ``~/.cache/kernelopt-test-clis/<package>@<version>`` (``KERNELOPT_TEST_CLI_CACHE``
moves it) and reused by later runs; where npm is missing or cannot install them, these tests skip and say
why. The model is tests/model_server.py on 127.0.0.1 (Claude Code through ``ANTHROPIC_BASE_URL``, Codex
through a ``wire_api = "responses"`` provider in ``~/.codex/config.toml``), scripted per scenario; HOME is
a fresh folder for each test. Each scenario runs ONE stage through the real CLI (the documented command
line, ``CodingAgent.command``) and the other through a scripted agent of tests/data/agents, from the
rows workspace's gated V0 (``rows_baseline``), for one iteration:

- a pass that is committed (the CLI writes kernel.py and runs ``python3 test_kernel.py``);
- ``NO_NEW_ACTION`` (the CLI runs ``kernelopt wiki spec H200`` and says there is nothing new);
- a guard violation (the CLI also writes reference.py and another workspace's kernel.py);
- a hanging model (stopped at the timeout; no process left; nothing of the key in HOME);
- an HTTP 500 (``AGENT_UNAVAILABLE``, not a lesson about the action);
- a secret that the agent prints (it never reaches anything kernelopt keeps, nor HOME);
- the key not passed on (no ``KERNELOPT_KEEP_ENV``): the CLI's "not logged in" is ``AGENT_UNAVAILABLE``
  naming the variable to keep.

With ``KERNELOPT_CLI_TABLE=FILE`` set, each scenario appends one JSON line (CLI, version, verdict, commit,
what landed in HOME, seconds per agent call) to FILE: docs/results.md's table is made from it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kernelopt.backends.coding_agents import CLAUDE_CODE, CODEX, CodingAgent
from kernelopt.cli.app import main
from kernelopt.memory.model import GateResult
from kernelopt.workspace import Workspace

from .conftest import with_baseline
from .model_server import Hang, HttpError, ModelServer, Text, ToolCall

pytestmark = pytest.mark.timeout(180)

AGENTS = Path(__file__).parent / "data" / "agents"
ROWS = AGENTS / "rows"
PY = shlex.quote(sys.executable)
SINGLE_PASS = (AGENTS / "_agent.py").read_text().split("SINGLE_PASS = '''", 1)[1].split("'''", 1)[0]
CACHE = Path(os.environ.get("KERNELOPT_TEST_CLI_CACHE") or Path.home() / ".cache" / "kernelopt-test-clis")
REAL_HOME = Path.home()
KEY = "sk-test-agentcli-7f3e9a1c5b2d4e6f8091"
AGENT_TIMEOUT_S = 60
HANG_TIMEOUT_S = 4


def installed_cli(agent: CodingAgent) -> Path:
    """The executable of ``agent`` at its tested version, installed with npm into the cache once; skips the
    test (saying why) when npm is missing, the install fails (no registry, no network) or the CLI does not
    run here (``--version`` fails: a node too old, another platform)."""
    exe = _install(agent)
    try:
        r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"{agent.product} {agent.tested_version} does not run here: {exc}")
    if r.returncode != 0:
        last = ((r.stderr or r.stdout).strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"{agent.product} {agent.tested_version} does not run here: {last}")
    return exe


def _install(agent: CodingAgent) -> Path:
    folder = CACHE / f"{agent.package.replace('/', '+')}@{agent.tested_version}"
    exe = folder / "node_modules" / ".bin" / agent.program
    if exe.exists():
        return exe
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"npm is not installed: the real {agent.product} tests install it with npm (node 18+)")
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:  # xdist workers install one at a time
        fcntl.flock(lock, fcntl.LOCK_EX)
        if exe.exists():
            return exe
        tmp = Path(tempfile.mkdtemp(prefix=".install-", dir=CACHE))
        spec = f"{agent.package}@{agent.tested_version}"
        argv = [npm, "install", "--prefix", str(tmp), "--no-audit", "--no-fund", "--loglevel=error", spec]
        env = {**os.environ, "HOME": str(REAL_HOME)}  # npm's own cache stays the user's
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
        except subprocess.TimeoutExpired:
            shutil.rmtree(tmp, ignore_errors=True)
            pytest.skip(f"npm install {spec} did not finish in 600 s (registry unreachable?)")
        if r.returncode != 0 or not (tmp / "node_modules" / ".bin" / agent.program).exists():
            shutil.rmtree(tmp, ignore_errors=True)
            last = (r.stderr.strip().splitlines() or ["no output"])[-1]
            pytest.skip(f"npm could not install {spec}: {last}")
        os.rename(tmp, folder)
    return exe


@pytest.fixture(scope="session")
def claude_exe() -> Path:
    return installed_cli(CLAUDE_CODE)


@pytest.fixture(scope="session")
def codex_exe() -> Path:
    return installed_cli(CODEX)


@dataclass
class Session:
    """One scenario's CLI, scripted server, HOME and workspace root."""

    agent: CodingAgent
    server: ModelServer
    home: Path
    root: Path

    @property
    def ws_dir(self) -> Path:
        return self.root / "kernel_opt_rows"

    def home_files(self) -> list[str]:
        return sorted(p.relative_to(self.home).as_posix() for p in self.home.rglob("*") if p.is_file())


@pytest.fixture
def cli(
    cli_name: str, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows_baseline: Path
) -> Iterator[Session]:
    """A scripted server, a fresh HOME set up for the CLI, its npm bin folder first on PATH, the key passed
    on (``KERNELOPT_KEEP_ENV``) and a copy of the rows workspace at V0."""
    agent = CLAUDE_CODE if cli_name == "claude" else CODEX
    exe = request.getfixturevalue(f"{cli_name}_exe")
    home = tmp_path / "home"
    home.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    with_baseline(rows_baseline, root)
    server = ModelServer(lifetime_s=150)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("KERNELOPT_AGENT_COMMAND", raising=False)
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_HOME", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    if agent is CLAUDE_CODE:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("KERNELOPT_KEEP_ENV", "ANTHROPIC_API_KEY")
        monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        monkeypatch.setenv("DISABLE_TELEMETRY", "1")
        monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")  # an HTTP 500 fails at once (default: retried)
    else:
        (home / ".codex").mkdir()
        (home / ".codex" / "config.toml").write_text(
            'model = "scripted-model"\nmodel_provider = "scripted"\n\n[model_providers.scripted]\n'
            f'name = "scripted"\nbase_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n'
            "request_max_retries = 0\nstream_max_retries = 0\n"
        )
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("KERNELOPT_KEEP_ENV", "OPENAI_API_KEY")
    with server:
        yield Session(agent, server, home, root)


def scripted(script: str) -> str:
    return f"command={PY} {shlex.quote(str(AGENTS / script))} {{prompt_file}}"


def real(agent: CodingAgent, timeout_s: float = AGENT_TIMEOUT_S) -> list[str]:
    return [f"command={agent.command}", f"timeout_s={timeout_s}", "term_grace_s=3"]


def optimize(
    s: Session, capsys: pytest.CaptureFixture[str], *, plan: list[str], implement: list[str]
) -> dict[str, Any]:
    args = ["optimize", str(ROWS), "--root", str(s.root), "--device", "cpu", "--json", "--max-iters", "1"]
    args += ["--planner", "agent-cli", *[x for o in plan for x in ("-P", o)]]
    args += ["--implementer", "agent-cli", *[x for o in implement for x in ("-I", o)]]
    t0 = time.monotonic()
    code = main(args)
    out, err = capsys.readouterr()
    summary = json.loads(out)
    unavailable = summary["stop"] is not None and summary["stop"]["reason"] == "agent_unavailable"
    assert code == (3 if unavailable else 0), err  # the agent's infrastructure failing is exit 3, never 0
    summary["_wall_s"] = time.monotonic() - t0
    return summary


def tool_results(s: Session) -> str:
    """What the CLI sent back to the model after its tool calls (the later requests' bodies)."""
    return "\n".join(r.text() for r in s.server.model_requests()[1:])


def agent_seconds(ws: Workspace, stage: str) -> float | None:
    log = ws.profile_dir(1) / f"agent_{stage}.log"
    m = re.search(r"^duration_s: ([0-9.]+)$", log.read_text(), re.M) if log.is_file() else None
    return float(m.group(1)) if m else None


def no_secret_kept(s: Session) -> None:
    """The key is in no file of the workspace, in no object of its git history, in no file of HOME."""
    ws = s.ws_dir
    for p in ws.rglob("*"):
        if p.is_file() and ".git" not in p.relative_to(ws).parts:
            assert KEY.encode() not in p.read_bytes(), p
    history = subprocess.run(
        ["git", "-C", str(ws), "log", "--all", "-p", "--format=%H %B"], capture_output=True, text=True, check=True
    ).stdout
    assert KEY not in history
    for p in s.home.rglob("*"):
        if p.is_file():
            assert KEY.encode() not in p.read_bytes(), f"HOME keeps the key: {p.relative_to(s.home)}"


def no_process_left(s: Session) -> None:
    """No process started by the agent (its environment names this test's HOME and a kernelopt stage)
    survives the run: the CLI and its children. (kernelopt's own gate workers also see HOME.)"""
    needle = f"HOME={s.home}".encode()
    deadline = time.monotonic() + 5
    while True:
        left = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            with contextlib.suppress(OSError):
                environ = (entry / "environ").read_bytes().split(b"\0")
                if needle in environ and any(v.startswith(b"KERNELOPT_STAGE=") for v in environ):
                    left.append(int(entry.name))
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert left == [], f"processes left running: {left}"


def record_row(s: Session, scenario: str, summary: dict[str, Any], stage: str) -> None:
    table = os.environ.get("KERNELOPT_CLI_TABLE")
    if not table:
        return
    ws = Workspace(s.ws_dir)
    row = {
        "cli": s.agent.product,
        "version": s.agent.tested_version,
        "scenario": scenario,
        "verdict": [o["result"] for o in summary["this_run"]] or ["none"],
        "stop": summary["stop"]["reason"],
        "commit": ws.log(max_count=1)[0][1],
        "home": s.home_files(),
        "agent_s": agent_seconds(ws, stage),
        "optimize_s": round(summary["_wall_s"], 2),
    }
    with open(table, "a") as f:
        f.write(json.dumps(row) + "\n")


def test_a_pass_is_committed(cli: Session, capsys: pytest.CaptureFixture[str]) -> None:
    cli.server.script += [
        ToolCall.read(str(cli.ws_dir / "kernel.py")),
        ToolCall.write(str(cli.ws_dir / "kernel.py"), SINGLE_PASS),
        ToolCall.shell("python3 test_kernel.py --device cpu"),
        Text("kernel.py is a single pass and python3 test_kernel.py passes."),
    ]
    summary = optimize(cli, capsys, plan=[scripted("planner.py")], implement=real(cli.agent))
    ws = Workspace(cli.ws_dir)
    assert [(o["version"], o["result"]) for o in summary["this_run"]] == [(1, "PASS")]
    assert ws.kernel_py.read_text() == SINGLE_PASS and ws.log(max_count=1)[0][1].startswith("V1: ")
    said = tool_results(cli)
    # fix 1 and 2: the command the prompt names runs (no login shell resetting PATH, allowed by --allowedTools)
    assert "correctness: PASS" in said, said[-2000:]
    assert "command not found" not in said and "This command requires approval" not in said
    transcript = (ws.profile_dir(1) / "agent_implement.log").read_text()
    if cli.agent is CLAUDE_CODE:  # fix 7: stream-json read back, one line per step
        assert "JSON events read" in transcript and "tool call Bash" in transcript
    no_process_left(cli)
    record_row(cli, "pass", summary, "implement")


def test_no_new_action(cli: Session, capsys: pytest.CaptureFixture[str]) -> None:
    cli.server.script += [
        ToolCall.shell("kernelopt wiki spec H200"),
        Text("NO_NEW_ACTION: a single pass is all the evidence supports and it was tried"),
    ]
    summary = optimize(cli, capsys, plan=real(cli.agent), implement=[scripted("single_pass.py")])
    assert summary["this_run"] == [] and summary["stop"]["reason"] == "no_new_plan"
    assert "a single pass is all the evidence supports" in summary["stop"]["detail"]
    said = tool_results(cli)
    assert "H200 SXM" in said and "This command requires approval" not in said and "command not found" not in said
    record_row(cli, "NO_NEW_ACTION", summary, "plan")


def test_a_guard_violation_is_undone(cli: Session, capsys: pytest.CaptureFixture[str]) -> None:
    other = cli.root / "kernel_opt_other"
    other.mkdir()
    (other / "kernel.py").write_text("# another workspace\n")
    reference = (cli.ws_dir / "reference.py").read_bytes()
    cli.server.script += [
        ToolCall.read(str(cli.ws_dir / "reference.py")),
        ToolCall.write(str(cli.ws_dir / "reference.py"), "def reference(x):\n    return x\n"),
        ToolCall.read(str(other / "kernel.py")),
        ToolCall.write(str(other / "kernel.py"), "# overwritten by another workspace's agent\n"),
        ToolCall.read(str(cli.ws_dir / "kernel.py")),
        ToolCall.write(str(cli.ws_dir / "kernel.py"), SINGLE_PASS),
        Text("done"),
    ]
    summary = optimize(cli, capsys, plan=[scripted("planner.py")], implement=real(cli.agent))
    ws = Workspace(cli.ws_dir)
    assert [o["result"] for o in summary["this_run"]] == ["FAIL"]
    r1 = ws.memory.read(1)
    assert "reference.py" in (r1.quality_gate.failure_reason or "")
    assert any(p.error_type == "write_violation" for p in r1.pitfalls_and_fixes)
    assert (cli.ws_dir / "reference.py").read_bytes() == reference
    assert ws.kernel_py.read_bytes() == (ROWS / "kernel.py").read_bytes()  # back to V0
    # fix 6: another workspace under the same root is out of the agent's reach (Codex: /tmp is not writable)
    assert (other / "kernel.py").read_text() == "# another workspace\n"
    record_row(cli, "guard violation", summary, "implement")


def test_a_hanging_model_is_stopped_at_the_timeout(cli: Session, capsys: pytest.CaptureFixture[str]) -> None:
    cli.server.script += [Hang()]
    t0 = time.monotonic()
    summary = optimize(
        cli, capsys, plan=real(cli.agent, timeout_s=HANG_TIMEOUT_S), implement=[scripted("single_pass.py")]
    )
    assert time.monotonic() - t0 < 60
    ws = Workspace(cli.ws_dir)
    assert [o["result"] for o in summary["this_run"]] == ["AGENT_UNAVAILABLE"]
    assert summary["stop"]["reason"] == "agent_unavailable"
    r1 = ws.memory.read(1)
    assert r1.quality_gate.result is GateResult.AGENT_UNAVAILABLE
    assert "ran past its 4 s limit" in (r1.quality_gate.failure_reason or "")
    assert "SIGTERM" in (ws.profile_dir(1) / "agent_plan.log").read_text()
    no_process_left(cli)
    no_secret_kept(cli)  # fix 5: SIGTERM first, so no shell snapshot keeps the key
    record_row(cli, "hanging model", summary, "plan")


def test_an_http_500_is_agent_unavailable_not_a_lesson(cli: Session, capsys: pytest.CaptureFixture[str]) -> None:
    cli.server.script += [HttpError(500, "scripted internal error")]
    summary = optimize(cli, capsys, plan=real(cli.agent), implement=[scripted("single_pass.py")])
    ws = Workspace(cli.ws_dir)
    assert [o["result"] for o in summary["this_run"]] == ["AGENT_UNAVAILABLE"]
    assert summary["stop"]["reason"] == "agent_unavailable"
    r1 = ws.memory.read(1)
    (pit,) = r1.pitfalls_and_fixes
    assert pit.error_type == "agent_unavailable" and "[agent unavailable: API error: " in pit.error_message
    assert "failed as planned" not in (pit.lesson or "") and "was not measured" in (pit.lesson or "")
    assert ws.kernel_py.read_bytes() == (ROWS / "kernel.py").read_bytes()
    record_row(cli, "HTTP 500", summary, "plan")


def test_a_secret_the_agent_prints_is_kept_nowhere(cli: Session, capsys: pytest.CaptureFixture[str]) -> None:
    variable = "ANTHROPIC_API_KEY" if cli.agent is CLAUDE_CODE else "OPENAI_API_KEY"
    cli.server.script += [
        ToolCall.shell("kernelopt wiki search softmax"),
        Text(f"For the record, {variable} is {KEY}.\nNO_NEW_ACTION: nothing new ({variable}={KEY})"),
    ]
    summary = optimize(cli, capsys, plan=real(cli.agent), implement=[scripted("single_pass.py")])
    ws = Workspace(cli.ws_dir)
    assert summary["stop"]["reason"] == "no_new_plan" and KEY not in json.dumps(summary)
    transcript = (ws.profile_dir(1) / "agent_plan.log").read_text()
    assert f"{variable} is" in transcript and KEY not in transcript  # printed, and redacted where caught
    no_secret_kept(cli)
    no_process_left(cli)
    record_row(cli, "secret printed", summary, "plan")


def test_a_key_not_passed_on_says_so(
    cli: Session, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33 fix 3: without KERNELOPT_KEEP_ENV the CLI says "Not logged in" / "Missing environment
    variable"; the verdict is AGENT_UNAVAILABLE and the reason names the variable to keep."""
    monkeypatch.delenv("KERNELOPT_KEEP_ENV")
    variable = "ANTHROPIC_API_KEY" if cli.agent is CLAUDE_CODE else "OPENAI_API_KEY"
    summary = optimize(cli, capsys, plan=real(cli.agent), implement=[scripted("single_pass.py")])
    assert [o["result"] for o in summary["this_run"]] == ["AGENT_UNAVAILABLE"]
    reason = summary["stop"]["detail"]
    assert summary["stop"]["reason"] == "agent_unavailable" and f"set KERNELOPT_KEEP_ENV={variable}" in reason
    assert cli.server.model_requests() == []  # it never reached the model
    record_row(cli, "key not passed on", summary, "plan")
