"""v122's 2-D scale through host-side tensor descriptors, their block shape set by the autotune config's `pre_hook`
as Triton's persistent matmul tutorial sets it (the launcher makes each descriptor with a placeholder block, `[1, 1]`,
and the hook writes `nargs["x_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]` before the launch): a list of
one config, `BLOCK_M = 32`, `BLOCK_N = 8` (a descriptor's last block side must hold 16 bytes: 8 values of bf16, 4 of
fp32), keyed by `M` and `N`, a 1-D grid of the tiles rounded up (the tutorial's `pid // num_pid_n`, `pid % num_pid_n`). Any float dtype: fp32 in the entries, bf16
as a model calls it."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _set_block_shape(nargs):
    block = [nargs["BLOCK_M"], nargs["BLOCK_N"]]
    nargs["x_desc"].block_shape = block
    nargs["o_desc"].block_shape = block


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": 32, "BLOCK_N": 8}, num_warps=4, pre_hook=_set_block_shape)],
    key=["M", "N"],
)
@triton.jit
def scale_kernel(x_desc, o_desc, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    m = (pid // num_pid_n) * BLOCK_M
    n = (pid % num_pid_n) * BLOCK_N
    o_desc.store([m, n], x_desc.load([m, n]) * 2)


def run(x):
    M, N = x.shape
    out = torch.empty_like(x)
    x_desc = TensorDescriptor.from_tensor(x, [1, 1])
    o_desc = TensorDescriptor.from_tensor(out, [1, 1])
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    scale_kernel[grid](x_desc, o_desc, M, N)
    return out
