"""On a GPU, ``tune`` compiles its pick for that GPU's own target without ``--target`` (target18, docs/faults.md).

kkt18 found fla's chunk kkt (tests/data/breaker16/fla_kkt) racing on the H100 under Triton 3.6 for 12 of its 27
configs, and misalign17 a pick loading wider than the source's alignment hints faulting at sizes no entry names; both
are read from a compile for sm_90 (``kernelopt.harness.target_compile``), which ran only under ``tune --target``. A
user on a GPU runs ``tune --device cuda``: the pick passed the GPU's checks at the entries and the net and was written.
Now a session on an NVIDIA GPU compiles the pick for the GPU's own capability (torch's
``get_device_capability``: stood in here) before the write, and refuses a race or a wider vector; a compile failure
or spills are not its to refuse (the GPU compiled and timed the pick itself). The GPU test runs ``tune --device cuda
--json`` on fla_kkt with one racing config among safe ones and checks the kernel written at the GPU size against a
float64 reference.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import load_fresh

FLA = Path(__file__).parent / "data" / "breaker16" / "fla_kkt"
TTGIR = Path(__file__).parent / "data" / "kkt18"
#: fla_kkt's configs the GPU proof keeps: (BK, num_warps, num_stages); the last races on sm_90 (a K loop of async
#: wgmmas at K=128, tests/test_kkt18_cases.py's ``racy``), the others cannot
CONFIGS = [(128, 4, 2), (128, 2, 2), (64, 2, 3), (64, 4, 3)]
RACING = (64, 4, 3)


def cut_kkt(folder: Path, configs: list[tuple[int, int, int]]) -> Path:
    """fla_kkt copied into ``folder`` with its autotune list cut to ``configs`` ((BK, num_warps, num_stages))."""
    shutil.copytree(FLA, folder)
    kernel = folder / "kernel.py"
    listed = ", ".join(map(str, configs))
    cut = (
        'configs=[\n        triton.Config({"BK": BK}, num_warps=num_warps, num_stages=num_stages)\n'
        f"        for BK, num_warps, num_stages in [{listed}]\n    ],"
    )
    text, count = re.subn(r"configs=\[\n.*?\n    \],", lambda _: cut, kernel.read_text(), count=1, flags=re.S)
    assert count == 1
    kernel.write_text(text)
    return folder


def on_gpu(monkeypatch: pytest.MonkeyPatch, capability: tuple[int, int] = (9, 0), hip: str | None = None) -> list:
    """torch.cuda standing in for an NVIDIA GPU of ``capability`` (or ROCm's, ``hip``); the indices it was asked."""
    import torch

    asked: list = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda index=None: asked.append(index) or capability)
    monkeypatch.setattr(torch.version, "hip", hip)
    return asked


#: the entry of fla_kkt's SHAPES with a K loop (K=128 over BK=64): the one the CPU tests compile at
LOOPED = {"B": 1, "T": 70, "H": 3, "K": 128}


