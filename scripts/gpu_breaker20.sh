#!/usr/bin/env bash
# Issue 32, the twentieth held-out trial (tests/test_breaker20_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 8 minutes,
# 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker20_cases.py: seven of the trial's originals compiled
#      by Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor: Liger's softmax forward and
#      backward through autograd, torchtitan's MoE permutation indices, tritonbench's jagged sum over a nested tensor,
#      bitsandbytes' 8-bit blockwise quantization and dequantization, unsloth's cross-entropy with its in-place
#      backward, flash-linear-attention's chunked mean pooling, PyTorch's string-annotated 2-D autotuned add) and
#      vLLM's block-scaled fp8 GEMM on an sm_89+ card, and the forms tune writes for GPU picks (torchtitan's block
#      default, bitsandbytes' dequantization split and its quantizer's split guarded by the block count, the jagged
#      sum's and fla's pinned lists, the 2-D add's, unsloth's backward block and warps), correct at sizes the SHAPES do
#      not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of
#      titan_indices and tb_jagged_sum, then on unsloth_xent's backward launch (`--kernel _cross_entropy_backward`,
#      its block an annotated local).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker20_cases.py
tune_copies tests/data/breaker20 titan_indices tb_jagged_sum
tune_copy tests/data/breaker20 unsloth_xent --kernel _cross_entropy_backward
progress "done"
