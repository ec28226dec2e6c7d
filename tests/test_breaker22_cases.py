"""Issue 32's twenty-second held-out trial, as a new user runs it (tests/data/breaker22/README.md: eight public Triton
kernels from NVIDIA's Megatron-LM, Kakao Brain's trident, flash-linear-attention, Liger-Kernel, xformers and AMD's
AITER, two of them with their settings in JSON files keyed by the device). Each finding is a test: each original once
in Triton's interpreter at a small odd size against its reference (``_all_correct``: NaN around the inputs and the
outputs), the defects' own cases, the forms ``tune`` writes for picks checked at sizes the ``SHAPES`` do not name,
and the GPU test the lead's session runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker22"

#: one small size each original has not been checked at, odd where the kernel allows it (Megatron's MLA RoPE keeps a
#: power-of-two head count and emb_dim: its head mask is right only where the block divides the heads or covers them,
#: and its rope part is one ``tl.arange(0, emb_dim // 2)``)
SMALL: dict[str, dict[str, int]] = {
    "mg_pad_routing": {"T": 13, "E": 3},
    "mg_mla_rope": {"S": 3, "B": 1, "H": 2, "NOPE": 3, "EMB": 8},
    "trident_cos": {"B": 1, "T": 3, "D": 5},
    "fla_kda_gate": {"B": 1, "T": 5, "H": 2, "K": 12},
    "mg_bi_matmul": {"M": 5, "N": 7, "K": 9},
    "liger_llama4_rope": {"B": 1, "S": 3, "HQ": 3, "HK": 1, "D": 10},
    "xf_scaled_index_add": {"N": 5, "S": 3, "R": 2, "C": 7},
    "aiter_gemm": {"M": 5, "N": 7, "K": 9},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The eight kernels as their authors launch them, each once in the interpreter at a size no entry names (fla's
    gate through its JSON file's entry for the CPU, AITER's GEMM through its file's ``M_LEQ_16`` bucket)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defects


def test_p1_a_project_s_own_autotune_decorator_is_an_autotune() -> None:
    """Seen on 2026-12-07: fla_kda_gate, flash-linear-attention's KDA gate under ``@fla_cache_autotune(configs=[24
    configs by a comprehension], key=["H", "D"], **autotune_cache_kwargs)``, FLA's function returning a decorator that
    builds its ``CachedAutotuner`` (a subclass of Triton's ``Autotuner``). A decorator was Triton's only by its last
    name (or a module-level alias of one): the list was no knob, the launch's ``num_warps`` / ``num_stages`` were
    listed as Triton's defaults (which the list sets), and ``tune`` of a copy without the JSON files exited 2 "no
    tunable knob". A module-level function that makes an instance of a class of the file subclassing ``Autotuner``, or
    calls ``autotune``, is an autotune decorator: the list is read (built by code: evaluated in a worker), and the
    launch options are the list's."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.decorator_words import decorator_aliases
    from kernelopt.tunables.syntax import parsed

    text = (DATA / "fla_kda_gate" / "kernel.py").read_text()
    assert decorator_aliases(parsed(text).module) == {"fla_cache_autotune": "autotune"}
    found = {t.key: t for t in discover_source(text)}
    assert "kda_gate_fwd_kernel.configs" in found, sorted(found)
    assert "built by code" in (found["kda_gate_fwd_kernel.configs"].refused_reason or ""), found
    assert "kda_gate_fwd_kernel:num_warps" not in found and "kda_gate_fwd_kernel:num_stages" not in found
    wrapper = "def my_autotune(configs, key):\n    return triton.autotune(configs, key)\n"
    helper = "def configs():\n    return [triton.Config({'BLOCK': b}) for b in (64, 128)]\n"
    assert decorator_aliases(parsed(f"import triton\n\n{wrapper}\n{helper}").module) == {"my_autotune": "autotune"}


def test_p1_the_pinned_pick_keeps_the_project_s_decorator(tmp_path: Path) -> None:
    """p1's list on a copy without the JSON files (FLA's default, no tuned files shipped): ``tune``'s pick raising
    ``BT`` beside the head's ``BD`` is written as a ``@triton.heuristics`` under ``@fla_cache_autotune`` (late55's
    l250), right within its bound and past it (FLA's list, autotuned); a pick raising no tile is written
    as a one-config list inside ``@fla_cache_autotune(...)``, its key and ``**autotune_cache_kwargs`` kept, right at
    sizes no entry names (Triton's ``Autotuner.run`` of one config never reads the cache the JSON lookup fills)."""
    from tests.test_breaker_cases import _tune_edit

    folder = tmp_path / "fla_kda_gate"
    folder.mkdir()
    for name in ("kernel.py", "reference.py"):
        shutil.copy(DATA / "fla_kda_gate" / name, folder / name)
    # a pin raising BT above the list's least (32) beside BD, a size of the problem, has no launch to be bounded at:
    # set under the bound by a heuristic under FLA's autotuner, whose CachedAutotuner runs the kernel as Triton's does
    # (late55 l250; before, refused as the project's own: late52's l220 refuses a list of one config raising it)
    bounded, why = _tune_edit(folder, {"BT": 128, "num_warps": 8, "num_stages": 2})
    assert bounded is not None and 'BT=128, num_warps=8, num_stages=2 only where args["BD"] <= 64' in (why or ""), why
    assert '    **autotune_cache_kwargs,\n)\n@triton.heuristics({\n    "BT": lambda args: 128 if' in bounded, bounded
    (folder / "kernel.py").write_text(bounded)
    _all_correct(folder, [{"B": 1, "T": 129, "H": 3, "K": 20}, {"B": 1, "T": 70, "H": 2, "K": 100}])  # BD 32, 128
    shutil.copy(DATA / "fla_kda_gate" / "kernel.py", folder / "kernel.py")
    written, note = _tune_edit(folder, {"BT": 32, "num_warps": 8, "num_stages": 2})
    assert written is not None, note
    assert (
        '@fla_cache_autotune(\n    configs=[triton.Config({"BT": 32}, num_warps=8, num_stages=2)],\n'
        '    key=["H", "D"],\n    **autotune_cache_kwargs,\n)' in written
    ), written
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"B": 1, "T": 129, "H": 3, "K": 20}])


