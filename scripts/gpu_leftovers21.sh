#!/usr/bin/env bash
# leftovers21: a literal setting tuned per size with the literal kept as the fallback (l9), on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes, 420 s at most.
#
#   tests: the GPU test of tests/test_leftovers21_cases.py: `kernelopt tune --device cuda --kernel
#   _cross_entropy_backward --json --budget-wall-s 120` on a copy of breaker20's unsloth_xent with realistic entries
#   (bf16 logits of 262-525 MB: 32000, 2048 and 128256 words). Where each vocabulary's best differs, the backward's
#   literal `BLOCK_SIZE: int = 4096` stays and a table over vocab_size is written after it; whatever is written passed
#   its net and computes what the original does, element for element, at vocabularies no entry names (1, 700, 5001,
#   33000 x 4096 rows, 128257 x 2048 rows; the reference's tolerance at the small ones). tests.txt keeps the
#   "leftovers21 l9" line (written, a table or not, the note, the net's line).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 415 -s --durations=5 tests/test_leftovers21_cases.py
progress "done"
