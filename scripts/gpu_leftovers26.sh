#!/usr/bin/env bash
# leftovers26's GPU proof: l110's model of split-K's rounded partial adds on one NVIDIA GPU (run from the repository
# root, $OUT set). GPU clocks and settings are never changed. About 2 minutes, 400 s at most. The CPU half
# (tests/test_leftovers26_cases.py l110, benchmarks/accuracy_margins.py's split-K kind) replays the H100's 13
# refusals and models the kernel's tiles and atomics; what only a GPU shows is its accumulators at a K past them:
#
#   breaker21's ai_splitk: the picks the H100 refused at its entries on 2026-12-07 (split_k 16 to 64; m24's tiles
#   with num_warps 4 and 8), the original and split_k=2, each checked by a session's evaluators at the SHAPES entries
#   and at 512 x 512 x 8192. Each pick's errors and the rule's word (the entries alone; with 8192) printed to
#   tests.txt. Asserted: split_k=2 refused, no pick failing, the split_k 16 and 64 picks not refused with 8192 beside
#   the entries (split_k=32's, 1.5 to 2 times the original's error at an entry, printed only).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 390 tests/test_leftovers26_cases.py -k on_cuda -s
progress "done"
