#!/usr/bin/env bash
# configs24's GPU proof (tests/test_configs24_cases.py proves c40 on the CPU in Triton's interpreter) on one NVIDIA
# GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6-8 minutes.
#
#   c41: `kernelopt tune --device cuda` (90 s wall) on a copy of vLLM's w8a8 block fp8 GEMM WITH ITS AUTHORS' FILES
#   (tests/data/configs24/vllm_w8a8_block_fp8: vLLM's own tables for N=2048, K=512 on an H100 and an H200): no folder
#   refusal, the candidates' folders linking the copy's configs/, vLLM's files byte for byte unchanged after it, the
#   kernel.py left right through the GPU's own file at 1, 37, 300 and 4096 tokens and through the default dict at
#   16384 x 4096 x 16384 (256 MB of fp8 a side); then the H100's and the H200's entries each compiled and right at the
#   same sizes on this GPU (the authors' entries, the fallback every other device and size keeps).
#   c45: the forms c42-c44 and c46 write, keyed by what this GPU answers (AITER's get_arch(), vLLM's get_device_name()):
#   AITER's tiles after its getter under M <= 300 (the 90 file splitting K by 4 at M=16, N=8192, K=16384) and vLLM's
#   MoE rows of smaller tiles holding the grid count's limit and the launcher's divisibility (E=16 x 4096 x 4096 at
#   T=64, 512 MB a weight) and vLLM's fp8 settings after its branches (c46), compiled and right under the rows and
#   past them.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt (tune's
# output printed there).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 175 -s tests/test_configs24_cases.py -k c45
gpu_tests 290 -s tests/test_configs24_cases.py -k c41
progress "done"
