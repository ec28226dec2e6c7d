#!/usr/bin/env bash
# break18: a loop that sets its own pipeline depth under a deeper launch, on one NVIDIA GPU (run from the repository
# root, $OUT set). GPU clocks and settings are never changed. Under a minute.
#
#   tests: the GPU test of tests/test_break18_cases.py: tests/data/break18/mm_range.py (its K loop tl.range(...,
#   num_stages=2), launched with num_warps=4, num_stages=4) right three times at M=N=K=4096 against fp32 matmul, and
#   its compile for the GPU read as no race (docs/faults.md break18 b20: kkt18's reader had read it as racing under
#   the launch's depth). tests.txt keeps its "break18 b20 ..." lines (-s).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 240 -s --durations=5 tests/test_break18_cases.py
progress "done"
