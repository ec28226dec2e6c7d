"""The shared contracts: summary.json round trip, plan signature, backend registry, loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.backends.registry import implementer_class, planner_class
from kernelopt.errors import UsageError
from kernelopt.evidence.model import (
    BottleneckType,
    EvidenceItem,
    Finding,
    KernelEvidence,
    Metric,
    ProfileSummary,
    Vendor,
)
from kernelopt.evidence.summary import SummaryError, read_summary, write_summary
from kernelopt.planning.plan import Plan

from .conftest import KERNELS


def _summary() -> ProfileSummary:
    finding = Finding(
        rule_id="nv.dram_bandwidth_bound",
        symptom="dram_bandwidth_bound",
        evidence=[
            EvidenceItem(
                metric="dram__throughput.avg.pct_of_peak_sustained_elapsed",
                value=91.2,
                unit="%",
                threshold=">= 80 %",
                source="ncu.ncu-rep",
            )
        ],
        inference="DRAM bandwidth is the limiter",
        action_categories=[ActionCategory.REDUCE_BYTES],
        location="kernel.py:12",
    )
    k = KernelEvidence(
        kernel_name="add_kernel",
        metrics={
            "duration_us": Metric(value=12.5, unit="us"),
            "l2_hit_rate_pct": Metric(value=None, missing_reason="not collected"),
        },
        bottleneck=BottleneckType.MEMORY_BOUND,
        findings=[finding],
    )
    return ProfileSummary(vendor=Vendor.NVIDIA, tool_used="ncu 2025.3.1 --set full", kernels=[k])


def test_summary_round_trip(tmp_path: Path) -> None:
    js, txt = write_summary(tmp_path, _summary())
    assert read_summary(tmp_path) == _summary()
    text = txt.read_text()
    assert "SYMPTOMS: dram_bandwidth_bound" in text and "LOCALIZE: kernel.py:12" in text
    assert "duration_us: 12.5 us" in text and "l2_hit_rate_pct: n/a (not collected)" in text
    js.write_text("{")
    with pytest.raises(SummaryError, match="corrupt JSON"):
        read_summary(js)


def test_plan_signature_ignores_order() -> None:
    common = dict(
        version=1,
        bottleneck_type="memory_bound",
        action_category="num_warps",
        action="a",
        expected_impact="e",
        risks_and_rollback="r",
    )
    a = Plan(parameters={"num_warps": 8, "x": 1}, **common)
    b = Plan(parameters={"x": 1, "num_warps": 8}, **common)
    assert a.signature() == b.signature()


def test_registry_unknown_backend() -> None:
    with pytest.raises(UsageError, match="unknown planner backend 'magic'"):
        planner_class("magic")
    with pytest.raises(UsageError, match="unknown implementer backend"):
        implementer_class("magic")


def test_loader_both_forms() -> None:
    from kernelopt.harness.loader import load_pair

    pair = load_pair(KERNELS / "add_kernel.py", KERNELS / "add_reference.py")
    assert pair.form == "function" and pair.shapes == [{"n": 4096}, {"n": 1000}]
    x, y = pair.build_inputs(pair.shapes[1])
    assert (pair.candidate()(x, y) == pair.reference_fn()(x, y)).all()
    kb = load_pair(KERNELS / "kb_kernel.py", KERNELS / "kb_reference.py")
    assert kb.form == "kernelbench"
    (x,) = kb.build_inputs({})
    assert (kb.candidate()(x) == kb.reference_fn()(x)).all()
