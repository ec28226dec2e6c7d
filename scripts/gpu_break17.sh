#!/usr/bin/env bash
# break17's GPU proof (tests/test_break17_cases.py proves b16 on the CPU with the pick given, since Triton's
# interpreter holds the launch options) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed. About 6 minutes.
#
#   b16: `kernelopt tune --device cuda` (a 120 s wall) on warps_tuple (break16's warps_augmented built by the test: a ReLU over n // BLOCK programs, `nw, ns = CFG`
#   of a module-level tuple, BLOCK = nw * 32): before the fix a pick of num_warps=32 was written `CFG = (32, 3)`,
#   wrong. The kernel.py it leaves is checked at sizes no entry names (n = 64, 1088, 8256, 2**20).
#   b17: `kernelopt tune --device cuda --json` on a kernel whose run asserts 8 programs of 256 (SHAPES n=32768 and
#   700): n=700 set aside and the original timed at n=32768 (the compile pool, moved to the primary shrunk, n=512,
#   read the original as raising there before the fix); the kernel.py it leaves right at n = 2048, 2049, 5000, 2**20.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 480 tests/test_break17_cases.py -k on_a_gpu
progress "done"
