"""loses20: nothing of the user's lost by a failed stage, and lines that say what happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.backends.protocol import ImplementOutcome
from kernelopt.stages.guard import RunGuard
from kernelopt.stages.implement import run_implement

from .backends_support import make_plan, make_ws, write_plan


class _BreaksTheKernel:
    """A scripted implementer whose edit, written through the workspace's kernel.py, does not parse: Stage 3 fails."""

    name = "scripted-breaker"

    def implement(self, ctx) -> ImplementOutcome:
        kernel = ctx.workspace.kernel_py
        kernel.write_text(kernel.read_text() + "\ndef broken(:\n")
        return ImplementOutcome(changed=True, description="an edit that does not parse")


@pytest.fixture
def ws(ws_root: Path):
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    return ws


def test_a_failed_stage_3_keeps_the_users_linked_kernel(ws, tmp_path: Path) -> None:
    """l1 (late19's z5 seen item): the backup Stage 3 takes held no bytes for a link, so putting it back after a failed
    attempt deleted a kernel.py the user keeps as a link to their project's file. The link comes back as the same
    link, and the bytes the failed edit wrote through it are put back in the user's file."""
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    mine.write_bytes(ws.kernel_py.read_bytes())
    before = mine.read_bytes()
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    report = run_implement(
        ws, 1, make_plan(), _BreaksTheKernel(), guard=RunGuard(ws), check=None, summary=None, history=[]
    )
    assert not report.ok and report.reason  # refused as a linked kernel (kept under "Seen, not changed")
    assert ws.kernel_py.is_symlink() and Path(ws.kernel_py.readlink()) == mine
    assert mine.read_bytes() == before
