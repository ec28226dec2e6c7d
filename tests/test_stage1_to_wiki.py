"""Real Stage 1 evidence -> gpu-wiki: the recorded H200 reports lead to the relevant techniques.

Each committed report (Nsight Compute 2025.3.1, NVIDIA H200, 2026-11-29) is read through the real
evidence engine; the symptom of its top finding is searched in the wiki with the Hopper / Triton scope;
a technique of an expected action category must be among the first three hits (issue 5, "Done when").
"""

from __future__ import annotations

import pytest

from kernelopt.actions import ActionCategory as A
from kernelopt.profiling import read_evidence
from kernelopt.wiki.record import RecordKind
from kernelopt.wiki.search import search

from .nvidia_data import report

EXPECTED = {
    "softmax": ("dram_bandwidth_bound", {A.REDUCE_BYTES, A.VECTORIZED_ACCESS, A.FUSION}),
    "matmul": ("compute_bound", {A.TENSOR_CORE_USE, A.TILING, A.PRECISION, A.INSTRUCTION_MIX}),
    "small_grid": ("small_grid", {A.BLOCK_SIZE, A.SPLIT_K, A.PERSISTENT_KERNEL}),
    "uncoalesced": ("uncoalesced_global", {A.COALESCING, A.VECTORIZED_ACCESS}),
    "bank_conflict": ("smem_bank_conflicts", {A.SMEM_SWIZZLE_PADDING}),
    "register_spill": ("register_spills", {A.REGISTER_PRESSURE}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_evidence_finds_the_relevant_techniques(name: str) -> None:
    symptom, categories = EXPECTED[name]
    summary = read_evidence(report(f"h200_{name}"))
    kernel = summary.primary()
    assert kernel is not None
    symptoms = [f.symptom for f in kernel.findings]
    assert symptom in symptoms, f"{name}: expected finding {symptom}, got {symptoms}"
    metrics = [e.metric for f in kernel.findings if f.symptom == symptom for e in f.evidence]
    hits = search(
        " ".join([symptom.replace("_", " "), *metrics]),
        arch="sm_90",
        framework="triton",
        symptoms=[symptom],
        kinds=[RecordKind.TECHNIQUE],
        limit=3,
    )
    found = {h.record.action_category for h in hits}
    assert found & categories, f"{name}: top-3 categories {found} miss {categories}"
    assert all(h.record.scope.vendor in ([], ["nvidia"]) or "nvidia" in h.record.scope.vendor for h in hits)


def test_evidence_reads_gzipped_reports_as_committed(tmp_path) -> None:
    from pathlib import Path

    from kernelopt.errors import InputFileError

    packed = Path(__file__).parent / "data" / "nvidia" / "h200_bank_conflict.ncu-rep.gz"
    summary = read_evidence(packed)
    assert "smem_bank_conflicts" in {f.symptom for f in summary.kernels[0].findings}
    broken = tmp_path / "broken.ncu-rep.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(InputFileError, match="not a readable gzip file"):
        read_evidence(broken)
