"""Issue 32's serving kernels whose launch settings come from JSON files keyed by the device and the shape, read
through ``lru_cache``d getters (vLLM's batched-experts MoE, tests/data/breaker23/vllm_batched_moe; AMD AITER's GEMM,
tests/data/breaker22/aiter_gemm). ``tune`` carries the files beside kernel.py, unchanged, into each folder a candidate
loads from (c30), and a tile read from a dict of settings handed in is tabled over the launcher's own sizes (c31).
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
