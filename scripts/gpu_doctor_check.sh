#!/usr/bin/env bash
# Issue 17: prove on an NVIDIA GPU that `kernelopt doctor` profiles a trivial kernel with ncu
# (--clock-control none; GPU clocks and settings are never changed) under its own timeout.
# Run from the repository root: OUT=/some/folder bash scripts/gpu_doctor_check.sh   (about 1 minute)
# Writes $OUT/session.txt, $OUT/doctor.txt, $OUT/doctor.json and $OUT/pytest_doctor_gpu.log.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$OUT/session.txt"
"$PY" -m kernelopt doctor --probe-timeout 300 > "$OUT/doctor.txt" 2>&1
echo "doctor exit status: $?" >> "$OUT/doctor.txt"
"$PY" -m kernelopt doctor --probe-timeout 300 --json > "$OUT/doctor.json" 2>> "$OUT/doctor.txt"
KERNELOPT_GPU_TESTS=1 "$PY" -m pytest -q -o addopts=-ra -p no:cacheprovider tests/test_doctor.py -k gpu > "$OUT/pytest_doctor_gpu.log" 2>&1
echo "pytest exit status: $?" >> "$OUT/pytest_doctor_gpu.log"
cat "$OUT/doctor.txt"
tail -3 "$OUT/pytest_doctor_gpu.log"
