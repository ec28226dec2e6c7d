"""The twelfth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker12
is a public Triton kernel written for the trial in a form the first eleven trials did not try (its README lists
them). What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES``
entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the
middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_breaker7_cases import _all_correct

DATA = Path(__file__).parent / "data" / "breaker12"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


# ------------------------------------------------------------------------------------- knobs found


def test_a_dict_of_settings_bound_in_each_branch_is_read_as_its_settings() -> None:
    """Seen on 2026-12-06: liger_dyt, Liger-Kernel's DyT forward, binds its launch settings to a dict literal in each
    branch, ``kwargs = {"BLOCK_N": min(next_power_of_2(N), 2048), "num_warps": 4, "num_stages": 1}`` under ``if N >=
    4096:`` and the same keys with a cap of 1024 under ``else:``, then launches with ``**kwargs``. ``tune`` exited 2
    "no tunable knob: ... the argument **kwargs cannot be read (its dict is built by code or changed after it is
    built)". A dict literal bound in each branch with the same keys gives its settings, each computed and tuned
    after the ``if`` by the sizes the branches read, as a settings helper's dict is; keys that differ by branch
    are still refused, by name."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "liger_dyt" / "kernel.py").read_text())}
    for name in ("BLOCK_N", "num_warps", "num_stages"):
        knob = found[f"_dyt_fwd_kernel:{name}"]
        assert knob.editable and knob.size_names == ["N"], knob
    differ = (
        (DATA / "liger_dyt" / "kernel.py")
        .read_text()
        .replace('"num_warps": 4, "num_stages": 1}\n    else', '"num_warps": 4}\n    else')
    )
    refused = {t.key: t for t in discover_source(differ)}["_dyt_fwd_kernel:**kwargs"]
    assert not refused.editable and "keys differ" in (refused.refused_reason or ""), refused


@pytest.mark.timeout(180)
def test_a_table_of_settings_of_a_dict_bound_in_branches_is_correct_at_other_sizes(tmp_path: Path) -> None:
    """The table ``tune`` writes for liger_dyt after the rule above: ``if N <= 5000:  # kernelopt: tuned`` after the
    ``if`` / ``else``, the dict copied (``kwargs = dict(kwargs)``) and its entries set, the branches' dict the
    fallback; the grid's ``meta["BLOCK_N"]`` follows. Correct at sizes no entry names, odd ones and one above."""
    from tests.test_breaker_cases import _tune_edit

    folder = _copy("liger_dyt", tmp_path)
    written, note = _tune_edit(folder, {"BLOCK_N": 256, "num_warps": 4, "num_stages": 1}, current=True)
    assert written is not None, note
    assert (
        '    if N <= 5000:  # kernelopt: tuned\n        kwargs = dict(kwargs)\n        kwargs["BLOCK_N"] = 256\n'
        in written
    )
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"B": 1, "T": 3, "N": 5001}, {"B": 2, "T": 1, "N": 77}, {"B": 1, "T": 1, "N": 1}])


def _gemlite_pinned() -> tuple[str, str]:
    """GemLite's kernel.py and what pinning one config writes (the list's configs read back by an import)."""
    from kernelopt.tunables.edit import keep_pruned_fallback, pin_configs
    from kernelopt.tunables.evaluate import evaluate_autotune
    from kernelopt.tunables.model import AutotuneConfig

    source = (DATA / "gemlite_gemv" / "kernel.py").read_text()
    evaluation = evaluate_autotune(DATA / "gemlite_gemv" / "kernel.py", device="cpu")
    pick = AutotuneConfig(
        kwargs={"BLOCK_SIZE_M": 1, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32}, num_warps=4, num_stages=2, pre_hook=True
    )
    pinned = pin_configs(source, "gemv_A16fWnO16f_int32packing_kernel", [pick], evaluation=evaluation).new_source
    kept = keep_pruned_fallback(source, pinned, "gemv_A16fWnO16f_int32packing_kernel")
    assert kept is not None
    return source, kept[0]


