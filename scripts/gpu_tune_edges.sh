#!/usr/bin/env bash
# Issue 32, the tuning engine's edges (tests/test_tune_edges.py proves them on the CPU) on one NVIDIA GPU (run from
# the repository root, $OUT set). GPU clocks and settings are never changed. About 4 minutes.
#
#   1. retune: tests/data/breaker/mm_nomask (a GEMM without masks, 32-wide tiles; SHAPES tiny, so its timings are
#      mostly noise) tuned twice with the default strategy and budget, a 90 s wall each (the guard is what is
#      checked; on 2026-12-05 its 1e-3 tolerance failed TF32 and nothing could be timed, now TF32's). The first run may write a guard
#      (`if N % 64 == 0:  # kernelopt: tuned`); the second must time the file as written once (--json `guarded`),
#      and either write nothing or replace the guard, never nest one in another (guards.txt counts them);
#   2. wall: examples/matmul with --budget-wall-s 20: the session and its re-time end within the wall (wall_s <= 20
#      plus one round), and --json `unretimed` says when the re-time was cut or left out;
#   3. within: examples/matmul --within the cut 2026-12-01 matmul sweep (480 of 768 timed): --json `within` says
#      `best of N timed`, never the exhaustive best.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, retune_1.json/.txt,
# retune_2.json/.txt, guards.txt, wall.json/.txt, within.json/.txt, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"

ws="$R/work/mm_nomask"
rm -rf "$ws" && cp -r tests/data/breaker/mm_nomask "$ws"
for k in 1 2; do
    progress "retune $k: start"
    timeout 300 $PY -m kernelopt tune "$ws" --device cuda --json --budget-wall-s 90 --out "$R/logs/retune" \
        > "$R/retune_$k.json" 2> "$R/retune_$k.txt"
    progress "retune $k: rc=$?"
    cp "$ws/kernel.py" "$R/work/kernel_after_$k.py"
done
{ echo "guards after run 1: $(grep -c 'kernelopt: tuned' "$R/work/kernel_after_1.py")"
  echo "guards after run 2: $(grep -c 'kernelopt: tuned' "$R/work/kernel_after_2.py")"
  grep -n -B1 -A1 'kernelopt: tuned' "$R/work/kernel_after_2.py"; } > "$R/guards.txt" 2>&1

ws="$R/work/matmul"
rm -rf "$ws" && cp -r examples/matmul "$ws"
progress "wall: start"
timeout 300 $PY -m kernelopt tune "$ws" --device cuda --json --dry-run --budget-wall-s 20 --out "$R/logs/wall" \
    > "$R/wall.json" 2> "$R/wall.txt"
progress "wall: rc=$?"
progress "within: start"
timeout 300 $PY -m kernelopt tune "$ws" --device cuda --json --dry-run --budget-wall-s 60 \
    --within docs/gpu-runs/2026-12-01-sweeps/matmul.json --out "$R/logs/within" > "$R/within.json" 2> "$R/within.txt"
progress "within: rc=$?"
