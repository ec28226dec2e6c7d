#!/usr/bin/env bash
# Issue 32, the seventeenth held-out trial (tests/test_breaker17_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker17_cases.py: the trial's eight originals compiled by Triton at a small
#      odd size and at realistic sizes (256 MB - 1 GB a tensor: Unsloth's bf16 SwiGLU forward and backward through
#      autograd (d1: bf16 arithmetic), FlagGems' argmax (heuristics module, two paths), vLLM's two-stage decode
#      attention (a host-built **kwargs), fla's solve_tril (settings-only autotune), FBGEMM's fp8 row GEMM
#      (use_cuda_graph=True; aligned sizes: its multiple_of hints are misalign17's), torchao's blockwise fp8
#      quantization, the tutorial's device-side descriptor matmul, SGLang's draft page indices) and the forms tune
#      writes, correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of unsloth_swiglu (bf16; a module constant both launches
#      read), gems_argmax (d2: a table over the launching function's M = numel) and fbgemm_fp8_row (an autotune list
#      with use_cuda_graph and a prune), default strategy, a 60 s wall each.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker17_cases.py tests/data/breaker17 unsloth_swiglu gems_argmax fbgemm_fp8_row
