import torch

SHAPES = [
    {"batch": 1, "seqlen": 128, "nheads": 2, "headdim": 32, "dstate": 16, "ngroups": 1},
    {"batch": 2, "seqlen": 100, "nheads": 2, "headdim": 24, "dstate": 40, "ngroups": 2},
    {"batch": 1, "seqlen": 70, "nheads": 4, "headdim": 64, "dstate": 64, "ngroups": 1},
]
CHUNK = 64  # Mamba-2's chunk (the operator's, the dt / dA_cumsum layout's)
ATOL = 2e-2  # fp16 operands of tl.dot, fp32 sums over a 64-long chunk
RTOL = 1e-2


def get_inputs(batch=1, seqlen=128, nheads=2, headdim=32, dstate=16, ngroups=1, device="cpu"):
    g = torch.Generator().manual_seed(batch * 7 + seqlen * 11 + nheads * 13 + headdim * 17 + dstate * 19 + ngroups)
    nchunks = -(-seqlen // CHUNK)
    B = (torch.randn(batch, seqlen, ngroups, dstate, generator=g) * 0.5).half()
    x = (torch.randn(batch, seqlen, nheads, headdim, generator=g) * 0.5).half()
    dt = torch.rand(batch, nheads, nchunks, CHUNK, generator=g) * 0.1
    dA = -torch.rand(batch, nheads, nchunks, CHUNK, generator=g) * 0.1
    return [t.to(device) for t in (B, x, dt, torch.cumsum(dA, -1))]


def reference(B, x, dt, dA_cumsum):
    batch, seqlen, nheads, headdim = x.shape
    ngroups, dstate = B.shape[2], B.shape[3]
    nchunks = dt.shape[2]
    out = torch.zeros(batch, nchunks, nheads, headdim, dstate, device=x.device)
    Bh = B.float().repeat_interleave(nheads // ngroups, dim=2)  # batch, seqlen, nheads, dstate
    for c in range(nchunks):
        s, e = c * CHUNK, min((c + 1) * CHUNK, seqlen)
        n = e - s
        last = dA_cumsum[:, :, c, CHUNK - 1]  # batch, nheads
        scale = torch.exp(last[..., None] - dA_cumsum[:, :, c, :n]) * dt[:, :, c, :n]  # batch, nheads, n
        b = Bh[:, s:e] * scale.transpose(1, 2)[..., None]  # batch, n, nheads, dstate
        b = b.half().float()
        out[:, c] = torch.einsum("blhp,blhn->bhpn", x[:, s:e].float(), b)
    return out
