"""late51: what fresh27's clone left (docs/faults.md, "fresh27's leftovers (late51, 2026-12-07)")."""

from __future__ import annotations

import pytest


def _summary(base_us: float, best_us: float, over: float) -> object:
    from kernelopt.loop.summary import LoopSummary

    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace="ws", versions=[], best_version="v1", baseline_latency_us=base_us)
    values.update(best_latency_us=best_us, speedup_vs_baseline=over, iterations=1, failures=0, elapsed_s=1.0)
    values.update(stage_seconds={}, candidates_evaluated=0)
    return LoopSummary.model_construct(**values)  # type: ignore[arg-type]


def test_l210_a_best_line_whose_speedup_the_table_s_medians_contradict_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """fresh27's softmax run ended "best: v1 at 107700 us (2.2x over V0)" under a V0 row of 94910 us: the figure is
    the gates' side-by-side timings chained from V0, each row one gate run's median. The line now says so where the
    two point different ways, and stays as it was where they agree."""
    from kernelopt.cli.optimize import _render

    _render(_summary(94910.0, 107700.0, 2.2))  # type: ignore[arg-type]
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "best: v1 at 107700 us (2.2x over V0; that is the gates' side-by-side timings chained from V0, where the"
        " table's us are each gate run's own median (V0's 94910 us), which drift apart with the host's load)"
    ) in out
    _render(_summary(94910.0, 50000.0, 2.2))  # type: ignore[arg-type]
    out = " ".join(capsys.readouterr().out.split())
    assert "best: v1 at 50000 us (2.2x over V0)" in out and "drift apart" not in out
