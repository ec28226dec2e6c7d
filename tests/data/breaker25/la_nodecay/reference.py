import torch

# q, k: (B, H, N, D), v and do: (B, H, N, E) float32, D and E powers of two (the kernels' tl.arange); causal linear
# attention o = tril(q k^T) v with no decay and no normalization, and its gradients
SHAPES = [{"B": 1, "H": 2, "N": 100, "D": 16, "E": 32}, {"B": 2, "H": 1, "N": 64, "D": 32, "E": 64}, {"B": 1, "H": 1, "N": 7, "D": 16, "E": 16}]
# the kernels' tl.dot of float32 operands runs in TF32 on a GPU (Triton's default; about 1e-3 relative a product), an
# error that grows with the sequence and with D and E: TF32 emulated in torch (operands rounded to 10 mantissa bits),
# the output's largest error is 0.027 at 2048 steps of the small D and E, 0.034 at 4097, 0.048 at 8192; on an H100
# (2026-12-07) at B=4, H=16, N=2048, D=E=128, 28 of 16777216 outputs were past an ATOL of 0.02 (worst 0.030 off at
# 0.34, where the outputs reach 75): an ATOL near 1e-3 of the outputs' largest magnitude (kernelopt's TF32 advice)
ATOL = 8e-2
RTOL = 1e-2


def get_inputs(B=1, H=2, N=100, D=16, E=32, device="cpu"):
    g = torch.Generator().manual_seed(B * 1000003 + H * 10007 + N * 101 + D * 7 + E)
    s = 0.3
    q = torch.randn(B, H, N, D, generator=g) * s
    k = torch.randn(B, H, N, D, generator=g) * s
    v = torch.randn(B, H, N, E, generator=g) * s
    do = torch.randn(B, H, N, E, generator=g) * s
    return [t.to(device) for t in (q, k, v, do)]


def reference(q, k, v, do):
    q, k, v, do = (t.double() for t in (q, k, v, do))
    n = q.shape[2]
    causal = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    s = (q @ k.transpose(-1, -2)).masked_fill(~causal, 0)
    o = s @ v
    ds = (do @ v.transpose(-1, -2)).masked_fill(~causal, 0)
    dq = ds @ k
    dk = ds.transpose(-1, -2) @ q
    dv = s.transpose(-1, -2) @ do
    return tuple(t.float() for t in (o, dq, dk, dv))
