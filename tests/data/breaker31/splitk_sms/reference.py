import torch

# a (M, K) @ b (K, N), float16 in and out, float32 accumulation; tall-K shapes are what split-K is for
SHAPES = [{"M": 16, "N": 24, "K": 700}, {"M": 70, "N": 40, "K": 96}, {"M": 33, "N": 130, "K": 2000}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(M=16, N=24, K=700, device="cpu"):
    g = torch.Generator().manual_seed(M * 7919 + N * 31 + K)
    a = (torch.randn(M, K, generator=g) / K**0.5).half()
    b = torch.randn(K, N, generator=g).half()
    return [a.to(device), b.to(device)]


def reference(a, b):
    return (a.float() @ b.float()).half()


def flops(a, b):
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]
