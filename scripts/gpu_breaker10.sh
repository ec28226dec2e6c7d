#!/usr/bin/env bash
# Issue 32, the tenth held-out trial (tests/test_breaker10_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker10_cases.py: the trial's eight originals compiled by Triton at their
#      SHAPES and at realistic sizes (256 MB - 1 GB a tensor where the kernel allows: Mamba's state update, the
#      bitsandbytes row quantizer and its llrint, the dropout tutorial's tl.rand, Liger's group norm (rsqrt imported
#      by name) and JSD, FlashInfer's merge_state, FBGEMM's fp8 row quantization (the GPU's fp8 rounding against the
#      torch conversion the interpreter's fix uses), SGLang's extend attention) and the forms tune wrote on the CPU
#      (Mamba's BLOCK_SIZE_M table with its heuristic left computed, a one-block BLOCK_N left computed beside a tabled
#      BLOCK_M, and (owed by tablebound11) the H100's extend_attn pick, less its BLOCK_M=16 (refused since
#      wrongkernel24), BLOCK_N=64, num_stages=6 with its six stages bounded by the table's Lq <= 48: the original's
#      settings at D=65 and D=128, where the mixed form needed 458752 B of shared memory), correct at sizes the SHAPES
#      do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of mamba_ssu (a table over dstate), bnb_rowwise (its
#      autotune list of num_warps / num_stages only, which the CPU refuses to time) and extend_attn (the settings of a
#      6-tuple helper, the tiles beside head-dimension covers), default strategy, a 60 s wall each, each written
#      kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker10_cases.py tests/data/breaker10 mamba_ssu bnb_rowwise extend_attn
