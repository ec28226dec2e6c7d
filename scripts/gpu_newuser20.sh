#!/usr/bin/env bash
# newuser20's GPU proof (tests/test_newuser20_cases.py proves n140-n148 on the CPU: a parked journal, the loop's fakes,
# a recorded ncu summary) on one NVIDIA GPU with Nsight Compute (run from the repository root, $OUT set). GPU clocks
# and settings are never changed. About 4-7 minutes.
#
#   n140: `kernelopt optimize --device cuda --max-iters 1` on examples/elementwise (2**28 fp16, 512 MiB a tensor),
#   Ctrl-C'd (SIGINT to its process group) once V1's implement stage starts: exit 130, `status --json` says
#   interrupted at V1, and the same `optimize` resumes it and ends.
#   n145: V1's commit has its body (latency, against V0 and the reference with intervals, why, plan and record).
#   n146: the report names V0's .ncu-rep with `ncu-ui`, and the file is there.
#   n142, n148: the CSV's speedup over PyTorch inside its interval; the latency panel's points hold the intervals and
#   PyTorch's latency, the final version's speedup in words.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt and
# newuser20_elementwise/ (the interrupted run's log, status.json, the resumed run's JSON and stderr, git log, report,
# CSV and plots).
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 560 tests/test_newuser20_cases.py -k on_a_gpu
progress "done"
