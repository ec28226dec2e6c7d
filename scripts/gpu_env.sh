# The session header every scripts/gpu_*.sh shares: sourced (`. "${BASH_SOURCE%/*}/gpu_env.sh"`), never run.
# It defines functions and PY; it runs nothing on its own, so a script keeps the order of its own steps.
#
#   PY                        the interpreter: $PYTHON, default python3 (the one the carried wheels are for)
#   gpu_out                   R=$OUT (required: the script stops with "set OUT" without it), created;
#                             KERNELOPT_CRASH_DIR=$R/crash (a crash log comes back with the phase)
#   gpu_src_path              $PWD/src ahead of PYTHONPATH (run from the repository root)
#   gpu_header FILE [FIELDS]  what a result was measured on, into FILE: the date, nvidia-smi --query-gpu=FIELDS
#                             (default name, driver, clocks, memory), torch and triton, CPU cores, the commit
#                             (the device tool's copy has no .git: then $KERNELOPT_COMMIT, which the call exports)
#   progress MESSAGE          "HH:MM:SS MESSAGE" appended to $R/progress.txt (a cut run says how far it got)
#   gpu_tests LIMIT_S ARGS... `pytest -m gpu ARGS` with the GPU tests on, under `timeout LIMIT_S`, into $R/tests.txt
#                             (appended), its start and rc in progress.txt
#   tune_copy DATA NAME [ARG...]  `kernelopt tune --device cuda ARG...` on a copy of DATA/NAME (a 60 s wall)
#   tune_copies DATA NAME...  tune_copy of each DATA/NAME
#   gpu_trial TESTS DATA NAME...  a held-out trial's whole session: $R with logs/ and work/, session.txt, the GPU
#                             tests of TESTS (900 s), tune_copies DATA NAME..., then "done"
#   gpu_pip_target DIR WHEEL...  pip install of carried wheels into DIR: no index, no dependencies, no network
#   gpu_ncu_python            Nsight Compute's extras/python folder (ncu_report), empty when there is none
#
# GPU clocks and settings are never changed by anything here or in the scripts.

PY=${PYTHON:-python3}
GPU_FIELDS_DEFAULT=name,driver_version,clocks.sm,clocks.max.sm,memory.used,memory.total

gpu_out() {
    R=${OUT:?set OUT to the output folder}
    mkdir -p "$R"
    # an internal error's crash log is written under the phase's folder and comes back with it (on 2026-12-07 22:11
    # lmd_fill_fp8's tune said "internal error ... (crash log: /tmp/kernelopt-crash-...)", which stayed on the device)
    export KERNELOPT_CRASH_DIR="$R/crash"
}

gpu_src_path() {
    export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
}

gpu_header() {  # FILE [FIELDS]
    local file=$1 fields=${2:-$GPU_FIELDS_DEFAULT}
    { date -u
      nvidia-smi --query-gpu="$fields" --format=csv
      "$PY" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
      nproc
      git log -1 --format='%H %s' 2> /dev/null || echo "kernelopt commit ${KERNELOPT_COMMIT:-unknown (no .git; export KERNELOPT_COMMIT)}"
    } > "$file" 2>&1
}

progress() {
    TZ=UTC0 printf '%(%T)T %s\n' -1 "$*" >> "$R/progress.txt"
}

gpu_tests() {  # LIMIT_S PYTEST_ARGS...
    local limit=$1
    shift
    progress "tests: start"
    KERNELOPT_GPU_TESTS=1 timeout "$limit" $PY -m pytest -o addopts=-ra -p no:cacheprovider -m gpu "$@" \
        >> "$R/tests.txt" 2>&1
    progress "tests: rc=$?"
}

tune_copy() {  # DATA_DIR NAME [ARG...]: `kernelopt tune --device cuda --json` (a wall of TRIAL_TUNE_S, default 60 s)
    # on a copy of the folder DATA_DIR/NAME under $R/work, the ARGs passed on (`--kernel K`: one launch), the written
    # kernel.py kept as $R/kernel_NAME.py (the held-out trials' scripts)
    local data=$1 name=$2 ws="$R/work/$2"
    shift 2
    rm -rf "$ws" && cp -r "$data/$name" "$ws"
    progress "tune $name${*:+ ($*)}: start"
    timeout 300 $PY -m kernelopt tune "$ws" --device cuda --json --budget-wall-s "${TRIAL_TUNE_S:-60}" --out "$R/logs/$name" \
        "$@" > "$R/tune_$name.json" 2> "$R/tune_$name.txt"
    progress "tune $name: rc=$?"
    cp "$ws/kernel.py" "$R/kernel_$name.py"
}

tune_copies() {  # DATA_DIR NAME...: tune_copy of each folder DATA_DIR/NAME
    local data=$1 name
    shift
    for name in "$@"; do
        tune_copy "$data" "$name"
    done
}

gpu_trial() {  # TESTS DATA_DIR NAME...: the session of scripts/gpu_breaker*.sh and gpu_variants.sh
    local tests=$1
    shift
    gpu_out
    mkdir -p "$R/logs" "$R/work"
    gpu_header "$R/session.txt"
    gpu_tests 900 "$tests"
    tune_copies "$@"
    progress "done"
}

gpu_pip_target() {  # DIR WHEEL...
    local site=$1
    shift
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" "$@"
}

gpu_ncu_python() {
    ls -d /opt/nvidia/nsight-compute/*/extras/python 2> /dev/null | tail -1
}
