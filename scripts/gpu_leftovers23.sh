#!/usr/bin/env bash
# leftovers23's GPU proof (tests/test_leftovers23_cases.py proves l30 on the CPU at small sizes) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 2 minutes, 360 s at most.
#
#   l30: the gate's check (the worker's CHECK job, in process, on cuda) of a kernel ordering equal keys in reverse
#   beside torch.sort of 8192 fp16 rows of 32768 values with ties in every row (512 MB a tensor, 2 GiB of indices)
#   and torch.argmax over a 1 GiB float32 input of small integers: PASS, the index output judged by what it selects
#   (the input's sort for the judgement made on the GPU beside the problem); the same kernels' indices unmapped FAIL
#   "selects other values than the reference's indices".
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 360 tests/test_leftovers23_cases.py -k on_a_gpu
progress "done"
