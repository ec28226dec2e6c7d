#!/usr/bin/env bash
# netcap20: the net's time cap and a kernel written beside sizes it left unchecked, on one NVIDIA GPU (run from the
# repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes, 300 s at most.
#
#   tests: the GPU test of tests/test_netcap20_cases.py: `kernelopt tune --device cuda --json --budget-wall-s 60` on a
#   copy of breaker16's mamba_chunk_state (the H100's run of 2026-12-06 wrote its keyed list's per-bucket table with 11
#   of its net's 52 sizes unchecked for want of time). Its autotuner may run any row at any size, so the table is
#   written only with every net size checked; else nothing is written and the verdict names the --budget-wall-s (and
#   --budget) that checks them, and a rerun with those, resumed from the session record, must check every size in its
#   wall (written with none unchecked, or refused for a reason other than time). tests.txt keeps the "netcap20 first"
#   and "netcap20 rerun" lines (written, the unchecked sizes, the note, the net's line).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 295 -s --durations=5 tests/test_netcap20_cases.py
progress "done"
