"""The sixteenth new user's trial of ``kernelopt tunables`` / ``tune`` / ``validate`` / ``optimize`` / ``batch``,
held out (issue 32: "kernels, shapes and clients we have never seen are the test"). Each folder of
tests/data/breaker16 is a public Triton kernel written for the trial in a form the first fifteen trials did not try
(its README lists them). What tuning writes is judged as a user would: the written kernel against the reference at
every ``SHAPES`` entry and at sizes not in ``SHAPES`` that the original handled, its inputs and its ``torch.empty``
outputs in the middle of NaN (tests/test_variants_cases.py's rule), loaded afresh in this process with Triton's
interpreter."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kernelopt.cli.tune import left_out
from kernelopt.tunables import discover_source
from kernelopt.tuning.folder import TuneRequest, prepare_folder
from tests.test_breaker7_cases import _all_correct
from tests.test_breaker_cases import _tune_edit

DATA = Path(__file__).parent / "data" / "breaker16"


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def _tunables(name: str) -> dict[str, Any]:
    return {t.key: t for t in discover_source((DATA / name / "kernel.py").read_text())}


# ------------------------------------------------------------------------------------- knobs refused


@pytest.mark.timeout(120)
def test_a_tile_the_kernel_body_binds_and_its_programs_step_by_is_not_a_knob(tmp_path: Path) -> None:
    """Seen on 2026-12-06: inductor_tem_mm, Inductor's generated mm template, binds its tiles in its body
    (``BLOCK_M : tl.constexpr = 64``) and launches on ``mm_grid(s0, s1, meta0)``, the wrapper's own copy of them.
    ``tune`` searched ``BLOCK_M`` / ``BLOCK_N`` in the body: the grid kept ``cdiv(M, 64) * cdiv(N, 64)`` programs, so
    a smaller tile left tiles undone ("output not written" on one entry) and a pair like 32 x 128 is right at some
    sizes and wrong at others (a wrong kernel the checks of the entries may miss). Such a tile is held with its
    reason; ``BLOCK_K`` (a loop's step) and ``GROUP_M`` (an order of the programs) stay knobs, and a written
    ``BLOCK_K`` is right at sizes no entry names."""
    found = _tunables("inductor_tem_mm")
    for name in ("BLOCK_M", "BLOCK_N"):
        why = found[f"triton_tem_fused_mm_0:{name}"].refused_reason
        assert why is not None and "programs step through the data by it" in why, why
    assert found["triton_tem_fused_mm_0:BLOCK_K"].editable and found["triton_tem_fused_mm_0:GROUP_M"].editable
    written, note = _tune_edit(_copy("inductor_tem_mm", tmp_path), {"BLOCK_K": 64, "GROUP_M": 4})
    assert written is not None and "BLOCK_K: tl.constexpr = 64" in written, note
    _all_correct(tmp_path / "inductor_tem_mm", [{"M": 65, "N": 129, "K": 70}, {"M": 1, "N": 3, "K": 1}])
    # Inductor's persistent reduction (breaker13): its body-bound RBLOCK covers a row, no program steps by it
    per = {t.key: t for t in discover_source((DATA.parent / "breaker13" / "inductor_per" / "kernel.py").read_text())}
    assert any(k.endswith(":RBLOCK") and t.editable for k, t in per.items()), sorted(per)


def test_a_list_setting_that_selects_an_atomic_add_into_an_unzeroed_output_stays_at_its_value(tmp_path: Path) -> None:
    """Seen on 2026-12-06: bnb_int8_mm, bitsandbytes' int8 matmul, stores ``if SPLIT_K == 1`` and adds by
    ``tl.atomic_add`` otherwise, into a ``torch.empty`` output its autotuner never zeroes (no ``reset_to_zero``, no
    ``pre_hook``); every one of its 89 configs says ``SPLIT_K: 1``. ``tune`` searched ``SPLIT_K`` 1..64: six of its
    seven values add onto whatever the output held (and onto each other across the autotuner's runs), wrong at every
    size; only its checks kept them out, a candidate each. The setting is held at the list's value with its reason;
    the tiles stay knobs (a pinned pick keeps ``SPLIT_K: 1``: the GPU test's written form). A list that zeroes its
    output keeps the knob."""
    source = (DATA / "bnb_int8_mm" / "kernel.py").read_text().replace("    ]\n    + get_configs_io_bound(),", "    ],")
    found = {t.key: t for t in discover_source(source)}
    split = [t for k, t in found.items() if k.endswith(".SPLIT_K")]
    assert len(split) == 9 and all(t.refused_reason and "selects tl.atomic_add" in t.refused_reason for t in split)
    assert found["_int8_matmul_rowwise_dequantize.configs[0].BLOCK_M"].editable
    for zeroed in ('    reset_to_zero=["C"],\n', ""):
        text = source.replace('    key=["M", "N", "K"],\n', '    key=["M", "N", "K"],\n' + zeroed, 1)
        if not zeroed:  # a pre_hook in each config instead
            text = text.replace("num_stages=", "pre_hook=_zero, num_stages=").replace(
                "@triton.autotune(", "def _zero(nargs):\n    nargs['C'].zero_()\n\n\n@triton.autotune(", 1
            )
        again = {t.key: t for t in discover_source(text)}
        assert again["_int8_matmul_rowwise_dequantize.configs[0].SPLIT_K"].editable, zeroed
    # tune says it once for the list, not once a config (89 lines of the same reason before)
    folder = _copy("bnb_int8_mm", tmp_path)
    (folder / "kernel.py").write_text(source)
    lines = left_out(prepare_folder(TuneRequest(folder=folder, device="cpu")))
    assert [ln.split(": SPLIT_K selects")[0] for ln in lines if "SPLIT_K" in ln] == [
        "not tuned: _int8_matmul_rowwise_dequantize.configs[0].SPLIT_K and 8 more of SPLIT_K"
    ], lines


@pytest.mark.timeout(120)
def test_a_table_no_text_can_hold_is_recorded_as_the_one_configuration_written(tmp_path: Path) -> None:
    """Seen on 2026-12-06: ``optimize --max-iters 1`` on inductor_tem_mm wrote one ``BLOCK_K=64, GROUP_M=32`` into
    the body (constexprs the body binds hold no table by size, so one configuration is written and judged in the
    table's place) and recorded "GROUP_M 8 -> per-bucket table (M=130,N=33,K=50: 64; ...; above them the original
    computation)" in memory/v1.json and the commit: a table that was never written. The record says the value
    written."""
    from kernelopt.backends.launch_tuning import apply_best
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.folder import judge_session
    from kernelopt.tuning.session import SessionResult, StopReason

    prepared = prepare_folder(TuneRequest(folder=_copy("inductor_tem_mm", tmp_path), device="cpu"))
    labels = [s.label() for s in prepared.shapes]
    now, one, other = {"BLOCK_K": 32, "GROUP_M": 8}, {"BLOCK_K": 64, "GROUP_M": 32}, {"BLOCK_K": 64, "GROUP_M": 64}
    timed = {
        str(now): (now, [100.0, 100.0, 100.0]),
        str(one): (one, [50.0, 50.0, 50.0]),
        str(other): (other, [40.0, 60.0, 60.0]),  # the first shape's own best, 20 % ahead there: a table
    }
    results = [
        Result(config=c, outcome=Outcome.OK, latency_us=sum(v), latency_us_by_shape=dict(zip(labels, v, strict=True)),
               retimed=True)
        for c, v in timed.values()
    ]  # fmt: skip
    result = SessionResult(
        best_config=one, best_latency_us=150.0, current_config=now, current_latency_us=300.0, results=results,
        retimed=results, evaluations=3, served=0, budget=3, space_size=28, wall_s=1.0, stop=StopReason.CANDIDATES,
        strategy="exhaustive",
    )  # fmt: skip
    outcome = apply_best(judge_session(prepared, result))
    assert outcome.changed, outcome.error
    assert outcome.knob_changes["GROUP_M"] == (8, 32), outcome.knob_changes
    assert "GROUP_M: tl.constexpr = 32" in (tmp_path / "inductor_tem_mm" / "kernel.py").read_text()


# ------------------------------------------------------------------------------------- on a GPU

#: what ``tune`` writes for five of the trial's kernels when its session picks these, checked on the GPU: Inductor's
#: body-bound K tile and group (its M / N tiles held, c1), bitsandbytes' list pinned to the CPU tune's pick with its
#: prune wrapped, Mamba-2's list pinned to one tile, vLLM's computed tile in a table over the row's width, fla's kkt
#: list pinned to one K block on four warps (the heuristics kept): a config that cannot race on sm_90 (kkt18)
GPU_PICKS = {
    "inductor_tem_mm": {"BLOCK_K": 64, "GROUP_M": 4},
    "bnb_int8_mm": {"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 32, "SPLIT_K": 1},
    "mamba_chunk_state": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32},
    "vllm_cache_flash": {"TILE_SIZE": 256},
    "fla_kkt": {"BK": 128, "num_warps": 4, "num_stages": 2},
}

#: (folder, sizes) of the originals on the GPU: a small odd size (where its autotune list is short enough to compile
#: twice in the test's time) and a realistic one (256 MB - 1 GB a tensor); compiled for sm_90 on the CPU first
#: (``compile_for_target``, 2026-12-06: 148 launches, no failure), each size one the original runs on the GPU: a
#: launch's vector access on an offset its source hints aligned though a size wraps it is misaligned where the size
#: is no multiple of the vector (``LaunchCompile.hinted``; :func:`test_the_gpu_sizes_are_sizes_the_originals_run`).
#: Not fla_kkt as written: under Triton 3.6 on sm_90 twelve of its 27 configs race (a K loop's copy overwrites the
#: tile its wgmmas still read: tests/test_kkt18_cases.py, docs/faults.md kkt18), so whether it is right depends on
#: its autotuner's pick (H100 2026-12-06: 75162 elements wrong at B=4, T=16384); its written form, pinned to a
#: config that cannot race, is checked below (:data:`GPU_PICKS`), and each config in test_kkt18_cases.py's GPU test
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "inductor_tem_mm": [{"M": 7, "N": 5, "K": 3}, {"M": 8192, "N": 8192, "K": 8192}],
    "dao_fa_heur": [{"B": 1, "S": 3, "H": 1, "D": 5}, {"B": 16, "S": 8192, "H": 16, "D": 64}],
    "vllm_expand": [{"B": 1, "MAXLEN": 1}, {"B": 4000000, "MAXLEN": 32}],
    "vllm_cache_flash": [
        {"T": 3, "H": 1, "D": 5, "NB": 1, "BS": 16},
        {"T": 131072, "H": 8, "D": 128, "NB": 8192, "BS": 16},
    ],
    # not M=17 (H100 2026-12-06: misaligned address, the CUDA context lost): at an odd M the original's own autotuner
    # runs BLOCK_M=256 on four warps, whose ``tl.load(state_x_ptr + ram)`` is ``ld.global.v2.b32`` on ``ram =
    # tl.multiple_of(rm % M, BLOCK_M)``, misaligned where M is odd (docs/faults.md misalign17): an even M and N
    "bnb_int8_mm": [{"M": 18, "N": 8, "K": 8}, {"M": 16384, "N": 16384, "K": 16384}],
    "mamba_chunk_state": [
        {"batch": 1, "seqlen": 3, "nheads": 1, "headdim": 5, "dstate": 3, "ngroups": 1},
        {"batch": 4, "seqlen": 16384, "nheads": 32, "headdim": 64, "dstate": 128, "ngroups": 1},
    ],
    "tut_persist": [{"M": 16384, "N": 8192, "K": 8192}],
}

#: the written forms' sizes: none a SHAPES entry names, odd ones included, and a realistic one
GPU_WRITTEN_SIZES: dict[str, list[dict[str, int]]] = {
    "inductor_tem_mm": [{"M": 129, "N": 257, "K": 70}, {"M": 8192, "N": 4096, "K": 8191}],
    "bnb_int8_mm": [{"M": 130, "N": 264, "K": 72}, {"M": 8192, "N": 16384, "K": 16384}],  # M even: as GPU_SIZES
    "mamba_chunk_state": [
        {"batch": 2, "seqlen": 130, "nheads": 3, "headdim": 65, "dstate": 257, "ngroups": 3},
        {"batch": 4, "seqlen": 16384, "nheads": 32, "headdim": 64, "dstate": 128, "ngroups": 1},
    ],
    "vllm_cache_flash": [
        {"T": 37, "H": 5, "D": 33, "NB": 7, "BS": 8},
        {"T": 131072, "H": 8, "D": 128, "NB": 8192, "BS": 16},
    ],
    "fla_kkt": [{"B": 3, "T": 130, "H": 5, "K": 100}, {"B": 4, "T": 16384, "H": 16, "K": 128}],
}


@pytest.mark.gpu
@pytest.mark.timeout(900)
def test_the_sixteenth_trial_s_kernels_and_written_forms_compile_and_hold_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, not interpreted): seven originals (:data:`GPU_SIZES`: Inductor's mm
    template with ``allow_tf32=False`` against torch's fp32 matmul, Dao's causal flash attention, vLLM's expand and
    paged-cache write, bitsandbytes' int8 matmul (int32 sums, the reference's float64 exact), Mamba-2's chunk state
    (fp16 dots, within the reference's ATOL), the persistent-matmul tutorial), each at 256 MB - 1 GB a tensor, and the
    forms ``tune`` writes (:data:`GPU_PICKS`; fla's chunk kkt pinned to a config that cannot race, its fp32 dots TF32
    within the reference's ATOL), correct at sizes no entry names (:data:`GPU_WRITTEN_SIZES`). Every kernel and size
    is run before the verdict (H100 2026-12-06: fla_kkt's failure stopped the loop, two originals and the four
    written forms after it unrun)."""
    from tests.gpu_correct import correct_on_device, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    written = written_files(DATA, GPU_PICKS, tmp_path)
    failed: dict[str, object] = {}
    for name, shapes in GPU_SIZES.items():
        got = correct_on_device(DATA / name, shapes, _outputs_checked)
        failed.update({f"{name} at {at}": v for at, v in got.items() if v is not True})
    for name, shapes in GPU_WRITTEN_SIZES.items():
        got = correct_on_device(DATA / name, shapes, _outputs_checked, kernel_py=written[name])
        failed.update({f"{name} (written) at {at}": v for at, v in got.items() if v is not True})
    assert not failed, failed
