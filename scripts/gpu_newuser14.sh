#!/usr/bin/env bash
# newuser14's GPU proof (tests/test_newuser14_cases.py proves n75, n77 and n81 on the CPU with the pick given, since
# Triton's interpreter holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks
# and settings are never changed. About 7 minutes.
#
#   n75, n77, n81: `kernelopt tune --device cuda` (a 120 s wall) on opts_dict (break16's ReLU over n // BLOCK
#   programs, BLOCK = opts["num_warps"] * 32, launched with **opts), rowmax_opts (a one-block row max, BLOCK =
#   opts["num_warps"] * 128) and rowmax_helper (its block from a helper, def _block(): return NW * 128): before the
#   fixes a pick of num_warps=32 (n75) or 4 (n77, n81) was written wrong. The kernel.py each leaves is checked at
#   sizes no entry names (n = 64, 1088, 8256, 2**20; N = 600, 1000, 1024, 513).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 600 tests/test_newuser14_cases.py -k on_a_gpu
progress "done"
