#!/usr/bin/env bash
# Issue 32, the twenty-eighth held-out trial (tests/test_breaker28_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 8 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker28_cases.py: the trial's four originals compiled by
#      Triton at a small odd size and at realistic sizes (FlagAttention's flash forward, causal over 2 x 8 heads of
#      4096 queries of 128 and at odd lengths 3001 x 5003, through its device table's branch for this card;
#      LMDeploy's rotary embedding over 32768 tokens of 32 + 8 heads and at 4097 tokens of an 80-wide head; its W8A8
#      per-token quantization and autotuned int8 GEMM at 8192 cubed and at 4097 x 3001 x 4096; its paged fp8 KV-cache
#      fill for a prefill of 16 x 512 tokens after 1000 and a decode step of 64 sequences of a 576-wide head, fp8
#      compared within one fp8 step), and the forms tune writes for GPU picks (FlagAttention's blocks a table over M
#      after its device table, its mask flags following, run at 96 queries over 16384 keys and checked above its row;
#      the W8A8 list pinned to 64 x 128 x 64; the fp8 fill's head block 256 over the computation), correct at sizes
#      the SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of flag_flash
#      (q80: the head dimension no longer searched; q83: a table over a size that tells the entries apart), lmd_w8a8
#      (an autotune list with warmup / rep under do_not_specialize) and lmd_fill_fp8 (q80 / q81: the page size and
#      the quantization group held, the head block searched).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker28_cases.py
tune_copies tests/data/breaker28 flag_flash lmd_w8a8 lmd_fill_fp8
progress "done"
