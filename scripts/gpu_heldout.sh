#!/usr/bin/env bash
# Issue 32 items 6 and 8 on one NVIDIA GPU (run from the repository root, $OUT set; gpu_session.sh's phase
# `heldout` runs it in the background). GPU clocks and settings are never changed.
#
#   1. sweeps: benchmarks/sweep_compare.py times EVERY configuration of each held-out kernel's space
#      (benchmarks/heldout, HELDOUT_SPACES in sweep_compare.py; kernels written after the strategy was fixed);
#      the time limit is generous so the sweeps are complete (the table's "timed" + "pruned" = "configs");
#   2. tune: `kernelopt tune --within <its sweep>` from each kernel's V0, default strategy and budget: the
#      tuner searches the sweep's values only, so its pick compares with the sweep's best over the same space;
#   3. compare: one process re-times V0, the tuned kernel and the sweep's best, interleaved
#      (sweep_compare.py --compare), and prints tuned / best with the evaluations (target: within 3 %, at most
#      1/5 of the space timed);
#   then, on any machine: copy sweeps/*.json to docs/gpu-runs/<date>-heldout/ and run benchmarks/tune_replay.py
#   (the replay is CPU work: it reads held-out sweeps from there).
#
# Env: OUT (required), HELDOUT_EXAMPLES (default: both), SWEEP_BUDGET_S (default 600 per kernel),
# SWEEPS_FROM (a folder of complete sweeps recorded earlier on the same GPU, e.g. docs/gpu-runs/2026-12-05-heldout:
# step 1 is skipped and they are copied; the comparison still re-times V0, the pick and the sweep's best together).
# Writes under $OUT: session.txt, progress.txt, sweeps/*.json, tune/<kernel>.json and .txt, tune_walls.txt,
# compare_heldout.{md,json}, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
EXAMPLES=${HELDOUT_EXAMPLES-"logsumexp_fp32 mlp_up_fp16"}
mkdir -p "$R/sweeps" "$R/tune" "$R/logs" "$R/tune_ws"
gpu_header "$R/session.txt"

for ex in $EXAMPLES; do
    if [ -n "${SWEEPS_FROM-}" ]; then
        cp "$SWEEPS_FROM/$ex.json" "$R/sweeps/$ex.json"
        progress "sweep $ex: recorded, from $SWEEPS_FROM"
        continue
    fi
    progress "sweep $ex: start"
    timeout $(( ${SWEEP_BUDGET_S:-600} + 240 )) $PY benchmarks/sweep_compare.py --examples-dir benchmarks/heldout \
        --example "$ex" --sweep-dir "$R/sweeps" --time-budget-s "${SWEEP_BUDGET_S:-600}" --jobs "$(nproc)" \
        > "$R/logs/sweep_$ex.txt" 2>&1
    progress "sweep $ex: rc=$?"
done

for ex in $EXAMPLES; do
    ws="$R/tune_ws/kernel_opt_$ex"
    rm -rf "$ws" && cp -r "benchmarks/heldout/$ex" "$ws"
    progress "tune $ex: start"
    start=$(date +%s.%N)
    timeout 600 $PY -m kernelopt tune "$ws" --device cuda --json --within "$R/sweeps/$ex.json" \
        --out "$R/logs/tune_session_$ex" > "$R/tune/$ex.json" 2> "$R/tune/$ex.txt"
    rc=$?
    cp "$R/tune/$ex.json" "$ws/tune.json"  # the comparison reads the evaluations from it
    wall=$($PY -c "print(round($(date +%s.%N) - $start, 1))")
    echo "$ex $wall" >> "$R/tune_walls.txt"
    progress "tune $ex: rc=$rc wall_s=$wall"
done

progress "compare: start"
timeout 600 $PY benchmarks/sweep_compare.py --examples-dir benchmarks/heldout \
    --example "$(echo $EXAMPLES | tr ' ' ',')" --sweep-dir "$R/sweeps" --no-sweep --compare \
    --workspace-root "$R/tune_ws" --loop-walls "$R/tune_walls.txt" --json "$R/compare_heldout.json" \
    --markdown "$R/compare_heldout.md" > "$R/logs/compare.txt" 2>&1
progress "compare: rc=$?"
