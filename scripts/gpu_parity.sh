#!/usr/bin/env bash
# Where Triton's interpreter and a GPU compile disagree (docs/faults.md, "Interpreter and GPU disagree"; the CPU proof
# is tests/test_gpu_parity.py, which also compiles for sm_90 without a GPU) on one NVIDIA GPU (run from the repository
# root, $OUT set). GPU clocks and settings are never changed. About 1-2 minutes.
#
#   1. tests: the GPU test of tests/test_gpu_parity.py: a tl.dot of K = 8 (fp32) and of K = 16 (int8) and a launch
#      of num_warps=6 fail on the GPU as kernelopt's interpreter rules now fail them on the CPU, their legal twins run
#      correctly; and the kernel.py `tune --device cpu` writes for a GEMM written with K = 8 compiles on the GPU and is
#      correct at three sizes its SHAPES never names;
#   2. compile: each of those kernels launched on the GPU found, its verdict (runs, with its error; or Triton's
#      refusal, its last line), for the record beside the CPU's.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt, compile.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"

gpu_tests 240 tests/test_gpu_parity.py

progress "compile: start"
timeout 120 $PY - > "$R/compile.txt" 2>&1 <<'PYEOF'
import importlib.util

import torch

spec = importlib.util.spec_from_file_location("dots", "tests/data/gpuparity/dots.py")
dots = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dots)
print("device", torch.cuda.get_device_name(), "capability", torch.cuda.get_device_capability())
for k, dtype, warps in ((8, torch.float32, 4), (16, torch.float32, 4), (16, torch.float32, 6), (16, torch.int8, 4),
                        (32, torch.int8, 4)):
    try:
        err = dots.launch(k, dtype, "cuda", num_warps=warps)
        print(f"K={k} {dtype} num_warps={warps}: runs, max error {err:.3g}")
    except Exception as exc:
        print(f"K={k} {dtype} num_warps={warps}: refused: {type(exc).__name__}: {str(exc).splitlines()[-1][:200]}")
PYEOF
progress "compile: rc=$?"
progress "done"
