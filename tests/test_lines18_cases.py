"""lines18: three small untrue things a user met (docs/faults.md, "lines18").

Each case is a line kernelopt printed that said what was not so, replayed on the CPU with the user's figures."""

from __future__ import annotations

import pytest

from kernelopt.tuning.candidate import Outcome, Result


@pytest.mark.timeout(30)
def test_l1_a_user_s_interpreter_limit_smaller_than_the_run_s_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser15: ``KERNELOPT_INTERPRETER_LIMIT_S=20`` set by the user changed nothing in a ``tune`` (the bench
    workers were given the 60 s candidate limit over it: "past the 60 s this run is given"). The workers now get the
    smaller of the two, and the line a stopped launch says names it."""
    from kernelopt.harness.interpreter import INTERPRETER_LIMIT_ENV, child_limit, programs_problem

    monkeypatch.delenv(INTERPRETER_LIMIT_ENV, raising=False)
    assert child_limit(60.0) == "60"
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "20")
    assert child_limit(60.0) == "20"
    assert child_limit(300.0) == "20"  # the gate's worker: the largest of its limits, the user's smaller
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "100")
    assert child_limit(60.0) == "60"  # a larger value of the user's gives a run no more than its limit
    for bad in ("soon", "-5", "0", ""):
        monkeypatch.setenv(INTERPRETER_LIMIT_ENV, bad)
        assert child_limit(60.0) == "60", bad
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "20")
    assert programs_problem((70000, 1, 1), 10496, 25.0, 12e-6, 60.0) is None  # fits the 60 s: not stopped
    line = programs_problem((70000, 1, 1), 10496, 25.0, 12e-6, float(child_limit(60.0)))
    assert line is not None and "past the 20 s this run is given" in line


@pytest.mark.timeout(30)
def test_l1_both_workers_of_a_cpu_run_are_given_the_limit_through_one_rule() -> None:
    """The bench workers (``tuning.kernel_evaluator``) and the gate's worker (``harness.gate``) each set the variable
    through :func:`child_limit` alone: a literal of either would drop the user's value again."""
    import inspect

    from kernelopt.harness import gate
    from kernelopt.tuning import kernel_evaluator

    for module in (gate, kernel_evaluator):
        text = inspect.getsource(module)
        sets = [line.strip() for line in text.splitlines() if "[INTERPRETER_LIMIT_ENV] =" in line]
        assert sets and all("= child_limit(" in line for line in sets), (module.__name__, sets)


@pytest.mark.timeout(30)
def test_l3_a_verdict_after_an_entry_was_set_aside_says_its_figure_is_the_kept_entry_s() -> None:
    """newuser15: "best BLOCK=4096: 1.371 ms, 134x faster than the current BLOCK=16" after n=1000 was set aside (the
    kernel as written cannot run it) read as every entry's figure. It is n=4096's alone, and the line says so; a
    session that set nothing aside reads as before."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    best = Result(config={"BLOCK": 4096}, outcome=Outcome.OK, latency_us=1371.0, latency_us_by_shape={"n=4096": 1371.0})
    result = SessionResult(
        best_config={"BLOCK": 4096}, best_latency_us=1371.0, current_config={"BLOCK": 16},
        current_latency_us=183714.0, results=[best], retimed=[], evaluations=6, served=0, budget=6, space_size=6,
        wall_s=80.0, stop=StopReason.CANDIDATES, strategy="local",
    )  # fmt: skip
    judged = judge_gain(result)
    line = verdict_line(result, judged, kernel_py="kernel.py", written=True, dry_run=False, set_aside=("n=1000",))
    assert line.startswith(
        "best BLOCK=4096: 1.371 ms at n=4096 (n=1000 set aside), 134x faster than the current BLOCK=16"
    )
    plain = verdict_line(result, judged, kernel_py="kernel.py", written=True, dry_run=False)
    assert plain.startswith("best BLOCK=4096: 1.371 ms, 134x faster") and "aside" not in plain
    two = {"n=4096": 1000.0, "n=8192": 371.0}
    summed = result.model_copy(update={"results": [best.model_copy(update={"latency_us_by_shape": two})]})
    line = verdict_line(
        summed, judge_gain(summed), kernel_py="kernel.py", written=True, dry_run=False, set_aside=("n=1000", "n=7")
    )
    assert line.startswith("best BLOCK=4096: 1.371 ms for its 2 shapes together (n=1000, n=7 set aside), 134x")
