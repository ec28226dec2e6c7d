"""Issue 32's nineteenth held-out trial, as a new user runs it (tests/data/breaker19/README.md: eight public Triton
kernels from flash-attention, the Triton tutorials, LMDeploy, FlagAttention and Kernl, in forms earlier trials left
out). Each finding is a test: the reading ``tunables`` or a session's preparation gives, or the kernel.py ``tune``
writes for a pick, run in Triton's interpreter against the folder's reference at sizes its ``SHAPES`` do not name
(``_all_correct``: NaN around the inputs and the outputs); each original once at a small odd size; and the GPU test
that the lead's session runs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables import TunableKind, discover_source
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker19"

#: one small size each original has not been checked at (odd, off every SHAPES entry)
SMALL: dict[str, dict[str, int]] = {
    "dao_rotary": {"B": 1, "S": 5, "H": 3, "D": 40, "R": 24},
    "dao_xent": {"N": 3, "V": 37},
    "dao_ln_bwd": {"M": 7, "N": 33},
    "tut_matmul": {"M": 19, "N": 21, "K": 23},
    "lmd_rms": {"B": 1, "T": 3, "H": 36},
    "lmd_silu": {"M": 5, "N": 100},
    "flag_splitkv": {"B": 1, "H": 2, "M": 3, "N": 300, "D": 16},
    "kernl_linear": {"B": 1, "S": 9, "K": 40, "N": 24},
}


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", sorted(SMALL))
def test_each_original_is_right_at_a_small_odd_size(name: str) -> None:
    """The eight kernels as their authors launch them, once each in the interpreter at a size no entry names."""
    _all_correct(DATA / name, [SMALL[name]])


# ------------------------------------------------------------------------------------- discovery


def test_d1_a_buffer_dimension_squeezed_where_its_count_is_one_sizes_nothing_returned() -> None:
    """Seen on 2026-12-06: flag_splitkv, FlagAttention's flash decoding, whose tiles come from ``BLOCK_M, BLOCK_N,
    num_stages, num_warps = get_fwd_config(...)`` and set the split count ``S = num_splits_herustic(..., BLOCK_M,
    BLOCK_N, ...)`` that sizes the buffer ``multiple_o = torch.empty((B, H, S, M, D))``, returned only as ``if S ==
    1: return multiple_o.squeeze(2)``. ``tunables`` said BLOCK_M and BLOCK_N were "not a performance parameter:
    'BLOCK_M' sizes a tensor attention() returns", and ``tune`` exited 2 "no tunable knob". A dimension squeezed
    away under ``if S == 1:`` has no extent ``S`` gives the value returned; returned plainly, it still does."""
    src = (DATA / "flag_splitkv" / "kernel.py").read_text()
    knobs = {t.key: t for t in discover_source(src)}
    for name in ("BLOCK_M", "BLOCK_N"):
        t = knobs[f"_fwd_split_kv_kernel:{name}"]
        assert t.kind is TunableKind.COMPUTED_SETTING and t.editable, t
    # the same buffer returned as it is: its split count is the output's shape, the tiles what it computes
    plain = src.replace("            return multiple_o.squeeze(2)\n", "            return multiple_o\n")
    held = {t.key: t for t in discover_source(plain)}["_fwd_split_kv_kernel:BLOCK_M"]
    assert held.semantic and not held.editable, held
    assert "'BLOCK_M' sizes a tensor attention() returns" in (held.refused_reason or ""), held


@pytest.fixture(scope="module")
def splitkv_prepared() -> Any:
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    return prepare_folder(TuneRequest(folder=DATA / "flag_splitkv", device="cpu"))


@pytest.mark.timeout(180)
def test_d3_a_computed_knob_at_its_own_value_beside_another_computed_one_is_the_original(
    splitkv_prepared: Any,
) -> None:
    """Seen on 2026-12-06: ``tune --device cpu`` on flag_splitkv (after d1) timed ``BLOCK_M=16`` with ``BLOCK_N``
    computed, what ``get_fwd_config`` gives at every entry (16 and 128), as a candidate apart from the original:
    "best BLOCK_M=16: 189.7 ms ..., 1.21x faster than the current BLOCK_M=computed (230.3 ms); written to
    kernel.py" (``if B <= 2: BLOCK_M = 16``, the original's own value): noise sold as a gain. Every configuration
    that sets some computed knobs to the one value their computation gives over the entries, the others computed,
    is the original's twin: known from its timing, never timed apart (``folder._twins``)."""
    from kernelopt.tuning.folder import _twins

    twins = {tuple(sorted(t.as_dict().items())) for t in _twins(splitkv_prepared)}
    assert twins == {
        (("BLOCK_M", 16), ("BLOCK_N", 128)),
        (("BLOCK_M", 16), ("BLOCK_N", "computed")),
        (("BLOCK_M", "computed"), ("BLOCK_N", 128)),
    }, twins
    assert {"BLOCK_M", "BLOCK_N"} <= set(splitkv_prepared.space.names)  # d1: the tiles are searched


