import torch

# a: (B, M, K) float32, b: (K, N); leaky_relu(a @ b) per batch, and alpha * (a[0] @ b) + beta * x with x (M, N);
# alpha and beta one-element tensors (the kernel loads them). float32 with allow_tf32=False: ieee dots
SHAPES = [{"B": 2, "M": 40, "N": 72, "K": 100}, {"B": 1, "M": 130, "N": 33, "K": 64}, {"B": 3, "M": 8, "N": 260, "K": 17}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(B=2, M=40, N=72, K=100, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + M * 1009 + N * 31 + K)
    a = torch.randn(B, M, K, generator=g)
    b = torch.randn(K, N, generator=g)
    x = torch.randn(M, N, generator=g)
    alpha = torch.tensor([0.75])
    beta = torch.tensor([-1.25])
    return [t.to(device) for t in (a, b, x, alpha, beta)]


def reference(a, b, x, alpha, beta):
    c = a.double() @ b.double()
    act = torch.where(c >= 0, c, 0.01 * c).float()
    mm = (alpha.double() * (a[0].double() @ b.double()) + beta.double() * x.double()).float()
    return act, mm
