#!/usr/bin/env bash
# target18: tune --device cuda without --target on one NVIDIA GPU (run from the repository root, $OUT set) compiles
# its pick for the GPU's own target and writes no config that races. GPU clocks and settings are never changed. About
# 2 minutes.
#
#   tests: the GPU test of tests/test_target18_cases.py: `kernelopt tune --device cuda --json` (a 60 s wall) on fla's
#   chunk kkt (tests/data/breaker16/fla_kkt) with its autotune list cut to three configs that cannot race and one that
#   races on sm_90 under Triton 3.6 (BK=64 on four warps, three stages: docs/faults.md kkt18); the json's target line
#   (compiled for the GPU's own sm_NN), no racing config in the written list, and the kernel written right three runs
#   in a row at B=4, T=16384, H=16, K=128 against the reference in float64. tests.txt keeps the "target18 ..." lines.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 200 -s --durations=5 tests/test_target18_cases.py
progress "done"
