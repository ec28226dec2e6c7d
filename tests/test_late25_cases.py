"""late25 (2026-12-07): the speedup over PyTorch (eager and torch.compile) calibrated by the one rule the speedup
over the previous version follows (late23 z21, ``gate._skewed``), and a verdict that never says faster beside a
figure that says slower. Constructed interleaved timings through the gate's own case (``_case_bench``), read back
through every output that says the figure: the record (JSON), the report's line, the summary's headline and the
batch table's row."""

from __future__ import annotations

import pytest

from tests.test_late23_cases import interleaved_case


def _skewed_timing(n: int, a: tuple[float, float], b: tuple[float, float]) -> tuple[list[float], list[float]]:
    """``n`` ABBA blocks: A (the one timed beside the kernel) heavy in the first half, the kernel B heavy in one
    block more (that block: B loaded, A not), so the blocks' median ratio and the ratio of the medians part."""
    before = [x for k in range(n) for x in ((a[0], a[0]) if k < n // 2 else (a[1], a[1]))]
    kernel = [x for k in range(n) for x in ((b[0], b[0]) if k < n // 2 + 1 else (b[1], b[1]))]
    return before, kernel


def test_z30_the_speedup_over_pytorch_says_the_smaller_of_two_readings_in_every_output() -> None:
    """late23's seen item: the speedup over the reference (eager, compiled) was the ABBA blocks' median ratio,
    90.9x on z21's skewed timing where the ratio of the reference's and the kernel's medians was 60.6x. Now the
    gate's case says 60.6x for both, its interval widened to hold it, each warned once; the record, the report's
    line, the headline and the batch row read that figure."""
    from kernelopt.batch.model import ProblemRow, ProblemStatus
    from kernelopt.batch.rows import figures
    from kernelopt.harness.gate import _performance
    from kernelopt.harness.model import COMPILED_REFERENCE_LABEL, REFERENCE_LABEL, BenchReport
    from kernelopt.harness.stats import compare_retimed
    from kernelopt.memory.model import CorrectnessStatus, IterationRecord
    from kernelopt.report.headline import reference_headline
    from kernelopt.report.sections import reference_line

    ref, cur = _skewed_timing(24, (300.0, 100.0), (3.3, 1.1))
    case = interleaved_case(ref, cur, {REFERENCE_LABEL: ref, COMPILED_REFERENCE_LABEL: ref})
    blocks = compare_retimed(ref, cur, [], [], 2.0)
    medians = 200 / 3.3
    assert blocks.speedup == pytest.approx(300 / 3.3) and medians < blocks.ci_low
    for s in (case.reference_speedup, case.compiled_speedup):
        assert s is not None and s.speedup == pytest.approx(medians) and s.ci_low == pytest.approx(medians)
        assert s.ci_high == pytest.approx(blocks.ci_high)
    said = [w for w in case.warnings if "skewed" in w and "speedup over" in w]
    assert said == [
        f"case 0 (n=4096), the speedup over {what}: the samples are skewed: the ABBA blocks' median ratio says "
        f"90.9x (95 % CI {blocks.ci_low:.3g}-{blocks.ci_high:.3g}x), the ratio of {what}'s and the kernel's medians "
        "60.6x, outside that interval; the smaller claim, 60.6x, is said (its interval widened to hold it)"
        for what in ("the reference", "torch.compile(reference)")
    ], case.warnings

    perf = _performance(
        BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case]),
        case,
        None,
        None,
        None,
        None,
        list(case.warnings),
    )
    vs = perf.speedup_vs_reference
    assert vs is not None and vs.eager == pytest.approx(medians) and vs.compiled == pytest.approx(medians)
    assert sum("torch.compile(reference)'s and the kernel's" in w for w in perf.warnings) == 1
    assert "60.6x over PyTorch eager" in (reference_line(perf) or "")
    assert (reference_headline(vs) or "").startswith("60.6x over the reference (PyTorch eager)")
    row = figures(
        ProblemRow(problem="p", folder="/x", status=ProblemStatus.PASS), IterationRecord(version="v1", performance=perf)
    )
    assert row.speedup_vs_eager == pytest.approx(medians) and row.speedup_vs_compile == pytest.approx(medians)
    assert row.eager_ci_low == pytest.approx(medians)

    even = interleaved_case(ref, ref, {REFERENCE_LABEL: ref})  # unskewed: said as before, no warning
    assert even.reference_speedup is not None and even.reference_speedup.speedup == pytest.approx(1.0)
    assert not [w for w in even.warnings if "skewed" in w]


@pytest.mark.parametrize(
    ("a", "b", "figure", "said"),
    [
        # the blocks 1.36x, the medians 0.909x (nearer 1): the figure says slower, the blocks' test said faster
        ((300.0, 100.0), (220.0, 80.0), 200 / 220, "the smaller claim, 0.909x, is said"),
        # the blocks 1.16x (nearer 1), the medians 0.8x: the figure says faster, the medians slower
        ((300.0, 100.0), (250.0, 90.0), None, "the smaller claim, the blocks', is said"),
    ],
)
def test_z31_readings_on_either_side_of_1_claim_neither_faster_nor_slower(
    a: tuple[float, float], b: tuple[float, float], figure: float | None, said: str
) -> None:
    """late23's seen item: where the blocks' median ratio and the medians' ratio fall on either side of 1 the
    figure said was one reading beside the blocks' verdict, "improvement" beside a figure that says slower. Now
    the verdict is "no significant change", the interval holds both readings (so it spans 1), and the warning says
    why; over the previous version and over the reference alike (one rule), and the claim's words say why there is
    no claim (they said "the re-time did not repeat it", where it did). The blocks' test said "improvement"
    (re-timed alike, so the claim was kept)."""
    from kernelopt.harness.gate import _reference_speedup
    from kernelopt.harness.model import REFERENCE_LABEL
    from kernelopt.harness.stats import Verdict, compare_retimed
    from kernelopt.report.headline import eager_claim

    before, kernel = _skewed_timing(48, a, b)
    blocks = compare_retimed(before, kernel, before, kernel, 2.0)
    assert blocks.verdict == Verdict.IMPROVEMENT, blocks
    case = interleaved_case(before, kernel, {REFERENCE_LABEL: before}, retimed=True)
    for s in (case.speedup, case.reference_speedup):
        assert s is not None and s.verdict == Verdict.NO_CHANGE, s
        assert s.speedup == pytest.approx(figure if figure is not None else blocks.speedup)
        assert s.ci_low < 1 < s.ci_high
    split = [w for w in case.warnings if "either side of 1" in w]
    assert len(split) == 2 and all(said in w for w in split), case.warnings
    assert split[0].endswith(
        "; the two readings fall on either side of 1, so neither faster nor slower is claimed (verdict no "
        "significant change, where the blocks' test said improvement)"
    )
    vs = _reference_speedup(case)
    assert vs is not None and vs.eager_verdict == "no significant change"
    assert eager_claim(vs).endswith(": no claim: the samples are skewed, their two readings fall on either side of 1")
