#!/usr/bin/env bash
# net11: the net's leftovers (tests/test_net11_cases.py proves them on the CPU in Triton's interpreter) on one NVIDIA
# GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   1. tests: the GPU test of tests/test_net11_cases.py: the net behind the rules (kernelopt.tuning.net) on cuda at
#      2**20 elements, its size built in a request of its own before each kernel runs: grid_named_copy (v23, its rule
#      off) with a module-level N and no SHAPES (N moved to 2**20 + 1, substituted as reference.py runs) and with a
#      `mode` code of 10 get_inputs passes through (kept): the plain BLOCK=128 fails there, BLOCK=512 is written;
#      and tests/test_netgaps11_cases.py's: the sizes below the smallest entry and of a dimension of 1 moved to 3 on
#      cuda (v36's sort table fails at 32 columns, v40's padded buffer at 3 rows, their rules off);
#   2. tune: `kernelopt tune --device cuda --json` on copies of examples/kernelbench's 12_relu_triton and
#      14_row_sum_triton (KernelBench problems, sizes at module level, no SHAPES; a 60 s wall each): each --json's
#      "net" says where the net checked the written kernel (the module-level sizes moved), each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 240 tests/test_net11_cases.py tests/test_netgaps11_cases.py
tune_copies examples/kernelbench 12_relu_triton 14_row_sum_triton
progress "done"
