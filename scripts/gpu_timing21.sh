#!/usr/bin/env bash
# timing21: the timed check's open edges on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 2 minutes, 420 s at most.
#
#   tests: the GPU tests of tests/test_gpu_timing21.py, each printing a "timing21 yN" line into tests.txt.
#   y1: a kernel that keeps its result while a graph is captured (one recorded call a set, its tensor returned for the
#   others) is timed back to back with the warning that says why; an honest kernel writing one output buffer at every
#   call, and one returning a new output a call, keep their CUDA graphs.
#   y2: a correct CUDA extension (load_inline, about a minute of nvcc) whose copy runs on the legacy default stream and
#   whose `+ x` is captured is timed back to back (its graph missed part of its work) and passes, where main failed it
#   as TimedMismatch.
#   y3: a kernel returning one buffer for every call has every call's output checked: one whose captured calls write x
#   alone there every other call (the last right) is timed back to back (main passed it by its graph); an honest one
#   keeps its graph and passes.
#   y4: a wrapper with 50 us of host work a call, timed by calls back to back, waits behind a spin that covers the host's
#   queuing of a sample (said in Sampler.timing) and reads the GPU's time, where main's 100 us spin read the host's pace.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 400 -s --durations=5 tests/test_gpu_timing21.py
progress "done"
