"""A CPU stand-in for a tiled kernel with two interacting knobs (tests of the rules backend's search).

Its latency has an interior optimum at BLOCK_M=64, BLOCK_N=32 (an elliptic bowl in log2 space with a
cross term, so the knobs interact), and four configurations misbehave as GPU kernels can: one does not
build, one hangs, one kills its process, one returns a wrong result.
"""

import math
import os
import signal
import time

BLOCK_M = 16  # kernelopt: tunable
BLOCK_N = 256  # kernelopt: tunable

if BLOCK_M == 128 and BLOCK_N == 256:
    raise RuntimeError("ptxas error: entry function uses too much shared data")  # does not build


def _cost_s(bm: int, bn: int) -> float:
    a = math.log2(bm) - 6.0
    b = math.log2(bn) - 5.0
    return 1e-3 * (1.0 + 0.4 * (a * a + b * b + 0.5 * a * b))


def run(x):
    if BLOCK_M == 256 and BLOCK_N == 16:
        while True:  # hangs
            time.sleep(0.01)
    if BLOCK_M == 16 and BLOCK_N == 16:
        os.kill(os.getpid(), signal.SIGSEGV)  # an illegal memory access kills the process
    if BLOCK_M == 256 and BLOCK_N == 32:
        return x * 2 + 1  # wrong
    time.sleep(_cost_s(BLOCK_M, BLOCK_N))
    return x * 2
