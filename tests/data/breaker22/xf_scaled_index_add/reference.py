import torch

# x (N, R, C) float32 with S < N distinct rows of it updated (a randperm's first S) by source (S, R, C) * scaling (C)
SHAPES = [{"N": 8, "S": 5, "R": 3, "C": 40}, {"N": 33, "S": 33, "R": 2, "C": 600}, {"N": 4, "S": 1, "R": 7, "C": 9}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(N=8, S=5, R=3, C=40, device="cpu"):
    g = torch.Generator().manual_seed(N * 100003 + S * 1009 + R * 31 + C)
    x = torch.randn(N, R, C, generator=g)
    index = torch.randperm(N, generator=g)[:S]
    source = torch.randn(S, R, C, generator=g)
    scaling = torch.randn(C, generator=g)
    return [x.to(device), index.to(device), source.to(device), scaling.to(device)]


def reference(x, index, source, scaling):
    x.index_add_(0, index, source * scaling, alpha=0.5)
    return x
