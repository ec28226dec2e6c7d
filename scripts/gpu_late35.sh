#!/usr/bin/env bash
# late35's GPU proof: the accuracy rule at the net's sizes on one NVIDIA GPU (run from the repository root, $OUT set).
# GPU clocks and settings are never changed. About 3 minutes, 420 s at most. The CPU half (tests/test_late35_cases.py
# l45 on the recorded interpreter figures, l46 a v116 write in Triton's interpreter) shows the comparison refusing a
# chain twice the original's that the entries keep; the GPU's own accumulators are what only a GPU shows.
#
#   The write path `tune` takes after a session (the session's evaluators, the original checked at every entry, then
#   the pick checked on the entries and by the net, whose largest sizes the written kernel passed are compared with
#   the original's errors there): v116's fp16 lanes (SPLIT=4, then BLOCK=512 with SPLIT=4) and breaker21's split-K fp8
#   GEMM (split_k=2, then split_k=8). Asserted: the longer chain is not written (refused on the entries or at the
#   net's sizes), the next-best is, the net's line names where its error was compared, and what is written is right
#   at 1 x 1.1 M columns and at 8192 x 8192 x 8192. Each note and net line is printed to tests.txt.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 400 tests/test_late35_cases.py -k on_cuda -s
progress "done"
