#!/usr/bin/env bash
# The sixth new-user trial's GPU proof (tests/test_newuser6_cases.py proves the rest on the CPU) on one NVIDIA GPU
# (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 1 minute.
#
#   tests: the GPU test of tests/test_newuser6_cases.py: inputs past the device's memory (`torch.empty(2**40)` built
#   on the GPU: CUDA's OutOfMemoryError at once) are the checker's, exit 3, in `validate --device cuda` as in `tune`
#   (n18), not "reference.py fails", exit 2.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"

gpu_tests 600 tests/test_newuser6_cases.py
progress "done"
