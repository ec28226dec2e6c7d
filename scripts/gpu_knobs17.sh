#!/usr/bin/env bash
# knobs17: an int8 tl.dot's least K on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings
# are never changed. About 4 minutes.
#
#   1. tests: the GPU test of tests/test_knobs17_cases.py: an int8 GEMM at BLOCK_K=16 fails to compile (Triton's
#      min_dot_size: K >= 32 for 8-bit operands), at 32 it compiles and is exact; tune --device cuda's space on
#      breaker16's bnb_int8_mm starts BLOCK_K at 32 (it offered 16 on the H100, 2026-12-06);
#   2. tune: `kernelopt tune --device cuda --json` on copies of tests/data/breaker16/bnb_int8_mm and mamba_chunk_state
#      (a 60 s wall each): bnb_int8_mm's `knobs` list BLOCK_K from 32 and no candidate fails to compile at K=16;
#      mamba_chunk_state's written list keeps the options its pick's tile carries.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_knobs17_cases.py tests/data/breaker16 bnb_int8_mm mamba_chunk_state
