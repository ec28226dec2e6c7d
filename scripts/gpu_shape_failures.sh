#!/usr/bin/env bash
# Issue 32 item 2 on one NVIDIA GPU (tests/test_shape_failures.py proves it on the CPU; run from the repository root,
# $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   1. bench: benchmarks/shape_failures.py --device cuda: blocks that pass the 40-column entry of assert_block and
#      trip its `assert n_cols <= BLOCK` at 300 columns, in one batch, against two that pass both; a failing
#      candidate is compiled (the pool) and checked on both entries, never timed (bench_s null);
#   2. tests: tests/test_shape_failures.py with KERNELOPT_GPU_TESTS=1 (the CPU tests and the GPU one: `tune
#      --device cuda` on assert_block, num_warps a knob; every block under 300 fails at the 300 entry untimed).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, bench.json/.txt,
# tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path  # ahead of what the session put there (the carried wheels in /tmp/site stay)
mkdir -p "$R"
gpu_header "$R/session.txt"

progress "bench: start"
timeout 600 $PY benchmarks/shape_failures.py --device cuda --rounds 3 --json "$R/bench.json" \
    > "$R/bench.txt" 2>&1
progress "bench: rc=$?"
progress "tests: start"
KERNELOPT_GPU_TESTS=1 timeout 900 $PY -m pytest -q -n 0 -o addopts="-ra -p no:hypothesispytest -p no:benchmark" \
    tests/test_shape_failures.py > "$R/tests.txt" 2>&1
progress "tests: rc=$?"
