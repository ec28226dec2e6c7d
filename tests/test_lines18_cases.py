"""lines18: three small untrue things a user met (docs/faults.md, "lines18").

Each case is a line kernelopt printed that said what was not so, replayed on the CPU with the user's figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernelopt.tuning.candidate import Outcome, Result
from tests.conftest import load_fresh, triton_interpreted


@pytest.mark.timeout(30)
def test_l1_a_user_s_interpreter_limit_smaller_than_the_run_s_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """newuser15: ``KERNELOPT_INTERPRETER_LIMIT_S=20`` set by the user changed nothing in a ``tune`` (the bench
    workers were given the 60 s candidate limit over it: "past the 60 s this run is given"). The workers now get the
    smaller of the two, and the line a stopped launch says names it."""
    from kernelopt.harness.interpreter import INTERPRETER_LIMIT_ENV, child_limit, programs_problem

    monkeypatch.delenv(INTERPRETER_LIMIT_ENV, raising=False)
    assert child_limit(60.0) == "60"
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "20")
    assert child_limit(60.0) == "20"
    assert child_limit(300.0) == "20"  # the gate's worker: the largest of its limits, the user's smaller
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "100")
    assert child_limit(60.0) == "60"  # a larger value of the user's gives a run no more than its limit
    for bad in ("soon", "-5", "0", ""):
        monkeypatch.setenv(INTERPRETER_LIMIT_ENV, bad)
        assert child_limit(60.0) == "60", bad
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "20")
    assert programs_problem((70000, 1, 1), 10496, 25.0, 12e-6, 60.0) is None  # fits the 60 s: not stopped
    line = programs_problem((70000, 1, 1), 10496, 25.0, 12e-6, float(child_limit(60.0)))
    assert line is not None and "past the 20 s this run is given" in line


@pytest.mark.timeout(30)
def test_l1_both_workers_of_a_cpu_run_are_given_the_limit_through_one_rule() -> None:
    """The bench workers (``tuning.kernel_evaluator``) and the gate's worker (``harness.gate``) each set the variable
    through :func:`child_limit` alone: a literal of either would drop the user's value again."""
    import inspect

    from kernelopt.harness import gate
    from kernelopt.tuning import kernel_evaluator

    for module in (gate, kernel_evaluator):
        text = inspect.getsource(module)
        sets = [line.strip() for line in text.splitlines() if "[INTERPRETER_LIMIT_ENV] =" in line]
        assert sets and all("= child_limit(" in line for line in sets), (module.__name__, sets)


@pytest.mark.timeout(30)
def test_l3_a_verdict_after_an_entry_was_set_aside_says_its_figure_is_the_kept_entry_s() -> None:
    """newuser15: "best BLOCK=4096: 1.371 ms, 134x faster than the current BLOCK=16" after n=1000 was set aside (the
    kernel as written cannot run it) read as every entry's figure. It is n=4096's alone, and the line says so; a
    session that set nothing aside reads as before."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    best = Result(config={"BLOCK": 4096}, outcome=Outcome.OK, latency_us=1371.0, latency_us_by_shape={"n=4096": 1371.0})
    result = SessionResult(
        best_config={"BLOCK": 4096}, best_latency_us=1371.0, current_config={"BLOCK": 16},
        current_latency_us=183714.0, results=[best], retimed=[], evaluations=6, served=0, budget=6, space_size=6,
        wall_s=80.0, stop=StopReason.CANDIDATES, strategy="local",
    )  # fmt: skip
    judged = judge_gain(result)
    line = verdict_line(result, judged, kernel_py="kernel.py", written=True, dry_run=False, set_aside=("n=1000",))
    assert line.startswith(
        "best BLOCK=4096: 1.371 ms at n=4096 (n=1000 set aside), 134x faster than the current BLOCK=16"
    )
    alone = result.model_copy(update={"results": [best.model_copy(update={"latency_us_by_shape": {}})]})
    line = verdict_line(  # a session of one entry keeps no latency by entry (tune's own run, 20:15 UTC): the kept's
        alone,
        judge_gain(alone),
        kernel_py="kernel.py",
        written=True,
        dry_run=False,
        set_aside=("n=1000",),
        kept=("n=4096",),
    )
    assert line.startswith("best BLOCK=4096: 1.371 ms at n=4096 (n=1000 set aside), 134x faster")
    plain = verdict_line(result, judged, kernel_py="kernel.py", written=True, dry_run=False)
    assert plain.startswith("best BLOCK=4096: 1.371 ms, 134x faster") and "aside" not in plain
    two = {"n=4096": 1000.0, "n=8192": 371.0}
    summed = result.model_copy(update={"results": [best.model_copy(update={"latency_us_by_shape": two})]})
    line = verdict_line(
        summed, judge_gain(summed), kernel_py="kernel.py", written=True, dry_run=False, set_aside=("n=1000", "n=7")
    )
    assert line.startswith("best BLOCK=4096: 1.371 ms for its 2 shapes together (n=1000, n=7 set aside), 134x")


#: wrongkernel18's capped grid: a grid-stride sum masked ``offs < n`` over at most 64 programs into 64 partial slots,
#: summed by a second kernel of ``SLOTS`` unmasked loads (the buffer is exactly ``SLOTS`` long).
CAPPED = """import torch
import triton
import triton.language as tl

MAX_PROGRAMS = 64
SLOTS = 64


