import torch

# scores: (B, H, N) float16 attention scores; mask: (B * H, N) float16, additive (0 or -10000, the first column 0); the softmax in float32
# stored as float16
SHAPES = [{"B": 2, "H": 3, "N": 300}, {"B": 1, "H": 5, "N": 2049}, {"B": 4, "H": 2, "N": 3}]
ATOL = 2e-3
RTOL = 2e-3


def get_inputs(B=2, H=3, N=300, device="cpu"):
    g = torch.Generator().manual_seed(B * 10007 + H * 101 + N)
    scores = (torch.randn(B, H, N, generator=g) * 3).half()
    mask = torch.where(torch.rand(B * H, N, generator=g) < 0.2, -10000.0, 0.0).half()
    mask[:, 0] = 0.0  # every row keeps one score
    return [scores.to(device), mask.to(device)]


def reference(scores, mask):
    plain = torch.softmax(scores.float(), dim=-1).half()
    s = scores.view(-1, scores.shape[-1]).float()
    masked = torch.exp(s - s.max(-1, keepdim=True).values + mask.float())
    return plain, (masked / masked.sum(-1, keepdim=True)).half()
