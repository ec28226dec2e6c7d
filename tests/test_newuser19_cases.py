"""newuser19: a new user's first hour, nineteenth trial (docs/faults.md, "A new user's first hour, nineteenth
trial (newuser19, 2026-12-07)"); n1-n124 are earlier trials'."""

from __future__ import annotations

import pytest

from kernelopt.actions import SEARCH_NO_GAIN, ActionCategory
from kernelopt.memory.model import (
    GateResult,
    IterationRecord,
    Optimization,
    Performance,
    PitfallAndFix,
    QualityGate,
)


def _record(n: int, gate: GateResult, reason: str | None = None, error_type: str | None = None) -> IterationRecord:
    return IterationRecord(
        version=f"v{n}",
        performance=Performance(latency_us=200.0 / (n + 1) if gate is GateResult.PASS else None),
        optimization=Optimization(
            action_category=None if n == 0 else ActionCategory.AUTOTUNE,
            action_description="autotune: BLOCK 64 -> 4096" if n == 1 else None,
        ),
        quality_gate=QualityGate(result=gate, failure_reason=reason),
        pitfalls_and_fixes=[PitfallAndFix(error_type=error_type, error_message=reason or "")] if error_type else [],
    )


@pytest.mark.timeout(30)
def test_n125_optimize_s_own_summary_says_converged_where_the_report_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README demo's V2 (its session kept nothing): `kernelopt report` said `converged` since late26's z40, while
    `optimize`'s own summary said `FAIL` in its gate cell and "this run: 2 iteration(s), 1 failed". The one rule is
    the record's (`IterationRecord.converged`); a wrong kernel stays FAIL. (The progress lines, "V2 converged (...)",
    are read in test_launch_tuning's loop run.)"""
    from kernelopt.cli.optimize import _render
    from kernelopt.loop.summary import LoopSummary, VersionRow

    monkeypatch.setenv("COLUMNS", "200")
    kept = "the tuning session of module constants (no launch) kept nothing: the best does not beat it"
    records = [
        _record(0, GateResult.PASS),
        _record(1, GateResult.PASS),
        _record(2, GateResult.FAIL, "correctness: max abs err 0.5 at n=4097", "correctness"),
        _record(3, GateResult.FAIL, kept, SEARCH_NO_GAIN),
    ]
    assert [r.converged for r in records] == [False, False, False, True]
    rows = [VersionRow.of(r) for r in records]
    assert [r.said for r in rows] == ["PASS", "PASS", "FAIL", "converged"]
    assert rows[3].result == "FAIL"  # --json keeps the record's gate beside `converged`
    values: dict[str, object] = {name: None for name in LoopSummary.model_fields}
    values.update(workspace="ws", versions=rows, iterations=3, failures=1, converged=1, elapsed_s=8.0, stage_seconds={})
    _render(LoopSummary.model_construct(**values))  # type: ignore[arg-type]
    out = capsys.readouterr().out
    cells = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in out.splitlines() if "│ v" in line}
    assert cells == {"v0": "PASS", "v1": "PASS", "v2": "FAIL", "v3": "converged"}
    assert "this run: 3 iteration(s), 1 converged, 1 failed, 0:00:08 wall time" in out
