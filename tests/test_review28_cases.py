"""review28: this session's landings reread and tried as a user would (docs/faults.md, "Review, twenty-eighth
round"). Each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

#: rows of ``BLOCK`` by column chunks of ``BD`` (the head's size rounded up, capped at 4096: past any entry's 64)
_CHUNKED = """
@triton.jit
def head_scale(x_ptr, w_ptr, y_ptr, n, d, BD: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    for start in range(0, d, BD):
        cols = start + tl.arange(0, BD)
        mask = (rows[:, None] < n) & (cols[None, :] < d)
        x = tl.load(x_ptr + rows[:, None] * d + cols[None, :], mask=mask)
        w = tl.load(w_ptr + cols, mask=cols < d)
        tl.store(y_ptr + rows[:, None] * d + cols[None, :], x * w[None, :], mask=mask)


def run(x, w):
    n, d = x.shape
    y = torch.empty_like(x)
    BD = min(triton.next_power_of_2(d), 4096)
    head_scale[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, w, y, n, d, BD=BD)
    return y
"""


def _autotuned(configs: str) -> str:
    head = "import torch\nimport triton\nimport triton.language as tl\n\n\n"
    return f'{head}@triton.autotune(configs=[{configs}], key=["n"]){_CHUNKED}'


def test_r80_a_raised_tile_in_an_autotune_list_of_one_config_is_bounded_as_a_launch_s(tmp_path: Path) -> None:
    """fe012c21 left every autotune list's config out of v184's bound (``edit._size_bounded``: "tune pins it
    unbounded"), so ``tunables --set head_scale.configs[0].BLOCK=128`` over a list of one config, beside ``BD`` (the
    head's size, capped at 4096), was written for every size with no note: Triton runs a list of one config unbenched,
    so past the entries its footprint was never compiled (before fe012c21: refused). A list that keeps another config
    as it was is still left to its autotuner, which passes over a config that cannot run at a key."""
    from kernelopt.tunables.edit import apply
    from kernelopt.tunables.model import TunableError

    kernel = tmp_path / "kernel.py"
    kernel.write_text(_autotuned('triton.Config({"BLOCK": 32}, num_warps=4)'), encoding="utf-8")
    with pytest.raises(TunableError, match="raises a tile of head_scale beside BD, a size of the problem no run told"):
        apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    two = _autotuned('triton.Config({"BLOCK": 32}, num_warps=4), triton.Config({"BLOCK": 16}, num_warps=4)')
    kernel.write_text(two, encoding="utf-8")
    result = apply(kernel, {"head_scale.configs[0].BLOCK": 128}, write=False)
    assert '[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 16}' in result.new_source
    with pytest.raises(TunableError, match="a size of the problem no run told"):  # no config left as it was
        apply(kernel, {"head_scale.configs[0].BLOCK": 128, "head_scale.configs[1].BLOCK": 64}, write=False)
