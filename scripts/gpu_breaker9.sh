#!/usr/bin/env bash
# Issue 32, the ninth held-out trial (tests/test_breaker9_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 5 minutes.
#
#   1. tests: the GPU test of tests/test_breaker9_cases.py: the trial's eight originals compiled by Triton at larger
#      sizes (SGLang's kv indices, DeepSpeed's layer norm, Unsloth's RoPE, FlagGems' sum, attorch's layer norm,
#      xformers' index select, vLLM's lightning attention, the grouped GEMM tutorial) and the forms the fixes write
#      (k1's constexpr local moved, k3's lambda falling back on attorch's heuristic), correct at sizes the SHAPES do
#      not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of kv_indices (k1: the body's BLOCK_SIZE), attorch_ln
#      (k3: BLOCK_SIZE_BATCH, k5: 2, 4 and 8 rows a program searched) and grouped_gemm (the tutorial's list with
#      NUM_SM from the device), default strategy, a 60 s wall each, each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker9_cases.py tests/data/breaker9 kv_indices attorch_ln grouped_gemm
