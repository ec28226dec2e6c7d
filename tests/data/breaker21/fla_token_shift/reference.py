import torch

# (B, T, D) hidden states and the gradient of the shift's output; D off a power of two in two entries
SHAPES = [{"B": 2, "T": 9, "D": 100}, {"B": 1, "T": 16, "D": 64}, {"B": 3, "T": 5, "D": 33}]
ATOL = 1e-6
RTOL = 1e-6


def get_inputs(B=2, T=9, D=100, device="cpu"):
    g = torch.Generator().manual_seed(B * 100003 + T * 101 + D)
    return [torch.randn(B, T, D, generator=g).to(device), torch.randn(B, T, D, generator=g).to(device)]


def reference(x, dy):
    x = x.detach().requires_grad_(True)
    shifted = torch.nn.functional.pad(x, (0, 0, 1, -1))  # fla's token_shift_ref: ZeroPad2d((0, 0, 1, -1))
    y = shifted - x
    (dx,) = torch.autograd.grad(y, x, dy)
    return y.detach(), dx
