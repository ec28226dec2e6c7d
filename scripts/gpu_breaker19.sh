#!/usr/bin/env bash
# Issue 32, the nineteenth held-out trial (tests/test_breaker19_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 8 minutes,
# 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker19_cases.py: the trial's eight originals compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor: flash-attention's rotary through
#      wrap_triton, its cross-entropy forward and backward through autograd, its persistent layer-norm backward
#      (a settings-only autotune list, partial dw / db), the matmul tutorial's autotuned GEMM with leaky ReLU,
#      LMDeploy's persistent RMS norm (launched twice a run) and SiLU-and-mul, FlagAttention's split-kv decoding,
#      Kernl's pruned-list linear layer) and the forms tune writes (d1's FlagAttention table, d2's cross-entropy
#      backward table of BLOCK_SIZE and num_warps, d4's LMDeploy table up to the hidden size), correct at sizes the
#      SHAPES do not name; dao_rotary's pick written first on the host's own torch (2.11 on the H100 of 2026-12-06,
#      whose wrap_triton refused the interpreter's kernels until gpunet20 g2's fix);
#   2. tune (a 60 s wall each): `kernelopt tune --device cuda --json` on copies of flag_splitkv (d1: its tiles
#      searched; d3: no twin of the original timed apart) and lmd_rms (d4: the search starts at the block covering
#      the hidden size), then on dao_xent's backward launch (`--kernel cross_entropy_bwd_kernel`, d2: BLOCK_SIZE with
#      num_warps written in one table over n_cols).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker19_cases.py
tune_copies tests/data/breaker19 flag_splitkv lmd_rms
tune_copy tests/data/breaker19 dao_xent --kernel cross_entropy_bwd_kernel
progress "done"
