"""late46 (2026-12-07): the best version by side-by-side evidence, and the harness's own errors named as its own.

l160: breaker28's flag_flash run (``optimize --device cpu --max-iters 1``, 16:04-16:21 UTC) ended on V0 (27.2 ms at
its baseline) over a V1 its gate timed 1.71x faster beside V0 (its own median 68.8 ms, under a heavier load): the best
version was the one of least recorded latency, two gates minutes apart compared by their medians. Its two records
are kept as the pipeline wrote them (tests/data/breaker28/flag_flash_run/memory).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.cli.optimize import _render
from kernelopt.loop.commits import pass_body
from kernelopt.loop.ending import _fastest, gate_previous
from kernelopt.loop.journal import RunState
from kernelopt.loop.stop import decide
from kernelopt.loop.summary import build_summary
from kernelopt.memory.model import (
    Comparison,
    GateResult,
    IterationRecord,
    Performance,
    QualityGate,
    best_version,
    chain_speeds,
    speedup_over_v0,
)
from kernelopt.report.model import ReportData, VersionEntry
from kernelopt.report.sections import headline
from kernelopt.taskcard import StopConditions

RUN = Path(__file__).parent / "data" / "breaker28" / "flag_flash_run" / "memory"


def _recorded() -> list[IterationRecord]:
    return [IterationRecord.model_validate_json((RUN / f"v{n}.json").read_text()) for n in (0, 1)]


def test_l160_the_best_version_follows_the_gates_side_by_side_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    records = _recorded()
    v0, v1 = records
    assert v1.performance.latency_us > 2 * v0.performance.latency_us  # slower by the two gates' medians
    assert v1.performance.comparison_with_previous.verdict == "improvement"  # faster beside V0 in its own gate
    best = best_version(records)
    assert best is not None and best.version == "v1"  # was v0
    assert speedup_over_v0(records, 1) == pytest.approx(1.7052, abs=1e-4)
    assert gate_previous(records, 2, last_good=1) == 1  # the next gate times beside V1
    # the run ends on V1, and its end-of-run commit says why V1 (its own median is the larger)
    assert (
        _fastest(records, v1)
        == "the fastest passing version (1.71x over V0 by the gates' side-by-side timings; 68750 us)"
    )
    assert _fastest(records, v0) == "the fastest passing version (27160 us)"
    # the stop check's target_speedup reads the same chain (V0's median over V1's is 0.395x)
    goal = dict(conditions=StopConditions(target_speedup=1.5), current=v1.performance, roofline=None)
    goal.update(baseline_latency_us=v0.performance.latency_us, iterations_done=1, consecutive_failures=0)
    goal.update(last_failed=False, stop_on_failure=False, elapsed_s=0.0)
    stop = decide(**goal, speedup_vs_v0=speedup_over_v0(records, 1))  # type: ignore[arg-type]
    assert stop is not None and stop.line() == "target_speedup: speedup over V0 1.71x >= target 1.5x"
    # what the run prints says the same: the summary's final line, the report's headline, the commit body
    summary = build_summary(workspace="ws", state=RunState(), records=records, best_roofline=None, git_log=[])
    assert summary.best_version == "v1" and summary.speedup_vs_baseline == pytest.approx(1.7052, abs=1e-4)
    _render(summary)
    assert "best: v1 at 68750 us (1.71x over V0; that is the gates' side-by-side timings" in " ".join(
        capsys.readouterr().out.split()
    )
    data = ReportData(name="flag_flash", root="/w", versions=[VersionEntry(record=r) for r in records])
    assert data.best() is not None and data.best().label == "V1"  # type: ignore[union-attr]
    final = next(line for line in headline(data) if line.startswith("Final "))
    assert "speedup over V0: 1.71x: the gates' interleaved speedups chained from V0 to V1" in final
    body = pass_body(v1, previous=0, over_v0=speedup_over_v0(records, 1), why=None, plan="plans/v1_plan.md")
    assert body.splitlines()[:2] == [
        "latency: 68750 us",
        "against V0: 1.71x over V0, 95 % interval 1.45-1.9x (improvement)",
    ]


def _timed(n: int, latency: float, speedup: float | None, against: str | None, *, ok: bool = True) -> IterationRecord:
    return IterationRecord(
        version=f"v{n}",
        performance=Performance(
            latency_us=latency, comparison_with_previous=Comparison(speedup=speedup, against=against)
        ),
        quality_gate=QualityGate(result=GateResult.PASS if ok else GateResult.FAIL),
    )


def test_l160_each_ratio_is_chained_to_the_version_it_was_timed_beside() -> None:
    """The chain multiplies each gate's speedup into the speed of the version it ran beside (``against``, kept by the
    gate from late46 on; the best version below it in older records); medians only where no speedup was timed."""
    records = [
        _timed(0, 100.0, None, None),
        _timed(1, 300.0, 2.0, "v0"),  # 2x beside V0, its median from a loaded gate
        _timed(2, 90.0, 0.9, None),  # an older record: beside the best below it (V1), 0.9x: not best
        _timed(3, 50.0, 1.5, "v0"),  # beside V0 (a validate by hand): 1.5x over V0, below V1's 2x
        _timed(4, 10.0, 3.0, "v1", ok=False),  # failed: never best, however fast
        _timed(5, 150.0, None, None),  # no side-by-side figure: V1's median over its own, 2x
    ]
    speeds = chain_speeds(records)
    assert speeds == pytest.approx({0: 1.0, 1: 2.0, 2: 1.8, 3: 1.5, 4: 6.0, 5: 4.0})
    best = best_version(records)
    assert best is not None and best.version == "v5"
    assert best_version(records[:5]).version == "v1"  # type: ignore[union-attr]
    # records with medians alone rank as they always did: the least latency, the earliest of equals
    plain = [_timed(0, 100.0, None, None), _timed(1, 80.0, None, None), _timed(2, 80.0, None, None)]
    assert best_version(plain).version == "v1"  # type: ignore[union-attr]
    assert speedup_over_v0(plain, 2) == pytest.approx(1.25)


#: A problem with an fp8 buffer among its inputs (as LMDeploy's paged fp8 KV caches are, breaker28's lmd_fill_fp8).
FP8 = """import torch
from torch import nn


