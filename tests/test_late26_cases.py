"""late26: the README demo said true (docs/faults.md, "The README demo said true (late26, 2026-12-07)")."""

from __future__ import annotations

from kernelopt.actions import SEARCH_NO_GAIN, ActionCategory
from kernelopt.memory.model import (
    GateResult,
    IterationRecord,
    Optimization,
    Performance,
    PitfallAndFix,
    QualityGate,
)
from kernelopt.report.model import ReportData, VersionEntry
from kernelopt.report.sections import failure_rows, timeline_rows, version_stories


def _version(n: int, gate: GateResult | None, *, error_type: str | None = None) -> VersionEntry:
    reason = "the tuning session kept nothing: no candidate beat the current configuration" if error_type else None
    if error_type and error_type != SEARCH_NO_GAIN:
        reason = "correctness: max abs err 0.5 at shape (4097,)"
    return VersionEntry(
        record=IterationRecord(
            version=f"v{n}",
            performance=Performance(latency_us=100.0 / (n + 1)),
            optimization=Optimization(action_category=None if n == 0 else ActionCategory.AUTOTUNE),
            quality_gate=QualityGate(result=gate, failure_reason=reason),
            pitfalls_and_fixes=[PitfallAndFix(error_type=error_type, error_message=reason or "")] if error_type else [],
        )
    )


def test_z40_a_version_whose_session_kept_nothing_is_converged_not_failed() -> None:
    """Seen on 2026-12-07 (fresh21's seen item): the README demo's report listed V2 as FAIL ("kept nothing"),
    where the README says V2's session finds nothing better and the loop stops. The record keeps its gate FAIL
    (the loop's stop rule reads it); the report says ``converged``, lists no failed attempt for it, and keeps a
    wrong kernel's version FAIL."""
    data = ReportData(
        name="loop",
        root="/nowhere",
        versions=[
            _version(0, None),
            _version(1, GateResult.PASS),
            _version(2, GateResult.FAIL, error_type="correctness"),
            _version(3, GateResult.FAIL, error_type=SEARCH_NO_GAIN),
        ],
    )
    status = {row[0]: row[1] for row in timeline_rows(data)}
    assert status == {"V0": "not gated", "V1": "PASS", "V2": "FAIL", "V3": "converged"}
    assert [v.label for v in data.failed_versions()] == ["V2"]
    assert [row[0] for row in failure_rows(data)] == ["V2"]
    v3 = version_stories(data)[3]
    assert v3.title.endswith("(converged)") and "kept nothing" in " ".join(v3.pitfalls)
    assert "Gate: converged (recorded FAIL): the tuning session kept nothing: no candidate beat" in " ".join(v3.result)
    assert "Gate: FAIL: correctness" in " ".join(version_stories(data)[2].result)
