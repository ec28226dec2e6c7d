"""Issue 32's serving kernels whose launch settings come from JSON files keyed by the device and the shape, read
through ``lru_cache``d getters (vLLM's batched-experts MoE, tests/data/breaker23/vllm_batched_moe; AMD AITER's GEMM,
tests/data/breaker22/aiter_gemm). ``tune`` carries the files beside kernel.py, unchanged, into each folder a candidate
loads from (c30), a tile read from a dict of settings handed in is tabled over the launcher's own sizes (c31), and
the settings of a JSON chain from which others are derived are refused by name (c33).
docs/faults.md, "Config files and getters (configs23, 2026-12-07)"."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from kernelopt.errors import InputFileError
from kernelopt.kernelsource import KernelForm, carried_data, carried_digest, carry, check_kernel

VLLM = Path(__file__).parent / "data" / "breaker23" / "vllm_batched_moe"
AITER = Path(__file__).parent / "data" / "breaker22" / "aiter_gemm"


def _module(path: Path, name: str) -> ModuleType:
    """``path`` imported as the harness imports a candidate's kernel.py: by its file, in its folder."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def test_c30_the_json_tables_a_kernel_reads_beside_it_travel_with_each_candidate(tmp_path: Path) -> None:
    """Seen on 2026-12-07 (breaker23): ``tune --device cpu`` of vllm_batched_moe refused in one line, "reads configs
    (line 421) from its own folder", and so did aiter_gemm's (line 39): a candidate loads from a folder of its own,
    where vLLM's getter finds no file and silently takes ``get_default_config``'s tiles (a configuration other than
    the one timed: 64-row tiles at 32 tokens, whose launch asserts) and AITER's raises. Decided: the data a kernel
    reads beside it (no source it builds) is linked, unchanged, into each candidate's folder and the target compile's,
    and its bytes are part of the session's key; a pick is written in kernel.py, never in the files. A workspace
    (``optimize``) still refuses them, and a C++ source is refused by ``tune`` as before."""
    from kernelopt.tuning.kernel_evaluator import KernelEvaluator

    for folder, line in ((VLLM, 421), (AITER, 39)):
        with pytest.raises(InputFileError, match=rf"reads configs \(line {line}\) from its own folder"):
            check_kernel(folder / "kernel.py", KernelForm.FUNCTION)
        check_kernel(folder / "kernel.py", KernelForm.FUNCTION, carried=True)
        assert carried_data(folder / "kernel.py") == ["configs"]
    # a candidate's folder as the evaluator writes it: the authors' JSON entries read there
    fake = SimpleNamespace(session_dir=tmp_path / "session", problem=SimpleNamespace(kernel_py=VLLM / "kernel.py"))
    written = KernelEvaluator._write(fake, (VLLM / "kernel.py").read_text())  # type: ignore[arg-type]
    assert (written.parent / "configs").is_symlink() and (written.parent / "configs").resolve() == VLLM / "configs"
    table = json.loads((VLLM / "configs" / "E=4,N=64,device_name=cpu.json").read_text())
    shapes = ((4, 128, 64), (4, 64, 64))
    picked = _module(written, "c30_carried").try_get_optimal_moe_config(*shapes, 1, None, 32)
    assert picked == table["32"] and picked["BLOCK_SIZE_M"] == 32
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(VLLM / "kernel.py", bare / "kernel.py")
    assert (
        _module(bare / "kernel.py", "c30_bare").try_get_optimal_moe_config(*shapes, 1, None, 32)["BLOCK_SIZE_M"] == 64
    )
    # an entry changed is another session; a source beside it is not carried
    copy = tmp_path / "copy"
    shutil.copytree(VLLM, copy, ignore=shutil.ignore_patterns(".kernelopt"))
    before = carried_digest(copy / "kernel.py")
    (copy / "configs" / "E=4,N=64,device_name=cpu.json").write_text(json.dumps({"32": table["16"]}))
    assert carried_digest(copy / "kernel.py") != before
    (copy / "configs" / "tile.cu").write_text("")
    assert carried_data(copy / "kernel.py") == []
    with pytest.raises(InputFileError, match=r"reads configs \(line 421\) from its own folder"):
        check_kernel(copy / "kernel.py", KernelForm.FUNCTION, carried=True)
    target = tmp_path / "target"
    target.mkdir()
    carry(VLLM / "kernel.py", target)
    carry(VLLM / "kernel.py", target)  # once linked, kept
    assert sorted(p.name for p in target.iterdir()) == ["configs"]


def test_c31_a_tile_read_from_a_dict_handed_in_is_tabled_over_the_launcher_s_own_sizes() -> None:
    """Seen on 2026-12-07 (breaker23): with its files carried, ``tune`` of vllm_batched_moe said "no tunable knob:
    ... BLOCK_M (computed (BLOCK_M = config["BLOCK_SIZE_M"]) from config, which no SHAPES entry names as a size ...)":
    ``config`` is the caller's pick from the device's file (or ``get_default_config``) by the sizes. A setting read by
    string keys alone from a parameter the function never binds stands for the sizes the function itself reads from
    its tensors (``max_num_tokens = A.size(1)``, ``K``, ``N``), so its table is over them, the caller's dict the
    fallback; a setting computed from a size itself keeps its own."""
    from kernelopt.tunables import discover_source

    found = {t.key: t for t in discover_source((VLLM / "kernel.py").read_text())}
    for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K"):
        t = found[f"batched_triton_kernel:{name}"]
        assert t.editable and t.size_names == ["max_num_tokens", "K", "N"], (name, t.size_names, t.refused_reason)
    mixed = (VLLM / "kernel.py").read_text().replace('BLOCK_K = config["BLOCK_SIZE_K"]', "BLOCK_K = min(K, 64)")
    t = {t.key: t for t in discover_source(mixed)}["batched_triton_kernel:BLOCK_K"]
    assert t.size_names == ["K"], t.size_names


