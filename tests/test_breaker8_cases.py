"""The eighth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``, held
out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of tests/data/breaker8 is
a public Triton kernel written for the trial in a form the first seven trials did not try (its README lists them).
What tuning writes is judged as a user would: the written kernel against the reference at every ``SHAPES`` entry and
at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty`` outputs in the middle of NaN
(tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelopt.tunables import discover_source
from tests.test_breaker7_cases import _correct_padded
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker8"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _all_correct(folder: Path, shapes: list[dict[str, int]]) -> None:
    got = _correct_padded(folder, shapes)
    assert got == {",".join(f"{k}={v}" for k, v in s.items()): True for s in shapes}, got


# ------------------------------------------------------------------------------------- correct kernels failing on the CPU


@pytest.mark.timeout(120)
def test_a_launch_inside_torch_cuda_device_of_a_cpu_tensor_s_index_runs_on_the_cpu() -> None:
    """Seen on 2026-12-05: ssd_cumsum, Mamba-2's ``_chunk_cumsum_fwd`` launched inside ``with
    torch.cuda.device(dt.device.index):`` (mamba_ssm and fla write it so). A CPU tensor's index is ``None``, and a
    torch without CUDA raises "'<' not supported between instances of 'NoneType' and 'int'" entering the context:
    every check of a correct kernel failed on the CPU. On the CPU the context of ``None`` does nothing, as on a GPU
    (where it means "stay on the current device"); an int index is passed on as before."""
    import torch

    from tests.conftest import triton_interpreted

    with triton_interpreted():
        with torch.cuda.device(None):
            pass
        with torch.cuda.device(torch.device("cpu")):
            pass
    _all_correct(DATA / "ssd_cumsum", [{"B": 1, "L": 40, "H": 3}, {"B": 1, "L": 17, "H": 5}])


# ------------------------------------------------------------------------------------- knobs refused


@pytest.mark.timeout(240)
def test_a_settings_dict_passed_to_the_launching_function_is_tuned_where_its_caller_binds_it(tmp_path: Path) -> None:
    """Seen on 2026-12-05: moe_vllm, vLLM's fused MoE: ``invoke_fused_moe_kernel(..., config, ...)`` launches
    ``fused_moe_kernel[grid](..., **config)``, ``config`` a parameter its one caller binds to ``get_config_func(M)``
    (``functools.partial(try_get_optimal_moe_config, ...)``, which returns a tuned JSON file's entry or
    ``get_default_config``'s dict by an if / else). ``tune`` exited 2 "no tunable knob: ... the argument **config
    cannot be read (its dict is built by code or changed after it is built)": the four settings vLLM users tune
    never offered. They are now the helper's settings, read by a run (as an imported helper's are), and tuned after
    the caller's binding, where ``moe_align_block_size`` reads ``config["BLOCK_SIZE_M"]`` too: the padding and the
    tile stay one value, correct at sizes no entry names."""
    from kernelopt.tunables import TunableKind

    source = (DATA / "moe_vllm" / "kernel.py").read_text()
    static = {t.key: t for t in discover_source(source)}
    assert "which settings it passes is known only from a run of the task" in (
        static["fused_moe_kernel:**config"].refused_reason or ""
    )
    folder = _copy("moe_vllm", tmp_path)
    best = {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4}
    written, note = _tune_edit(folder, best)
    assert written is not None, note
    assert '        config["BLOCK_SIZE_M"] = 32\n' in written
    assert written.index('config["BLOCK_SIZE_M"] = 32') < written.index("moe_align_block_size(topk_ids, config")
    (folder / "kernel.py").write_text(written)
    _all_correct(folder, [{"M": 3, "K": 64, "N": 48}, {"M": 9, "K": 40, "N": 33}, {"M": 40, "K": 24, "N": 130}])
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    prepared = prepare_folder(TuneRequest(folder=_copy("moe_vllm", tmp_path / "again"), device="cpu"))
    knobs = {t.name: t for t in prepared.tunables if t.kernel == "fused_moe_kernel" and t.editable}
    assert {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M"} <= set(knobs)
    assert knobs["BLOCK_SIZE_M"].kind is TunableKind.COMPUTED_SETTING
    assert knobs["BLOCK_SIZE_M"].size_names == ["M"]  # not the partial it calls, get_config_func


@pytest.mark.timeout(60)
def test_a_dict_the_launching_function_gets_from_several_callers_is_still_unread() -> None:
    """Beside m2: two calls of the launching function may pass two dicts; which one a launch runs is not one
    binding, so ``**config`` stays unread, said in one line."""
    source = (DATA / "moe_vllm" / "kernel.py").read_text()
    twice = source.replace(
        "    return cache.sum(dim=1)\n",
        "    invoke_fused_moe_kernel(hidden_states, w1, cache, topk_weights, sorted_token_ids, expert_ids,\n"
        "                            num_tokens_post_padded, True, top_k, dict(config), compute_type=tl.float32)\n"
        "    return cache.sum(dim=1)\n",
    )
    assert twice != source
    found = {t.key: t for t in discover_source(twice)}
    assert not found["fused_moe_kernel:**config"].editable
    assert "cannot be read" in (found["fused_moe_kernel:**config"].refused_reason or "")


# ------------------------------------------------------------------------------------- the launch tuned


@pytest.mark.timeout(60)
def test_a_tie_between_an_autotune_list_and_a_launch_site_goes_to_the_autotune_list() -> None:
    """Seen on 2026-12-05: ssd_cumsum autotunes ``BLOCK_SIZE_H`` (heads a program, seven configs keyed on
    ``["chunk_size", "nheads"]``) and computes ``BLOCK_SIZE_CHUNK=triton.next_power_of_2(chunk_size)`` at the launch
    (the model's chunk, which every smaller value leaves partly undone). ``tune`` searched the computed block (4
    candidates, none better) and said "not tuned in this session: _chunk_cumsum_fwd_kernel.configs": the knob Mamba's
    authors tune was left out. One knob each: the tie now goes to the autotune list, the space its authors declared."""
    from kernelopt.tuning.launch import space_from_tunables

    tunables = discover_source((DATA / "ssd_cumsum" / "kernel.py").read_text())
    space = space_from_tunables(tunables)
    assert space.launch == "_chunk_cumsum_fwd_kernel.configs"
    assert [k.name for k in space.knobs] == ["BLOCK_SIZE_H"]
    launch = space_from_tunables(tunables, kernel="launch _chunk_cumsum_fwd_kernel (kernel.py:92)")
    assert [k.name for k in launch.knobs] == ["BLOCK_SIZE_CHUNK"]


@pytest.mark.timeout(60)
def test_the_loop_s_first_tuning_session_is_the_launch_tune_picks() -> None:
    """Seen on 2026-12-05, after m3: ``optimize ssd_cumsum --max-iters 2 --device cpu`` planned V1 as a session of
    the computed ``BLOCK_SIZE_CHUNK`` ("V1 FAIL at implement: the tuning session of launch _chunk_cumsum_fwd_kernel
    (kernel.py:92) kept nothing"), then V2 the autotune list: the loop's order (``session_order``) kept its own copy
    of the rule ``tune`` had just changed. One rule now (``tunables.launches.tuned_first``), read by both."""
    from kernelopt.tunables.launches import launches, loop_kernels, session_order
    from kernelopt.tuning.launch import space_from_tunables

    source = (DATA / "ssd_cumsum" / "kernel.py").read_text()
    tunables = discover_source(source)
    order = session_order(launches(tunables, loop_kernels(source)), "_chunk_cumsum_fwd_kernel")
    assert order[0].label == space_from_tunables(tunables).launch == "_chunk_cumsum_fwd_kernel.configs"


# ------------------------------------------------------------------------------------- messages


@pytest.mark.timeout(120)
def test_a_local_bound_to_a_parameter_is_followed_to_what_the_calls_pass() -> None:
    """Seen on 2026-12-05: fla_cumsum, fla's ``chunk_local_cumsum_vector(g, chunk_size, ...)`` binds ``BT =
    chunk_size`` and launches with ``BT=BT``; its one call passes the module constant ``CHUNK_SIZE``. ``tunables``
    said "BT is not editable: 'chunk_size' is not defined in this file (imported or global)", though it is a
    parameter of the launching function: a local bound to a parameter was looked up in the module only. It is now
    followed to the value the calls pass, the module constant, and with the reference ``CHUNK_SIZE`` is refused for
    the right reason: the reference computes with it too (the model's chunk, not a speed setting)."""
    from kernelopt.tunables.evaluate import discover_evaluated

    folder = DATA / "fla_cumsum"
    static = {t.key: t for t in discover_source((folder / "kernel.py").read_text())}
    assert not any("is not defined in this file" in (t.refused_reason or "") for t in static.values()), static
    assert "CHUNK_SIZE" in static
    found, _ = discover_evaluated(folder / "kernel.py", reference=folder / "reference.py", device="cpu")
    run = {t.key: t for t in found}
    assert not run["CHUNK_SIZE"].editable
    assert "fixed by the reference" in (run["CHUNK_SIZE"].refused_reason or "")


@pytest.mark.timeout(120)
def test_a_static_assert_failing_in_the_interpreter_is_invalid_at_its_line(tmp_path: Path) -> None:
    """Seen on 2026-12-05: ``tune fa2_causal`` (the tutorial's ``tl.static_assert(BLOCK_N <= HEAD_DIM)``) counted
    the candidates of 64-wide key blocks at a head dimension of 32 as "run_error ... raised while running:
    InterpreterError: AssertionError('') (kernel.py:127)": an empty message at the launch's line. On a GPU the
    compiler raises it (CompileTimeAssertionFailure, which Triton's own autotuner skips). In the interpreter it is now
    the same outcome, at the assert's line, and (tuneleft9) ``INVALID``: the author's statement of what is valid, set
    aside untimed and not charged, as the autotune list's own filter."""
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.checks import classify
    from tests.conftest import load_fresh, triton_interpreted

    source = (DATA / "fa2_causal" / "kernel.py").read_text()
    wide = source.replace("for BM in [16, 32]\n    for BN in [16, 32]", "for BM in [64]\n    for BN in [64]")
    assert wide != source
    path = tmp_path / "kernel.py"
    path.write_text(wide)
    line = next(i for i, text in enumerate(wide.splitlines(), 1) if "tl.static_assert(BLOCK_N <= HEAD_DIM)" in text)
    with triton_interpreted():
        import torch

        kernel = load_fresh(path, "_breaker8_static_assert")
        q = torch.randn(1, 1, 16, 32)
        with pytest.raises(Exception) as raised:
            kernel.run(q, q, q)
    verdict = classify(raised.value, path, "running")
    assert verdict.outcome is Outcome.INVALID, verdict
    assert verdict.reason is not None and f"static_assert: InterpreterError: AssertionError('') (kernel.py:{line})" in (
        verdict.reason
    ), verdict.reason


@pytest.mark.timeout(60)
def test_a_settings_dict_changed_after_it_is_built_names_the_change() -> None:
    """Seen on 2026-12-05: fused_add_rms, Liger-Kernel's ``kernel_args = {}`` / ``if X.device.type == "xpu":
    kernel_args["grf_mode"] = "large"`` splatted at the launch. ``tunables`` said "the argument **kernel_args cannot
    be read (its dict is built by code or changed after it is built) ...; build it from literals to tune them":
    neither which, nor where, and advice that does not fit an Intel backend option. It now names the change."""
    found = {t.key: t for t in discover_source((DATA / "fused_add_rms" / "kernel.py").read_text())}
    why = found["_fused_add_rms_norm_forward_kernel:**kernel_args"].refused_reason or ""
    assert (
        'cannot be read: it is a dict changed after it is built (kernel.py:101: kernel_args["grf_mode"] = "large")'
        in (why)
    ), why
    assert "build it from literals" not in why
    assert found["_fused_add_rms_norm_forward_kernel:num_warps"].editable


@pytest.mark.timeout(60)
def test_an_autotune_list_s_own_values_are_in_the_search() -> None:
    """Seen on 2026-12-05, after m3: ``tune ssd_cumsum`` searched "BLOCK_SIZE_H: power_of_two 8..65536": the block
    family's grid starts at 8, so Mamba's own 1, 2 and 4 heads a program (the values that fit a model of a few heads)
    were out of the search, though the list names them. An autotune list's values now join its knob's domain."""
    from kernelopt.tuning.launch import space_from_tunables

    tunables = discover_source((DATA / "ssd_cumsum" / "kernel.py").read_text())
    (knob,) = space_from_tunables(tunables).knobs
    assert knob.describe() == "BLOCK_SIZE_H: power_of_two 1..65536 (17 values)"
    literal = discover_source((DATA / "unroll_range" / "kernel.py").read_text())
    block_m = next(k for k in space_from_tunables(literal).knobs if k.name == "BLOCK_M")
    assert block_m.describe() == "BLOCK_M: power_of_two 16..256 (5 values)"  # a launch literal: its family's grid


# ------------------------------------------------------------------------------------- on a real GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_eighth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): the eight originals at their SHAPES and at larger sizes
    (Mamba's ``torch.cuda.device(dt.device.index)`` of a CUDA tensor, fla's ``check_shared_mem`` asking the device,
    ``tl.interleave``, ``loop_unroll_factor``, the tutorial's causal attention), and the forms the fixes write:
    moe_vllm's settings set after ``config = get_config_func(M)`` (m2) and ssd_cumsum's pinned ``BLOCK_SIZE_H``
    (m3, m7), correct at sizes no entry names."""
    from tests.gpu_correct import assert_correct
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    picks = {
        "moe_vllm": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 4},
        "ssd_cumsum": {"BLOCK_SIZE_H": 2},
    }
    written: dict[str, Path] = {}
    for name, pick in picks.items():
        text, note = _tune_edit(_copy(name, tmp_path), pick)
        assert text is not None, (name, note)
        written[name] = tmp_path / f"{name}_written.py"
        written[name].write_text(text)
    cases: list[tuple[str, Path | None, list[dict[str, int]]]] = [
        ("fa2_causal", None, [{"Z": 1, "H": 2, "N_CTX": 80, "D": 32}, {"Z": 2, "H": 8, "N_CTX": 1000, "D": 64}]),
        ("moe_vllm", None, [{"M": 3, "K": 64, "N": 48}, {"M": 300, "K": 512, "N": 1024}]),
        ("moe_vllm", written["moe_vllm"], [{"M": 9, "K": 40, "N": 33}, {"M": 300, "K": 512, "N": 1024}]),
        ("ssd_cumsum", None, [{"B": 1, "L": 40, "H": 3}, {"B": 2, "L": 1000, "H": 24}]),
        ("ssd_cumsum", written["ssd_cumsum"], [{"B": 1, "L": 17, "H": 5}, {"B": 2, "L": 1000, "H": 24}]),
        ("fla_cumsum", None, [{"B": 1, "T": 33, "H": 3, "S": 40}, {"B": 2, "T": 1000, "H": 4, "S": 128}]),
        ("fused_add_rms", None, [{"B": 2, "T": 3, "D": 100}, {"B": 4, "T": 256, "D": 4096}]),
        ("int4_dequant", None, [{"N": 202}, {"N": 1 << 20}]),
        ("inductor_red", None, [{"M": 3, "N": 17}, {"M": 512, "N": 5000}]),
        ("unroll_range", None, [{"M": 3, "K": 17, "E": 2}, {"M": 4096, "K": 2048, "E": 8}]),
    ]
    for name, kernel_py, shapes in cases:
        assert_correct(DATA / name, shapes, _outputs_checked, kernel_py=kernel_py)


@pytest.mark.timeout(120)
def test_a_block_pointer_s_block_shape_is_a_power_of_two_block() -> None:
    """Seen on 2026-12-05: fla_cumsum's autotuned ``BS`` (``tl.make_block_ptr(..., (BT, BS), (1, 0))``: the feature
    block of each load and store) was listed "BS >= 1", no category, where ``tl.arange(0, BS)`` would have made it a
    power-of-two block (Triton's block shapes are powers of two; a 24 does not compile). A name in a block pointer's
    ``block_shape`` is now read as ``tl.arange``'s end is."""
    from kernelopt.tunables import TunableKind
    from kernelopt.tunables.evaluate import discover_evaluated

    folder = DATA / "fla_cumsum"
    found, evaluation = discover_evaluated(folder / "kernel.py", reference=folder / "reference.py", device="cpu")
    bs = [t for t in found if t.name == "BS" and t.kind is TunableKind.AUTOTUNE_CONFIG]
    assert bs and all(t.legality.power_of_two for t in bs), bs
    assert all(t.legality.problem(24) is not None and t.legality.problem(64) is None for t in bs)
    # a block of no known name is bounded by the problem's largest size as a 1-D block is: 16, 32, 64 of S = 64
    from kernelopt.tuning.launch import space_from_tunables

    space = space_from_tunables(found, evaluation=evaluation, problem_sizes={"B": 2, "T": 64, "H": 2, "S": 64})
    block = next(k for k in space.knobs if k.name == "BS")
    held = {k.name: k.default for k in space.knobs if k.name != "BS"}
    assert [v for v in block.values if not space.problems({**held, "BS": v})] == [16, 32, 64]
