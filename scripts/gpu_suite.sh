#!/usr/bin/env bash
# Issue 13's proof on a machine with one or more NVIDIA GPUs: the exhaustive sweeps of every example and
# the loop against them. Run from the repository root.
#
#   bash scripts/gpu_suite.sh sweep [WAIT_S]   start phase `sweep` in the background, wait, collect
#   bash scripts/gpu_suite.sh loop  [WAIT_S]   start phase `loop` in the background, wait, collect
#   bash scripts/gpu_suite.sh compare [WAIT_S] only the comparison (of $EXAMPLES, default every example)
#   bash scripts/gpu_suite.sh poll  [WAIT_S]   wait for the running phase (if any), collect
#
# Several sittings: a fresh machine has no $STATE. Unpack a previous $OUT/sweeps.tar.gz into
# build/gpu_suite/ here and carry build/gpu_suite/sweeps (the run tool's `carry`): finished sweeps whose
# kernel, reference and timer are unchanged are reused, cut ones resumed (for `compare` alone, also
# unpack $OUT/workspaces.tar.gz into build/gpu_suite/ws and carry it, with build/gpu_suite/loop_walls.txt). EXAMPLES="a b" limits a phase
# to some examples (e.g. the loops a cold machine cut; their walls are appended to loop_walls.txt, the
# last line per example wins); then `compare` compares every example again.
#
# Each call returns within WAIT_S seconds (default 540, inside the device tool's 10-minute limit) and
# copies what exists so far into $OUT (at most 8 files, no folders: bigger things are tarred). A phase
# runs as a `setsid` background job in $STATE (default build/gpu_suite, git-ignored, so it survives
# between calls on a warm machine); poll again until $OUT/progress.txt says "phase ... done".
#
# Phase `sweep`: benchmarks/sweep_compare.py over every example into $STATE/sweeps/<example>.json, one
#   lane per GPU (examples spread so each lane has about as many configurations), compiles in parallel
#   (SWEEP_JOBS processes per lane, default CPU cores / lanes), at most SWEEP_BUDGET_S seconds of
#   compiling and timing per example (default 450; a cut sweep resumes on the next `sweep` call, and a
#   finished one whose kernel, reference and timer are unchanged is not run again).
# Phase `loop`: for each example `kernelopt optimize examples/X --root $W --max-wall-min M` (one lane
#   per GPU), its wall time into $STATE/loop_walls.txt, then one process on GPU 0 re-times V0, the loop's
#   final kernel and the exhaustive best of every example together and writes the table
#   ($OUT/compare.md, $OUT/compare.json).
#
# Env: OUT (required), STATE, EXAMPLES (default: every example of sweep_compare.SPACES), GPUS (default:
#   all, from nvidia-smi -L), MAX_WALL_MIN (loop wall per example, default 3; WALL_<example> overrides),
#   MAX_ITERS (default: the task card's max_iterations), SWEEP_BUDGET_S, SWEEP_JOBS, WS_ROOT (default
#   $STATE/ws).
# Prerequisites (device tool): the dependencies installed (e.g. a carried .whl into /tmp/site) and
#   PYTHONPATH=/tmp/site:$PWD/src:/opt/nvidia/nsight-compute/2025.3.1/extras/python
#   (see scripts/gpu_session_lanes.sh).
# Expected durations (estimates, from the 2026-11-29 sweeps: 25-50 s for a 40-170 config space, 243 s
#   for matmul's 636; 2,644 configurations in all now): phase sweep about 15-18 GPU-minutes in all
#   (8-9 min on 2 GPUs, 4-5 on 4); phase loop about ceil(10 / GPUs) x (MAX_WALL_MIN + 1.5) minutes,
#   plus 2-4 min of comparison.
set -u
MODE=${1:-poll}
WAIT_S=${2:-540}
case "$MODE" in _*) ;; *) : "${OUT:?set OUT to the folder that comes back}"; mkdir -p "$OUT" ;; esac
ROOT=$PWD
STATE=${STATE:-$ROOT/build/gpu_suite}
W=${WS_ROOT:-$STATE/ws}
mkdir -p "$STATE/sweeps" "$STATE/logs" "$W"
. "${BASH_SOURCE%/*}/gpu_env.sh"

