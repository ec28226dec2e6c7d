#!/usr/bin/env bash
# honest15's GPU proof (tests/test_honest15_cases.py replays the H100's session of 2026-12-06 13:24-13:40 on the CPU)
# on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 5
# minutes.
#
#   1. tests: the GPU test of tests/test_honest15_cases.py: `kernelopt tune --device cuda --json` (a 60 s wall) on a
#      copy of tests/data/breaker14/ao_mx_dequant (torchao's MX fp8 dequant, a keyed autotune list from a helper) at
#      breaker14's sizes; the json's figures agree with each other (better, speedup, gain_pct, per_shape, the
#      choice and the verdict), and a written kernel is timed beside the original at each shape (CUDA graphs, five
#      rounds each): no slower by more than 2 % (honest15_tune_ao_mx_dequant.json, honest15_time_ao_mx_dequant.json);
#   2. tune: the same tune on another copy, as breaker14's phase ran it (tune_ao_mx_dequant.json, kernel_*.py).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt, the two
# json files of the test, tune_ao_mx_dequant.json/.txt, kernel_ao_mx_dequant.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_src_path
gpu_trial tests/test_honest15_cases.py tests/data/breaker14 ao_mx_dequant
