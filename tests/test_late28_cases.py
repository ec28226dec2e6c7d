"""late28: things kernelopt says that are not true (docs/faults.md, "Said true (late28, 2026-12-07)")."""

from __future__ import annotations

from kernelopt.batch.model import ProblemRow, ProblemStatus
from kernelopt.batch.rows import figures
from kernelopt.harness.gate import _case_bench, _performance
from kernelopt.harness.model import REFERENCE_LABEL, BenchReport, CaseTiming, TimingMethod, VersionTiming
from kernelopt.memory.model import CorrectnessStatus, IterationRecord


def _reduced(eager: list[float], kernel: list[float]) -> IterationRecord:
    """A primary case timed as a slow kernel's reduced timing is (three blocks of single calls, the first its warm-up
    calls, no re-time made), through the gate's reading into the record it writes."""

    def timed(label: str, samples: list[float]) -> VersionTiming:
        return VersionTiming(
            label=label, samples_us=samples, method=TimingMethod.CPU_PERF_COUNTER, launches_per_sample=1
        )

    timing = CaseTiming(
        index=0,
        label="n=4096",
        interleaved=True,
        reduced="timed in 3 block(s) of single calls, fewer than the 10 of a full timing: ...",
        versions=[timed(REFERENCE_LABEL, eager), timed("v0", kernel)],
    )
    case = _case_bench(timing, "v0", None, 2.0)
    assert not timing.versions[0].retime_samples_us  # no re-time: the case that read "no significant change"
    report = BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case])
    perf = _performance(report, case, None, None, None, None, [])
    return IterationRecord.model_validate({"version": "v0", "performance": perf.model_dump()})


def test_z60_a_kernel_measured_far_slower_without_a_re_time_reads_slower() -> None:
    """z60 (break22's seen item): a kernel sleeping 1.5 s a call is timed reduced, with no re-time, and its claim was
    taken back for want of one: ``eager_verdict`` "no significant change" beside "14900x slower ..., not reliable".
    A claim whose own p is past the level of both tests together is kept: the verdict says slower, the figure keeps
    its caveat (its interval spans more than 2x: "not reliable", the batch table's ``?``); a weak claim with no
    re-time is still none."""
    from kernelopt.cli.batch import _speedup
    from kernelopt.harness.decision import describe_speedup
    from kernelopt.harness.stats import UNREPEATED_ALPHA, Verdict, compare_retimed
    from kernelopt.report.headline import eager_claim, reference_headline

    eager = [400.0, 60.0, 300.0, 95.0, 110.0, 190.0]
    kernel = [1.62e6, 1.49e6, 1.50e6, 1.48e6, 1.51e6, 1.49e6]
    vs = _reduced(eager, kernel).performance.speedup_vs_reference
    assert vs is not None and vs.eager is not None and vs.eager_p_value is not None
    assert vs.eager_p_value < UNREPEATED_ALPHA and vs.eager_verdict == Verdict.REGRESSION.value
    assert eager_claim(vs) == f"p {vs.eager_p_value:.2g}, d {vs.eager_effect_size_d:.2f}: regression"
    headline = reference_headline(vs)
    assert headline is not None and headline.startswith("7540x slower than the reference (PyTorch eager), not reliable")
    row = figures(ProblemRow(problem="p", folder="/p", status=ProblemStatus.PASS), _reduced(eager, kernel))
    assert row.eager_verdict == "regression"
    assert _speedup(row.speedup_vs_eager, row.eager_verdict, row.eager_ci_low, row.eager_ci_high) == "0.000133x*?"
    alone = compare_retimed(eager, kernel, [], [], 2.0)
    assert alone.confirmed is False and describe_speedup(alone).endswith(
        "; not re-timed: kept, its p below 0.001 alone)"
    )
    # a 1.27x slowdown at p 0.008 in three blocks claims by rules 1-3 and, with no re-time, is no claim, as before
    weak = _reduced([100.0, 100.0, 104.0, 96.0, 100.0, 100.0], [120.0, 134.0, 131.0, 139.0, 126.0, 124.0])
    wvs = weak.performance.speedup_vs_reference
    assert wvs is not None and wvs.eager_p_value is not None and UNREPEATED_ALPHA < wvs.eager_p_value < 0.05
    assert wvs.eager_verdict == Verdict.NO_CHANGE.value
    assert eager_claim(wvs).endswith("no claim: its interval does not clear the margin, or no re-time was made")
    weak_alone = compare_retimed(
        [100.0, 100.0, 104.0, 96.0, 100.0, 100.0], [120.0, 134.0, 131.0, 139.0, 126.0, 124.0], [], [], 2.0
    )
    assert weak_alone.confirmed is False and describe_speedup(weak_alone).endswith("; not re-timed: no claim)")
