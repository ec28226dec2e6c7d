import torch

# token counts [R ranks, E local experts] int32 (some zero, some runs longer than one 128 block)
SHAPES = [{"R": 4, "E": 8, "L": 300}, {"R": 2, "E": 3, "L": 40}, {"R": 8, "E": 16, "L": 150}]
ATOL = 0
RTOL = 0


def get_inputs(R=4, E=8, L=300, device="cpu"):
    g = torch.Generator().manual_seed(R * 100000 + E * 1000 + L)
    counts = torch.randint(0, L, (R, E), generator=g, dtype=torch.int32)
    counts[0, 0] = 0
    if E > 1:
        counts[:, 1] = 0  # an expert no rank sends a token
    return [counts.to(device)]


def reference(counts):
    R, E = counts.shape
    alignment = 16
    flat = counts.reshape(-1).cpu().to(torch.int64)
    max_len = int(flat.sum()) + E * alignment
    start = torch.cumsum(flat, 0) - flat
    total = torch.clamp_min(flat.view(R, E).sum(0), alignment)
    m_sizes = (total + alignment - 1) // alignment * alignment
    m_offsets = torch.cumsum(m_sizes, 0)
    out = torch.full((max_len,), -1, dtype=torch.int32)
    for e in range(E):
        w = int(m_offsets[e] - m_sizes[e])
        for r in range(R):
            i = r * E + e
            n = int(flat[i])
            out[w : w + n] = torch.arange(int(start[i]), int(start[i]) + n, dtype=torch.int32)
            w += n
    dev = counts.device
    return out.to(dev), m_sizes.to(torch.int32).to(dev), m_offsets.to(torch.int32).to(dev)
