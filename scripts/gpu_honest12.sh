#!/usr/bin/env bash
# Lane honest12 (tests/test_honest12_cases.py replays the H100 record on the CPU) on one NVIDIA GPU (run from the
# repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   1. tune: `kernelopt tune --device cuda --json` on a copy of tests/data/breaker11/xformers_rms (D=100, 9000, 777;
#      a 60 s wall), twice, each written kernel.py kept: on 2026-12-06 it wrote `if N <= 100: BLOCK_SIZE = 64`
#      beside 6 stages, a configuration never timed, claimed "+33.3 %" by a first measurement against a re-time;
#   2. figures: for each run, the table written (its `# kernelopt: tuned` lines), the verdict, and from its record
#      every configuration's latency by shape in the first round and in the re-time, side by side, so the claim
#      can be read against the same round (a row of the table is a configuration timed in the round it is judged);
#   3. tablewarps12: each written kernel (a table may hold num_warps in its rows now) compiled and checked against
#      the reference at D = 50, 300, 5000, 9001, 17000 (sizes no entry names, above the table's bound too).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt,
# tune_xformers_rms_{1,2}.json/.txt, kernel_xformers_rms_{1,2}.py, figures.txt, logs/xformers_rms_{1,2}/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
for run in 1 2; do  # the second a fresh session: the first's record moved aside, never served to it
    tune_copies tests/data/breaker11 xformers_rms
    for f in json txt; do mv "$R/tune_xformers_rms.$f" "$R/tune_xformers_rms_$run.$f"; done
    mv "$R/kernel_xformers_rms.py" "$R/kernel_xformers_rms_$run.py"
    rm -rf "$R/logs/xformers_rms_$run"
    mv "$R/logs/xformers_rms" "$R/logs/xformers_rms_$run" 2> /dev/null
done
progress "figures: start"
$PY - "$R" > "$R/figures.txt" 2>&1 << 'PYEOF'
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
for run in ("1", "2"):
    print(f"== run {run}")
    try:
        doc = json.loads((out / f"tune_xformers_rms_{run}.json").read_text())
    except (OSError, ValueError) as e:
        print(f"no json: {e}")
        continue
    kernel = (out / f"kernel_xformers_rms_{run}.py").read_text().splitlines()
    print("written:", doc.get("written"), "better:", doc.get("better"), "gain_pct:", doc.get("gain_pct"))
    print("choice:", (doc.get("shape_choice") or {}).get("reason"))
    print("note:", doc.get("edit_note"))
    for i, line in enumerate(kernel):
        if "kernelopt: tuned" in line or line.strip().startswith("num_warps =") or "num_stages =" in line:
            print("  ", line.strip(), "->", kernel[i + 1].strip() if "kernelopt: tuned" in line else "")
    for s in doc.get("per_shape", []):
        print(f"  {s['shape']}: current {s['current_latency_us']} chosen {s['chosen_latency_us']} best "
              f"{s['best_latency_us']} {s['best_config']}")
    first, again = {}, {}
    records = sorted((out / "logs" / f"xformers_rms_{run}").glob("*/record.jsonl"))
    if not records:
        print("no record")
        continue
    for line in records[0].read_text().splitlines():
        rec = json.loads(line)
        if rec.get("kind") != "result" or rec["result"]["outcome"] != "ok":
            continue
        r = rec["result"]
        (again if r["retimed"] else first)[json.dumps(r["config"], sort_keys=True)] = r["latency_us_by_shape"]
    print("  config | first round by shape | re-time by shape (us)")
    for key in sorted(first, key=lambda k: sum(first[k].values())):
        fr = ", ".join(f"{v:.2f}" for v in first[key].values())
        rt = ", ".join(f"{v:.2f}" for v in again[key].values()) if key in again else "-"
        print(f"  {key} | {fr} | {rt}")
PYEOF
progress "figures: rc=$?"
# tablewarps12: a table may now hold num_warps in its rows (BLOCK_SIZE 4096 + 16 warps where N <= 9000 from the 07:14
# record); each written kernel, compiled, against the reference at row lengths no entry names, above the bound too
progress "written kernels at other sizes: start"
$PY - "$R" >> "$R/figures.txt" 2>&1 << 'PYEOF'
import importlib.util
import sys
from pathlib import Path

import torch

out = Path(sys.argv[1])


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ref = load(Path("tests/data/breaker11/xformers_rms/reference.py"), "ref")
for run in ("1", "2"):
    path = out / f"kernel_xformers_rms_{run}.py"
    if not path.is_file():
        print(f"== run {run}: no written kernel")
        continue
    written = load(path, f"written_{run}")
    for d in (50, 300, 5000, 9001, 17000):
        x, w = ref.get_inputs(B=2, T=3, D=d, device="cuda")
        err = (written.run(x, w) - ref.reference(x, w)).abs().max().item()
        print(f"== run {run}: D={d} max abs error {err:.2e} {'ok' if err <= 1e-4 else 'WRONG'}")
PYEOF
progress "written kernels at other sizes: rc=$?"
progress "done"
