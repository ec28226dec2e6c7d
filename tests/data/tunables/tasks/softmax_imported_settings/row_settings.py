"""The launch settings several row kernels share: the block covers the row, more warps for longer rows."""

import triton


def pick_row_settings(n_cols):
    block = triton.next_power_of_2(n_cols)
    if block > 65536:
        raise ValueError(f"{n_cols} columns do not fit one block")
    return block, (16 if block >= 8192 else 8 if block >= 2048 else 4)
