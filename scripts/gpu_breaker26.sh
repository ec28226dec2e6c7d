#!/usr/bin/env bash
# Issue 32, the twenty-sixth held-out trial (tests/test_breaker26_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 8 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker26_cases.py: the trial's four originals compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor where memory matters: Liger's
#      ReLU-squared, 8 x 8192 x 4096 float32 and 3 x 4097 x 11007; its PolyNorm forward and backward, the backward
#      persistent over the GPU's SM count, 8 x 4096 x 4096; fla's logsumexp over 16 x 2048 rows of 4096 and over rows
#      of 250007 (four blocks of 65536, their partials reduced by torch); fla's log-cumsum-exp over 8192 steps of
#      64 and 4097 of 128), and the forms tune writes for GPU picks (Liger's forward blocks as tables by n_cols,
#      computed past them; fla's nine-config list pinned to BT=32), correct at sizes the SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of
#      liger_poly_norm (a helper's tuple handed to the backward through ctx), fla_logsumexp (q60: the block of a
#      partial buffer torch reduces; its -inf lanes times the scale) and fla_logcumsumexp (a comprehension of BT,
#      the fp32 carry cdiv(T, BT) chunks long).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker26_cases.py
tune_copies tests/data/breaker26 liger_poly_norm fla_logsumexp fla_logcumsumexp
progress "done"
