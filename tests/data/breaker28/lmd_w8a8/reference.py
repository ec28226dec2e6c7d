import torch

# x (M, K) float16 activations, w_q (N, K) int8 weight, w_s (N,) float32 its per-channel scales; x is quantized per
# row to int8 (scale = absmax / 127, round half away from zero) and out = (x_q @ w_q^T) * x_s * w_s, float16 (M, N).
# K a multiple of the list's BLOCK_K (128): the K tail's masked loads take other=None (undefined on a GPU)
SHAPES = [{"M": 33, "N": 100, "K": 128}, {"M": 64, "N": 256, "K": 256}, {"M": 5, "N": 300, "K": 384}]
ATOL = 2e-2
RTOL = 2e-3
#: how far from a half integer every 127 |x| / absmax of its row is kept (see _off_ties)
TIE_MARGIN = 1e-3


def _off_ties(x):
    """x with each element whose exact 127 |x| / absmax of its row lies within TIE_MARGIN of a half integer moved
    toward zero by float16 steps until none does (the absmax itself, at 127, never moves). At a tie the int8 value is
    decided by the last ulp of two fp32 divisions: an element at half its row's absmax is exactly 63.5, and on the H100
    (2026-12-07) Triton's `/` (div.full.f32, within 2 ulp) and torch's (IEEE) rounded such ties to different integers,
    each step x_s * |w_q| * w_s in the output, past ATOL (docs/faults.md g12). Off the ties both give the same int8."""
    amax = x.float().abs().amax(-1, keepdim=True)
    q = x.float().abs() * 127 / amax  # 127 |x| exact in fp32, the quotient within 8e-6 of the exact one
    at = (((q - q.floor()) - 0.5).abs() < TIE_MARGIN).nonzero(as_tuple=True)
    moved, row_max = x[at], amax[at[0], 0]
    while True:
        q = moved.float().abs() * 127 / row_max
        near = ((q - q.floor()) - 0.5).abs() < TIE_MARGIN
        if not near.any():
            break
        moved = torch.where(near, (moved.view(torch.int16) - 1).view(torch.float16), moved)  # toward zero, either sign
    x = x.clone()
    x[at] = moved
    return x


def get_inputs(M=33, N=100, K=128, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K)
    x = _off_ties(torch.randn(M, K, generator=g).half())
    w_q = torch.randint(-127, 128, (N, K), generator=g, dtype=torch.int8)
    w_s = torch.rand(N, generator=g) / 100 + 1e-3
    return [x.to(device), w_q.to(device), w_s.to(device)]


def reference(x, w_q, w_s):
    xf = x.float()
    x_s = xf.abs().amax(-1, keepdim=True).clamp_min(1e-7) / 127
    q = xf / x_s
    x_q = (q.sign() * (q.abs() + 0.5).floor()).clamp(-128, 127)
    out = (x_q.double() @ w_q.double().t()) * x_s.double() * w_s.double()[None, :]
    return out.half()
