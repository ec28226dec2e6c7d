#!/usr/bin/env bash
# Issue 22's suite proof on one NVIDIA GPU (run from the repository root, $OUT set; gpu_session.sh's
# phase `suite` runs it in the background). GPU clocks and settings are never changed; ncu runs with
# --clock-control none.
#
#   1. sweeps: benchmarks/sweep_compare.py times every configuration of SWEEP_EXAMPLES (default: the three
#      realistic-size examples, 512 MiB - 1 GiB per tensor); the 2026-12-01 sweeps of the other examples are
#      read from docs/gpu-runs/2026-12-01-sweeps;
#   2. tune: `kernelopt tune` (the engine alone, from each example's V0) on TUNE_EXAMPLES, TUNE_WALL_S
#      seconds of wall budget each; its JSON and its wall time are kept;
#   3. compare: one process re-times V0, the tuned kernel and the exhaustive best of every example tuned,
#      interleaved (sweep_compare.py --compare);
#   4. loop: `kernelopt optimize` with the default rule-based backends on LOOP_EXAMPLES, LOOP_WALL_MIN each;
#   5. compare each looped example the same way, right after its loop.
#
# Env: OUT (required), SWEEP_EXAMPLES, TUNE_EXAMPLES, LOOP_EXAMPLES (space-separated; empty skips the
# step), SWEEP_BUDGET_S (default 150 per example), TUNE_WALL_S (default 60), LOOP_WALL_MIN (default 3).
# Writes under $OUT: session.txt, progress.txt, sweeps/*.json, tune/<example>.json and .txt,
# tune_walls.txt, loop/optimize_<example>.txt, loop_walls.txt, compare_tune.{md,json},
# compare_loop_<example>.{md,json}, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
SWEEP_EXAMPLES=${SWEEP_EXAMPLES-"bias_gelu_fp32 online_softmax_fp32 rmsnorm_settings_bf16"}
TUNE_EXAMPLES=${TUNE_EXAMPLES-"bias_gelu_fp32 online_softmax_fp32 rmsnorm_settings_bf16 matmul skinny_gemm transpose_fp32"}
LOOP_EXAMPLES=${LOOP_EXAMPLES-"rmsnorm_settings_bf16"}
mkdir -p "$R/sweeps" "$R/tune" "$R/loop" "$R/logs" "$R/tune_ws" "$R/loop_ws"
cp docs/gpu-runs/2026-12-01-sweeps/*.json docs/gpu-runs/2026-12-03-engine/sweeps/*.json "$R/sweeps/" 2> /dev/null
csv() { echo "$*" | tr -s ' ' ',' | sed 's/^,//; s/,$//'; }
gpu_header "$R/session.txt"

for ex in $SWEEP_EXAMPLES; do
    progress "sweep $ex: start"
    timeout $(( ${SWEEP_BUDGET_S:-150} + 240 )) $PY benchmarks/sweep_compare.py --example "$ex" \
        --sweep-dir "$R/sweeps" --time-budget-s "${SWEEP_BUDGET_S:-150}" --jobs "$(nproc)" \
        > "$R/logs/sweep_$ex.txt" 2>&1
    progress "sweep $ex: rc=$?"
done

compare() {  # NAME EXAMPLES WS_ROOT WALLS
    [ -n "$2" ] || return 0
    progress "compare $1: start"
    timeout 420 $PY benchmarks/sweep_compare.py --example "$(csv "$2")" --sweep-dir "$R/sweeps" --no-sweep \
        --compare --workspace-root "$3" --loop-walls "$4" --json "$R/compare_$1.json" \
        --markdown "$R/compare_$1.md" > "$R/logs/compare_$1.txt" 2>&1
    progress "compare $1: rc=$?"
}
for ex in $TUNE_EXAMPLES; do
    ws="$R/tune_ws/kernel_opt_$ex"
    rm -rf "$ws" && cp -r "examples/$ex" "$ws"
    progress "tune $ex: start"
    start=$(date +%s.%N)
    timeout $(( ${TUNE_WALL_S:-60} + 240 )) $PY -m kernelopt tune "$ws" --device cuda --json \
        --budget-wall-s "${TUNE_WALL_S:-60}" --out "$R/logs/tune_session_$ex" \
        > "$R/tune/$ex.json" 2> "$R/tune/$ex.txt"
    rc=$?
    cp "$R/tune/$ex.json" "$ws/tune.json"  # the comparison reads the evaluations from it
    wall=$($PY -c "print(round($(date +%s.%N) - $start, 1))")
    echo "$ex $wall" >> "$R/tune_walls.txt"
    progress "tune $ex: rc=$rc wall_s=$wall"
done

compare tune "$TUNE_EXAMPLES" "$R/tune_ws" "$R/tune_walls.txt"

for ex in $LOOP_EXAMPLES; do
    progress "loop $ex: start"
    start=$(date +%s)
    timeout "$(awk "BEGIN { print int(${LOOP_WALL_MIN:-3} * 60 + 180) }")" $PY -m kernelopt optimize "examples/$ex" \
        --root "$R/loop_ws" --max-wall-min "${LOOP_WALL_MIN:-3}" > "$R/loop/optimize_$ex.txt" 2>&1
    rc=$?
    echo "$ex $(( $(date +%s) - start ))" >> "$R/loop_walls.txt"
    { echo "rc=$rc wall_s=$(( $(date +%s) - start ))"
      $PY -m kernelopt memory summary "$R/loop_ws/kernel_opt_$ex"
      git -C "$R/loop_ws/kernel_opt_$ex" log --format='%h %s'; } >> "$R/loop/optimize_$ex.txt" 2>&1
    progress "loop $ex: rc=$rc"
    # each looped example is compared at once, so a session cut short keeps what it finished
    compare "loop_$ex" "$ex" "$R/loop_ws" "$R/loop_walls.txt"
done
find "$R" -type d \( -name triton-cache -o -name build -o -name torch-extensions -o -name candidates \) -prune -exec rm -rf {} + 2> /dev/null
find "$R" -name '*.ncu-rep' -delete 2> /dev/null
progress "suite done"
cat "$R/compare_tune.md" "$R"/compare_loop_*.md 2> /dev/null