@pytest.fixture(scope="module")
def kkt(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """fla_kkt cut to :data:`CONFIGS`, its SHAPES to :data:`LOOPED` (one launch to compile), as a GPU session
    (``--device cuda``, no ``--target``) holds it where it checks its pick: the request, the problem, kernel.py's
    text and the session's folder (the rest of a prepared folder is the session's, not read by the check)."""
    from kernelopt.tuning.folder import TuneRequest
    from kernelopt.tuning.problem import Problem

    folder = cut_kkt(tmp_path_factory.mktemp("target18") / "fla_kkt", CONFIGS)
    reference = folder / "reference.py"
    shapes = re.compile(r"^SHAPES = .*$", re.M)
    reference.write_text(shapes.sub(lambda _: f"SHAPES = [{LOOPED}]", reference.read_text(), count=1))
    request = TuneRequest(folder=folder, device="cuda")
    return SimpleNamespace(request=request, problem=Problem.from_folder(folder, device="cuda"),
                           base_source=(folder / "kernel.py").read_text(), session_dir=folder / "session")  # fmt: skip


def asking(prepared: Any, update: dict[str, Any]) -> Any:
    """``prepared`` (:func:`kkt`) whose request is changed by ``update`` (another device, a ``--target``)."""
    return SimpleNamespace(**{**vars(prepared), "request": prepared.request.model_copy(update=update)})


def pinned(prepared: Any, config: tuple[int, int, int]) -> str:
    """kernel.py as the write would leave it pinned to one config of the list."""
    bk, warps, stages = config
    listed = re.search(r"\[\(128, 4, 2\).*?\]", prepared.base_source)
    assert listed is not None
    return prepared.base_source.replace(listed.group(0), f"[({bk}, {warps}, {stages})]")


def test_a_cuda_session_compiles_the_pick_for_its_gpu_and_refuses_fla_kkt_s_race(
    kkt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tune --device cuda`` without ``--target`` on an sm_90 GPU: the write path's check
    (``folder.target_checked``, which the session's pick and ``tune``'s write both go through) compiles the pick for
    sm_90 with no GPU (Triton's own compile here) and refuses fla_kkt's ``BK=64`` on four warps, three stages, in
    ``--target``'s words; the GPU's device index is the one asked."""
    from kernelopt.tuning.folder import _target_refusal, target_checked

    asked = on_gpu(monkeypatch)
    prepared = asking(kkt, {"device": "cuda:1"})
    checked = target_checked(prepared, pinned(prepared, RACING))
    assert checked is not None and checked.refused, checked
    assert checked.line.startswith("the pick races at B=1,T=70,H=3,K=128 (chunk_scaled_dot_kkt_fwd_kernel: "), (
        checked.line
    )
    assert ", BK=64, IS_VARLEN=False, num_warps=4, num_stages=3): its loop's asynchronous wgmmas read a ring of 2 " in (
        checked.line
    )
    assert checked.line.endswith(" on sm_90; nothing written") and asked == [1]
    refusal = _target_refusal(SimpleNamespace(prepared=prepared), pinned(prepared, RACING))  # type: ignore[arg-type]
    assert refusal == checked.line.removesuffix("; nothing written")


def _launch(config: tuple[int, int, int], races: list[int], spills: int = 0) -> Any:
    from kernelopt.harness.target_compile import LaunchCompile

    bk, warps, stages = config
    return LaunchCompile(kernel="chunk_scaled_dot_kkt_fwd_kernel", shape={"B": 1, "T": 70, "H": 3, "K": 128},
                         signature={}, constexprs={"BK": bk}, divisible=[],
                         options={"num_warps": warps, "num_stages": stages}, races=races, spills=spills)  # fmt: skip


def _races(name: str, stages: int) -> list[int]:
    """What the race reader says of fla_kkt's TTGIR as Triton 3.6 compiled it for sm_90 (tests/data/kkt18)."""
    from kernelopt.harness.wgmma_race import racing_tiles

    return racing_tiles(gzip.decompress((TTGIR / f"{name}.ttgir.gz").read_bytes()).decode(), stages)


def test_a_pick_that_cannot_race_is_written_and_spills_refuse_only_under_target(
    kkt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same GPU session's pick ``BK=128`` on four warps (one K block: no loop, read from its committed TTGIR) is
    let through, the line saying which target and why it was compiled; spilling more than kernel.py as it is refuses
    under ``--target`` only (without it the GPU compiled and timed the pick itself); a session on the CPU compiles
    nothing, and ``--json``'s ``target`` where no pick reached the write names the GPU's own target."""
    from kernelopt.cli.tune import _target_unreached
    from kernelopt.harness import target_compile as tc
    from kernelopt.tuning.folder import target_checked
    from tests.test_leftovers15_cases import stood_in_compiles

    on_gpu(monkeypatch)
    safe = _launch((128, 4, 2), _races("kkt_bk128_w4_s2", 2), spills=40)
    assert not safe.races and _races("kkt_bk64_w4_s3", 3) == [2]
    monkeypatch.setattr(tc, "compile_for_target", stood_in_compiles([safe], [_launch(RACING, [2], spills=8)]))
    written = pinned(kkt, (128, 4, 2))
    checked = target_checked(kkt, written)
    assert checked is not None and not checked.refused, checked
    assert checked.line.startswith(
        "compiled for sm_90 (this GPU's, no --target: its races and vector hints) before the write: 1 distinct "
        "launch(es) of chunk_scaled_dot_kkt_fwd_kernel at the SHAPES entries ("
    )
    aimed = asking(kkt, {"target": "sm_90"})
    spilled = target_checked(aimed, written)
    assert spilled is not None and spilled.refused and spilled.line.startswith("the pick spills 40 registers at")
    cpu = asking(kkt, {"device": "cpu"})
    assert target_checked(cpu, written) is None
    note = "the current configuration stays"
    unreached = SimpleNamespace(prepared=kkt, edit_note=note)  # --json's target where no pick reached the write
    assert _target_unreached(unreached) == (  # type: ignore[arg-type]
        f"nothing compiled for sm_90 (this GPU's) before a write: no pick reached it ({note})"
    )
    assert _target_unreached(SimpleNamespace(prepared=cpu, edit_note=note)) is None  # type: ignore[arg-type]


def test_a_rocm_gpu_or_an_unknown_capability_is_one_line_and_compiles_nothing(
    kkt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race and vector-hint readers read NVIDIA's TTGIR and PTX: on ROCm the write path says so in one line and
    compiles nothing; a capability no NVIDIA GPU has is the same."""
    from kernelopt.harness import target_compile as tc
    from kernelopt.tuning.folder import target_checked

    def no_compile(folders, target, **_):  # type: ignore[no-untyped-def]
        raise AssertionError(f"compiled for {target}")

    monkeypatch.setattr(tc, "compile_for_target", no_compile)
    on_gpu(monkeypatch, (9, 4), hip="6.2")
    rocm = target_checked(kkt, pinned(kkt, RACING))
    assert rocm is not None and not rocm.refused
    assert rocm.line == (
        "not compiled for this GPU before the write: a ROCm GPU (the race and vector-hint checks read NVIDIA's TTGIR "
        "and PTX)"
    )
    on_gpu(monkeypatch, (9, 9))
    odd = target_checked(kkt, pinned(kkt, RACING))
    assert odd is not None and not odd.refused and "compute capability 9.9 is no NVIDIA GPU's" in odd.line


def test_a_compile_that_cannot_run_stops_a_target_session_and_is_a_line_on_the_gpu_s_own(
    kkt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compile process run past its limit (or failed): ``--target`` asked for it, so the session stops (exit 3,
    as before); on the GPU's own target, a check the user never asked for, it is one line and the pick goes on."""
    from kernelopt.errors import EnvironmentProblem
    from kernelopt.harness import target_compile as tc
    from kernelopt.tuning.folder import target_checked

    def past_limit(folders, target, **_):  # type: ignore[no-untyped-def]
        raise EnvironmentProblem(f"the compile for {target} ran past its limit: ptxas")

    monkeypatch.setattr(tc, "compile_for_target", past_limit)
    on_gpu(monkeypatch)
    text = pinned(kkt, (64, 2, 3))
    checked = target_checked(kkt, text)
    assert checked == tc.TargetCheck(
        line="not compiled for sm_90 (this GPU's) before the write: the compile for sm_90 ran past its limit: ptxas"
    )
    with pytest.raises(EnvironmentProblem, match="ran past its limit"):
        target_checked(asking(kkt, {"target": "sm_90"}), text)


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_tune_without_target_never_writes_a_racing_fla_kkt_config(
    kkt: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU: the write path's check, the capability read from the GPU itself, refuses fla_kkt's racing
    config on sm_90 (an H100 or H200). Then ``tune --device cuda --json`` (no ``--target``) on fla_kkt cut to
    :data:`CONFIGS` (one racing config beside three that cannot race): where it writes, the json's ``target`` line
    says the pick was compiled for the GPU's own target, no config the written kernel.py lists races (kkt18's
    ``racy``), and the kernel written is right three runs in a row at breaker16's GPU size against the reference in
    float64; where it writes nothing, kernel.py is left as it was."""
    import torch

    from kernelopt.tuning.folder import target_checked
    from tests.test_kkt18_cases import RUNS, SIZES, _judged, racy

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    major, minor = torch.cuda.get_device_capability()
    checked = target_checked(kkt, pinned(kkt, RACING))
    print(f"target18 sm_{major}{minor}: the racing config's check: {checked}")
    assert checked is not None
    if (major, minor) == (9, 0):
        assert checked.refused and checked.line.endswith(" on sm_90; nothing written"), checked
    folder = cut_kkt(tmp_path / "fla_kkt", CONFIGS)
    before = (folder / "kernel.py").read_bytes()
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--budget-wall-s",
            "60"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180)
    print(f"target18 tune rc {done.returncode}; stderr tail: {done.stderr[-1500:]}")
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    print(f"target18 written {result['written']}, best {result['best_config']}, target: {result['target']}")
    print(f"target18 edit_note: {result.get('edit_note')}; verdict: {result['verdict']}")
    if not result["written"]:
        assert (folder / "kernel.py").read_bytes() == before
        return
    assert result["target"].startswith(f"compiled for sm_{major}{minor} (this GPU's"), result["target"]
    ker = load_fresh(folder / "kernel.py", "_target18_written")
    ref = load_fresh(folder / "reference.py", "_target18_ref")
    tuner = ker.chunk_scaled_dot_kkt_fwd_kernel.fn
    listed = [(c.kwargs["BK"], c.num_warps, c.num_stages) for c in tuner.configs]
    print(f"target18 the written list: {listed}")
    assert not any(racy(bk, warps) for bk, warps, _ in listed), listed
    shape = SIZES[0]
    torch.manual_seed(0)
    k, beta = ref.get_inputs(**shape, device="cuda")
    want = ref.reference(k.double(), beta.double())
    for run in range(RUNS):
        got = ker.run(k, beta)
        torch.cuda.synchronize()
        bad, worst = _judged(got, want, ref)
        print(f"target18 {shape} run {run} ({tuner.best_config}): {bad} wrong of {got.numel()}, largest {worst:.4g}")
        assert bad == 0, (run, bad, worst)
