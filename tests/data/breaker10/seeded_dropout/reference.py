import torch

SHAPES = [{"N": 5000}, {"N": 1024}, {"N": 333}]
ATOL = 1e-6
RTOL = 1e-6

P = 0.5
SEED = 123
M32 = 0xFFFFFFFF


def get_inputs(N=5000, device="cpu"):
    g = torch.Generator().manual_seed(N)
    return [torch.randn(N, generator=g).to(device)]


def _umulhi(a, b):
    # high 32 bits of a 32x32-bit product, in int64 halves (no overflow)
    a_hi, a_lo = a >> 16, a & 0xFFFF
    b_hi, b_lo = b >> 16, b & 0xFFFF
    mid = a_hi * b_lo + ((a_lo * b_lo) >> 16)
    mid2 = a_lo * b_hi + (mid & 0xFFFF)
    return (a_hi * b_hi + (mid >> 16) + (mid2 >> 16)) & M32


def _philox_rand(seed, offsets):
    """Triton's ``tl.rand(seed, offsets)``: Philox4x32-10 of the counter (offset, 0, 0, 0) under the key (seed low,
    seed high), its first word read as an int32 and mapped to [0, 1)."""
    c0 = offsets.to(torch.int64) & M32
    c1 = torch.zeros_like(c0)
    c2 = torch.zeros_like(c0)
    c3 = torch.zeros_like(c0)
    k0 = torch.full_like(c0, seed & M32)
    k1 = torch.full_like(c0, (seed >> 32) & M32)
    for _ in range(10):
        _c0, _c2 = c0, c2
        c0 = _umulhi(torch.full_like(c0, 0xCD9E8D57), _c2) ^ c1 ^ k0
        c2 = _umulhi(torch.full_like(c0, 0xD2511F53), _c0) ^ c3 ^ k1
        c1 = (0xCD9E8D57 * _c2) & M32
        c3 = (0xD2511F53 * _c0) & M32
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    x = torch.where(c0 >= 1 << 31, c0 - (1 << 32), c0)  # as int32
    x = torch.where(x < 0, -x - 1, x)
    return x.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32)


def reference(x):
    keep = _philox_rand(SEED, torch.arange(x.numel(), device=x.device)) > P
    return torch.where(keep, x / (1 - P), torch.zeros_like(x))
