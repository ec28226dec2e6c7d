"""The timed output's check (a14) on a CUDA graph, wrong both ways on the H100 (timedgpu20, 2026-12-06).

A correct CUDA extension failed it (its kernel, launched on the legacy default stream, was never captured: the graph
replayed nothing and its output kept the capture's inputs), and the a14 cheat passed it at 59x over eager (its results
cached before the capture were never replayed; only the last call's output, captured, was checked). No GPU here: the
graph is played by the CPU (:func:`_graph_on_the_cpu`), the rest is the worker's own code, in this process.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch

from kernelopt.harness import timers
from kernelopt.harness.model import BenchSettings, TimingMethod, WorkerResult

from .bench_job import bench_job, failed_or_timed
from .conftest import DATA
from .test_agents19_cases import SEEDED_ADD, TIMED_CHEAT

LOOP_ADD = (DATA / "loop" / "reference.py").read_text()  # get_inputs takes no seed, as newuser16's add_reference
HONEST = "def run(x, y):\n    return x + y\n"
SETS = 8  # the rotation's sets: the estimate's five calls fill the cheat's cache for sets 0-4 before the capture
CALLS = 2 * SETS  # calls a replay: the last one reads set 7, whose output the capture made


def _graph_on_the_cpu(captured: bool) -> Callable[..., timers.Sampler]:
    """``timers._prepare`` as it is on a GPU for a short kernel, its graph played by the CPU: the estimate's calls,
    then :data:`CALLS` calls "captured" through the timers over the sets; a replay recomputes (``x + y``, the add a
    capture recorded) the outputs the capture made, never one a call returned before it (a cache filled by the
    estimate's calls), and none at all where ``captured`` is False (a kernel on the legacy default stream, which a
    capture on a non-blocking stream does not record). Then the harness's own rule (:func:`timers.replay_stale`)
    keeps the graph or falls back to calls back to back (here the CPU's sampler), and the graph's probe is the
    harness's (:func:`timers._graph_probe`)."""

    def prepare(fn: Callable[..., Any], sets: list[list[Any]], device: str, settings: BenchSettings, _flusher: Any):
        before: list[Any] = []
        timers.call_times_us(lambda *a: before.append(fn(*a)), sets, device)  # the estimate, from the timers
        outs: list[Any] = []
        timers._rotating(lambda *a: outs.append(fn(*a)), sets, CALLS)()  # the capture, from the timers
        made = [o for o in outs if captured and not any(o is b for b in before)]

        def replay() -> None:
            for k, out in enumerate(outs):
                if any(out is m for m in made):
                    torch.add(*sets[k % len(sets)], out=out)

        stale = timers.replay_stale(replay, fn, sets, outs, device)
        if stale is not None:
            sampler = timers._cpu_sampler(fn, sets, device, settings)
            sampler.warnings.append(stale)
            return sampler
        take = timers._cpu_take(replay, CALLS)
        graph = timers.Sampler(TimingMethod.CUDA_GRAPH, CALLS, len(sets), False, take, 1.0, keep=[outs])
        graph.probe, graph.probe_sets = timers._graph_probe(take, outs, len(sets)), tuple(range(len(sets)))
        return graph

    return prepare


def _bench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: str, kernel: str, captured: bool
) -> WorkerResult:
    monkeypatch.setattr(timers, "rotation_count", lambda *_: SETS)
    monkeypatch.setattr(timers, "_prepare", _graph_on_the_cpu(captured))
    return bench_job(tmp_path, monkeypatch, reference, kernel)


CASES = {  # reference.py, kernel.py, captured, the failure's start (None: it passes) and the method it is timed by
    "the a14 cheat, a seeded get_inputs": (SEEDED_ADD, TIMED_CHEAT, True, "TimedMismatch: case 0 (n=4096)", None),
    "the a14 cheat, no seed": (LOOP_ADD, TIMED_CHEAT, True, "TimedMismatch: case 0 (n=4096)", None),
    "an honest add the capture misses": (LOOP_ADD, HONEST, False, None, TimingMethod.CPU_PERF_COUNTER),
    "an honest add captured": (LOOP_ADD, HONEST, True, None, TimingMethod.CUDA_GRAPH),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_graph_s_timed_output_is_every_call_s_and_a_graph_that_misses_the_kernel_does_not_time_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """timedgpu20 on a graph played by the CPU, over 8 input sets (loop's get_inputs takes no seed: sets 1+ are set
    0's rows permuted). The a14 cheat, whose outputs for sets 0-4 were cached before the capture, fails as
    TimedMismatch on every output's check (its last call's, captured, passed alone: PASS before the fix). An honest
    add whose work the capture does not record (newuser16's CUDA extension) is timed by calls back to back, the
    graph's stale replay said in a warning, and passes (before: TimedMismatch, "the timed path's output differed");
    captured, it is timed by the graph and passes."""
    reference, kernel, captured, failed, method = CASES[name]
    warnings = failed_or_timed(_bench(tmp_path, monkeypatch, reference, kernel, captured), failed, method)
    if warnings is None:
        return
    stale = [w for w in warnings if "replay left call 15's output as it was" in w]
    assert bool(stale) is (method is TimingMethod.CPU_PERF_COUNTER), warnings


ONE_SET = {  # the kernel, whether the graph's replay recomputes its output, whether the replay is said stale
    "a sound graph": (lambda x: x * 2, True, False),
    "a graph the kernel's work missed": (lambda x: x * 2, False, True),
    "a sound graph whose output the permutation keeps (a sum over rows)": (lambda x: x.sum(0), True, False),
    "a kernel whose output the inputs do not set, never captured": (lambda x: torch.ones(3), False, False),
    "a sound graph of a nondeterministic kernel on integers": (None, True, False),
    "a sound graph whose output is a column (a strided view)": (lambda x: (x * 2)[:, 0], True, False),
    "a graph the kernel's work missed, its output a column": (lambda x: (x * 2)[:, 0], False, True),
}


@pytest.mark.parametrize("name", sorted(ONE_SET))
def test_one_input_set_s_replay_is_said_stale_only_where_a_call_computes_another_output(name: str) -> None:
    """:func:`timers.replay_stale` with a single input set (inputs too large to rotate, the common case at 256 MB and
    up), where the set's rows are permuted for the replay (review20 r3): a sound graph is kept (no figure of it
    changes), also where its output is the same for the permuted rows (a sum over them, integers: bit for bit alike),
    and where no row is permuted (integers alone) though the kernel's output varies from call to call;
    a replay that left the output as it was while a call computes another is said stale; an output the inputs do not
    set is no sign. The set's values are put back either way: the samples read the set they were built with."""
    kernel, recomputes, stale = ONE_SET[name]
    x = torch.arange(24, dtype=torch.float32).reshape(8, 3)
    if kernel is None:  # integers alone: no row permuted, the set's values unchanged; the replay reproduced the
        # capture's output, the next call did not (float atomics' order): said stale on timedgpu20's rule
        x, drawn = x.long(), iter([0.0, 0.0, 0.5])
        kernel = lambda x: x.sum(0) + next(drawn)  # noqa: E731
    sets = [[x]]
    built = x.clone()
    outs = [kernel(x)]

    def replay() -> None:
        if recomputes:
            outs[0].copy_(kernel(x))

    said = timers.replay_stale(replay, kernel, sets, outs, "cpu")
    assert (said is not None) is stale, said
    assert said is None or "replay left call 0's output as it was" in said
    assert torch.equal(x, built)