examples() {
    if [ -n "${EXAMPLES:-}" ]; then echo "$EXAMPLES"; return; fi
    $PY -c 'import sys; sys.path.insert(0, "benchmarks"); import sweep_compare as s; print(" ".join(s.EXAMPLES))'
}

# lanes N sweep|loop: one line of examples per lane (sweep_compare.assign_lanes: about as many
# configurations per lane for sweeps, as many examples per lane for loops)
lanes() {
    # shellcheck disable=SC2016
    $PY -c 'import sys; sys.path.insert(0, "benchmarks"); import sweep_compare as s
for lane in s.assign_lanes(sys.argv[3].split(), int(sys.argv[1]), by_space=sys.argv[2] == "sweep"):
    print(" ".join(lane))' "$1" "$2" "$(examples)"
}

gpus() {
    if [ -n "${GPUS:-}" ]; then echo "$GPUS"; return; fi
    local n
    n=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
    [ "$n" -gt 0 ] || n=1
    seq 0 $((n - 1)) | tr '\n' ' '
}

progress() { echo "$(date -u +%H:%M:%S) $*" >> "$STATE/progress.txt"; }

# lane GPU EXAMPLE...: the examples of one GPU, one after the other
sweep_lane() {
    local gpu=$1 ex start
    shift
    for ex in "$@"; do
        start=$(date +%s)
        progress "sweep $ex on GPU $gpu: start"
        CUDA_VISIBLE_DEVICES=$gpu timeout $(( ${SWEEP_BUDGET_S:-450} + 300 )) $PY benchmarks/sweep_compare.py \
            --example "$ex" --sweep-dir "$STATE/sweeps" --time-budget-s "${SWEEP_BUDGET_S:-450}" \
            --jobs "$SWEEP_JOBS" > "$STATE/logs/sweep_$ex.txt" 2>&1
        progress "sweep $ex on GPU $gpu: rc=$? wall_s=$(( $(date +%s) - start ))"
    done
}

loop_lane() {
    local gpu=$1 ex start wall rc
    shift
    for ex in "$@"; do
        start=$(date +%s)
        wall=$(eval echo "\${WALL_$ex:-${MAX_WALL_MIN:-3}}")
        rm -rf "$W/kernel_opt_$ex"
        progress "loop $ex on GPU $gpu: start (max wall $wall min)"
        # shellcheck disable=SC2086
        CUDA_VISIBLE_DEVICES=$gpu timeout "$(awk "BEGIN { print int($wall * 60 + 180) }")" $PY -m kernelopt \
            optimize "examples/$ex" --root "$W" ${MAX_ITERS:+--max-iters $MAX_ITERS} --max-wall-min "$wall" \
            > "$STATE/logs/optimize_$ex.txt" 2>&1
        rc=$?
        echo "$ex $(( $(date +%s) - start ))" >> "$STATE/loop_walls.txt"
        { echo "rc=$rc wall_s=$(( $(date +%s) - start )) gpu=$gpu"
          $PY -m kernelopt memory summary --workspace "$W/kernel_opt_$ex"
          git -C "$W/kernel_opt_$ex" log --format='%h %s'; } >> "$STATE/logs/optimize_$ex.txt" 2>&1
        progress "loop $ex on GPU $gpu: rc=$rc wall_s=$(( $(date +%s) - start ))"
    done
}

