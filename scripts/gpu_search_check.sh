#!/usr/bin/env bash
# Issue 13's GPU check of the rules backend's measured search (run from the repository root with $OUT set).
#
# 1. the GPU tests of the tuning engine (tests/test_launch_tuning.py -m gpu): a real Triton kernel's candidates
#    compiled, checked and timed on the GPU;
# 2. for each example, `kernelopt optimize` with the default rules backends (one tuning session of the launch
#    configuration per version in Stage 3, the winner gated in Stage 4), then one JSON per example with
#    every version's category, gate result, latency and candidates (configuration, status, latency,
#    chosen), the stop reason and the counts.
# Never changes GPU clocks or settings (ncu runs with --clock-control none, the profiler's default here).
#
# Env: EXAMPLES (default: every folder under examples/), MAX_ITERS (default 12), MAX_WALL_MIN (default 8),
#      WS_ROOT (default /tmp/kernelopt-search), TESTS (1: run the GPU tests first, default 1).
# A device call is limited to 10 minutes: give one example per call, e.g.
#   TESTS=1 EXAMPLES=matmul MAX_WALL_MIN=5 bash scripts/gpu_search_check.sh      (at most about 9 min)
#   TESTS=0 EXAMPLES=elementwise MAX_WALL_MIN=6 bash scripts/gpu_search_check.sh (at most about 9 min)
# Writes: $OUT/gpu_tests.txt, $OUT/optimize_<ex>.txt, $OUT/optimize_<ex>.json (the loop summary),
#         $OUT/search_<ex>.json (per-version candidates), $OUT/report_<ex>.md, $OUT/session.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
W=${WS_ROOT:-/tmp/kernelopt-search}
mkdir -p "$W"
gpu_header "$R/session.txt" index,name,driver_version,clocks.sm,clocks.max.sm
if [ "${TESTS:-1}" = 1 ]; then
    KERNELOPT_GPU_TESTS=1 timeout 300 python3 -m pytest -q -o addopts=-ra -m gpu tests/test_launch_tuning.py > "$R/gpu_tests.txt" 2>&1
    echo "rc=$?" >> "$R/gpu_tests.txt"
fi
for dir in ${EXAMPLES:-$(ls examples)}; do
    ex=$(basename "$dir")
    [ -f "examples/$ex/kernel.py" ] || continue
    start=$(date +%s)
    wall=${MAX_WALL_MIN:-8}
    timeout "$(awk "BEGIN { print int($wall * 60 + 180) }")" python3 -m kernelopt optimize "examples/$ex" --root "$W" \
        --max-iters "${MAX_ITERS:-12}" --max-wall-min "$wall" --json > "$R/optimize_$ex.json" 2> "$R/optimize_$ex.txt"
    echo "rc=$? wall_s=$(( $(date +%s) - start ))" >> "$R/optimize_$ex.txt"
    ws="$W/kernel_opt_$ex"
    python3 - "$ws" > "$R/search_$ex.json" 2>> "$R/optimize_$ex.txt" <<'PY'
import json, sys
from pathlib import Path
from kernelopt.workspace import Workspace
ws = Workspace(Path(sys.argv[1]))
rows = []
for r in ws.memory.records(include_masked=True):
    rows.append({
        "version": r.version,
        "category": r.optimization.action_category.value if r.optimization.action_category else None,
        "gate": r.quality_gate.result.value if r.quality_gate.result else None,
        "latency_us": r.performance.latency_us,
        "knob_changes": r.optimization.knob_changes,
        "failure_reason": r.quality_gate.failure_reason,
        "candidates": [c.model_dump(mode="json") for c in r.candidates],
    })
print(json.dumps({"workspace": str(ws.root), "versions": rows,
                  "candidates_timed": sum(1 for r in rows for c in r["candidates"] if c["latency_us"] is not None)},
                 indent=1))
PY
    python3 -m kernelopt report "$ws" --markdown "$R/report_$ex.md" > /dev/null 2>&1
done
