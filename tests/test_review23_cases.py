"""review23: the twenty-second session's riskier rules read as a reviewer would (docs/faults.md, "Review of the
twenty-second session"): r30 an index output judged only by an input its reference's indices truly order... Each
test is a case, on the CPU, in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import check_in_process

DATA = Path(__file__).parent / "data" / "review23"
EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.mark.parametrize(
    ("problem", "said"),
    [
        ("mask_positions", "differs from the reference"),
        ("keyed_argsort", None),
        ("radix_bucket", "selects other values than the reference's indices from input 1 along dim 1"),
    ],
)
def test_r30_an_index_output_is_judged_by_every_input_its_reference_orders_and_no_other(
    tmp_path: Path, problem: str, said: str | None
) -> None:
    """r30: l30 read the reference's indices as a sort of any input whose values they gather as its k largest or
    smallest, and any permutation gathers all of a row's values. Position ids reversed (a mask summed from the row's
    end) passed as a sort of the all-ones mask; a valid dispatch ordering each expert's tokens otherwise FAILED as a
    sort of the router's scores. Now a permutation must sort the input and move something: the wrong kernel fails,
    the right one passes, and a radix sort's first pass alone still fails against the keys (fresh23's f10)."""
    result = check_in_process(Path(shutil.copytree(DATA / problem, tmp_path / problem)))
    if said is None:
        assert result.failure is None, result.failure
    else:
        assert result.failure is not None and said in result.failure.message, result.failure


def test_r31_an_agent_whose_api_fails_after_some_tool_calls_is_unavailable_not_unfinished(ws_root: Path) -> None:
    """r31: d33 read every timed-out run with a tool call as a model that keeps calling tools, ``agent_unfinished``,
    a FAIL with the lesson "give it more time", before looking at what the run said. A model that made two calls and
    then met an overloaded API (Claude Code's "API Error: 529 ... Retrying", until kernelopt's limit stopped it) is
    the agent's infrastructure failing: ``AGENT_UNAVAILABLE``, as any timeout was before d33, not a lesson."""
    from .backends_support import busy_implement

    report = busy_implement(ws_root, 1.0, BUSY_STALL="2")
    assert report.result.value == "AGENT_UNAVAILABLE", report
    assert "did not finish" not in (report.reason or ""), report.reason


@pytest.mark.timeout(300)
def test_r33_a_correct_pick_summing_k_in_another_order_is_not_refused_as_less_accurate(tmp_path: Path) -> None:
    """r33: the accuracy rule (wrongkernel25, ``tuning.accuracy``) compared a candidate's error with the original's
    above a worst element of 0.05 of the tolerance, which one flip of an fp16 result's last bit passes. An fp16 GEMM
    summing K in fp32 (examples/matmul at 64 x 64 x 1024, the default tolerance): ``BLOCK_K`` 16 and 64 sum in
    another order (64 and 256 since wrongkernel27's v138 keeps a dot's K from 32: 4.1 and 4.6 times the original's
    error, worst elements 0.13 and 0.16 of the tolerance, 2026-12-07), as accurate, and were refused "its error is 4 times the original's ...: a longer reduction chain"
    (a few more flips than the original's by chance). Now errors under a quarter of the output's unit roundoff are
    not compared: every pick passes (v116's fp16 partial sums are still refused: test_wrongkernel25_cases)."""
    import os

    from kernelopt.tuning.bench_worker import BenchPlan
    from kernelopt.tuning.candidate import Config, Outcome
    from kernelopt.tuning.kernel_evaluator import EvaluatorSettings, KernelEvaluator, knob_editor
    from kernelopt.tuning.problem import Problem

    # examples/matmul at one small entry with the dtype's default tolerance (its reference.py's ATOL and RTOL out)
    folder = Path(shutil.copytree(EXAMPLES / "matmul", tmp_path / "gemm_fp16_order"))
    reference = (folder / "reference.py").read_text()
    shapes = 'SHAPES = [{"M": 8192, "N": 8192, "K": 8192}, {"M": 96, "N": 80, "K": 72}]\n'
    assert shapes in reference and "ATOL = 5e-2\nRTOL = 1e-2\n" in reference
    reference = reference.replace(shapes, 'SHAPES = [{"M": 64, "N": 64, "K": 1024}]\n')
    (folder / "reference.py").write_text(reference.replace("ATOL = 5e-2\nRTOL = 1e-2\n", ""))
    base = (folder / "kernel.py").read_text()
    settings = EvaluatorSettings(
        plan=BenchPlan(warmup_calls=1, repetitions=3, retime_rounds=2), bench_timeout_s=60.0, startup_timeout_s=120.0
    )
    current = Config.of({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 1})
    picks = [Config.of({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": k, "GROUP_M": 1}) for k in (64, 256)]
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    problem = Problem.from_folder(folder, device="cpu")
    with KernelEvaluator(
        problem, base, knob_editor(base), session_dir=tmp_path / "s", settings=settings, env=env
    ) as ev:
        ev.never_cut([current.key()])
        got = ev.evaluate([current, *picks], timed=False)
    assert [r.outcome for r in got] == [Outcome.OK] * 3, [(r.config, r.reason) for r in got]
    original, *others = got
    assert original.roundoff == 2.0**-10 and original.rel_err is not None, original
    # the picks' errors are more than 1.5 times the original's, their worst elements past 0.05: what was refused
    assert all(r.rel_err and r.rel_err > 1.5 * original.rel_err and (r.worst_ratio or 0) > 0.05 for r in others), got


def test_r34_entries_that_never_lengthen_the_chain_show_no_flat_excess() -> None:
    """r34: across entries of different sizes the accuracy rule refused only where the candidate's excess over the
    original's error rose from the smallest entry to the largest, the size the product of the entry's values. v116's
    plain ``SPLIT=1`` pick (fp16 lanes, wrong at one row of 1.1 M columns) at entries of 8 and 32 rows of 20000
    columns, measured by the session's evaluators in Triton's interpreter (2026-12-07 08:44 UTC): 14 and 8 times the
    original's error, an excess flat in the rows, and it PASSED: the entries never lengthened the rows its chain runs
    along. Now a flat excess exonerates only where the entries vary every size; breaker21's ``split_k=16`` (M, N and
    K each varied) stays exonerated (test_wrongkernel25_cases)."""
    from kernelopt.tuning.accuracy import EntryError, across_entries, entry_values
    from kernelopt.tuning.candidate import Outcome, Result

    def entry(values: dict[str, int], err: float, worst: float, original: float) -> EntryError:
        result = Result(config={}, outcome=Outcome.OK, rel_err=err, worst_ratio=worst, roundoff=2.0**-23)
        label = ",".join(f"{k}={v}" for k, v in values.items())
        return EntryError(label, result, original, entry_values(values))

    rows = [
        entry({"n_rows": 8, "n_cols": 20000}, 1.117e-4, 0.200, 8.26e-6),
        entry({"n_rows": 32, "n_cols": 20000}, 8.01e-5, 0.159, 9.93e-6),
    ]
    found = across_entries(rows)
    assert found is not None and "times the original's on the same inputs" in found[1], found
    assert found[0] == "n_rows=32,n_cols=20000", found
