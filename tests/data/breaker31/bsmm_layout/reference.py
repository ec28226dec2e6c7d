import torch

# a (M, K) float16, zero outside the 32 x 32 blocks layout (M / 32, K / 32) bool marks (about a third of them, a
# block row may hold none); b (K, N) float16 dense; out (M, N) float16 = a @ b
SHAPES = [{"M": 64, "K": 96, "N": 40}, {"M": 160, "K": 64, "N": 200}, {"M": 32, "K": 320, "N": 17}]
ATOL = 2e-2
RTOL = 2e-2
LAYOUT_BLOCK = 32


def get_inputs(M=64, K=96, N=40, device="cpu"):
    g = torch.Generator().manual_seed(M * 131 + K * 17 + N)
    layout = torch.rand(M // LAYOUT_BLOCK, K // LAYOUT_BLOCK, generator=g) < 0.35
    layout[0, 0] = True
    if layout.shape[0] > 1:
        layout[-1] = False
    dense = torch.randn(M, K, generator=g) / 8
    mask = layout.repeat_interleave(LAYOUT_BLOCK, 0).repeat_interleave(LAYOUT_BLOCK, 1)
    a = (dense * mask).half()
    b = torch.randn(K, N, generator=g).half()
    return [a.to(device), b.to(device), layout.to(device)]


def reference(a, b, layout):
    return (a.float() @ b.float()).half()
