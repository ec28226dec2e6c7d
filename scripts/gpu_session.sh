#!/usr/bin/env bash
# One GPU session as a background job that outlives the device tool's calls (run from the repository root).
#
#   bash scripts/gpu_session.sh start [PHASE ...]   start the phases in order, in a new session (setsid),
#                                                   and return at once; default: every phase below
#   bash scripts/gpu_session.sh collect             print the progress and pack what is done into $OUT
#                                                   (one tarball, gpu_session.tar.gz, plus progress.txt)
#   bash scripts/gpu_session.sh wait SECONDS        collect after SECONDS, or as soon as the job ends
#
# Phases (each writes under $GPU_DIR/<phase>/, default GPU_DIR=/tmp/kernelopt_gpu; GPU clocks and settings
# are never changed, ncu runs with --clock-control none):
#   engine     scripts/gpu_engine_check.sh: the engine at 512 MiB - 1 GiB per tensor, peak memory, GPU tests
#   suite      scripts/gpu_engine_suite.sh: sweeps, the loop and `kernelopt tune` on the suite kernels
#   suite2     the same script's loop only, on LOOP_EXAMPLES2 (a second batch of loops after other phases)
#   overhead   scripts/gpu_batch_overhead.sh: batch wall time per problem, cold and warm
#   ray        scripts/gpu_ray_batch.sh: the plain and the Ray batch (needs .whl/ray_part1 and ray_part2)
#   tunables   scripts/gpu_tunables.sh: issue 15's corpus on the GPU (TUNABLES_TASKS, default all four)
#   heldout    scripts/gpu_heldout.sh: complete sweeps of the held-out kernels, tune --within each, compared
#   shapes     scripts/gpu_shapes.sh: tune across three row lengths of a computed-settings kernel, per-shape sweeps
#   kernelbench scripts/gpu_kernelbench_level1.sh: KernelBench level 1, identical kernels, full size (needs
#              KernelBench's level1 folder at kernelbench/level1, carried)
#   mcp        scripts/gpu_mcp.sh: ncu through the MCP profile tool, a softmax iteration through the stdio client
#   edges      scripts/gpu_tune_edges.sh: the tuning engine's edges (a retune of a guarded file, the re-time
#              within the wall, --within a cut sweep)
#   gputests   every test marked gpu
set -u
GPU_DIR=${GPU_DIR:-/tmp/kernelopt_gpu}
mkdir -p "$GPU_DIR"
cmd=${1:-collect}
shift || true

run_phase() {
    local p=$1 d="$GPU_DIR/$1" rc
    mkdir -p "$d"
    echo "$(date -u +%T) start $p" >> "$GPU_DIR/progress.txt"
    case $p in
        engine) OUT="$d" timeout -k 10 420 bash scripts/gpu_engine_check.sh > "$d/stdout.txt" 2>&1 ;;
        suite) OUT="$d" timeout -k 10 1500 bash scripts/gpu_engine_suite.sh > "$d/stdout.txt" 2>&1 ;;
        suite2) OUT="$d" SWEEP_EXAMPLES="" TUNE_EXAMPLES="" LOOP_EXAMPLES="${LOOP_EXAMPLES2-}" timeout -k 10 1500 \
            bash scripts/gpu_engine_suite.sh > "$d/stdout.txt" 2>&1 ;;
        overhead) OUT="$d" timeout -k 10 560 bash scripts/gpu_batch_overhead.sh > "$d/stdout.txt" 2>&1 ;;
        ray) OUT="$d" PART1="$GPU_DIR/ray_part1" PART2="$GPU_DIR/ray_part2" PLAIN=${PLAIN:-0} timeout -k 10 560 \
            bash scripts/gpu_ray_batch.sh > "$d/stdout.txt" 2>&1 ;;
        tunables) OUT="$d" TASKS="${TUNABLES_TASKS:-matmul_autotune_helper swiglu_defaults mm_module_dict rmsnorm_calculate_settings}" timeout -k 10 1000 \
            bash scripts/gpu_tunables.sh > "$d/stdout.txt" 2>&1 ;;
        heldout) OUT="$d" timeout -k 10 1700 bash scripts/gpu_heldout.sh > "$d/stdout.txt" 2>&1 ;;
        shapes) OUT="$d" timeout -k 10 1200 bash scripts/gpu_shapes.sh > "$d/stdout.txt" 2>&1 ;;
        kernelbench) OUT="$d" timeout -k 10 600 bash scripts/gpu_kernelbench_level1.sh > "$d/stdout.txt" 2>&1 ;;
        mcp) OUT="$d" timeout -k 10 960 bash scripts/gpu_mcp.sh > "$d/stdout.txt" 2>&1 ;;
        edges) OUT="$d" timeout -k 10 420 bash scripts/gpu_tune_edges.sh > "$d/stdout.txt" 2>&1 ;;
        gputests) KERNELOPT_GPU_TESTS=1 timeout -k 10 560 \
            python3 -m pytest -q -n 0 -o addopts=-ra -m gpu ${GPU_TESTS:-tests} > "$d/stdout.txt" 2>&1 ;;
        *) echo "unknown phase $p" > "$d/stdout.txt"; false ;;
    esac
    rc=$?
    echo "$(date -u +%T) end $p rc=$rc" >> "$GPU_DIR/progress.txt"
}

