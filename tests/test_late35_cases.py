"""late35: the accuracy rule at the net's larger sizes (docs/faults.md, "The accuracy rule at the net's sizes"). The
net's bench worker measures the written kernel's error where it passes past the ``SHAPES`` entries; the original runs
once more at the net's largest sizes the written kernel passed, and both errors join the entries' in
:func:`~kernelopt.tuning.accuracy.across_entries` (:mod:`kernelopt.tuning.net_accuracy`): a chain twice as long,
kept at the entries alone, is refused there, and the next pick is written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.test_wrongkernel17_cases import VARIANTS

#: v116's SPLIT=4 (a lane's fp16 chain twice the original's) in Triton's interpreter (late35, 2026-12-07, the net of
#: a session's write, each error measured by the bench worker on the size's own inputs): its and the original's
#: (rel_err, its worst element's share of the tolerance) and the original's rel_err at the entries 8 x 5000 and
#: 8 x 20000, and at the net's three largest sizes past them (rows, columns)
V116_ENTRIES = {5000: (1.3226e-5, 0.0234, 5.0919e-6), 20000: (9.7930e-6, 0.0143, 8.2554e-6)}
V116_NET = {(8, 85000): (2.1303e-5, 0.0391, 8.6671e-6), (9, 32769): (2.4052e-5, 0.0605, 9.1254e-6),
            (12, 20004): (1.5935e-5, 0.0434, 5.1981e-6)}  # fmt: skip


def _net_of(*sizes: tuple[int, int]) -> Any:
    from kernelopt.tuning.net import NetVerdict, SizeCheck, SizeClass
    from kernelopt.tuning.problem import ProblemShape

    shapes = [ProblemShape(kwargs={"n_rows": rows, "n_cols": n}) for rows, n in sizes]
    return NetVerdict(checks=[SizeCheck(kind=SizeClass.FAR, shape=s, passed=True, seconds=2.0) for s in shapes])


def _entries() -> list[Any]:
    from kernelopt.tuning.accuracy import EntryError
    from kernelopt.tuning.candidate import Outcome, Result

    out = []
    for n, (ours, worst, theirs) in V116_ENTRIES.items():
        r = Result(config={}, outcome=Outcome.OK, rel_err=ours, worst_ratio=worst, roundoff=2**-23)
        out.append(EntryError(f"n_rows=8,n_cols={n}", r, theirs, {"n_rows": 8, "n_cols": n}))
    return out


def test_l45_the_net_s_largest_size_is_compared_with_the_original_s_there_and_within_the_wall() -> None:
    """l45 (pure, the recorded figures): v116's ``SPLIT=4`` is kept on its entries alone and refused once the net's
    three largest sizes are beside them (8 x 85000, 9 x 32769, 12 x 20004), its error rising along ``n_cols`` 3 times
    as fast as the original's; the original runs at each once (its error known after, a next pick runs it at no size twice); a wall that cannot fit that run, an
    original that fails there, or no error kept leaves the entries' verdict, the line saying why."""
    from kernelopt.tuning.accuracy import across_entries
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.net_accuracy import judged_at_net
    from kernelopt.tuning.tail_wall import TailWall

    assert across_entries(_entries()) is None  # the entries alone keep it (l43)
    ran: list[str] = []
    kept: dict[tuple[str, str], Result] = {}

    def error_at(source: str, shape: Any) -> Result | None:
        at = (shape.kwargs["n_rows"], shape.kwargs["n_cols"])
        if source == "written" and at in V116_NET:
            ours, worst, _ = V116_NET[at]
            return Result(config={}, outcome=Outcome.OK, rel_err=ours, worst_ratio=worst, roundoff=2**-23)
        return kept.get((source, shape.label()))

    def check_at(source: str, shape: Any, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        ran.append(shape.label())
        theirs = V116_NET[(shape.kwargs["n_rows"], shape.kwargs["n_cols"])][2]
        kept[(source, shape.label())] = Result(config={}, outcome=Outcome.OK, rel_err=theirs, worst_ratio=0.01)
        return Outcome.OK, None

    net = _net_of((9, 32769), (8, 2501), (12, 20004), (8, 85000))  # a size under the entries' is not compared
    largest = ["n_rows=8,n_cols=85000", "n_rows=9,n_cols=32769", "n_rows=12,n_cols=20004"]
    said = judged_at_net(_entries(), net, "original", "written", constants={}, check_at=check_at, error_at=error_at)
    assert said.refused and said.shape is not None and said.shape.label() == "n_rows=8,n_cols=85000", said
    assert "at n_rows=8,n_cols=85000, a size of the net, its error rises along n_cols 3 times as fast" in (
        said.line or ""
    ), said.line
    assert ran == largest, ran
    again = judged_at_net(_entries(), net, "original", "written", constants={}, check_at=check_at, error_at=error_at)
    assert again.refused and ran == largest, ran  # the original's errors known: not run again

    kept.clear()
    spent = TailWall(wall_s=60.0, deadline=1.0, clock=lambda: 0.0)  # 1 s left, the size's check took 2 s
    cut = judged_at_net(_entries(), net, "original", "written", constants={}, check_at=check_at, error_at=error_at,
                        wall=spent)  # fmt: skip
    assert not cut.refused and ran == largest, cut
    assert (cut.line or "").startswith("not compared with the original's error at n_rows=8,n_cols=85000: "), cut.line
    assert "the session's wall time of 60 s is spent" in (cut.line or ""), cut.line

    def failing(source: str, shape: Any, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        return Outcome.RUN_TIMEOUT, "no reply within 60 s"

    timed_out = judged_at_net(_entries(), net, "original", "written", constants={}, check_at=failing, error_at=error_at)
    assert not timed_out.refused and "the original there: run_timeout: no reply within 60 s" in (
        timed_out.line or ""
    ), timed_out


def _written_after(
    folder: Path, device: str, picks: tuple[dict[str, int], ...], tmp_path: Path, env: dict[str, str]
) -> Any:
    """``folder`` copied, and its write path as ``tune`` takes it after a session that timed ``picks`` (the current
    configuration, the fastest pick, the next-best), on ``device``: the session's evaluators check the original at
    every entry, then ``_checked_edit`` checks the pick on the entries and by the net (its errors compared with the
    original's at the net's largest sizes), the next-best after a refusal; the tuning it leaves."""
    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, knob_editor
    from kernelopt.tuning.session import Result, SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    copied = Path(shutil.copytree(folder, tmp_path / folder.name))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=copied, device=device))
    current, pick, right = picks
    timed = [Result(config=c, outcome=Outcome.OK, latency_us=us, retimed=True)
             for c, us in ((pick, 1.0), (right, 1.5), (current, 3.0))]  # fmt: skip
    result = SessionResult(
        best_config=pick, best_latency_us=1.0, current_config=current, current_latency_us=3.0, results=timed,
        retimed=timed, evaluations=3, served=0, budget=3, space_size=3, wall_s=600.0, stop=StopReason.CANDIDATES,
        strategy="exhaustive",
    )  # fmt: skip
    plan = BenchPlan(warmup_calls=1, repetitions=1, retime_rounds=1, extra_rounds=0)
    settings = EvaluatorSettings(plan=plan, bench_timeout_s=90.0, startup_timeout_s=120.0)
    base = prepared.base_source
    with ShapesEvaluator(prepared.problem, prepared.shapes, base, knob_editor(base), session_dir=prepared.session_dir,
                         settings=settings, env=env, original=Config.of(current)) as ev:  # fmt: skip
        ev.never_cut([Config.of(current).key()])
        assert ev.evaluate([Config.of(current)])[0].outcome is Outcome.OK
        return tf._checked_edit(tf.FolderTuning(prepared, result, judge_gain(result)), ev)


