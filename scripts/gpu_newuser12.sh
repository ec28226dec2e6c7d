#!/usr/bin/env bash
# newuser12's GPU proof (tests/test_newuser12_cases.py proves n64 and n65 on the CPU with the pick given, since Triton's
# interpreter holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 5 minutes.
#
#   n64: `kernelopt tune --device cuda` (a 120 s wall) on tests/data/newuser12/warps_cover, a one-block row max whose
#   BLOCK is computed from num_warps (`warps = 8; BLOCK = warps * 128`): before the fix a pick of num_warps=4 made BLOCK
#   512, passed the entries and the net, and went out wrong at 600 and 1000 columns. The kernel.py it leaves is run at
#   600, 1000, 1024 and 7 columns against the reference.
#   n65: the same on tests/data/newuser12/warps_chain (`nw = 2; threads = nw * 32; BLOCK = threads`, a grid of
#   n // BLOCK without masks), checked at n = 64, 1088, 8256 and 2**20.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_newuser12_cases.py -k on_a_gpu
progress "done"
