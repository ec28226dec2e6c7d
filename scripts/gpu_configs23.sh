#!/usr/bin/env bash
# configs23's GPU proof (tests/test_configs23_cases.py proves c30-c31 on the CPU in Triton's interpreter) on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 8 minutes.
#
#   c32: `kernelopt tune --device cuda` (120 s wall each) on copies of vLLM's batched MoE (tests/data/breaker23/
#   vllm_batched_moe, its configs/ by device name: the H100's and H200's files at E=4, N=64) and AMD AITER's GEMM
#   (tests/data/breaker22/aiter_gemm, configs/gemm/90-GEMM-A16W16.json on an NVIDIA GPU): no folder refusal, the
#   candidates' folders linking the authors' JSON files, the files unchanged after it, the kernel.py left right at
#   realistic sizes (256-512 MB a weight: E=16 x 4096 x 4096, AITER split along K by 4 at 8192 x 16384); AITER's
#   split-K reduce kernel as tune writes a pick of it (64 x 128 tiles) right where the GPU's file splits K.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt (each tune's
# output printed there).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 580 -s tests/test_configs23_cases.py -k on_cuda
progress "done"
