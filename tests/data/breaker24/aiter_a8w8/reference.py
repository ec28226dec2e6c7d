import torch

# int8 x (M, K) @ int8 w (N, K)^T, scaled by x_scale (M, 1) * w_scale (1, N), + bias (N), into bfloat16;
# (N, K) = (80, 320) has a tuned file of its own; M <= 64 splits K by 4 through the CPU's default file
SHAPES = [{"M": 24, "N": 96, "K": 200}, {"M": 9, "N": 80, "K": 320}, {"M": 130, "N": 48, "K": 72}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(M=24, N=96, K=200, device="cpu"):
    g = torch.Generator().manual_seed(M * 10007 + N * 101 + K)
    x = torch.randint(-127, 128, (M, K), generator=g, dtype=torch.int8)
    w = torch.randint(-127, 128, (N, K), generator=g, dtype=torch.int8)
    x_scale = torch.rand(M, 1, generator=g) / (127 * K**0.5)
    w_scale = torch.rand(1, N, generator=g) / 127
    bias = torch.randn(N, generator=g).bfloat16()
    return [x.to(device), w.to(device), x_scale.to(device), w_scale.to(device), bias.to(device)]


def reference(x, w, x_scale, w_scale, bias):
    acc = x.double() @ w.double().T
    return (acc * x_scale.double() * w_scale.double() + bias.double()).bfloat16()
