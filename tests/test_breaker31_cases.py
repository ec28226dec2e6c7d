"""Issue 32's thirty-first held-out trial, as a new user runs it (tests/data/breaker31/README.md: four Triton kernels
written for it, in forms people write and in no public file: a split-K GEMM with a second reduce kernel and its split
count from the SM count, a block-sparse matmul over a layout with its block a class attribute, a depthwise 1-D
convolution with its tile from a dict keyed by the filter's width, per-column statistics with a tile that the environment
may set). Each finding is a test: each original once in Triton's interpreter at a small odd size against its reference
(``_all_correct``: NaN around the inputs and the outputs), the defects' own cases, and the GPU test the lead's session
runs at realistic sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker31"

#: one small size each original has not been checked at, odd where the kernel allows it
SMALL: dict[str, dict[str, int]] = {
    "splitk_sms": {"M": 5, "N": 3, "K": 33},
    "bsmm_layout": {"M": 96, "K": 32, "N": 65},
    "dwconv_dict": {"B": 1, "C": 2, "L": 10, "KW": 11},
    "colstats_env": {"M": 17, "N": 33},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The four kernels as written, each once in the interpreter at a size no entry names (K one past a step, three
    columns; a row of 65 past BLOCK_N; a filter of 11 wider than no dict entry and the row; 33 columns past the band)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defects


def _dwconv(shapes: list[dict[str, int]], lookup: str = "_TILES.get(KW, _DEFAULT)") -> dict[str, Any]:
    """dwconv_dict's knobs (its settings looked up as ``lookup``), as a run of the task at ``shapes`` (each a filter
    width) would tell them."""
    from kernelopt.tunables.analysis import analyze
    from kernelopt.tunables.model import ShapeSizes

    tiles = {3: (512, 4), 5: (256, 4), 7: (256, 2)}
    told = [
        ShapeSizes(
            shape=s,
            launch_values={"_dwconv1d": dict(zip(("BLOCK_L", "num_warps"), tiles.get(s["KW"], (128, 2)), strict=True))},
        )
        for s in shapes
    ]
    source = (DATA / "dwconv_dict" / "kernel.py").read_text().replace("_TILES.get(KW, _DEFAULT)", lookup)
    first = told[0].launch_values if told else None
    return {t.key: t for t in analyze(source, "kernel.py", launch_values=first, shape_sizes=told)[2]}


def test_q110_settings_looked_up_with_get_and_a_default_are_read_as_a_dict_of_dicts() -> None:
    """Seen on 2026-12-07: dwconv_dict's ``cfg = _TILES.get(KW, _DEFAULT)`` splatted ``**cfg`` (module dicts of
    literals keyed by the filter's width): ``tunables`` listed ``_dwconv1d:**cfg`` "cannot be read (its dict is built
    by code or changed after it is built)": no code builds it. It is read as ``_TILES[KW]`` is, the default one more
    entry: without a run, "known only from a run"; where the SHAPES entries take one entry, that entry is the knob; where
    they take several (widths 3, 7, 9), each setting says one entry set alone changes some sizes only."""
    none = _dwconv([])
    assert "_dwconv1d:**cfg" not in none
    block = none["_dwconv1d:BLOCK_L"]
    assert "3: 512, 5: 256, 7: 256, default: 128" in (block.refused_reason or ""), block.refused_reason
    assert "known only from a run of the task" in (block.refused_reason or "")

    one = _dwconv([{"B": 1, "C": 3, "L": 700, "KW": 5}, {"B": 2, "C": 3, "L": 90, "KW": 5}])
    assert one["_dwconv1d:BLOCK_L"].refused_reason is None, one["_dwconv1d:BLOCK_L"].refused_reason
    assert one["_dwconv1d:BLOCK_L"].location == "kernel.py:27"  # entry 5's literal
    assert one["_dwconv1d:BLOCK_L"].value == 256

    many = _dwconv([{"B": 2, "C": 3, "L": 700, "KW": 3}, {"B": 1, "C": 5, "L": 300, "KW": 7}, {"KW": 9}])
    why = many["_dwconv1d:num_warps"].refused_reason or ""
    assert "the SHAPES entries take different ones by KW (3, 7, default)" in why, why


def test_q114_settings_bound_to_an_entry_of_a_dict_of_dicts_read_the_run() -> None:
    """Seen on 2026-12-07: dwconv_dict written ``cfg = _TILES[KW]`` then ``**cfg``: ``tunables --reference`` ran the
    task (at widths 3 and 7) and still said "the key in use (KW) is known only from a run of the task (give the
    reference)": the name's entry was read without the launch's kernel, so the run's values were never looked at
    (``**_TILES[KW]`` at the launch read them). They are: "the SHAPES entries take different ones by KW (3, 7)"."""
    many = _dwconv([{"B": 2, "C": 3, "L": 700, "KW": 3}, {"B": 1, "C": 5, "L": 300, "KW": 7}], "_TILES[KW]")
    why = many["_dwconv1d:BLOCK_L"].refused_reason or ""
    assert "the SHAPES entries take different ones by KW (3, 7)" in why, why
    one = _dwconv([{"B": 1, "C": 3, "L": 700, "KW": 5}], "_TILES[KW]")
    assert one["_dwconv1d:BLOCK_L"].refused_reason is None and one["_dwconv1d:BLOCK_L"].location == "kernel.py:27"


def test_q111_a_refused_guard_names_no_library_among_the_values_unknown_where_the_tile_is_set() -> None:
    """Seen on 2026-12-07: ``tune`` on splitk_sms set ``BLOCK_K=128`` aside, and ``tunables --set
    _splitk_partial:BLOCK_K=128`` said "... and split, triton is not known where BLOCK_K is set": ``triton`` is the
    module of the guard's ``triton.cdiv(K, split)``, known everywhere; only ``split`` (computed below the tile) is not."""
    from kernelopt.tunables.guard import guard_edit

    old = (DATA / "splitk_sms" / "kernel.py").read_text()
    new = old.replace("BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32", "BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 128")
    done = guard_edit(old, new)
    assert done.new_source is None
    assert "and split is not known where BLOCK_K is set" in (done.note or ""), done.note