#: realistic sizes on the GPU (256 MB - 512 MB a weight tensor): vLLM's batched MoE through the GPU's own JSON entry at
#: E=4, N=64 (an H100's or H200's file) and its default dict elsewhere; AITER's GEMM split along K by 4 through the
#: ``90-GEMM-A16W16.json`` entry of M <= 16 (the reduce kernel runs) and unsplit above
GPU_SIZES: dict[str, list[dict[str, int]]] = {
    "vllm_batched_moe": [{"E": 4, "T": 256, "K": 4096, "N": 64}, {"E": 16, "T": 512, "K": 4096, "N": 2048}],
    "aiter_gemm": [
        {"M": 16, "N": 8192, "K": 16384},
        {"M": 13, "N": 4099, "K": 3000},
        {"M": 4096, "N": 8192, "K": 8192},
    ],
}


def _tuned_on_cuda(folder: Path, wall_s: int) -> str:
    """``kernelopt tune folder --device cuda --budget-wall-s wall_s`` as a user runs it (a process of its own, the
    interpreter off): its output, printed for the phase's record."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    cmd = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--budget-wall-s", str(wall_s)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=wall_s + 200, env=env)
    said = f"rc={done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-3000:]}"
    print(folder.name, said)
    return said


@pytest.mark.gpu
@pytest.mark.timeout(560)
def test_c32_tune_on_cuda_reads_the_gpu_s_json_entries_and_leaves_a_kernel_right_at_realistic_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU: ``tune --device cuda`` of copies of vllm_batched_moe and aiter_gemm runs (no folder refusal,
    c30), its candidates reading the GPU's own JSON entries through the links; the authors' files are unchanged after
    it, and the kernel.py it leaves (written or not) is right at realistic sizes no entry names. AITER's split-K reduce
    kernel as ``tune`` writes a pick of it (64 x 128 tiles) is right where the GPU's file splits K by 4."""
    from tests.gpu_correct import assert_correct
    from tests.test_breaker7_cases import _outputs_checked
    from tests.test_breaker_cases import _tune_edit

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    for data in (VLLM, AITER):
        folder = Path(shutil.copytree(data, tmp_path / data.name, ignore=shutil.ignore_patterns(".kernelopt")))
        said = _tuned_on_cuda(folder, 120)
        assert "from its own folder" not in said and "Traceback" not in said, said
        for original in sorted((data / "configs").rglob("*.json")):
            assert (folder / original.relative_to(data)).read_bytes() == original.read_bytes(), original
        linked = [p for p in (folder / ".kernelopt").rglob("configs") if p.is_symlink()]
        assert all(p.resolve() == folder / "configs" for p in linked), linked
        assert_correct(folder, GPU_SIZES[data.name], _outputs_checked)
    folder = Path(shutil.copytree(AITER, tmp_path / "aiter_written", ignore=shutil.ignore_patterns(".kernelopt")))
    written, note = _tune_edit(folder, {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128}, kernel="_gemm_splitk_reduce_kernel")
    assert written is not None, note
    (folder / "kernel.py").write_text(written)
    assert_correct(folder, GPU_SIZES["aiter_gemm"], _outputs_checked)


def test_c33_settings_from_which_others_are_derived_are_refused_by_name() -> None:
    """AITER's ``compute_splitk_params`` computes ``SPLITK_BLOCK_SIZE`` from ``NUM_KSPLIT`` and halves ``NUM_KSPLIT``
    while ``BLOCK_SIZE_K`` exceeds it: a tuner setting one of them after ``_get_config`` would break the others
    (a split the kernel's ``SPLITK_BLOCK_SIZE`` no longer covers). d31's refusal named the file alone; it names these
    three and where they are computed, and a chain that derives no key from another names none."""
    from kernelopt.tunables.dict_origin import file_origin

    source = (AITER / "kernel.py").read_text()
    origin = file_origin(source, "gemm_a16w16", "config")
    assert origin is not None and [k for k, _, _ in origin.derived] == [
        "SPLITK_BLOCK_SIZE",
        "NUM_KSPLIT",
        "BLOCK_SIZE_K",
    ]
    assert origin.derived_text() == (
        "SPLITK_BLOCK_SIZE, NUM_KSPLIT and BLOCK_SIZE_K are computed from one another in compute_splitk_params() "
        "(line 170)"
    )
    plain = source.replace("return compute_splitk_params(config, K), is_tunned", "return config, is_tunned")
    origin = file_origin(plain, "gemm_a16w16", "config")
    assert origin is not None and origin.derived == () and origin.derived_text() is None
