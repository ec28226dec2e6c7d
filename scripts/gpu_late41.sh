#!/usr/bin/env bash
# late41's GPU proof: a table keyed by the device keeps another GPU model's rows (docs/faults.md l95), on one NVIDIA
# GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 2-3 minutes, 300 s at
# most. The CPU half (tests/test_late41_cases.py l95) writes an H100's keyed chain, then the CPU's table after it, and
# runs the kernel in Triton's interpreter, where only the CPU's rows can hold; what only a GPU shows is this GPU's
# own rows compiled and in effect beside another model's.
#
#   vLLM's w8a8 block fp8 GEMM (tests/data/configs24/vllm_w8a8_block_fp8, its authors' files): a row keyed to another
#   GPU model (BLOCK_SIZE_M = 128 under M <= 4096; an H200's where this is not one, an H100's where it is), then this
#   GPU's table written after it as `tune` writes it (write_table, guard_edit). Asserted: both chains in kernel.py,
#   and the kernel right on this GPU under its row (M=37 through the GPU's file; M=64 at 7168 x 16384 through the
#   default dict) and past it (M=4096; 16384 x 4096 x 16384, 256 MB of fp8 a side). The GPU's name and the kept
#   device are printed to tests.txt.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 290 tests/test_late41_cases.py -k on_cuda -s
progress "done"
