import torch

SHAPES = [{"M": 5, "N": 100}, {"M": 16, "N": 700}]
ATOL = 0
RTOL = 0


def get_inputs(M=16, N=700, device="cpu"):
    # few distinct values: most rows hold their maximum more than once, so the tie rule decides
    return [torch.randint(0, 6, (M, N), device=device).float()]


def reference(x):
    return torch.argmax(x, dim=1)
