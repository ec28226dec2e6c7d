#!/usr/bin/env bash
# GPU session of issue 7 (run on the H200 machine from the repository root, with $OUT set):
# optional harness GPU tests, measured ceilings, then `kernelopt optimize` end to end with the default
# rule-based backends on the examples named in $EXAMPLES, then each workspace's summary, git log and report.
# Prerequisites (device tool): .whl carried, installed into /tmp/site, PYTHONPATH=/tmp/site:$PWD/src:<ncu extras/python>.
# Env: EXAMPLES (default "softmax"), MAX_ITERS (3), OPT_TIMEOUT seconds per example (330), HARNESS_TESTS=1,
# WS_ROOT (the workspaces, default /tmp/kernelopt-ws, emptied first).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
W=${WS_ROOT:-/tmp/kernelopt-ws}; rm -rf "$W"; mkdir -p "$W"
gpu_header "$R/session.txt" name,driver_version
if [ "${HARNESS_TESTS:-0}" = 1 ]; then
    KERNELOPT_GPU_TESTS=1 timeout 150 python3 -m pytest -q -o addopts=-ra -p no:cacheprovider tests/test_harness_gpu.py -s > "$R/harness_gpu_tests.txt" 2>&1
    echo "rc=$?" >> "$R/harness_gpu_tests.txt"
fi
timeout 120 python3 -m kernelopt ceilings --json >> "$R/session.txt" 2>&1
for ex in ${EXAMPLES:-softmax}; do
    start=$(date +%s)
    timeout ${OPT_TIMEOUT:-330} python3 -m kernelopt optimize "examples/$ex" --root "$W" --max-iters ${MAX_ITERS:-3} > "$R/optimize_$ex.txt" 2>&1
    echo "rc=$? wall_s=$(( $(date +%s) - start ))" >> "$R/optimize_$ex.txt"
    WS="$W/kernel_opt_$ex"
    { python3 -m kernelopt memory summary --workspace "$WS"; git -C "$WS" log --format='%h %s'; } >> "$R/optimize_$ex.txt" 2>&1
    python3 -m kernelopt report "$WS" --markdown "$R/report_$ex.md" > /dev/null 2>&1
done
ls -la "$R"
