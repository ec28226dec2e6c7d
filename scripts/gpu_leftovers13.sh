#!/usr/bin/env bash
# leftovers13: the twelfth session's correctness leftovers (tests/test_leftovers13_cases.py proves them on the CPU in
# Triton's interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never
# changed. About 3 minutes.
#
#   tests: the GPU tests of tests/test_leftovers13_cases.py on cuda: the gate's check of a partial sum autotuned
#   without reset_to_zero (wrong on its first call only: Triton's do_bench runs each config on the call's tensors)
#   named with its cause and fix, and right with reset_to_zero; Transformer Engine's called autotune list written as
#   two configs inside its try, right at 11 x 3 x 33 and 4096 x 8 x 4096;
#   tune: `kernelopt tune --device cuda --json` on a copy of tests/data/breaker12/te_permute (its list applied by a
#   call, tuned since leftovers13), the written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_te_permute.json/.txt, kernel_te_permute.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 240 tests/test_leftovers13_cases.py
tune_copies tests/data/breaker12 te_permute
progress "done"
