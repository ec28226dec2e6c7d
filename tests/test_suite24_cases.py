"""suite24: an autotune list's pick in Triton's interpreter is the first config that runs, whatever the machine's load
(docs/faults.md s30). A timed pick made what ``tune`` writes on the CPU follow the load (breaker24's CI failure: the
list's own pick was the GPU's, so nothing was written) and ran every config of the list at every key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

SLOW_FIRST = """
import triton
import triton.language as tl

BENCHED = []
LIST = {blocks}


def do_bench(kernel_call, quantiles=None):
    BENCHED.append(1)
    kernel_call()
    return [1.0 / len(BENCHED)] * 3  # a later config would always time faster


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}) for b in LIST],
    key=["N"],
    do_bench=do_bench,
)
@triton.jit
def add_one(x_ptr, N, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 64)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < N) + 1.0, mask=offs < N)
"""


@pytest.mark.timeout(60)
def test_the_interpreter_s_autotuner_picks_the_first_config_that_runs_at_each_key(tmp_path: Path) -> None:
    """At each new key the list's first config that runs is the pick and the configs after it are not run: the
    kernel's own benchmark times each later config faster, and the pick stays the first; a config the kernel's
    ``tl.static_assert`` refuses is skipped (a list led by BLOCK=128 starts at the next)."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    path = tmp_path / "slow_first.py"
    path.write_text(SLOW_FIRST.replace("{blocks}", "[64, 16, 32, 128]"))
    refused = tmp_path / "refused_first.py"
    refused.write_text(SLOW_FIRST.replace("{blocks}", "[128, 64, 16]"))
    with triton_interpreted():
        module = load_fresh(path, "_suite24_slow_first")
        # the benchmark runs on the call's own tensor (no reset_to_zero): 1 + each config run there, then the launch
        for n, calls, value in ((100, 1, 2.0), (300, 2, 2.0), (100, 2, 1.0)):  # N=100's key is cached the 2nd time
            x = torch.zeros(n)
            module.add_one[_grid(n)](x, n)
            assert torch.equal(x, torch.full((n,), value)) and len(module.BENCHED) == calls
            assert module.add_one.best_config.kwargs == {"BLOCK": 64}
        led = load_fresh(refused, "_suite24_refused_first")
        x = torch.zeros(50)
        led.add_one[_grid(50)](x, 50)
    assert led.add_one.best_config.kwargs == {"BLOCK": 64} and torch.equal(x, torch.full((50,), 2.0))
    assert len(led.BENCHED) == 2  # BLOCK=128 tried and refused, BLOCK=64 run, BLOCK=16 never


def _grid(n: int) -> Callable[[dict[str, int]], tuple[int]]:
    """A program per ``BLOCK`` of ``n`` elements."""
    return lambda meta: (-(-n // meta["BLOCK"]),)
