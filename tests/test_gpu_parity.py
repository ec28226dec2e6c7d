"""Where Triton's interpreter (``TRITON_INTERPRET=1``: CI, ``tune --device cpu``) and a GPU compile disagree
(docs/faults.md, "Interpreter and GPU disagree"). The interpreter ran a ``tl.dot`` with K = 4 or 8 and a launch of
``num_warps=6``, which a GPU compile refuses: ``tune --device cpu`` judged ``KSTEP=4`` candidates correct
(2026-12-05, 16 candidates, two of them). kernelopt's workers now refuse both on the CPU with the GPU's rule
(:mod:`kernelopt.harness.interpreter`); the cross-compile test checks those verdicts against Triton's own compile for
sm_90, which runs without a GPU."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernelopt.harness.interpreter import dot_k_problem, launch_option_problems
from tests.conftest import load_fresh, skip_without, triton_interpreted

DATA = Path(__file__).parent / "data" / "gpuparity"


def test_the_dot_rule_is_the_nvidia_backend_s() -> None:
    assert dot_k_problem(16, 32) is None and dot_k_problem(16, 16) is None and dot_k_problem(32, 8) is None
    assert "K >= 16" in (dot_k_problem(8, 32) or "") and "K >= 16" in (dot_k_problem(4, 16) or "")
    assert "K >= 32" in (dot_k_problem(16, 8) or "")


def test_num_warps_must_be_a_power_of_two_up_to_32() -> None:
    assert launch_option_problems({"num_warps": 8, "num_stages": 0}) == []
    assert launch_option_problems({}) == []
    for bad in (6, 3, 64):
        (line,) = launch_option_problems({"num_warps": bad})
        assert line.startswith(f"num_warps={bad} must be one of [1, 2, 4, 8, 16, 32] on a GPU")


@pytest.mark.timeout(120)
def test_the_interpreter_refuses_what_a_gpu_compile_refuses() -> None:
    import torch

    with triton_interpreted():
        dots = load_fresh(DATA / "dots.py", "_gpuparity_dots")
        assert dots.launch(16, torch.float32) < 1e-4
        assert dots.launch(32, torch.int8) == 0.0
        with pytest.raises(Exception, match=r"tl.dot with K = 8 \(32-bit operands\): a GPU compile needs K >= 16"):
            dots.launch(8, torch.float32)
        with pytest.raises(Exception, match=r"tl.dot with K = 16 \(8-bit operands\): a GPU compile needs K >= 32"):
            dots.launch(16, torch.int8)
        with pytest.raises(ValueError, match=r"dot_tile: num_warps=6 must be one of \[1, 2, 4, 8, 16, 32\] on a GPU"):
            dots.launch(16, torch.float32, num_warps=6)
        a, b, c = dots.operands(16, torch.float32)
        with pytest.raises(ValueError, match=r"num_warps=3 must be one of"):  # an autotune config's, too
            dots.dot_tile_tuned[(1,)](a, b, c, M=16, N=16, K=16)


def _compiled(file: Path, cases: list[dict[str, object]]) -> list[dict[str, object]]:
    """Triton's own compile of each case for an NVIDIA target (no GPU needed), in a process of its own with
    ``TRITON_INTERPRET`` unset (tests/data/gpuparity/compile_for.py): ``error`` None when it compiles."""
    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")  # compiled apart
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    job = json.dumps({"file": str(file), "cases": cases})
    done = subprocess.run(
        [sys.executable, str(DATA / "compile_for.py")], input=job, capture_output=True, text=True, env=env, timeout=150
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


#: the dot cases (K, operand, num_warps) interpreted and compiled for sm_90: the last one passes
DOT_CASES = [(8, "fp32", 4), (16, "fp32", 6), (16, "i8", 4), (16, "fp32", 4)]
#: the GEMM tiles (BLOCK_M, BLOCK_N, BLOCK_K), stages and whether the portable fit admits them: the largest admitted,
#: one refused
GEMM_TILES = (((128, 128, 32), 3, True), ((128, 128, 64), 4, False))
GEMM_SIGNATURE = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
GEMM_SIGNATURE |= {"BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}


def _gemm_case(tile: tuple[int, int, int], stages: int) -> dict[str, object]:
    values = dict(zip(("BLOCK_M", "BLOCK_N", "BLOCK_K"), tile, strict=True))
    options = {"num_stages": stages}
    return {"kernel": "_mm", "signature": GEMM_SIGNATURE, "constexprs": values, "options": options, "arch": 90}


@pytest.fixture(scope="module")
def sm90_compiled() -> dict[str, list[dict[str, object]]]:
    """Triton's compile for sm_90 of the dot cases and the GEMM tiles, in one process of their own (one start of
    Triton's compiler for both tests that read it)."""
    dots = [{**_dot_case(k, operand, warps), "file": str(DATA / "dots.py")} for k, operand, warps in DOT_CASES]
    gemm = [{**_gemm_case(tile, stages), "file": str(DATA / "gemm" / "kernel.py")} for tile, stages, _ in GEMM_TILES]
    got = _compiled(DATA / "dots.py", [*dots, *gemm])
    return {"dots": got[: len(dots)], "gemm": got[len(dots) :]}