def test_d5_a_count_of_whole_tiles_no_grid_reads_is_not_said_to_be_the_grid() -> None:
    """Seen on 2026-12-06: ``tune`` on flag_splitkv set ``BLOCK_N=64`` aside, "BLOCK_N=64 must divide N (the grid at
    line 298 has triton.cdiv(N, BLOCK_N) programs of _fwd_split_kv_kernel, ...)": the grid is ``(cdiv(M, BLOCK_M),
    S, H * B)``; that count is ``N_SPLIT_SIZE = cdiv(cdiv(N, BLOCK_N), S) * BLOCK_N``, a split of whole tiles. The
    requirement stands (the kernel's masked-out lanes meet ``-inf * qk_scale``, a scale of unknown sign: "Seen, not
    changed"); a count no grid reads is said as the line's count, numbered as in the user's file (seen19's s1: 297,
    where the text the edit would write, one line inserted above it, has it at 298)."""
    from kernelopt.tunables.guard import guard_edit

    base = (DATA / "flag_splitkv" / "kernel.py").read_text()
    tiles = "        BLOCK_M, BLOCK_N, num_stages, num_warps = config\n"
    guarded = guard_edit(base, base.replace(tiles, tiles + "        BLOCK_N = 64  # kernelopt: tuned\n"))
    assert guarded.new_source is None and guarded.note is not None, guarded
    assert "(line 297 counts triton.cdiv(N, BLOCK_N) whole tiles of _fwd_split_kv_kernel, whose" in guarded.note
    assert "the grid at line" not in guarded.note, guarded.note


# ------------------------------------------------------------------------------------- tables


@pytest.mark.timeout(240)
def test_d2_a_num_warps_computed_from_a_tabled_block_joins_the_block_s_table(tmp_path: Path) -> None:
    """Seen on 2026-12-06: dao_xent, flash-attention's cross-entropy backward (``BLOCK_SIZE = min(
    next_power_of_2(n_cols), 4 * 1024)``, then ``num_warps = 4 if BLOCK_SIZE < 2048 else (8 if BLOCK_SIZE < 8192
    else 16)``): a pick of both (what a GPU session, whose space has num_warps, finds) wrote nothing, "BLOCK_SIZE
    tuned in a table over n_cols, beside num_warps=8 for every size, would run the original BLOCK_SIZE with
    num_warps=8 above the sizes checked, a combination never timed ...: not written". A setting computed from the
    table's own settings alone joins its rows: both fall back to their computations above the sizes checked."""
    folder = Path(shutil.copytree(DATA / "dao_xent", tmp_path / "dao_xent"))
    written, note = _tune_edit(folder, {"BLOCK_SIZE": 512, "num_warps": 8}, "cross_entropy_bwd_kernel")
    assert written is not None, note
    assert "if n_cols <= 20000:  # kernelopt: tuned\n            BLOCK_SIZE = 512" in written, written
    assert "if n_cols <= 20000:  # kernelopt: tuned\n            num_warps = 8" in written, written
    assert note is not None and note.startswith("BLOCK_SIZE, num_warps tuned in a table over n_cols up to 20000")
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"N": 3, "V": 7}, {"N": 2, "V": 20001}])


