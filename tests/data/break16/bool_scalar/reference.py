import torch

SHAPES = [{"n": 200}, {"n": 64}]
ATOL = 0.0
RTOL = 0.0


def get_inputs(n=200, device="cpu"):
    g = torch.Generator().manual_seed(n)
    return [torch.randn(n, generator=g).to(device)]


def reference(x):
    programs = (x.numel() + 63) // 64  # every program adds one: a GPU compile never cuts short at a scalar tensor
    return x * 2.0, torch.tensor([programs], dtype=torch.int32, device=x.device)
