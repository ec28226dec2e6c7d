#!/usr/bin/env bash
# Issue 32, the fourteenth held-out trial (tests/test_breaker14_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker14_cases.py: the trial's eight originals compiled by Triton at a small
#      odd size and at realistic sizes (256 MB - 1 GB a tensor: torchao's MX fp8 dequantization and scale swizzle,
#      fla's softmax (exp = tl.exp bound at module level), Mamba-2's gated norm, LightLLM's rotary embedding,
#      Liger-Kernel's group-norm backward (atomic dW / dB), attorch's GLU, DeepSpeed's residual add) and the forms
#      tune writes (torchao's pinned list, Mamba's BLOCK_N table, LightLLM's tiles, attorch's pinned block), correct
#      at sizes the SHAPES do not name; every form compiled for sm_90 here first (compile_for_target, 2026-12-06);
#   2. tune: `kernelopt tune --device cuda --json` on copies of ao_mx_dequant (a tile the body divides into a
#      constexpr, a list built by nested loops), attorch_glu (a list whose block a helper's parameter names) and
#      lightllm_rotary (two tiles beside a head's size passed as a block), default strategy, a 60 s wall each.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker14_cases.py tests/data/breaker14 ao_mx_dequant attorch_glu lightllm_rotary
