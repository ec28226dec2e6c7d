#!/usr/bin/env bash
# Issue 32, the twenty-fifth held-out trial (tests/test_breaker25_cases.py proves it on the CPU in Triton's
# interpreter) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 9 minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker25_cases.py: the trial's six originals compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor where memory matters: Mamba's SwiGLU
#      through its two autotune lists over strided halves, 4 x 8192 x 16384 bf16; SGLang's dual residual and plain
#      RMS norms, 65536 x 4096; fla's matmul and addmm, float32 with TF32 off, 4096 cubed and odd 4097 x 1025 x 4095;
#      DeepSpeed's softmax over 65536 rows of 4096 and a 50257-column vocabulary; Lightning Attention's linear
#      attention forward and two-launch backward over 2048 steps, its tl.dot in TF32 (its reference's ATOL 8e-2, near 1e-3
#      of the outputs' magnitude, since an H100 put 28 outputs past 2e-2 at D = E = 128 on 2026-12-07: reference.py); its RMS norm forward and backward, 65536 x 4096 float32), and the forms
#      tune writes for GPU picks (SGLang's block tabled before its **config dict (q51, q52); Lightning Attention's
#      backward block and guarded sub-block, its forward's block kept (q50); fla's list pinned to one config, also
#      past 2**31 elements: A of 2097120 x 1025 float32, its int64 program ids), correct at sizes the SHAPES do not
#      name;
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of
#      sgl_dual_rms (a computed block and warps inside a splatted dict), la_nodecay (three launches, a block in the
#      forward and one in the backward, a sub-block count derived from both) and fla_matmul (an eight-config list,
#      the fp32 chain cdiv(K, BK) long).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker25_cases.py
tune_copies tests/data/breaker25 sgl_dual_rms la_nodecay fla_matmul
progress "done"
