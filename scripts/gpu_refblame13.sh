#!/usr/bin/env bash
# refblame13's GPU proof (tests/test_refblame13_cases.py proves the rules on the CPU, a reference output on `meta`
# standing in) on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed.
# Under a minute.
#
#   1. breaker12's LoRA shrink with its reference as it was on the H100 (2026-12-06 08:36: `torch.zeros` on the CPU
#      beside cuda inputs): the gate's check (validate's, optimize's, batch's) passes the correct kernel and says once
#      that the reference made its output on the CPU; `kernelopt tune --device cuda` (3 candidates, a 30 s wall)
#      tunes it, where it said "kernel.py as written fails its own correctness check ...: output is on cuda; the
#      reference's is on cpu ...; its tl.dot multiplies fp32 operands in TF32".
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 240 tests/test_refblame13_cases.py -k lora_whose_reference
progress "done"
