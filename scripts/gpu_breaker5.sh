#!/usr/bin/env bash
# Issue 32, the fifth held-out trial (tests/test_breaker5_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   1. tests: the GPU test of tests/test_breaker5_cases.py: the forms the fixes write (bp_gemv and persist_nomask
#      guarded, splitk_strict's list keeping the user's configs after the tuned one, moe_table's table copying the
#      dict) compiled by Triton and correct at sizes the SHAPES do not name, and the gate passing RoPE in place;
#   2. tune: `kernelopt tune --device cuda --json` on copies of bp_gemv, splitk_strict and rope_inplace (default
#      strategy, a 60 s wall each), each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker5_cases.py tests/data/breaker5 bp_gemv splitk_strict rope_inplace
