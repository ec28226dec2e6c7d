"""The change between two profiles of the same kernel (``kernelopt evidence A --diff B``).

Kernels are paired by name (a single kernel on each side is paired whatever its name, since versions
of a kernel may be renamed). For each pair: every metric measured on both sides with its absolute and
relative change, the bottleneck before/after, symptoms that appeared, disappeared or stayed, and ISA
facts that changed. Pure: no I/O.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kernelopt.digits import sig
from kernelopt.evidence.model import KernelEvidence, ProfileSummary


class MetricChange(BaseModel):
    """One metric on both sides.

    Attributes:
        name: normalized metric name.
        unit: its unit.
        before: value in the first profile.
        after: value in the second.
        delta: after - before.
        delta_pct: relative change in percent of ``before`` (``None`` when before is 0).
    """

    name: str
    unit: str | None = None
    before: float
    after: float
    delta: float
    delta_pct: float | None = None


class KernelDiff(BaseModel):
    """The change of one kernel."""

    before_kernel: str
    after_kernel: str
    bottleneck_before: str
    bottleneck_after: str
    metrics: list[MetricChange] = Field(default_factory=list)
    symptoms_added: list[str] = Field(default_factory=list)
    symptoms_removed: list[str] = Field(default_factory=list)
    symptoms_kept: list[str] = Field(default_factory=list)
    isa_changes: dict[str, tuple[float | None, float | None]] = Field(default_factory=dict)


class SummaryDiff(BaseModel):
    """The change between two profiles."""

    before: str
    after: str
    kernels: list[KernelDiff] = Field(default_factory=list)
    unmatched_before: list[str] = Field(default_factory=list)
    unmatched_after: list[str] = Field(default_factory=list)


def _pairs(a: ProfileSummary, b: ProfileSummary) -> tuple[list[tuple[KernelEvidence, KernelEvidence]], list, list]:
    if len(a.kernels) == 1 and len(b.kernels) == 1:
        return [(a.kernels[0], b.kernels[0])], [], []
    pairs = []
    used: set[int] = set()
    unmatched_a = []
    for ka in a.kernels:
        idx = next(
            (i for i, kb in enumerate(b.kernels) if i not in used and kb.kernel_name == ka.kernel_name),
            None,
        )
        if idx is None:
            unmatched_a.append(ka.kernel_name)
        else:
            used.add(idx)
            pairs.append((ka, b.kernels[idx]))
    unmatched_b = [kb.kernel_name for i, kb in enumerate(b.kernels) if i not in used]
    return pairs, unmatched_a, unmatched_b


def diff_kernels(a: KernelEvidence, b: KernelEvidence) -> KernelDiff:
    """The change from ``a`` to ``b``."""
    changes = []
    for name in sorted(set(a.metrics) & set(b.metrics)):
        va, vb = a.metrics[name].value, b.metrics[name].value
        if va is None or vb is None:
            continue
        changes.append(
            MetricChange(
                name=name,
                unit=b.metrics[name].unit,
                before=va,
                after=vb,
                delta=vb - va,
                delta_pct=100.0 * (vb - va) / abs(va) if va else None,
            )
        )
    sa = list(dict.fromkeys(f.symptom for f in a.findings))
    sb = list(dict.fromkeys(f.symptom for f in b.findings))
    isa: dict[str, tuple[float | None, float | None]] = {}
    if a.isa is not None and b.isa is not None:  # a report without SASS says nothing about the code
        for field in ("global_load_bits", "global_load_bits_min", "spill_ops", "tensor_instructions"):
            va, vb = getattr(a.isa, field), getattr(b.isa, field)
            if va is not None and vb is not None and va != vb:
                isa[field] = (va, vb)
    return KernelDiff(
        before_kernel=a.kernel_name,
        after_kernel=b.kernel_name,
        bottleneck_before=a.bottleneck.value,
        bottleneck_after=b.bottleneck.value,
        metrics=changes,
        symptoms_added=[s for s in sb if s not in sa],
        symptoms_removed=[s for s in sa if s not in sb],
        symptoms_kept=[s for s in sa if s in sb],
        isa_changes=isa,
    )


def diff_summaries(
    before: ProfileSummary, after: ProfileSummary, *, before_name: str = "before", after_name: str = "after"
) -> SummaryDiff:
    """The change from ``before`` to ``after`` for every kernel pair."""
    pairs, ua, ub = _pairs(before, after)
    return SummaryDiff(
        before=before_name,
        after=after_name,
        kernels=[diff_kernels(a, b) for a, b in pairs],
        unmatched_before=ua,
        unmatched_after=ub,
    )


def render_diff(d: SummaryDiff, *, min_change_pct: float = 1.0) -> str:
    """Human text: per kernel, the bottleneck change, symptoms, and metrics that moved by >= ``min_change_pct``."""
    lines = [f"before: {d.before}", f"after:  {d.after}"]
    for k in d.kernels:
        name = k.before_kernel if k.before_kernel == k.after_kernel else f"{k.before_kernel} -> {k.after_kernel}"
        lines += ["", f"== kernel: {name}"]
        arrow = "unchanged" if k.bottleneck_before == k.bottleneck_after else f"-> {k.bottleneck_after}"
        lines.append(f"bottleneck: {k.bottleneck_before} {arrow}")
        lines.append("symptoms added: " + (", ".join(k.symptoms_added) or "none"))
        lines.append("symptoms removed: " + (", ".join(k.symptoms_removed) or "none"))
        lines.append("symptoms kept: " + (", ".join(k.symptoms_kept) or "none"))
        for field, (va, vb) in k.isa_changes.items():
            lines.append(f"isa {field}: {va} -> {vb}")
        moved = [m for m in k.metrics if m.delta != 0 and (m.delta_pct is None or abs(m.delta_pct) >= min_change_pct)]
        for m in moved:
            pct = f" ({m.delta_pct:+.1f}%)" if m.delta_pct is not None else ""
            unit = f" {m.unit}" if m.unit else ""
            lines.append(f"  {m.name}: {sig(m.before)} -> {sig(m.after)}{unit}{pct}")
        if not moved:
            lines.append(f"  no metric moved by {min_change_pct:g}% or more")
    for n in d.unmatched_before:
        lines.append(f"only before: {n}")
    for n in d.unmatched_after:
        lines.append(f"only after: {n}")
    return "\n".join(lines) + "\n"
