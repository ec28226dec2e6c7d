#!/usr/bin/env bash
# Issue 32, the variants trial (tests/test_variants_cases.py proves it on the CPU in Triton's interpreter) on one
# NVIDIA GPU (run from the repository root, $OUT set). GPU clocks and settings are never changed. About 5 minutes.
#
#   1. tests: the GPU tests of tests/test_variants_cases.py: the forms the fixes write (mm_evenk's K tile and
#      transpose_rowmask's column tile guarded, directly and through a grid helper; v8-v12: a column tile guarded
#      over a store in a @triton.jit helper, a K tile guarded beside an EVEN_K flag computed from a literal, over
#      a loop counting K // BLOCK_K and over block pointers loaded in helpers, v14: a one-block row masked in
#      helpers, guarded by its length; wrongkernel8's v19, a one-block row guarded by the bound it is compared with,
#      `if (2 * n_pairs) <= 64:`, the tutorial's wrapped GEMM and tl.advance block pointers guarded on K, a split-K
#      tile moved beside its tl.atomic_add, an autotune config's row tile at a group of 1; wrongkernel9's v21-v22, a
#      block whose masked-out lanes reach a sum unneutral, guarded, and a fill left out read as a zero;
#      guardgrid10's v28-v29 and wrongkernel10's v30-v31: one block of columns guarded over a block pointer,
#      one advanced along K, and a tl.make_tensor_descriptor (TMA); v33: a column tile on the grid's second
#      axis guarded by the 65535 programs CUDA takes there, at 65535 * 1024 columns; v34: a reversed
#      tl.cumsum's block guarded as a divisor; wrongkernel11's v36-v39: a block flipped onto its mirror guarded as a
#      divisor, a K tile guarded over block pointers made inline in the loads, a row max's column block guarded over
#      a block pointer's zero padding, a one-block tl.sort's table where its fill sorts last; wrongkernel12's
#      v41-v43: a grid counting programs of BLOCK * UNROLL and a loop stepping by it guarded by the product's
#      multiple, a row covered by a tl.static_range count of blocks guarded by the product's reach; v44: a block
#      reshaped into rows of a size guarded by that size dividing it; v46: a split-K loop over K // SPLIT_K guarded
#      by the step times the splits; wrongkernel13's v47-v50: a two-stage sum's first tile guarded by the reach of
#      the second stage's one block, `if n <= 32768:` (the count passed, computed in the kernel, or a fixed count of
#      blocks), at up to 65536 elements, and the plain pick wrong at 40001; v49, a row's last program over its tiles'
#      partials, `if N <= 2048`, at 8192 rows of 4096 columns) compiled
#      by Triton and correct,
#      inputs padded with NaN, at sizes the SHAPES do not name, up to thousands; and tests/test_tuning_net.py's GPU
#      test: the net behind the rules (kernelopt.tuning.net) on cuda at realistic SHAPES (row_var_center 4096 and
#      8192 columns, hist_block 2**19 and 2**20 codes): the plain picks (rules off) failed at the largest entry plus
#      half the grown tile, the guarded ones passed there; and tests/test_wrongkernel13_cases.py's GPU test: the net's
#      power size on cuda (reshape_rows, v44, over 4096 rows of 64 and 2048 of 128 columns): the plain BLOCK=256 fails
#      at 4096 rows of 512 columns, the guarded one passes there; and tests/test_wrongkernel14_cases.py's GPU test:
#      the net's far and residue sizes on cuda at realistic sizes (v47 and v55 over 12000 and 16384 elements: the
#      plain BLOCK=512 and UNROLL=2 fail the far size at 32800; v52, tile2d_nomask over 4096 x 2048 and 8192 x 1024: the plain
#      BLOCK_N=8 fails the residue size at 2052 columns; v53, tile_two_knobs over 2**22 and 2**20: the plain TILE=256
#      fails at 2**22 + 128; wrongkernel15's v56, flat2d_nomask over 4096 x 4096 and 2048 x 4096: the plain BLOCK=64
#      fails a joint residue (4100 x 4100 on the H100 of 2026-12-06)), what the rules write passes (wrongkernel16's
#      and wrongkernel17's GPU tests moved to scripts/gpu_variants2.sh: the tests took 374 s on the H100 of
#      2026-12-06 and the phase's 420 s limit cut its tunes; tests.txt ends with the 15 slowest tests' durations);
#   2. tune: `kernelopt tune --device cuda --json` on copies of mm_evenk, transpose_rowmask and dispatch_size (default
#      strategy, a 60 s wall each), each written kernel.py kept; dispatch_size's log says its 600-column entry is
#      checked and not timed (the one-block launch does not run there); each --json's "net" says where the net
#      checked the written kernel past the SHAPES on the GPU.
#
# Env: OUT (required), PYTHON (default python3). Writes under $OUT: session.txt, progress.txt, tests.txt,
# tune_<name>.json/.txt, kernel_<name>.py, logs/.
set -u
. "${BASH_SOURCE%/*}/gpu_env.sh"
gpu_out
mkdir -p "$R/logs" "$R/work"
gpu_header "$R/session.txt"
gpu_tests 900 --durations=15 tests/test_variants_cases.py tests/test_tuning_net.py tests/test_wrongkernel13_cases.py \
    tests/test_wrongkernel14_cases.py
tune_copies tests/data/variants mm_evenk transpose_rowmask dispatch_size
progress "done"
