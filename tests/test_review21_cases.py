"""review21: this session's diff (since 89ac948a) reviewed; each finding's test (docs/faults.md, review21)."""

from __future__ import annotations

from pathlib import Path

import pytest

# ------------------------------------------------- r13: the code net's cap said as what it is


def test_r13_the_code_net_s_cap_is_said_as_its_own_not_a_session_s_share() -> None:
    """b43's net over a rewrite (``code_net``) built its cap as a session's, ``NetCap(seconds=120, session_s=120)``:
    a size the cap left was said "past the net's time cap of 120 s (the larger of 30 s and 25% of the session's 120 s)",
    arithmetic that gives 30, of a session the gate never ran. Its cap is said as the rewrite's own now, in the line the
    gate's note carries; a session's cap keeps its words."""
    from kernelopt.harness.sizekeys import KeyReading, KeyRole
    from kernelopt.tuning.budget import ManualClock
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.code_net import CODE_NET_S, code_net_cap
    from kernelopt.tuning.net import EntryTimes, NetCap, cast, derived_sizes
    from kernelopt.tuning.problem import ProblemShape

    roles = {k: KeyReading(KeyRole.SIZE) for k in ("n_rows", "n_cols")}
    sizes = derived_sizes([ProblemShape(kwargs={"n_rows": 64, "n_cols": 512})], (), roles, residue=True)
    clock = ManualClock()

    def check_at(source: str, shape: ProblemShape, limit_s: float | None = None) -> tuple[Outcome, str | None]:
        clock.advance(50.0)  # each request a long one: the cap leaves sizes unchecked
        return Outcome.OK, None

    times = EntryTimes(check_s=50.0, kernel_s=0.001, count=1)
    verdict = cast(sizes, "original", "written", check_at, cap=code_net_cap(clock()), entries=times, clock=clock)
    line = verdict.line()
    assert verdict.failed is None and verdict.for_time, line
    assert f"past the net's time cap of {CODE_NET_S:.0f} s (the net's cap over a rewritten kernel)" in line, line
    assert "the larger of" not in line and "the session's" not in line, line
    session = NetCap.of(10.0, 0.0).words()
    assert session == "past the net's time cap of 30 s (the larger of 30 s and 25% of the session's 10 s)", session


# ------------------------------------------------- r15: a literal's table reads only sizes bound by its line

_SCALE = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


def run(x):
    y = torch.empty_like(x)
{lines}
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y
"""


def test_r15_a_literal_s_table_reads_only_the_sizes_bound_before_its_line() -> None:
    """l9 holds a launch literal (``BLOCK = 1024``) by a per-bucket table written right after its line, over the sizes
    read beside it; a size bound after the literal (``n = x.numel()`` on the next line) was offered too, and the table
    read ``n`` before it was bound: every call raised UnboundLocalError (the entries' check refused it; before l9 the
    literal's one value was written). Such a size is no longer offered: the literal is a plain knob there, and
    ``write_table`` says so; with ``n`` bound first, the table is written over it as l9 wrote it."""
    from kernelopt.tunables import TunableError, discover_source, write_table
    from kernelopt.tunables.model import Bucket, TunedTable

    rows = TunedTable(size="n", buckets=[Bucket(upto=4096, values={"BLOCK": 2048})])
    after = _SCALE.format(lines="    BLOCK = 1024\n    n = x.numel()")
    block = next(k for k in discover_source(after, gpu="H100") if k.name == "BLOCK")
    assert (block.size_names, block.tuned_at) == ([], None)
    with pytest.raises(TunableError, match="a tuned table needs a setting computed from the problem"):
        write_table(after, rows)
    before = _SCALE.format(lines="    n = x.numel()\n    BLOCK = 1024")
    block = next(k for k in discover_source(before, gpu="H100") if k.name == "BLOCK")
    assert block.size_names == ["n"]
    written = write_table(before, rows).new_source
    assert "    n = x.numel()\n    BLOCK = 1024\n    if n <= 4096:  # kernelopt: tuned\n" in written, written


# ------------------------------------------------- r16: an integer output's poison bytes by chance

_INT16_FLIP = """import torch
from torch import nn


class {cls}(nn.Module):
    def forward(self, x):
        return x.flip(0)


def get_inputs():
    # every int16 value four times, in an order of its own: 32639 (bytes 0x7F7F) among them, as in any random one
    g = torch.Generator().manual_seed(0)
    return [torch.arange(-(1 << 15), 1 << 15, dtype=torch.int32).repeat(4)[torch.randperm(1 << 18, generator=g)]
            .to(torch.int16)]


def get_init_inputs():
    return []
"""


def test_r16_an_integer_output_holding_the_poison_bytes_by_chance_is_checked(tmp_path: Path) -> None:
    """b46 took any element of two bytes or more whose bytes are all the workers' poison (0x7F) for memory the
    reference never wrote, the problem's ERROR; in an integer output that pattern is a value (32639 in int16: one
    element in 65536 of a random tensor), and a correct ``x.flip(0)`` of a million random int16 values was refused,
    "holds 14 of 1048576 elements it never wrote" (main at 2d35410b). Such a kernel passes now; an integer output left
    half unwritten, and a float32 one with one element unwritten, are still the reference's."""
    import torch

    from kernelopt.harness.inputs import unwritten_reference_line
    from tests.conftest import check_in_process

    (tmp_path / "reference.py").write_text(_INT16_FLIP.format(cls="Model"))
    (tmp_path / "kernel.py").write_text(_INT16_FLIP.format(cls="ModelNew"))
    assert check_in_process(tmp_path, "v1").failure is None
    half = torch.arange(1 << 12, dtype=torch.int32)
    half[1::2] = 0x7F7F7F7F
    assert "holds 2048 of 4096 elements it never wrote" in (unwritten_reference_line(half) or "")
    one = torch.zeros(1 << 20)
    one.view(torch.int32)[7] = 0x7F7F7F7F
    assert "holds 1 of 1048576 elements" in (unwritten_reference_line(one) or "")


