import torch

# x [B, T, H, D] fp32 pooled over chunks of 16 tokens (the last chunk short where 16 does not divide T); do the
# gradient of the [B, cdiv(T, 16), H, D] output
SHAPES = [{"B": 2, "T": 40, "H": 2, "D": 48}, {"B": 1, "T": 16, "H": 3, "D": 100}, {"B": 3, "T": 70, "H": 1, "D": 16}]
ATOL = 1e-5
RTOL = 1e-4


def get_inputs(B=2, T=40, H=2, D=48, device="cpu"):
    g = torch.Generator().manual_seed(B * 10**6 + T * 10**4 + H * 1000 + D)
    x = torch.randn(B, T, H, D, generator=g)
    do = torch.randn(B, -(T // -16), H, D, generator=g)
    return [x.to(device), do.to(device)]


def reference(x, do):
    x = x.detach().requires_grad_(True)
    chunks = [c.mean(1) for c in x.split(16, dim=1)]
    o = torch.stack(chunks, dim=1)
    o.backward(do)
    return o.detach(), x.grad
