"""fresh26's cases: a fresh clone taking issue 32's examples, written anew, through tunables, tune, optimize, batch
and the MCP server on the CPU (docs/faults.md, "A fresh clone, twenty-sixth round")."""

from __future__ import annotations

from pathlib import Path

import pytest

CLAMP_ELIF = """
import torch
import triton
import triton.language as tl


@triton.jit
def _clamp(x_ptr, y_ptr, n, lo, hi, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, lo), hi), mask=m)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    BLOCK_SIZE = 256  # TODO: tune on target board
    if n >= 1 << 20:
        BLOCK_SIZE = 4096
    elif n < 256:
        BLOCK_SIZE = triton.next_power_of_2(n)
    _clamp[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, -0.5, 0.75, BLOCK_SIZE=BLOCK_SIZE)
    return y
"""

CLAMP_REFERENCE = """
import torch

SHAPES = [{"n": 200}, {"n": 6000}]


def get_inputs(n=200, device="cpu"):
    return [torch.randn(n, device=device)]


def reference(x):
    return x.clamp(-0.5, 0.75)
"""


@pytest.mark.timeout(120)
def test_f40_an_override_that_gives_the_literal_s_own_value_still_replaces_it(tmp_path: Path) -> None:
    """``BLOCK_SIZE = 256`` then ``elif n < 256: BLOCK_SIZE = triton.next_power_of_2(n)``: at n=200 the override
    runs and gives 256, the literal's own value, so no candidate changes the kernel there. Told apart by value alone,
    the entry was timed: its noise ranked the candidates and refused a 3.4x faster block ("BLOCK_SIZE=8192 is 28.0 %
    slower than the current configuration on n=200"). The run now records which of kernel.py's lines it executed,
    and an entry where an override ran is checked and not timed."""
    from kernelopt.tuning.folder import TuneRequest, idle_line, prepare_folder

    folder = tmp_path / "clamp_elif"
    folder.mkdir()
    (folder / "kernel.py").write_text(CLAMP_ELIF)
    (folder / "reference.py").write_text(CLAMP_REFERENCE)
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    (block,) = [t for t in prepared.tunables if t.name == "BLOCK_SIZE"]
    assert block.overridden and block.override_lines == [20, 22]
    assert prepared.evaluation is not None
    ran = {e.shape["n"]: set(e.ran_lines) for e in prepared.evaluation.shape_sizes}
    assert 22 in ran[200] and not {20, 22} & ran[6000]
    assert prepared.idle == ("n=200",)
    assert [s.label() for s in prepared.ran_shapes] == ["n=6000"]
    assert idle_line(prepared) == (
        "the literal BLOCK_SIZE is overridden at n=200 (the launch got BLOCK_SIZE=256 there; a SHAPES entry past the "
        "override's condition times it at another size): every candidate is checked there, and timed only where the "
        "launch runs with the literal in effect"
    )


def test_f42_sizes_the_original_fails_at_too_are_one_group_in_the_net_s_line() -> None:
    """A maskless GEMM's net skipped eleven sizes where the original fails too, each said whole with its failure: the
    line ran to 3,000 characters. Past the first they are now one group: how many, where, and the first's reason."""
    from kernelopt.tuning.net import NetVerdict, SizeCheck, SizeClass
    from kernelopt.tuning.problem import ProblemShape

    def skip(m: int, why: str) -> SizeCheck:
        reason = f"m={m}: the original fails there too: wrong_result: {why}"
        return SizeCheck(kind=SizeClass.PAST, shape=ProblemShape(kwargs={"m": m}), passed=None, reason=reason)

    ok = SizeCheck(kind=SizeClass.PAST, shape=ProblemShape(kwargs={"m": 192}), passed=True)
    late = SizeCheck(kind=SizeClass.PAST, shape=ProblemShape(kwargs={"m": 4096}), passed=None, reason="not run: wall")
    net = NetVerdict(checks=[ok, skip(129, "output not written"), skip(17, "NaN"), late], seconds=1.0)
    assert net.line() == (
        "checked at sizes the SHAPES entries do not name (1.0 s): correct at m=192; skipped m=4096 (not run: wall); "
        "2 sizes where the original fails too (m=129, m=17; the first: m=129: the original fails there too: "
        "wrong_result: output not written)"
    )
    alone = NetVerdict(checks=[ok, skip(129, "output not written")], seconds=1.0)
    assert alone.line().endswith(
        "skipped m=129 (m=129: the original fails there too: wrong_result: output not written)"
    )
