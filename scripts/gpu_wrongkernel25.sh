#!/usr/bin/env bash
# wrongkernel25's GPU proof (tests/test_wrongkernel25_cases.py proves v116 on the CPU, where Triton's interpreter adds
# fp16 as a GPU does; it multiplies an fp8 tl.dot exactly, so the split-K case needs a GPU) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes, 480 s at most.
#
#   breaker21's applied-ai split-K fp8 GEMM, its SHAPES entries checked by the session's evaluators (the original
#   first): split_k=2 with block_k=64 (each program's K chain twice the original's, in the fp8 tensor-core
#   accumulator) refused as less accurate than the original ("its error rises along K N times as fast as the
#   original's"); the H100's own pick of 2026-12-07 (split_k=16, a shorter chain) passes; the original right at 8192 x
#   8192 x 8192, the halved pick's verdict there printed (31 elements of 67 M past the tolerance with block_m=128).
#   v116 (sums_fp16_split) alike: SPLIT=1 refused at its entry and wrong at one row of 1.1 M columns, BLOCK=4096 kept.
#   Then `kernelopt tune --device cuda` (a 60 s wall) on a copy of the split-K GEMM: what it writes is right at
#   64 x 64 x 1, 192 x 320 x 1001 and 8192 x 8192 x 8192.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 460 tests/test_wrongkernel25_cases.py -k on_cuda -s
progress "done"
