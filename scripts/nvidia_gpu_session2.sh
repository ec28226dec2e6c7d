#!/usr/bin/env bash
# Second GPU session of issue 4: the new --fast set on every fixture kernel (against the full-set rows of
# session 1), the gpu-marked tests after moving report reading into a worker process, and doctor.
set -u
R=$OUT; W=$(mktemp -d)
timeout 70 python3 benchmarks/profile_cost.py --sets fast --baseline-json tests/data/nvidia/h200_profile_cost_session1.json --root "$W" --json "$R/cost2.json" > "$R/cost2.md" 2>&1
KERNELOPT_GPU_TESTS=1 timeout 40 python3 -m pytest -q -o addopts=-ra -p no:cacheprovider tests/test_nvidia_gpu.py -k "full_set or matching_nothing or timing_only" > "$R/gpu_tests2.txt" 2>&1
timeout 20 python3 -m kernelopt doctor > "$R/doctor2.txt" 2>&1; echo "rc=$?" >> "$R/doctor2.txt"
