#!/usr/bin/env bash
# break16's GPU proof (tests/test_break16_cases.py proves b13 on the CPU with the pick given, since Triton's
# interpreter holds the launch options, and b14 in the interpreter) on one NVIDIA GPU (run from the repository root,
# $OUT set). GPU clocks and settings are never changed. About 5 minutes.
#
#   b13: `kernelopt tune --device cuda` (a 120 s wall) on tests/data/break16/warps_helper (a ReLU over n // BLOCK
#   programs without masks whose BLOCK a helper computes from the warps: `def _block(): return NUM_WARPS * 32`) and
#   warps_augmented (`BLOCK = 32`, `BLOCK *= nw`): before the fix a pick of num_warps=32 was "only num_warps moved",
#   the net not cast, and written wrong at n=64 and 1088. Each kernel.py left is checked at n = 64, 1088, 8256 and 2**20.
#   b14: bool_scalar's `or` before an atomic adds in every program on the GPU, as the interpreter now counts.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 480 tests/test_break16_cases.py -k on_a_gpu
progress "done"
