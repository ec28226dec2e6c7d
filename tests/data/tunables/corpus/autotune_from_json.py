"""A row-sum kernel whose autotune configs are read from a JSON table kept in the module (as if loaded
from a tuning database)."""

import json

import torch
import triton
import triton.language as tl

TUNING_TABLE = """
[
  {"BLOCK_SIZE": 256, "num_warps": 2},
  {"BLOCK_SIZE": 1024, "num_warps": 4},
  {"BLOCK_SIZE": 4096, "num_warps": 8}
]
"""


def configs_from_table(text):
    rows = json.loads(text)
    return [triton.Config({"BLOCK_SIZE": r["BLOCK_SIZE"]}, num_warps=r["num_warps"]) for r in rows]


@triton.autotune(configs=configs_from_table(TUNING_TABLE), key=["n_cols"])
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def run(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_sum_kernel[(n_rows,)](x, out, x.stride(0), n_cols)
    return out
