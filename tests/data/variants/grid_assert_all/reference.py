import torch
import torch.nn.functional as F

# gate_up [M, 2 * N] bf16: the gate's N columns then the up projection's
SHAPES = [{"M": 50, "N": 1024}, {"M": 9, "N": 700}, {"M": 300, "N": 64}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(M=50, N=1024, device="cpu"):
    g = torch.Generator().manual_seed(M * 100000 + N)
    return [torch.randn(M, 2 * N, generator=g).to(torch.bfloat16).to(device)]


def reference(gate_up):
    n = gate_up.shape[-1] // 2
    gate, up = gate_up[:, :n], gate_up[:, n:]
    return F.silu(gate.float()).to(gate_up.dtype) * up
