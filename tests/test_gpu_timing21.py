"""The timed check's open edges on an NVIDIA GPU (timing21, 2026-12-07; phase ``timing21``, scripts/gpu_timing21.sh).

Each test prints a "timing21 yN" line (tests.txt keeps them) with what the harness chose and measured. The CPU tests of
the same rules, on graphs the CPU plays, are tests/test_timing21_cases.py.
"""

from __future__ import annotations

from typing import Any

import pytest

N = 1 << 16  # 256 KiB a tensor: a kernel of a few microseconds, timed by a CUDA graph (under graph_below_us)


def _sets(count: int) -> list[list[Any]]:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    return [[torch.randn(N, device="cuda", generator=gen)] for _ in range(count)]


@pytest.mark.gpu
@pytest.mark.timeout(120)
def test_on_cuda_a_kernel_that_keeps_its_result_while_captured_is_timed_back_to_back() -> None:
    """y1 on the GPU: a kernel that, while a stream captures, records its first call on each input set and returns that
    tensor for every later call on it (a replay of one call a set, timed as the graph's n) is timed back to back, the
    warning saying why (main's code before timing21 kept its graph: CUDA_GRAPH, and its figure n / sets of the truth's).
    An honest kernel writing one output buffer at every call keeps its graph, and one returning a new output a call too.
    """
    import torch

    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings, TimingMethod

    kept: dict[int, Any] = {}

    def cheat(x: Any) -> Any:
        if not torch.cuda.is_current_stream_capturing():
            return torch.sin(x) * 2.0
        if x.data_ptr() not in kept:
            kept[x.data_ptr()] = torch.sin(x) * 2.0
        return kept[x.data_ptr()]

    buffer = torch.empty(N, device="cuda")

    def one_buffer(x: Any) -> Any:
        torch.mul(torch.sin(x), 2.0, out=buffer)
        return buffer

    sets = _sets(4)
    built = [s[0].clone() for s in sets]
    said = {}
    for name, fn in (("cheat", cheat), ("one buffer", one_buffer), ("honest", lambda x: torch.sin(x) * 2.0)):
        for k in range(3):
            fn(*sets[k % len(sets)])
        torch.cuda.synchronize()
        sampler = timers.make_sampler(fn, sets, "cuda", BenchSettings(), timers.L2Flusher("cuda"))
        samples = sorted(sampler.sample() for _ in range(20))
        said[name] = sampler
        print(
            f"timing21 y1 {name}: {sampler.method.value}, {sampler.launches} calls a sample over "
            f"{sampler.input_sets} sets, median {samples[10]:.3f} us a call, warnings {sampler.warnings}"
        )
    assert all(torch.equal(s[0], b) for s, b in zip(sets, built, strict=True))
    assert said["cheat"].method is TimingMethod.CUDA_BATCH, said["cheat"].warnings
    assert "a replay does fewer calls than it is timed as" in said["cheat"].warnings[0]
    assert said["one buffer"].method is TimingMethod.CUDA_GRAPH, said["one buffer"].warnings
    assert said["honest"].method is TimingMethod.CUDA_GRAPH, said["honest"].warnings
