#!/usr/bin/env bash
# refblame14's GPU proof (tests/test_refblame14_cases.py proves the rules on the CPU) on one NVIDIA GPU (run from the
# repository root, $OUT set). GPU clocks and settings are never changed. About 2 minutes.
#
#   1. tests/data/refblame14/int_one on cuda: its `rnumel.to(tl.float32)` does not compile at the N=1 entry (Triton's
#      JIT makes an int argument of 1 a constexpr; Inductor's persistent reduction on the H100, 2026-12-06): the loop's
#      V0 names the entry as the problem's (UnrunnableEntry), the kernel judged alone fails there as its own.
#   2. a reference keeping its output in a dict keyed on the shape, checked on cuda: the problem's ReferenceCached,
#      reference.py loaded afresh on the device.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 300 tests/test_refblame14_cases.py -k on_a_gpu
progress "done"
