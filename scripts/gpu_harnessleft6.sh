#!/usr/bin/env bash
# harnessleft6's GPU proof (tests/test_harnessleft6_cases.py proves the rules on the CPU) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   1. the re-time on the GPU's samplers (events or CUDA graphs, L2 flushed, inputs rotated): a kernel three times
#      as slow as its reference is claimed slower and the claim repeated by its re-time;
#   2. the in-place rule on CUDA: breaker5's GPU test, whose RoPE in place goes through the gate (it modifies q as
#      its reference does, and must).
#
# The claim rate on identical kernels at full size, with the re-time, is scripts/gpu_kernelbench_level1.sh's
# table ("significant differences, either way": expected 0 %).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"

progress "tests: start"
KERNELOPT_GPU_TESTS=1 timeout 300 $PY -m pytest -o addopts=-ra -p no:cacheprovider -m gpu \
    tests/test_harnessleft6_cases.py -k re_timed > "$R/tests.txt" 2>&1
progress "tests: rc=$?"
KERNELOPT_GPU_TESTS=1 timeout 600 $PY -m pytest -o addopts=-ra -p no:cacheprovider -m gpu \
    tests/test_breaker5_cases.py -k hold_on_a_gpu >> "$R/tests.txt" 2>&1
progress "breaker5: rc=$?"
