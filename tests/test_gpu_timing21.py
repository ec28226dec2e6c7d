"""The timed check's open edges on an NVIDIA GPU (timing21, 2026-12-07; phase ``timing21``, scripts/gpu_timing21.sh).

Each test prints a "timing21 yN" line (tests.txt keeps them) with what the harness chose and measured. The CPU tests of
the same rules, on graphs the CPU plays, are tests/test_timing21_cases.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from .bench_job import bench_job

N = 1 << 16  # 256 KiB a tensor: a kernel of a few microseconds, timed by a CUDA graph (under graph_below_us)


def _sets(count: int) -> list[list[Any]]:
    import torch

    gen = torch.Generator(device="cuda").manual_seed(0)
    return [[torch.randn(N, device="cuda", generator=gen)] for _ in range(count)]


def sampled(kernels: dict[str, Any], tag: str) -> dict[str, Any]:
    """Each kernel's sampler on four input sets of ``N`` (the harness's own ``make_sampler``, the L2 flushed), after
    three warm-up calls, its median of 20 samples printed after ``tag``; the sets' values are as built after."""
    import torch

    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings

    sets = _sets(4)
    built = [s[0].clone() for s in sets]
    said = {}
    for name, fn in kernels.items():
        for k in range(3):
            fn(*sets[k % len(sets)])
        torch.cuda.synchronize()
        sampler = timers.make_sampler(fn, sets, "cuda", BenchSettings(), timers.L2Flusher("cuda"))
        samples = sorted(sampler.sample() for _ in range(20))
        said[name] = sampler
        print(
            f"{tag} {name}: {sampler.method.value}, {sampler.launches} calls a sample over "
            f"{sampler.input_sets} sets, median {samples[10]:.3f} us a call, warnings {sampler.warnings}"
        )
    assert all(torch.equal(s[0], b) for s, b in zip(sets, built, strict=True))
    return said


@pytest.mark.gpu
@pytest.mark.timeout(120)
def test_on_cuda_a_kernel_that_keeps_its_result_while_captured_is_timed_back_to_back() -> None:
    """y1 on the GPU: a kernel that, while a stream captures, records its first call on each input set and returns that
    tensor for every later call on it (a replay of one call a set, timed as the graph's n) is timed back to back, the
    warning saying why (main's code before timing21 kept its graph: CUDA_GRAPH, and its figure n / sets of the truth's).
    An honest kernel writing one output buffer at every call keeps its graph, and one returning a new output a call too.
    """
    import torch

    from kernelopt.harness.model import TimingMethod

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

    said = sampled({"cheat": cheat, "one buffer": one_buffer, "honest": lambda x: torch.sin(x) * 2.0}, "timing21 y1")
    assert said["cheat"].method is TimingMethod.CUDA_BATCH, said["cheat"].warnings
    assert "a replay does fewer calls than it is timed as" in said["cheat"].warnings[0]
    assert said["one buffer"].method is TimingMethod.CUDA_GRAPH, said["one buffer"].warnings
    assert said["honest"].method is TimingMethod.CUDA_GRAPH, said["honest"].warnings


#: A correct add as a CUDA extension whose first step, a copy of y, is launched with no stream (the legacy default
#: stream, which a capture on torch's stream does not record) and whose second, ``t + x``, is torch's (captured).
CUDA_PARTLY = '''import torch
from torch.utils.cpp_extension import load_inline

_cuda = r"""
__global__ void copy_kernel(const float* y, float* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = y[i];
}
torch::Tensor legacy_copy(torch::Tensor y) {
  auto t = torch::empty_like(y);
  int n = y.numel();
  copy_kernel<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), t.data_ptr<float>(), n);
  return t;
}
"""
_mod = load_inline(name="timing21_legacy_copy", cpp_sources="torch::Tensor legacy_copy(torch::Tensor y);",
                   cuda_sources=_cuda, functions=["legacy_copy"])


def run(x, y):
    return _mod.legacy_copy(y) + x
'''

