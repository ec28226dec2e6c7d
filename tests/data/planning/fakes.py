"""Test doubles for Stage 2: a small gpu-wiki with a deterministic search, workspace helpers.

The fake search mimics ``kernelopt.wiki.search.search``: hard scope filter on vendor and framework,
BM25-like word overlap plus a symptom boost, architecture-neutral records labelled ``neutral``.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from kernelopt.evidence.summary import read_summary, write_summary
from kernelopt.memory.model import IterationRecord
from kernelopt.wiki.record import WikiRecord

DATA = Path(__file__).parent


def _rec(**kw: object) -> WikiRecord:
    kw.setdefault("sources", [{"title": "Triton documentation", "url": "https://triton-lang.org/main/index.html"}])
    return WikiRecord.model_validate(kw)


RECORDS: list[WikiRecord] = [
    _rec(
        kind="technique",
        id="online-softmax-single-pass",
        title="Single-pass (online) softmax: read each row once",
        scope={"vendor": [], "framework": ["triton", "cuda"]},
        symptoms=["dram_bandwidth_bound", "memory_bound_near_roof"],
        metrics=["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
        action_category="reduce_bytes",
        change={"triton": "keep the running max and sum in registers and rescale, so the row is read once"},
        expected_impact="close to half the DRAM traffic of a two-pass softmax",
        risks="numerical differences in the rescaling; check the tolerance",
    ),
    _rec(
        kind="technique",
        id="nv-triton-block-size-grow",
        title="Larger BLOCK_SIZE for streaming kernels below the memory roof",
        scope={"vendor": ["nvidia"], "framework": ["triton"]},
        symptoms=["dram_bandwidth_bound"],
        action_category="block_size",
        change={"triton": "double BLOCK_SIZE so each program streams more bytes with wider accesses"},
        expected_impact="a few to 20 percent for elementwise kernels",
        risks="fewer programs: a small problem can leave SMs idle",
    ),
    _rec(
        kind="technique",
        id="small-grid-smaller-blocks",
        title="Smaller blocks to fill every SM when the grid is small",
        scope={"vendor": [], "framework": []},
        symptoms=["small_grid", "tail_effect"],
        action_category="block_size",
        change={"triton": "halve BLOCK_SIZE so the grid has at least one program per SM"},
        expected_impact="up to the idle share of the SMs",
        risks="more programs each doing less work; reductions need more partial results",
    ),
    _rec(
        kind="technique",
        id="nv-num-warps-latency",
        title="More warps per program to hide memory latency",
        scope={"vendor": ["nvidia"], "framework": ["triton"]},
        symptoms=["latency_bound"],
        metrics=["smsp__pcsamp_warps_issue_stalled_long_scoreboard"],
        action_category="num_warps",
        change={"triton": "raise num_warps at the launch"},
        expected_impact="latency hidden when long_scoreboard stalls dominate",
        risks="more registers per program; occupancy may drop",
    ),
    _rec(
        kind="technique",
        id="spills-shrink-tile",
        title="Shrink the tile when registers spill",
        scope={"vendor": [], "framework": []},
        symptoms=["register_spills", "occupancy_limited_registers"],
        action_category="register_pressure",
        change={"triton": "halve the largest of BLOCK_M/BLOCK_N", "cuda": "shrink the per-thread tile"},
        expected_impact="spills removed; occupancy up",
        risks="less data reuse per tile",
    ),
    _rec(
        kind="pitfall",
        id="pitfall-more-warps-when-spilling",
        title="More warps do not cure spills on their own",
        scope={"vendor": [], "framework": []},
        symptoms=["register_spills"],
        action_category="num_warps",
        tried="raising num_warps on a spilling matmul",
        fails_when="the tile itself needs more than 255 registers per thread",
        why="the per-thread fragment stays the same size",
    ),
    _rec(
        kind="technique",
        id="amd-lds-padding",
        title="Pad LDS rows against bank conflicts",
        scope={"vendor": ["amd"], "arch": ["gfx942"], "framework": []},
        symptoms=["lds_bank_conflicts"],
        action_category="lds_layout",
        change={"hip": "pad each LDS row by one dword"},
    ),
]


@dataclass
class FakeHit:
    record: WikiRecord
    score: float
    neutral: bool
    matched_symptoms: list[str] = field(default_factory=list)


@dataclass
class FakeWiki:
    """A recording fake of ``kernelopt.wiki.search.search``."""

    records: list[WikiRecord] = field(default_factory=lambda: list(RECORDS))
    calls: list[dict[str, object]] = field(default_factory=list)

    def __call__(
        self,
        query: str,
        *,
        arch: str | None = None,
        vendor: str | None = None,
        framework: str | None = None,
        symptoms: list[str] | None = None,
        kinds: list[str] | None = None,
        extra_dirs: list[Path] | None = None,
        limit: int = 10,
    ) -> list[FakeHit]:
        self.calls.append(
            {"query": query, "arch": arch, "vendor": vendor, "framework": framework, "symptoms": symptoms}
        )
        words = set(re.findall(r"\w+", query.lower()))
        hits = []
        for r in self.records:
            if kinds and r.kind.value not in kinds:
                continue
            if vendor and r.scope.vendor and vendor not in r.scope.vendor:
                continue
            if arch and r.scope.arch and arch not in r.scope.arch:
                continue
            if framework and r.scope.framework and framework not in r.scope.framework:
                continue
            text = f"{r.title} {' '.join(r.symptoms)} {' '.join(r.metrics)}".lower()
            overlap = len(words & set(re.findall(r"\w+", text)))
            matched = [s for s in (symptoms or []) if s in r.symptoms]
            score = overlap + 3.0 * len(matched)
            if score > 0:
                hits.append(FakeHit(r, score, not r.scope.vendor, matched))
        hits.sort(key=lambda h: (-h.score, h.record.id))
        return hits[:limit]


def summary(name: str):  # -> ProfileSummary
    return read_summary(DATA / f"summary_{name}.json")


def install_summary(ws, version: int, name: str) -> None:
    """Write fixture summary ``name`` as ``profiles/v<version>/`` of workspace ``ws``."""
    write_summary(ws.profile_dir(version), summary(name))


def record(
    version: int, category: str, knobs: dict[str, list[object]] | None = None, **extra: object
) -> IterationRecord:
    """An iteration record with an action, its knob changes and optional outcome fields."""
    data: dict[str, object] = {
        "version": f"v{version}",
        "optimization": {"action_category": category, "knob_changes": knobs or {}},
    }
    data.update(extra)
    return IterationRecord.model_validate(data)


def copy_reference_project(dst: Path) -> Path:
    target = dst / "refproj"
    shutil.copytree(DATA / "refproj", target)
    return target
