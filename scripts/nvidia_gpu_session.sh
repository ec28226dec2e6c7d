#!/usr/bin/env bash
# The one batched GPU session of issue 4 (run from the repository root on the H200 machine; $OUT collects results).
# Records the fixtures, measures profile cost, runs the gpu-marked tests and kernelopt end to end.
set -u
export GIT_PYTHON_REFRESH=quiet
command -v git || echo 'NO GIT'
R=$OUT/rec; mkdir -p "$R/e2e"; W=$(mktemp -d)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu); SEC=$(dirname "$(readlink -f "$NCU")")/../nsight-compute*/sections
ls -d /opt/nvidia/nsight-compute/*/sections >/dev/null 2>&1 && SEC=$(ls -d /opt/nvidia/nsight-compute/*/sections | tail -1)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; "$NCU" --version; python3 -c "import torch,triton;print(torch.__version__,triton.__version__)"; } > "$R/env.txt" 2>&1
timeout 330 python3 scripts/record_nvidia_fixtures.py --out "$R" --root "$W/fx" > "$R/record.log" 2>&1
echo "record rc=$?" >> "$R/record.log"
run() { PYTHONPATH=$PWD/src:$PYTHONPATH python3 -m kernelopt "$@"; }
run init userk --kernel tests/data/kernels/add_kernel.py --reference tests/data/kernels/add_reference.py --root "$W/u" > "$R/e2e/init.txt" 2>&1
run profile "$W/u/kernel_opt_userk" --json > "$R/e2e/user_profile.json" 2> "$R/e2e/user_profile.err"; echo "rc=$?" >> "$R/e2e/user_profile.err"
run evidence "$W/u/kernel_opt_userk/profiles/v0" > "$R/e2e/user_evidence.txt" 2>&1
KERNELOPT_NCU=/nonexistent run profile "$W/u/kernel_opt_userk" > "$R/e2e/timing_only.txt" 2>&1; echo "rc=$?" >> "$R/e2e/timing_only.txt"
run evidence "$W/u/kernel_opt_userk/profiles/v1" >> "$R/e2e/timing_only.txt" 2>&1
run evidence "$R/h200_softmax.ncu-rep" --diff "$R/h200_softmax_fast.ncu-rep" > "$R/e2e/diff.txt" 2>&1
run doctor > "$R/e2e/doctor.txt" 2>&1; echo "rc=$?" >> "$R/e2e/doctor.txt"
KERNELOPT_GPU_TESTS=1 timeout 150 python3 -m pytest -q -o addopts=-ra -p no:cacheprovider tests/test_nvidia_gpu.py > "$R/gpu_tests.txt" 2>&1
for f in SpeedOfLight LaunchStatistics IssueSlotUtilization CPIStall AchievedOccupancy TheoreticalOccupancy ThreadDivergence SharedMemoryConflicts HighPipeUtilization MemoryCacheAccessPattern; do
  echo "== $f.py"; grep -nE "threshold|Threshold|= 0\.[0-9]+$|= [0-9]+ *(#.*)?$" "$SEC/$f.py" 2>&1 | head -20; done > "$R/rule_thresholds.txt" 2>&1
for f in SchedulerStatistics SourceCounters MemoryWorkloadAnalysis_Tables; do echo "== $f"; grep -nE "Label|Name:" "$SEC/$f.section" | head -60; done > "$R/section_labels.txt" 2>&1
ls "$SEC" > "$R/sections_list.txt" 2>&1
du -a "$R" > "$R/sizes.txt"
cd "$R" && mkdir -p ../repA ../repB && mv h200_softmax*.ncu-rep h200_matmul.ncu-rep h200_small_grid.ncu-rep ../repA/ 2>/dev/null; mv h200_*.ncu-rep ../repB/ 2>/dev/null
cd "$OUT" && tar czf reports_a.tgz repA && tar czf reports_b.tgz repB && tar czf session.tgz rec
