"""aside17: the set-aside of a ``SHAPES`` entry the kernel as written cannot compile, on the GPU's path (the compile
pool). On the H100 (2026-12-06, main e0cc1bca) ``tune --device cuda`` of refblame14's int_one failed all 18
candidates ``compile_error``, the original too, and set nothing aside: the compile pool compiles each candidate on the
smallest entry (M=8,N=1), where none compiles, and its failure was the candidate's at the primary (M=16,N=32), which
names no entry, so :meth:`ShapesEvaluator._set_aside` never saw the entry. The interpreter has no compile pool; here
one is forced on the CPU, with a stand-in whose ``run`` raises at N=1 as the GPU's compile does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.mark.timeout(120)
def test_the_compile_pool_s_failure_at_another_entry_is_that_entry_s_and_sets_it_aside(tmp_path: Path) -> None:
    """The pool's failure on M=8,N=1 is no verdict at M=16,N=32: the bench worker checks the candidate there, the
    entry's own evaluator finds it raises at M=8,N=1 (the rule of the CPU's path), the original's failure sets the
    entry aside, and the pool compiles elsewhere from then on (before: every candidate ``run_error`` at the primary,
    nothing set aside)."""
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.compile_pool import CompileSettings
    from kernelopt.tuning.folder import TuneRequest, prepare_folder
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings
    from kernelopt.tuning.problem import ProblemShape
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    folder = Path(shutil.copytree(DATA / "aside17" / "int_one_cpu", tmp_path / "int_one"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRITON_INTERPRET", "1")
        prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    # the GPU's primary (the first entry; the interpreter times the smallest) and its order of the entries
    problem = prepared.problem.model_copy(update={"shape": {"M": 16, "N": 32}})
    shapes = [ProblemShape(kwargs={"M": 16, "N": 32}), ProblemShape(kwargs={"M": 8, "N": 1})]
    base = prepared.base_source
    settings = EvaluatorSettings(compile_pool=True, compile=CompileSettings(workers=1))
    current, other = Config.of({"XBLOCK": 8}), Config.of({"XBLOCK": 16})

    def apply(c: Config) -> str:
        return base.replace("XBLOCK=8,", f"XBLOCK={c['XBLOCK']},")

    with ShapesEvaluator(
        problem, shapes, base, apply, session_dir=prepared.session_dir, env=prepared.env, settings=settings,
        original=current,
    ) as ev:  # fmt: skip
        ev.start()
        first = ev.evaluators[0]._compile
        results = ev.evaluate([current, other])
        (later,) = ev.evaluate([Config.of({"XBLOCK": 32})])  # the pool compiles off the entry set aside
        now = ev.evaluators[0]._compile
    assert list(ev.set_aside) == ["M=8,N=1"] and ev.labels == ["M=16,N=32"], ev.set_aside
    assert "rnumel = 1 is a constexpr" in ev.set_aside["M=8,N=1"][2], ev.set_aside
    assert [r.outcome for r in [*results, later]] == [Outcome.OK] * 3, [r.reason for r in [*results, later]]
    assert all(r.latency_us and r.failed_entry is None for r in [*results, later])
    assert first is not None and first.compile_shape == "M=8,N=1", first
    assert now is not None and now.avoid == ["M=8,N=1"] and now.compile_shape not in (None, "M=8,N=1"), now