def test_a_pre_hook_every_config_builds_by_one_call_is_carried_into_the_pinned_list() -> None:
    """Seen on 2026-12-06: gemlite_gemv, GemLite's int4 GEMV, builds its autotune list in ``get_autotune_config()``
    with ``pre_hook=init_to_zero("c_ptr")`` in every ``triton.Config`` (the output is ``torch.empty``: each config
    zeroes it before the split-K ``tl.atomic_add``). ``tunables`` refused every config, "a pre_hook that no
    module-level name of kernel.py defined above the decorator holds (a lambda or a closure)": the closure has no
    name, but the call that builds it does. A hook every config of a list built by code writes as the same call of
    a module-level function with literal arguments is carried as written into the pinned list; a lambda is not."""
    from kernelopt.tunables import discover_source
    from kernelopt.tunables.evaluate import evaluate_autotune

    source, written = _gemlite_pinned()
    evaluation = evaluate_autotune(DATA / "gemlite_gemv" / "kernel.py", device="cpu")
    listed = [t for t in discover_source(source, evaluation=evaluation) if ".configs[" in t.key]
    assert listed and all(t.editable for t in listed), [t.refused_reason for t in listed][:1]
    assert 'num_warps=4, num_stages=2, pre_hook=init_to_zero("c_ptr")),' in written, written
    other = source.replace('pre_hook=init_to_zero("c_ptr"),', 'pre_hook=lambda nargs: nargs["c_ptr"].zero_(),')
    assert not any(t.editable for t in discover_source(other, evaluation=evaluation) if ".configs[" in t.key)


def test_a_tuned_list_behind_a_prune_that_yields_new_configs_keeps_a_config_at_every_size(tmp_path: Path) -> None:
    """The list ``tune`` writes for gemlite_gemv: the tuned config first, the originals after, and GemLite's
    ``early_config_prune`` wrapped so the tuned config alone runs where the prune keeps it. GemLite's prune is a
    generator that yields a new ``triton.Config`` for each config it keeps (clamping ``BLOCK_SIZE_K`` to the
    group): the wrapper took the tuned ones by identity from the generator, then returned the generator it had used
    up, and the autotuner failed "min() arg is an empty sequence" at every size (the written kernel checked at
    M=3,N=77,K=320 and M=1,N=1,K=64). The prune's result is listed first and a tuned config is known by identity or
    by its values: the tuned one alone where the prune keeps it as it is, the prune's configs elsewhere."""
    from tests.conftest import load_fresh, triton_interpreted

    _, written = _gemlite_pinned()
    assert "kept = list(kernel_config_pruner([*head, *rest], named_args, **kwargs))" in written, written
    path = tmp_path / "kernel.py"
    path.write_text(written)
    with triton_interpreted():
        module = load_fresh(path, "_b12_gemlite_written")
    kernel = module.gemv_A16fWnO16f_int32packing_kernel
    wrapper = module._gemv_A16fWnO16f_int32packing_kernel_tuned_first
    sizes = {"M": 1, "N": 200, "K": 256, "group_size": 64, "elements_per_sample": 8}
    alone = wrapper(kernel.configs, sizes)
    assert [c.all_kwargs() for c in alone] == [kernel.configs[0].all_kwargs()]
    narrow = wrapper(kernel.configs, {**sizes, "N": 40, "group_size": 16})  # the prune rewrites the tuned config
    assert narrow and all(c.kwargs["BLOCK_SIZE_K"] == 16 and c.kwargs["BLOCK_SIZE_N"] == 64 for c in narrow)


SHARED = """import torch
import triton
import triton.language as tl


@triton.jit
def _add(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    p = rm[:, None] * N + rn[None, :]
    tl.store(y_ptr + p, tl.load(x_ptr + p, mask=m) + 1, mask=m)


def run(x):
    M, N = x.shape
    y = torch.empty_like(x)
    BLOCK = 32
    _add[(triton.cdiv(M, BLOCK), triton.cdiv(N, BLOCK))](x, y, M, N, BLOCK_M=BLOCK, BLOCK_N=BLOCK)
    return y
"""


