#!/usr/bin/env bash
# newuser18's GPU proof (tests/test_newuser18_cases.py proves n109-n119 on the CPU, where Triton's interpreter holds
# num_warps and a torch.compile mode is compiled for the CPU) on one NVIDIA GPU (run from the repository root, $OUT
# set). GPU clocks and settings are never changed. About 6-8 minutes.
#
#   n111 n112 n113 n117 n119: `kernelopt tune --device cuda --json` (a 120 s wall) on the user's scale under
#   @triton.autotune with 24 configs (six BLOCKs times four num_warps, keyed by n) at 256 MiB a tensor: the JSON's
#   timed_on names the GPU (the plot's title), the progress lines say the best sums the two entries, the verdict never
#   counts 6 of the 24, candidates.csv has a row a candidate with BLOCK and num_warps, and the kernel.py left is right
#   at sizes no entry names.
#   n115: `kernelopt tune --device cuda` (a 240 s wall) on the SwiGLU through torch.compile(mode=MODE), MODE marked
#   tunable over default and max-autotune-no-cudagraphs, at 16384 x 16384 fp32 in (1 GiB): both modes compiled and
#   timed, none failing.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt, and
# newuser18_at/ and newuser18_mode/ (each session's JSON, stderr, candidates.csv, search.png, the kernel.py left).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 570 tests/test_newuser18_cases.py -k on_a_gpu
progress "done"
