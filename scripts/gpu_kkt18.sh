#!/usr/bin/env bash
# kkt18: fla's chunk kkt (tests/data/breaker16/fla_kkt) on one NVIDIA GPU (run from the repository root, $OUT set):
# which of its 27 autotune configs are wrong on the GPU. GPU clocks and settings are never changed. About 2 minutes.
#
#   tests: the GPU test of tests/test_kkt18_cases.py: each config pinned in turn (its autotuner given that one
#   config, the heuristics kept), three runs at B=4, T=16384, H=16, K=128 (breaker16's GPU size, 75162 elements wrong
#   on the H100 of 2026-12-06 as the autotuner picked) and at T=1024, against the reference in float64; then the
#   autotuner's own pick. tests.txt keeps one "kkt18 ..." line a config and run (-s). The sm_90 compile predicts the
#   twelve configs with a K loop on four or eight warps race (their async wgmmas still read the tile the loop's next
#   copy overwrites: docs/faults.md kkt18); the fifteen others are right, and no other config is wrong.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 300 -s --durations=15 tests/test_kkt18_cases.py
progress "done"
