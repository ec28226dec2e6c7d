"""The evidence-rule evaluator: one small interpreter for every vendor's rule table.

A vendor's rules are one :class:`RuleTable` (``nvidia_rules.NVIDIA_RULES``, ``amd_rules.AMD_RULES``);
the vendors differ only in their tables. A table lists, in priority order:

- :class:`Row`: a rule written as data. It fires when every test in ``when`` holds (a :class:`When`
  compares a quantity with a :class:`~kernelopt.evidence.thresholds.Threshold`; a predicate names a
  computed condition). Then it cites ``evidence`` (a metric name, a :class:`Cite` with the comparison
  shown, a :class:`Fact` for a derived value, or an evidence function), states ``inference`` (a sentence;
  ``{0}``, ``{1}``... are filled with the ``says`` quantities) and proposes ``actions``; ``confidence``
  is fixed or a :class:`Grade`. The symptom is the key Stage 2's knowledge search looks up in the wiki.
- :class:`ComputedRule`: a rule that is a computed combination (the busiest pipe picks the inference, the
  wave count decides the tail), kept as a function that returns a :class:`Verdict`.

Several entries may share one id: they are the branches of one rule, tried in order, and the first that
fires speaks for the rule. Quantities (:data:`Quantity`) are normalized metric names or derived values
(:class:`Stall`, :class:`Diff`, :class:`Largest`, :class:`Smallest`, :class:`Total`, or a function). A
quantity that is not measured is ``None``, and a :class:`When` on it fails unless ``missing=True``.

Rules read only :attr:`KernelEvidence.metrics` (normalized names, see
:mod:`kernelopt.evidence.nvidia_metrics`), the stall breakdown, occupancy limiters, hotspots, ISA facts
and the profiler's own rule results. Pure: no I/O.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from kernelopt.actions import ActionCategory
from kernelopt.evidence.model import Confidence, EvidenceItem, Finding, KernelEvidence
from kernelopt.evidence.symptoms import Symptom
from kernelopt.evidence.thresholds import Threshold

Predicate = Callable[[KernelEvidence], bool]
Quantity = str | Callable[[KernelEvidence], float | None]
EvidenceFn = Callable[[KernelEvidence], list[EvidenceItem]]

_CONFIDENCE_RANK = {Confidence.HIGH: 0, Confidence.MEDIUM: 1, Confidence.LOW: 2}


class Cmp(StrEnum):
    """The comparison of a :class:`When`."""

    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="
    EQ = "=="
    NE = "!="


_COMPARE = {
    Cmp.LT: operator.lt,
    Cmp.LE: operator.le,
    Cmp.GT: operator.gt,
    Cmp.GE: operator.ge,
    Cmp.EQ: operator.eq,
    Cmp.NE: operator.ne,
}


class Citation(StrEnum):
    """How a table's rows cite a normalized metric (see :func:`item`)."""

    PROFILER_METRIC = "profiler_metric"  # NVIDIA: the profiler's metric, read from the report
    NORMALIZED_NAME = "normalized_name"  # AMD: the normalized name, its source names file and formula


# -- quantities -----------------------------------------------------------------------------------


def quantity(q: Quantity, kernel: KernelEvidence) -> float | None:
    """The value of quantity ``q`` for ``kernel`` (``None`` when it is not measured)."""
    return kernel.metric(q) if isinstance(q, str) else q(kernel)


@dataclass(frozen=True)
class Stall:
    """Share (percent) of warp cycles in stall ``reason``; 0 when absent, ``None`` without a breakdown."""

    reason: str

    def __call__(self, kernel: KernelEvidence) -> float | None:
        return stall_share(kernel, self.reason)


@dataclass(frozen=True)
class Diff:
    """``a - b``; ``None`` unless both are measured."""

    a: Quantity
    b: Quantity

    def __call__(self, kernel: KernelEvidence) -> float | None:
        a, b = quantity(self.a, kernel), quantity(self.b, kernel)
        return None if a is None or b is None else a - b


