#!/usr/bin/env bash
# kernelopt batch on one NVIDIA GPU: the 14 problems of examples/kernelbench (11 torch ModelNew
# baselines, 3 Triton ModelNew kernels), then torch.compile for the 3 Triton ones, then a one-GPU Ray
# campaign when Ray is installed. Never changes GPU clocks or settings.
#
#   OUT=/some/folder bash scripts/gpu_batch.sh        # from the repository root
#
# Bounded: the eager batch gets 200 s, the compile batch 120 s, the Ray batch 60 s (at most about 6.5
# minutes in all; typically less). A batch cut short keeps the rows it finished (batch.json is written
# after each problem); running the script's command again with the same --out and without --fresh resumes.
#
# Writes under $OUT:
#   env.txt                          GPU, driver, torch, triton, ray versions
#   eager/batch.json, batch.csv      table of all 14 problems (speedup vs PyTorch eager, fast_p)
#   eager/table.txt                  the printed table
#   compile/batch.json, batch.csv    the 3 Triton problems with torch.compile(reference) timed too
#   compile/table.txt
#   ray/batch.json, batch.csv        the 3 Triton problems as Ray tasks (num_gpus=1), when ray imports
#   ray/table.txt, ray/wall_s.txt    (or ray/skipped.txt saying why not)
#   */logs/                          each problem's kernelopt output
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
export KERNELOPT_BENCH_S="${KERNELOPT_BENCH_S:-0.3}"
export KERNELOPT_SEEDS="${KERNELOPT_SEEDS:-2}"
# The batches (and their git workspaces, build caches) live in WORK; only tables and logs go to $OUT.
WORK="${WORK:-$(mktemp -d /tmp/kernelopt_gpu_batch.XXXXXX)}"

gpu_header "$OUT/env.txt" name,driver_version,clocks.sm,clocks.max.sm
"$PY" -c "import ray; print('ray', ray.__version__)" >> "$OUT/env.txt" 2>&1 || true

start=$(date +%s)
mkdir -p "$OUT/eager"
timeout -k 10 200 "$PY" -m kernelopt batch examples/kernelbench --fresh --out "$WORK/eager" --problem-timeout-s 60 \
  > "$OUT/eager/table.txt" 2> "$OUT/eager.stderr.txt" || echo "eager batch exited with $?" >> "$OUT/errors.txt"
echo "eager batch: $(( $(date +%s) - start )) s" >> "$OUT/env.txt"

TRITON_ONLY="$WORK/triton_problems"
mkdir -p "$TRITON_ONLY"
for p in 12_relu_triton 13_softmax_triton 14_row_sum_triton; do cp -r "examples/kernelbench/$p" "$TRITON_ONLY/"; done

start=$(date +%s)
mkdir -p "$OUT/compile"
timeout -k 10 120 "$PY" -m kernelopt batch "$TRITON_ONLY" --fresh --compile-reference --out "$WORK/compile" --problem-timeout-s 110 \
  > "$OUT/compile/table.txt" 2> "$OUT/compile.stderr.txt" || echo "compile batch exited with $?" >> "$OUT/errors.txt"
echo "compile batch: $(( $(date +%s) - start )) s" >> "$OUT/env.txt"

mkdir -p "$OUT/ray"
if "$PY" -c "import ray" 2>/dev/null; then
  start=$(date +%s)
  timeout -k 10 60 "$PY" -m kernelopt batch "$TRITON_ONLY" --fresh --ray local --out "$WORK/ray" --problem-timeout-s 50 \
    > "$OUT/ray/table.txt" 2> "$OUT/ray.stderr.txt" || echo "ray batch exited with $?" >> "$OUT/errors.txt"
  echo "$(( $(date +%s) - start ))" > "$OUT/ray/wall_s.txt"
else
  echo "ray is not installed on this machine (pip install 'kernelopt[ray]')" > "$OUT/ray/skipped.txt"
fi
for b in eager compile ray; do
  for f in batch.json batch.csv; do [ -f "$WORK/$b/$f" ] && cp "$WORK/$b/$f" "$OUT/$b/"; done
  [ -d "$WORK/$b/logs" ] && cp -r "$WORK/$b/logs" "$OUT/$b/"
done
echo "workspaces kept in $WORK" >> "$OUT/env.txt"
ls -R "$OUT" > "$OUT/files.txt"
