"""Issue 32's twenty-seventh held-out trial, as a new user runs it (tests/data/breaker27/README.md: four public Triton
kernels from xformers, torchao and flash-linear-attention: xformers' RMS norm and fused add + RMS norm, the residual
written back in place, the block computed in three statements; torchao's int8 matmul with a row scale, its settings a
``triton.Config`` OBJECT chosen by torchao's own search and splatted into the launch; fla's gated layer norm forward
and backward, one of two kernels by the row length, the backward persistent over the SM count; xformers' tiled
matmul, a 3 x 3 grid of tiles in one launch under a pruned autotune list whose split-K configs zero the outputs in a
``pre_hook`` a factory builds). Each finding is a test: each original once in Triton's interpreter at a small odd size
against its reference (``_all_correct``: NaN around the inputs and the outputs), the defect's own case, the forms
``tune`` writes for picks checked at sizes the ``SHAPES`` do not name, and the GPU test the lead's session runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gpu_correct import costly_picks
from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker27"

#: one small size each original has not been checked at, odd where the kernel allows it (torchao's K a multiple of
#: every BLOCK_K or odd: its EVEN_K is ``K % 2 == 0``; fla's D past 512 takes its row kernel, at or below its BT one)
SMALL: dict[str, dict[str, int]] = {
    "xf_rms_add": {"B": 1, "T": 3, "N": 129},
    "ao_int_scaled_mm": {"M": 17, "N": 20, "K": 33},
    "fla_norm_gate": {"T": 9, "D": 33},
    "xf_tiled_mm": {"M": 7, "N": 5, "K": 33},
}


@pytest.mark.timeout(180)
def test_each_original_is_right_at_a_small_odd_size() -> None:
    """The four kernels as their authors launch them, each once in the interpreter at a size no entry names
    (xformers' RMS norm then its fused add, which leaves ``x + y`` in ``x``; torchao's search over its eight configs
    and the launch of the one it keeps; fla's forward through its ``BT`` list and its backward, four programs off a
    GPU; xformers' tiled matmul over 2 x 2 tiles of uneven sizes through its pruned list, split-K included)."""
    for name, size in SMALL.items():
        _all_correct(DATA / name, [size])


# ------------------------------------------------------------------------------------- the defect


def _reversing_factory(*names: str) -> object:
    """A factory that does more than build its closure: its call is not known to rebuild what it returned."""
    names = names[::-1]

    def result(nargs: dict) -> tuple[str, ...]:
        return names

    return result


def test_q70_a_hook_its_factory_rebuilds_is_carried_and_a_tile_no_config_holds_is_not_given_another_s() -> None:
    """Seen on 2026-12-07: ``tunables`` and ``tune --device cpu`` on xf_tiled_mm (xformers' ``gen_config(...)``
    helper writing ``pre_hook=init_to_zero(*[f"C{i+1}{j+1}" ...]) if split_k > 1 else init_to_zero()``, a closure
    of a module-level factory) refused every knob of the list, "config 0 of TRITON_CONFIGS has a pre_hook that no
    module-level name of kernel.py defined above the decorator holds (a lambda or a closure)", and ``tune`` found no
    knob. The closure is the factory's call: its body only defines the closure and returns it, and the closure reads
    the factory's parameter alone, so ``init_to_zero('C11', ...)`` rebuilds it. And the configs' hooks DIFFER (the
    split-K ones zero the nine outputs their partials are added into): a pin took its hook from the autotuner's pick
    where no config held its tile, so a split-K tile pinned over a plain config would add into unzeroed outputs. A
    pick of a tile no config holds is refused where the hooks differ."""
    from kernelopt.tunables import AutotuneConfig, AutotuneSpace, TunableError, pin_configs
    from kernelopt.tunables.autotune_worker import _hook_name
    from kernelopt.tuning.kernel_evaluator import pin_base
    from tests.conftest import load_fresh, triton_interpreted

    with triton_interpreted():
        module = load_fresh(DATA / "xf_tiled_mm" / "kernel.py", "_breaker27_tiled")
    nine = ", ".join(f"'C{i}{j}'" for i in (1, 2, 3) for j in (1, 2, 3))
    hooks = [_hook_name(c.pre_hook) for c in module.TRITON_CONFIGS]
    assert hooks == ["init_to_zero()", "init_to_zero()", "init_to_zero()", f"init_to_zero({nine})"], hooks

    assert _hook_name(_reversing_factory("C11")) is None

    split = AutotuneConfig(kwargs={"BLOCK_M": 16, "SPLIT_K": 4}, pre_hook=True, pre_hook_name=f"init_to_zero({nine})")
    plain = AutotuneConfig(kwargs={"BLOCK_M": 64, "SPLIT_K": 1}, pre_hook=True, pre_hook_name="init_to_zero()")
    listed = AutotuneSpace(kernel="_xformers_tiled_matmul_kernel", configs=[plain, split], best_config=plain)
    assert pin_base(listed, {"BLOCK_M": 16, "SPLIT_K": 4, "num_warps": 8}) is split
    with pytest.raises(TunableError, match="carry different pre_hooks and none has the tile BLOCK_M=32, SPLIT_K=4"):
        pin_base(listed, {"BLOCK_M": 32, "SPLIT_K": 4})
    same = listed.model_copy(update={"configs": [plain, plain.model_copy(update={"kwargs": {"BLOCK_M": 32}})]})
    assert pin_base(same, {"BLOCK_M": 128, "SPLIT_K": 1}) is plain  # one hook for all: any tile takes it

    source = (DATA / "xf_tiled_mm" / "kernel.py").read_text()
    pinned = split.model_copy(update={"kwargs": {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4}})
    text = pin_configs(source, "_xformers_tiled_matmul_kernel", [pinned]).new_source or ""
    assert f"num_stages=3, pre_hook=init_to_zero({nine}))]" in text, text


def test_q71_a_config_object_the_caller_hands_in_is_named_as_such() -> None:
    """Seen on 2026-12-07: ``tunables`` and ``tune --device cpu`` on ao_int_scaled_mm (``num_warps=config.num_warps,
    ..., **config.kwargs`` at the launch, ``config`` a parameter of ``int_scaled_matmul_kernel``: the
    ``triton.Config`` torchao's own search picked from its module list) refused ``**config.kwargs`` as "its dict is
    built by code or changed after it is built ... build it from literals to tune them": no dict is built there. The
    settings are a ``Config`` object the caller hands in; the refusal says so, and where they could be tuned. A
    ``.kwargs`` of a local (a ``Config`` built in the launcher) keeps the old words."""
    from kernelopt.tunables.analysis import discover_source

    source = (DATA / "ao_int_scaled_mm" / "kernel.py").read_text()
    found = {t.key: t for t in discover_source(source)}
    why = found["scaled_matmul_kernel_with_block_pointers:**config.kwargs"].refused_reason or ""
    assert "passes the settings of config, a triton.Config the caller of int_scaled_matmul_kernel() hands in" in why
    local = source.replace("    M, K = a.shape\n    K, N = b.shape\n    grid = lambda", "    config = cfg(config)\n"
                           "    M, K = a.shape\n    K, N = b.shape\n    grid = lambda")  # fmt: skip
    assert local != source
    found = {t.key: t for t in discover_source(local)}
    why = found["scaled_matmul_kernel_with_block_pointers:**config.kwargs"].refused_reason or ""
    assert "cannot be read (its dict is built by code" in why, why


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for three of the trial's kernels when its session (a GPU's space) picks these, checked on the
#: GPU and written on the CPU too (:func:`test_the_gpu_picks_are_written_on_the_cpu`): xformers' RMS norm block a table
#: over the rows SHAPES name, computed past them (a loop step: any block covers the row); fla's ``BT`` list pinned to
#: one; xformers' tiled matmul pinned to its split-K tile, its nine outputs zeroed by the hook carried (q70)
GPU_PICKS = {
    "xf_rms_add": {"BLOCK_SIZE": 512},
    "fla_norm_gate": {"BT": 32},
    "xf_tiled_mm": {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 4, "GROUP_M": 8},
}