def test_a_grid_dividing_by_a_setting_it_passes_is_no_stale_copy_of_another_tile() -> None:
    """Seen on 2026-12-06: lora_shrink, vLLM's punica LoRA shrink, binds ``BLOCK_M = 32``, ``BLOCK_N = 16``,
    ``BLOCK_K = 32``, ``SPLIT_K = 8`` and launches ``(cdiv(max_seq_length, BLOCK_M) * cdiv(N, BLOCK_N), SPLIT_K,
    batches)``. ``tune`` set aside every candidate whose BLOCK_M took another tile's old value, "BLOCK_N=32 moves the
    tile from 16, but line 107 still divides by 16 (triton.cdiv(max_seq_length, BLOCK_M), BLOCK_M = 16): a copy of
    the tile's value" (and "BLOCK_N * SPLIT_K moves from 128 ..." where BLOCK_M was 128): the divisor is BLOCK_M
    itself, which the launch passes as its own setting and the edit moves with it. A name a launch passes as one
    setting of its own, before and after the edit, is that setting; a name two settings share is still a copy."""
    from kernelopt.tunables.guard import guard_edit

    old = (DATA / "lora_shrink" / "kernel.py").read_text()
    new = old.replace("    BLOCK_M = 32\n    BLOCK_N = 16\n", "    BLOCK_M = 16\n    BLOCK_N = 32\n")
    assert "still divides" not in (guard_edit(old, new).note or "")
    shared = SHARED.replace("BLOCK_N=BLOCK)", "BLOCK_N=64)")
    refused = guard_edit(SHARED, shared)
    assert refused.new_source is None and "still divides by 32" in (refused.note or ""), refused.note


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes (or wrote on the CPU, 2026-12-06) for five of the trial's kernels, checked on the GPU
GPU_PICKS = {
    "liger_dyt": {"BLOCK_N": 256, "num_warps": 4, "num_stages": 1},
    "lora_shrink": {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 64, "SPLIT_K": 4},
    "gemlite_gemv": {"BLOCK_SIZE_M": 1, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "num_warps": 4, "num_stages": 2},
    "lightllm_tokatt": {"BLOCK_N": 128},
    "fla_l2norm": {"BT": 512, "num_warps": 1},
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_twelfth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at their SHAPES' kind and at realistic
    sizes (256 MB to 1 GB a tensor where the kernel allows: TE's permutation of 16 K tokens x 4096 to 8 experts and
    its unpermute backward, fla's l2norm of 1 GB on both of its kernels, Liger's DyT of 512 MB (its grid puts the rows on axis 1, at most 65535 of them) and sparsemax of 64 x
    32768 x 128, vLLM's LoRA shrink of 4096 sequences x 4096 (tf32 in tl.dot: the reference's 1e-2), LightLLM's
    token attention over a 1.2 GB cache, GemLite's int4 GEMV of 16384 x 16384), and the forms ``tune`` writes
    (:data:`GPU_PICKS`: DyT's table over N after the branches' dict, the LoRA tiles with BLOCK_N guarded, GemLite's
    pinned config with its pre_hook and prune wrapper, LightLLM's BLOCK = 128 under ``if Lk <= 128:`` with its line
    moved below ``Lk`` (late48, l170), fla's BT = 512 set by a heuristic under its list where ``BD <= 128``, the
    CPU's pick: late53 l230), correct at sizes no entry names. fla's written form is run at D <= 128 only: pinned,
    its one config at D = 512 was a 512 x 512 fp32 block on one warp, whose compile for sm_90 took 8 min 52 s on this
    CPU (docs/faults.md, f6); past the bound it now runs fla's own list."""
    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    written = written_files(DATA, GPU_PICKS, tmp_path)
    cases: list[tuple[str, Path | None, list[dict[str, int]]]] = [
        ("te_permute", None, [{"T": 11, "E": 3, "H": 33}, {"T": 16384, "E": 8, "H": 4096}]),
        ("te_unperm_bwd", None, [{"T": 9, "E": 3, "H": 40}, {"T": 16384, "E": 8, "H": 4096}]),
        (
            "fla_l2norm",
            None,
            [{"B": 3, "T": 130, "D": 100}, {"B": 64, "T": 32768, "D": 128}, {"B": 8, "T": 8192, "D": 4096}],
        ),
        ("fla_l2norm", written["fla_l2norm"], [{"B": 3, "T": 1001, "D": 77}, {"B": 64, "T": 32768, "D": 128}]),
        ("liger_dyt", None, [{"B": 4, "T": 9, "N": 33}, {"B": 4, "T": 8192, "N": 4096}]),
        ("liger_dyt", written["liger_dyt"], [{"B": 1, "T": 3, "N": 5001}, {"B": 4, "T": 8192, "N": 4096}]),
        ("liger_sparsemax", None, [{"B": 5, "N": 7, "T": 6}, {"B": 64, "N": 32768, "T": 128}]),
        ("lora_shrink", None, [{"B": 3, "L": 3, "R": 32, "K": 96}, {"B": 4096, "L": 8, "R": 16, "K": 4096}]),
        (
            "lora_shrink",
            written["lora_shrink"],
            [{"B": 2, "L": 2, "R": 24, "K": 100}, {"B": 4096, "L": 8, "R": 64, "K": 4096}],
        ),
        (
            "lightllm_tokatt",
            None,
            [{"B": 5, "HQ": 2, "HK": 1, "D": 16, "S": 9}, {"B": 16, "HQ": 32, "HK": 8, "D": 128, "S": 8192}],
        ),
        ("lightllm_tokatt", written["lightllm_tokatt"], [{"B": 3, "HQ": 6, "HK": 3, "D": 32, "S": 257}]),
        ("gemlite_gemv", None, [{"M": 1, "N": 33, "K": 128}, {"M": 4, "N": 16384, "K": 16384}]),
        ("gemlite_gemv", written["gemlite_gemv"], [{"M": 3, "N": 77, "K": 320}, {"M": 1, "N": 16384, "K": 16384}]),
    ]
    for name, kernel_py, shapes in cases:
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=kernel_py)


def test_an_autotune_list_applied_by_a_call_is_listed_and_sets_the_launch_options() -> None:
    """Seen on 2026-12-06: te_permute, Transformer Engine's MoE permutation, autotunes its kernel by a call after the
    definition, ``_permute_kernel = triton.autotune(configs=[...seven BLOCK_SIZE...], key=["hidden_size"])
    (_permute_kernel)`` inside ``try: ... except RuntimeError: pass``. ``tunables`` listed no BLOCK_SIZE at all and
    offered ``num_warps`` / ``num_stages`` at the launch at Triton's defaults (which the configs set), and ``tune``
    exited 2 "no tunable knob" naming only num_experts, hidden_size and PERMUTE_PROBS. Such a kernel is autotuned
    (no launch option offered); its list was then listed refused, and since leftovers13 is listed as a decorator's
    is (tests/test_leftovers13_cases.py tunes it)."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((DATA / "te_permute" / "kernel.py").read_text())}
    listed = [t for k, t in found.items() if k.startswith("_permute_kernel.configs[")]
    assert [t.value for t in listed] == [64, 128, 256, 512, 1024, 2048, 4096] and all(t.editable for t in listed)
    assert "_permute_kernel:num_warps" not in found and "_permute_kernel:num_stages" not in found


def test_a_quantization_group_that_divides_a_program_s_first_index_is_held() -> None:
    """Seen on 2026-12-06: gemlite_gemv passes its checkpoint's quantization group as a literal, ``group_size=64``,
    and picks a tile's scale row by ``k_m = (pid_k * BLOCK_SIZE_K) // group_size`` (GemLite writes ``pid_k *
    (BLOCK_SIZE_K / group_size)``). ``tunables`` listed ``group_size`` as an editable knob (the grouped-ordering
    rule, ``GROUP_SIZE``): any other value reads other scales, failing every SHAPES entry, so the search spent
    candidates on it. A constexpr that divides a program's first index along another tile (a program id times
    another constexpr), as it divides an arange of another block (breaker11's grain rule), is the data's grain, held
    at its value; the tile it divides stays a knob."""
    from kernelopt.tunables import discover_source

    source = (DATA / "gemlite_gemv" / "kernel.py").read_text()
    for text in (source, source.replace("(pid_k * BLOCK_SIZE_K) // group_size", "pid_k * BLOCK_SIZE_K / group_size")):
        found = {t.key: t for t in discover_source(text)}
        held = found["gemv_A16fWnO16f_int32packing_kernel:group_size"]
        assert not held.editable and "divides an index of another block" in (held.refused_reason or ""), held