@dataclass(frozen=True)
class Largest:
    """The largest of the measured ``names`` (``None`` when none is)."""

    names: tuple[str, ...]

    def __call__(self, kernel: KernelEvidence) -> float | None:
        return max((v for v in map(kernel.metric, self.names) if v is not None), default=None)


@dataclass(frozen=True)
class Smallest:
    """The smallest of the measured ``names`` (``None`` when none is)."""

    names: tuple[str, ...]

    def __call__(self, kernel: KernelEvidence) -> float | None:
        return min((v for v in map(kernel.metric, self.names) if v is not None), default=None)


@dataclass(frozen=True)
class Total:
    """The sum of ``names``, a metric that is not measured counting as 0 (always a number)."""

    names: tuple[str, ...]

    def __call__(self, kernel: KernelEvidence) -> float | None:
        return sum(v for v in map(kernel.metric, self.names) if v)


# -- the parts of a row ---------------------------------------------------------------------------


@dataclass(frozen=True)
class When:
    """One test of a rule: ``quantity cmp threshold``; ``missing`` when the quantity is not measured."""

    quantity: Quantity
    cmp: Cmp
    threshold: Threshold | float
    missing: bool = False

    def __call__(self, kernel: KernelEvidence) -> bool:
        v = quantity(self.quantity, kernel)
        if v is None:
            return self.missing
        limit = self.threshold.value if isinstance(self.threshold, Threshold) else self.threshold
        return bool(_COMPARE[self.cmp](v, limit))


@dataclass(frozen=True)
class Grade:
    """A confidence decided by one test: ``then`` when it holds, ``otherwise`` when not."""

    test: When | Predicate
    then: Confidence
    otherwise: Confidence


@dataclass(frozen=True)
class Cite:
    """An evidence item for a normalized metric, with the comparison that makes it evidence.

    ``op`` is the comparison as shown (``>=``, ``< sm_count x``). With a ``threshold`` the item shows
    ``op`` and the threshold's value, unit and source; without one, ``op`` is a written-out condition
    (``< cu_count``) and ``source`` its source. ``fallback`` is cited instead when the kernel has no
    ``metric`` at all.
    """

    metric: str
    op: str | None = None
    threshold: Threshold | None = None
    source: str | None = None
    fallback: str | None = None


@dataclass(frozen=True)
class Fact:
    """An evidence item for a derived value (not a normalized metric), read from the kernel's report.

    Its source is ``<artifact> (<how>)``: how the value was derived from what the report holds.
    """

    metric: str
    value: Quantity
    unit: str
    how: str
    threshold: Threshold | None = None
    op: str | None = None


EvidenceSpec = str | Cite | Fact | EvidenceFn


@dataclass(frozen=True)
class Verdict:
    """What a rule concludes when it fires; the evaluator adds the rule's id and symptom."""

    evidence: list[EvidenceItem]
    inference: str
    actions: Sequence[ActionCategory]
    confidence: Confidence = Confidence.MEDIUM
    speedup_pct: float | None = None
    location: str | None = None


@dataclass(frozen=True)
class Row:
    """One rule (or one branch of a rule) as data; see the module docstring."""

    id: str
    symptom: Symptom
    description: str
    when: tuple[When | Predicate, ...]
    evidence: tuple[EvidenceSpec, ...]
    inference: str
    actions: tuple[ActionCategory, ...]
    confidence: Confidence | Grade = Confidence.MEDIUM
    says: tuple[Quantity, ...] = ()
    speedup: Quantity | None = None
    location: Callable[[KernelEvidence], str | None] | None = None

    def otherwise(self, **changes: object) -> Row:
        """A further branch of this rule: the same row with ``changes`` (tried after this one)."""
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ComputedRule:
    """A rule that is a computed combination: a pure function returning a :class:`Verdict` or ``None``."""

    id: str
    symptom: Symptom
    check: Callable[[KernelEvidence], Verdict | None]
    description: str = ""


