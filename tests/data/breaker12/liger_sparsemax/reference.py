import torch

SHAPES = [{"B": 3, "N": 50, "T": 4}, {"B": 2, "N": 3000, "T": 3}, {"B": 5, "N": 7, "T": 6}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=3, N=50, T=4, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + N * 10 + T)
    return [(torch.randn(B, N, T, generator=g) * 3).to(device)]


def reference(x):
    z = x.transpose(1, -1).double()
    zs = torch.sort(z, dim=-1, descending=True).values
    r = torch.arange(1, z.shape[-1] + 1, dtype=torch.float64, device=z.device)
    support = zs > (torch.cumsum(zs, -1) - 1) / r
    k = support.sum(-1, keepdim=True).clamp(min=1)
    tau = ((zs * support).sum(-1, keepdim=True) - 1) / k
    return torch.clamp(z - tau, min=0).float().transpose(1, -1)
