"""The best-kernel rule: the gate compares with the best version so far, and the run ends on the best kernel.

Fake stages over a real workspace and real git (tests/loop_fakes.py): the fake gate passes a version
that is at most 2 % slower than the version it is compared with ("no significant change").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.loop.ending import END_PREFIX, gate_previous
from kernelopt.loop.machine import OptimizeLoop
from kernelopt.loop.opening import open_or_create
from kernelopt.loop.settings import LoopRequest
from kernelopt.memory.model import GateResult, IterationRecord, QualityGate
from kernelopt.memory.model import best_version as best_record
from kernelopt.workspace import Workspace

from .loop_fakes import DATA, block_of, make_fakes, subjects

pytestmark = pytest.mark.timeout(120)

# each knob move is 1.5 % slower: within the fake gate's 2 % "no significant change" band
CREEPING_US = {64: 100.0, 128: 101.5, 256: 103.0, 512: 104.5, 1024: 106.0, 2048: 107.5, 4096: 109.0}


@pytest.fixture
def ws(ws_root: Path) -> Workspace:
    return open_or_create(DATA, name="loop", root=ws_root).workspace


def test_no_change_passes_cannot_walk_the_kernel_slower(ws: Workspace) -> None:
    fakes = make_fakes()
    fakes.gate.latency_of = lambda b: CREEPING_US[b]
    s = OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=3)).run()
    # every gate after V0 compared with V0, the fastest version so far, not with the version before it
    assert [prev for _, prev, _ in fakes.gate.validated] == [None, 0, 0, 0]
    results = {n: ws.memory.read(n).quality_gate.result for n in (1, 2, 3)}
    assert results[1] is GateResult.PASS  # 1.5 % slower than V0: no significant change
    assert results[2] is GateResult.FAIL  # 3 % slower than V0 (only 1.5 % slower than V1)
    assert s.best_version == "v0" and s.best_latency_us == 100.0
    # the run ends on the best kernel, committed, and git is clean
    assert block_of(ws) == 64
    v0_kernel = ws.file_at(ws.memory.read(0).git_commit_hash or "", "kernel.py")
    assert ws.kernel_py.read_text().rstrip("\n") == v0_kernel.rstrip("\n")
    assert subjects(ws)[-1].startswith(f"{END_PREFIX}: kernel.py = V0, the fastest passing version (100 us)")
    assert ws.is_clean() and ws.repo.git.status("--porcelain") == ""
    # ending again changes nothing (idempotent): a resumed or repeated finish adds no commit
    head = ws.head()
    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=0)).run()
    assert ws.head() == head and block_of(ws) == 64


def test_a_run_that_improves_ends_on_its_last_version_without_an_extra_commit(ws: Workspace) -> None:
    fakes = make_fakes()
    OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=2)).run()
    assert block_of(ws) == 256 and not any(s.startswith(END_PREFIX) for s in subjects(ws))


def _record(n: int, latency: float | None, result: GateResult, *, masked: bool = False) -> IterationRecord:
    r = IterationRecord(version=f"v{n}", masked=masked)
    r.performance.latency_us = latency
    r.quality_gate = QualityGate(result=result)
    return r


def test_best_record_and_gate_previous() -> None:
    records = [
        _record(0, 100.0, GateResult.PASS),
        _record(1, 90.0, GateResult.PASS, masked=True),  # masked: never best
        _record(2, 95.0, GateResult.PASS),
        _record(3, 50.0, GateResult.FAIL),
        _record(4, 99.0, GateResult.PASS),
    ]
    best = best_record(records)
    assert best is not None and best.version == "v2"
    assert gate_previous(records, 5, last_good=4) == 2
    assert gate_previous(records, 1, last_good=0) == 0
    assert gate_previous([], 0, last_good=None) is None


def test_every_hash_the_summary_and_report_show_is_in_plain_git_log(ws: Workspace) -> None:
    import re

    from kernelopt.report import collect, markdown_report

    fakes = make_fakes()
    s = OptimizeLoop(Workspace(ws.root), fakes.collaborators(), LoopRequest(max_iterations=2)).run()
    in_log = ws.repo.git.log("--format=%H").split()

    def shown(h: str | None) -> bool:
        return h is not None and any(full.startswith(h) for full in in_log)

    assert s.versions and all(shown(r.commit) for r in s.versions)
    committed = [
        e.message.rsplit(" ", 1)[-1]
        for e in fakes.sink.events
        if e.message.endswith(tuple("0123456789abcdef")) and "committed" in e.message
    ]
    assert committed and all(shown(h) for h in committed)  # progress lines too
    assert all(shown(o.commit) for o in s.this_run)
    for n in (0, 1, 2):
        rec = ws.memory.read(n)
        # the spec's field names the pre-amend commit: not in git log, resolvable through refs/kernelopt/v<N>
        assert not shown(rec.git_commit_hash)
        assert ws.repo.git.rev_parse(f"refs/kernelopt/v{n}") == rec.git_commit_hash
    text = markdown_report(collect(ws, measured=None))
    hashes = set(re.findall(r"\b[0-9a-f]{7,12}\b", text))
    assert hashes and all(shown(h) for h in hashes), hashes - {h for h in hashes if shown(h)}
