#!/usr/bin/env bash
# Lane leftovers15's GPU proofs (tests/test_leftovers15_cases.py proves the rules on the CPU) on one NVIDIA GPU (run
# from the repository root, $OUT set). GPU clocks and settings are never changed. About 3 minutes.
#
#   1. tune --device cuda on refblame14's int_one (its N=1 entry does not compile on a GPU: an int argument of 1 is a
#      constexpr): the entry set aside in one line and --json, the session tuned on the other, exit 0, what it writes
#      right at sizes no entry names ($OUT/leftovers15_tune_int_one.json);
#   2. the registers a compile spills, read from the cubin with no GPU (target_compile.spilled), against the driver's
#      n_spills: fla_l2norm's three configs at D = 128 and the small row sum.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt, the json.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 420 tests/test_leftovers15_cases.py -k on_a_gpu
progress "done"
