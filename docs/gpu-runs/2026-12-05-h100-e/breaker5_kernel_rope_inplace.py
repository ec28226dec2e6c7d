"""Rotary position embedding applied in place to q (batch, seq, heads, head_dim), rotate-half convention: each
program rotates ROWS tokens, all heads at once; the half-dim block is ``head_dim // 2`` (a power of two). The
autotuner restores q between its timing runs (``restore_value``), since the kernel overwrites it."""

import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"ROWS": 4}, num_warps=4)],
    key=["n_rows", "n_heads"],
    restore_value=["q_ptr"],
)
@triton.jit
def _rope_inplace(q_ptr, cos_ptr, sin_ptr, n_rows, seq_len, n_heads, HEADS_P2: tl.constexpr,
                  HALF: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    heads = tl.arange(0, HEADS_P2)
    dims = tl.arange(0, HALF)
    pos = rows % seq_len
    mask = (rows[:, None, None] < n_rows) & (heads[None, :, None] < n_heads)
    base = rows[:, None, None] * n_heads * 2 * HALF + heads[None, :, None] * 2 * HALF + dims[None, None, :]
    x1 = tl.load(q_ptr + base, mask=mask, other=0.0)
    x2 = tl.load(q_ptr + base + HALF, mask=mask, other=0.0)
    tmask = rows[:, None, None] < n_rows
    cos = tl.load(cos_ptr + pos[:, None, None] * HALF + dims[None, None, :], mask=tmask, other=0.0)
    sin = tl.load(sin_ptr + pos[:, None, None] * HALF + dims[None, None, :], mask=tmask, other=0.0)
    tl.store(q_ptr + base, x1 * cos - x2 * sin, mask=mask)
    tl.store(q_ptr + base + HALF, x2 * cos + x1 * sin, mask=mask)


def run(q, cos, sin):
    batch, seq_len, n_heads, head_dim = q.shape
    n_rows = batch * seq_len
    grid = lambda META: (triton.cdiv(n_rows, META["ROWS"]),)  # noqa: E731
    _rope_inplace[grid](q, cos, sin, n_rows, seq_len, n_heads, HEADS_P2=triton.next_power_of_2(n_heads),
                        HALF=head_dim // 2)
    return q
