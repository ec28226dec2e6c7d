#!/usr/bin/env bash
# gpuleft10: what the H100 run of 2026-12-06 found (tests/test_gpuleft10_cases.py proves it on the CPU), on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 8 minutes.
#
#   1. aot: every tests/data kernel compiled for sm_90 by Triton's own JIT code (KERNELOPT_AOT_TESTS=1; no GPU
#      needed, on the machine's cores): a test kernel that cannot compile on the GPU is named before the GPU tests;
#   2. tests: the GPU test of tests/test_gpuleft10_cases.py (tile_lse_zero's original fails to compile on the device
#      as the compile without a GPU says; its twin runs and matches torch.logsumexp);
#   3. tune: `kernelopt tune --device cuda --json` on copies of attorch_ln (its warps-only autotune list pinned once
#      in each candidate: the candidates' kernel.py and the check seconds per candidate, 3.6 s on 2026-12-06) and
#      grouped_gemm (BLOCK_SIZE_K = 32 and up out of the space before the session: no "cannot be written" candidate),
#      a 60 s wall each, each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, aot.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
progress "aot: start"
KERNELOPT_AOT_TESTS=1 timeout 300 $PY -m pytest -o addopts=-ra -p no:cacheprovider \
    tests/test_gpuleft10_cases.py -k every_test_kernel_compiles_for_sm_90 > "$R/aot.txt" 2>&1
progress "aot: rc=$?"
gpu_tests 300 tests/test_gpuleft10_cases.py
tune_copies tests/data/breaker9 attorch_ln grouped_gemm
progress "done"
