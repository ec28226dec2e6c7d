#!/usr/bin/env bash
# Issue 32, the twenty-first held-out trial (tests/test_breaker21_cases.py proves it on the CPU in Triton's interpreter)
# on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 8
# minutes, 600 s at most.
#
#   1. tests (330 s at most): the GPU test of tests/test_breaker21_cases.py: the trial's eight originals compiled by
#      Triton at a small odd size and at realistic sizes (256 MB - 1 GB a tensor where memory matters: applied-ai's
#      split-K GEMM (rows loaded unmasked, M and N multiples of 64), tritonbench's Stream-K GEMM persistent over the
#      SM count with its stream-K tiles, vLLM's merge of attention states, fla's token shift forward and backward,
#      trident's var_mean over both dimensions (a static method's autotune list), applied-ai's channel-last causal
#      conv1d, attorch's batch norm with its running statistics in place, Liger's fused linear JSD), and the forms
#      tune writes for GPU picks (applied-ai's split-K locals guarded by m % 128, the Stream-K list pinned with its
#      reset_to_zero, trident's static-method list pinned), correct at sizes the SHAPES do not
#      name (Stream-K's with K and N multiples of 8, inside its own `tl.multiple_of` hints); and the original
#      Stream-K at K = 4095 in a child process, where those hints fault or read wrong (docs/faults.md d40);
#   2. tune (a 60 s wall each, gpu_env.sh's tune_copy): `kernelopt tune --device cuda --json` on copies of ai_splitk
#      (every setting a positional local) and trident_var_mean (a class's static-method autotune list), then on
#      fla_token_shift's forward launch (`--kernel token_shift_fwd_kernel`: a list of launch options only, which the
#      CPU cannot tune).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 330 tests/test_breaker21_cases.py
tune_copies tests/data/breaker21 ai_splitk trident_var_mean
tune_copy tests/data/breaker21 fla_token_shift --kernel token_shift_fwd_kernel
progress "done"
