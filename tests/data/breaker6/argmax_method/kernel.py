"""argmax_class with its settings from an lru_cache'd method of the class: ``cfg = self._config(N)`` returns a dict
(the cached dict itself, shared by every call of that size), splatted ``**cfg`` at the launch."""

import functools

import torch
import triton
import triton.language as tl


@triton.jit
def _row_argmax(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    best_v = tl.full([BLOCK], float("-inf"), tl.float32)
    best_i = tl.full([BLOCK], 2147483647, tl.int32)
    for start in range(0, N, BLOCK):
        cols = start + offs
        v = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=float("-inf"))
        take = v > best_v  # strictly greater: an earlier column keeps a tie
        best_v = tl.where(take, v, best_v)
        best_i = tl.where(take, cols, best_i)
    m = tl.max(best_v, axis=0)
    idx = tl.min(tl.where(best_v == m, best_i, 2147483647), axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


@functools.lru_cache(maxsize=64)
def _warps_for(block):
    return 4 if block <= 1024 else 8


class RowArgmax:
    def __init__(self, block=64):
        self.BLOCK = block

    @functools.lru_cache(maxsize=16)  # noqa: B019 - one instance, kept for the process
    def _config(self, n):
        return {"BLOCK": 128 if n <= 1024 else 512, "num_warps": 4}

    def __call__(self, x):
        M, N = x.shape
        out = torch.empty(M, device=x.device, dtype=torch.int64)
        cfg = self._config(N)
        _row_argmax[(M,)](x, out, N, x.stride(0), **cfg)
        return out


_ARGMAX = RowArgmax()


def run(x):
    return _ARGMAX(x)
