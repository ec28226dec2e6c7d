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


def test_z9_a_failed_version_s_revert_keeps_the_user_s_link_and_puts_their_file_back(
    ws_root: Path, tmp_path: Path
) -> None:
    """The record stage of a failed version puts kernel.py back by git's checkout of the base commit, which wrote a
    plain file over the user's linked kernel.py: their link was gone and their project's file kept the failed edit
    (over ``kernelopt mcp`` on the CPU, a gate FAIL of ``BLOCK = 8``: the link lost, their file ``BLOCK = 8``). The
    links of the gate's snapshot stay the iteration's through the record stage, whose revert puts the link back over
    git's file, the base commit's bytes written through it."""
    from kernelopt.loop import candidate
    from kernelopt.loop.journal import IterationState
    from kernelopt.stagenames import Stage

    ws = make_ws(ws_root)
    good = ws.kernel_py.read_bytes()
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    mine.write_bytes(good.replace(b"num_warps=4", b"num_warps=8"))  # the version's edit, through the link
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    it = IterationState(version=1, stage=Stage.GATE, base_commit=ws.head(), good_version=0)
    it.take_snapshot(ws.root)  # as the gate began
    assert it.links["kernel.py"].target == str(mine)
    it.take_snapshot(None)  # the gate failed: on to the record stage, which rolls nothing back
    assert it.snapshot == {} and "kernel.py" in it.links
    candidate.restore_good_kernel(ws, it)
    assert ws.kernel_py.is_symlink() and ws.kernel_py.readlink() == mine and mine.read_bytes() == good


# ---------------------------------------------------------------- z8: wrap_triton bound at import, torch < 2.12

_BOUND_AT_IMPORT = """import torch
import triton
import triton.language as tl
from torch.library import wrap_triton


@triton.jit
def double_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, 2 * tl.load(x_ptr + offs, mask=mask), mask=mask)


def run(x):
    y = torch.empty_like(x)
    wrap_triton(double_kernel)[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y
"""
_DOUBLE_REFERENCE = """import torch

SHAPES = [{"n": 100}]


def get_inputs(n=100, device="cpu"):
    return [torch.randn(n, generator=torch.Generator().manual_seed(0)).to(device)]


def reference(x):
    return 2 * x
"""


def test_z8_a_kernel_binding_wrap_triton_at_import_runs_in_the_interpreter_on_a_torch_that_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gpunet20's seen item: the harness worker and the autotune worker (``read_module``) applied the interpreter's fixes
    after importing kernel.py, so one that binds ``from torch.library import wrap_triton`` at import kept torch's own,
    which refuses an interpreted kernel before torch 2.12 ("only works on functions annotated with triton.jit"): a
    correct kernel failed every CPU check. Such a torch stood in for as breaker19's g2 test does; the fix is in place
    before the import now, and both run it right."""
    import torch.library
    from torch._library import triton as torch_triton

    from kernelopt.harness.interpreter import patch_interpreter
    from kernelopt.tunables.autotune_worker import read_module
    from tests.conftest import check_in_process, triton_interpreted

    (tmp_path / "kernel.py").write_text(_BOUND_AT_IMPORT)
    (tmp_path / "reference.py").write_text(_DOUBLE_REFERENCE)
    with triton_interpreted():
        if hasattr(torch_triton, "_is_interpreted_triton_kernel"):  # torch 2.12 on; torch 2.11 has no such branch
            monkeypatch.setattr(torch_triton, "_is_interpreted_triton_kernel", lambda kernel: False)
        monkeypatch.setattr(torch.library, "wrap_triton", torch_triton.wrap_triton)  # torch's own, unpatched
        read = read_module(tmp_path / "kernel.py", tmp_path / "reference.py", device="cpu", on_cpu=patch_interpreter)
        assert "error" not in read and "run_error" not in read, read
        monkeypatch.setattr(torch.library, "wrap_triton", torch_triton.wrap_triton)
        result = check_in_process(tmp_path)
    assert result.failure is None, result.failure.message if result.failure else ""
