#!/usr/bin/env bash
# wrongkernel21's GPU proof (tests/test_wrongkernel21_cases.py proves v88-v94 on the CPU, the launches a GPU refuses
# through the patched interpreter's grid check) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks
# and settings are never changed. About 1-2 minutes.
#
#   v88-v92, v94: grid_axis1_local, grid_heads_product, grid_def_axis1, grid_floor_axis1, grid_unroll_axis1 and
#   grid_ceil_helper, compiled, at one size each past the plain pick's limit (one row of 256 x 65535 + 1 or 2**24
#   columns, 64 MB; 32 heads of 600000, 77 MB): the pick as written before the fix fails there (65536 or more programs on the grid's second axis,
#   a launch CUDA refuses), where the original runs right; the text guard_edit writes now (the guard, or the original
#   where the pick is refused) runs right there and at the first entry.
#   v93: parts_workspace at 4096 x 65537 (1.07 GB): BLOCK = 256 raises its workspace assert, the original sums.
#   wrongkernel22's v96 (grid_max_count, a count kept from zero by max(1, ...)) as v88, and v97 (pad_workspace) at one
#   row of 2999296 (12 MB): BLOCK = 2048 pads past its workspace and raises its assert, the original pads and sums.
#   late24's v99 (grid_method_count, a count by a method of the launcher's class) as v88, and v101 (grid_heads_max,
#   (B, max(1, H * n_blocks))) as v89.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_wrongkernel21_cases.py -k on_cuda
progress "done"
