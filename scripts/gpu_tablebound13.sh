#!/usr/bin/env bash
# tablebound13's GPU proof (tests/test_tablebound13_cases.py proves the rules on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   1. tests: the GPU test of tests/test_tablebound13_cases.py: heur_falling's num_warps=8 set under the launch's own
#      N <= 100 (a table over args["N"] beside it) and tile_lse_zero's BLOCK_M=32 under the guard N % 64 == 0, each
#      correct on both sides of its bound at sizes no entry names; fla_l2norm's narrow kernel compiled at D = 128
#      with the authors' largest tile, one the fit keeps and one it refuses (registers and spills a thread written to
#      $OUT/tablebound13_registers.json: the refused one spills);
#   2. tune: `kernelopt tune --device cuda --json` on a copy of fla_l2norm (BT x num_warps, the block pointer tile
#      bounded by the authors' largest at each SHAPES entry), a 60 s wall, its kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tablebound13_registers.json, tune_fla_l2norm.json/.txt, kernel_fla_l2norm.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_tablebound13_cases.py tests/data/breaker12 fla_l2norm
