#!/usr/bin/env bash
# wrongkernel26's GPU proof (tests/test_wrongkernel26_cases.py proves v119-v122 and v124's guard on the CPU, and
# v124's wrap by replaying its int32 index in numpy; the wrap itself needs tensors of 8.6 GB) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 1 minute, 480 s at most.
#
#   v124 (tests/data/variants/rows_flat_mask: a row-wise scale in tiles of ROWS whole rows, its index
#   `rows[:, None] * N + cols` and its mask `offs < M * N` in int32) at 10526880 x 204 float32 (a tile of 128 x 256;
#   at 262160 x 8191 the 128 x 8192 tile outlasted the test's 120 s in ptxas on an H100, 2026-12-07): the original
#   (ROWS = 16) right, its inputs untouched; ROWS = 128, which tune and tunables --set wrote before the rule, not
#   right (its last tile's padded rows wrap negative and pass the mask: an illegal address, or a tensor 8 GB before
#   the output overwritten). If ROWS = 128 comes out right, the wrap did not reach memory the test watches, and
#   the CPU replay stays the proof.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 460 tests/test_wrongkernel26_cases.py -k on_cuda -s
progress "done"
