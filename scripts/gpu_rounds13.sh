#!/usr/bin/env bash
# rounds13: honest comparisons and the pick's fallbacks (tests/test_rounds13_cases.py proves them on the CPU) on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 2 minutes.
#
#   tests: the GPU test of tests/test_rounds13_cases.py on cuda: discovery's run of leftovers13's partial sum (its
#   autotuner's do_bench runs each config many times on the call's tensors) says the kernel as written is wrong on
#   its first call, and nothing with reset_to_zero; kstep's one guard block (BLOCK_N, BLOCK_M, KSTEP under
#   N <= 16 * 65535) compiled and right at N = 100 and N = 16 * 65535;
#   tune: `kernelopt tune --device cuda --json` on a copy of tests/data/leftovers13/first_call (the line under its
#   table) and of tests/data/variants/pid_map_literal (a refused pick gives way to the next-best), each written
#   kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_first_call.json/.txt, tune_pid_map_literal.json/.txt, kernel_*.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 200 tests/test_rounds13_cases.py
tune_copies tests/data/leftovers13 first_call
tune_copies tests/data/variants pid_map_literal
progress "done"
