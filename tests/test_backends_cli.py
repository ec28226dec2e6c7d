"""`kernelopt tunables` and `kernelopt implement`, and third-party backends through entry points."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from kernelopt.backends.registry import implementer_class
from kernelopt.cli.app import main
from kernelopt.harness.model import CorrectnessReport
from kernelopt.memory.model import CorrectnessStatus

from .backends_support import AGENTS, TUNABLES, fake_parse_plan, make_plan, make_ws, write_plan


def Verdict(passed: bool, message: str) -> CorrectnessReport:
    status = CorrectnessStatus.PASS if passed else CorrectnessStatus.FAIL
    return CorrectnessReport(passed=passed, status=status, message=message)


@pytest.fixture
def parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in plan parser (the plans these tests write are not full plan files)."""
    import kernelopt.stages.plan as stage_plan

    monkeypatch.setattr(stage_plan, "parse_plan", fake_parse_plan)


def _harness(monkeypatch: pytest.MonkeyPatch, verdict: CorrectnessReport) -> list:
    """A stand-in for the harness's correctness check."""
    import kernelopt.harness.gate as gate

    calls: list = []

    def check_correctness(ws):
        calls.append(ws)
        return verdict

    monkeypatch.setattr(gate, "check_correctness", check_correctness)
    return calls


# -- tunables -------------------------------------------------------------------------------------


def test_tunables_json_and_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tunables", str(TUNABLES / "matmul_autotune.py"), "--json", "--no-evaluate"]) == 0
    data = json.loads(capsys.readouterr().out)
    keys = {t["key"]: t for t in data}
    assert keys["matmul_kernel.configs[0].num_warps"]["legal_values"] == [1, 2, 4, 8, 16, 32]
    assert keys["generated_kernel.configs"]["refused_reason"].startswith("autotune configs are built by code")
    # evaluated (the default): the comprehension's configs, read back from the imported module
    assert main(["tunables", str(TUNABLES / "matmul_autotune.py"), "--json"]) == 0
    keys = {t["key"]: t for t in json.loads(capsys.readouterr().out)}
    generated = keys["generated_kernel.configs[0].num_warps"]
    assert "generated_kernel.configs" not in keys and generated["refused_reason"] is None and generated["computed"]
    assert main(["tunables", str(TUNABLES / "grid_refused.py")]) == 0
    out = capsys.readouterr()
    assert "copy_kernel:BLOCK" in out.out and "copy_kernel:BLOCK is not editable: grid literal 1024" in out.err