V116_PICKS = ({"BLOCK": 256, "SPLIT": 8}, {"BLOCK": 256, "SPLIT": 4}, {"BLOCK": 512, "SPLIT": 4})


@pytest.mark.timeout(400)
def test_l46_a_session_s_write_refuses_v116_split_4_at_the_net_s_size_and_writes_the_next_pick(tmp_path: Path) -> None:
    """l46 (Triton's interpreter, real runs): v116's write path as ``tune --device cpu`` takes it after a session whose
    fastest pick was ``SPLIT=4`` (``BLOCK=256``) and next ``BLOCK=512, SPLIT=4`` (a lane's chain as long as the
    original's): the pick is kept on the entries (leftovers24's l43) and refused by the net's comparison at its
    largest sizes; the next-best passes and is written, the net's line saying where its errors were compared."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    out = _written_after(VARIANTS / "sums_fp16_split", "cpu", V116_PICKS, tmp_path, env)
    note = out.edit_note or ""
    assert "the written kernel is less accurate than the original at n_rows=8,n_cols=" in note, note
    assert "a size of the net, its error rises along n_cols" in note, note
    assert "BLOCK=256, SPLIT=4 not written; the next-best, BLOCK=512, SPLIT=4, passes: written instead" in note, note
    assert out.edit is not None and "    BLOCK = 512\n    SPLIT = 4\n" in out.edit.new_source, out.edit
    assert out.net is not None and "its error no less accurate than the original's at n_rows=" in out.net.line()


@pytest.mark.gpu
@pytest.mark.timeout(450)
def test_on_cuda_l47_the_net_s_sizes_judge_the_written_kernel_s_accuracy_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled): l46's write path for v116 (``SPLIT=4`` then ``BLOCK=512, SPLIT=4``) and for
    breaker21's split-K fp8 GEMM (``split_k=2``, a K chain twice the original's in the tensor cores' fp8 accumulator,
    then ``split_k=8``, half as long). The pick twice as long is not written (refused on the entries or at the net's
    sizes, the line naming which); the next-best is written, the net's line naming the sizes where its error was
    compared with the original's and the seconds of those runs (printed, with the refusal's line); what is written is
    right at sizes the entries do not name (v116 at one row of 1.1 M columns, the split-K GEMM at 8192 x 8192 x
    8192)."""
    from tests import gpu_correct
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker21_cases import DATA
    from tests.test_wrongkernel25_cases import SPLITK_CURRENT, SPLITK_HALVED, SPLITK_LARGE, V116_LARGE

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    splitk = (SPLITK_CURRENT, {**SPLITK_CURRENT, **SPLITK_HALVED}, {**SPLITK_CURRENT, "block_k": 128, "split_k": 8})
    cases = ((VARIANTS / "sums_fp16_split", V116_PICKS, V116_LARGE), (DATA / "ai_splitk", splitk, SPLITK_LARGE))
    for k, (folder, picks, large) in enumerate(cases):
        out = _written_after(folder, "cuda", picks, tmp_path / str(k), env)
        note, line = out.edit_note or "", out.net.line() if out.net is not None else ""
        print(f"l47 {folder.name}: note: {note}\nl47 {folder.name}: net: {line}")
        assert out.edit is not None and "not written" in note, note  # the longer chain refused, the next written
        assert "its error rises along" in note or "times the original's on the same inputs" in note, note
        assert "its error no less accurate than the original's at " in line, line
        written = tmp_path / f"written_{k}.py"
        written.write_text(out.edit.new_source)
        verdict = gpu_correct.correct_on_device(folder, [large], _outputs_checked, kernel_py=written)
        assert all(v is True for v in verdict.values()), verdict


