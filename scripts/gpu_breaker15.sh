#!/usr/bin/env bash
# Issue 32, the fifteenth held-out trial (tests/test_breaker15_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker15_cases.py: the trial's eight originals compiled by Triton at a small
#      odd size and at realistic sizes (256 MB - 1 GB a tensor: Liger-Kernel's KL divergence and embedding,
#      bitsandbytes' global quantize-transpose, Kernl's layer norm (the kernel a launcher's parameter) and one-token
#      attention (sizes as constexprs), Mamba-2's state passing forward and backward (the backward's partial sums
#      sized by the autotuner's pick), FlagGems' cumsum (masks joined by Python's and) and embedding backward) and the
#      forms tune writes, correct at sizes the SHAPES do not name; every form compiled for sm_90 here first
#      (compile_for_target, 2026-12-06);
#   2. tune: `kernelopt tune --device cuda --json` on copies of mamba_state_bwd (an autotune list whose pick the host
#      reads back), bnb_global_t (two identical configs of three settings) and liger_embed (a helper's 3-tuple by
#      width), default strategy, a 60 s wall each.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker15_cases.py tests/data/breaker15 mamba_state_bwd bnb_global_t liger_embed
