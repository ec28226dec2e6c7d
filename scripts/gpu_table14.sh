#!/usr/bin/env bash
# Lane table14: the check's cost across SHAPES entries on one NVIDIA GPU (run from the repository root, $OUT set).
# GPU clocks and settings are never changed. About 3 minutes.
#
#   `kernelopt tune --device cuda --json` with the default budget and a 60 s wall on a copy of tests/data/breaker11/
#   scaled_mm (3 SHAPES entries, M, N and K each divisible by 16 at one and not another: three Triton
#   specializations). On the H100 (2026-12-06 08:22) its checks took 44.7 s of the 60 s wall, each entry's bench
#   worker compiling each candidate for its own specialization one entry after another, so nothing was re-timed and
#   nothing written though a configuration 11x faster at M=150 was found. Now the entries after the primary check a
#   batch at once (ShapesEvaluator.together). Then one line: evaluations, wall, whether it re-timed and wrote, and
#   tune --json's pace (the candidates' compile, check and timing seconds, the re-time).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tune_scaled_mm.json/.txt,
# kernel_scaled_mm.py, logs/, pace.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
tune_copies tests/data/breaker11 scaled_mm
"$PY" - "$R" > "$R/pace.txt" 2>&1 <<'PYEOF'
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
try:
    tuned = json.loads((out / "tune_scaled_mm.json").read_text())
except (OSError, ValueError) as exc:
    print(f"scaled_mm: no summary ({exc})")
    raise SystemExit(0)
pace = tuned.get("pace") or {}
print(
    f"scaled_mm: {tuned['evaluations']} evaluations, session wall {tuned['wall_s']:.1f} s, stop {tuned['stop']}, "
    f"outcomes {tuned['outcomes']}, written {tuned.get('written')}, better {tuned['better']}, "
    f"unretimed {tuned.get('unretimed')}, check {pace.get('check_s', float('nan')):.1f} s of the candidates' own, "
    f"re-time {pace.get('retime_s', float('nan')):.1f} s"
)
print(f"  pace: {json.dumps(pace)}")
print(f"  per shape: {json.dumps(tuned.get('per_shape'))}")
PYEOF
cat "$R/pace.txt"
progress "done"
