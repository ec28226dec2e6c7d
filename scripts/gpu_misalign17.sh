#!/usr/bin/env bash
# misalign17: the authors' alignment hints on a wrapped offset (`tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M),
# BLOCK_M)`) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 5 minutes.
#
#   1. tests: the GPU test of tests/test_misalign17_cases.py: bitsandbytes' int8 matmul as written faults at M=37 (a
#      misaligned address, in a process of its own), as the sm_90 compile predicts (docs/faults.md misalign17), and is
#      right at even sizes; the kernel tune writes for the H100 session's pick (32 x 32 x 64, two stages, two warps)
#      runs the pick alone (its prune wrapped) and is right at every SHAPES entry, M=37 included, and at odd sizes;
#   2. tune: `kernelopt tune --device cuda --json` on a copy of tests/data/breaker16/bnb_int8_mm (a 60 s wall): on
#      2026-12-06 it wrote nothing ("the edit to write failed its check ... misaligned address"); now the written list
#      runs its pick.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_bnb_int8_mm.json/.txt, kernel_bnb_int8_mm.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_misalign17_cases.py tests/data/breaker16 bnb_int8_mm
