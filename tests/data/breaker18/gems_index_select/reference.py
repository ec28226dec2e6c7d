import torch

# x [M, 2N] (the op reads every other column: N of them), index [L] into those N
SHAPES = [{"M": 5, "N": 300, "L": 77}, {"M": 33, "N": 40, "L": 9}, {"M": 2, "N": 1000, "L": 513}]
ATOL = 0.0
RTOL = 0.0


def get_inputs(M=5, N=300, L=77, device="cpu"):
    gen = torch.Generator().manual_seed(M * 100000 + N * 100 + L)
    x = torch.randn(M, 2 * N, generator=gen)
    index = torch.randint(0, N, (L,), generator=gen)
    return [x.to(device), index.to(device)]


def reference(x, index):
    return x[:, 1::2].index_select(1, index)
