#!/usr/bin/env bash
# late49's GPU proof: a 60 s wall on a GPU means about 60 s (docs/faults.md l190-l191), on one NVIDIA GPU (run from the
# repository root, $OUT set). GPU clocks and settings are never changed. About 2 minutes, 300 s at most. The CPU half
# (tests/test_late49_cases.py) checks in Triton's interpreter that discovery's run of the task no longer benchmarks a
# keyed list of 2 to 8 configs (pinned to its first from the first run) and, on a manual clock, that the session's wall
# is what discovery and the workers' start left of the stated one; what only a GPU shows is the seconds:
#
#   late42's tune of breaker25's fla_matmul (`tune --device cuda --json --dry-run --budget-wall-s 60`), 90 s before its
#   session on the H100 of 2026-12-07 19:29 and killed past its wall: the line said before the session, run_wall, pace,
#   outcomes and the run's seconds printed to tests.txt. Asserted: under 45 s before the session where run_wall is said,
#   the whole run under 85 s.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_late49_cases.py -k on_cuda -s
progress "done"
