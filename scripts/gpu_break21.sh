#!/usr/bin/env bash
# break21: the net over an agent's rewrite (docs/faults.md, "Batch, MCP and agents broken, twenty-first trial", b43)
# on one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 4
# minutes.
#
#   tests: the GPU test of tests/test_break21_cases.py, through kernelopt mcp's stage calls (agents.drive) with
#   --device cuda on tests/data/kernelbench/relu at its task card's sizes (tests/data/break21/relu_rows_gpu/README.md:
#   32768 x 8192 fp32, 1 GiB a tensor; V0 torch.where over a zero tensor): Stage 1 with Nsight Compute, a plan citing
#   its first measured metric, then the agent's Triton kernel: one unmasked program a row of 8192 columns (right only
#   at the timed size) is refused back to the agent for repair by Stage 3's check (leftovers22 l18; before it, it
#   failed its gate), "correct at the timed sizes only: the kernel fails at batch_size=...", where V0 passes; a
#   masked one of the row's width rounded up is not refused by the net. tests.txt keeps the "break21 b43 ..." lines
#   (-s): each verdict or refusal, its seconds, its reason.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_header "$R/session.txt"
gpu_tests 450 -s --durations=5 tests/test_break21_cases.py -k on_a_gpu
progress "done"
