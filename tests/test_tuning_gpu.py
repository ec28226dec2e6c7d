"""The execution engine on an NVIDIA GPU (KERNELOPT_GPU_TESTS=1; run by scripts/gpu_engine_check.sh).

A 1 GiB-per-tensor elementwise problem evaluates with no candidate failing for memory and the bench worker's
peak within 4 x (inputs + outputs); Triton candidates compile in the pool on the small shape; an illegal
memory access (a sticky CUDA error) is a result, and the worker starts again for the next candidate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tuning.candidate import Config, Outcome
from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator, Refusal, knob_editor
from kernelopt.tuning.problem import BENCH_MEMORY_FACTOR, Problem

pytestmark = pytest.mark.gpu

DATA = Path(__file__).parent / "data" / "tuning" / "gpu"
BASE = (DATA / "bias_gelu" / "kernel.py").read_text()
WILD = (DATA / "candidates" / "illegal_address.py").read_text()


def _apply():
    edit = knob_editor(BASE)

    def apply(config: Config) -> str | Refusal:
        return WILD if config.get("variant") == "wild" else edit(config)

    return apply


def test_a_one_gib_problem_evaluates_within_the_memory_bound(tmp_path: Path) -> None:
    problem = Problem.from_folder(DATA / "bias_gelu", device="cuda")
    batch = [Config.of({"BLOCK_SIZE": b, "num_warps": w}) for b, w in ((1024, 4), (2048, 8), (4096, 8))]
    with KernelEvaluator(problem, BASE, _apply(), session_dir=tmp_path) as ev:
        ready = ev.start()
        assert ready.need.inputs_bytes >= 2**30 and ready.need.outputs_bytes == 2**30
        results = ev.evaluate(batch)
        assert ev.compile_workers >= 1
    for r in results:
        assert r.outcome is Outcome.OK, r.reason
        assert r.compile_s is not None and r.latency_us is not None and r.peak_bytes is not None
        assert ready.need.total_bytes <= r.peak_bytes <= BENCH_MEMORY_FACTOR * ready.need.total_bytes


def test_a_sticky_cuda_error_is_a_result_and_the_bench_worker_starts_again(tmp_path: Path) -> None:
    problem = Problem.from_folder(DATA / "bias_gelu", device="cuda").model_copy(
        update={"shape": {"M": 2048, "N": 4096}}
    )
    settings = EvaluatorSettings(compile_pool=False)  # the bench worker meets the candidate first
    batch = [Config.of({"variant": "wild"}), Config.of({"BLOCK_SIZE": 2048})]
    with KernelEvaluator(problem, BASE, _apply(), session_dir=tmp_path, settings=settings) as ev:
        wild, after = ev.evaluate(batch)
        assert ev.bench_starts == 2
    assert wild.outcome is Outcome.RUN_ERROR and "illegal memory access" in (wild.reason or "")
    assert after.outcome is Outcome.OK, after.reason


def test_the_compile_pool_catches_it_on_the_small_shape(tmp_path: Path) -> None:
    problem = Problem.from_folder(DATA / "bias_gelu", device="cuda").model_copy(
        update={"shape": {"M": 2048, "N": 4096}}
    )
    batch = [Config.of({"variant": "wild"}), Config.of({"BLOCK_SIZE": 512, "num_warps": 2})]
    with KernelEvaluator(problem, BASE, _apply(), session_dir=tmp_path) as ev:
        wild, after = ev.evaluate(batch)
        assert ev.bench_starts == 1  # the bench worker never saw the wild candidate
    assert wild.outcome is Outcome.RUN_ERROR and "illegal memory access" in (wild.reason or "")
    assert after.outcome is Outcome.OK and after.compile_s is not None, after.reason
