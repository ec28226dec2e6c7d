"""The timed check's open edges (timing21, 2026-12-07): a graph whose calls do not all compute (y1), a graph whose
replay misses part of a correct kernel's work (y2), an output buffer every call returns (y3), the spin of calls timed
back to back (y4). No GPU here: ``torch.cuda``'s graphs are played by the CPU (tests/played_graph.py), and the timers'
own graph code runs on them; the GPU proof is tests/test_gpu_timing21.py (phase ``timing21``)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from kernelopt.harness import timers
from kernelopt.harness.model import BenchSettings, TimingMethod

from .played_graph import PlayedGraph, play_cuda

CALLS = 8  # calls a graph holds: each of the 3 sets read two or three times


def _sets() -> list[list[torch.Tensor]]:
    return [[torch.randn(64, generator=torch.Generator().manual_seed(s))] for s in range(3)]


_KEPT: dict[int, torch.Tensor] = {}


def _caches_while_captured(x: torch.Tensor) -> torch.Tensor:
    """y1's cheat: while a graph is captured, the first call on an input records its work and its tensor is returned
    for every later call on that input (by its pointer), which records nothing."""
    if not torch.cuda.is_current_stream_capturing():
        return x * 2
    if x.data_ptr() not in _KEPT:
        _KEPT[x.data_ptr()] = x * 2
    return _KEPT[x.data_ptr()]


_BUFFER: dict[str, torch.Tensor] = {}


def _one_buffer(x: torch.Tensor) -> torch.Tensor:
    """An honest kernel that writes every call's result into the one output buffer it keeps."""
    out = _BUFFER.setdefault("out", torch.empty_like(x))
    torch.mul(x, 2, out=out)
    return out


GRAPHS = {  # the kernel, the method it is timed by, the graphs captured
    "a cheat that keeps its result while captured": (_caches_while_captured, TimingMethod.CUDA_BATCH, 2),
    "an honest kernel with one output buffer": (_one_buffer, TimingMethod.CUDA_GRAPH, 2),
    "an honest kernel with an output a call": (lambda x: x * 2, TimingMethod.CUDA_GRAPH, 1),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_y1_a_graph_whose_calls_return_an_earlier_call_s_output_unmade_is_not_the_timing(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """y1: ``timers._prepare`` on a "cuda" device the CPU plays. The cheat records one call a set and returns its tensor
    for the others: every output right after a replay, so no check of the outputs tells, and the graph was timed as
    8 calls where it holds 3 (CUDA_GRAPH before the fix). Now a second graph of the same calls, each set given other
    values at each visit, shows call 3 returning call 0's result unmade: timed back to back, said in a warning. An
    honest kernel writing one buffer at each call keeps its graph (a second graph checked it); one returning a new
    output a call needs no second graph. The sets' values are as built after."""
    kernel, method, graphs = GRAPHS[name]
    _KEPT.clear()
    play_cuda(monkeypatch, CALLS)
    sets = _sets()
    built = [s[0].clone() for s in sets]
    sampler = timers._prepare(kernel, sets, "cuda", BenchSettings(), None)
    assert sampler.method is method and len(PlayedGraph.made) == graphs, sampler.warnings
    assert all(torch.equal(s[0], b) for s, b in zip(sets, built, strict=True))
    if method is TimingMethod.CUDA_BATCH:
        assert sampler.warnings == [
            "call 3 of the CUDA graph returned call 0's output as call 0 left it, where its own inputs held other "
            "values and a call on them computes another output: a replay does fewer calls than it is timed as (a "
            "kernel that keeps its result while a graph is captured, say); timing back-to-back launches, which "
            "includes launch overhead"
        ]
        return
    assert not sampler.warnings and sampler.probe is not None
    assert all(torch.equal(out, sets[k][0] * 2) for k, out in sampler.probe())


def test_y1_reuses_pairs_each_call_with_the_last_earlier_call_holding_its_storage() -> None:
    """Which calls of a graph return storage an earlier one returned: a view of it counts, an empty tensor does not."""
    a, b, none = torch.zeros(4), torch.zeros(4), torch.zeros(0)
    outs: list[Any] = [a, b, (a[1:], none), none, b.view(2, 2), a]
    assert timers.reuses(outs) == [(0, 2), (1, 4), (2, 5)]
