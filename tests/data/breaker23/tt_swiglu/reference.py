import torch
import torch.nn.functional as F

# a fused gate/up projection h (T tokens, F, 2) in bfloat16, its gate h[..., 0] and up h[..., 1] (column stride 2), a
# gradient of the output, grouped_mm's offsets (three groups, the last ending at T): silu(gate) * up and its gradients
SHAPES = [{"T": 24, "F": 96}, {"T": 7, "F": 300}, {"T": 50, "F": 16}]
ATOL = 2e-2
RTOL = 2e-2


def get_inputs(T=24, F=96, device="cpu"):
    g = torch.Generator().manual_seed(T * 4099 + F)
    h = torch.randn(T, F, 2, generator=g).to(torch.bfloat16)
    grad_out = torch.randn(T, F, generator=g).to(torch.bfloat16)
    offsets = torch.tensor([T // 3, (2 * T) // 3, T], dtype=torch.int32)
    return [h.to(device), grad_out.to(device), offsets.to(device)]


def reference(h, grad_out, offsets):
    gate, up = h[..., 0].float(), h[..., 1].float()
    gate.requires_grad_(True)
    up.requires_grad_(True)
    out = F.silu(gate) * up
    out.backward(grad_out.float())
    return out.detach().to(h.dtype), gate.grad.to(h.dtype), up.grad.to(h.dtype)
