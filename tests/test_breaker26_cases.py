"""Issue 32's twenty-sixth held-out trial, as a new user runs it (tests/data/breaker26/README.md: four public Triton
kernels from Liger-Kernel and flash-linear-attention: ReLU-squared and PolyNorm, each row one block of
``calculate_settings``'s tuple, PolyNorm's backward persistent over the SM count; fla's logsumexp, a row cut into
blocks whose partials torch reduces, under a settings-only autotune list; fla's chunked log-cumsum-exp, a float32
carry over ``cdiv(T, BT)`` chunks of an autotuned ``BT``). Each finding is a test: each original once in Triton's
interpreter at a small odd size against its reference (``_all_correct``: NaN around the inputs and the outputs),
the defect's own case, the forms ``tune`` writes for picks checked at sizes the ``SHAPES`` do not name, and the GPU
test the lead's session runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker26"

#: one small size each original has not been checked at, odd where the kernel allows it (fla's log-cumsum-exp's
#: ``tl.arange(0, S)`` needs a power of two, its ``tl.dot`` at least 16; 33 steps are one past a chunk of 32)
SMALL: dict[str, dict[str, int]] = {
    "liger_relu_sq": {"B": 1, "T": 3, "H": 129},
    "liger_poly_norm": {"B": 1, "T": 3, "H": 129},
    "fla_logsumexp": {"B": 1, "T": 3, "D": 129},
    "fla_logcumsumexp": {"B": 1, "H": 2, "T": 33, "S": 16},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The four kernels as their authors launch them, each once in the interpreter at a size no entry names (Liger's
    ReLU-squared and PolyNorm forward and backward through their autograd Functions, PolyNorm's backward one
    program over every row off a GPU; fla's logsumexp with a scale and without, through its six-config list; fla's
    log-cumsum-exp through its nine-config list, two chunks of 16 and one row past them)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defect


def test_q60_a_partial_buffer_torch_reduces_does_not_size_what_is_returned() -> None:
    """Seen on 2026-12-07: ``tunables`` on fla_logsumexp (``B = min(triton.next_power_of_2(D), 64 * 1024)``, ``ND =
    triton.cdiv(D, B)``, ``z = x.new_empty(N, ND)``, the kernel's partials stored there, then ``z =
    z.logsumexp(-1).view(*shape[:-1])`` and ``return z``) refused ``B``: "'B' sizes a tensor logsumexp_fwd() returns
    (allocated at kernel.py:92): another value returns another shape", and ``tune --device cpu`` exited 2 "no
    tunable knob on the CPU". The returned ``z`` has no ``ND`` axis: torch reduces it away. Only ``.sum(0)`` was
    read as a reduction (fla's K blocks), not ``logsumexp`` / ``amax`` / ..., a negative dim, nor a view after it.
    A reduction of the returned name over a literal dim, counted from the end where negative, drops that dim."""
    from kernelopt.tunables.analysis import discover_source

    source = (DATA / "fla_logsumexp" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(source)}["logsumexp_fwd_kernel:B"]
    assert found.kind == "computed_setting" and not found.semantic, found
    # reduced over the other axis, ND still sizes what is returned: refused as before
    kept = {t.key: t for t in discover_source(source.replace("z.logsumexp(-1)", "z.logsumexp(0)"))}
    assert "'B' sizes a tensor logsumexp_fwd() returns" in (kept["logsumexp_fwd_kernel:B"].refused_reason or "")


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): Liger's forward block a table
#: over the rows SHAPES name, computed past them, PolyNorm's too (the backward reads it through ``ctx``); fla's
#: nine-config list pinned to one ``BT`` (the carry's chain ``cdiv(T, 32)`` chunks long). fla's logsumexp block (q60)
#: is not written: its ``-inf`` lanes times a scale of either sign are data (+inf where the scale is negative)
GPU_PICKS = {
    "liger_relu_sq": {"BLOCK_SIZE": 8192},
    "liger_poly_norm": {"BLOCK_SIZE": 8192},
    "fla_logcumsumexp": {"BT": 32},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (256 MB - 1 GB a tensor where
#: memory matters)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "liger_relu_sq": [SMALL["liger_relu_sq"], {"B": 8, "T": 8192, "H": 4096}, {"B": 3, "T": 4097, "H": 11007}],
    "liger_poly_norm": [SMALL["liger_poly_norm"], {"B": 8, "T": 4096, "H": 4096}, {"B": 3, "T": 4097, "H": 5121}],
    "fla_logsumexp": [SMALL["fla_logsumexp"], {"B": 16, "T": 2048, "D": 4096}, {"B": 7, "T": 33, "D": 250007}],
    "fla_logcumsumexp": [
        SMALL["fla_logcumsumexp"],
        {"B": 8, "H": 16, "T": 8192, "S": 64},
        {"B": 3, "H": 5, "T": 4097, "S": 128},
    ],
}

#: past 2**31 elements: Liger's two row kernels and fla's logsumexp cast the program id to int64 before the row
#: offset (2**31 + a row of float32: 8.6 GB, the reference's float64 copy 17 GB; not asked here); fla's
#: log-cumsum-exp's ``o_t[:, None] * S`` is int32 within one head, wrong past 2**31 elements a head as written

#: the written forms' sizes: none a SHAPES entry names, odd ones, past the tables' rows, realistic ones
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "liger_relu_sq": [{"B": 1, "T": 7, "H": 5001}, {"B": 8, "T": 8192, "H": 4095}, {"B": 2, "T": 4097, "H": 16385}],
    "liger_poly_norm": [{"B": 1, "T": 7, "H": 5001}, {"B": 8, "T": 4096, "H": 4095}, {"B": 2, "T": 4097, "H": 16385}],
    # S=128 past the entries' 64: the written heuristic's fallback, fla's list autotuned (late53 l230)
    "fla_logcumsumexp": [
        {"B": 1, "H": 2, "T": 33, "S": 16},
        {"B": 8, "H": 16, "T": 8191, "S": 64},
        {"B": 2, "H": 4, "T": 1025, "S": 128},
    ],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects, and each written kernel holds
    in the interpreter at a size no entry names (odd sizes, one past a block, past a table's rows)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    relu = written["liger_relu_sq"].read_text()
    assert (
        "    BLOCK_SIZE, num_warps = calculate_settings(n_cols)\n    if n_cols <= 5000:  # kernelopt: tuned\n"
        "        BLOCK_SIZE = 8192\n"
    ) in relu, relu
    poly = written["liger_poly_norm"].read_text()
    assert "    if n_cols <= 5000:  # kernelopt: tuned\n        BLOCK_SIZE = 8192\n" in poly, poly
    scan = written["fla_logcumsumexp"].read_text()
    # the pick under the sizes checked, fla's list past them (late53 l230: late52's l220 refused the pinned list)
    assert '"BT": lambda args: 32 if args["S"] <= 64 else args["BT"],' in scan, scan
    small = {
        "liger_relu_sq": [{"B": 1, "T": 2, "H": 5001}],  # past the table's row: the computation
        "liger_poly_norm": [{"B": 1, "T": 2, "H": 5001}],  # past the table's row: the computation
        "fla_logcumsumexp": [
            {"B": 1, "H": 1, "T": 33, "S": 32},  # one past a chunk of 32
            {"B": 1, "H": 1, "T": 33, "S": 128},  # past the entries' S: fla's list, autotuned
        ],
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_sixth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the four originals (:data:`GPU_SIZES`: Liger's
    ReLU-squared and PolyNorm forward and backward, PolyNorm's backward over the SM count; fla's logsumexp over a
    250007-column row, four blocks of 65536; fla's log-cumsum-exp over 8192 steps), and the forms ``tune`` writes
    (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
