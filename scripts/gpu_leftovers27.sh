#!/usr/bin/env bash
# leftovers27's GPU proof: l130, a session telling a split-K's rounded partial adds from a longer chain at a size past
# its splits, on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# About 3 minutes, 420 s at most. The CPU half (tests/test_leftovers27_cases.py, tests/test_leftovers26_cases.py l110,
# benchmarks/accuracy_margins.py's split-K kind with its session column) replays the H100's refusals and l42's figures
# at 8192 and models the kernel's tiles and atomics; what only a GPU shows is the session's own evaluator doing it:
#
#   breaker21's ai_splitk: the original, the H100's ambiguous split_k 16 and 64 refusals, split_k=32 over 64 and
#   split_k=2's doubled chain, evaluated by a ShapesEvaluator over the three SHAPES entries (as tune builds it).
#   Each result and what the size past its splits said printed to tests.txt. Asserted: no check fails, split_k=2
#   refused, the split_k 16 and 64 picks kept (any the entries refused kept at its derived size), split_k=32 never
#   judged at a derived size.
#
#   l133: fla_matmul's discovery as tune makes it on a GPU (its keyed list of eight benchmarked whole at the first
#   run's key alone, the other SHAPES entries run pinned to that pick): every entry's sizes read, one pick kept, the
#   seconds printed (118 s on the H100 of 2026-12-07 before), under 90 s asserted.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 410 tests/test_leftovers27_cases.py -k on_cuda -s
progress "done"
