"""review27: this session's landings reread and tried as a user would (docs/faults.md, "Review, twenty-seventh
round"). Each test failed before its fix."""

from __future__ import annotations

import pytest

#: a file of three launches: ``_scale`` (no loop) twice, ``_rowsum`` (a loop) between them
THREE_LAUNCHES = """import torch
import triton
import triton.language as tl


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


@triton.jit
def _rowsum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc))


def kernel(x):
    y = torch.empty_like(x)
    n = x.numel()
    _scale[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=4)
    s = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    _rowsum[(x.shape[0],)](y, s, x.shape[1], BLOCK=256, num_warps=4, num_stages=2)
    z = torch.empty_like(x)
    _scale[(triton.cdiv(n, 512),)](y, z, n, BLOCK=512, num_warps=2)
    return z, s
"""


@pytest.mark.parametrize("rowsum", [True, False])
def test_r70_r71_the_launch_line_counts_the_space_s_knobs_and_names_a_launch_kernel_takes(rowsum: bool) -> None:
    """r70: ``tune``'s line on a file of several launches (l134) counted ``num_stages`` of a loopless kernel as a knob
    (``launches`` without the space's ``looped``), so ``_rowsum`` (3 knobs, the space's pick) tied with ``_scale``
    (2 knobs in the space) and the line said "the one this session was given" where no ``--kernel`` was given.
    r71: its ``--kernel`` example was the other launch's kernel name, which for a kernel launched twice takes the
    first launch again (``--kernel _scale`` tuned ``_scale#1``, the one the line said it tunes); it is now the key
    ``--kernel`` takes that launch by."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.launches import loop_kernels
    from kernelopt.tuning.launch import choice_line, space_from_tunables

    source = THREE_LAUNCHES
    if not rowsum:  # the loop's launch taken out: _scale twice alone
        source = source[: source.index("    s = torch.empty")] + source[source.index("    z = torch") :]
        source = source.replace("return z, s", "return z")
    found = discover_source(source)
    looped = loop_kernels(source)
    space = space_from_tunables(found, looped=looped, source=source)
    line = choice_line(found, space, looped) or ""
    if rowsum:
        assert space.launch == "launch _rowsum (kernel.py:29)"
        assert "this session tunes launch _rowsum (kernel.py:29), the one with the most knobs (3), and leaves " in line
        assert line.endswith("--kernel _scale#1)"), line
        taken = space_from_tunables(found, kernel="_scale#1", looped=looped, source=source)
        assert taken.launch == "launch _scale#1 (kernel.py:27)"
        return
    assert space.launch == "launch _scale#1 (kernel.py:27)"
    assert "tunes launch _scale#1 (kernel.py:27), the first in source order of those with the most knobs (2)" in line
    assert line.endswith("--kernel _scale#2)"), line
    taken = space_from_tunables(found, kernel="_scale#2", looped=looped, source=source)
    assert taken.launch == "launch _scale#2 (kernel.py:29)", taken.launch
