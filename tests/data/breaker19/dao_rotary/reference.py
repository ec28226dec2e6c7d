import torch

# x [B, S, H, D] fp16, cos / sin [S + 8, R / 2] (R = rotary dim <= D), offsets [B] int32 (< 8)
SHAPES = [{"B": 2, "S": 33, "H": 3, "D": 64, "R": 64}, {"B": 1, "S": 70, "H": 5, "D": 48, "R": 32},
          {"B": 3, "S": 9, "H": 2, "D": 160, "R": 160}]
ATOL = 1e-2
RTOL = 1e-2


def get_inputs(B=2, S=33, H=3, D=64, R=64, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + S * 100 + H * 10 + D + R)
    x = torch.randn(B, S, H, D, generator=g).half()
    angle = torch.rand(S + 8, R // 2, generator=g) * 6.28
    offsets = torch.randint(0, 8, (B,), generator=g, dtype=torch.int32)
    return [x.to(device), angle.cos().half().to(device), angle.sin().half().to(device), offsets.to(device)]


def _rotate(x, cos, sin, interleaved):
    # x [B, S, H, R] float, cos / sin [B, S, R / 2]
    c, s = cos[:, :, None, :], sin[:, :, None, :]
    if interleaved:
        x0, x1 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1).flatten(-2)
    x0, x1 = x.chunk(2, dim=-1)
    return torch.cat([x0 * c - x1 * s, x0 * s + x1 * c], dim=-1)


def reference(x, cos, sin, offsets):
    B, S, H, D = x.shape
    R = cos.shape[1] * 2
    xf, cf, sf = x.float(), cos.float(), sin.float()
    pos = torch.arange(S, device=x.device)
    outs = []
    for interleaved, rows in ((False, pos[None, :] + offsets[:, None].long()), (True, (pos + 1)[None, :].expand(B, S))):
        out = xf.clone()
        out[..., :R] = _rotate(xf[..., :R], cf[rows], sf[rows], interleaved)
        outs.append(out.to(x.dtype))
    return tuple(outs)
