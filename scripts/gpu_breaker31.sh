#!/usr/bin/env bash
# Issue 32, the thirty-first held-out trial (tests/test_breaker31_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 8 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker31_cases.py: the trial's four kernels compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor): the split-K GEMM (its split from
#      the GPU's SM count) over 128 x 2**20 by 2**20 x 128 fp16, 16 x 65537 by 65537 x 4096 and 8192 cubed; the
#      block-sparse matmul over 16384 x 16384 fp16 (a third of its 32 x 32 blocks) and 4096 x 32768 by 32768 x 4097;
#      the depthwise 1-D convolution over 16 x 1024 x 16384 fp32 (width 3), 3 x 4097 x 20001 (width 9, the dict's
#      default) and width 7; the column statistics of 2**20 x 256 and 65537 x 4099 fp32; and the forms tune writes
#      (splitk_sms' rows of 32, bsmm_layout's 128 columns, colstats_env's 128 x 128 with the environment's default
#      moved), correct at sizes the SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of splitk_sms
#      (q111: BLOCK_K past 32 set aside, its split below the tile), colstats_env (q113: a tile the environment may
#      set, unset here) and bsmm_layout (BLOCK_N; the layout's block refused); dwconv_dict has no knob on the CPU
#      (q110: its widths take different entries of `_TILES`, exit 2 in one line) and is not tuned.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker31_cases.py
tune_copies tests/data/breaker31 splitk_sms colstats_env bsmm_layout
progress "done"
