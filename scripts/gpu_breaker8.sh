#!/usr/bin/env bash
# Issue 32, the eighth held-out trial (tests/test_breaker8_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 5 minutes.
#
#   1. tests: the GPU test of tests/test_breaker8_cases.py: the trial's eight originals compiled by Triton at larger
#      sizes (the fused-attention tutorial's causal forward, vLLM's fused MoE, Mamba's chunk cumsum inside
#      torch.cuda.device(index), fla's chunk-local cumsum, Liger's fused add + RMSNorm, bitsandbytes' NF4 dequant,
#      Inductor's softmax, tl.range(loop_unroll_factor=)) and the forms the fixes write (m2's MoE settings after
#      `config = get_config_func(M)`, m3/m7's pinned BLOCK_SIZE_H), correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of moe_vllm (m2: the four MoE settings), ssd_cumsum (m3,
#      m7: the autotune list, 1..64 heads a program) and fa2_causal (m5: a static_assert a compile error), default
#      strategy, a 60 s wall each, each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker8_cases.py tests/data/breaker8 moe_vllm ssd_cumsum fa2_causal
