#!/usr/bin/env bash
# leftovers19: the seventeenth session's leftovers on one NVIDIA GPU (run from the repository root, $OUT set). GPU
# clocks and settings are never changed. About 4 minutes.
#
#   tests: the GPU test of tests/test_leftovers19_cases.py: `kernelopt tune --device cuda --json --budget-wall-s 45` on
#   a copy of examples/linear_bf16 (a space of six launch keywords far larger than 45 s can time): l1, the search
#   ends early enough that the checks after it (the entries' check, the net, the own-target compile) run, no line
#   saying one was cut for the wall, the session within its wall and margin; l2, where it wrote, the json's target
#   line counts the launches its own-target check read from the session's Triton cache (compiled by its compile pool
#   and bench workers), and that check is timed again with the session's cache and with an empty one (tests.txt keeps
#   the "leftovers19 ..." lines: the seconds of each, for docs/results.md's table).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 360 -s --durations=5 tests/test_leftovers19_cases.py
progress "done"