# ------------------------------------------------- r17: bf16's largest value is its poison pattern

_BF16 = """import torch
from torch import nn


class {cls}(nn.Module):
    def forward(self, x, y):
{body}


def get_inputs():
    x = torch.randn(4096).abs().to(torch.bfloat16) + 1
    y = torch.randn(4096).to(torch.bfloat16)
    y[::16] = 0
    return [x, y]


def get_init_inputs():
    return []
"""
_SATURATED = "        return torch.nan_to_num(x / y)"
_HALF = """        out = torch.empty_like(x)
        out.view(torch.int16 if out.element_size() == 2 else torch.int64).fill_(0x7F7F if out.element_size() == 2
                                                                                else 0x7F7F7F7F7F7F7F7F)
        out[::2] = x[::2] / y[::2]  # the odd elements never written, their bytes the workers' poison
        return out"""
#: The same left to the allocator (a worker's fresh host memory holds the poison byte: tests.test_verdicts22_cases's
#: ``poisoned_host``): its pattern written by no run, so a run whose fresh memory holds another byte tells it (x6).
_EMPTY_HALF = """        out = torch.empty_like(x)
        out[::2] = x[::2] / y[::2]  # the odd elements never written
        return out"""


def test_r17_a_bf16_output_at_its_largest_value_is_checked_where_its_float64_run_holds_a_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bf16's largest finite value is bytes 0x7F7F, b46's poison pattern: ``torch.nan_to_num`` of a bf16 division by
    zero (+inf made 3.39e38) was memory "never written", the problem's ERROR, "holds 256 of 4096 elements" (main at
    6662d4f9). The gate's check reads the reference's float64 run too now: a bf16 element is unwritten only where that
    run's is, so the correct kernel passes, and a bf16 reference leaving half its output unwritten is still refused
    (left to the allocator, whose fresh memory holds the poison as a worker's does; verdicts22 x6 tells the pattern
    written in bf16 from memory left by a second run of the reference, so the reference writes none itself here)."""
    from tests.conftest import check_in_process
    from tests.test_verdicts22_cases import poisoned_host

    for name, body, said in (("saturated", _SATURATED, None), ("half", _EMPTY_HALF, "holds 2048 of 4096 elements")):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "reference.py").write_text(_BF16.format(cls="Model", body=body))
        (folder / "kernel.py").write_text(_BF16.format(cls="ModelNew", body=_SATURATED if said else body))
        with poisoned_host(monkeypatch):
            failure = check_in_process(folder, "v1").failure
        if said is None:
            assert failure is None, failure
        else:
            assert failure is not None and failure.error_class == "ReferenceNotWritten", failure
            assert said in failure.message, failure


# ------------------------------------------------- r18: the reference's own NaN is one answer, not the only one


def test_r18_a_stable_softmax_passes_beside_a_reference_whose_fp16_exp_overflowed(tmp_path: Path) -> None:
    """seen21's u27 made the reference's own-dtype NaN the only answer where its float64 run is finite; a reference
    computing ``exp(s) / exp(s).sum()`` in fp16 gives NaN wherever an exp overflowed (inf / inf), and ``torch.softmax``
    itself, the answer every fast softmax computes, failed "output is finite where the reference is NaN or Inf (48 of
    16384 elements ...)" (main at 501efdc2; it passed before u27). The check takes either answer there now: the float64
    run's value, within tolerance, or the own run's NaN reproduced; a kernel wrong there still fails."""
    import shutil

    from tests.conftest import check_in_process

    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "review21" / "fp16_naive_softmax", tmp_path / "a"))
    assert check_in_process(folder, "v1").failure is None
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("dim=-1).to(s.dtype)", "dim=-1).to(s.dtype).flip(-1)"))
    failure = check_in_process(folder, "v1").failure
    assert failure is not None and "differs from the reference beyond tolerance" in failure.message, failure


# ------------------------------------------------- r19: a graph's check that could not run is not a failed capture


def test_r19_a_graph_whose_replay_check_cannot_run_is_said_so_not_a_failed_capture(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """timing21's y1 check (``replay_skips``: a second graph of the calls, their copies) ran inside the first capture's
    ``except RuntimeError``: its own failure (``torch.cuda.OutOfMemoryError`` is one) was said "CUDA graph capture
    failed", of a graph that had captured. It is said as what it is now, and the calls are timed back to back as
    before (a replay not known to do each call's work is not the timing). ``_prepare`` on a played "cuda"."""
    import torch

    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings, TimingMethod

    from .played_graph import play_cuda
    from .test_timing21_cases import CALLS, _one_buffer, _sets

    def no_room(*_args: object, **_kwargs: object) -> None:
        raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 1.00 GiB")

    play_cuda(monkeypatch, CALLS)
    monkeypatch.setattr(timers.Visits, "capture", no_room)
    sampler = timers._prepare(_one_buffer, _sets(), "cuda", BenchSettings(), None)
    assert sampler.method is TimingMethod.CUDA_BATCH, sampler.warnings
    assert sampler.warnings == [
        "the CUDA graph captured, but the check that its replay does each call's work could not run "
        "(OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB); timing back-to-back launches, which "
        "includes launch overhead"
    ], sampler.warnings