ADD_REFERENCE = f"""import torch

SHAPES = [{{"n": {N}}}]


def get_inputs(n={N}, device="cuda"):
    return [torch.randn(n, device=device), torch.randn(n, device=device)]


def reference(x, y):
    return x + y
"""


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_a_correct_extension_partly_on_the_legacy_stream_is_timed_back_to_back(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """y2 on the GPU: a correct add whose copy of y runs on the legacy default stream (a capture does not record it)
    and whose ``+ x`` is captured: a replay changes its output (so ``replay_stale`` keeps the graph) but from the
    capture's y, and the timed check failed it as TimedMismatch on main's code before timing21. Now the case is timed
    again with its calls back to back, the warning says why, and it passes."""
    from kernelopt.harness.model import TimingMethod

    res = bench_job(
        tmp_path, monkeypatch, ADD_REFERENCE, CUDA_PARTLY, device="cuda", case_timeout_s=120.0, seconds_per_case=0.2
    )
    timing = res.timings[0].versions[-1] if res.timings else None
    print(
        f"timing21 y2: failure {res.failure and res.failure.message}; "
        f"{timing and timing.method.value}, warnings {timing and timing.warnings}"
    )
    assert res.failure is None, res.failure
    assert timing is not None and timing.method is TimingMethod.CUDA_BATCH, timing
    assert any("part of the kernel's work runs outside the captured stream" in w for w in timing.warnings)


@pytest.mark.gpu
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "name", ["an honest kernel with one output buffer", "a buffer every other captured call writes wrong"]
)
def test_on_cuda_every_call_s_output_of_a_graph_whose_calls_share_one_buffer_is_checked(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """y3 on the GPU, the gate's timing in process: a kernel returning one buffer for every call, whose captured calls
    write x alone there every other call (the last right), passed by its graph on main's code before timing21 (the
    buffer checked once); now every call's output is checked, and its calls are timed back to back. An honest kernel
    writing one buffer keeps its graph and passes."""

    from kernelopt.harness import timers

    from .test_timing21_cases import BUFFERS

    count = timers._calls_per_sample  # an even count of calls a graph: its last call writes the right result
    monkeypatch.setattr(timers, "_calls_per_sample", lambda *a: max(2, count(*a) // 2 * 2))
    kernel, method = BUFFERS[name]
    res = bench_job(
        tmp_path, monkeypatch, ADD_REFERENCE, kernel, device="cuda", case_timeout_s=120.0, seconds_per_case=0.2
    )
    timing = res.timings[0].versions[-1] if res.timings else None
    print(
        f"timing21 y3 {name}: failure {res.failure and res.failure.message}; {timing and timing.method.value}, "
        f"{timing and timing.launches_per_sample} calls a sample over {timing and timing.input_sets} sets, "
        f"warnings {timing and timing.warnings}"
    )
    assert res.failure is None, res.failure
    assert timing is not None and timing.method is method, timing


@pytest.mark.gpu
@pytest.mark.timeout(120)
def test_on_cuda_calls_timed_back_to_back_wait_behind_a_spin_that_covers_their_host_work() -> None:
    """y4 on the GPU: a wrapper with 50 us of host work before a kernel of a few microseconds, timed by calls back to
    back (graphs off). Its sampler's spin covers the host's time to queue a sample's calls (twice it, at most 50 ms)
    and says so in ``Sampler.timing``; its samples read the GPU's time, where the same calls behind main's 100 us spin
    read the host's pace (printed side by side)."""
    import time

    import torch

    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings, TimingMethod

    def wrapper(x: Any) -> Any:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 50e-6:  # a launch wrapper's own host work
            pass
        return torch.sin(x)

    sets = _sets(4)
    for k in range(3):
        wrapper(*sets[k % len(sets)])
    torch.cuda.synchronize()
    flusher = timers.L2Flusher("cuda")
    sampler = timers.make_sampler(wrapper, sets, "cuda", BenchSettings(cuda_graphs=False), flusher)
    n = sampler.launches
    short = timers._gpu_take(timers._rotating(wrapper, sets, n), n, flush=flusher, spin_us=timers.SPIN_US)
    mine, main = [], []
    for _ in range(15):
        mine.append(sampler.sample())
        main.append(short())
    mine.sort()
    main.sort()
    print(
        f"timing21 y4: {sampler.timing}; {n} calls a sample; median {mine[7]:.2f} us a call behind its spin, "
        f"{main[7]:.2f} us behind 100 us (main's)"
    )
    assert sampler.method is TimingMethod.CUDA_BATCH and sampler.spin_us is not None
    assert sampler.spin_us > timers.SPIN_US and sampler.timing.startswith("cuda_batch, behind a ")
    assert mine[7] < main[7] / 3, (mine[7], main[7])
