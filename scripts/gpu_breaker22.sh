#!/usr/bin/env bash
# Issue 32, the twenty-second held-out trial (tests/test_breaker22_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 9 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker22_cases.py: the trial's eight originals compiled by
#      Triton at a small odd size and at realistic sizes (128 MB - 1 GB a tensor where memory matters: Megatron's
#      routing-map padding (one block of 8192 tokens a row, 128 experts), MLA YaRN RoPE in place through its BLOCK_H
#      autotune list with restore_value, and batch-invariant persistent GEMM over the SM count; trident's cosine
#      similarity through its own autotune wrapper; fla's KDA gate through its JSON file for the GPU's name (an
#      Autotuner subclass) and its inline-PTX softplus; Liger's Llama 4 RoPE in place; xformers' scaled index add in
#      place; AITER's GEMM through its JSON files for the GPU's architecture (90), split along K at one row), and the
#      forms tune writes for GPU picks (xformers' literal blocks under the grid guard, Liger's helper-computed block as
#      a table, the batch-invariant GEMM's float32 entry of its dict by dtype), correct at sizes the SHAPES do not
#      name, the GEMM's at an A of 2**31 + 4096 elements (its A_LARGE int64 offsets);
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of trident_cos
#      (a static method's list under trident's autotune wrapper), mg_mla_rope (an in-place autotune list whose head
#      mask is right only where BLOCK_H divides the heads or covers them: the net's 17 heads) and mg_bi_matmul (a
#      dict of tiles by dtype, persistent over the SMs).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker22_cases.py
tune_copies tests/data/breaker22 trident_cos mg_mla_rope mg_bi_matmul
progress "done"
