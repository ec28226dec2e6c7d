"""What the scripted coding agents share: the stage, version and prompt they were started with."""

import os
import sys
from pathlib import Path

STAGE = os.environ["KERNELOPT_STAGE"]
VERSION = int(os.environ["KERNELOPT_VERSION"])
PROMPT = Path(sys.argv[1]).read_text() if len(sys.argv) > 1 else sys.stdin.read()
REPAIR = "## Repair attempt" in PROMPT

SINGLE_PASS = '''"""Row softmax on torch CPU tensors in one pass: each row's max, exp-sum and normalize at once."""

import torch


def run(x):
    e = torch.exp(x - x.amax(dim=1, keepdim=True))
    return e / e.sum(dim=1, keepdim=True)
'''

NARROW = '''"""Row softmax in one pass over a row's first 128 columns."""

import torch


def run(x):
    head = x[:, :128]
    e = torch.exp(head - head.amax(dim=1, keepdim=True))
    out = torch.empty_like(x)
    out[:, :128] = e / e.sum(dim=1, keepdim=True)
    out[:, 128:] = 0
    return out
'''


def write_kernel(text: str) -> None:
    Path("kernel.py").write_text(text)


def slower(text: str) -> str:
    """The kernel with every pass run four times (same result, four times the work)."""
    return text.replace("    for i in range(rows):", "    for _ in range(4):\n      for i in range(rows):").replace(
        "\n        ", "\n          "
    )
