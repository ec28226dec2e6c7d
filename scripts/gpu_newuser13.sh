#!/usr/bin/env bash
# newuser13's GPU proof (tests/test_newuser13_cases.py proves n69 and n70 on the CPU with the pick given, since
# Triton's interpreter holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks
# and settings are never changed. About 5 minutes.
#
#   n69: `kernelopt tune --device cuda` (a 120 s wall) on tests/data/newuser13/warps_module, a ReLU over n // BLOCK
#   programs without masks whose BLOCK is computed at module level from the warps (`NUM_WARPS = 2`,
#   `BLOCK = NUM_WARPS * 32`): before the fix a pick of num_warps=32 was "only num_warps moved", the net not cast,
#   and written wrong at n=64 and 1088.
#   n70: the same on tests/data/newuser13/warps_default (`def run(x, nw=2)`, `BLOCK = nw * 32`). Each kernel.py left
#   is checked at n = 64, 1088, 8256 and 2**20.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_newuser13_cases.py -k on_a_gpu
progress "done"
