#!/usr/bin/env bash
# Size scaling on one NVIDIA GPU (issue 34): the gate's size run tries a KernelBench-form problem's size plans
# on the device (tests/data/sizes/conv_pool.py: at --size-scale 0.05 a convolution then two pools leave nothing
# to pool; the nearest plan that runs is taken) and the check and timing run at that plan: PASS.
# Never changes GPU clocks or settings; fetches nothing; about a minute.
#
#   OUT=/some/folder bash scripts/gpu_sizes.sh      # from the repository root
#
# Writes $OUT/session.txt and $OUT/pytest_sizes_gpu.log (the GPU test's output and exit status).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$OUT/session.txt"
KERNELOPT_GPU_TESTS=1 timeout 300 "$PY" -m pytest -q -n 0 -o addopts=-ra -p no:cacheprovider \
  tests/test_size_scaling.py -k gpu > "$OUT/pytest_sizes_gpu.log" 2>&1
echo "pytest exit status: $?" >> "$OUT/pytest_sizes_gpu.log"
tail -3 "$OUT/pytest_sizes_gpu.log"
