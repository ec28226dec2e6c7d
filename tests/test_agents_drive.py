"""The MCP server's stage calls (kernelopt.agents.drive) on the CPU: the agent's implementation is checked by the
guard (a write outside kernel.py is undone and fails the version; record reverts), a cancelled stage rolls back
and stays resumable, and a plan that repeats a recorded action is refused with nothing written."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from kernelopt.agents import drive
from kernelopt.loop.protocols import EventKind, LoopEvent
from kernelopt.stages import guard
from kernelopt.workspace import Workspace

from .test_mcp_server import LOOP, PLAN

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def profiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace of tests/data/loop with V0 committed and V1 profiled (waiting for its plan), made once."""
    from .conftest import BENCH_S, git_home

    root = tmp_path_factory.mktemp("drive")
    home = git_home(tmp_path_factory.mktemp("drive_home"))
    with pytest.MonkeyPatch.context() as mp:
        for name, value in {**home, "KERNELOPT_BENCH_S": BENCH_S, "KERNELOPT_SEEDS": "1"}.items():
            mp.setenv(name, value)
        ws = Workspace.create("add", kernel=LOOP / "kernel.py", reference=LOOP / "reference.py", root=root)
        result = drive.profile(ws, device="cpu")
    assert result.status is not None and result.status.next is drive.NextStep.SUBMIT_PLAN
    return ws.root


