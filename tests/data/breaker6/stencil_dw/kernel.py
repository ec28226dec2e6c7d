"""Depthwise 3x3 convolution (zero padding 1) of a (C, H, W) image, one BLOCK_H x BLOCK_W output tile a program.
run pads the input once, with the 1-pixel halo and up to a multiple of ALIGN, so the kernel loads and stores whole
tiles with no mask; the grid counts whole tiles of the padded size."""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

ALIGN = 16


@triton.jit
def _dw3x3(xp_ptr, w_ptr, out_ptr, Hp, Wp, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    c = tl.program_id(0)
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    src = xp_ptr + c * (Hp + 2) * (Wp + 2)
    acc = tl.zeros([BLOCK_H, BLOCK_W], dtype=tl.float32)
    for dh in tl.static_range(3):
        for dw in tl.static_range(3):
            wv = tl.load(w_ptr + c * 9 + dh * 3 + dw)
            acc += wv * tl.load(src + (oh[:, None] + dh) * (Wp + 2) + (ow[None, :] + dw))
    tl.store(out_ptr + c * Hp * Wp + oh[:, None] * Wp + ow[None, :], acc)


def run(x, w):
    C, H, W = x.shape
    Hp = triton.cdiv(H, ALIGN) * ALIGN
    Wp = triton.cdiv(W, ALIGN) * ALIGN
    xp = F.pad(x, (1, 1 + Wp - W, 1, 1 + Hp - H))
    out = torch.empty(C, Hp, Wp, device=x.device, dtype=torch.float32)
    BLOCK_H, BLOCK_W = 8, 16
    grid = (C, Hp // BLOCK_H, Wp // BLOCK_W)
    _dw3x3[grid](xp, w, out, Hp, Wp, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W, num_warps=4)
    return out[:, :H, :W]
