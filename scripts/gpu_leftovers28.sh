#!/usr/bin/env bash
# leftovers28's GPU proof: l186, what discovery's run compiled on a GPU is not compiled again by the session, on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes
# (discovery, then the 60 s session), 300 s at most. The CPU half (tests/test_leftovers28_cases.py) checks that
# discovery's worker is given the output folder's Triton cache on a GPU and that a session links its entries in; what
# only a GPU shows is that Triton compiles into it there and that the session's cache starts from those kernels:
#
#   late42's tune of breaker25's fla_matmul (`tune --device cuda --json --dry-run --budget-wall-s 60`): the entries
#   discovery compiled (since late49's l190 its list pinned to its first config: each launch at each entry), those
#   linked into the session's cache and those
#   the session compiled itself, its pace (compile and check seconds: 42.9 s and 40.6 s on the H100 of 2026-12-07 16:10,
#   before) and run wall printed to tests.txt. Asserted since late54's l240: nothing compiled by discovery (it runs
#   no task for fla, whose one list it pins), nothing linked, the session's cache its own.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_leftovers28_cases.py -k on_cuda -s
progress "done"
