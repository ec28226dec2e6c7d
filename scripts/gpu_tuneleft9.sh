#!/usr/bin/env bash
# Issue 32, tuneleft9 (tests/test_list_screen.py proves it on the CPU in Triton's interpreter) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   1. tests: the GPU test of tests/test_list_screen.py: fa2_causal's list tuned to two 32-wide key blocks, pinned
#      alone, fails at a head dimension of 16 (its tl.static_assert, a CompileTimeAssertionFailure read as invalid);
#      with the original configs kept after the tuned ones it is correct at 16, 32 and 64, as the original is;
#   2. tune: `kernelopt tune --device cuda --json` on a copy of fa2_causal (the list's own filter `keep` and the
#      static_assert hold every candidate on the GPU too: each one they reject set aside untimed, never charged), a
#      60 s wall, the written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_fa2_causal.json/.txt, kernel_fa2_causal.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_list_screen.py tests/data/breaker8 fa2_causal
