import torch

# a (M, K) int8, b (K, N) int8, scales1 (M, 1) float32; c = (a @ b) * scales1, float32 (M, N). K a multiple of 64
# or odd: the kernel's EVEN_K is K % 2 == 0, its K loads unmasked then (right only where BLOCK_K divides K)
SHAPES = [{"M": 64, "N": 64, "K": 64}, {"M": 33, "N": 70, "K": 128}, {"M": 100, "N": 40, "K": 97}]
ATOL = 1e-3
RTOL = 1e-5


def get_inputs(M=64, N=64, K=64, device="cpu"):
    g = torch.Generator().manual_seed(M * 1000003 + N * 1009 + K)
    a = torch.randint(-128, 128, (M, K), generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (K, N), generator=g, dtype=torch.int8)
    scales1 = torch.rand(M, 1, generator=g) / 1000
    return [a.to(device), b.to(device), scales1.to(device)]


def reference(a, b, scales1):
    # float64 holds every int8 product's sum exactly up to K = 2**37 (CUDA has no int64 matmul)
    return ((a.double() @ b.double()) * scales1.double()).float()
