#!/usr/bin/env bash
# Issue 32, the twenty-seventh held-out trial (tests/test_breaker27_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 8 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker27_cases.py: the trial's four originals compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor where memory matters: xformers' RMS
#      norm and fused add over 8 x 8192 rows of 4096 float32 and 3 x 4097 rows of 11007; torchao's config search and
#      int8 matmul at 8192 cubed and at 4097 x 3001 x 4095 (an odd K: EVEN_K False); fla's gated layer norm forward
#      and backward over 65536 rows of 512 (its BT kernel) and 32771 rows of 2049 (its row kernel), the backward
#      persistent over the GPU's SM count; xformers' tiled matmul at 8192 x 8192 x 4096 and odd sizes), and the
#      forms tune writes for GPU picks (xformers' RMS block as a table by size; fla's BT list pinned to 32;
#      xformers' tiled list pinned to its split-K tile with its zeroing hook carried, q70), correct at sizes the
#      SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of
#      xf_rms_add (a block computed in three statements, the residual written in place), fla_norm_gate (a BT list
#      over one of two kernels) and xf_tiled_mm (q70: a pruned list whose configs' hooks differ).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker27_cases.py
tune_copies tests/data/breaker27 xf_rms_add fla_norm_gate xf_tiled_mm
progress "done"
