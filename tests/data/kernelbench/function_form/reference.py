"""A function-form problem: scaled sum of two vectors."""

import torch

n = 4096


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return 2.0 * x + y


def get_inputs() -> list[torch.Tensor]:
    return [torch.randn(n), torch.randn(n)]
