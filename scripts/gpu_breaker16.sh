#!/usr/bin/env bash
# Issue 32, the sixteenth held-out trial (tests/test_breaker16_cases.py proves it on the CPU in Triton's interpreter) on
# one NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 6 minutes.
#
#   1. tests: the GPU test of tests/test_breaker16_cases.py: the trial's eight originals compiled by Triton at a small
#      odd size and at realistic sizes (256 MB - 1 GB a tensor: Inductor's mm template (tiles bound in its body, the
#      grid from the wrapper's meta0), Dao's causal flash attention (heuristics of several arguments), vLLM's expand
#      (do_not_specialize, two call sites) and paged-cache write (in place), bitsandbytes' int8 matmul
#      (prune_configs_by, SPLIT_K in the grid), fla's chunk kkt and Mamba-2's chunk state (TF32 / fp16 dots), the
#      persistent-matmul tutorial (tl.range flatten=True)) and the forms tune writes, correct at sizes the SHAPES do not
#      name; every original compiled for sm_90 here first (compile_for_target, 2026-12-06);
#   2. tune: `kernelopt tune --device cuda --json` on copies of inductor_tem_mm (its M / N tiles held, c1; BLOCK_K and
#      GROUP_M in the body searched), bnb_int8_mm (an autotune list pruned by early_config_prune, SPLIT_K a knob) and
#      mamba_chunk_state (nine configs, a grid reading two of their names), default strategy, a 60 s wall each.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_trial tests/test_breaker16_cases.py tests/data/breaker16 inductor_tem_mm bnb_int8_mm mamba_chunk_state
