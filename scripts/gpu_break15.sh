#!/usr/bin/env bash
# break15's GPU proof (tests/test_break15_cases.py proves b9 on the CPU with the pick given, since Triton's interpreter
# holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are
# never changed. About 3 minutes.
#
#   b9: `kernelopt tune --device cuda` (a 120 s wall) on tests/data/break15/warps_unpacked (`nw = 2`,
#   `threads, rows = nw * 32, 1`, `BLOCK = threads`, a grid of n // BLOCK without masks): before the fix a pick of
#   num_warps=32 (BLOCK 1024) was "only num_warps moved", the net not cast. The kernel.py it leaves is run at
#   n = 64, 1088, 8256 and 2**20.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 300 tests/test_break15_cases.py -k on_a_gpu
progress "done"
