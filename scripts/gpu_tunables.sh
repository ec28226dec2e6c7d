#!/usr/bin/env bash
# Issue 15's H200 proof (run from the repository root on a machine with an NVIDIA GPU, $OUT set).
#
# For four kernels of the tunables corpus (tests/data/tunables/corpus), written the way people write
# them: an autotuned GEMM whose configs come from helpers (matmul_autotune_helper), a row kernel whose
# block and warps come from a helper (rmsnorm_calculate_settings), an elementwise kernel whose launch leaves
# num_warps/num_stages to Triton (swiglu_defaults) and a GEMM launched with **dict (mm_module_dict):
#   1. `kernelopt tunables` on the kernel, with --reference (what the loop can move, the values computed
#      settings take, the config the autotuner picks for the main shape);
#   2. `kernelopt optimize` with the default rule-based backends (ncu runs with --clock-control none; GPU
#      clocks and settings are never changed);
#   3. scripts/tunables_bench.py: V0, the loop's final kernel and the exhaustive best of the same knob
#      space, timed side by side in one process.
# With several GPUs the kernels run in parallel, one GPU each; on one GPU they run in turn.
#
# Prerequisites: kernelopt importable (PYTHONPATH=$PWD/src, or installed), torch with CUDA, triton, ncu on
# PATH (or its extras/python on PYTHONPATH, as for the other GPU session scripts).
# Env: TASKS (default: the four above), WS_ROOT and TASKS_ROOT (folders, emptied first), MAX_ITERS (4),
# MAX_WALL_MIN (the loop's own wall-time stop per kernel), BENCH_BUDGET_S (seconds of sweep per kernel).
# Time: with one GPU per kernel (4 GPUs) they run in parallel with MAX_WALL_MIN=2 and a 150 s sweep: about
# 6 minutes. With fewer GPUs they run in turn with MAX_WALL_MIN=2 and a 45 s sweep: about 3.5 minutes
# each (gpu_session.sh runs it in the background). A 0.75-minute limit, the default until 2026-12-04, ends
# the loop after V0: V0's gate and profile take 26-32 s, and the loop starts no version it cannot finish.
# Writes under $OUT: session.txt, tunables_<task>.txt, optimize_<task>.txt, report_<task>.md,
# bench_<task>.json, bench_<task>.txt, ws_<task>.tar.gz (workspace without profiles), summary.md.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
W=${WS_ROOT:-/tmp/kernelopt-tunables-ws}
T=${TASKS_ROOT:-/tmp/kernelopt-tunables-tasks}
rm -rf "$W" "$T"; mkdir -p "$W" "$T"
TASKS=${TASKS:-"matmul_autotune_helper rmsnorm_calculate_settings swiglu_defaults mm_module_dict"}
NGPU=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
[ "$NGPU" -ge 1 ] || { echo "no NVIDIA GPU" > "$R/session.txt"; exit 3; }
NTASKS=$(echo $TASKS | wc -w)
if [ "$NGPU" -ge "$NTASKS" ]; then BUDGET=${BENCH_BUDGET_S:-150}; WALL=${MAX_WALL_MIN:-2}; else BUDGET=${BENCH_BUDGET_S:-45}; WALL=${MAX_WALL_MIN:-2}; fi
gpu_header "$R/session.txt" index,name,driver_version,clocks.sm,clocks.max.sm
echo "tasks: $TASKS; gpus: $NGPU; loop wall per kernel: $WALL min; sweep budget: $BUDGET s" >> "$R/session.txt"

one() {
    local gpu=$1 t=$2 start ws
    start=$(date +%s)
    mkdir -p "$T/$t"
    cp "tests/data/tunables/corpus/$t.py" "$T/$t/kernel.py"
    cp "tests/data/tunables/gpu_tasks/$t/reference.py" "$T/$t/reference.py"
    CUDA_VISIBLE_DEVICES=$gpu timeout 120 python3 -m kernelopt tunables "$T/$t/kernel.py" \
        --reference "$T/$t/reference.py" --gpu h200 > "$R/tunables_$t.txt" 2>&1
    CUDA_VISIBLE_DEVICES=$gpu timeout 120 python3 -m kernelopt tunables "$T/$t/kernel.py" \
        --reference "$T/$t/reference.py" --gpu h200 --json > "$R/tunables_$t.json" 2>> "$R/tunables_$t.txt"
    CUDA_VISIBLE_DEVICES=$gpu timeout "$(awk "BEGIN { print int($WALL * 60 + 120) }")" python3 -m kernelopt \
        optimize "$T/$t" --root "$W" --max-iters "${MAX_ITERS:-4}" --max-wall-min "$WALL" \
        > "$R/optimize_$t.txt" 2>&1
    echo "rc=$? wall_s=$(( $(date +%s) - start )) gpu=$gpu" >> "$R/optimize_$t.txt"
    ws="$W/kernel_opt_$t"
    { python3 -m kernelopt memory summary --workspace "$ws"; git -C "$ws" log --format='%h %s'; } \
        >> "$R/optimize_$t.txt" 2>&1
    python3 -m kernelopt report "$ws" --markdown "$R/report_$t.md" > /dev/null 2>&1
    CUDA_VISIBLE_DEVICES=$gpu timeout "$(awk "BEGIN { print int($BUDGET + 90) }")" python3 scripts/tunables_bench.py \
        --task "$t" --workspace "$ws" --json "$R/bench_$t.json" --budget-s "$BUDGET" > "$R/bench_$t.txt" 2>&1
    echo "rc=$? wall_s=$(( $(date +%s) - start )) gpu=$gpu" >> "$R/bench_$t.txt"
    tar -C "$W" --exclude='*.ncu-rep' -czf "$R/ws_$t.tar.gz" "$(basename "$ws")" 2> /dev/null
}

i=0
for t in $TASKS; do
    if [ "$NGPU" -ge "$NTASKS" ]; then one "$i" "$t" & else one 0 "$t"; fi
    i=$((i + 1))
done
wait
{ echo "# tunables on the GPU ($(date -u))"; for t in $TASKS; do echo; echo '```'; cat "$R/bench_$t.txt"; echo '```'; done; } \
    > "$R/summary.md"