def _dot_case(k: int, operand: str, num_warps: int) -> dict[str, object]:
    signature = {"a_ptr": f"*{operand}", "b_ptr": f"*{operand}", "c_ptr": "*fp32"}
    signature |= {"M": "constexpr", "N": "constexpr", "K": "constexpr"}
    constexprs = {"M": 16, "N": 16, "K": k}
    return {
        "kernel": "dot_tile",
        "signature": signature,
        "constexprs": constexprs,
        "options": {"num_warps": num_warps},
        "arch": 90,
    }


@pytest.mark.timeout(180)
def test_the_interpreter_s_verdicts_match_a_compile_for_sm_90(
    sm90_compiled: dict[str, list[dict[str, object]]],
) -> None:
    """The same kernel source, interpreted with kernelopt's rules and compiled by Triton for an H100 (sm_90, no GPU
    needed: Triton compiles to a cubin on the CPU): each configuration passes in both or fails in both."""
    import torch

    dtypes = {"fp32": torch.float32, "i8": torch.int8}
    cases = [(k, dtypes[operand], operand, warps) for k, operand, warps in DOT_CASES]  # the last one passes
    with triton_interpreted():
        dots = load_fresh(DATA / "dots.py", "_gpuparity_dots_interp")
        interpreted = {}
        for k, dtype, _, warps in cases:
            try:
                dots.launch(k, dtype, num_warps=warps)
                interpreted[(k, str(dtype), warps)] = None
            except Exception as exc:  # the interpreter's error is the verdict
                interpreted[(k, str(dtype), warps)] = str(exc)
    for (k, dtype, _, warps), gpu in zip(cases, sm90_compiled["dots"], strict=True):
        cpu = interpreted[(k, str(dtype), warps)]
        assert (gpu["error"] is None) == (cpu is None), (k, dtype, warps, cpu, gpu)
    assert interpreted[(16, "torch.float32", 4)] is None  # the passing case ran: not every verdict a refusal


