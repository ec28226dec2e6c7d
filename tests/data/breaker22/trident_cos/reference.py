import torch

# two (B, T, D) float32 tensors: cosine similarity over D (each row), then over T (strided reads)
SHAPES = [{"B": 2, "T": 5, "D": 300}, {"B": 1, "T": 33, "D": 7}, {"B": 3, "T": 4, "D": 64}]
ATOL = 1e-5
RTOL = 1e-4


def get_inputs(B=2, T=5, D=300, device="cpu"):
    g = torch.Generator().manual_seed(B * 100003 + T * 101 + D)
    x1 = torch.randn(B, T, D, generator=g)
    x2 = x1 * 0.5 + torch.randn(B, T, D, generator=g)
    return [x1.to(device), x2.to(device)]


def reference(x1, x2):
    return torch.cosine_similarity(x1, x2, dim=2, eps=1e-8), torch.cosine_similarity(x1, x2, dim=1, eps=1e-8)
