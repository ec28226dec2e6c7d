#!/usr/bin/env bash
# Issue 32, the thirtieth held-out trial (tests/test_breaker30_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 8 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker30_cases.py: the trial's five kernels compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor): the ragged MoE GEMM over about
#      65536 fp16 rows of 4096 and 64 experts' 4096 x 1024 weights, and 7 experts at odd sides; the five-point stencil
#      over 16 planes of 4096 x 4096 fp32 and 2 of 8191 x 12289; QK-norm + rotary over 65536 tokens of 32 + 8 heads of
#      128 and 30001 tokens of 40 + 5 heads of 96; the scatter-add of 2**20 rows of 256 and 300007 rows of 1000; the
#      fp8 row quantization of 65536 x 4096 and 4099 x 65537 fp16 (codes within one fp8 step); and the forms tune
#      writes (ragged_moe's 128 x 128 tiles, stencil_cfg's BLOCK_W=128 above the grid since q100, qk_norm_rope's
#      HEADS_CAP=128, scatter_rows' 64 rows a program, fp8_rowquant's block of 1024 since q101), correct at sizes the
#      SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of stencil_cfg
#      (q100: the grid bound from a dataclass's settings moves with the tile), fp8_rowquant (q101: a NamedTuple's
#      settings tabled by the row's length) and ragged_moe (q103: literals beside a tensor and a size).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker30_cases.py
tune_copies tests/data/breaker30 stencil_cfg fp8_rowquant ragged_moe
progress "done"
