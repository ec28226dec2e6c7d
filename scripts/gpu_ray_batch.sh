#!/usr/bin/env bash
# The Ray campaign on one H200: joins the Ray wheel carried in two parts (scripts/ray_wheel_parts.sh),
# installs it to /tmp/site, then runs the 14 problems of examples/kernelbench twice, the plain batch (the
# worker pool) and the Ray batch (`--ray local`, one num_gpus=1 task per problem on the one GPU), and
# writes both tables and wall times to $OUT. Never changes GPU clocks or settings.
#
#   call 1 (device tool): carry [".whl/ray_part1"], command "ls -la .whl/ray_part1"
#   call 2, right after:  carry [".whl/ray_part2"], command "OUT=$OUT bash scripts/gpu_ray_batch.sh"
#
# Bounded: the plain batch gets 200 s, the Ray batch 330 s (about 9 minutes in all at most; the device
# tool allows 10 per call). A batch cut short keeps the rows it finished.
#
# Writes under $OUT:
#   env.txt                              GPU, driver, torch, triton, ray, packaging versions
#   install.txt                          the join's sha256 check and pip's output
#   plain/table.txt, batch.json, .csv    the plain batch (warm pool)
#   ray/table.txt, batch.json, .csv      the Ray batch
#   wall_s.txt                           both wall times, side by side
#   */stderr.txt                         progress lines and errors
#
# RAY_JOIN_CHECK_ONLY=1 stops after the join and asks pip, without installing, whether it takes the
# wheel for Python 3.12 on manylinux x86_64 (how the join is checked on a machine without a GPU).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
PART1="${PART1:-.whl/ray_part1}"
PART2="${PART2:-.whl/ray_part2}"
SITE="${SITE:-/tmp/site}"

name=$(cat "$PART1/WHEEL_NAME") || { echo "no $PART1/WHEEL_NAME: carry .whl/ray_part1 first" | tee "$OUT/errors.txt"; exit 3; }
[ -f "$PART2/$name.part1" ] || { echo "no $PART2/$name.part1: carry .whl/ray_part2" | tee "$OUT/errors.txt"; exit 3; }
wheels=$(mktemp -d /tmp/ray_wheels.XXXXXX)
cat "$PART1/$name.part0" "$PART2/$name.part1" > "$wheels/$name"
cp "$PART1"/*.whl "$wheels"/
sums=$(realpath "$PART1/SHA256SUMS")
(cd "$wheels" && sha256sum -c "$sums") > "$OUT/install.txt" 2>&1 || { cat "$OUT/install.txt"; exit 3; }
if [ "${RAY_JOIN_CHECK_ONLY:-0}" = "1" ]; then
  "$PY" -m pip install --dry-run --no-index --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux2014_x86_64 --target "$wheels/site" "$wheels"/*.whl >> "$OUT/install.txt" 2>&1
  rc=$?
  cat "$OUT/install.txt"
  rm -rf "$wheels"
  exit $rc
fi
gpu_pip_target "$SITE" "$wheels"/*.whl >> "$OUT/install.txt" 2>&1 || { cat "$OUT/install.txt"; exit 3; }
rm -rf "$wheels"
export PYTHONPATH="$PWD/src:$SITE${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
export KERNELOPT_BENCH_S="${KERNELOPT_BENCH_S:-0.3}"
export KERNELOPT_SEEDS="${KERNELOPT_SEEDS:-2}"
WORK="${WORK:-$(mktemp -d /tmp/kernelopt_gpu_ray.XXXXXX)}"

gpu_header "$OUT/env.txt" name,driver_version,clocks.sm,clocks.max.sm
"$PY" -c "import ray, packaging; print('ray', ray.__version__, 'packaging', packaging.__version__)" >> "$OUT/env.txt" 2>&1

run_batch() {  # NAME LIMIT_S ARGS...
  local batch=$1 limit=$2
  shift 2
  mkdir -p "$OUT/$batch"
  local start end
  start=$(date +%s.%N)
  timeout -k 10 "$limit" "$PY" -m kernelopt batch examples/kernelbench --fresh --out "$WORK/$batch" "$@" \
    > "$OUT/$batch/table.txt" 2> "$OUT/$batch/stderr.txt" || echo "$batch batch exited with $?" >> "$OUT/errors.txt"
  end=$(date +%s.%N)
  echo "$batch $("$PY" -c "print(round($end - $start, 1))") s" >> "$OUT/wall_s.txt"
  for f in batch.json batch.csv; do [ -f "$WORK/$batch/$f" ] && cp "$WORK/$batch/$f" "$OUT/$batch/"; done
}

# PLAIN=0 skips the plain batch (the batch-overhead phase's warm run, in the same session, is that figure)
[ "${PLAIN:-1}" = "1" ] && run_batch plain 200 --problem-timeout-s 60
run_batch ray 330 --ray local --problem-timeout-s 60
"$PY" - "$OUT" > "$OUT/summary.txt" 2>&1 <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
rows = {}
for batch in ("plain", "ray"):
    path = out / batch / "batch.json"
    if path.is_file():
        for r in json.loads(path.read_text())["rows"]:
            rows.setdefault(r["problem"], {})[batch] = r
print(f"{'problem':22} {'plain':>12} {'wall_s':>7} {'ray':>12} {'wall_s':>7} {'ray host':>20}")
for problem, by in rows.items():
    p, r = by.get("plain", {}), by.get("ray", {})
    print(f"{problem:22} {p.get('status', '-'):>12} {p.get('duration_s') or 0:7.1f} "
          f"{r.get('status', '-'):>12} {r.get('duration_s') or 0:7.1f} {r.get('host') or '-':>20}")
EOF
cat "$OUT/wall_s.txt" >> "$OUT/summary.txt"
echo "workspaces kept in $WORK" >> "$OUT/env.txt"
cat "$OUT/summary.txt"
