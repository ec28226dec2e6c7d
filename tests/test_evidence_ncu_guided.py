"""NCU's own rule results stand in for counters a details-page CSV does not carry (fresh-user test)."""

from __future__ import annotations

from pathlib import Path

from kernelopt.profiling import read_evidence

NVIDIA = Path(__file__).parent / "data" / "nvidia"


def test_details_csv_keeps_the_bank_conflict_diagnosis() -> None:
    k = read_evidence(NVIDIA / "h200_bank_conflict_details.csv").kernels[0]
    guided = [f for f in k.findings if f.rule_id == "nv.ncu.SharedMemoryConflicts"]
    assert guided and guided[0].symptom == "smem_bank_conflicts"
    assert guided[0].estimated_speedup_pct == 89.39
    assert "smem_swizzle_padding" in [a.value for a in guided[0].action_categories]


def test_details_csv_keeps_the_uncoalesced_diagnosis() -> None:
    k = read_evidence(NVIDIA / "h200_uncoalesced_details.csv").kernels[0]
    assert "uncoalesced_global" in {f.symptom for f in k.findings}


def test_counter_findings_win_when_counters_are_present() -> None:
    k = read_evidence(NVIDIA / "h200_bank_conflict.ncu-rep.gz").kernels[0]
    symptoms = [f.symptom for f in k.findings]
    assert symptoms.count("smem_bank_conflicts") == 1
    assert not any(f.rule_id == "nv.ncu.SharedMemoryConflicts" for f in k.findings)
