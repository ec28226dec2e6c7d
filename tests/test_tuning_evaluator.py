"""KernelEvaluator on the CPU with real kernels: every way a candidate can fail is a result with its reason,
and the candidates after it still evaluate (one bench worker, restarted after a hang and a segfault).

Torch CPU kernels and a Triton kernel under TRITON_INTERPRET=1 share one evaluator (module fixture: each
worker start imports torch, seconds on this machine).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from kernelopt.harness.inplace import UNTOUCHED
from kernelopt.tuning.bench_worker import BenchPlan
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator, Refusal, knob_editor
from kernelopt.tuning.problem import Problem

DATA = Path(__file__).parent / "data" / "tuning"
CANDIDATES = DATA / "candidates"
BASE = (DATA / "add" / "kernel.py").read_text()

VARIANTS = [
    "ok",
    "hang",
    "segfault",
    "syntax_error",
    "import_error",
    "oom_raise",
    "oom_alloc",
    "wrong",
    "mutate",
    "unwritten",
    "raises",
]


def _apply():
    edit = knob_editor(BASE)

    def apply(config: Config) -> str | Refusal:
        if "variant" in config:
            name = str(config["variant"])
            if name == "refused":
                return Refusal("variant 'refused' is not a legal value")
            return (CANDIDATES / f"{name}.py").read_text()
        return edit(config)

    return apply


@pytest.fixture(scope="module")
def evaluator(tmp_path_factory: pytest.TempPathFactory):
    problem = Problem.from_folder(DATA / "add", device="cpu")
    settings = EvaluatorSettings(
        plan=BenchPlan(warmup_calls=1, repetitions=3, retime_rounds=2), bench_timeout_s=6.0, startup_timeout_s=120.0
    )
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    ev = KernelEvaluator(
        problem, BASE, _apply(), session_dir=tmp_path_factory.mktemp("session"), settings=settings, env=env
    )
    yield ev
    ev.close()


@pytest.fixture(scope="module")
def results(evaluator: KernelEvaluator) -> dict[str, Result]:
    batch = [Config.of({"variant": v}) for v in VARIANTS]
    batch += [Config.of({"BLOCK": 4096}), Config.of({"BLOCK": 3000}), Config.of({"variant": "refused"})]
    batch += [Config.of({"variant": "ok"})]  # the same source again: evaluated once, answered twice
    t0 = time.monotonic()
    out = evaluator.evaluate(batch)
    wall = time.monotonic() - t0
    print(f"\n{len(batch)} candidates in {wall:.1f} s; bench worker starts: {evaluator.bench_starts}")
    assert [r.config for r in out] == [c.as_dict() for c in batch]
    named = {str(c.get("variant", c.get("BLOCK"))): r for c, r in zip(batch, out, strict=True)}
    return named


def test_the_correct_candidates_are_timed(results: dict[str, Result]) -> None:
    for name in ("ok", "4096"):
        r = results[name]
        assert r.outcome is Outcome.OK, r.reason
        assert r.latency_us is not None and r.latency_us > 0 and len(r.samples_us) == 3
        assert r.check_s is not None and r.bench_s is not None and r.compile_s is not None
        assert r.peak_bytes is not None


def test_a_hang_is_a_run_timeout_and_a_segfault_a_worker_crash(results: dict[str, Result]) -> None:
    hang = results["hang"]
    assert hang.outcome is Outcome.RUN_TIMEOUT
    assert hang.reason is not None and "no reply within 6 s" in hang.reason and "starts again" in hang.reason
    crash = results["segfault"]
    assert crash.outcome is Outcome.WORKER_CRASH
    assert crash.reason is not None and "the worker died with SIGSEGV" in crash.reason
    assert "kernel.py:5 in run" in crash.reason  # the candidate's own frame, from the fault handler


def test_a_candidate_that_does_not_load_is_a_compile_error(results: dict[str, Result]) -> None:
    syntax, missing = results["syntax_error"], results["import_error"]
    assert syntax.outcome is Outcome.COMPILE_ERROR and missing.outcome is Outcome.COMPILE_ERROR
    assert syntax.reason == "loading failed: SyntaxError: invalid syntax (kernel.py, line 2) (kernel.py:2)"
    assert missing.reason is not None
    assert missing.reason.startswith(
        "loading failed: ModuleNotFoundError: No module named 'kernelopt_no_such_module_xyz'"
    )


def test_out_of_memory_raised_or_refused_by_the_allocator(results: dict[str, Result]) -> None:
    for name in ("oom_raise", "oom_alloc"):
        r = results[name]
        assert r.outcome is Outcome.OUT_OF_MEMORY, r.reason
        assert r.reason is not None and r.reason.startswith("out of memory while running: ")
    assert "Tried to allocate 64.00 GiB" in (results["oom_raise"].reason or "")
    assert "can't allocate memory" in (results["oom_alloc"].reason or "")


def test_wrong_mutating_and_unwritten_outputs_are_wrong_results(results: dict[str, Result]) -> None:
    wrong, mutate, unwritten = results["wrong"], results["mutate"], results["unwritten"]
    assert wrong.outcome is Outcome.WRONG_RESULT and "differs from the reference beyond tolerance" in (
        wrong.reason or ""
    )
    assert mutate.outcome is Outcome.WRONG_RESULT
    assert mutate.reason == f"the kernel modified input 1 in place, {UNTOUCHED}"
    assert unwritten.outcome is Outcome.WRONG_RESULT
    assert unwritten.reason is not None and unwritten.reason.startswith(
        "output not written: 8192 of 16384 elements still hold the poison pattern"
    )
    raised = results["raises"]
    assert raised.outcome is Outcome.RUN_ERROR
    assert raised.reason == "raised while running: ValueError: this kernel refuses to run (kernel.py:2)"


def test_refused_edits_are_invalid_and_the_worker_went_on(
    evaluator: KernelEvaluator, results: dict[str, Result]
) -> None:
    assert results["refused"].outcome is Outcome.INVALID and results["refused"].reason == (
        "variant 'refused' is not a legal value"
    )
    odd = results["3000"]  # BLOCK must be a power of two: the tunables refuse it before anything runs
    assert odd.outcome is Outcome.INVALID and odd.reason is not None and "3000" in odd.reason
    # first start, then after the hang and after the segfault; and, the problem being a Triton kernel in the
    # interpreter, after each wrong result or error (its heap may be corrupt: issue 32's GEMM without masks)
    corrupting = sum(r.outcome in (Outcome.WRONG_RESULT, Outcome.RUN_ERROR) for r in results.values())
    assert corrupting >= 2 and evaluator.bench_starts == 3 + corrupting
    assert evaluator.compile_workers == 0  # nothing to compile ahead on the CPU


def test_retime_interleaves_the_checked_candidates(evaluator: KernelEvaluator, results: dict[str, Result]) -> None:
    starts = evaluator.bench_starts
    batch = [Config.of({"variant": "ok"}), Config.of({"BLOCK": 4096}), Config.of({"variant": "wrong"})]
    again = evaluator.retime(batch)
    assert [r.outcome for r in again] == [Outcome.OK, Outcome.OK, Outcome.WRONG_RESULT]
    assert again[0].retimed and again[1].retimed and not again[2].retimed
    assert len(again[0].samples_us) == len(again[1].samples_us) == 4  # 2 ABBA rounds: 2 samples each per round
    assert evaluator.bench_starts == starts


def test_every_candidate_of_a_cpu_session_is_timed_at_its_first_s_count_of_calls(
    evaluator: KernelEvaluator, results: dict[str, Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seen (issue 34, left): each candidate's CPU calls per sample came from its own estimate, so two candidates
    # were timed with different counts; the session's first timed candidate now sets one for all of them, kept by
    # the parent across worker restarts (this session restarted its worker after every failure above)
    from kernelopt.tuning.bench_worker import BenchReply

    assert evaluator.calls_per_sample is not None and evaluator.calls_per_sample >= 1  # set by the session's first
    monkeypatch.setattr(evaluator, "calls_per_sample", None)  # a session that starts here, with Triton candidates
    bench = evaluator._bench
    assert bench is not None
    sent: list[dict] = []
    answered: list[BenchReply] = []
    run = bench.run

    def recording(jobs, **kwargs):  # type: ignore[no-untyped-def]
        sent.extend(j.payload for j in jobs)
        out = run(jobs, **kwargs)
        answered.extend(BenchReply.model_validate(a.payload) for a in out)
        return out

    monkeypatch.setattr(bench, "run", recording)
    out = evaluator.evaluate([Config.of({"BLOCK": 512}), Config.of({"BLOCK": 2048})])
    assert [r.outcome for r in out] == [Outcome.OK, Outcome.OK], [r.reason for r in out]
    first = answered[0].calls_per_sample
    assert first is not None and evaluator.calls_per_sample == first
    # the first timed alone, at its own count; the next at the first's, and so reported
    assert [p["calls_per_sample"] for p in sent] == [None, first]
    assert [a.calls_per_sample for a in answered] == [first, first]
