#!/usr/bin/env bash
# Issue 32, the seventh held-out trial (tests/test_breaker7_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA Hopper GPU (TMA descriptors; run from the repository root, $OUT set). GPU clocks and settings are never
# changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker7_cases.py: the trial's originals compiled by Triton (the persistent
#      TMA GEMM, libdevice's tanh and round as CUDA computes them, the split-KV decode at 2000 tokens) and the forms
#      the fixes write (k1's pinned list with its pre_hook, k3's MAX_FUSED_SIZE, k4's heuristic return, k5's
#      NUM_KV_SPLITS), correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of tma_persist (configs pinned with their pre_hook: k1),
#      ge_softmax (TILE_N in a named heuristic: k4) and decode_split (NUM_KV_SPLITS beside BLOCK_N: k5), default
#      strategy, a 60 s wall each, each written kernel.py kept;
#   0. diag: token_quant's int8 at B=4, T=512, D=4096 against its reference (how many differ, all at rounding ties?),
#      the H100 failure of 2026-12-05 that the integer-output rule answers (docs/gpu-runs/2026-12-05-h100-f).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/, token_quant_diag.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"

progress "diag: start"
timeout 120 $PY docs/gpu-runs/2026-12-05-h100-f/token_quant_diag.py > "$R/token_quant_diag.txt" 2>&1
progress "diag: rc=$?"

gpu_tests 900 tests/test_breaker7_cases.py

tune_copies tests/data/breaker7 tma_persist ge_softmax decode_split
progress "done"