class {name}(nn.Module):
    def forward(self, cache, x):
        return x * 2


def get_inputs():
    return [torch.zeros(64, dtype=torch.float8_e4m3fn), torch.randn(64)]


def get_init_inputs():
    return []
"""


def test_l161_the_harness_s_own_error_in_the_timing_is_neither_the_problem_s_nor_the_kernel_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """q82's path, its fault put back: the timing's check of the timed output asks whether fresh inputs hold the values
    of the timing's (``same_values``), and a harness that calls ``nan_to_num`` on fp8 raises there, past every boundary
    of the problem's code. The worker died, the runner blamed the step it was in (building the inputs), and the row read
    "the problem's reference failed". It is now the harness's own failure (culprit checker: an ERROR), with its frame."""
    import torch

    from kernelopt.harness import inputs
    from kernelopt.harness.gate import _bench_report
    from kernelopt.harness.model import RunOutcome

    from .bench_job import bench_job

    monkeypatch.setattr(inputs, "_nan_zeroed", torch.Tensor.nan_to_num)  # q82's same_values, before its fix
    res = bench_job(tmp_path, monkeypatch, FP8.format(name="Model"), FP8.format(name="ModelNew"))
    failure = res.failure
    assert failure is not None and failure.culprit == "checker", failure  # the worker raised before
    assert failure.error_class == "NotImplementedError"
    assert failure.message.startswith(
        "the worker: kernelopt's harness failed in its own code around building the inputs (reference.py get_inputs): "
        "NotImplementedError: \"nan_to_num\" not implemented for 'Float8_e4m3fn' at kernelopt/harness/inputs.py:"
    ), failure.message
    assert failure.message.endswith("in same_values() (a bug in kernelopt; please report)")
    bench = _bench_report(RunOutcome(result=res, returncode=0), current="t", previous=None, min_gain_pct=2.0)
    assert not bench.ok and bench.culprit == "checker"  # the gate's culprit: the batch row's ERROR, not a FAIL


def test_l161_a_harness_helper_failing_inside_the_problem_s_boundary_is_the_harness_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the boundary around ``get_inputs`` (its errors the problem's), the harness's own call failing is the
    harness's; the problem's own error there stays the problem's, and kernelopt's deliberate verdict (its own
    ``raise``) too."""
    import torch

    from kernelopt.harness import inputs

    from .conftest import check_in_process

    for name in ("Model", "ModelNew"):
        (tmp_path / ("reference.py" if name == "Model" else "kernel.py")).write_text(FP8.format(name=name))
    monkeypatch.setattr(inputs, "map_tensors", torch.Tensor.nan_to_num)  # moving the inputs to the device, broken
    failure = check_in_process(tmp_path).failure
    assert failure is not None and failure.culprit == "checker", failure
    assert "kernelopt's harness failed in its own code around reference.py get_inputs: TypeError" in failure.message
    assert "at kernelopt/harness/inputs.py:" in failure.message and " in make_inputs() " in failure.message
    monkeypatch.undo()
    (tmp_path / "reference.py").write_text(FP8.format(name="Model").replace("torch.randn(64)", "torch.randn(-1)"))
    failure = check_in_process(tmp_path).failure
    assert failure is not None and failure.culprit == "problem", failure  # reference.py's own call failed
    assert "reference.py get_inputs raised RuntimeError" in failure.message
    (tmp_path / "reference.py").write_text(
        FP8.format(name="Model").replace("def get_inputs", "SHAPES = []\n\n\ndef get_inputs")
    )
    failure = check_in_process(tmp_path).failure
    assert failure is not None and failure.culprit == "problem" and "SHAPES" in failure.message, failure


def test_l161_the_batch_footer_counts_kernelopt_s_own_errors_apart() -> None:
    """`batch --device cpu` on lmd_fill_fp8 with q82's fault put back (a copy of src, 16:58 UTC): the row read ERROR
    "timing: the worker: kernelopt's harness failed ... in _nan_zeroed() (a bug in kernelopt; please report)", and the
    fast_p footer still said "1 ERROR row(s), the problem's own failure"."""
    from kernelopt.batch.model import ProblemRow, ProblemStatus
    from kernelopt.cli.batch import _whose

    ours = "timing: the worker: kernelopt's harness failed in its own code around building the inputs (reference.py "
    ours += "get_inputs): NotImplementedError: ... (a bug in kernelopt; please report)"
    rows = [
        ProblemRow(problem=name, folder=f"/x/{name}", status=ProblemStatus.ERROR, reason=why)
        for name, why in (("fp8", ours), ("ref", "the problem's reference failed: ValueError"))
    ]
    assert _whose(rows[:1], 1) == ", kernelopt's own failure (a bug in kernelopt; please report)"
    assert (
        _whose(rows, 2)
        == " (1 kernelopt's own failure (a bug in kernelopt; please report), the rest the problem's own failure)"
    )
    assert _whose(rows[1:], 1) == ", the problem's own failure"
