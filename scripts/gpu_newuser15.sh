#!/usr/bin/env bash
# newuser15's GPU proof (tests/test_newuser15_cases.py proves n85 on the CPU with the pick given, since Triton's
# interpreter holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 7 minutes.
#
#   n85: `kernelopt tune --device cuda` (a 120 s wall) on relu_tuple (break16's ReLU over n // BLOCK programs, CFG =
#   (2, 3), nw, ns = CFG at the launch, BLOCK = block_of(CFG) with block_of = lambda cfg: cfg[0] * 32) and
#   rowmax_tuple (a one-block row max, def block_of(cfg): return cfg[0] * 128): before the fix a pick of num_warps=32
#   was written wrong at n=64. The kernel.py each leaves is checked at sizes no entry names (n = 64, 1088, 8256,
#   2**20; N = 600, 1000, 1024, 513).
#   n86: the same on relu_computed (the ReLU's warps computed in run(), nw, ns = BIG if n > 10**9 else CFG, BLOCK = nw
#   * 32): before the fix a table `if n <= 8192: nw = 32` was written wrong at n=64.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 600 tests/test_newuser15_cases.py -k on_a_gpu
progress "done"
