#!/usr/bin/env bash
# claim20: the claim `tune --device cuda` makes of LMDeploy's persistent RMS norm, checked against its own session
# record, on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About
# 3 minutes, 240 s at most.
#
#   tests: the three GPU tests of tests/test_claim20_cases.py. First, `kernelopt tune --device cuda --json --budget-wall-s 60` twice on
#   a copy of tests/data/breaker19/lmd_rms (breaker19's run of 2026-12-06 claimed "13.1x faster" there from a re-time
#   that read the kernel as written at 149.0 us where its first round read 3.76 us; the gain is about 2 %). Each claim
#   is checked against its record: the current's figure within 10x of its first measurement in all and at each SHAPES
#   entry, the speedup the ratio of two figures the record holds, under 1.5x, and stderr saying the JSON's verdict.
#   tests.txt keeps a "claim20 run N" line a run: the verdict, the record's re-timed lines (twice the picks where the
#   first re-time read an outlier and was taken again) and the session's `unretimed` line. Second, lmd_rms's `run`
#   prepared ten times by the gate's sampler: each a CUDA graph, every estimate under 20 us, samples within 2x; its
#   "claim20 timer" line keeps the host's time a call (the likely cause: an estimate that read the host's pace).
#   Third (review20 r1), a wrapper that waits on the GPU (`.item()`) is estimated twice, not behind spins doubled to
#   50 ms, and sampled behind 100 us spins; its "review20 waits" line keeps the spins, the method and the host time.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 235 -s --durations=5 -k on_cuda tests/test_claim20_cases.py
progress "done"
