"""Inline CUDA: knobs are module constants marked for kernelopt and fed into the source."""

import torch
from torch.utils.cpp_extension import load_inline

THREADS = 256  # kernelopt: tunable
# kernelopt: tunable category=vectorized_access values=1,2,4
VEC = 4
UNROLL = 2 * 2  # kernelopt: tunable
ITEMS = 8  # kernelopt: tunable min=1 max=64

CUDA_SRC = f"""
#define THREADS {THREADS}
#define VEC {VEC}
__global__ void scale(const float* x, float* y, int n) {{
    int i = (blockIdx.x * THREADS + threadIdx.x) * VEC;
    for (int v = 0; v < VEC; ++v) if (i + v < n) y[i + v] = 2.0f * x[i + v];
}}
"""


def run(x):
    mod = load_inline("scale", cpp_sources="", cuda_sources=CUDA_SRC, functions=["scale"])
    y = torch.empty_like(x)
    mod.scale(x, y, x.numel())
    return y