@pytest.mark.timeout(300)
def test_l49_tunables_set_check_refuses_an_edit_less_accurate_than_the_kernel_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """l49 (leftovers24's l44: ``--set`` wrote with static checks only): ``kernelopt tunables --set SPLIT=1 --check
    --device cpu`` on v116 runs the kernel as written and the edit at both entries in Triton's interpreter and writes
    nothing, exit 1, the line naming the entry and the pace (25 times the original's); ``--check`` needs ``--set`` and
    a task folder's kernel.py (exit 2, no run)."""
    from kernelopt.cli.app import main

    folder = Path(shutil.copytree(VARIANTS / "sums_fp16_split", tmp_path / "v116"))
    kernel = folder / "kernel.py"
    before = kernel.read_text()
    assert main(["tunables", str(kernel), "--set", "SPLIT=1", "--check", "--device", "cpu"]) == 1
    err = capsys.readouterr().err
    assert "not written: the edit fails its check (wrong_result: on the SHAPES entry n_rows=8,n_cols=20000" in err, err
    assert "its error rises along n_cols 25 times as fast as the original's" in err, err
    assert kernel.read_text() == before
    assert main(["tunables", str(kernel), "--check"]) == 2
    assert "--check runs an edit: it goes with --set" in capsys.readouterr().err
    lone = tmp_path / "k.py"
    lone.write_text(before)
    assert main(["tunables", str(lone), "--set", "SPLIT=4", "--check", "--no-evaluate"]) == 2
    assert "has no reference.py beside it" in capsys.readouterr().err
