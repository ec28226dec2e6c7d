#!/usr/bin/env bash
# late45's GPU proof: a 60 s wall on a GPU times fla_matmul's current and a candidate (docs/faults.md l150-l152), on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes (its
# discovery before the wall, then the 60 s session), 300 s at most. The CPU half (tests/test_late45_cases.py) replays
# the H100's pace of 2026-12-07 on a fake clock through the real session: a first round of four timed none, the kernel
# as written alone first and no reserve for its own write then time it and one more. What only a GPU shows is that the
# H100's own compiles and checks fit so:
#
#   late42's l101 test, unchanged: `tune --device cuda --json --dry-run --budget-wall-s 60` on a copy of breaker25's
#   fla_matmul. Asserted: the file as written is no candidate, the current is timed first, and more than one candidate
#   is. Its outcomes, pace (the first round's seconds are the current's alone), run wall (before_s: discovery, l133's)
#   and verdict are printed to tests.txt.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_late42_cases.py -k on_cuda_l101 -s
progress "done"
