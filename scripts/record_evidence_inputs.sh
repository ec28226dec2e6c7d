#!/usr/bin/env bash
# Record the NVIDIA inputs of issue 18 on a machine with an NVIDIA GPU and Nsight Compute.
#
#   OUT=/some/dir bash scripts/record_evidence_inputs.sh
#
# Writes under $OUT (about 1-2 minutes on the H200; no GPU clock or setting is changed):
#   h200_softmax_roofline_section.csv   the committed softmax report's SpeedOfLight_RooflineChart section
#                                       exported with --print-details all (ncu --import, no GPU needed)
#   h200_repeated_launches.ncu-rep      20 launches of one elementwise kernel (--set basic), for grouping
#   h200_repeated_launches_details.csv  the same report, details page
#   versions.txt                        ncu --version, nvidia-smi, torch version
# Then copy the CSVs into tests/data/nvidia/ (and the report, gzipped) to replace the constructed
# section export in tests/test_ncu_inputs.py.
set -euo pipefail
: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
NCU="${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}"
cd "$(dirname "$0")/.."
{ "$NCU" --version; nvidia-smi --query-gpu=name,driver_version --format=csv; python3 -c 'import torch; print("torch", torch.__version__)'; } > "$OUT/versions.txt" 2>&1 || true

gunzip -c tests/data/nvidia/h200_softmax.ncu-rep.gz > "$OUT/h200_softmax.ncu-rep"
"$NCU" --import "$OUT/h200_softmax.ncu-rep" --page details --section SpeedOfLight_RooflineChart \
  --print-details all --csv > "$OUT/h200_softmax_roofline_section.csv"
rm -f "$OUT/h200_softmax.ncu-rep"

cat > "$OUT/repeat.py" <<'PY'
import torch
x = torch.randn(1 << 22, device="cuda")
for _ in range(20):
    y = x * 2.0 + 1.0
torch.cuda.synchronize()
PY
timeout 300 "$NCU" --clock-control none --set basic -k regex:elementwise --launch-count 20 \
  --export "$OUT/h200_repeated_launches" --force-overwrite python3 "$OUT/repeat.py" > "$OUT/ncu_repeat.log" 2>&1
"$NCU" --import "$OUT/h200_repeated_launches.ncu-rep" --page details --csv > "$OUT/h200_repeated_launches_details.csv"
rm -f "$OUT/repeat.py"
ls -l "$OUT"
