#!/usr/bin/env bash
# newuser16's GPU proof (tests/test_newuser16_cases.py proves n88 and n95 on the CPU with torch's own C++ build and
# lock) on one NVIDIA GPU with nvcc (run from the repository root, $OUT set). GPU clocks and settings are never
# changed. About 5-7 minutes: three builds of a small CUDA extension against torch's headers, one Inductor compile.
#
#   n88: `kernelopt validate --device cuda` of a CUDA extension (`load_inline(cuda_sources=...)`) missing a `;`: V0's
#   line is nvcc's own error ("... .cu(N): error: ..."), not the compiler's command line.
#   n89: the same kernel written right is `framework: cuda` in its task card.
#   n95: SIGINT to the process group while its extension builds (as a terminal's Ctrl-C), then `validate` again:
#   no lock of torch's is left, and the rerun builds and passes within its compile limit (before the fix it waited
#   the whole 300 s limit out and failed TIMEOUT_FAIL, the kernel blamed).
#   The rerun's PASS also needs timedgpu20's a14b: the extension launches on the legacy default stream, which a CUDA
#   graph's capture does not record; its timing says "the CUDA graph's replay left call N's output as it was" and
#   times the calls back to back (on 2026-12-06 an empty graph was timed and the timed check failed it).
#   n100: an add written with a plain `@torch.compile` (Inductor generating Triton) validated with TEST_TIMEOUT_SEC=10,
#   shorter than its compile: PASS (before the fix a torch.compile'd kernel's first-call compile was charged to the
#   case and failed as a hang).
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
gpu_src_path
gpu_header "$R/session.txt"
gpu_tests 600 -s tests/test_newuser16_cases.py -k on_a_gpu
progress "done"
