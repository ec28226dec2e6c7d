#!/usr/bin/env bash
# newuser11's GPU proof (tests/test_newuser11_cases.py proves n61 on the CPU with the pick given, since Triton's
# interpreter holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 3 minutes.
#
#   n61: `kernelopt tune --device cuda` (a 120 s wall) on tests/data/newuser11/warps_block, whose BLOCK is computed
#   from num_warps (`BLOCK = num_warps * 32`) over a grid of n // BLOCK programs without masks: the session searches
#   num_warps there, and the kernel.py it leaves is run at n = 64, 1088, 4160, 8256 and 2**20 (multiples of the
#   original's 64) against the reference: before the fix a pick of num_warps=32 went out un-netted, wrong at n=64.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_newuser11_cases.py -k on_a_gpu
progress "done"