collect() {
    local out=${OUT:?set OUT}
    cp "$GPU_DIR/progress.txt" "$out/progress.txt" 2> /dev/null
    (cd "$GPU_DIR" && tar --exclude='*triton-cache*' --exclude='*.ncu-rep' --exclude='ray_part*' \
        -czf "$out/gpu_session.tar.gz" . 2> /dev/null)
    cat "$GPU_DIR/progress.txt" 2> /dev/null
    for f in "$GPU_DIR"/*/stdout.txt; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done
}

case $cmd in
    start)
        phases=${*:-engine suite overhead ray tunables}
        # kernelopt's own dependencies the GPU image lacks travel as wheels (.whl/deps, carried in the call)
        if [ -d .whl/deps ]; then
            python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
                .whl/deps/*.whl > "$GPU_DIR/install.txt" 2>&1 || { cat "$GPU_DIR/install.txt"; exit 3; }
        fi
        export PYTHONPATH="/tmp/site:$PWD/src:$(ls -d /opt/nvidia/nsight-compute/*/extras/python 2> /dev/null | tail -1)"
        export PYTHONUNBUFFERED=1
        # the Ray wheel parts travel in two calls; keep them outside the working tree copy
        for part in ray_part1 ray_part2; do [ -d ".whl/$part" ] && cp -r ".whl/$part" "$GPU_DIR/"; done
        {
            date -u
            nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.used,memory.total --format=csv
            python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
            python3 -c "import kernelopt, pydantic, git, libcst, ncu_report; print('kernelopt imports')"
            nproc
        } > "$GPU_DIR/env.txt" 2>&1
        # the phases run from a private copy of the repository: the device tool's next call copies the
        # working tree again, and files missing for that moment broke a running phase (2026-12-03)
        repo=${GPU_REPO:-/tmp/kernelopt_repo}
        rm -rf "$repo" && mkdir -p "$repo"
        tar --exclude=./.git --exclude=./.whl -cf - . | (cd "$repo" && tar -xf -)
        cd "$repo" || exit 3
        export PYTHONPATH="/tmp/site:$repo/src:$(ls -d /opt/nvidia/nsight-compute/*/extras/python 2> /dev/null | tail -1)"
        export -f run_phase
        export GPU_DIR PLAIN GPU_TESTS TUNABLES_TASKS LOOP_EXAMPLES2 SWEEP_EXAMPLES TUNE_EXAMPLES LOOP_EXAMPLES TUNE_WALL_S LOOP_WALL_MIN SWEEP_BUDGET_S SWEEPS_FROM SWEEP_WALL_S
        touch "$GPU_DIR/running"
        setsid bash -c "for p in $phases; do run_phase \$p; done; echo done >> '$GPU_DIR/progress.txt'; rm -f '$GPU_DIR/running'" \
            > "$GPU_DIR/session.log" 2>&1 < /dev/null &
        sleep 5
        cat "$GPU_DIR/progress.txt"
        ;;
    wait)
        # a Ray wheel part carried in this call joins the other before the Ray phase starts
        for part in ray_part1 ray_part2; do [ -d ".whl/$part" ] && [ ! -d "$GPU_DIR/$part" ] && cp -r ".whl/$part" "$GPU_DIR/"; done
        end=$((SECONDS + ${1:-240}))
        while [ $SECONDS -lt $end ] && [ -f "$GPU_DIR/running" ]; do sleep 5; done
        collect
        ;;
    collect) collect ;;
    *) echo "usage: gpu_session.sh start [PHASE ...] | collect | wait SECONDS" >&2; exit 2 ;;
esac
