#!/usr/bin/env bash
# Issue 7's proof on a machine with one or more GPUs (run from the repository root with $OUT set).
#
# Measures the ceilings once, then runs one lane per GPU in parallel. A lane takes its examples in turn:
# `kernelopt optimize` with the default rule-based backends, the workspace's summary, git log and report,
# then (SWEEP=1) the exhaustive sweep of the example's knob space against the finished workspace
# (benchmarks/sweep_compare.py) on the same GPU, and a copy of the workspace without its profiles.
#
# Prerequisites (device tool): .whl carried and installed into /tmp/site,
#   PYTHONPATH=/tmp/site:$PWD/src:/opt/nvidia/nsight-compute/2025.3.1/extras/python
# Env:
#   LANES          "GPU:example[,example...] ..." (default "0:softmax"), e.g. "0:matmul 1:softmax,layernorm";
#                  "GPU:sweep=example[,...]" only sweeps, against workspaces already under $WS_ROOT
#                  (e.g. ones a previous call left in $OUT/ws_<example>.tar.gz, unpacked and carried)
#   WS_ROOT        where the workspaces live (default /tmp/kernelopt-ws)
#   MAX_ITERS      iterations per example (default 8)
#   MAX_WALL_MIN   the loop's own wall-time stop per example, minutes (default 5); WALL_<example> overrides
#   SWEEP          1 to run the sweep after each example (default 1); SWEEP_JOBS compile processes (8)
#   SWEEP_TIMEOUT  seconds (default 240)
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
W=${WS_ROOT:-/tmp/kernelopt-ws}
mkdir -p "$W"
gpu_header "$R/session.txt" index,name,driver_version
timeout 150 python3 -m kernelopt ceilings --json >> "$R/session.txt" 2>&1

sweep() {
    local gpu=$1 ex=$2 start
    start=$(date +%s)
    CUDA_VISIBLE_DEVICES=$gpu timeout "${SWEEP_TIMEOUT:-240}" python3 benchmarks/sweep_compare.py \
        --example "$ex" --workspace "$W/kernel_opt_$ex" --jobs "${SWEEP_JOBS:-8}" --json "$R/sweep_$ex.json" \
        > "$R/sweep_$ex.txt" 2>&1
    echo "rc=$? wall_s=$(( $(date +%s) - start )) gpu=$gpu" >> "$R/sweep_$ex.txt"
}

lane() {
    local gpu=$1 ex start ws wall
    shift
    if [ "${1:-}" = sweep ]; then
        shift
        for ex in "$@"; do sweep "$gpu" "$ex"; done
        return
    fi
    for ex in "$@"; do
        start=$(date +%s)
        wall=$(eval echo "\${WALL_$ex:-${MAX_WALL_MIN:-5}}")
        CUDA_VISIBLE_DEVICES=$gpu timeout "$(awk "BEGIN { print int($wall * 60 + 150) }")" python3 -m kernelopt \
            optimize "examples/$ex" --root "$W" --max-iters "${MAX_ITERS:-8}" --max-wall-min "$wall" \
            > "$R/optimize_$ex.txt" 2>&1
        echo "rc=$? wall_s=$(( $(date +%s) - start )) gpu=$gpu" >> "$R/optimize_$ex.txt"
        ws="$W/kernel_opt_$ex"
        { python3 -m kernelopt memory summary --workspace "$ws"; git -C "$ws" log --format='%h %s'; } \
            >> "$R/optimize_$ex.txt" 2>&1
        python3 -m kernelopt report "$ws" --markdown "$R/report_$ex.md" > /dev/null 2>&1
        tar -C "$W" --exclude='*.ncu-rep' -czf "$R/ws_$ex.tar.gz" "kernel_opt_$ex" 2> /dev/null
        if [ "${SWEEP:-1}" = 1 ]; then sweep "$gpu" "$ex"; fi
    done
}

for spec in ${LANES:-0:softmax}; do
    lane "${spec%%:*}" $(echo "${spec#*:}" | tr ',=' '  ') &
done
wait
ls -la "$R"
