#!/usr/bin/env bash
# wrongkernel18's GPU proof (tests/test_wrongkernel18_cases.py proves v70-v76 on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 5-8 minutes.
#
#   v70-v76: `folder._checked_edit` on cuda, compiled, with BLOCK=1024 picked over each original's BLOCK of 256 (128
#   for v72; BLOCK_M=128 of 32 for v73) that asserts a least count of programs, at realistic sizes (2**22 elements,
#   65536 rows), rules off then on: the net's floor size fails each below the smallest entry, where the original runs.
#   break17's b17 (`tune --device cuda` on v70's kernel, phase break17) is the end-to-end proof.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 480 tests/test_wrongkernel18_cases.py -k on_cuda
progress "done"
