import torch

# A of [B, T, H, BT] (BT the operator's chunk: 16, 32 or 64); T not a multiple of 16 in two entries
SHAPES = [{"B": 2, "T": 70, "H": 2, "BT": 64}, {"B": 1, "T": 48, "H": 3, "BT": 16}, {"B": 3, "T": 37, "H": 1, "BT": 32}]
ATOL = 1e-4
RTOL = 1e-4


def get_inputs(B=2, T=70, H=2, BT=64, device="cpu"):
    gen = torch.Generator().manual_seed(B * 100000 + T * 100 + H * 10 + BT)
    A = torch.randn(B, T, H, BT, generator=gen) * 0.1
    # strictly lower triangular within each chunk of BT rows (the columns are the chunk's positions)
    row = torch.arange(T)[:, None] % BT
    col = torch.arange(BT)[None, :]
    A = A * (col < row).to(A.dtype)[None, :, None, :]
    return [A.to(device)]


def reference(A):
    B, T, H, BT = A.shape
    out = torch.zeros(B, T, H, 16, device=A.device, dtype=torch.float32)
    for s in range(0, T, 16):
        e = min(s + 16, T)
        n = e - s
        c = s % BT
        blk = A[:, s:e, :, c : c + n].permute(0, 2, 1, 3)  # B, H, n, n
        blk = torch.tril(blk, -1)
        eye = torch.eye(n, device=A.device, dtype=torch.float32)
        inv = torch.linalg.inv(eye + blk)
        out[:, s:e, :, :n] = inv.permute(0, 2, 1, 3)
    return out
