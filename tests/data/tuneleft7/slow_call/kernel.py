"""A correct kernel whose one call takes a while, as a Triton kernel's does in the interpreter on the CPU."""

import time

import torch

CALL_S = 0.25


def run(x: torch.Tensor) -> torch.Tensor:
    time.sleep(CALL_S)
    return x * 2.0
