"""aside17: the set-aside of a ``SHAPES`` entry the kernel as written cannot compile, on the GPU's path (the compile
pool). On the H100 (2026-12-06, main e0cc1bca) ``tune --device cuda`` of refblame14's int_one failed all 18
candidates ``compile_error``, the original too, and set nothing aside: the compile pool compiles each candidate on the
smallest entry (M=8,N=1), where none compiles, and its failure was the candidate's at the primary (M=16,N=32), which
names no entry, so :meth:`ShapesEvaluator._set_aside` never saw the entry. The interpreter has no compile pool; here
one is forced on the CPU, with a stand-in whose ``run`` raises at N=1 as the GPU's compile does."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kernelopt.tuning.candidate import Config, Outcome

if TYPE_CHECKING:
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

DATA = Path(__file__).parent / "data"


def pooled_evaluator(
    folder: Path, shapes: list[dict[str, int]], apply: Callable[[Config], str], original: Config, session_dir: Path
) -> ShapesEvaluator:
    """A :class:`ShapesEvaluator` of ``folder`` over ``shapes`` whose primary, the first (the GPU's: the interpreter
    times the smallest), compiles in a compile pool forced on the CPU, as on the GPU's path; not started."""
    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.compile_pool import CompileSettings
    from kernelopt.tuning.folder import worker_env
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings
    from kernelopt.tuning.problem import Problem, ProblemShape
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    problem = Problem.from_folder(folder, device="cpu").model_copy(update={"shape": shapes[0]})
    plan = BenchPlan(warmup_calls=1, repetitions=2, retime_rounds=1)
    settings = EvaluatorSettings(compile_pool=True, compile=CompileSettings(workers=1), plan=plan)
    base = (folder / "kernel.py").read_text()
    entries = [ProblemShape(kwargs=s) for s in shapes]
    env = worker_env(None, device="cpu")
    return ShapesEvaluator(
        problem, entries, base, apply, session_dir=session_dir, env=env, settings=settings, original=original
    )


@pytest.mark.timeout(120)
def test_the_compile_pool_s_failure_at_another_entry_is_that_entry_s_and_sets_it_aside(tmp_path: Path) -> None:
    """The pool's failure on M=8,N=1 is no verdict at M=16,N=32: the bench worker checks the candidate there, the
    entry's own evaluator finds it raises at M=8,N=1 (the rule of the CPU's path), the original's failure sets the
    entry aside, and the pool compiles elsewhere from the next batch (before: every candidate ``run_error`` at the
    primary, nothing set aside)."""
    folder = Path(shutil.copytree(DATA / "aside17" / "int_one_cpu", tmp_path / "int_one"))
    base = (folder / "kernel.py").read_text()
    current, other = Config.of({"XBLOCK": 8}), Config.of({"XBLOCK": 16})

    def apply(c: Config) -> str:
        return base.replace("XBLOCK=8,", f"XBLOCK={c['XBLOCK']},")

    shapes = [{"M": 16, "N": 32}, {"M": 8, "N": 1}]
    with pooled_evaluator(folder, shapes, apply, current, tmp_path / "session") as ev:
        ev.start()
        first = ev.evaluators[0]._compile
        results = ev.evaluate([current, other])
        now = ev.evaluators[0]._compile
    assert list(ev.set_aside) == ["M=8,N=1"] and ev.labels == ["M=16,N=32"], ev.set_aside
    assert "rnumel = 1 is a constexpr" in ev.set_aside["M=8,N=1"][2], ev.set_aside
    assert [r.outcome for r in results] == [Outcome.OK] * 2, [r.reason for r in results]
    assert all(r.latency_us and r.failed_entry is None for r in results)
    assert first is not None and first.compile_shape == "M=8,N=1", first
    # a new pool, never compiling there (the next test: on which entry it compiles)
    assert (
        now is not None
        and now is not first
        and now.avoid == ["M=8,N=1"]
        and ev.evaluators[0].not_compiled_on == {"M=8,N=1"}
    ), now


def test_only_a_failure_the_compile_shape_decides_at_another_entry_goes_on_to_the_bench(tmp_path: Path) -> None:
    """Which pool failures are an entry's, not the primary's (``ELSEWHERE``): raised, wrong there, or screened out by
    the author's filter at that size (a ``per_entry`` table's candidate, set aside for the whole session on a GPU
    before); a compile timeout stays the candidate's (the pool's limit guards the session's time), and so does any
    failure where the pool compiles on no entry of the session (the primary shrunk). The pool set aside from an entry
    compiles on the smallest of the others."""
    from types import SimpleNamespace

    from kernelopt.tuning.compile_pool import CompileResult
    from kernelopt.tuning.kernel_evaluator import KernelEvaluator
    from kernelopt.tuning.problem import Problem

    problem = Problem.from_folder(DATA / "aside17" / "int_one_cpu", device="cpu")
    ev = KernelEvaluator(problem, "", lambda c: "", session_dir=tmp_path, entries=["M=8,N=1"])
    path = tmp_path / "kernel.py"
    for shape, outcome, elsewhere in [
        ("M=8,N=1", Outcome.COMPILE_ERROR, True),
        ("M=8,N=1", Outcome.RUN_ERROR, True),
        ("M=8,N=1", Outcome.WRONG_RESULT, True),
        ("M=8,N=1", Outcome.INVALID, True),
        ("M=8,N=1", Outcome.COMPILE_TIMEOUT, False),
        ("M=8,N=1", Outcome.WORKER_CRASH, False),
        ("M=4,N=32", Outcome.COMPILE_ERROR, False),
    ]:
        ev._compile = SimpleNamespace(compile_shape=shape)  # type: ignore[assignment]
        assert ev._elsewhere(CompileResult(path, outcome)) is elsewhere, (shape, outcome)
    shapes = [{"M": 16, "N": 32}, {"M": 8, "N": 1}, {"M": 12, "N": 8}]
    assert problem.compile_shape(shapes).label() == "M=8,N=1"
    assert problem.compile_shape(shapes, avoid=["M=8,N=1"]).label() == "M=12,N=8"
