#!/usr/bin/env bash
# net12: the net's leftovers (tests/test_net12_cases.py proves them on the CPU in Triton's interpreter) on one NVIDIA
# GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   tests: the GPU tests of tests/test_net12_cases.py and tests/test_net11_cases.py on cuda: grid_named_copy (v23, its
#   rule off) over entries of 2**19 and 2**20 elements, the pick BLOCK=128 failing its own check on the entries and
#   giving way to BLOCK=512 (the H100 run's case, which wrote nothing before net12), the net's first size weighed by
#   the entries' check seconds; an int32 output at 2**20 + 1 elements in the net's own check (half of it unwritten,
#   a store past its end: both seen through the integer fence); a table row wrong only where the rows are many,
#   caught by a dimension moved below the smallest entry alone (M=16,N=33).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 240 tests/test_net12_cases.py tests/test_net11_cases.py
progress "done"
