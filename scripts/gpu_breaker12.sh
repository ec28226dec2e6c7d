#!/usr/bin/env bash
# Issue 32, the twelfth held-out trial (tests/test_breaker12_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 7 minutes.
#
#   1. tests: the GPU test of tests/test_breaker12_cases.py: the trial's eight originals compiled by Triton at their
#      SHAPES and at realistic sizes (256 MB - 1 GB a tensor where the kernel allows: Transformer Engine's MoE
#      permutation and unpermute backward, fla's l2norm on both of its kernels, Liger's DyT and sparsemax, vLLM's LoRA
#      shrink (tf32 tl.dot), LightLLM's token attention over a paged cache, GemLite's int4 GEMV) and the forms tune
#      writes (DyT's table after its branches' dict, the LoRA tiles, GemLite's pinned config with its pre_hook and
#      prune wrapper, LightLLM's BLOCK = 128, fla's BT = 512 list), correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of liger_dyt (a dict of settings bound in branches),
#      gemlite_gemv (an autotune list built by code, each config's pre_hook a call, a prune that yields) and
#      lora_shrink (four tile locals, split-K by atomics), default strategy, a 60 s wall each, each kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker12_cases.py tests/data/breaker12 liger_dyt gemlite_gemv lora_shrink
