#!/usr/bin/env bash
# agents19: the checker's snapshot of a12 (docs/faults.md, "A hostile coding agent") on one NVIDIA GPU (run from the
# repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   tests: the GPU test of tests/test_agents19_cases.py: `kernelopt validate --device cuda` of examples/elementwise
#   (2**28 fp16 elements, 512 MiB a tensor) as written passes, nothing of kernelopt's, torch.cuda.Event's, time's or
#   torch.Tensor's operators (a13) taken for patched while CUDA starts, Triton compiles and the timers run; the same
#   kernel with torch.cuda.Event.elapsed_time divided by 100 at import fails, naming it; a14 (timedcheck19): the
#   honest kernel's timed output, checked after each case's samples on inputs refilled in place, passes through
#   whichever method its sampler took at each size (CUDA events, or a graph's replay), and the same kernel answering from a cache by pointer while the timers
#   call it fails (its 4099 case alone) with "the timed path's output differed from the reference" (tests.txt keeps
#   the "agents19 validate" lines: each run's exit status, seconds and last line).
#   timedgpu20 (a14c): the cheat is now checked on every output its graph's replay returns (on 2026-12-06 its last
#   call's alone, captured, passed at 59x over eager); the honest run's graph is not said stale.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 480 -s --durations=5 tests/test_agents19_cases.py
progress "done"
