import torch

SHAPES = [{"B": 1, "T": 128, "H": 2, "K": 64}, {"B": 2, "T": 100, "H": 1, "K": 48}, {"B": 1, "T": 70, "H": 3, "K": 128}]
CHUNK = 64  # the operator's chunk (fla's chunk_size=64): the reference sums within the same chunks
ATOL = 5e-2  # fp32 dots are TF32 on a GPU (10-bit mantissas over K = 128 products of N(0, 1) values)
RTOL = 1e-2


def get_inputs(B=1, T=128, H=2, K=64, device="cpu"):
    g = torch.Generator().manual_seed(B * 100000 + T * 100 + H * 10 + K)
    k = torch.nn.functional.normalize(torch.randn(B, T, H, K, generator=g), dim=-1)
    beta = torch.rand(B, T, H, generator=g)
    return [k.to(device), beta.to(device)]


def reference(k, beta):
    B, T, H, K = k.shape
    A = torch.zeros(B, T, H, CHUNK, device=k.device, dtype=torch.float32)
    for s in range(0, T, CHUNK):
        e = min(s + CHUNK, T)
        kc = k[:, s:e].transpose(1, 2)  # B, H, c, K
        a = (kc * beta[:, s:e].transpose(1, 2)[..., None]) @ kc.transpose(-1, -2)
        a = torch.tril(a, -1)
        A[:, s:e, :, : e - s] = a.transpose(1, 2)
    return A