def test_p2_a_folder_named_after_a_folder_computed_at_run_time_is_refused(tmp_path: Path) -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on aiter_gemm, AMD AITER's GEMM, whose settings are JSON files under
    ``AITER_TRITON_CONFIGS_PATH = os.path.abspath(f"{this_dir}/configs")`` (then ``f"{...}/gemm"`` and the file's
    name). A folder beside kernel.py was a read only where it was joined to more by ``/`` or ``os.path.join``, so
    the f-string's folder escaped ``folder_files``: the session ran, every candidate raised "AssertionError: Required
    config file doesn't exist" in its own folder, "no candidate ran", exit 1. A folder beside kernel.py named after
    a folder computed at run time is a read too: refused in one line before anything runs, as fla's ``configs`` (a
    ``/`` join) was."""
    from kernelopt.errors import InputFileError
    from kernelopt.kernelsource import KernelForm, check_kernel, folder_files

    assert folder_files(DATA / "aiter_gemm" / "kernel.py") == [("configs", 39)]
    with pytest.raises(InputFileError, match=r"reads configs \(line 39\) from its own folder"):
        check_kernel(DATA / "aiter_gemm" / "kernel.py", KernelForm.FUNCTION)
    kernel = tmp_path / "kernel.py"
    kernel.write_text(
        'import os\nhere = os.path.dirname(__file__)\nTABLES = f"{here}/tables"\n\n\ndef run(x):\n    return x\n'
    )
    assert folder_files(kernel) == []  # no such folder beside it
    (tmp_path / "tables").mkdir()
    assert folder_files(kernel) == [("tables", 3)]


def test_p3_a_multiple_the_result_is_padded_to_is_no_knob() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` on mg_pad_routing, Megatron's ``fused_pad_routing_map``, whose kernel
    takes ``pad_multiple: tl.constexpr`` (each expert's token count padded up to a multiple of it, 16 from ``run``):
    it was tuned as a power of two 4..64 beside the block, and 8 of the session's 10 candidates failed their check
    ("output differs from the reference beyond tolerance (36 of 320 elements ...)"). A name ending in ``multiple`` is
    a value the computation reads, as ``SCALE`` / ``EPS`` / ``SEED`` are: listed as semantic, never edited; the
    row's one block (``BLOCK_SIZE = triton.next_power_of_2(num_tokens)``) is still the knob."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.knobs import semantic_reason

    assert "a multiple to pad to" in (semantic_reason("pad_multiple", 16) or "")
    assert semantic_reason("BLOCK_SIZE", 512) is None
    found = {t.key: t for t in discover_source((DATA / "mg_pad_routing" / "kernel.py").read_text())}
    assert found["_pad_routing_map_kernel:pad_multiple"].semantic, found
    assert found["_pad_routing_map_kernel:BLOCK_SIZE"].computed, found


def test_p4_a_candidate_whose_broadcast_tile_passes_triton_s_limit_is_never_proposed() -> None:
    """Seen on 2026-12-07: ``tune --device cpu`` (240 s) on xf_scaled_index_add, xformers' scaled index add, whose
    three blocks are laid along three axes of one tile (``source_indices[:, None, None]``, ``rows[None, :, None]``,
    ``cols[None, None, :]``). The fit rules bounded each block alone: the session proposed ``BLOCK_SIZE_INDEX=128,
    BLOCK_SIZE_ROW=512, BLOCK_SIZE_COL=64``, whose tile of 4194304 values failed at once ("numel (4194304) exceeds
    triton maximum tensor numel (1048576)"), a run_error of the session. Each tile the kernel's body builds of knobs
    and integers is held to Triton's limit (847 -> 637 of 3757 configurations fit at its entries)."""
    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tunables.tile_numel import kernel_tiles
    from kernelopt.tuning.launch import space_from_tunables

    text = (DATA / "xf_scaled_index_add" / "kernel.py").read_text()
    assert kernel_tiles(text, "scaled_index_add_fwd_kernel") == (
        ("BLOCK_SIZE_INDEX", "BLOCK_SIZE_ROW", "BLOCK_SIZE_COL"),
    )
    space = space_from_tunables(discover_source(text), source=text)
    now = space.current()
    assert now is not None and space.fit_problems(now) == ()
    assert space.fit_problems(
        now.with_values({"BLOCK_SIZE_INDEX": 128, "BLOCK_SIZE_ROW": 512, "BLOCK_SIZE_COL": 64})
    ) == (
        "a tile of BLOCK_SIZE_INDEX=128 x BLOCK_SIZE_ROW=512 x BLOCK_SIZE_COL=64 holds 4194304 values, past Triton's "
        "1048576",
    )
    assert (
        space.fit_problems(now.with_values({"BLOCK_SIZE_INDEX": 16, "BLOCK_SIZE_ROW": 64, "BLOCK_SIZE_COL": 1024}))
        == ()
    )


def test_p5_a_parameter_computed_in_one_branch_is_tuned_in_that_branch() -> None:
    """Seen on 2026-12-07: the form ``tune`` writes for liger_llama4_rope, Liger's Llama 4 RoPE, whose launcher takes
    ``BLOCK_SIZE: int = None`` and computes it only ``if BLOCK_SIZE is None:`` (``BLOCK_SIZE, num_warps =
    _select_kernel_meta(head_dim_half)``; a caller's pinned block is kept in the ``else``). The table ``if
    head_dim_half <= 100:  # kernelopt: tuned`` was written after the whole ``if`` / ``else``: below 100 half-dimensions
    it overrode a caller's pinned block, a path the original leaves to the caller (vLLM's ``scaled_mm`` the same:
    ``use_heuristic=False`` with the caller's tiles). A parameter computed in a branch only gets its tuned lines right
    after that computation in its branch; a setting computed on every path (``num_warps`` here) keeps its table after
    the branches."""
    from kernelopt.tunables.edit import write_table
    from kernelopt.tunables.model import Bucket, TunedTable

    source = (DATA / "liger_llama4_rope" / "kernel.py").read_text()
    table = TunedTable(size="head_dim_half", buckets=[Bucket(upto=100, values={"BLOCK_SIZE": 32})])
    written = write_table(source, table, kernel="_llama4_rope_kernel").new_source or ""
    assert (
        "    if BLOCK_SIZE is None:\n        BLOCK_SIZE, num_warps = _select_kernel_meta(head_dim_half)\n"
        "        if head_dim_half <= 100:  # kernelopt: tuned\n            BLOCK_SIZE = 32\n    else:\n"
    ) in written, written
    warps = TunedTable(size="head_dim_half", buckets=[Bucket(upto=100, values={"num_warps": 8})])
    written = write_table(source, warps, kernel="_llama4_rope_kernel").new_source or ""
    assert "        _, num_warps = _select_kernel_meta(head_dim_half)\n    if head_dim_half <= 100:" in written, written


def test_p6_a_list_entry_the_fit_refuses_leaves_the_list_judged_by_its_others() -> None:
    """Seen on 2026-12-07: ``tune --device cpu --budget-wall-s 420`` on mg_mla_rope, Megatron's MLA RoPE, whose list
    holds ``BLOCK_H`` 1 to 128 keyed on ``["emb_dim", "head_num"]``. At entries of 2 to 16 heads (and 33 positions)
    the space's fit refuses 128 ("larger than the problem"), and one entry that is no configuration of the space made
    the whole list no list: the session's current was the list's first entry, "current BLOCK_H=1, 4163000 us" for the
    three entries, where the list as written runs its autotuner's pick (16 at 33 positions x 16 heads: 0.14 s a call
    against BLOCK_H=1's 3.9 s in the interpreter), and any pick would have been called about 27x faster. An entry
    the fit refuses is left out and said; the list is judged by its other entries' fastest at each shape."""
    from types import SimpleNamespace

    from kernelopt.tunables.analysis import discover_source
    from kernelopt.tuning.folder import list_configs, list_note
    from kernelopt.tuning.launch import space_from_tunables

    text = (DATA / "mg_mla_rope" / "kernel.py").read_text()
    sizes = {"S": 33, "B": 3, "H": 16, "NOPE": 32, "EMB": 32}
    space = space_from_tunables(discover_source(text), source=text, problem_sizes=sizes)
    assert space.fit_rules == ("tile <= problem: BLOCK_H <= 64",), space.fit_rules
    entries = [SimpleNamespace(knob_values=lambda b=b: {"BLOCK_H": b}) for b in (1, 2, 4, 8, 16, 32, 64, 128)]
    listed = SimpleNamespace(configs=entries, key=["emb_dim", "head_num"])
    prepared = SimpleNamespace(keyed_list=listed, space=space, budget=SimpleNamespace(candidates=lambda n: 24))
    assert [c.as_dict()["BLOCK_H"] for c in list_configs(prepared)] == [1, 2, 4, 8, 16, 32, 64]  # type: ignore[arg-type]
    assert list_note(prepared) == (  # type: ignore[arg-type]
        "the keyed list's BLOCK_H=128 (BLOCK_H=128 > 64: larger than the problem): never timed here, so the current "
        "latency at each shape is the fastest of its other configurations'"
    )


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): xformers' literal blocks under
#: the grid's 65535 guard, Liger's helper-computed block as a table over the half head size, the batch-invariant
#: GEMM's float32 entry of its dict by dtype (trident's wrapper list is pinned by the GPU phase's own tune: its
#: preparation here runs eight configs at each entry, 25 s)
GPU_PICKS = {
    "xf_scaled_index_add": {"BLOCK_SIZE_INDEX": 4, "BLOCK_SIZE_ROW": 2, "BLOCK_SIZE_COL": 256},
    "liger_llama4_rope": {"BLOCK_SIZE": 32, "num_warps": 4},
    "mg_bi_matmul": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (128 MB - 1 GB a tensor where
#: memory matters; AITER's GEMM once split along K by its H100 / H200 file's M_LEQ_16 bucket)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "mg_pad_routing": [SMALL["mg_pad_routing"], {"T": 8192, "E": 128}],
    "mg_mla_rope": [SMALL["mg_mla_rope"], {"S": 4096, "B": 4, "H": 32, "NOPE": 128, "EMB": 64}],
    "trident_cos": [SMALL["trident_cos"], {"B": 8, "T": 4096, "D": 4096}],
    "fla_kda_gate": [SMALL["fla_kda_gate"], {"B": 8, "T": 8192, "H": 16, "K": 128}],
    "mg_bi_matmul": [SMALL["mg_bi_matmul"], {"M": 4096, "N": 4096, "K": 4096}],
    "liger_llama4_rope": [SMALL["liger_llama4_rope"], {"B": 4, "S": 4096, "HQ": 32, "HK": 8, "D": 128}],
    "xf_scaled_index_add": [SMALL["xf_scaled_index_add"], {"N": 4096, "S": 2048, "R": 64, "C": 1024}],
    "aiter_gemm": [SMALL["aiter_gemm"], {"M": 1, "N": 4096, "K": 8192}, {"M": 8192, "N": 8192, "K": 8192}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones, realistic ones, and the batch-invariant GEMM's A of
#: 524289 x 4096 = 2**31 + 4096 elements (its ``A_LARGE`` int64 offsets kept under the pinned tiles)
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "xf_scaled_index_add": [{"N": 7, "S": 5, "R": 3, "C": 257}, {"N": 4097, "S": 4095, "R": 63, "C": 1025}],
    "liger_llama4_rope": [
        {"B": 1, "S": 5, "HQ": 5, "HK": 1, "D": 202},
        {"B": 2, "S": 4095, "HQ": 40, "HK": 8, "D": 128},
    ],
    "mg_bi_matmul": [{"M": 1, "N": 1, "K": 1}, {"M": 8191, "N": 8193, "K": 4095}, {"M": 524289, "N": 64, "K": 4096}],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects (breaker19's GPU test failed on
    2026-12-06 on a pick the CPU logic no longer wrote), and each written kernel holds in the interpreter at a size no
    entry names (odd sizes, one past a block)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    index_add = written["xf_scaled_index_add"].read_text()
    assert "    if num_cols <= 256 * 65535:  # kernelopt: tuned\n" in index_add, index_add
    rope = written["liger_llama4_rope"].read_text()  # p5: the block's table in its branch, a pinned block kept
    assert (
        "        BLOCK_SIZE, num_warps = _select_kernel_meta(head_dim_half)\n"
        "        if head_dim_half <= 100:  # kernelopt: tuned\n            BLOCK_SIZE = 32\n    else:\n" in rope
    ), rope
    assert "    if head_dim_half <= 100:  # kernelopt: tuned\n        num_warps = 4\n" in rope, rope
    gemm = written["mg_bi_matmul"].read_text()
    assert 'torch.float32: {\n            "BLOCK_SIZE_M": 64,\n' in gemm, gemm
    assert "A_LARGE=a.numel() > 2**31," in gemm, gemm
    small = {
        "xf_scaled_index_add": [{"N": 7, "S": 5, "R": 3, "C": 257}],
        "liger_llama4_rope": [{"B": 1, "S": 2, "HQ": 3, "HK": 1, "D": 202}],
        "mg_bi_matmul": [{"M": 65, "N": 129, "K": 33}],
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_second_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals (:data:`GPU_SIZES`: Megatron's routing
    map padding, MLA RoPE in place through its autotune list, and batch-invariant persistent GEMM; trident's cosine
    similarity through its autotune wrapper; fla's KDA gate through its JSON file for the GPU's name; Liger's Llama 4
    RoPE in place; xformers' scaled index add in place; AITER's GEMM through its JSON files for the GPU's
    architecture, split along K at one row), and the forms ``tune`` writes (:data:`GPU_PICKS`), correct at sizes no
    entry names (:data:`GPU_WRITTEN_SIZES`, one past 2**31 elements)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