@pytest.mark.timeout(180)
def test_d4_a_kernel_launched_twice_a_run_is_read_at_its_largest_launch() -> None:
    """Seen on 2026-12-06: lmd_rms, LMDeploy's RMS norm run over the hidden size (1000) and then over each head
    (250) at one entry. The run kept the last launch alone: "BLOCK_N: one of [256] ... N_COLS is up to 250 at the
    SHAPES entries checked", the one block offered left the first launch's rows undone, and ``tune`` exited 2
    "every value tried beside the current one changes what kernel.py computes (BLOCK_N = 256: all wrong_result)".
    Each size of a run is the largest its launches of the kernel gave it, and so is the value a computed setting
    took (its launching function's local): the search starts at the block covering 1000, and the computation's
    values by entry (what a table row for the original writes) agree with the sizes they are bucketed on."""
    from kernelopt.tunables.autotune_worker import _LaunchRecorder
    from kernelopt.tuning.folder import TuneRequest, computed_by_shape, prepare_folder
    from tests.conftest import load_fresh, triton_interpreted

    folder = DATA / "lmd_rms"
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_breaker19_ref")
        ker = load_fresh(folder / "kernel.py", "_breaker19_ker")
        recorder = _LaunchRecorder(str((folder / "kernel.py").resolve()))
        with recorder:
            ker.run(*ref.get_inputs(B=1, T=3, H=44))
    sizes = recorder.sizes["add_rms_norm_kernel"]
    assert sizes["feat_size"] == 44 and sizes['args["N_COLS"]'] == 44 and sizes["BLOCK_N"] == 64, sizes
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    assert [(k.name, k.values) for k in prepared.space.knobs] == [("BLOCK_N", (1024,))]
    assert "N_COLS is up to 1000 at the SHAPES entries checked" in prepared.space.domain_notes[0]
    by = {label: v["BLOCK_N"] for label, v in computed_by_shape(prepared).items()}
    assert by == {"B=1,T=7,H=1000": 1024, "B=2,T=40,H=256": 256, "B=3,T=100,H=64": 64}, by


