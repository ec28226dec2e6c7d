import torch

SHAPES = [{"B": 3, "D": 40, "L": 32}, {"B": 4, "D": 100, "L": 64}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=4, D=100, L=64, device="cpu"):
    lengths = torch.full((B,), L)  # packed in whole chunks of 16 tokens
    cu_seqlens = torch.zeros(B + 1, dtype=torch.int32)
    cu_seqlens[1:] = torch.cumsum(lengths, 0)
    x = torch.randn(int(cu_seqlens[-1]), D, device=device)
    return [x, cu_seqlens.to(device)]


def reference(x, cu_seqlens):
    out = []
    for b in range(cu_seqlens.numel() - 1):
        seq = x[int(cu_seqlens[b]) : int(cu_seqlens[b + 1])]
        out.append(seq.float().mean(0))
    return torch.stack(out)
