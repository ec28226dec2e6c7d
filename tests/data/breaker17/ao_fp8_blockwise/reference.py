import torch

# x [M, K] in bf16, K a multiple of the 128-wide quantization block
SHAPES = [{"M": 37, "K": 256}, {"M": 130, "K": 128}, {"M": 3, "K": 384}]
BLOCK = 128  # the quantization block (torchao's block_size): the reference scales the same blocks
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(M=37, K=256, device="cpu"):
    gen = torch.Generator().manual_seed(M * 1000 + K)
    x = torch.randn(M, K, generator=gen) * torch.rand(M, 1, generator=gen) * 4
    return [x.to(torch.bfloat16).to(device)]


def reference(x):
    M, K = x.shape
    blocks = x.float().reshape(M, K // BLOCK, BLOCK)
    amax = blocks.abs().amax(dim=-1).clamp(min=1e-12).double()
    scale = (448.0 / amax).float()
    y = (blocks * scale[..., None]).reshape(M, K).to(torch.float8_e4m3fn)
    return y, 1.0 / scale
