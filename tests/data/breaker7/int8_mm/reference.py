import torch

SHAPES = [{"M": 32, "N": 64, "K": 64}, {"M": 70, "N": 40, "K": 100}]
ATOL = 1e-3
RTOL = 1e-5


def get_inputs(M=70, N=40, K=100, device="cpu"):
    return [torch.randint(-128, 128, (M, K), dtype=torch.int8, device=device),
            torch.randint(-128, 128, (K, N), dtype=torch.int8, device=device),
            torch.rand(M, device=device) * 0.01, torch.rand(N, device=device) * 0.01]


def reference(a, b, row_scale, col_scale):
    acc = (a.double() @ b.double()).float()  # exact: |sum| < 2**53; CUDA has no int64 matmul
    return acc * row_scale[:, None] * col_scale[None, :]
