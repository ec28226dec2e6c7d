#!/usr/bin/env bash
# Issue 32, leftovers10 (tests/test_shape_failures.py and tests/test_breaker9_cases.py prove it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 5 minutes.
#
#   1. tests: the GPU tests of tests/test_shape_failures.py: splitk_prune's keyed table whose K=200 best its prune
#      drops at K=96 (a config set aside at one SHAPES entry, timed at the other), correct at K from 40 to 4096 with
#      Triton's autotuner benchmarking what the prune keeps at each key; the [16, 256, 32] table tune wrote for a
#      list whose tl.static_assert refuses 256 and 32 at N=16, correct at N 16..4096 with the autotuner skipping
#      what the assert refuses (CompileTimeAssertionFailure); and the shapefail test beside them;
#   2. tune: `kernelopt tune --device cuda --json` on copies of splitk_prune (the per-entry screen on a GPU) and
#      rope_group (Unsloth's ROPE_GROUP_SIZE, a work group searched 1..16), a 60 s wall each, each written kernel.py
#      kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 900 tests/test_shape_failures.py
tune_copies tests/data/breaker5 splitk_prune
tune_copies tests/data/breaker9 rope_group
progress "done"
