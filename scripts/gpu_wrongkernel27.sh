#!/usr/bin/env bash
# wrongkernel27's GPU proof (tests/test_wrongkernel27_cases.py proves v133, v135, v137, v138, v141 on the CPU in Triton's
# interpreter, v138 by the patched interpreter's min_dot_size check, and v132's guard; v132's wrap needs a workspace
# of 8.6 GB) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 1-2 minutes, 480 s at most.
#
#   v133 (desc_prehook_side, bf16 at 33 x 40: a descriptor block a pre_hook sets, BLOCK_N = 4), v135
#   (rows_heuristic_falling at 3 x 1: BLOCK_N = 2048 beside ROWS = 1024), v137 (prune_divides at 3 x 192: the
#   pruned list without 64), v138 and v141 (mm_int8_path and bp_int8_path, int8: BLOCK_K = 16 of an int8 dot): each
#   original right, each text tunables --set wrote before the rules fails (a compile or a launch refused). A text
#   that runs right means the interpreter refuses what the GPU runs (speed lost, no wrong kernel).
#   v132 (pad_rows_grown at 262145 x 1025 float32): the original right; BLOCK = 8192, which tune wrote before the
#   rule, not right (row 262144's int32 index wraps: an illegal address, or a wrong sum); it runs last.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 460 tests/test_wrongkernel27_cases.py -k on_cuda -s
progress "done"
