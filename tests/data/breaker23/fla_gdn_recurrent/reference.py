import torch

# B sequences of T tokens, H key heads of K and HV = 2H value heads of V (bfloat16), a log-decay g and a headwise beta
# per value head, an fp32 initial state: the gated delta rule's outputs and final states
SHAPES = [{"B": 1, "T": 6, "H": 1, "K": 16, "V": 24}, {"B": 1, "T": 4, "H": 1, "K": 12, "V": 20}, {"B": 2, "T": 3, "H": 1, "K": 32, "V": 8}]
ATOL = 3e-2
RTOL = 3e-2


def get_inputs(B=2, T=12, H=2, K=16, V=24, device="cpu"):
    g_ = torch.Generator().manual_seed(B * 7 + T * 131 + H * 17 + K * 1009 + V)
    HV = 2 * H
    q = torch.randn(B, T, H, K, generator=g_).to(torch.bfloat16)
    k = torch.randn(B, T, H, K, generator=g_).to(torch.bfloat16)
    v = torch.randn(B, T, HV, V, generator=g_).to(torch.bfloat16)
    g = -torch.rand(B, T, HV, generator=g_) * 0.5
    beta = torch.rand(B, T, HV, generator=g_).to(torch.bfloat16)
    h0 = torch.randn(B, HV, K, V, generator=g_) * 0.1
    return [t.to(device) for t in (q, k, v, g, beta, h0)]


def reference(q, k, v, g, beta, h0):
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    rep = HV // H
    qf = q.float().repeat_interleave(rep, dim=2)
    kf = k.float().repeat_interleave(rep, dim=2)
    qf = qf / torch.sqrt((qf * qf).sum(-1, keepdim=True) + 1e-6) * K**-0.5
    kf = kf / torch.sqrt((kf * kf).sum(-1, keepdim=True) + 1e-6)
    h = h0.float().clone()
    out = torch.empty(B, T, HV, V)
    for t in range(T):
        h = h * torch.exp(g[:, t].float())[..., None, None]
        kt = kf[:, t]
        vt = beta[:, t].float()[..., None] * (v[:, t].float() - torch.einsum("bhk,bhkv->bhv", kt, h))
        h = h + kt[..., :, None] * vt[..., None, :]
        out[:, t] = torch.einsum("bhk,bhkv->bhv", qf[:, t], h)
    return out.to(v.dtype).to(q.device), h.to(q.device)