#: (folder, sizes) of the originals on the GPU: the small odd size and realistic ones (256 MB - 1 GB a tensor where
#: memory matters)
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "xf_rms_add": [SMALL["xf_rms_add"], {"B": 8, "T": 8192, "N": 4096}, {"B": 3, "T": 4097, "N": 11007}],
    "ao_int_scaled_mm": [
        SMALL["ao_int_scaled_mm"],
        {"M": 8192, "N": 8192, "K": 8192},
        {"M": 4097, "N": 3001, "K": 4095},
    ],
    "fla_norm_gate": [SMALL["fla_norm_gate"], {"T": 65536, "D": 512}, {"T": 32771, "D": 2049}],
    "xf_tiled_mm": [SMALL["xf_tiled_mm"], {"M": 8192, "N": 8192, "K": 4096}, {"M": 4099, "N": 2051, "K": 3001}],
}

#: past 2**31 elements: xformers' RMS norms offset each row by ``row * stride`` in int32 and torchao's store by ``N *
#: idx_m``: both wrong past 2**31 elements as written (17 GB of float32 and more; not asked here); fla's forward BT
#: kernel and xformers' tiled matmul reach rows through block pointers / strides times int32 program ids, alike

#: the written forms' sizes: none a SHAPES entry names, odd ones, past the tables' rows, realistic ones
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "xf_rms_add": [{"B": 1, "T": 7, "N": 9001}, {"B": 8, "T": 8192, "N": 4095}, {"B": 2, "T": 4097, "N": 16385}],
    "fla_norm_gate": [{"T": 33, "D": 129}, {"T": 65537, "D": 511}, {"T": 4097, "D": 2049}],
    "xf_tiled_mm": [{"M": 7, "N": 5, "K": 33}, {"M": 4099, "N": 2051, "K": 3001}, {"M": 8192, "N": 4096, "K": 4096}],
}


