#!/usr/bin/env bash
# Issue 32, the sixth held-out trial (tests/test_breaker6_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 5 minutes.
#
#   1. tests: the GPU test of tests/test_breaker6_cases.py: the trial's originals compiled by Triton (the layer-norm
#      backward's atomic_cas spin lock contended by parallel programs, which the interpreter never does; the argmax
#      tie rule; the cross-entropy's gradient in place) and the forms the fixes write (stencil_pad's plain tiles,
#      op_whole guarded through wrap_triton in a real torch.library.triton_op, varlen_whole's divisor block),
#      correct at sizes the SHAPES do not name;
#   2. tune: `kernelopt tune --device cuda --json` on copies of range_stages (NUM_STAGES, a tl.range option, is
#      searched on a GPU: j2 holds it on the CPU only), varlen_whole (a wider BLOCK_T never written: j8) and
#      op_whole (BLOCK guarded by n: j4), default strategy, a 60 s wall each, each written kernel.py kept.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker6_cases.py tests/data/breaker6 range_stages varlen_whole op_whole
