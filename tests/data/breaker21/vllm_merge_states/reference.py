import torch

# T tokens, H heads, D head size (80: the padded head of 128 masked); one prefix lse +inf (FA2's empty prefix)
SHAPES = [{"T": 5, "H": 4, "D": 80}, {"T": 33, "H": 2, "D": 128}, {"T": 7, "H": 8, "D": 64}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(T=5, H=4, D=80, device="cpu"):
    g = torch.Generator().manual_seed(T * 10007 + H * 101 + D)
    prefix_output = torch.randn(T, H, D, generator=g)
    suffix_output = torch.randn(T, H, D, generator=g)
    prefix_lse = torch.randn(H, T, generator=g) * 3
    suffix_lse = torch.randn(H, T, generator=g) * 3
    prefix_lse[0, 0] = float("inf")
    return [t.to(device) for t in (prefix_output, prefix_lse, suffix_output, suffix_lse)]


def reference(prefix_output, prefix_lse, suffix_output, suffix_lse):
    inf = float("inf")
    p = torch.where(prefix_lse == inf, -inf, prefix_lse)
    s = torch.where(suffix_lse == inf, -inf, suffix_lse)
    lse = torch.logaddexp(p, s)
    p_scale = torch.exp(p - lse).T[:, :, None]
    s_scale = torch.exp(s - lse).T[:, :, None]
    return prefix_output * p_scale + suffix_output * s_scale, lse
