"""The timed check's edges on an NVIDIA GPU (verdicts22, 2026-12-07; phase ``verdicts22``, scripts/gpu_verdicts22.sh).

Each test prints a "verdicts22 xN" line (tests.txt keeps them) with what the harness chose and measured. The CPU tests of
the same rules, on graphs the CPU plays, are tests/test_verdicts22_cases.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from .test_gpu_timing21 import N, _sets, sampled  # 256 KiB a tensor: a kernel of a few microseconds, graphed


@pytest.mark.gpu
@pytest.mark.timeout(120)
def test_on_cuda_a_kernel_that_copies_an_earlier_call_s_result_while_captured_is_timed_back_to_back() -> None:
    """x1 on the GPU: a kernel that, while a stream captures, computes its first call on each input set and returns a
    new copy of that result (``kept.clone()``) for every later call on it: every output its own storage and right after
    a replay (main kept its graph: CUDA_GRAPH, its figure a copy's). Now it is timed back to back, the warning saying
    why, its median a call printed beside the graph's of the honest kernel; the honest kernel keeps its graph."""
    import torch

    from kernelopt.harness.model import TimingMethod

    kept: dict[int, Any] = {}

    def copies(x: Any) -> Any:
        if not torch.cuda.is_current_stream_capturing():
            return torch.sin(x).mul(2.0).exp()
        if x.data_ptr() not in kept:
            kept[x.data_ptr()] = torch.sin(x).mul(2.0).exp()
            return kept[x.data_ptr()]
        return kept[x.data_ptr()].clone()

    said = sampled({"copies": copies, "honest": lambda x: torch.sin(x).mul(2.0).exp()}, "verdicts22 x1")
    assert said["copies"].method is TimingMethod.CUDA_BATCH, said["copies"].warnings
    assert "a replay does fewer calls than it is timed as" in said["copies"].warnings[0]
    assert said["honest"].method is TimingMethod.CUDA_GRAPH, said["honest"].warnings


@pytest.mark.gpu
@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["one output buffer", "an output a call"])
def test_on_cuda_the_graphs_that_check_a_timed_one_hold_no_memory_while_it_is_timed(name: str) -> None:
    """x2 on the GPU: the device memory ``_prepare`` leaves allocated is the timed graph's alone (its outputs, at most the
    calls' n outputs), not the check's copies of every call (main kept them, and the check's copies of the sets, with a
    one-buffer kernel's sampler: n x 256 KiB more); after the probe, which captures its own graph of every call where
    calls share storage, nothing more stays allocated. Each figure printed."""
    import torch

    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings, TimingMethod

    buffer = torch.empty(N, device="cuda")

    def one_buffer(x: Any) -> Any:
        torch.mul(torch.sin(x), 2.0, out=buffer)
        return buffer

    fn = one_buffer if name == "one output buffer" else (lambda x: torch.sin(x) * 2.0)
    sets = _sets(4)
    for k in range(3):
        fn(*sets[k % len(sets)])
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    sampler = timers._prepare(fn, sets, "cuda", BenchSettings(), None)
    torch.cuda.synchronize()
    held = torch.cuda.memory_allocated() - before
    outputs = N * 4 * (1 if name == "one output buffer" else sampler.launches)
    assert sampler.probe is not None
    got = sampler.probe()
    del got
    torch.cuda.synchronize()
    after_probe = torch.cuda.memory_allocated() - before
    print(
        f"verdicts22 x2 {name}: {sampler.method.value}, {sampler.launches} calls; allocated after _prepare "
        f"{held / 2**20:.1f} MiB (the timed graph's outputs {outputs / 2**20:.1f} MiB), after the probe "
        f"{after_probe / 2**20:.1f} MiB"
    )
    assert sampler.method is TimingMethod.CUDA_GRAPH, sampler.warnings
    slack = 4 * 2**20  # the graph's own workspace and the allocator's rounding (our bound)
    assert held <= outputs + slack and after_probe <= outputs + slack


@pytest.mark.gpu
@pytest.mark.timeout(240)
def test_on_cuda_a_graph_that_missed_part_of_the_work_re_makes_only_its_own_sampler(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """x7 on the GPU: timing21's legacy-stream extension (its copy not captured, its ``+ x`` captured) beside the timed
    reference: the kernel's graph misses part of its work, so its sampler is made again without a graph while the
    reference's graph sampler is kept (warmed once; main made both again), and the case passes, the kernel
    ``cuda_batch``, the reference ``cuda_graph``, their samples taken together."""
    from kernelopt.harness.model import REFERENCE_LABEL, TimingMethod

    from .bench_job import bench_job
    from .test_gpu_timing21 import ADD_REFERENCE, CUDA_PARTLY
    from .test_verdicts22_cases import counted_warmups

    warmed = counted_warmups(monkeypatch)
    res = bench_job(
        tmp_path,
        monkeypatch,
        ADD_REFERENCE,
        CUDA_PARTLY,
        device="cuda",
        case_timeout_s=120.0,
        seconds_per_case=0.2,
        time_reference=True,
    )
    versions = {v.label: v for v in res.timings[0].versions} if res.timings else {}
    counts = sorted(warmed.count(f) for f in set(warmed))
    print(
        f"verdicts22 x7: failure {res.failure and res.failure.message}; warm-ups {counts}; "
        + "; ".join(f"{k} {v.method.value} {len(v.samples_us)} samples" for k, v in versions.items())
    )
    assert res.failure is None, res.failure
    assert versions["t"].method is TimingMethod.CUDA_BATCH, versions["t"]
    assert versions[REFERENCE_LABEL].method is TimingMethod.CUDA_GRAPH, versions[REFERENCE_LABEL]
    assert counts == [1, 2], warmed
