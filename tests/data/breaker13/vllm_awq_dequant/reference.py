import torch

# K rows of weights, N output columns (eight a packed word), G the checkpoint's group of rows
SHAPES = [{"K": 128, "N": 256, "G": 64}, {"K": 96, "N": 72, "G": 32}, {"K": 256, "N": 128, "G": 128}]
ATOL = 1e-3
RTOL = 1e-3
AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]  # the nibble of a word that holds column j of its eight


def _pack(q: torch.Tensor) -> torch.Tensor:
    """(R, C) values in 0..15 -> (R, C // 8) int32, column 8 * w + j in nibble AWQ_ORDER.index(j)."""
    R, C = q.shape
    words = torch.zeros(R, C // 8, dtype=torch.int64, device=q.device)
    for j in range(8):
        words |= q[:, j::8].to(torch.int64) << (4 * AWQ_ORDER.index(j))
    return (words - (words >= 2**31).to(torch.int64) * 2**32).to(torch.int32)


def _unpack(words: torch.Tensor) -> torch.Tensor:
    w = words.to(torch.int64) & 0xFFFFFFFF
    cols = [(w >> (4 * AWQ_ORDER.index(j))) & 0xF for j in range(8)]
    return torch.stack(cols, dim=-1).reshape(words.shape[0], words.shape[1] * 8)


def get_inputs(K=128, N=256, G=64, device="cpu"):
    g = torch.Generator().manual_seed(K * 10000 + N * 10 + G)
    q = torch.randint(0, 16, (K, N), generator=g)
    z = torch.randint(0, 16, (K // G, N), generator=g)
    scales = (torch.rand(K // G, N, generator=g) / 8 + 0.01).half()
    return [_pack(q).to(device), scales.to(device), _pack(z).to(device)]


def reference(qweight, scales, zeros):
    G = qweight.shape[0] // scales.shape[0]
    q = _unpack(qweight)
    z = _unpack(zeros).repeat_interleave(G, 0)
    s = scales.repeat_interleave(G, 0)
    return ((q - z).to(torch.float16) * s).to(scales.dtype)
