#!/usr/bin/env bash
# wrongkernel23's GPU proof (tests/test_wrongkernel23_cases.py proves v102 on the CPU, Triton's interpreter checking
# a tile's values as a GPU compile does) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 1-2 minutes (one compile of a 4 x 65536 tile).
#
#   v102: rows_pow2_numel compiled at one row of 32769 columns: the plain ROWS = 32 (a 32 x 65536 tile) fails,
#   past Triton's 1048576 values, where the original ROWS = 4 sums the row right; ROWS = 16, the largest the rule
#   writes, sums 64 rows of 4097 right; v108's pinned triton.Config({"ROWS": 32}) (rows_autotune_numel, as
#   kernelopt tune wrote it on the CPU) fails there alike.
#   v103: rows_static_budget at one row of 8193 columns: the plain ROWS = 8 fails the kernel's own
#   tl.static_assert(ROWS * BLOCK_N <= 65536) (a compile-time assertion), where the original ROWS = 2 sums it.
#   v109: tokens_budget's plain BLOCK_T = 64 at a head dimension of 1024 fails its static assert alike.
#   v104: grid_heads_product's table as tune wrote it (elif L <= 5000: BLOCK = 256) at 4000 heads of 5000 (80 MB):
#   80000 programs on the grid's second axis, a launch CUDA refuses, where the original's 20000 run right.
#   v107: scale2d_axis1's literal table row over M (BLOCK_N = 256) at one row of 256 * 65535 + 1 columns (64 MB):
#   refused as written before (65536 column tiles), right as guard_edit writes it now (N <= 256 * 65535 added).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 280 tests/test_wrongkernel23_cases.py -k on_cuda
progress "done"
