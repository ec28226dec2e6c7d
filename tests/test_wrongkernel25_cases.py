"""wrongkernel25: a written kernel less accurate than the original (docs/faults.md, "Wrong written kernels,
twenty-fifth hunt"): a pick that lengthens the chain each program sums in reduced precision passes every entry
within tolerance and is wrong at a larger size the original handles (breaker21's split-K fp8 GEMM at 8192 on an
H100; v116's fp16 partial sums in Triton's interpreter). The tuner's check compares a candidate's error at each
entry with the original's on the same inputs (:mod:`kernelopt.tuning.accuracy`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_wrongkernel17_cases import VARIANTS

#: v116's knobs as its launch sets them, and the sizes its check runs past the entry (one row of 1.5 M columns: a
#: lane of the plain ``SPLIT=1`` pick adds 5860 values, past fp16's 2048, where the original's adds 733)
V116_CURRENT = {"BLOCK": 256, "SPLIT": 8}
V116_LARGE = {"n_rows": 1, "n_cols": 1_500_000}


def _v116_text(block: int, split: int) -> str:
    text = (VARIANTS / "sums_fp16_split" / "kernel.py").read_text()
    return text.replace("BLOCK = 256", f"BLOCK = {block}").replace("SPLIT = 8", f"SPLIT = {split}")


@pytest.mark.timeout(300)
def test_v116_a_pick_whose_partial_sums_run_longer_in_fp16_is_refused_at_the_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v116 (sums_fp16_split: row sums whose lanes add ``n_cols / (SPLIT * BLOCK)`` values each in an fp16
    accumulator, ``SPLIT = 8``, ``BLOCK = 256``): the plain ``SPLIT=1`` pick passes the entry (16 x 20000) within
    tolerance, and at one row of 1.5 M columns its lanes stop at fp16's 2048 (524288 where the sum is 750173), which the
    original sums right. The entry's check refuses it, its error 4.8 times the original's on the same inputs; a pick
    that shortens the chain (``BLOCK=4096, SPLIT=1``: 4096 lanes) or keeps it (``BLOCK=2048, SPLIT=1``) passes."""
    from kernelopt.tuning.accuracy import LESS_ACCURATE
    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator, knob_editor
    from kernelopt.tuning.problem import Problem
    from tests import gpu_correct
    from tests.conftest import triton_interpreted
    from tests.test_breaker7_cases import _outputs_checked

    folder = VARIANTS / "sums_fp16_split"
    base = (folder / "kernel.py").read_text()
    settings = EvaluatorSettings(
        plan=BenchPlan(warmup_calls=1, repetitions=3, retime_rounds=2), bench_timeout_s=60.0, startup_timeout_s=120.0
    )
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    current = Config.of(V116_CURRENT)
    picks = [Config.of({"BLOCK": 256, "SPLIT": 1}), Config.of({"BLOCK": 4096, "SPLIT": 1})]
    picks.append(Config.of({"BLOCK": 2048, "SPLIT": 1}))
    problem = Problem.from_folder(folder, device="cpu")
    with KernelEvaluator(
        problem, base, knob_editor(base), session_dir=tmp_path / "s", settings=settings, env=env
    ) as ev:
        ev.never_cut([current.key()])
        got = {r.key: r for r in ev.evaluate([current, *picks], timed=False)}
        written = ev.check_source(_v116_text(256, 1), picks[0])
    assert got[current.key()].outcome is Outcome.OK and got[current.key()].rel_err, got[current.key()]
    plain = got[picks[0].key()]
    assert plain.outcome is Outcome.WRONG_RESULT and plain.error_class == LESS_ACCURATE, plain
    assert "times the original's on the same inputs" in (plain.reason or ""), plain.reason
    assert [got[p.key()].outcome for p in picks[1:]] == [Outcome.OK, Outcome.OK], [got[p.key()] for p in picks]
    assert written.error_class == LESS_ACCURATE, written  # the text to be written, checked alike

    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    for block, split, right in ((256, 8, True), (256, 1, False)):
        path = tmp_path / f"k_{block}_{split}.py"
        path.write_text(_v116_text(block, split))
        with triton_interpreted():
            verdict = gpu_correct.correct_on_device(folder, [V116_LARGE], _outputs_checked, kernel_py=path)
        assert (verdict["n_rows=1,n_cols=1500000"] is True) is right, (block, split, verdict)
