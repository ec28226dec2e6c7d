#!/usr/bin/env bash
# Issue 32 item 3, GPU proof 2 on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and
# settings are never changed.
#
# A row kernel with computed settings (examples/rmsnorm_settings_bf16: `BLOCK_SIZE, num_warps =
# calculate_settings(n_cols)`, launched inside an autograd.Function) with SHAPES at 2048, 8192 and 32768
# columns, 256 MiB of bf16 input each (65536, 16384 and 4096 rows):
#   1. tune: `kernelopt tune` across the three shapes (default strategy and budget): every candidate checked
#      and timed on each, --json's per_shape (each shape's best, the chosen configuration's latency there)
#      and shape_choice (one configuration within 3 % of each shape's best, or a per-bucket table);
#   2. sweeps, after the correctness check so a cut session keeps it (180 s of wall each; one cut short says "best of N timed" in its stop): the same kernel with
#      one SHAPES entry at a time, `kernelopt tune --strategy exhaustive
#      --budget-fraction 1 --dry-run`: every configuration of the space timed on that shape, its own best;
#   3. correctness: the written kernel.py against the reference on the three shapes and on two sizes not in
#      SHAPES (3000 and 12000 columns), in one process (correct.json);
#   4. compare.md: per shape, the sweep's best, the tuned session's chosen latency, their ratio.
#
# Env: OUT (required), PYTHON (default python3), TUNE_WALL_S (the tune's wall budget, default 300), SWEEP_WALL_S
# (each sweep's, default 180). Step limits (360 + 3 x 220 + 120 s) fit gpu_session.sh's 1200 s. Writes under $OUT: session.txt, progress.txt,
# tune.json/.txt, sweep_<cols>.json/.txt, correct.json, compare.md, kernel_tuned.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"

SHAPES='[{"n_rows": 65536, "n_cols": 2048}, {"n_rows": 16384, "n_cols": 8192}, {"n_rows": 4096, "n_cols": 32768}]'
make_folder() {  # make_folder DIR SHAPES_LITERAL
    rm -rf "$1" && cp -r examples/rmsnorm_settings_bf16 "$1"
    $PY - "$1/reference.py" "$2" <<'EOF'
import re, sys
path, shapes = sys.argv[1], sys.argv[2]
text = open(path).read()
text = re.sub(r"^SHAPES = .*$", f"SHAPES = {shapes}", text, count=1, flags=re.M)
open(path, "w").write(text)
EOF
}

# 1. tune across the three shapes
make_folder "$R/work/tuned" "$SHAPES"
progress "tune: start"
timeout $(( ${TUNE_WALL_S:-300} + 60 )) $PY -m kernelopt tune "$R/work/tuned" --device cuda --budget-wall-s ${TUNE_WALL_S:-300} --json --out "$R/logs/tune_session" \
    > "$R/tune.json" 2> "$R/tune.txt"
progress "tune: rc=$?"
cp "$R/work/tuned/kernel.py" "$R/kernel_tuned.py"

# 3. correctness of the written kernel at the three shapes and two sizes not in SHAPES
progress "correct: start"
timeout 120 $PY - "$R/work/tuned" "$R/correct.json" <<'EOF' > "$R/logs/correct.txt" 2>&1
import importlib.util, json, sys, torch
folder, out = sys.argv[1], sys.argv[2]
def load(name):
    spec = importlib.util.spec_from_file_location(name, f"{folder}/{name}.py")
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod); return mod
ref, ker = load("reference"), load("kernel")
rows = []
for n_rows, n_cols in [(65536, 2048), (16384, 8192), (4096, 32768), (8192, 3000), (4096, 12000)]:
    torch.manual_seed(0)
    x, w = ref.get_inputs(n_rows=n_rows, n_cols=n_cols, device="cuda")
    try:
        got = ker.run(x, w); want = ref.reference(x, w); torch.cuda.synchronize()
        err = (got.float() - want.float()).abs().max().item()
        ok = bool(torch.allclose(got.float(), want.float(), atol=ref.ATOL, rtol=ref.RTOL))
        rows.append({"n_rows": n_rows, "n_cols": n_cols, "correct": ok, "max_abs_err": err})
    except Exception as exc:  # a size the written kernel no longer handles
        rows.append({"n_rows": n_rows, "n_cols": n_cols, "correct": False, "error": f"{type(exc).__name__}: {exc}"})
json.dump(rows, open(out, "w"), indent=1)
print(json.dumps(rows, indent=1))
EOF
progress "correct: rc=$?"

# 2. each shape's own sweep
for entry in '{"n_rows": 65536, "n_cols": 2048}' '{"n_rows": 16384, "n_cols": 8192}' '{"n_rows": 4096, "n_cols": 32768}'; do
    cols=$($PY -c "import json,sys; print(json.loads(sys.argv[1])['n_cols'])" "$entry")
    make_folder "$R/work/sweep_$cols" "[$entry]"
    progress "sweep $cols: start"
    timeout $(( ${SWEEP_WALL_S:-180} + 40 )) $PY -m kernelopt tune "$R/work/sweep_$cols" --device cuda --strategy exhaustive --budget-fraction 1 --budget-wall-s ${SWEEP_WALL_S:-180} \
        --dry-run --json --out "$R/logs/sweep_session_$cols" > "$R/sweep_$cols.json" 2> "$R/sweep_$cols.txt"
    progress "sweep $cols: rc=$?"
done

# 4. the per-shape result against each shape's own sweep best
$PY - "$R" <<'EOF' > "$R/compare.md" 2> "$R/logs/compare.txt"
import json, sys
from pathlib import Path
R = Path(sys.argv[1])
tune = json.loads((R / "tune.json").read_text())
print(f"shapes: {tune.get('shapes')}; choice: {tune.get('shape_choice', {}).get('kind')}: "
      f"{tune.get('shape_choice', {}).get('reason')}")
print(f"tune: {tune['evaluations']} evaluated of a space of {tune['space_size']}, {tune['wall_s']:.1f} s; "
      f"best {tune['best_config']}, written {tune['written']}")
print(f"current: {tune['current_config']} {tune.get('computed')} {tune.get('computed_by_shape')}")
print(f"edit note: {tune.get('edit_note')}\n")
print("| shape | sweep best (config) | sweep best us | session's own best us | chosen us | chosen / sweep best "
      "| current us |")
print("|---|---|---|---|---|---|---|")
for s in tune.get("per_shape", []):
    cols = s["shape"].split("n_cols=")[-1].split(",")[0]
    try:
        sweep = json.loads((R / f"sweep_{cols}.json").read_text())
    except (OSError, ValueError):  # not run, or cut before it wrote its result
        print(f"| {s['shape']} | (no sweep) | - | {s['best_latency_us']:.2f} | {s['chosen_latency_us']:.2f} | - | {s.get('current_latency_us')} |")
        continue
    best = sweep["best_latency_us"]
    ratio = s["chosen_latency_us"] / best if best and s["chosen_latency_us"] else None
    done = sweep["evaluations"] + sweep["served"]
    cut = "" if done >= sweep["space_size"] else f"; best of {done} timed of {sweep['space_size']} ({sweep['stop']})"
    print(f"| {s['shape']} | {sweep['best_config']}{cut} | {best:.2f} | {s['best_latency_us']:.2f} | "
          f"{s['chosen_latency_us']:.2f} | {ratio:.3f} | {s.get('current_latency_us')} |"
          if ratio else f"| {s['shape']} | - | - | - | - | - | - |")
print("\nlatencies of the sweeps and of the session come from separate processes (same GPU, one after another)")
EOF
progress "compare: rc=$?"
cat "$R/compare.md"
