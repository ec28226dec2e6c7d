"""The shipped gpu-wiki content: every record passes lint, the vocabulary is covered, sources are cited."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kernelopt.actions import ActionCategory
from kernelopt.evidence.symptoms import Symptom
from kernelopt.wiki.lint import lint
from kernelopt.wiki.loader import builtin_files, load_records
from kernelopt.wiki.record import RecordKind, WikiRecord


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("KERNELOPT_WIKI_DIRS", raising=False)
    monkeypatch.delenv("KERNELOPT_CONFIG", raising=False)


def _records(kind: RecordKind) -> list[WikiRecord]:
    return [r for r in load_records() if r.kind is kind]


def test_every_shipped_record_passes_lint() -> None:
    issues = lint()
    assert issues == [], "\n".join(f"{i.path}: {i.rule}: {i.message}" for i in issues)


def test_every_builtin_file_is_a_record() -> None:
    files = builtin_files()
    ids = {r.id for r in load_records()}
    assert len(files) == len(ids)


def test_enough_techniques_and_pitfalls() -> None:
    assert len(_records(RecordKind.TECHNIQUE)) >= 40
    assert len(_records(RecordKind.PITFALL)) >= 15


def test_every_symptom_maps_to_a_technique() -> None:
    answered = {s for r in _records(RecordKind.TECHNIQUE) for s in r.symptoms}
    missing = [s.value for s in Symptom if s.value not in answered]
    assert missing == []


def test_every_action_category_has_a_technique() -> None:
    used = {r.action_category for r in _records(RecordKind.TECHNIQUE)}
    assert [c.value for c in ActionCategory if c not in used] == []


def test_coverage_of_vendors_architectures_and_frameworks() -> None:
    techniques = _records(RecordKind.TECHNIQUE)
    vendors = Counter(v for r in techniques for v in (r.scope.vendor or ["neutral"]))
    assert vendors["nvidia"] >= 10 and vendors["amd"] >= 10 and vendors["neutral"] >= 10
    archs = {a for r in techniques for a in r.scope.arch}
    assert {"sm_80", "sm_90", "gfx942", "gfx950"} <= archs
    changes = Counter(k for r in techniques if r.change for k, v in r.change.model_dump().items() if v)
    assert changes["triton"] >= 40 and changes["cuda"] >= 25 and changes["hip"] >= 15


def test_techniques_are_complete_and_cited() -> None:
    for r in _records(RecordKind.TECHNIQUE):
        assert r.action_category is not None, r.id
        assert r.symptoms and r.metrics, r.id
        assert r.expected_impact and r.risks, r.id
        assert r.sources and all(s.title and s.url and s.url.startswith("https://") for s in r.sources), r.id
        assert len(r.body) > 200, r.id


def test_pitfalls_say_what_when_why() -> None:
    for r in _records(RecordKind.PITFALL):
        assert r.tried and r.fails_when and r.why and r.sources, r.id


def test_related_ids_resolve() -> None:
    ids = {r.id for r in load_records()}
    for r in load_records():
        assert set(r.related) <= ids, r.id


def test_metric_names_are_real_profiler_names() -> None:
    metrics = {m for r in load_records() for m in r.metrics}
    # a sample of the exact Nsight Compute / rocprof names the evidence engine reports
    for name in (
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread",
        "smsp__thread_inst_executed_per_inst_executed.ratio",
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
        "SQ_LDS_BANK_CONFLICT",
        "SQ_INSTS_VMEM_RD",
        "TCC_HIT_sum",
        "SQ_BUSY_CYCLES",
        "SQ_VALU_MFMA_BUSY_CYCLES",
    ):
        assert name in metrics, name
