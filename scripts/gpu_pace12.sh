#!/usr/bin/env bash
# Lane pace12: the tuner's pace on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings
# are never changed. About 5 minutes.
#
#   `kernelopt tune --device cuda --json` with the default budget and a 60 s wall on copies of the three sessions the
#   H100 run of 2026-12-06 found spending their wall outside their candidates (docs/tuning-engine.md, "The pace of a
#   session"): scaled_mm (tests/data/breaker11: 3 SHAPES entries, 9 evaluations in 59.4 s, its 3.04x never re-timed
#   and nothing written), mamba_ssu (tests/data/breaker10: 5 evaluations, 103 s of wall, one candidate waiting out its
#   60 s limit) and extend_attn (tests/data/breaker10: 6 evaluations in 69 s). Then, for each, one line: evaluations,
#   the session's wall, the process's wall (progress.txt), whether it re-timed and wrote, and where the wall went
#   (tune --json's `pace`: the workers' start before the wall, the rounds and the candidates' own compile, check and
#   timing seconds, the re-time, candidates cut at the session's limit), with the reason of each cut candidate.
#
# Env: OUT (required), PYTHON (default python3), PACE_ONLY (one of the three: only its session; scripts/gpu_table14.sh
# runs scaled_mm so). Writes under $OUT: session.txt, progress.txt, tune_<name>.json/.txt, kernel_<name>.py, logs/,
# pace.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
case "${PACE_ONLY:-}" in
    "") tune_copies tests/data/breaker11 scaled_mm; tune_copies tests/data/breaker10 mamba_ssu extend_attn ;;
    scaled_mm) tune_copies tests/data/breaker11 scaled_mm ;;
    *) tune_copies tests/data/breaker10 "$PACE_ONLY" ;;
esac
PACE_ONLY=${PACE_ONLY:-} "$PY" - "$R" > "$R/pace.txt" 2>&1 <<'PYEOF'
import datetime
import json
import os
import sys
from pathlib import Path

out = Path(sys.argv[1])
started = {}
took = {}
for line in (out / "progress.txt").read_text().splitlines():
    clock, _, what = line.partition(" ")
    at = datetime.datetime.strptime(clock, "%H:%M:%S")
    name = what.split()[1].rstrip(":") if what.startswith("tune ") else None
    if name and what.endswith("start"):
        started[name] = at
    elif name and name in started:
        took[name] = (at - started[name]).total_seconds()
for name in [os.environ["PACE_ONLY"]] if os.environ.get("PACE_ONLY") else ("scaled_mm", "mamba_ssu", "extend_attn"):
    path = out / f"tune_{name}.json"
    try:
        tuned = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        print(f"{name}: no summary ({exc})")
        continue
    pace = tuned.get("pace") or {}
    print(
        f"{name}: {tuned['evaluations']} evaluations, session wall {tuned['wall_s']:.1f} s, process "
        f"{took.get(name, float('nan')):.0f} s, stop {tuned['stop']}, outcomes {tuned['outcomes']}, "
        f"written {tuned.get('written')}, better {tuned['better']}, unretimed {tuned.get('unretimed')}"
    )
    print(f"  pace: {json.dumps(pace)}")
    record = Path(tuned["record"])
    if record.is_file():
        for line in record.read_text().splitlines():
            row = json.loads(line)
            reason = (row.get("result") or {}).get("reason") or ""
            if "cut at the" in reason or "not sent" in reason:
                print(f"  cut: {row['result']['config']}: {reason}")
PYEOF
cat "$R/pace.txt"
progress "done"
