import torch

# table rows, width, batch, tokens (index 0 the padding row)
SHAPES = [{"V": 40, "D": 96, "B": 2, "T": 37}, {"V": 300, "D": 33, "B": 1, "T": 270}, {"V": 7, "D": 200, "B": 3, "T": 5}]
ATOL = 1e-5
RTOL = 1e-5


def get_inputs(V=40, D=96, B=2, T=37, device="cpu"):
    g = torch.Generator().manual_seed(V * 100000 + D * 1000 + B * 100 + T)
    table = torch.randn(V, D, generator=g)
    idx = torch.randint(0, V, (B, T), generator=g)
    grad = torch.randn(B, T, D, generator=g)
    return [table.to(device), idx.to(device), grad.to(device)]


def reference(weight, indices, grad_output):
    w = weight.double().detach().requires_grad_(True)
    out = torch.nn.functional.embedding(indices, w, padding_idx=0, scale_grad_by_freq=True)
    (grad,) = torch.autograd.grad(out, w, grad_output.double())
    return grad.float()
