"""fresh21: the README on a fresh clone (docs/faults.md, "The README on a fresh clone (fresh21, 2026-12-07)")."""

from __future__ import annotations

import pytest


def test_r1_the_timeline_note_says_the_figure_of_skewed_samples_the_vs_previous_cell_shows() -> None:
    """Seen on 2026-12-07 on a fresh clone: `kernelopt report` of the README demo's workspace showed V1's `vs
    previous` as 46.4x (95 % CI 46.4-86.3x), the smaller reading of skewed samples (late23 z21), while the note under
    the timeline said the cell is "the median of its ABBA blocks' ratios", the 86x reading it did not show. The
    constructed skewed timing of z21: the cell shows the medians' ratio, and the note names that rule."""
    from kernelopt.harness.gate import _performance
    from kernelopt.harness.model import BenchReport
    from kernelopt.memory.model import CorrectnessStatus
    from kernelopt.report.headline import previous_cell
    from kernelopt.report.sections import TIMELINE_NOTE
    from tests.test_late23_cases import interleaved_case

    prev = [x for k in range(24) for x in ([300.0, 300.0] if k < 12 else [100.0, 100.0])]
    cur = [x for k in range(24) for x in ([3.3, 3.3] if k < 13 else [1.1, 1.1])]
    case = interleaved_case(prev, cur)
    assert case.previous is not None
    bench = BenchReport(ok=True, status=CorrectnessStatus.PASS, cases=[case])
    c = _performance(bench, case, None, None, None, None, []).comparison_with_previous
    medians = case.previous.median / case.current.median
    assert c.speedup == pytest.approx(medians) and previous_cell(c).startswith("60.6x (95 % CI 60.6-")
    assert "the samples are skewed" in " ".join(case.warnings)
    assert (
        "where the samples are skewed and the ratio of the two versions' medians lies outside that interval, the "
        "smaller of the two readings, its interval widened to hold both (the gate warns)" in TIMELINE_NOTE
    )
