#!/usr/bin/env bash
# late16's GPU proof (tests/test_late16_cases.py proves l5 on the CPU with the pick given, since Triton's interpreter
# holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are
# never changed. About 4 minutes.
#
#   l5: `kernelopt tune --device cuda` (a 120 s wall) on break16's warps_helper with its block computed through a
#   parameter's default (`def _block(w=NUM_WARPS)`): before the fix a pick of num_warps=32 was "only num_warps
#   moved", the net not cast, and written wrong at n=64 and 1088. The kernel.py left is checked at n = 64, 1088,
#   8256 and 2**20.
#   l3 (left): a loaded int32 of 1, and an argument of 1 under do_not_specialize, in `and` fail the GPU compile,
#   where the interpreter runs them (docs/faults.md, late16).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 480 tests/test_late16_cases.py -k on_a_gpu
progress "done"
