#!/usr/bin/env bash
# refusals24's GPU proof (tests/test_refusals24_cases.py proves u40-u41 on the CPU in Triton's interpreter) on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 1-3 minutes.
#
#   u40: head_sq_numel's ROWS, HEADS = 16, 8 under if D <= 1048576 // 128 (one test over both sides) compiled and right
#   at 4096 x 8 x 8192 (1 GiB, the guarded 16 x 8 x 8192 tile at Triton's limit), 64 x 8 x 8193 (the fallback) and
#   3 x 5 x 7; the plain pick fails at 8193.
#   u41: pad_rows_int32's BLOCK = 4096 as guard_edit writes it now (if n_cols % 4096 == 0, the original 1024 the
#   fallback) compiled and right at 524289 rows of 1025 columns (2.15 GB, where the plain 4096 wraps row * n_pad past
#   2**31) and at 262144 rows of 4096 (4.3 GB, the pick itself); stencil_pad's 16 x 32 tiles under if H % 16 == 0 and
#   W % 32 == 0 right at 64 x 1024 x 1024 (256 MB, the pick) and 64 x 1023 x 1025 (the fallback).
#   u42, u43: the tune net of pair_sq (pairwise squared distances, an n x n output) at n 4096-16384 on cuda, its room
#   and footprints read by the cuda bench worker: every far rung and power try it would run fits an eighth of the
#   memory free by its own footprint; the power size's 4x n = 65536 (68 GiB by the worker's bound) is not run.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 460 tests/test_refusals24_cases.py -k on_cuda
progress "done"
