import torch

# x, residual [B, T, H] fp16 (H a multiple of 4), weight [H] fp16
SHAPES = [{"B": 2, "T": 40, "H": 256}, {"B": 1, "T": 7, "H": 1000}, {"B": 3, "T": 100, "H": 64}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(B=2, T=40, H=256, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + T * 100 + H)
    x = torch.randn(B, T, H, generator=g).half()
    w = (torch.rand(H, generator=g) + 0.5).half()
    r = torch.randn(B, T, H, generator=g).half()
    return [x.to(device), w.to(device), r.to(device)]


def _rms(x, w, eps=1e-6):
    xf = x.float()
    return w * (xf * torch.rsqrt(xf.square().mean(-1, keepdim=True) + eps)).to(x.dtype)


def reference(x, weight, residual):
    s = x + residual
    heads = x.view(x.shape[0], x.shape[1], 4, -1)[0].transpose(0, 1)
    return _rms(s, weight), s, _rms(heads, weight[: heads.shape[-1]])
