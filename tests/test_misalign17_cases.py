"""The authors' alignment hints on a wrapped offset (``tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)``)
and the misaligned address they give on the GPU at sizes no multiple of the vector (misalign17; docs/faults.md).

Seen on the H100, 2026-12-06: breaker16's GPU test lost its CUDA context at ``torch.manual_seed`` (the size that
faulted not named), and ``tune --device cuda`` on bitsandbytes' int8 matmul wrote nothing: "the edit to write failed
its check (run_error: on the SHAPES entry M=37,N=130,K=72: ... misaligned address)". Compiled for sm_90 here (no GPU),
the PTX says why: the original's own autotuner runs ``BLOCK_M=256`` on four warps at an odd ``M``, whose
``tl.load(state_x_ptr + ram)`` is ``ld.global.v2.b32`` on the wrapped rows; and the written kernel ran the original's
autotuner, not the pick, because its prune keeps one config a tile (the most stages) and dropped the tuned one.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from kernelopt.harness.vector_hints import VectorAccess, wrapped_hints
from tests.conftest import load_fresh, skip_without, triton_interpreted

DATA = Path(__file__).parent / "data"
BNB = DATA / "breaker16" / "bnb_int8_mm"
#: the session's pick on the H100 (2026-12-06, tune_bnb_int8_mm.json's best_config)
PICK = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64, "SPLIT_K": 1, "num_warps": 2, "num_stages": 2}
X_FACTOR = "x_factor = tl.load(state_x_ptr + ram)[:, None]"
W_FACTOR = "w_factor = tl.load(state_w_ptr + rbn)[None, :]"


def test_the_hints_read_are_those_on_an_offset_a_size_wraps() -> None:
    """bitsandbytes' and Inductor's ``tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)`` is read (the
    name, the size that wraps it); the persistent tutorial's hint on an offset no ``%`` wraps
    (``tl.multiple_of(offs_am, BLOCK_SIZE_M)`` after ``tl.where``) and Dao's ``start_n`` are not: their claims hold."""
    bnb = wrapped_hints((BNB / "kernel.py").read_text())
    assert [(h.name, h.modulus) for h in bnb] == [("ram", "M"), ("rbn", "N")]
    inductor = wrapped_hints((DATA / "breaker16" / "inductor_tem_mm" / "kernel.py").read_text())
    assert [(h.name, h.modulus) for h in inductor] == [("ram", "M"), ("rbn", "N")]
    for name in ("tut_persist", "dao_fa_heur"):
        assert wrapped_hints((DATA / "breaker16" / name / "kernel.py").read_text()) == [], name
    assert wrapped_hints("def broken(:\n") == []


def test_the_ptx_s_wide_accesses_are_read_whatever_their_cache_hint_and_however_their_elements_pack() -> None:
    """The PTX's forms of a wide access on a hinted line: ``ld.global.v2.b32`` (two fp32), one ``ld.global.b32``
    holding two fp16, a cache hint between (``L1::evict_last``), an async copy's bytes; a scalar load and a line
    reading no hinted name are not read. The kernel's file is the ``.file`` of its path, else of its name (Triton's
    cache serves a compile of the same text from another copy)."""
    from kernelopt.harness.vector_hints import hinted_vectors

    source = (
        "rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)\n"
        "w = tl.load(w_ptr + rbn)\n"
        "b = tl.load(bias_ptr + rbn)\n"
        "e = tl.load(e_ptr + rbn, eviction_policy='evict_last')\n"
        "s = tl.load(s_ptr + rbn)\n"
        "z = tl.load(w_ptr + rn)\n"
    )
    ptx = "\n".join([
        "\t.loc\t1 2 23", "\tld.global.v2.b32 { %r1, %r2 }, [ %rd1 + 0 ];",
        "\t.loc\t1 3 23", "\t@%p1 ld.global.b32 { %r3 }, [ %rd2 + 0 ];",
        "\t.loc\t1 4 23", "\tld.global.L1::evict_last.v4.b32 { %r4, %r5, %r6, %r7 }, [ %rd3 + 0 ];",
        "\t.loc\t1 5 23", "\tld.global.b32 { %r8 }, [ %rd4 + 0 ];",
        "\t.loc\t1 6 23", "\tcp.async.cg.shared.global [ %r9 + 0 ], [ %rd5 + 0 ], 0x10, %r10;",
        '\t.file\t1 "/elsewhere/copy/kernel.py"',
    ])  # fmt: skip
    pointers = {"w_ptr": "*fp32", "bias_ptr": "*fp16", "e_ptr": "*bf16", "s_ptr": "*fp32", "N": "i32"}
    hints = wrapped_hints(source)
    read = {a.pointer: a.elements for a in hinted_vectors(ptx, source, "/here/kernel.py", pointers, hints)}
    assert read == {"w_ptr": 2, "bias_ptr": 2, "e_ptr": 8}, read
    assert hinted_vectors(ptx, source, "/here/other.py", pointers, hints) == []


