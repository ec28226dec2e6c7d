import torch

# A [M, K] fp8 e4m3 with As [M, cdiv(K, 128)] fp32 (one scale a row and 128 columns), B [N, K] fp8 with
# Bs [cdiv(N, 128), cdiv(K, 128)] (one a 128 x 128 block); C = (A * As) @ (B * Bs).T in bf16
# (N, K) = (2048, 512) has vLLM's own tuned files for an H100 and an H200 (entries by M; off a GPU the default dict)
SHAPES = [{"M": 16, "N": 2048, "K": 512}, {"M": 5, "N": 200, "K": 300}, {"M": 64, "N": 256, "K": 128}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(M=16, N=2048, K=512, device="cpu"):
    g = torch.Generator().manual_seed(M * 10**6 + N * 1000 + K)
    a = (torch.randn(M, K, generator=g) * 4).clamp(-448, 448).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K, generator=g) * 4).clamp(-448, 448).to(torch.float8_e4m3fn)
    a_s = torch.rand(M, -(K // -128), generator=g) * 0.02 + 0.01
    b_s = torch.rand(-(N // -128), -(K // -128), generator=g) * 0.02 + 0.01
    return [a.to(device), b.to(device), a_s.to(device), b_s.to(device)]


def reference(A, B, As, Bs):
    M, K = A.shape
    N = B.shape[0]
    a = A.float() * As.repeat_interleave(128, dim=1)[:, :K]
    b = B.float() * Bs.repeat_interleave(128, dim=0)[:N].repeat_interleave(128, dim=1)[:, :K]
    return (a @ b.T).to(torch.bfloat16)
