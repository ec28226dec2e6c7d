import torch

# a (M, K) float16; w_packed (K // 2, N) uint8, two 4-bit codes a byte along K (even k low); scales / zeros (K // G, N)
# float16, one a group of G rows of K; w = (code - zero) * scale; returns a @ w in float16. K a multiple of G
SHAPES = [{"M": 17, "N": 96, "K": 128, "G": 32}, {"M": 64, "N": 64, "K": 256, "G": 64}, {"M": 3, "N": 200, "K": 192, "G": 32}]
ATOL = 2e-2
RTOL = 1e-2


def get_inputs(M=17, N=96, K=128, G=32, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K * 13 + G)
    a = (torch.randn(M, K, generator=g) / 4).half()
    codes = torch.randint(0, 16, (K, N), generator=g, dtype=torch.uint8)
    w_packed = codes[0::2] | (codes[1::2] << 4)
    scales = (torch.rand(K // G, N, generator=g) / 8 + 0.01).half()
    zeros = torch.randint(6, 10, (K // G, N), generator=g).half()
    return [a.to(device), w_packed.to(device), scales.to(device), zeros.to(device)]


def reference(a, w_packed, scales, zeros):
    K = a.shape[1]
    codes = torch.empty((K, w_packed.shape[1]), dtype=torch.float64, device=a.device)
    codes[0::2] = (w_packed & 0xF).double()
    codes[1::2] = (w_packed >> 4).double()
    G = K // scales.shape[0]
    w = (codes - zeros.double().repeat_interleave(G, 0)) * scales.double().repeat_interleave(G, 0)
    return (a.double() @ w).to(a.dtype)
