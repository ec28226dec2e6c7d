#!/usr/bin/env bash
# Issue 32, the twenty-ninth held-out trial (tests/test_breaker29_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 8 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker29_cases.py: the trial's five kernels compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor): the layer-norm backward's two-stage
#      reduction over 65536 x 4096 fp16 rows and 4097 odd rows of 12289; the split argmax over 16 x 262144 bf16
#      logits (16 splits) and 4099 rows of 131071; the segmented prefix sum over 1 GiB of fp32 in sequences up to 16384
#      tokens; the paged KV gather of 32 sequences up to 8192 tokens of 8 x 128 heads from shuffled pages of 16; the
#      int4 GEMM at 8192 x 8192 x 8192 (a 32 MB packed weight beside 128 MB activations) and 4097 x 3001 x 4096; and
#      the forms tune wrote on the CPU (the prefix sum's CHUNK=64, q92; the int4 list pinned to 64 x 256 x 64; the
#      argmax's BLOCK_S=4 up to 4 splits, q91), correct at sizes the SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of ln_bwd (q90:
#      a table written without the pick's literals judged by what it runs), seg_cumsum (q92: a marked chunk beside a
#      capped feature block) and int4_mm (an autotune list keyed on the problem).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker29_cases.py
tune_copies tests/data/breaker29 ln_bwd seg_cumsum int4_mm
progress "done"
