"""late20: the agent path over a user's linked kernel.py (z6 over ``kernelopt mcp`` is in tests/test_mcp_server.py)
and this session's "seen, not changed" items (docs/faults.md, "The agent path and seen items (late20, 2026-12-06)").
Each test is cheap: one in-process stage, or a pure function."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.backends.protocol import ImplementOutcome
from kernelopt.stages.guard import RunGuard
from kernelopt.stages.implement import run_implement

from .backends_support import make_plan, make_ws, write_plan


class _PlainFileOverTheLink:
    """A scripted implementer that deletes the workspace's kernel.py and writes its edit as a plain file in its place
    (``edit`` of the bytes it read through the user's link)."""

    name = "scripted-plain-file"

    def __init__(self, edit: str) -> None:
        self.edit = edit

    def implement(self, ctx) -> ImplementOutcome:
        kernel = ctx.workspace.kernel_py
        text = kernel.read_text()
        kernel.unlink()
        kernel.write_text(text.replace("num_warps=4", self.edit))
        return ImplementOutcome(changed=True, description="num_warps 4 -> 8, written as a file of its own")


@pytest.mark.parametrize("edit", ["num_warps=8", "num_warps=(8"], ids=["passes", "does-not-parse"])
def test_z7_a_plain_file_written_over_the_user_s_link_is_written_through_it(
    ws_root: Path, tmp_path: Path, edit: str
) -> None:
    """An implementer that replaced the user's linked kernel.py with a plain file of its own passed Stage 3 while the
    user's project file was left unedited, their link gone. Its bytes are written through the link put back: the
    user's file is the one edited; a failed attempt puts the link back with the last good bytes."""
    ws = make_ws(ws_root)
    write_plan(ws, make_plan())
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    mine.write_bytes(ws.kernel_py.read_bytes())
    good = mine.read_bytes()
    assert b"num_warps=4" in good
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    report = run_implement(
        ws, 1, make_plan(), _PlainFileOverTheLink(edit), guard=RunGuard(ws), check=None, summary=None, history=[]
    )
    assert ws.kernel_py.is_symlink() and ws.kernel_py.readlink() == mine
    if edit == "num_warps=8":
        assert report.ok and not report.violations, (report.reason, report.violations)
        assert "num_warps=8" in mine.read_text() and "+" in report.diff
    else:
        assert not report.ok and "does not parse" in (report.reason or ""), report.reason
        assert mine.read_bytes() == good