@costly_picks
@pytest.mark.timeout(300)
def test_the_gpu_picks_are_written_on_the_cpu(tmp_path: Path) -> None:
    """Every pick of the GPU test is written by the CPU's logic as the GPU test expects, and each written kernel holds
    in the interpreter at a size no entry names (odd sizes, one past a block, past a table's rows)."""
    from tests.gpu_correct import written_files, written_hold

    written = written_files(DATA, GPU_PICKS, tmp_path)
    rms = written["xf_rms_add"].read_text()
    assert "BLOCK_SIZE = 512" in rms and "kernelopt: tuned" in rms, rms
    gate = written["fla_norm_gate"].read_text()
    # the pick under the sizes checked, fla's list past them (late53 l230: late52's l220 refused the pinned list)
    assert '@triton.heuristics({"BT": lambda args: 32 if args["BD"] <= 256 else args["BT"]})' in gate, gate
    tiled = written["xf_tiled_mm"].read_text()
    assert "pre_hook=init_to_zero('C11', 'C12', 'C13', 'C21', 'C22', 'C23', 'C31', 'C32', 'C33')" in tiled, tiled
    small = {
        "xf_rms_add": [{"B": 1, "T": 2, "N": 9001}],  # past the table's row: the computation
        "fla_norm_gate": [{"T": 33, "D": 129}, {"T": 33, "D": 300}],  # one past 32 rows; past the entries' BD
        "xf_tiled_mm": [{"M": 17, "N": 33, "K": 65}],  # split-K over odd K tiles
    }
    written_hold(DATA, written, small, tmp_path, _all_correct)


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twenty_seventh_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the four originals (:data:`GPU_SIZES`: xformers' RMS norms
    over rows of 4096 and 11007; torchao's search and int8 matmul at 8192 cubed and at odd M / N with an odd K; fla's
    gated norm over 65536 rows of 512 (its BT kernel) and rows of 2049 (its row kernel), the backward over the SM
    count; xformers' tiled matmul at 8192 x 8192 x 4096 and odd sizes), and the forms ``tune`` writes
    (:data:`GPU_PICKS`), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`)."""
    from tests.gpu_correct import trial_holds
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    trial_holds(DATA, GPU_SIZES, GPU_PICKS, GPU_WRITTEN_SIZES, _outputs_checked, tmp_path)
