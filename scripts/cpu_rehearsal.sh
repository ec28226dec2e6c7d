#!/usr/bin/env bash
# A GPU session rehearsed on a machine without a GPU (run from the repository root; docs/gpu-session.md):
#
#   bash scripts/cpu_rehearsal.sh [PLAN|PHASE ...]      default: owed
#
# A fake nvidia-smi (a header and one "FAKE GPU" row) and a fake ncu go first on PATH; `gpu_session.sh start` runs
# in a fresh GPU_DIR with its own copy of the repository (REHEARSAL_DIR, default a new /tmp folder), this script
# waits for the job, then reads every phase's outputs for what a broken script leaves: a usage error, an unknown
# option or command, an extra or missing argument, a missing file, an unbound variable, a command not found, a
# syntax error, a Python import error. Each hit is printed with its file and line; exit 1 when there is one.
#
# What a clean rehearsal proves: every phase of the plan starts; each step runs from the right folder, finds the
# files it names, its arguments parse, and it gets to the first point that needs CUDA (kernelopt says "torch sees
# no CUDA/ROCm GPU" or "no NVIDIA GPU found"; torch "Torch not compiled with CUDA enabled"); kernelopt's own work
# before that point runs for real (tune's discovery prints the space and the shapes). What it cannot prove:
# anything after that point. A later step that reads what only a GPU run writes fails here as expected (the
# comparisons on empty JSON), and tests marked gpu fail at their first CUDA call.
# Time here (2 shared cores, load 9-11, 2026-12-05): the owed plan 4.7-5.5 minutes (shapes 96-98 s, gputests
# 73-96 s, shapefail 56-70 s, with the CPU tests of tests/test_shape_failures.py run for real, edges 55-66 s).
set -u
dir=${REHEARSAL_DIR:-$(mktemp -d /tmp/kernelopt_rehearsal.XXXXXX)}
mkdir -p "$dir/bin" "$dir/out"
cat > "$dir/bin/nvidia-smi" <<'EOF'
#!/bin/sh
echo "name, driver_version"
echo "FAKE GPU (scripts/cpu_rehearsal.sh), 0"
EOF
cat > "$dir/bin/ncu" <<'EOF'
#!/bin/sh
echo "NVIDIA (R) Nsight Compute Command Line Profiler (fake: scripts/cpu_rehearsal.sh)"
echo "Version 2025.3.1.0 (fake)"
EOF
chmod +x "$dir/bin/nvidia-smi" "$dir/bin/ncu"
export PATH="$dir/bin:$PATH" GPU_DIR="$dir/gpu" GPU_REPO="$dir/repo" OUT="$dir/out"
# First the trials' costly CPU checks of their GPU picks, off in the default run (tests/gpu_correct.py's costly_picks:
# each pick written as its GPU test writes it, the written kernels run in the interpreter at odd sizes; about 64 CPU-s
# for tests/test_gpu_picks.py and 5-16 CPU-s a trial, 2026-12-07): a pick gone stale is seen before the session.
picks=$(grep -l '^@costly_picks' tests/test_*.py)
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" KERNELOPT_GPU_PICKS=1 timeout 1800 python3 -m pytest -q -n 0 -p no:cacheprovider -k gpu_picks $picks \
    > "$dir/picks.txt" 2>&1
picks_rc=$?
bash scripts/gpu_session.sh start "${@:-owed}" > "$dir/start.txt" 2>&1 || { cat "$dir/start.txt"; exit 2; }
while [ -f "$GPU_DIR/running" ]; do sleep 10; done
bash scripts/gpu_session.sh collect > "$dir/collect.txt" 2>&1

broken='No such option|unrecognized arguments|error: argument|Got unexpected extra argument|Missing argument|No such command'
broken="$broken|No such file or directory|command not found|unbound variable|syntax error|ModuleNotFoundError|ImportError"
broken="$broken|unknown phase"
cuda='sees no CUDA|no NVIDIA GPU found|Torch not compiled with CUDA|Found no NVIDIA driver'
echo "rehearsal in $dir"
cat "$GPU_DIR/progress.txt"
echo "steps that reached the first CUDA call: $(grep -rlE "$cuda" "$GPU_DIR" 2> /dev/null | wc -l) files"
hits=$(grep -rnE "$broken" "$GPU_DIR" --include='*.txt' --include='*.log' --include='*.json' 2> /dev/null)
echo "the trials' GPU picks on the CPU (KERNELOPT_GPU_PICKS=1, $dir/picks.txt): $(tail -1 "$dir/picks.txt")"
if [ "$picks_rc" != 0 ]; then
    echo "a trial's GPU pick is not written or not right on the CPU:"
    grep -E '^(FAILED|ERROR)' "$dir/picks.txt" | cut -c1-300
fi
if [ -n "$hits" ]; then
    echo "what a broken script leaves:"
    echo "$hits" | cut -c1-300
    exit 1
fi
echo "no usage error, unknown option, missing file or command, unbound variable or import error"
[ "$picks_rc" = 0 ] || exit 1
