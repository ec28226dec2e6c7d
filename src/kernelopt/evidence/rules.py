"""The evidence-rule framework: pure rules over normalized metrics, run in a fixed order.

A :class:`Rule` is an id, the symptom it reports and a pure function ``KernelEvidence -> Finding |
None``. Rules read only :attr:`KernelEvidence.metrics` (normalized names, see
:mod:`kernelopt.evidence.nvidia_metrics`), the stall breakdown, occupancy limiters, hotspots, ISA facts
and the profiler's own rule results, so NVIDIA and AMD rule sets share this module. The helpers build
evidence items that carry the metric's value, unit, threshold, threshold source and artifact.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kernelopt.evidence.model import Confidence, EvidenceItem, Finding, KernelEvidence
from kernelopt.evidence.symptoms import Symptom
from kernelopt.evidence.thresholds import Threshold

RuleCheck = Callable[[KernelEvidence], Finding | None]

_CONFIDENCE_RANK = {Confidence.HIGH: 0, Confidence.MEDIUM: 1, Confidence.LOW: 2}


@dataclass(frozen=True)
class Rule:
    """One evidence rule.

    Attributes:
        id: stable id (``nv.small_grid``); a finding carries it as ``rule_id``.
        symptom: the symptom id the rule reports (the wiki's search key).
        check: the pure function; returns a finding, or ``None`` when the rule does not apply or its
            inputs are missing.
        description: one line for ``kernelopt evidence --rules`` and the docs.
    """

    id: str
    symptom: Symptom
    check: RuleCheck
    description: str = ""


def rank_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Most important first: by confidence, then in the order the rules were given (stable)."""
    indexed = list(enumerate(findings))
    indexed.sort(key=lambda item: (_CONFIDENCE_RANK.get(item[1].confidence, 3), item[0]))
    return [f for _, f in indexed]


def run_rules(kernel: KernelEvidence, rules: Sequence[Rule]) -> list[Finding]:
    """Run ``rules`` on ``kernel`` and return the findings, most important first.

    Raises:
        ValueError: a rule returned a finding whose ``rule_id`` or ``symptom`` differs from its declaration
            (a bug in the rule).
    """
    found: list[Finding] = []
    for rule in rules:
        finding = rule.check(kernel)
        if finding is None:
            continue
        if finding.rule_id != rule.id or finding.symptom != rule.symptom.value:
            raise ValueError(f"rule {rule.id} returned a finding for {finding.rule_id}/{finding.symptom}")
        found.append(finding)
    return rank_findings(found)


def value(kernel: KernelEvidence, name: str) -> float | None:
    """The normalized metric ``name`` of ``kernel`` (``None`` when absent or not measured)."""
    return kernel.metric(name)


def item(
    kernel: KernelEvidence,
    name: str,
    *,
    threshold: Threshold | None = None,
    op: str | None = None,
    condition: str | None = None,
    condition_source: str | None = None,
    by_name: bool = False,
) -> EvidenceItem:
    """An evidence item for normalized metric ``name``.

    By default (NVIDIA) the item names the profiler's own metric (the normalized metric's ``source``)
    and the report it was read from (the kernel's ``artifact``). With ``by_name`` (AMD, whose metric
    sources already name their file and formula, ``pmc_perf.csv: 100*TCC_HIT/...``) it names the
    normalized metric and cites that source as it is (``not collected`` when there is none).

    The comparison is ``threshold`` with ``op`` (text and source from the :class:`Threshold`), or,
    where no fixed number is compared against, a written-out ``condition`` (``< cu_count``, ``== 0``)
    with its optional ``condition_source``.
    """
    m = kernel.metrics.get(name)
    if by_name:
        metric, source = name, (m.source if m is not None and m.source else "not collected")
    else:
        metric, source = (m.source if m is not None and m.source else name), f"{kernel.artifact or 'profile'} ({name})"
    if threshold is not None:
        compared = threshold.text(op) if op else None
        compared_source: str | None = threshold.source
    else:
        compared, compared_source = condition, condition_source
    return EvidenceItem(
        metric=metric,
        value=None if m is None else m.value,
        unit=None if m is None else m.unit,
        threshold=compared,
        threshold_source=compared_source,
        source=source,
        missing_reason=None if m is None or m.value is not None else m.missing_reason,
    )


def fact(
    metric: str,
    val: float | str | None,
    *,
    unit: str | None = None,
    source: str,
    threshold: Threshold | None = None,
    op: str | None = None,
) -> EvidenceItem:
    """An evidence item for a value that is not a normalized metric (an ISA fact, a derived ratio)."""
    return EvidenceItem(
        metric=metric,
        value=val,
        unit=unit,
        threshold=threshold.text(op) if threshold is not None and op else None,
        threshold_source=threshold.source if threshold is not None else None,
        source=source,
    )


def stall_share(kernel: KernelEvidence, reason: str) -> float | None:
    """Share (percent) of warp cycles spent in stall ``reason``; ``None`` without a stall breakdown."""
    if not kernel.stall_breakdown_pct:
        return None
    return kernel.stall_breakdown_pct.get(reason, 0.0)


def top_stall(kernel: KernelEvidence, *, exclude: tuple[str, ...] = ("selected",)) -> tuple[str, float] | None:
    """The stall reason with the largest share, ``selected`` (issuing, not a stall) excluded."""
    rows = [(r, p) for r, p in kernel.stall_breakdown_pct.items() if r not in exclude]
    if not rows:
        return None
    return max(rows, key=lambda rp: rp[1])
