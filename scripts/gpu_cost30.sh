#!/usr/bin/env bash
# cost30's GPU proof: c51, what the dot K floor (wrongkernel27's min(original, 32)) costs on the recorded GEMM sweeps,
# on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 2 minutes, 300 s at most. The CPU half (benchmarks/safety_cost.py, tests/test_safety_cost.py) replays today's
# rules over the 19 recorded complete H200 sweeps: none loses speed, but none ever timed a K tile under the floor;
# what only a GPU shows is that speed:
#
#   matmul (11-29 sweep, fp16 8192^3) and skinny_gemm (12-01 sweep, fp16 16384 x 128 x 4096): each sweep's six fastest
#   configurations run as the sweep ran them and again with BLOCK_K=16 (a measurement's text, never written), checked
#   against the reference at the main shape, timed with triton.testing.do_bench in three interleaved rounds. Printed to
#   tests.txt: each pair of latencies and "best with BLOCK_K=16 / best without" (under 1: the floor costs that speed).
#   Asserted: the sweep's configurations right, and each BLOCK_K=16 one that compiles right too.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_safety_cost.py -k on_cuda -s
progress "done"
