#!/usr/bin/env bash
# Issue 32, the eleventh held-out trial (tests/test_breaker11_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 7 minutes.
#
#   1. tests: the GPU test of tests/test_breaker11_cases.py: the trial's eight originals compiled by Triton at their
#      SHAPES and at realistic sizes (256 MB - 1 GB a tensor where the kernel allows: vLLM's int8 scaled_mm with its
#      tile table, DeepSeek-V3's / torchao's block-scaled fp8 GEMM and fp8 activation quantization, Liger's TVD loss
#      and Qwen2-VL mrope in place, xformers' RMS norm, Unsloth's GEGLU backward in place, SGLang's moe_align) and the
#      forms tune wrote on the CPU (scaled_mm's table of tiles over M after vLLM's branches, with a row of what vLLM
#      computes; xformers' BLOCK_SIZE table over N after three reassignments; Unsloth's BLOCK_SIZE = 8192; Liger's
#      MAX_FUSED_SIZE = 32768), correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of scaled_mm (the tiles chosen by branches, tabled over
#      M), fp8_block_gemm (an autotune list whose BLOCK_SIZE_K is the scale block) and xformers_rms (a block
#      reassigned three times), default strategy, a 60 s wall each, each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker11_cases.py tests/data/breaker11 scaled_mm fp8_block_gemm xformers_rms