@pytest.mark.timeout(240)
def test_cpu_tune_never_judges_a_dot_k_a_gpu_refuses_correct(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tune --device cpu`` on a GEMM whose K step is a launch literal of no known family (its domain: 2..32 around
    its value 8, as written): the kernel as written and every candidate with K < 16 fail on the CPU as they fail to
    compile on a GPU; whatever is written has K >= 16."""
    from kernelopt.cli.app import main

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = tmp_path / "kstep"
    shutil.copytree(DATA / "kstep", folder)
    out = tmp_path / "out"
    # --out relative to the working folder: the candidates' workers load them by a path that must not depend on
    # theirs (a relative --out failed every candidate with FileNotFoundError, the H100 run of 2026-12-05)
    monkeypatch.chdir(tmp_path)
    args = ["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "2", "--out", "out"]
    code = main(args)
    capsys.readouterr()
    record = next(out.rglob("record.jsonl"))
    results = [json.loads(x)["result"] for x in record.read_text().splitlines() if '"kind":"result"' in x]
    first = results[0]
    assert first["config"]["KSTEP"] == 8 and first["outcome"] != "ok"
    assert "a GPU compile needs K >= 16" in json.dumps(first)
    assert all(r["config"]["KSTEP"] >= 16 for r in results if r["outcome"] == "ok")

    # KSTEP spans a tl.arange, so it is searched as a block (16..65536); the dot's operand tiles, measured in the
    # interpreter whatever they are named, must fit the portable shared memory (KSTEP=4096 with 32x16 tiles:
    # 768 KiB, which every GPU compile refuses; a CPU tune wrote it on 2026-12-05)
    def smem(r: dict) -> int:
        c = r["config"]
        return (c["BLOCK_M"] + c["BLOCK_N"]) * c["KSTEP"] * 4

    for r in results[1:]:
        assert (r["outcome"] == "invalid") == (smem(r) > 100 * 1024), r
    assert not any("FileNotFoundError" in json.dumps(r) for r in results)
    # a candidate the bound refuses is screened, not charged: the budget's 3 go to candidates that ran (on the H100
    # of 2026-12-05 a budget of 6 went to 3 refused and 3 K=8 run errors, and nothing was written)
    assert len([r for r in results if r["outcome"] != "invalid" and not r["retimed"]]) == 3, results
    # a K under 16 fails smaller tiles too: none at most the kernel as written's 32 x 32 x 8 is proposed (tuneleft8)
    assert not [
        r for r in results[1:] if all(r["config"][k] <= first["config"][k] for k in ("BLOCK_M", "BLOCK_N", "KSTEP"))
    ]
    written = (folder / "kernel.py").read_text()
    if code == 0:  # every KSTEP written is at least 16; the original's 8 stays only where a guard falls back to it
        values = _bound_values(written, "KSTEP")
        assert values and all(k >= 16 for k in values if k != 8) and any(k >= 16 for k in values), written


def _bound_values(source: str, name: str) -> list[int]:
    """The integer literals ``source`` binds to ``name``: ``name=16`` keywords and ``name = 16`` /
    ``a, name = 32, 16`` assignments (a guard writes either)."""
    found: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg == name and isinstance(node.value, ast.Constant):
            found.append(node.value.value)
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            pairs = (
                zip(target.elts, value.elts, strict=False)
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
                else [(target, value)]
            )
            found += [
                v.value for t, v in pairs if isinstance(t, ast.Name) and t.id == name and isinstance(v, ast.Constant)
            ]
    return found


def test_a_space_chosen_for_no_gpu_fits_the_smallest_nvidia_spec_sheet() -> None:
    from kernelopt.hardware.specs import builtin_specs
    from kernelopt.tunables import ResourceLimits, resource_problems

    key = "shared_memory_per_sm_bytes"
    nvidia = [s.figures[key].value for s in builtin_specs() if s.vendor == "nvidia" and s.figures[key].value]
    limits = ResourceLimits.portable(None)
    assert limits.shared_memory_bytes == min(nvidia) and limits.elem_bytes == 4
    assert "no GPU named: the smallest of the NVIDIA spec sheets" in (limits.source or "")
    assert ResourceLimits.portable("bf16").elem_bytes == 2 and ResourceLimits.portable("fp9").elem_bytes == 4
    # 3 stages of fp32 64 x 256 x 128 tiles: 480 KiB, more than any GPU's (judged correct on the CPU before)
    (why,) = resource_problems({"BLOCK_M": 64, "BLOCK_N": 256, "BLOCK_K": 128}, limits)
    assert why.startswith("estimated shared memory 491520 B (stages x (BM*BK + BK*BN) x 4 B) > ")
    assert resource_problems({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, limits) == []


@pytest.mark.timeout(120)
def test_cpu_tune_s_space_holds_no_tile_a_gpu_lacks_the_shared_memory_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """``tune --device cpu`` names no GPU: its space (and so what it writes) is pruned by the smallest NVIDIA spec
    sheet's shared memory, the operands taken as fp32 when no dtype is given. Before, a 16-candidate CPU session of
    this GEMM at 256 x 256 x 256 judged 64 x 256 x 128 and 128 x 64 x 128 tiles correct (480 and 288 KiB at 3
    stages, more than an H100's 227 KiB a block) and timed the first within 3.3x of the best."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    prepared = prepare_folder(TuneRequest(folder=DATA / "gemm", device="cpu"))
    assert prepared.gpu is None and prepared.limits is not None
    assert "no GPU named" in (prepared.limits.source or "")
    tiles = {(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"]) for c in prepared.space.configs()}
    assert (128, 128, 32) in tiles and (64, 64, 32) in tiles
    assert not {(64, 256, 128), (128, 64, 128), (128, 128, 64), (256, 256, 128)} & tiles


@pytest.mark.timeout(120)
def test_cpu_tune_s_fit_reads_the_stages_the_launch_is_written_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the CPU ``num_stages`` is no knob (the interpreter ignores it), but a GPU runs the launch with it: a launch
    written with ``num_stages=8`` holds 8 tiles in shared memory, so 64 x 64 x 32 fp32 tiles (48 KiB at Triton's
    default 3 stages, 128 KiB at 8) are pruned. Before, the estimate took Triton's default."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = tmp_path / "gemm"
    shutil.copytree(DATA / "gemm", folder)
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("BLOCK_K=32)", "BLOCK_K=32, num_stages=8)"))
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    assert "num_stages" not in prepared.space.names
    assert any(rule.startswith("as written: ") and "num_stages=8" in rule for rule in prepared.space.fit_rules)
    tiles = {(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"]) for c in prepared.space.configs()}
    assert (32, 32, 32) in tiles and (64, 64, 32) not in tiles and (128, 128, 32) not in tiles


def test_a_cpu_check_of_a_tf32_dot_at_an_fp32_tolerance_says_what_a_gpu_will_see(tmp_path: Path) -> None:
    """p3: the interpreter multiplies a default-precision fp32 ``tl.dot`` in fp32, a GPU in TF32, so a check at an
    fp32 tolerance passes on the CPU and fails on the GPU (the H100 run's two GEMMs): tune on the CPU says so in one
    line, unless reference.py's RTOL already allows TF32, the dot asks for ieee, or the card's dtype is not fp32."""
    from kernelopt.tuning.dot_precision import tf32_line
    from kernelopt.tuning.problem import Problem

    folder = tmp_path / "gemm"
    shutil.copytree(DATA / "gemm", folder)
    assert tf32_line(Problem.from_folder(folder, device="cpu")) is None  # RTOL = 1e-2: TF32's
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace("RTOL = 1e-2", "RTOL = 1e-4"))
    line = tf32_line(Problem.from_folder(folder, device="cpu"))
    assert line is not None and line.startswith("on a GPU kernel.py's tl.dot multiplies fp32 operands in TF32")
    assert 'pass input_precision="ieee", or give reference.py an RTOL of 0.01' in line
    assert tf32_line(Problem.from_folder(folder, device="cuda")) is None  # on the GPU the check itself shows it
    (folder / "README.md").write_text("---\ndtype: bf16\n---\n")
    assert tf32_line(Problem.from_folder(folder, device="cpu")) is None
    assert tf32_line(Problem.from_folder(DATA / "kstep", device="cpu")) is None  # input_precision="ieee"


@pytest.mark.timeout(180)
def test_the_shared_memory_estimate_bounds_triton_s_own_for_sm_90(
    sm90_compiled: dict[str, list[dict[str, object]]],
) -> None:
    """A tile the portable fit admits asks, compiled by Triton for an H100 (sm_90, where a TF32 dot keeps one tile a
    stage; sm_80 keeps one fewer), for no more shared memory than the bound; one it refuses asks for more than an
    H100 has (Triton's compile reports its shared memory without a GPU; a launch over the device's limit raises
    OutOfResources)."""
    from kernelopt.hardware.specs import lookup
    from kernelopt.tunables import ResourceLimits, resource_problems

    limits = ResourceLimits.portable(None)
    assert limits.shared_memory_bytes is not None
    cases = []
    for tile, stages, admitted in GEMM_TILES:
        values = {**dict(zip(("BLOCK_M", "BLOCK_N", "BLOCK_K"), tile, strict=True)), "num_stages": stages}
        assert (resource_problems(values, limits) == []) is admitted, values
        cases.append({**_gemm_case(tile, stages), "admitted": admitted})
    h100 = lookup("H100").figures["shared_memory_per_sm_bytes"].value
    for case, got in zip(cases, sm90_compiled["gemm"], strict=True):
        assert got["error"] is None, got
        if case["admitted"]:
            assert got["shared"] <= limits.shared_memory_bytes, (case, got)
        else:
            assert h100 is not None and got["shared"] > h100, (case, got)


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_a_gpu_refuses_what_the_interpreter_now_refuses(tmp_path: Path) -> None:
    """On a CUDA GPU: the kernels the CPU refuses fail to compile and the ones it passes run correctly; and the
    kernel.py ``tune --device cpu`` writes for the K-step GEMM (kernel as written K = 8, which no GPU compiles)
    compiles and is correct at sizes SHAPES never names."""
    import torch

    assert torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET", "0") in ("", "0")
    dots = load_fresh(DATA / "dots.py", "_gpuparity_dots_gpu")
    assert dots.launch(16, torch.float32, "cuda") < 1e-4
    assert dots.launch(32, torch.int8, "cuda") == 0.0
    for k, dtype, warps in ((8, torch.float32, 4), (16, torch.int8, 4), (16, torch.float32, 6)):
        with pytest.raises(Exception):  # Triton's compile errors share no class across versions
            dots.launch(k, dtype, "cuda", num_warps=warps)
    folder = tmp_path / "kstep"
    shutil.copytree(DATA / "kstep", folder)
    # the CPU tune in a process of its own: this one imported Triton for the GPU, the interpreter needs it imported so
    args = ["tune", str(folder), "--device", "cpu", "--budget", "6", "--repetitions", "2", "--out", str(tmp_path / "o")]
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "kernelopt", *args], capture_output=True, text=True, env=env, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    written = (folder / "kernel.py").read_text()
    assert "KSTEP=8)" not in written, written
    kernel = load_fresh(folder / "kernel.py", "_gpuparity_kstep_gpu")
    for m, n, k in ((48, 40, 72), (200, 96, 33), (129, 257, 500)):
        a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
        assert torch.allclose(kernel.run(a, b), a @ b, atol=1e-3, rtol=1e-3), (m, n, k)
