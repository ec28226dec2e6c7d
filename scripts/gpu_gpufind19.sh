#!/usr/bin/env bash
# gpufind19: what the H100 run of 2026-12-06 showed, on one NVIDIA GPU (run from the repository root, $OUT set). GPU
# clocks and settings are never changed. About 2 minutes.
#
#   tests: the GPU test of tests/test_gpufind19_cases.py: `kernelopt tune --device cuda --json --budget-wall-s 60` on a
#   copy of breaker16's bnb_int8_mm, whose kernel as written faults at M=37 ("CUDA error: misaligned address"): the
#   entry is set aside after one check of the kernel as written alone there, its bench worker started once for the
#   rounds (before: once a candidate, about 35 s of a 47.6 s wall, 4 evaluations), the pace's parts summing to its
#   rounds (tests.txt keeps the "gpufind19 g2 ..." line: evaluations, pace, the entry's worker starts).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 290 -s --durations=5 tests/test_gpufind19_cases.py
progress "done"