@pytest.mark.timeout(300)
def test_the_original_s_four_warp_tile_loads_two_rows_of_a_hinted_offset_at_once_on_sm_90(tmp_path: Path) -> None:
    """The proof without a GPU: bitsandbytes' list cut to its ``BLOCK_M=256`` config on four warps, compiled for sm_90
    at M=17 (breaker16's GPU size that faulted) and M=18. It loads ``state_x`` two at a time (``ld.global.v2.b32`` at
    ``state_x_ptr + 4 * (rm % M)``): misaligned at M=17, not at 18 (on eight warps it loads one at a time:
    docs/faults.md misalign17). It loads ``state_w`` two at a time on ``rn % N`` too (the MMA layout's two columns a
    thread): N=8 is even."""
    from kernelopt.harness.target_compile import compile_for_target

    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    folder = Path(shutil.copytree(BNB, tmp_path / "bnb_int8_mm"))
    kernel = folder / "kernel.py"
    text = kernel.read_text().replace("    ]\n    + get_configs_io_bound(),", "    ],")
    keep = ('"BLOCK_M": 256, "BLOCK_N": 64',)
    kernel.write_text(
        "\n".join(ln for ln in text.splitlines() if "triton.Config({" not in ln or any(k in ln for k in keep)) + "\n"
    )
    ref = folder / "reference.py"
    sizes = '[{"M": 17, "N": 8, "K": 8}, {"M": 18, "N": 8, "K": 8}]'
    ref.write_text(re.sub(r"^SHAPES = .*$", f"SHAPES = {sizes}", ref.read_text(), flags=re.M))
    (report,) = compile_for_target([folder], "sm_90")
    assert report.problem is None and not report.failed, report
    (launch,) = report.launches  # one specialization for both sizes (neither M is a multiple of 16)
    assert launch.options["num_warps"] == 4 and len(launch.entries()) == 2, launch
    assert {a.line: a.elements for a in launch.hinted} == {W_FACTOR: 2, X_FACTOR: 2}, launch.hinted


