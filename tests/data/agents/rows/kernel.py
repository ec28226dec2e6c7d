"""Row softmax on torch CPU tensors, in three passes over the rows (max, exp-sum, normalize).

The multi-pass starting point of the scripted coding-agent tests: each pass walks every row again.
"""

import torch


def run(x):
    rows = x.shape[0]
    row_max = torch.empty(rows, dtype=x.dtype)
    for i in range(rows):  # pass 1: the maximum of each row
        row_max[i] = x[i].max()
    row_sum = torch.empty(rows, dtype=x.dtype)
    for i in range(rows):  # pass 2: the sum of exponentials of each row
        row_sum[i] = torch.exp(x[i] - row_max[i]).sum()
    out = torch.empty_like(x)
    for i in range(rows):  # pass 3: normalize
        out[i] = torch.exp(x[i] - row_max[i]) / row_sum[i]
    return out
