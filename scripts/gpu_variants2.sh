#!/usr/bin/env bash
# variants2: the net's GPU tests moved out of scripts/gpu_variants.sh (whose tests took 374 s on the H100 of
# 2026-12-06, its 420 s limit then cutting its tunes), on one NVIDIA GPU (run from the repository root, $OUT set).
# GPU clocks and settings are never changed. About 4 minutes.
#
#   tests: tests/test_wrongkernel16_cases.py's GPU test: v60-v64 at realistic sizes (a module-level HIDDEN's far
#   ladder, 8 experts of a small key's power size, 16 heads or groups of the divisor size, 129 bins of codes taken
#   modulo), the plain picks failing, the guarded passing; and tests/test_wrongkernel17_cases.py's GPU test: v65 (a
#   chunked cumsum without a carry, the chunk a plain integer of run(), 2**22 elements) and v66 (rows 1 << log_cols
#   scanned so, 8192 rows) fail the net at chunks of 80 and at 512 columns, rules on or off, nothing written.
#   tests.txt ends with the 15 slowest tests' durations.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 900 --durations=15 tests/test_wrongkernel16_cases.py tests/test_wrongkernel17_cases.py
progress "done"