def test_a_pick_loading_more_of_a_hinted_offset_at_once_than_the_original_is_refused_before_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tune --target sm_90``'s check of the kernel about to be written: a pick whose launch loads four of the
    wrapped rows at once where every configuration of kernel.py as it is loads two at most is refused (it faults at
    ``M = 6``, ``2 * 3``, where the original runs); one loading two, as the original's widest, is written. The compiles
    are stood in by their reports (the launches' PTX read as the sm_90 compile above reads it)."""
    from kernelopt.harness import target_compile as tc
    from tests.test_leftovers15_cases import stood_in_compiles

    def launch(block_m: int, warps: int, elements: int) -> tc.LaunchCompile:
        hinted = [VectorAccess(line=X_FACTOR, hint="ram", modulus="M", pointer="state_x_ptr", elements=elements)]
        return tc.LaunchCompile(kernel="_int8_matmul_rowwise_dequantize", shape={"M": 37, "N": 130, "K": 72},
                                signature={}, constexprs={"BLOCK_M": block_m}, divisible=[],
                                options={"num_warps": warps}, hinted=hinted if elements > 1 else [])  # fmt: skip

    authors = [launch(256, 4, 2), launch(256, 8, 1)]

    def reports(pick: list[tc.LaunchCompile]):  # type: ignore[no-untyped-def]
        return stood_in_compiles(pick, authors)

    (tmp_path / "reference.py").write_text("SHAPES = []\n")
    monkeypatch.setattr(tc, "compile_for_target", reports([launch(512, 4, 4)]))
    checked = tc.target_check("written", tmp_path / "reference.py", tmp_path, "sm_90", "original")
    assert checked.refused, checked
    assert checked.line == (
        f"the pick loads 4 elements at once at `{X_FACTOR}` (_int8_matmul_rowwise_dequantize: BLOCK_M=512, "
        "num_warps=4), on ram, which the source hints aligned though % M wraps it: misaligned on the GPU (a CUDA "
        "fault) where M is no multiple of 4, as at M=6, where kernel.py as it is (2 at a time at most) runs on sm_90; "
        "nothing written"
    )
    monkeypatch.setattr(tc, "compile_for_target", reports([launch(256, 4, 2)]))
    assert not tc.target_check("written", tmp_path / "reference.py", tmp_path, "sm_90", "original").refused


@pytest.mark.timeout(120)
def test_the_written_list_runs_the_pick_where_the_prune_keeps_one_config_a_tile(tmp_path: Path) -> None:
    """bitsandbytes' ``early_config_prune`` keeps one config a tile, the one with the most stages. The pick
    (``32 x 32 x 64``, two stages) shares its tile with the io-bound list's six-stage config: the tuned-first wrapper
    found it missing from what the prune kept and ran the original's autotuning, ten configs, at every size (on the
    H100 its check met the original's own fault at M=37). The prune now judges the pick beside the original configs of
    other tiles: the pick alone runs. A size where the prune drops it still gets the original's configs."""
    import torch

    from kernelopt.tunables.edit import keep_pruned_fallback

    source = (BNB / "kernel.py").read_text()
    start = source.index("    configs=[")
    end = source.index("    + get_configs_io_bound(),\n", start) + len("    + get_configs_io_bound(),\n")
    pick = 'triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 64, "SPLIT_K": 1}, num_warps=2, num_stages=2)'
    kept = keep_pruned_fallback(source, source[:start] + f"    configs=[{pick}],\n" + source[end:],
                                "_int8_matmul_rowwise_dequantize")  # fmt: skip
    assert kept is not None and "_int8_matmul_rowwise_dequantize_tuned_first" in kept[0], kept
    (tmp_path / "kernel.py").write_text(kept[0])
    with triton_interpreted():
        module = load_fresh(tmp_path / "kernel.py", "_misalign17_written")
    tuner = module._int8_matmul_rowwise_dequantize
    prune = module._int8_matmul_rowwise_dequantize_tuned_first
    ran = prune(tuner.configs, {"M": 37, "N": 130, "K": 72, "A": torch.empty(0)})
    assert [(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_K"], c.num_stages, c.num_warps) for c in ran] == [(32, 64, 2, 2)]
    # the user's prune drops what overflows shared memory: a tuned tile it drops leaves the original's configs
    tuner.configs[0].num_stages = 100
    assert len(prune(tuner.configs, {"M": 37, "N": 130, "K": 72})) > 1


def test_the_gpu_loop_stops_at_a_sticky_cuda_error_naming_the_kernel_and_the_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A misaligned address loses the CUDA context: every later call raises it again, wherever it comes (breaker16's
    test failed at the next size's ``torch.manual_seed``, naming neither). The loop stops at the error and names the
    folder, the kernel file and the size; the next size is never run."""
    import tests.gpu_correct as gpu_correct

    monkeypatch.setattr(gpu_correct, "DEVICE", "cpu")
    faulting = tmp_path / "faulting.py"
    faulting.write_text(
        "calls = []\n\n\ndef run(*args):\n    calls.append(args[0].shape)\n"
        "    raise RuntimeError('CUDA error: misaligned address\\nCUDA kernel errors might be asynchronously reported')\n"
    )
    shapes = [{"M": 17, "N": 8, "K": 8}, {"M": 18, "N": 8, "K": 8}]
    with pytest.raises(gpu_correct.StickyFault) as caught:
        gpu_correct.correct_on_device(BNB, shapes, lambda ran: True, kernel_py=faulting)
    assert caught.value.label == "M=17,N=8,K=8" and list(caught.value.out) == ["M=17,N=8,K=8"]
    assert str(caught.value).startswith(
        "bnb_int8_mm (faulting.py) at M=17,N=8,K=8: RuntimeError: CUDA error: misaligned address CUDA kernel errors"
    ), caught.value


# ------------------------------------------------------------------------------------- on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_the_original_faults_at_an_odd_m_and_the_written_pick_holds_there_on_a_gpu(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (scripts/gpu_misalign17.sh): bitsandbytes' int8 matmul as its authors wrote it faults at
    M=37 (a SHAPES entry) with a misaligned address, as the sm_90 compile predicts (run in a process of its own: the
    CUDA context is lost); at even sizes it is right. The kernel ``tune`` writes for the H100 session's pick (its list
    headed by the pick, its prune wrapped) runs the pick alone, which loads no hinted row two at a time: right at
    every SHAPES entry, M=37 included, and at odd sizes no entry names."""
    import subprocess
    import sys

    from tests.gpu_correct import assert_correct, written_files
    from tests.test_breaker7_cases import _outputs_checked

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    probe = (
        "import sys, torch; sys.path.insert(0, sys.argv[1]); import kernel, reference\n"
        "inputs = reference.get_inputs(M=37, N=130, K=72, device='cuda')\n"
        "kernel.run(*inputs); torch.cuda.synchronize(); print('ran')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(BNB)], capture_output=True, text=True, timeout=300)
    print(done.stdout[-2000:], done.stderr[-2000:])
    assert done.returncode != 0 and "misaligned address" in done.stderr, (done.returncode, done.stderr[-2000:])
    assert_correct(BNB, [{"M": 18, "N": 8, "K": 8}, {"M": 130, "N": 264, "K": 72}], _outputs_checked)
    written = written_files(BNB.parent, {"bnb_int8_mm": PICK}, tmp_path)["bnb_int8_mm"]
    sizes = [{"M": 64, "N": 96, "K": 128}, {"M": 37, "N": 130, "K": 72}, {"M": 150, "N": 40, "K": 256},
             {"M": 257, "N": 130, "K": 72}, {"M": 19, "N": 8, "K": 8}]  # fmt: skip
    assert_correct(BNB, sizes, _outputs_checked, kernel_py=written)
