#!/usr/bin/env bash
# bound14's GPU proof (tests/test_bound14_cases.py proves the rest in the interpreter) on one NVIDIA GPU (run from the
# repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   a keyed autotune list run once as written: on cuda discovery runs newuser8's keyed list (BLOCK 1024 | 8192,
#   key=["n"]) at each SHAPES entry, each pick kept, and `kernelopt tune --device cuda --json --dry-run` (a 120 s
#   wall) carries list_as_written; the first call's compare (the gate's comparison now) still names rounds13's
#   partial sum wrong on its first call on cuda, and nothing with reset_to_zero.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 400 tests/test_bound14_cases.py -k on_a_gpu
gpu_tests 300 tests/test_rounds13_cases.py -k on_a_gpu_discovery
progress "done"
