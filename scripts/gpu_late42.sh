#!/usr/bin/env bash
# late42's GPU proof: the two tune defects breaker25's tunes showed on the H100 of 2026-12-07 (docs/faults.md l100,
# l101), on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About
# 4 minutes, 300 s at most. The CPU half (tests/test_late42_cases.py) shows la_nodecay's space without a sub-block
# larger than its block and fla_matmul's current configuration pinned for a GPU session; what only a GPU shows is the
# session's time:
#
#   `tune --device cuda --json --dry-run` on copies of breaker25's fla_matmul (a 60 s wall: its eight-config list
#   judged as a list, the current checked and timed pinned; asserted: the file as written is no candidate, the current
#   is timed, and more than one candidate is) and la_nodecay (a 30 s wall: no candidate with CBLOCK > BLOCK evaluated,
#   none wrong). Each tune's outcomes, pace and verdict are printed to tests.txt.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_late42_cases.py -k on_cuda -s
progress "done"
