#!/usr/bin/env bash
# verdicts22: the timed check's edges on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 2 minutes (a minute of nvcc), 300 s at most.
#
#   tests: the GPU tests of tests/test_gpu_verdicts22.py, each printing a "verdicts22 xN" line into tests.txt.
#   x1: a kernel that, while a graph is captured, computes its first call on each input set and returns a new copy of
#   that result for every later call on it (kept.clone(): every output its own storage, right after a replay) is timed
#   back to back with the warning that says why (main kept its graph); an honest kernel keeps its CUDA graph.
#   x2: the device memory _prepare leaves allocated is the timed graph's alone (main kept the check's copies of every
#   call with a one-buffer kernel's sampler), and the probe's own graph is freed after it reads every call.
#   x7: timing21's legacy-stream extension (load_inline) beside the timed reference: only the kernel's sampler is made
#   again without a graph (warm-ups [1, 2]; main made the reference's again too), the case passes, the kernel
#   cuda_batch and the reference cuda_graph.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 280 -s --durations=5 tests/test_gpu_verdicts22.py
progress "done"