def test_tunables_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.py"
    path.write_text((TUNABLES / "softmax_grid_literal.py").read_text())
    old = path.read_text()
    assert main(["tunables", str(path), "--set", "scale_kernel#1:BLOCK=x2", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "scale_kernel#1:BLOCK: 1024 -> 2048" in out and "+    grid = ((n + 2047) // 2048,)" in out
    assert path.read_text() == old
    assert main(["tunables", str(path), "--set", "scale_kernel#1:num_warps=16", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["knob_changes"] == {"num_warps": [8, 16]}
    assert "num_warps=16" in path.read_text()
    assert main(["tunables", str(path), "--set", "scale_kernel#1:num_stages=0"]) == 2  # #2 leaves it out: 3
    assert "kernelopt: error: scale_kernel#1:num_stages=0 is illegal: must be >= 1" in capsys.readouterr().err


def test_tunables_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tunables", "/nonexistent/kernel.py"]) == 2
    assert "no such file" in capsys.readouterr().err


# -- implement ------------------------------------------------------------------------------------


def test_implement_rules_then_correctness(
    ws_root: Path, parser: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    calls = _harness(monkeypatch, Verdict(True, "2/2 shapes pass (rel_err 0.0)"))
    assert main(["implement", str(ws.root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["version"] == 1 and data["implementer"] == "rules"
    assert data["knob_changes"] == {"num_warps": [4, 8]}
    assert data["correctness"] == {
        "ran": True,
        "passed": True,
        "message": "2/2 shapes pass (rel_err 0.0)",
    }
    assert len(calls) == 1 and "+                     num_warps=8)" in data["diff"]


def test_implement_failing_correctness_exits_1(
    ws_root: Path, parser: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    _harness(monkeypatch, Verdict(False, "case 1: rel_err 0.5"))
    assert main(["implement", str(ws.root)]) == 1
    err = capsys.readouterr().err
    assert "implement failed: correctness FAIL: case 1: rel_err 0.5; kernel.py left as it was" in err
    assert "num_warps=4" in ws.kernel_py.read_text()


def test_implement_with_an_unavailable_agent_exits_3(
    ws_root: Path, parser: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent whose infrastructure failed (API down) was exit 1, as a failed implementation; it is the
    environment's exit 3, as `optimize` and `validate` give the verdict AGENT_UNAVAILABLE."""
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    before = ws.kernel_py.read_bytes()
    monkeypatch.setenv("UNAVAILABLE_SAYS", "API Error: 500 Internal server error")
    command = f"command={shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'unavailable.py'))} {{prompt_file}}"
    assert main(["implement", str(ws.root), "--implementer", "agent-cli", "-o", command]) == 3
    err = capsys.readouterr().err
    assert "kernelopt: implement failed: the implementer was unavailable: " in err and "API Error: 500" in err
    assert ws.kernel_py.read_bytes() == before


def test_implement_when_the_check_cannot_run(
    ws_root: Path, parser: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelopt.errors import EnvironmentProblem

    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    import kernelopt.harness.gate as gate

    def check_correctness(ws):
        raise EnvironmentProblem("no CUDA device and KERNELOPT_DEVICE=cuda")

    monkeypatch.setattr(gate, "check_correctness", check_correctness)
    assert main(["implement", str(ws.root)]) == 3
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("kernelopt:")]  # a note may come first (no GPU)
    assert len(errors) == 1 and "no CUDA device and KERNELOPT_DEVICE=cuda" in errors[0], err


def test_implement_refusal_exits_1(ws_root: Path, parser: None, capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_ws(ws_root)
    write_plan(ws, make_plan("coalescing", {}))
    assert main(["implement", str(ws.root), "--no-check"]) == 1
    assert "is a code change, not a knob move" in capsys.readouterr().err


def test_implement_needs_a_plan_and_a_parser(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_ws(ws_root)
    assert main(["implement", str(ws.root)]) == 2
    assert "no plans/v<N>_plan.md to implement" in capsys.readouterr().err
    write_plan(ws, make_plan())  # not a full plan file: the real parser refuses it in one line
    assert main(["implement", str(ws.root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "plan" in err


def test_implement_with_agent_cli_option(
    ws_root: Path, parser: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    _harness(monkeypatch, Verdict(True, "ok"))
    command = f"command={shlex.quote(sys.executable)} {shlex.quote(str(AGENTS / 'behave.py'))} {{prompt_file}}"
    rc = main(["implement", str(ws.root), "--implementer", "agent-cli", "-o", command, "-o", "timeout_s=30", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0 and data["ok"] and data["transcript"].endswith("profiles/v1/agent_implement.log")


def test_implement_unknown_backend(ws_root: Path, parser: None, capsys: pytest.CaptureFixture[str]) -> None:
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    assert main(["implement", str(ws.root), "--implementer", "magic"]) == 2
    assert "unknown implementer backend 'magic'" in capsys.readouterr().err


# -- third-party backends through entry points ----------------------------------------------------

PLUGIN = """
from kernelopt.backends.protocol import ImplementOutcome


class AppendComment:
    name = "comment"

    def __init__(self, options=None):
        self.options = options or {}

    def implement(self, ctx):
        k = ctx.workspace.kernel_py
        k.write_text(k.read_text() + "\\n# " + self.options.get("text", "tuned by a plug-in") + "\\n")
        return ImplementOutcome(changed=True, description="plug-in comment")
"""


def test_entry_point_plugin(
    tmp_path: Path, ws_root: Path, parser: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    (site / "kopt_comment_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "kopt_comment_plugin.py").write_text(PLUGIN)
    dist = site / "kopt_comment_plugin-0.1.dist-info"
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kopt-comment-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[kernelopt.implementers]\ncomment = kopt_comment_plugin:AppendComment\n")
    monkeypatch.syspath_prepend(str(site))
    cls = implementer_class("comment")
    assert cls.__name__ == "AppendComment"
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    _harness(monkeypatch, Verdict(True, "ok"))
    assert main(["implement", str(ws.root), "--implementer", "comment", "-o", "text=hello"]) == 0
    assert ws.kernel_py.read_text().endswith("# hello\n")
    capsys.readouterr()
