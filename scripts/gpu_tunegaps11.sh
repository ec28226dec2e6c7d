#!/usr/bin/env bash
# Issue 32, lane tunegaps11 (tests/test_tunegaps11_cases.py proves it on the CPU in Triton's interpreter) on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   1. tests: the GPU test of tests/test_tunegaps11_cases.py: the tables this lane's rules write (a falling heuristic
#      tabled over the size its block covers, one table over a size spelled args["N"] and N, Mamba's authors' own
#      BLOCK_SIZE_M = 4 beside its tabled BLOCK_SIZE_DSTATE), compiled by Triton and correct at sizes the SHAPES do
#      not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of heur_rows (BLOCK_M searched from 2, the values its
#      heuristic gives) and keyed_nine (a keyed list of nine configurations, timed whole within the default budget),
#      default strategy, a 60 s wall each, each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_tunegaps11_cases.py tests/data/tunegaps11 heur_rows keyed_nine
