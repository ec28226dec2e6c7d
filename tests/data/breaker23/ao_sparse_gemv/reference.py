import torch

# one ReLU'd row x (Z,) in float16 (about half zeros) times a column-major weight (N, Z): y = x @ weight.T, (1, N)
SHAPES = [{"N": 256, "Z": 512}, {"N": 100, "Z": 1000}, {"N": 48, "Z": 64}]
ATOL = 2e-2
RTOL = 1e-2


def get_inputs(N=256, Z=512, device="cpu"):
    g = torch.Generator().manual_seed(N * 7919 + Z)
    x = torch.relu(torch.randn(1, Z, generator=g)).to(torch.float16)
    w = (torch.randn(Z, N, generator=g) / Z**0.5).to(torch.float16)
    return [x.to(device), w.to(device).t()]


def reference(x, weight):
    return (x.float() @ weight.float().t()).to(x.dtype)
