"""late21: two "seen, not changed" items where a correct kernel failed or a claim was inflated (docs/faults.md, "Late
seen items (late21, 2026-12-06)"). Each test is cheap: the loop with its fake stages, or a scripted evaluator."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.harness.gate import GateReport
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.planning.plan import Plan
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import judge_gain, tune
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


SWEEP = Path(__file__).parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "rmsnorm_bf16.json"


def _times(r: Result, factor: float) -> Result:
    """``r`` read ``factor`` times slower (its samples, its median, each shape's)."""
    if r.latency_us is None:
        return r
    by_shape = {k: v * factor for k, v in r.latency_us_by_shape.items()}
    samples = [x * factor for x in r.samples_us]
    return r.model_copy(
        update={"latency_us": r.latency_us * factor, "samples_us": samples, "latency_us_by_shape": by_shape}
    )


class _LateCurrentReadAlone:
    """A recorded sweep (the hardware) where the current configuration runs past its limit when first evaluated, and
    each time it is timed again alone reads ``alone[i]`` times its recorded figure; the picks' re-time reads the
    fastest pick 20x its first measurement every time (so no re-time of the picks checks the current's figure)."""

    def __init__(self, sweep: SweepFile, clock: ManualClock, current: Config, alone: Sequence[float]) -> None:
        self.inner = ReplayEvaluator(sweep, clock)
        self.current, self.alone = current, list(alone)
        self.alone_calls = 0

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = [r.model_copy(update={"recorded": False}) for r in self.inner.evaluate(batch)]
        late = "on the SHAPES entry T=2,D=1030: checking and timing: no reply within 60 s; the worker's group killed"
        return [
            Result.failed(c, Outcome.RUN_TIMEOUT, late) if c == self.current else r
            for c, r in zip(batch, out, strict=True)
        ]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        out = self.inner.retime(batch)
        if list(batch) == [self.current]:
            self.alone_calls += 1
            return [_times(out[0], self.alone[min(self.alone_calls, len(self.alone)) - 1])]
        return [_times(r, 20.0) if i == 0 else r for i, r in enumerate(out)]

    def close(self) -> None:
        pass


@pytest.mark.parametrize("alone", [(12.0, 1.0), (1.0, 12.0)], ids=["first-inflated", "second-inflated"])
def test_z11_a_current_timed_alone_after_the_machine_failed_it_is_checked_by_the_outlier_rule(
    alone: tuple[float, float],
) -> None:
    """claim20's seen item: a current configuration the machine failed, timed again alone (``_time_baseline``), had
    one figure, which no re-time checked where the picks' re-time left it out (the wall time, or set aside as an
    outlier): a reading 12x its truth was claimed against as it was. Taken once more alone, a first reading 10x the
    second or more gives way to it; a second that far above the first is the outlier, and the first stands."""
    [sweep] = read_sweeps(SWEEP)
    space, clock = space_from_sweep(sweep), ManualClock()
    current = space.current()
    assert current is not None
    truth = next(c.latency_us for c in sweep.configs if Config.of(c.config) == current)
    ev = _LateCurrentReadAlone(sweep, clock, current, alone)
    res = tune(space, ev, budget=Budget.default(space.size.count, clock), rng_seed=7)
    assert res.current_latency_us == pytest.approx(truth), (res.current_latency_us, truth)  # main: 12x truth
    assert ev.alone_calls == 2 and res.unretimed and "re-timed again" in res.unretimed, res.unretimed
    gain, best = judge_gain(res).gain_pct, res.best_latency_us
    assert gain is not None and best is not None
    assert gain == pytest.approx(100.0 * (truth / best - 1.0), rel=1e-6), (gain, truth, best)  # main: 12x truth's
