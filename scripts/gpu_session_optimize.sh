#!/usr/bin/env bash
# GPU session of issue 7 (run on the H200 machine from the repository root, with $OUT set):
# the harness GPU tests on the shipped timing code, then `kernelopt optimize` end to end with the
# default rule-based backends on the softmax example, then its report and git log.
# Prerequisites (device tool): .whl carried, installed into /tmp/site, PYTHONPATH=/tmp/site:$PWD/src:<ncu extras/python>.
set -u
R=$OUT
W=/tmp/kernelopt-ws; rm -rf "$W"; mkdir -p "$W"
date -u > "$R/session.txt"; nvidia-smi --query-gpu=name,driver_version --format=csv >> "$R/session.txt" 2>&1
KERNELOPT_GPU_TESTS=1 timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_harness_gpu.py -s > "$R/harness_gpu_tests.txt" 2>&1
echo "rc=$?" >> "$R/harness_gpu_tests.txt"
start=$(date +%s)
timeout ${OPT_TIMEOUT:-330} python3 -m kernelopt optimize examples/softmax --root "$W" --max-iters ${MAX_ITERS:-3} > "$R/optimize_softmax.txt" 2>&1
echo "rc=$? wall_s=$(( $(date +%s) - start ))" >> "$R/optimize_softmax.txt"
WS="$W/kernel_opt_softmax"
python3 -m kernelopt memory summary --workspace "$WS" > "$R/summary_softmax.txt" 2>&1
git -C "$WS" log --format='%h %s' > "$R/gitlog_softmax.txt" 2>&1
python3 -m kernelopt report "$WS" --html "$R/report_softmax.html" --markdown "$R/report_softmax.md" > /dev/null 2>&1
tar czf "$R/ws_softmax.tgz" -C "$W" --exclude='*.ncu-rep' --exclude='.triton_cache' --exclude='.git' kernel_opt_softmax 2>/dev/null
ls -la "$R"
