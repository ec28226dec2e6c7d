#!/usr/bin/env bash
# newuser19's GPU proof (tests/test_newuser19_cases.py proves n128 and n131 on the CPU with the loop's fakes and a
# recorded ncu profile) on one NVIDIA GPU with Nsight Compute (run from the repository root, $OUT set). GPU clocks
# and settings are never changed. About 3-5 minutes.
#
#   n131: `kernelopt optimize --device cuda --max-iters 2` on an elementwise add at 1 GiB a tensor (2**28 fp32) whose
#   task card asks half the roofline bound: the run stops after V0, its reason naming the roofs, memory-bound, the
#   achieved GB/s and, where ncu read counters, V0's DRAM throughput with ncu's metric name.
#   n128: `KERNELOPT_COMPILE_MODE=max-autotune kernelopt validate WS --compile-reference` on that workspace: the kernel
#   timed against Inductor's max-autotune build of the reference, a figure and no compile error.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt and
# newuser19_roofadd/ (optimize's and validate's JSON and stderr).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 560 tests/test_newuser19_cases.py -k on_a_gpu
progress "done"
