#!/usr/bin/env bash
# late33's GPU proof (tests/test_late33_cases.py proves z100 and z101 on the CPU at small sizes) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 1-2 minutes, 300 s at most.
#
#   z100: the code net on cuda over a right rewrite of torch.cdist at n 2048-8192, dim 16 (its 8192 x 8192 output
#   268 MB): every far size it runs fits an eighth of the memory free by its own footprint (read on the meta device
#   in the bench worker), and the rung the linear reading would have run past that room (n = 34816: 4.6 GB by the
#   primary's bytes an element, 19.4 GB by its own footprint) is not run.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 300 tests/test_late33_cases.py -k on_a_gpu
progress "done"
