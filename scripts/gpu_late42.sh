#!/usr/bin/env bash
# late42's GPU proof: the tune of breaker25's fla_matmul that timed nothing on the H100 of 2026-12-07 (docs/faults.md
# l101), on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About
# 4 minutes (its discovery ran the eight-config list at each SHAPES entry in about 118 s there), 300 s at most. The CPU
# half (tests/test_late42_cases.py) shows the session's editor pinning the current configuration for a GPU session and
# the limit a whole list's requests get; what only a GPU shows is the session's time:
#
#   `tune --device cuda --json --dry-run` on a copy of breaker25's fla_matmul with a 60 s wall (its list judged as a
#   list, the current checked and timed pinned). Asserted: the file as written is no candidate, the current is timed,
#   and more than one candidate is. Its outcomes, pace, run wall and verdict are printed to tests.txt.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_late42_cases.py -k on_cuda -s
progress "done"
