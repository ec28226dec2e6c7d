import torch

# xy: (B, L, 2 * N) bfloat16, x its first N columns and y its last N; dout: (B, L, N). The forward, the backward's
# gradient of xy and the output it recomputes (float32 math, bfloat16 stores)
SHAPES = [{"B": 2, "L": 7, "N": 300}, {"B": 1, "L": 33, "N": 64}, {"B": 3, "L": 5, "N": 1100}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(B=2, L=7, N=300, device="cpu"):
    g = torch.Generator().manual_seed(B * 10007 + L * 101 + N)
    xy = torch.randn(B, L, 2 * N, generator=g).to(torch.bfloat16)
    dout = torch.randn(B, L, N, generator=g).to(torch.bfloat16)
    return [xy.to(device), dout.to(device)]


def reference(xy, dout):
    x, y = xy.float().chunk(2, dim=-1)
    d = dout.float()
    s = torch.sigmoid(x)
    out = x * s * y
    dx = s * (1 + x * (1 - s)) * y * d
    dy = x * s * d
    return out.to(xy.dtype), torch.cat([dx, dy], dim=-1).to(xy.dtype), out.to(xy.dtype)