@pytest.mark.timeout(180)
def test_gpunet20_dao_rotary_runs_in_the_interpreter_where_torch_s_wrap_triton_refuses_an_interpreted_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """gpunet20 g2 (the H100 of 2026-12-06 23:16): breaker19's GPU test could not write ``GPU_PICKS``' dao_rotary pick,
    "BLOCK_M computed from rotary_dim, which the SHAPES entries do not name", where this machine writes it: its host's
    torch 2.11 refuses ``torch.library.wrap_triton`` of the ``InterpretedFunction`` Triton's interpreter makes ("only
    works on functions annotated with triton.jit", fixed in torch 2.12), so the preparation's runs of the task in the
    interpreter failed at every entry and read no ``rotary_dim``. Such a torch stood in for here (torch's own
    ``wrap_triton`` with its interpreter branch off): the run raises; with kernelopt's fix (``patch_wrap_triton``,
    one of the interpreter's fixes) it is right."""
    import torch
    import torch.library
    from torch._library import triton as torch_triton

    from kernelopt.harness.interpreter import patch_wrap_triton
    from tests.conftest import load_fresh, triton_interpreted

    if hasattr(torch_triton, "_is_interpreted_triton_kernel"):  # torch 2.12 on; torch 2.11 has no such branch
        monkeypatch.setattr(torch_triton, "_is_interpreted_triton_kernel", lambda kernel: False)
    folder = DATA / "dao_rotary"
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_gpunet20_ref")
        ker = load_fresh(folder / "kernel.py", "_gpunet20_ker")
        inputs = ref.get_inputs(B=1, S=3, H=1, D=16, R=8)
        monkeypatch.setattr(torch.library, "wrap_triton", torch_triton.wrap_triton)  # torch's own, unpatched
        with pytest.raises(RuntimeError, match="only works on functions annotated with triton.jit"):
            ker.run(*inputs)
        patch_wrap_triton()
        got = ker.run(*inputs)
    for mine, theirs in zip(got, ref.reference(*inputs), strict=True):
        torch.testing.assert_close(mine, theirs, atol=ref.ATOL, rtol=ref.RTOL)


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for seven of the trial's kernels when its session picks these, checked on the GPU: Dao's
#: rotary block tabled over rotary_dim with the call's literal BLOCK_H made a local; Dao's layer-norm backward block
#: tabled over N; the tutorial's and Kernl's autotune lists pinned (Kernl's prune wrapped); LMDeploy's two blocks
#: tabled (the RMS norm's NUM_STAGES beside it, d4's bound); FlagAttention's tile and warps tabled (d1)
GPU_PICKS = {
    "dao_rotary": {"BLOCK_H": 4, "BLOCK_M": 16},
    "dao_ln_bwd": {"BLOCK_N": 2048},
    "tut_matmul": {
        "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4, "num_warps": 4, "num_stages": 3,
    },
    "kernl_linear": {"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32, "SPLIT_K": 1, "num_warps": 4, "num_stages": 2},
    "lmd_rms": {"BLOCK_N": 2048, "NUM_STAGES": 2},
    "lmd_silu": {"BLOCK_SIZE_N": 128},
    "flag_splitkv": {"BLOCK_M": 32, "num_warps": 8},
}  # fmt: skip

#: (folder, sizes) of the originals on the GPU: a small odd size and a realistic one (256 MB - 1 GB a tensor)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "dao_rotary": [{"B": 1, "S": 5, "H": 3, "D": 40, "R": 24}, {"B": 4, "S": 8192, "H": 32, "D": 128, "R": 128}],
    "dao_xent": [{"N": 3, "V": 37}, {"N": 4096, "V": 65536}],
    "dao_ln_bwd": [{"M": 7, "N": 33}, {"M": 65536, "N": 4096}],
    "tut_matmul": [{"M": 19, "N": 21, "K": 23}, {"M": 16384, "N": 8192, "K": 8192}],
    "lmd_rms": [{"B": 1, "T": 3, "H": 36}, {"B": 4, "T": 8192, "H": 4096}],
    "lmd_silu": [{"M": 5, "N": 100}, {"M": 16384, "N": 16384}],
    "flag_splitkv": [
        {"B": 1, "H": 2, "M": 3, "N": 300, "D": 16},
        {"B": 1, "H": 32, "M": 1, "N": 131072, "D": 128},
        {"B": 2, "H": 16, "M": 1024, "N": 4096, "D": 64},
    ],
    "kernl_linear": [{"B": 1, "S": 9, "K": 40, "N": 24}, {"B": 8, "S": 2048, "K": 8192, "N": 8192}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included, and a realistic one (inside the tables)
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "dao_rotary": [{"B": 1, "S": 3, "H": 1, "D": 16, "R": 8}, {"B": 4, "S": 8192, "H": 32, "D": 128, "R": 128}],
    "dao_ln_bwd": [{"M": 3, "N": 5}, {"M": 262144, "N": 1000}],
    "tut_matmul": [{"M": 1, "N": 1, "K": 1}, {"M": 16383, "N": 8191, "K": 8193}],
    "kernl_linear": [{"B": 1, "S": 1, "K": 1, "N": 1}, {"B": 8, "S": 2047, "K": 8192, "N": 8191}],
    "lmd_rms": [{"B": 1, "T": 3, "H": 4}, {"B": 8, "T": 65536, "H": 240}],
    "lmd_silu": [{"M": 3, "N": 5}, {"M": 262144, "N": 1000}],
    "flag_splitkv": [
        {"B": 1, "H": 2, "M": 1, "N": 3, "D": 16},
        {"B": 1, "H": 32, "M": 1, "N": 131071, "D": 128},
        {"B": 2, "H": 16, "M": 1023, "N": 4097, "D": 64},
    ],
}

#: d2's form (the cross-entropy backward's block and warps tabled over n_cols), a pick of that launch
GPU_XENT_BWD = {"BLOCK_SIZE": 512, "num_warps": 8}
GPU_XENT_SIZES = [{"N": 3, "V": 7}, {"N": 16384, "V": 16000}]


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_nineteenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: Dao's rotary
    through ``wrap_triton``, Dao's cross-entropy forward and backward through autograd, Dao's persistent layer-norm
    backward (settings-only autotune list, partial dw / db summed), the matmul tutorial's autotuned GEMM with a
    fused leaky ReLU, LMDeploy's persistent RMS norm and SiLU-and-mul (grids from the device's SM count),
    FlagAttention's split-kv decoding (its split merge kernel) and Kernl's pruned-list linear layer), each at 256 MB -
    1 GB a tensor, and the forms ``tune`` writes (:data:`GPU_PICKS`, d2's backward table), correct at sizes no
    entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import assert_correct, trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
    folder = Path(shutil.copytree(DATA / "dao_xent", tmp_path / "dao_xent_bwd"))
    text, note = _tune_edit(folder, GPU_XENT_BWD, "cross_entropy_bwd_kernel")
    assert text is not None, note
    written = tmp_path / "dao_xent_written.py"
    written.write_text(text)
    assert_correct(DATA / "dao_xent", GPU_XENT_SIZES, _outputs_checked, kernel_py=written)
