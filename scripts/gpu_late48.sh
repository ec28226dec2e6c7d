#!/usr/bin/env bash
# late48's GPU proof: the two trial picks late44's bound had stopped writing, written again with the bound where the
# launcher binds its sizes (docs/faults.md l170-l171), on one NVIDIA GPU (run from the repository root, $OUT set). GPU
# clocks and settings are never changed. About 2-3 minutes (two folder preparations in the interpreter, then the
# compiled runs), 300 s at most. The CPU half (tests/test_late48_cases.py) reads the written texts and runs them in
# Triton's interpreter at small sizes; what only a GPU shows is that the compiled forms hold at realistic sizes:
#
#   breaker12's lightllm_tokatt with `BLOCK = 32` moved below `Lq, Lk = ...` and `if Lk <= 128:` / `BLOCK = 128`
#   after it (a 16 x 8192 decode batch at D = 128), and breaker13's sgl_decode_grouped with `BLOCK_H = 32` and
#   `BLOCK = 64` under `BLOCK_DMODEL <= 128 and BLOCK_DPE <= 0 and BLOCK_DV <= 128` (ROCm's override after the row),
#   right within the bound and past it (D = 192 and 256: the original's blocks).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_late48_cases.py -k on_cuda -s
progress "done"
