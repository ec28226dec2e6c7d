#!/usr/bin/env bash
# Issue 32, the thirteenth held-out trial (tests/test_breaker13_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker13_cases.py: the trial's eight originals compiled by Triton at their
#      SHAPES and at realistic sizes (256 MB - 1 GB a tensor where the kernel allows: SGLang's fp8 group quantization
#      with column-major scales and its grouped decode attention over a paged cache (tf32 tl.dot), vLLM's AWQ
#      dequantization and greedy rejection sampler, Mamba-2's bmm_chunk (tf32), Inductor's persistent RMS norm,
#      fla's fused_recurrent, FlagGems' layer norm on its three kernels) and the forms tune writes (Inductor's XBLOCK
#      with RBLOCK held, SGLang's BLOCK table, the AWQ column tile, Mamba's pinned config, FlagGems' pinned loop
#      config, SGLang's BLOCK = 64 / BLOCK_H = 32), correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of vllm_awq_dequant (a tile that must divide the
#      checkpoint's group), inductor_per (a block its kernel's body binds) and sgl_group_quant (a computed block
#      covering the group), default strategy, a 60 s wall each, each kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker13_cases.py tests/data/breaker13 vllm_awq_dequant inductor_per sgl_group_quant
