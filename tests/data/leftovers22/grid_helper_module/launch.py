"""The package's launch helpers: its tile and the grid that counts it."""

import triton

BLOCK = 1024


def grid_for(n):
    return (triton.cdiv(n, BLOCK),)
