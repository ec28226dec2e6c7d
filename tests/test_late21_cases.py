"""late21: two "seen, not changed" items where a correct kernel failed or a claim was inflated (docs/faults.md, "Late
seen items (late21, 2026-12-06)"). Each test is cheap: the loop with its fake stages, or a scripted evaluator."""

from __future__ import annotations

import re
from pathlib import Path

from kernelopt.harness.gate import GateReport
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.planning.plan import Plan
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, FakeGate, make_fakes, subjects


class _ReadsThePrevious(FakeGate):
    """The fake gate, plus the real gate's reading of the previous version's kernel.py (what its timing loads)."""

    def __init__(self, killer, out: Path) -> None:  # type: ignore[no-untyped-def]
        super().__init__(killer)
        self.out = out
        self.previous_blocks: dict[int, int | str] = {}

    def validate(self, workspace: Workspace, version: int, *, previous: int | None, plan: Plan | None) -> GateReport:
        from kernelopt.harness.gate import _previous_kernel

        if previous is not None:
            path, origin = _previous_kernel(workspace, previous, self.out)
            assert path is not None, origin
            text = path.read_text()
            try:
                compile(text, path.name, "exec")  # what loading it does first
            except SyntaxError as exc:
                self.previous_blocks[version] = f"SyntaxError: {exc}"
            else:
                self.previous_blocks[version] = int(re.search(r"^BLOCK = (\d+)", text, re.M)[1])  # type: ignore[index]
        return super().validate(workspace, version, previous=previous, plan=plan)


def test_z10_the_gate_reads_the_previous_version_s_kernel_not_the_path_a_committed_link_names(
    ws_root: Path, tmp_path: Path
) -> None:
    """A user's kernel.py that is a link, committed before V0: git holds the path it names, and V1's gate loaded that
    path as the previous kernel ("SyntaxError (previous_v0_kernel.py, line 1)"), failing a correct version. The record
    stage keeps the bytes the link led to for each version it commits; the gate reads those."""
    ws = open_or_create(DATA, name="linked", root=ws_root).workspace
    mine = tmp_path / "project" / "kernel.py"
    mine.parent.mkdir()
    mine.write_bytes(ws.kernel_py.read_bytes())
    ws.kernel_py.unlink()
    ws.kernel_py.symlink_to(mine)
    ws.commit(["kernel.py"], "kernel.py: the user's project file, linked")
    assert ws.is_link_at("HEAD", "kernel.py")
    fakes = make_fakes()
    fakes.gate = gate = _ReadsThePrevious(fakes.killer, tmp_path)
    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(device="cpu", max_iterations=2)).run()
    assert [s.split(":")[0] for s in subjects(ws)[2:5]] == ["V0", "V1", "V2"], subjects(ws)
    assert gate.previous_blocks == {1: 64, 2: 128}  # V0's BLOCK, then V1's, as each was committed
    # the run's end put the fastest version's kernel back through the link (its path had replaced the user's file)
    assert ws.kernel_py.is_symlink() and re.search(r"^BLOCK = 256", mine.read_text(), re.M), mine.read_text()
    assert b"BLOCK = 64" in (ws.kernel_at(ws.memory.read(0).git_commit_hash or "", 0) or b"")
    from kernelopt.harness.gate import _previous_kernel

    path, origin = _previous_kernel(ws, 7, tmp_path)  # no bytes kept for it: no comparison, said why
    assert path is None and "is a link, and no bytes of v7 were kept" in origin, origin