def test_q112_a_gate_failing_rows_permuted_against_a_layout_says_how_to_give_each_seed_its_inputs() -> None:
    """Seen on 2026-12-07: ``optimize --device cpu`` on bsmm_layout stopped at V0, "baseline_failed ... seed 1: output
    differs ...; get_inputs() returns the same values for every seed and takes no seed, so this seed's floating-point
    inputs are seed 0's with their rows (first dimension) permuted (a vector in sorted order kept in it; where every
    input...": ``a``'s rows moved off the blocks its ``layout`` marks, a right kernel failing inputs the user never
    made, and the line, clipped there, said nothing of a way past it. The note says first: give ``get_inputs`` a seed
    (the rows permuted still before the clip: the CLI's line, tests/test_structured_inputs.py); with one, seed 1's
    inputs are its own, and agree."""
    import importlib.util

    import torch

    from kernelopt.harness.inputs import PERMUTED_NOTE, make_inputs, rerandomize, same_values

    def blocks_hold(inputs: list[torch.Tensor]) -> bool:
        a, _, layout = inputs
        mask = layout.repeat_interleave(32, 0).repeat_interleave(32, 1)
        return bool((a[~mask] == 0).all())

    text = (DATA / "bsmm_layout" / "reference.py").read_text()
    seeded = text.replace('device="cpu"):', 'device="cpu", seed=0):').replace(".manual_seed(M", ".manual_seed(seed + M")
    refs = []
    for name, source in (("fixed", text), ("seeded", seeded)):
        spec = importlib.util.spec_from_loader(name, loader=None)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        exec(compile(source, name, "exec"), module.__dict__)  # the trial's own reference, as it is
        refs.append(module)
    shape = {"M": 160, "K": 64, "N": 16}
    first = make_inputs(refs[0].get_inputs, shape, "cpu", 0)
    assert same_values(first, make_inputs(refs[0].get_inputs, shape, "cpu", 1))  # the same: the gate permutes them
    assert not blocks_hold(rerandomize(first, 1))  # ... off the layout's blocks
    assert PERMUTED_NOTE.index("(give it one where rows must agree across inputs)") < 40  # before the line's clip
    own = make_inputs(refs[1].get_inputs, shape, "cpu", 1)
    assert not same_values(first, own) and blocks_hold(own)


