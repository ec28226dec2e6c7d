#!/usr/bin/env bash
# wrongkernel20's GPU proof (tests/test_wrongkernel20_cases.py proves v83-v85 on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 4-6 minutes.
#
#   v83: `folder._checked_edit` on cuda, compiled, BLOCK_K=32 picked over layout_two_kernels' 16 (a transposed input's
#   kernel) at 4096 x 8192 row-major and 8192 x 4096 transposed (128 MB each), rules off then on: the net fails it at
#   a transposed size, where the original runs (before the fix every size of the net was row-major).
#   v84: the same for heads_one_path's BLOCK_D=32 (one head's kernel) at 8192 tokens of 32 heads and 16384 of one
#   head of 4096: the net fails it at a size of one head.
#   v85: op_code_reshape's BLOCK=256 at 262144 rows of 64 (op 1) and 131072 of 128 (op 2): rules off it fails the power
#   size at 262144 x 512 of op 1 (a reshape into 0 rows), rules on it is guarded `if 256 % n == 0` and passes.
#   v87: packed_budget's BLOCK_SIZE = 32 at 4096 x 8192 and 8192 x 4096 rows, rules off then on: the floor fails it at
#   a row of 64 columns or fewer (the short rows' path divides by BLOCK_SIZE // 64 = 0).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_wrongkernel20_cases.py -k on_cuda
progress "done"
