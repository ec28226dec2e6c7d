#!/usr/bin/env bash
# Batch overhead on one NVIDIA GPU (issue 24, item 1): the 14 problems of examples/kernelbench validated
# the cold way (a kernelopt process per problem) and the warm way (the worker pool), side by side, with
# per-problem wall time next to the seconds spent checking and timing (benchmarks/batch_overhead.py).
# Never changes GPU clocks or settings.
#
#   OUT=/some/folder bash scripts/gpu_batch_overhead.sh        # from the repository root
#
# Bounded to 540 s (the cold path takes about 15 s a problem on the H200, the warm path a few). Writes
# $OUT/overhead.txt (the table), $OUT/overhead.json (the measurements), $OUT/env.txt and, for both
# paths, $OUT/{cold,warm}/batch.json and batch.csv.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
export PYTHONUNBUFFERED=1
WORK="${WORK:-$(mktemp -d /tmp/kernelopt_gpu_overhead.XXXXXX)}"
gpu_header "$OUT/env.txt" name,driver_version,clocks.sm,clocks.max.sm
timeout -k 10 540 "$PY" benchmarks/batch_overhead.py examples/kernelbench --device cuda --out "$WORK" \
  --json "$OUT/overhead.json" > "$OUT/overhead.txt" 2> "$OUT/stderr.txt" || echo "benchmark exited with $?" >> "$OUT/errors.txt"
for b in cold warm; do
  mkdir -p "$OUT/$b"
  for f in batch.json batch.csv; do [ -f "$WORK/$b/$f" ] && cp "$WORK/$b/$f" "$OUT/$b/"; done
done
[ -d "$WORK/warm/pool" ] && cp -r "$WORK/warm/pool" "$OUT/warm/"
cat "$OUT/overhead.txt"
