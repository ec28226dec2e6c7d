#!/usr/bin/env bash
# lostpicks13's GPU proof (tests/test_lostpicks13_cases.py proves l3's written text in the interpreter) on one NVIDIA
# GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   l3: `kernelopt tune --device cuda` (a 120 s wall) on tests/data/lostpicks13/gemv, a GEMV whose BLOCK_M is
#   computed from M and whose BLOCK_K=32 literal steps a loop over K without masks: the kernel.py it leaves is run at
#   K = 96, 160, 352 (multiples of 32, not of 128) and M past the sizes checked against the reference: a table with a
#   larger BLOCK_K is written only under its K divisibility test.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_lostpicks13_cases.py -k on_a_gpu
progress "done"
