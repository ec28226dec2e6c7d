import torch

# q (B, S, HQ, D) and k (B, S, HK, D) float32, D even; freqs (S, D / 2) complex of unit length
SHAPES = [{"B": 2, "S": 5, "HQ": 4, "HK": 2, "D": 64}, {"B": 1, "S": 17, "HQ": 3, "HK": 1, "D": 200},
          {"B": 3, "S": 3, "HQ": 2, "HK": 2, "D": 20}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(B=2, S=5, HQ=4, HK=2, D=64, device="cpu"):
    g = torch.Generator().manual_seed(B * 100003 + S * 1009 + HQ * 101 + HK * 11 + D)
    q = torch.randn(B, S, HQ, D, generator=g)
    k = torch.randn(B, S, HK, D, generator=g)
    angles = torch.randn(S, D // 2, generator=g)
    freqs = torch.polar(torch.ones_like(angles), angles)
    return [q.to(device), k.to(device), freqs.to(device)]


def reference(q, k, freqs_cis):
    f = freqs_cis[None, :, None, :]
    qc = torch.view_as_complex(q.reshape(*q.shape[:-1], -1, 2).contiguous())
    kc = torch.view_as_complex(k.reshape(*k.shape[:-1], -1, 2).contiguous())
    q.copy_(torch.view_as_real(qc * f).flatten(-2))
    k.copy_(torch.view_as_real(kc * f).flatten(-2))
    return q, k