@pytest.fixture
def ws(profiled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")  # KERNELOPT_BENCH_S: conftest's BENCH_S
    return Workspace(shutil.copytree(profiled, tmp_path / profiled.name, symlinks=True))


def _plan(ws: Workspace) -> str:
    import json

    latency = json.loads((ws.profile_dir(1) / "summary.json").read_text())["kernels"][0]["metrics"]["duration_us"]
    return PLAN.format(latency=latency["value"])


def _subjects(ws: Workspace) -> list[str]:
    out = subprocess.run(["git", "-C", str(ws.root), "log", "--format=%s"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_an_agent_write_outside_kernel_py_is_undone_fails_the_version_and_record_reverts(ws: Workspace) -> None:
    drive.submit_plan(ws, _plan(ws), device="cpu")
    reference = ws.root / "reference.py"
    original = reference.read_bytes()
    reference.write_text("def reference(x, y):\n    return x\n")  # the agent "fixes" the truth
    (ws.root / "notes.txt").write_text("scratch\n")
    [v0_build] = (ws.state_dir / "build").glob("v0-*")  # what V1's gate loads and times as V0 (break21 b44)
    (v0_build / "planted.so").write_bytes(b"a slower build of V0\n")
    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 1024"))
    result = drive.validate(ws, device="cpu")
    assert result.status is not None and result.status.next is drive.NextStep.RECORD
    assert result.status.failure is not None and "the agent wrote outside kernel.py" in result.status.failure
    assert "reference.py" in result.status.failure and "notes.txt" in result.status.failure
    assert f".kernelopt/build/{v0_build.name} (the gate's own state" in result.status.failure
    assert not v0_build.exists()
    assert reference.read_bytes() == original and not (ws.root / "notes.txt").exists()
    done = drive.record(ws, device="cpu")
    assert done.record is not None and done.record.quality_gate.result is not None
    assert done.record.quality_gate.result.value == "FAIL"
    assert [p.error_type for p in done.record.pitfalls_and_fixes][:1] == ["write_violation"]
    assert "BLOCK = 64" in ws.kernel_py.read_text()  # reverted to the last good version
    assert _subjects(ws)[0].startswith("V1") and "revert" in _subjects(ws)[0].lower()
    assert ws.is_clean()


def test_a_cancelled_gate_rolls_back_and_the_next_validate_runs_it_again(ws: Workspace) -> None:
    from kernelopt.agents.mcp_server import Cancelled  # here: the MCP SDK is 1.5 CPU-s of each worker's collection

    drive.submit_plan(ws, _plan(ws), device="cpu")
    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 1024"))
    edited = ws.kernel_py.read_bytes()

    def cancel_at_the_gate(event: LoopEvent) -> None:
        if event.kind is EventKind.STAGE_START and event.message.endswith("gate"):
            raise Cancelled()

    with pytest.raises(Cancelled):
        drive.validate(ws, device="cpu", on_event=cancel_at_the_gate)
    now = drive.status(ws)
    assert now.next is drive.NextStep.VALIDATE and now.stage is not None and now.stage.value == "gate"
    assert "BLOCK = 64" in ws.kernel_py.read_text()  # the last good kernel while nothing runs
    result = drive.validate(ws, device="cpu")  # resumed: the kept candidate is gated
    assert result.record is not None and result.record.quality_gate.result is not None
    assert result.record.quality_gate.result.value == "PASS"
    assert ws.kernel_py.read_bytes() == edited
    drive.record(ws, device="cpu")
    assert _subjects(ws)[0].startswith("V1: ") and ws.is_clean()


def test_validate_cancelled_in_stage_3_keeps_the_agents_edit_and_an_unedited_kernel_is_refused(ws: Workspace) -> None:
    from kernelopt.agents.mcp_server import Cancelled  # here: the MCP SDK is 1.5 CPU-s of each worker's collection

    drive.submit_plan(ws, _plan(ws), device="cpu")
    before = guard.snapshot(ws.root), ws.head()
    with pytest.raises(drive.StageRefused, match="kernel.py is unchanged"):
        drive.validate(ws, device="cpu")
    assert (guard.snapshot(ws.root), ws.head()) == before
    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 1024"))
    edited = ws.kernel_py.read_bytes()

    def cancel_in_stage_3(event: LoopEvent) -> None:
        if event.kind is EventKind.STAGE_START and event.message.endswith("implement"):
            raise Cancelled()

    with pytest.raises(Cancelled):
        drive.validate(ws, device="cpu", on_event=cancel_in_stage_3)
    assert ws.kernel_py.read_bytes() == edited  # the agent's work, back in place
    assert drive.status(ws).next is drive.NextStep.IMPLEMENT_THEN_VALIDATE
    result = drive.validate(ws, device="cpu")
    assert result.record is not None and result.record.quality_gate.result is not None
    assert result.record.quality_gate.result.value == "PASS"


def test_a_plan_that_repeats_a_recorded_action_is_refused_with_nothing_written(ws: Workspace) -> None:
    drive.submit_plan(ws, _plan(ws), device="cpu")
    ws.kernel_py.write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 1024"))
    drive.validate(ws, device="cpu")
    drive.record(ws, device="cpu")
    drive.profile(ws, device="cpu")
    before = guard.snapshot(ws.root), ws.head()
    again = _plan(ws).replace("version: 1", "version: 2").replace("profiles/v1/", "profiles/v2/")
    import json

    latency = json.loads((ws.profile_dir(2) / "summary.json").read_text())["kernels"][0]["metrics"]["duration_us"]
    again = again.split("- duration_us = ")[0] + f"- duration_us = {latency['value']} us" + again.split(" us", 1)[1]
    with pytest.raises(drive.StageRefused, match="already tried in v1|repeats the action of V1"):
        drive.submit_plan(ws, again, device="cpu")
    assert (guard.snapshot(ws.root), ws.head()) == before


def test_a_kernel_py_made_a_link_to_a_file_outside_is_refused_at_validate(ws: Workspace, tmp_path: Path) -> None:
    """agents19 a6 through the MCP stage calls: the agent's kernel.py a symbolic link to its own file outside the
    workspace was gated through the link and committed as a link (the kernel then whatever that file held)."""
    drive.submit_plan(ws, _plan(ws), device="cpu")
    outside = tmp_path / "mine.py"
    outside.write_text(ws.kernel_py.read_text().replace("BLOCK = 64", "BLOCK = 1024"))
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(outside)
    with pytest.raises(drive.StageRefused, match="made kernel.py a symbolic link"):
        drive.validate(ws, device="cpu")
    assert not (ws.root / "memory/v1.json").exists() and ws.kernel_py.is_symlink()  # nothing recorded; the agent's
    assert drive.status(ws).next is drive.NextStep.IMPLEMENT_THEN_VALIDATE