# run_phase sweep|loop: spread the examples over the GPUs, one lane each, and wait for all
run_phase() {
    local phase=$1 i
    local -a gs assigned
    read -r -a gs <<< "$(gpus)"
    mapfile -t assigned < <(lanes "${#gs[@]}" "$phase")
    SWEEP_JOBS=${SWEEP_JOBS:-$(( $(nproc) / ${#gs[@]} > 1 ? $(nproc) / ${#gs[@]} : 1 ))}
    export SWEEP_JOBS
    for i in "${!gs[@]}"; do
        # shellcheck disable=SC2086
        [ -n "${assigned[$i]:-}" ] && "${phase}_lane" "${gs[$i]}" ${assigned[$i]} &
    done
    wait
}

phase_sweep() {
    progress "phase sweep: start (GPUs $(gpus); examples $(examples))"
    run_phase sweep
    $PY benchmarks/sweep_compare.py --example "$(examples | tr ' ' ',' | sed 's/,$//')" \
        --sweep-dir "$STATE/sweeps" --no-sweep --device cpu --markdown "$STATE/sweeps.md" \
        > "$STATE/logs/sweep_table.txt" 2>&1
    progress "phase sweep done"
}

phase_loop() {
    progress "phase loop: start (GPUs $(gpus); examples $(examples))"
    run_phase loop
    compare
    progress "phase loop done"
}

phase_compare() {
    progress "phase compare: start"
    compare
    progress "phase compare done"
}

compare() {
    progress "compare: start"
    CUDA_VISIBLE_DEVICES=$(gpus | cut -d' ' -f1) timeout 1500 $PY benchmarks/sweep_compare.py \
        --example "$(examples | tr ' ' ',' | sed 's/,$//')" --sweep-dir "$STATE/sweeps" --no-sweep --compare \
        --workspace-root "$W" --loop-walls "$STATE/loop_walls.txt" --json "$STATE/compare.json" \
        --markdown "$STATE/compare.md" > "$STATE/logs/compare.txt" 2>&1
    progress "compare: rc=$?"
}

collect() {
    cp "$STATE/progress.txt" "$OUT/progress.txt" 2> /dev/null
    [ -f "$STATE/sweeps.md" ] && cp "$STATE/sweeps.md" "$OUT/sweeps.md"
    [ -f "$STATE/compare.md" ] && cp "$STATE/compare.md" "$OUT/compare.md"
    [ -f "$STATE/compare.json" ] && cp "$STATE/compare.json" "$OUT/compare.json"
    (cd "$STATE" && tar -czf "$OUT/sweeps.tar.gz" sweeps logs $(ls loop_walls.txt 2> /dev/null)) 2> /dev/null
    if [ -d "$W" ] && [ -n "$(ls -A "$W" 2> /dev/null)" ]; then
        # without the profiler reports and the compiled code (.kernelopt/build: triton caches per version)
        tar -C "$W" --exclude='*.ncu-rep' --exclude='./*/.kernelopt/build' -czf "$OUT/workspaces.tar.gz" . 2> /dev/null
    fi
    { date -u; nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,temperature.gpu --format=csv 2>&1
      git -C "$ROOT" log -1 --format='%H %s' 2>&1; } > "$OUT/session.txt"
}

running() { [ -f "$STATE/pid" ] && kill -0 "$(cat "$STATE/pid")" 2> /dev/null; }

wait_running() {
    local deadline=$(( $(date +%s) + WAIT_S ))
    while running && [ "$(date +%s)" -lt "$deadline" ]; do sleep 10; done
    running && progress "(still running; poll again)"
}

case "$MODE" in
    sweep | loop | compare)
        if running; then
            echo "a phase is already running (pid $(cat "$STATE/pid")); polling it" >&2
        else
            setsid nohup bash "$0" "_$MODE" > "$STATE/logs/phase_$MODE.txt" 2>&1 < /dev/null &
            echo $! > "$STATE/pid"
        fi
        wait_running
        collect
        ;;
    poll)
        wait_running
        collect
        ;;
    _sweep) phase_sweep ;;
    _loop) phase_loop ;;
    _compare) phase_compare ;;
    *)
        echo "usage: bash scripts/gpu_suite.sh sweep|loop|compare|poll [WAIT_S]" >&2
        exit 2
        ;;
esac
tail -n 30 "$STATE/progress.txt" 2> /dev/null
