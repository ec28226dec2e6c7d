#!/usr/bin/env bash
# Lane table14: the check's cost across SHAPES entries on one NVIDIA GPU (run from the repository root, $OUT set).
# GPU clocks and settings are never changed. About 3 minutes.
#
#   `kernelopt tune --device cuda --json` with the default budget and a 60 s wall on a copy of tests/data/breaker11/
#   scaled_mm (3 SHAPES entries, M, N and K each divisible by 16 at one and not another: three Triton
#   specializations), as scripts/gpu_pace12.sh runs it (PACE_ONLY=scaled_mm). On the H100 (2026-12-06 08:22) its
#   checks took 44.7 s of the 60 s wall, each entry's bench worker compiling each candidate for its own specialization
#   one entry after another, so nothing was re-timed and nothing written though a configuration 11x faster at M=150
#   was found. Now the entries after the primary check a batch at once (ShapesEvaluator.together). pace.txt: the
#   session's evaluations, wall, whether it re-timed and wrote, and tune --json's pace (the candidates' compile, check
#   and timing seconds, the re-time), to set beside that run's.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT what scripts/gpu_pace12.sh writes.
set -u
PACE_ONLY=scaled_mm exec bash "${BASH_SOURCE%/*}/gpu_pace12.sh"
