import torch

SHAPES = [{"R": 200, "C": 10}, {"R": 128, "C": 4}, {"R": 33, "C": 7}]
ATOL = 0
RTOL = 0


def get_inputs(R=200, C=10, device="cpu"):
    g = torch.Generator().manual_seed(R * 100 + C)
    return [torch.randint(1, 255, (R, C), generator=g, dtype=torch.uint8).to(device)]


def reference(scales):
    # torchao's to_blocked: pad to 128 x 4 blocks, each block (128, 4) -> (4, 32, 4) -> (32, 4, 4) -> (32, 16)
    rows, cols = scales.shape
    n_row_blocks, n_col_blocks = -(-rows // 128), -(-cols // 4)
    padded = torch.zeros(n_row_blocks * 128, n_col_blocks * 4, dtype=scales.dtype, device=scales.device)
    padded[:rows, :cols] = scales
    blocks = padded.view(n_row_blocks, 128, n_col_blocks, 4).permute(0, 2, 1, 3)
    rearranged = blocks.reshape(-1, 4, 32, 4).transpose(1, 2).reshape(-1, 32, 16)
    return rearranged.flatten().view(n_row_blocks * 128, n_col_blocks * 4)
