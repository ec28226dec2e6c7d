import torch

SHAPES = [{"M": 1, "N": 200, "K": 256}, {"M": 2, "N": 40, "K": 192}, {"M": 1, "N": 33, "K": 128}]
ATOL = 1e-4
RTOL = 1e-4
GROUP = 64  # the checkpoint's quantization group along K
BITS = 4


def get_inputs(M=1, N=200, K=256, device="cpu"):
    assert K % GROUP == 0
    g = torch.Generator().manual_seed(M * 100000 + N * 1000 + K)
    per = 32 // BITS
    q = torch.randint(0, 2**BITS, (K, N), generator=g, dtype=torch.int64)
    shifts = (torch.arange(K) % per * BITS)[:, None]
    words = (q << shifts).reshape(K // per, per, N).sum(1)
    W_q = (words - (words >= 2**31).to(torch.int64) * 2**32).to(torch.int32)
    scales = torch.rand(K // GROUP, N, generator=g) / 10 + 0.01
    zeros = torch.randint(6, 10, (K // GROUP, N), generator=g).float()
    x = torch.randn(M, K, generator=g)
    return [x.to(device), W_q.to(device), scales.to(device), zeros.to(device)]


def reference(x, W_q, scales, zeros):
    K = x.shape[1]
    per = 32 // BITS
    words = W_q.to(torch.int64) & 0xFFFFFFFF
    shifts = (torch.arange(K, device=W_q.device) % per * BITS)[:, None]
    q = (words.repeat_interleave(per, 0) >> shifts) & (2**BITS - 1)
    w = (q.double() - zeros.double().repeat_interleave(GROUP, 0)) * scales.double().repeat_interleave(GROUP, 0)
    return (x.double() @ w).float()