@dataclass(frozen=True)
class RuleTable:
    """A vendor's rules, most important first, and how its rows cite metrics."""

    citation: Citation
    rules: tuple[Row | ComputedRule, ...] = field(default=())

    def __post_init__(self) -> None:
        """Check that the branches of each rule are adjacent and report one symptom.

        Raises:
            ValueError: an id reappears after another rule, or its branches differ in symptom.
        """
        seen: dict[str, Symptom] = {}
        for before, rule in zip((None, *self.rules), self.rules, strict=False):
            if rule.id in seen and (before is None or before.id != rule.id or seen[rule.id] != rule.symptom):
                raise ValueError(f"rule {rule.id}: its branches must be adjacent and report one symptom")
            seen[rule.id] = rule.symptom

    def __iter__(self) -> Iterator[Row | ComputedRule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def ids(self) -> list[str]:
        """The rule ids, in order, each once (branches share an id)."""
        return list(dict.fromkeys(r.id for r in self.rules))


# -- the evaluator --------------------------------------------------------------------------------


def _cite(spec: EvidenceSpec, kernel: KernelEvidence, citation: Citation) -> list[EvidenceItem]:
    by_name = citation is Citation.NORMALIZED_NAME
    if isinstance(spec, str):
        return [item(kernel, spec, by_name=by_name)]
    if isinstance(spec, Cite):
        name = spec.fallback if spec.fallback and spec.metric not in kernel.metrics else spec.metric
        if spec.threshold is not None:
            return [item(kernel, name, threshold=spec.threshold, op=spec.op, by_name=by_name)]
        return [item(kernel, name, condition=spec.op, condition_source=spec.source, by_name=by_name)]
    if isinstance(spec, Fact):
        source = f"{kernel.artifact or 'profile'} ({spec.how})"
        val = quantity(spec.value, kernel)
        return [fact(spec.metric, val, unit=spec.unit, source=source, threshold=spec.threshold, op=spec.op)]
    return spec(kernel)


def cite(
    kernel: KernelEvidence, specs: Sequence[EvidenceSpec], citation: Citation = Citation.PROFILER_METRIC
) -> list[EvidenceItem]:
    """The evidence items of ``specs`` for ``kernel`` (for computed rules; rows are cited by the evaluator)."""
    return [e for spec in specs for e in _cite(spec, kernel, citation)]


def _verdict(row: Row, kernel: KernelEvidence, citation: Citation) -> Verdict | None:
    if not all(test(kernel) for test in row.when):
        return None
    confidence = row.confidence
    if isinstance(confidence, Grade):
        confidence = confidence.then if confidence.test(kernel) else confidence.otherwise
    said = [quantity(q, kernel) for q in row.says]
    return Verdict(
        evidence=cite(kernel, row.evidence, citation),
        inference=row.inference.format(*said) if said else row.inference,
        actions=row.actions,
        confidence=confidence,
        speedup_pct=quantity(row.speedup, kernel) if row.speedup is not None else None,
        location=row.location(kernel) if row.location is not None else None,
    )


def evaluate(kernel: KernelEvidence, table: RuleTable) -> list[Finding]:
    """The findings of ``table`` for ``kernel``, in table order (the first firing branch of each id)."""
    found: list[Finding] = []
    fired: set[str] = set()
    for rule in table:
        if rule.id in fired:
            continue
        verdict = _verdict(rule, kernel, table.citation) if isinstance(rule, Row) else rule.check(kernel)
        if verdict is None:
            continue
        fired.add(rule.id)
        found.append(
            Finding(
                rule_id=rule.id,
                symptom=rule.symptom.value,
                confidence=verdict.confidence,
                evidence=verdict.evidence,
                inference=verdict.inference,
                action_categories=list(verdict.actions),
                estimated_speedup_pct=verdict.speedup_pct,
                location=verdict.location,
            )
        )
    return found


def rank_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Most important first: by confidence, then in the order the rules were given (stable)."""
    indexed = list(enumerate(findings))
    indexed.sort(key=lambda item: (_CONFIDENCE_RANK.get(item[1].confidence, 3), item[0]))
    return [f for _, f in indexed]


def run_rules(kernel: KernelEvidence, table: RuleTable) -> list[Finding]:
    """Run ``table`` on ``kernel`` and return the findings, most important first."""
    return rank_findings(evaluate(kernel, table))


# -- helpers for evidence functions and computed rules --------------------------------------------


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