def test_q113_a_default_the_environment_overrides_in_the_run_is_no_knob() -> None:
    """Seen on 2026-12-07: colstats_env's ``BLOCK_N = int(os.environ.get("COLSTATS_BLOCK_N", "32"))`` with
    ``COLSTATS_BLOCK_N=64`` set: ``tunables --reference`` listed ``BLOCK_N`` 32, editable, and ``tune`` searched it, each
    value it tried running at the variable's 64 (the edit moves the default, which the variable overrides). An
    environment default asks for the task's run, and where its launch received another value it is no knob, said."""
    from kernelopt.tunables.analysis import analyze
    from kernelopt.tunables.evaluate import needs_values

    source = (DATA / "colstats_env" / "kernel.py").read_text()
    assert needs_values(source)  # the run tells whether the variable is set

    def block_n(received: int) -> str | None:
        told = {"_colstats": {"BLOCK_N": received, "BLOCK_M": 16}}
        return {t.key: t for t in analyze(source, "kernel.py", launch_values=told)[2]}["BLOCK_N"].refused_reason

    assert block_n(32) is None  # unset: the default is what runs, a knob
    why = block_n(64) or ""
    assert "BLOCK_N = 32 is the default of the environment variable read at line 12, and the variable is set" in why
    assert "its launch received 64" in why, why


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for the trial's kernels when its session picks these (the CPU sessions' own bests: splitk_sms'
#: rows of 32, colstats_env's 128 x 128 (written on the CPU, the environment's default moved), bsmm_layout's 128
#: columns), checked on the GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`);
#: dwconv_dict's settings are no knob once a run tells the widths take different entries (q110)
GPU_PICKS = {
    "splitk_sms": {"BLOCK_M": 32},
    "bsmm_layout": {"BLOCK_N": 128},
    "colstats_env": {"BLOCK_M": 128, "BLOCK_N": 128},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (256 MB - 1 GB a tensor)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    # tall K: 128 x 2**20 fp16 (256 MB) by 2**20 x 128; 16 x 65537 by 65537 x 4096 (512 MB); 8192 cubed (128 MB each)
    "splitk_sms": [SMALL["splitk_sms"], {"M": 128, "N": 128, "K": 1 << 20}, {"M": 16, "N": 4096, "K": 65537},
                   {"M": 8192, "N": 8192, "K": 8192}],
    # 16384 x 16384 fp16 (512 MB, a third of its blocks) by 16384 x 1024; 4096 x 32768 (256 MB) by 32768 x 4097
    "bsmm_layout": [SMALL["bsmm_layout"], {"M": 16384, "K": 16384, "N": 1024}, {"M": 4096, "K": 32768, "N": 4097}],
    # 16 x 1024 x 16384 fp32 (1 GB), width 3; 3 x 4097 x 20001 (983 MB), width 9 (the default entry); width 7
    "dwconv_dict": [SMALL["dwconv_dict"], {"B": 16, "C": 1024, "L": 16384, "KW": 3},
                    {"B": 3, "C": 4097, "L": 20001, "KW": 9}, {"B": 8, "C": 512, "L": 65537, "KW": 7}],
    # 2**20 rows of 256 fp32 (1 GB); 65537 rows of 4099 (1.07 GB)
    "colstats_env": [SMALL["colstats_env"], {"M": 1 << 20, "N": 256}, {"M": 65537, "N": 4099}],
}  # fmt: skip

#: the written forms' sizes: none a SHAPES entry names, odd ones, realistic ones
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "splitk_sms": [{"M": 33, "N": 65, "K": 4097}, {"M": 128, "N": 128, "K": 1 << 20}],
    "bsmm_layout": [{"M": 96, "K": 64, "N": 129}, {"M": 16384, "K": 16384, "N": 1024}],
    "colstats_env": [{"M": 129, "N": 257}, {"M": 65537, "N": 4099}],
}


@costly_picks
@pytest.mark.timeout(400)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic, and each written kernel holds in the interpreter at a
    size no entry names (M one past a tile of 32, a row past 128 columns, a band past 128 columns)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    assert '"COLSTATS_BLOCK_N", "128"' in written["colstats_env"].read_text()
    small = {
        "splitk_sms": [{"M": 33, "N": 5, "K": 100}],
        "bsmm_layout": [{"M": 64, "K": 64, "N": 129}],
        "colstats_env": [{"M": 129, "N": 130}],
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_thirty_first_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the four originals (:data:`GPU_SIZES`: a split-K GEMM over
    K = 2**20, a block-sparse matmul over 512 MB, a depthwise convolution over 1 GB, column statistics over 1 GB; each
    also at odd sizes), and the forms ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no entry names
    (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
