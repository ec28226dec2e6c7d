import torch

# logits (B, L + 1, V) in bfloat16, the prompt-and-completion ids (B, P + L) and a completion mask (B, P + L): the
# log-probability at temperature 0.9 of each completion token (0 where masked)
SHAPES = [{"B": 2, "L": 5, "V": 3000, "P": 3}, {"B": 1, "L": 7, "V": 700, "P": 0}, {"B": 3, "L": 2, "V": 4100, "P": 1}]
ATOL = 1e-3
RTOL = 1e-3


def get_inputs(B=2, L=5, V=3000, P=3, device="cpu"):
    # drawn on the inputs' device: a real batch's logits (2.5e9 values) would take long on the host
    g = torch.Generator(device=device).manual_seed(B * 1009 + L * 31 + V + P)
    logits = (torch.randn(B, L + 1, V, generator=g, device=device) * 3).to(torch.bfloat16)
    ids = torch.randint(0, V, (B, P + L), generator=g, device=device)
    mask = (torch.rand(B, P + L, generator=g, device=device) > 0.25).to(torch.int32)
    return [logits, ids, mask]


def reference(logits, ids, mask):
    L = logits.shape[1] - 1
    rows = []
    for b in range(logits.shape[0]):  # one sequence at a time: a real batch's float32 copy would pass 10 GB
        lp = torch.log_softmax(logits[b, :L].float() / 0.9, dim=-1)
        rows.append(lp.gather(-1, ids[b, -L:, None]).squeeze(-1))
    got = torch.stack(rows)
    return torch.where(mask[:, -L:] != 0, got, torch.zeros_like(got))
