#!/usr/bin/env bash
# leftovers24's GPU proof: the accuracy rule's margins on one NVIDIA GPU (run from the repository root, $OUT set). GPU
# clocks and settings are never changed. About 3 minutes, 480 s at most. The CPU half (tests/test_leftovers24_cases.py
# l40 and l41, benchmarks/accuracy_margins.py's model) replays every recorded GPU figure and a numeric model of the
# accumulations; the GPU's own accumulators are what only a GPU shows.
#
#   Three kernels whose reductions accumulate differently, each original and five or so picks checked by a session's
#   evaluators at the SHAPES entries and at one size past them (as the net's): breaker21's split-K fp8 GEMM (the
#   tensor cores' truncating accumulator on sm90, fp16 atomics: split_k 1, 2, 8, 16 and m24's refused split_k=16,
#   block_k=128), v116's fp16 lanes (SPLIT 1, 4, 16; BLOCK 1024 and 4096), examples/matmul (fp32 sums of fp16, the
#   dtype's default tolerance: BLOCK_K 16, 64, 128, 64 x 64 tiles). Each pick's errors beside the original's, the
#   pace of its rise along the reduction's size and the rule's word (the entries alone; with the larger size) are
#   printed and written to $OUT/l42.json. Asserted: every chain twice the original's or longer refused or failing,
#   none no longer refused at the entries, the fp32 GEMM refusing nothing.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt, l42.json.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
L42_JSON="$R/l42.json" gpu_tests 460 tests/test_leftovers24_cases.py -k on_cuda -s
progress "done"
