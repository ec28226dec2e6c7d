#!/usr/bin/env bash
# seen19: the net's faulting sizes in a worker of their own, on one NVIDIA GPU (run from the repository root, $OUT
# set). GPU clocks and settings are never changed. About 2 minutes.
#
#   tests: the GPU test of tests/test_seen19_cases.py: the net of a written BLOCK=128 on tests/data/gpufind19/fault
#   (the words of "CUDA error: misaligned address" at every odd n) with the worker of its own off (as before s4) and
#   on: the same verdict at every size; the first bench worker started 5 or more times in the net before, once now;
#   tests.txt keeps the "seen19 s4 ..." line (each worker's starts and the net's seconds, before and now).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 230 -s --durations=5 -k on_cuda tests/test_seen19_cases.py
progress "done"
