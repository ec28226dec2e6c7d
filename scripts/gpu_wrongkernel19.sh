#!/usr/bin/env bash
# wrongkernel19's GPU proof (tests/test_wrongkernel19_cases.py proves v78-v81 on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 4-6 minutes.
#
#   v78, v79: `folder._checked_edit` on cuda, compiled, BLOCK=256 or TAIL=64 picked over tail_block_knob's 128 and
#   128 at 4096 x 8192 and 8192 x 16384 rows (512 MB), rules off then on: the net's tail size fails each at 8191 x
#   16383, where the original runs.
#   v80: the tuned autotune list as written before the fix (its key without D) raises CompileTimeAssertionFailure at
#   4096 x 32 after 4096 x 64 in one process (the autotuner's cached config), and as written now is right at 64, 32, 16.
#   v81: the per-bucket table 512 / 8192 over 16384 and 2**24 elements fails the between size at 16385, the first
#   size the net runs (gpunet20: a table's sizes above its largest entry run last).
#   v82: a keyed autotune list's table (the original, BLOCK=64 TAIL=32) at 4096 x 8192 and 8192 x 16384 rows: its
#   second row, pinned alone, fails the tail size at 8191 x 16383.
#   group_grid_square: BLOCK_M=64 over a grouped order whose grid counts square tiles of BLOCK_N (written plainly on
#   the CPU), compiled at 1024 x 64 and 8192 x 8192 rows: the extra programs divide by a group of 0 rows; the output
#   must equal the original's (an open question: a failure is a wrong kernel the interpreter cannot show).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_wrongkernel19_cases.py -k on_cuda
progress "done"
