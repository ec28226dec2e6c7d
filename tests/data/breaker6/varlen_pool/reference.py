import torch

SHAPES = [{"B": 3, "D": 40, "L": 20}, {"B": 6, "D": 100, "L": 70}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=6, D=100, L=70, device="cpu"):
    lengths = torch.randint(0, L + 1, (B,))
    lengths[0] = L  # the longest sequence the entry names
    cu_seqlens = torch.zeros(B + 1, dtype=torch.int32)
    cu_seqlens[1:] = torch.cumsum(lengths, 0)
    x = torch.randn(int(cu_seqlens[-1]), D, device=device)
    return [x, cu_seqlens.to(device)]


def reference(x, cu_seqlens):
    out = []
    for b in range(cu_seqlens.numel() - 1):
        seq = x[int(cu_seqlens[b]) : int(cu_seqlens[b + 1])]
        out.append(seq.float().mean(0) if seq.shape[0] else torch.zeros(x.shape[1], device=x.device))
    return torch.stack(out)