@triton.jit
def partial_sum_kernel(x_ptr, part_ptr, n, BLOCK: tl.constexpr, SLOTS: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(pid * BLOCK, n, nprog * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(part_ptr + pid % SLOTS, tl.sum(acc, axis=0))


@triton.jit
def finish_kernel(part_ptr, out_ptr, SLOTS: tl.constexpr):
    offs = tl.arange(0, SLOTS)
    parts = tl.load(part_ptr + offs)
    tl.store(out_ptr, tl.sum(parts, axis=0))


def run(x):
    n = x.numel()
    part = torch.zeros(SLOTS, device=x.device, dtype=torch.float32)
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    BLOCK = 128
    grid = (min(triton.cdiv(n, BLOCK), MAX_PROGRAMS),)
    partial_sum_kernel[grid](x, part, n, BLOCK=BLOCK, SLOTS=SLOTS)
    finish_kernel[(1,)](part, out, SLOTS=SLOTS)
    return out
"""

#: wrongkernel18's per-row int8 quantization: a running max of ``tl.abs`` over a loop of blocks masked
#: ``cols < n_cols`` (fill 0.0), then the row quantized and saturated to [-127, 127] over the same blocks.
QUANT = """import torch
import triton
import triton.language as tl


@triton.jit
def row_quant_kernel(x_ptr, q_ptr, s_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    amax = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.maximum(tl.max(amax, axis=0), 1e-8) / 127.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        q = tl.minimum(tl.maximum(x / scale, -127.0), 127.0)
        tl.store(q_ptr + row * stride + cols, q.to(tl.int8), mask=cols < n_cols)
    tl.store(s_ptr + row, scale)


def run(x):
    n_rows, n_cols = x.shape
    q = torch.empty_like(x, dtype=torch.int8)
    s = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    BLOCK = 128
    row_quant_kernel[(n_rows,)](x, q, s, n_cols, x.stride(0), BLOCK=BLOCK)
    return q, s
"""


def _written(old: str, new: str) -> str:
    from kernelopt.tunables.guard import guard_edit

    guarded = guard_edit(old, new)
    assert guarded.new_source == new and not guarded.tests, guarded.note  # written plainly, no guard
    return new


@pytest.mark.timeout(60)
def test_l2_a_grid_stride_sum_masked_on_its_size_beside_an_unmasked_finish_is_written_plainly(tmp_path: Path) -> None:
    """wrongkernel18: ``BLOCK=512`` of the capped grid was guarded ``if n % 512 == 0``, "the grid at line 32 has
    triton.cdiv(n, BLOCK) programs of a kernel without masks": the grid is the masked kernel's; the kernel without
    masks (the finish) is launched on one program. Written plainly now, and right at sizes 512 does not divide (the
    net checks a pick as before); the same sum with its loads unmasked keeps its guard."""
    import torch

    new = _written(CAPPED, CAPPED.replace("BLOCK = 128", "BLOCK = 512"))
    path = tmp_path / "capped.py"
    path.write_text(new)
    with triton_interpreted():
        module = load_fresh(path, "lines18_capped")
        for n in (1, 1000, 5000):
            x = torch.randn(n)
            torch.testing.assert_close(module.run(x)[0], x.sum(), rtol=1e-4, atol=1e-3)
    from kernelopt.tunables.guard import guard_edit

    bare = CAPPED.replace("mask=offs < n, other=0.0", "").replace("tl.load(x_ptr + offs, )", "tl.load(x_ptr + offs)")
    guarded = guard_edit(bare, bare.replace("BLOCK = 128", "BLOCK = 512"))
    # the grid's words or the loop's (wrongkernel30 reads the grid-stride step, nprog * BLOCK, as the block's)
    assert guarded.tests == ("n % 512 == 0",) and "without masks" in (guarded.note or "")


@pytest.mark.timeout(60)
def test_l2_a_running_max_of_abs_over_masked_blocks_is_written_plainly(tmp_path: Path) -> None:
    """wrongkernel18: ``BLOCK=512`` of the int8 quantization was guarded ``if n_cols % 512 == 0``, "steps range(..,
    n_cols, BLOCK) over loads whose masks leave it unchecked", of loads masked ``cols < n_cols``: the fill 0.0
    reaching ``tl.max`` through ``amax = tl.maximum(amax, tl.abs(x))`` was read as data. A lane of 0.0 is no larger
    than any ``|x|``: written plainly, and right at 1000 columns. A running max of the values themselves (a row of
    negatives meets the 0.0) keeps its guard."""
    import torch

    new = _written(QUANT, QUANT.replace("BLOCK = 128", "BLOCK = 512"))
    path = tmp_path / "quant.py"
    path.write_text(new)
    with triton_interpreted():
        module = load_fresh(path, "lines18_quant")
        x = -torch.rand(3, 1000) - 0.5
        q, s = module.run(x)
    scale = x.abs().amax(dim=1) / 127.0
    torch.testing.assert_close(s, scale)
    torch.testing.assert_close(
        q, torch.clamp(torch.round(x / scale[:, None]), -127, 127).to(torch.int8), atol=1, rtol=0
    )
    from kernelopt.tunables.guard import guard_edit

    signed = QUANT.replace("tl.maximum(amax, tl.abs(x))", "tl.maximum(amax, x)")
    signed = signed.replace("tl.zeros((BLOCK,), dtype=tl.float32)", "tl.full((BLOCK,), -1e30, dtype=tl.float32)")
    guarded = guard_edit(signed, signed.replace("BLOCK = 128", "BLOCK = 512"))
    assert guarded.tests == ("n_cols % 512 == 0",), guarded.note
