"""Evidence from Nsight Compute's own guided analysis, for inputs that lack the raw counters.

A details-page CSV export carries NCU's rule results (rule id, message, estimated speedup) but not the
raw metrics that kernelopt's counter rules read (bank-conflict wavefronts, sector counts, stall
reasons). For such inputs a counter rule cannot fire although NCU itself diagnosed the problem; these
rules turn NCU's result into a finding of the same symptom, citing the NCU rule as the evidence. They
fire only when no counter-based finding of that symptom exists (the counters win when present).

Threshold: NCU's estimated speedup >= 10 % of the kernel's time (kernelopt's cut-off for "worth an
iteration"; NCU reports smaller estimates for minor issues). Source of the diagnosis: the Nsight
Compute rule named in each finding (Nsight Compute Profiling Guide, "Rules"). Pure: no I/O.
"""

from __future__ import annotations

from kernelopt.actions import ActionCategory as A
from kernelopt.evidence.model import EvidenceItem, Finding, KernelEvidence
from kernelopt.evidence.rules import Citation, ComputedRule, RuleTable, Verdict, evaluate
from kernelopt.evidence.symptoms import Symptom as S
from kernelopt.oneline import one_line

MIN_ESTIMATED_SPEEDUP_PCT = 10.0
_SOURCE = "Nsight Compute guided analysis (rule results in the report)"

# NCU rule id -> (symptom, actions to try, inference)
GUIDED: dict[str, tuple[S, list[A], str]] = {
    "SharedMemoryConflicts": (
        S.SMEM_BANK_CONFLICTS,
        [A.SMEM_SWIZZLE_PADDING],
        "shared-memory accesses conflict on banks: wavefronts are replayed",
    ),
    "UncoalescedSharedAccess": (
        S.SMEM_BANK_CONFLICTS,
        [A.SMEM_SWIZZLE_PADDING, A.COALESCING],
        "shared-memory accesses need many more wavefronts than ideal",
    ),
    "UncoalescedGlobalAccess": (
        S.UNCOALESCED_GLOBAL,
        [A.COALESCING, A.VECTORIZED_ACCESS],
        "global accesses touch more sectors than the bytes they use",
    ),
    "IssueSlotUtilization": (
        S.LOW_ISSUE_EFFICIENCY,
        [A.NUM_WARPS, A.OCCUPANCY, A.SOFTWARE_PIPELINING],
        "the schedulers issue far below one instruction per cycle: warps wait",
    ),
    "AchievedOccupancy": (
        S.ACHIEVED_OCCUPANCY_GAP,
        [A.OCCUPANCY, A.BLOCK_SIZE],
        "achieved occupancy falls well short of the theoretical occupancy",
    ),
}


def _guided(rule_id: str, symptom: S, actions: list[A], inference: str) -> ComputedRule:
    def check(k: KernelEvidence) -> Verdict | None:
        if any(f.symptom == symptom.value for f in k.findings):
            return None  # a counter-based finding of this symptom already stands
        hits = [
            r
            for r in k.profiler_rules
            if r.rule_id == rule_id
            and r.estimated_speedup_pct is not None
            and r.estimated_speedup_pct >= MIN_ESTIMATED_SPEEDUP_PCT
        ]
        if not hits:
            return None
        r = max(hits, key=lambda h: h.estimated_speedup_pct or 0.0)
        said = EvidenceItem(
            metric=f"ncu rule {rule_id} estimated speedup",
            value=r.estimated_speedup_pct,
            unit="%",
            threshold=f">= {MIN_ESTIMATED_SPEEDUP_PCT:g} %",
            threshold_source="kernelopt (see kernelopt.evidence.ncu_guided)",
            source=f"{k.artifact or 'report'} ({_SOURCE}: {one_line(r.message, 160)})",
        )
        return Verdict(
            evidence=[said],
            inference=f"{inference} (Nsight Compute's own diagnosis; the raw counters are not in this input)",
            actions=actions,
            speedup_pct=r.estimated_speedup_pct,
        )

    return ComputedRule(f"nv.ncu.{rule_id}", symptom, check, f"NCU rule {rule_id} fired (counters absent)")


GUIDED_RULES = RuleTable(Citation.PROFILER_METRIC, tuple(_guided(rid, *spec) for rid, spec in GUIDED.items()))


def add_guided_findings(kernel: KernelEvidence) -> list[Finding]:
    """Findings of :data:`GUIDED_RULES` for ``kernel`` (after its counter rules ran), one per symptom."""
    out: list[Finding] = []
    for finding in evaluate(kernel, GUIDED_RULES):
        if all(f.symptom != finding.symptom for f in out):
            out.append(finding)
    return out
