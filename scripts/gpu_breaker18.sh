#!/usr/bin/env bash
# Issue 32, the eighteenth held-out trial (tests/test_breaker18_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker18_cases.py: the trial's eight originals compiled by Triton at a small
#      odd size and at realistic sizes (256 MB - 1 GB a tensor: FlagGems' index_select on a strided view (int64
#      offsets), Unsloth's RMS norm forward and backward through autograd, Inductor's persistent scan, a GemLite-style
#      A16W8 GEMM (a noinline helper, tl.range num_stages), torchao's atomic-max fp8 cast, a triton_op add + RMS norm
#      (restore_value), SGLang's MoE sum into a column slice, the persistent softmax tutorial (a grid fixed at
#      import, a torch fallback)) and the forms tune writes, correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of gems_index_select (a heuristics dict tabled over N),
#      tut_softmax_persist (d2: a fallback entry) and sgl_moe_sum (d1: BLOCK_DIM a tile width), default strategy,
#      a 60 s wall each.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker18_cases.py tests/data/breaker18 gems_index_select tut_softmax_persist sgl_moe_sum
