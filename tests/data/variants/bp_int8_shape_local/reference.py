import torch

SHAPES = [{"M": 64, "N": 64, "K": 96}, {"M": 96, "N": 32, "K": 160}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(M=64, N=64, K=96, dtype="float32", device="cpu"):
    g = torch.Generator().manual_seed(0)
    if dtype == "int8":
        return [torch.randint(-8, 8, (M, K), generator=g, dtype=torch.int8).to(device),
                torch.randint(-8, 8, (K, N), generator=g, dtype=torch.int8).to(device)]
    return [torch.randn(M, K, generator=g).to(device), torch.randn(K, N, generator=g).to(device)]


def reference(a, b):
    out = a.double() @ b.double()
    return out.to(torch.int32) if not a.dtype.is_floating_point else out.float()
