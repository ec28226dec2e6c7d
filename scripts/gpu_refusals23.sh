#!/usr/bin/env bash
# refusals23's GPU proof (tests/test_refusals23_cases.py proves u30-u32 on the CPU in Triton's interpreter) on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 1-2 minutes.
#
#   u30: rows_pow2_numel's ROWS = 32 as guard_edit writes it now (if n_cols <= 1048576 // 32, the original ROWS = 4
#   the fallback) compiled and right at 4096 rows of 32768 columns (512 MB, a 32 x 32768 tile at Triton's limit), at
#   one row of 32769 (the fallback's 4 x 65536) and at 65 x 4097; the plain ROWS = 32 fails at 32769 columns.
#   u32: stencil_pad's 4 x 8 tiles as guard_edit writes them now (if H <= 4 * 65535 and W <= 8 * 65535) right at
#   64 x 1024 x 1024 (256 MB), at H = 4 * 65535 (65535 programs on the grid's second axis) and one row more (the
#   original's 8 x 16 past the guard).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 280 tests/test_refusals23_cases.py -k on_cuda
progress "done"
