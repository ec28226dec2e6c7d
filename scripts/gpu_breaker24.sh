#!/usr/bin/env bash
# Issue 32, the twenty-fourth held-out trial (tests/test_breaker24_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 9 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker24_cases.py: the trial's five originals compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 5 GB a tensor where memory matters: AITER's int8
#      GEMM through its JSON file for compute capability 90, split along K by 4 at M <= 16 (a bf16 output of a chain
#      of fp32 partials a launch setting sets, K = 8192 among them); torchao's fp8 quantization of Q, K and V (three
#      kernels, eight launches, the chunks from the SM count) and its blockwise fp8 weight quantization inside a
#      torch.library.triton_op; fla's chunked global scan, a varlen gate of 2**27 x 17 = 2.28e9 elements (past 2**31:
#      its int64 program ids and sequence starts); trident's RMS norm, a class's staticmethod), and the forms tune
#      writes for GPU picks (fla's comprehension pinned to one BT, a float32 carry cdiv(T, BT) long; torchao's QKV
#      list pinned in both chunked kernels; torchao's triton_op list pinned to one config), correct at sizes the
#      SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of
#      fla_global_cumsum (the chunk sets the scan's chain: a pick's precision beside its speed), ao_sdpa_fp8_quant
#      (eight launches of two tuned kernels) and ao_fp8_weight_quant (a triton_op, its quantization block held).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker24_cases.py
tune_copies tests/data/breaker24 fla_global_cumsum ao_sdpa_fp8_quant ao_fp8_weight_quant
progress "done"
