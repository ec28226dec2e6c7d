import torch

# E experts' weights (K, N) in bfloat16: e4m3 scales of each (expert, k) row (448 / amax over N) and the weights cast,
# transposed to (E, N, K) in a column-major layout
SHAPES = [{"E": 2, "K": 160, "N": 300}, {"E": 3, "K": 40, "N": 64}, {"E": 1, "K": 129, "N": 7}]
ATOL = 0
RTOL = 0


def get_inputs(E=2, K=160, N=300, device="cpu"):
    # drawn on the inputs' device: 2.15e9 weights at the GPU test's largest size
    g = torch.Generator(device=device).manual_seed(E * 100003 + K * 101 + N)
    scale = torch.rand(E, K, 1, generator=g, device=device) * 4
    w = (torch.randn(E, K, N, generator=g, device=device) * scale).to(torch.bfloat16)
    return [w]


def reference(w):
    amax = w.abs().amax(dim=2).to(torch.float64)
    scales = (448.0 / amax.clamp(min=1e-12)).to(torch.float32)
    out = torch.empty(w.shape[0], w.shape[2], w.shape[1], dtype=torch.float8_e4m3fn, device=w.device)
    for e in range(w.shape[0]):  # one expert at a time: a float32 copy of every expert's weights is large
        out[e] = (w[e].float() * scales[e, :, None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn).t()
    return out, scales
