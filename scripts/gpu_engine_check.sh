#!/usr/bin/env bash
# Issue 22's execution proof on an NVIDIA GPU (run from the repository root, $OUT set):
#   1. scripts/engine_check.py: a 16384 x 16384 fp32 bias + GELU (1 GiB per tensor) and a 16384 x 8192 fp32
#      row softmax (512 MiB per tensor), 8 configurations each, through KernelEvaluator (compile pool on the
#      small shape, one bench worker with the inputs built once), then the best two re-timed interleaved;
#      per candidate: latency, the bench worker's peak memory against inputs + outputs, seconds it cost;
#   2. the GPU tests of the engine (tests/test_tuning_gpu.py, KERNELOPT_GPU_TESTS=1).
# GPU clocks and settings are never changed. Time: about 2-4 minutes.
# Writes under $OUT: session.txt, engine_check.{md,json,txt}, gpu_tests.txt, sessions/ (candidate files and
# worker logs; the Triton caches are removed).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt" index,name,driver_version,memory.used,memory.total
timeout 480 "$PY" scripts/engine_check.py --out "$R" > "$R/engine_check.txt" 2>&1
echo "rc=$?" >> "$R/engine_check.txt"
KERNELOPT_GPU_TESTS=1 timeout 300 "$PY" -m pytest -q -n 0 tests/test_tuning_gpu.py > "$R/gpu_tests.txt" 2>&1
echo "rc=$?" >> "$R/gpu_tests.txt"
find "$R/sessions" -type d -name triton-cache -prune -exec rm -rf {} + 2> /dev/null
cat "$R/engine_check.txt" | tail -40
tail -3 "$R/gpu_tests.txt"
