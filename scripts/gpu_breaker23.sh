#!/usr/bin/env bash
# Issue 32, the twenty-third held-out trial (tests/test_breaker23_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 9 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker23_cases.py: the trial's eight originals compiled by
#      Triton at a small odd size and at realistic sizes (128 MB - 5 GB a tensor where memory matters: torchao's
#      split-K sparse GEMV, its partial rows added into fp16 by tl.atomic_add through its autotune list inside a
#      torch.library.triton_op, and its fp8 row-wise transposed cast of (E, K, N) weights, two kernels of one grid, one
#      size past 2**31 elements across the experts; vLLM's batched-experts MoE GEMM through its JSON file for the GPU's
#      name at E=4, N=64 and its default config elsewhere; torchtitan's SiLU-and-mul forward and backward on strided
#      views; fla's fused recurrent gated delta rule, a triton.heuristics-only launch; SGLang's five expert-parallel
#      MoE kernels; Liger's selective log-softmax over 2 x 8192 x 151936 logits (past 2**31, its int64 program
#      offsets); tritonbench's Inductor-generated Welford layer norm), and the forms tune writes for GPU picks
#      (SGLang's dict read by the tile count and the GEMM, Liger's dict of a block and two options, torchao's list
#      pinned inside its triton_op), correct at sizes the SHAPES do not name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of
#      ao_sparse_gemv (the fp16 atomic chain cdiv(Z, BLOCK_M) long: a pick's precision beside its speed),
#      liger_sel_logp (a constexpr default overridden by a dict of settings) and sgl_ep_moe (one dict literal read by
#      two launches, which must move together).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker23_cases.py
tune_copies tests/data/breaker23 ao_sparse_gemv liger_sel_logp sgl_ep_moe
progress "done"
