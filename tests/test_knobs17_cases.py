"""knobs17: the knobs and lines a user meets (docs/faults.md, section knobs17). Each test reads the package's own
rule on a real kernel or a real report: the space ``tune`` searches, what it writes, the lines it prints."""

from __future__ import annotations

import functools
from pathlib import Path
from types import SimpleNamespace

import pytest

from kernelopt.cli.tune import left_out
from kernelopt.harness.interpreter import dot_min_k, programs_problem
from kernelopt.memory.model import (
    Comparison,
    Correctness,
    CorrectnessStatus,
    GateResult,
    IterationRecord,
    Performance,
    QualityGate,
)
from kernelopt.report.model import ReportData, VersionEntry
from kernelopt.report.sections import TIMELINE_NOTE, headline, version_stories
from kernelopt.tunables import AutotuneSpace, ResourceLimits, Tunable, discover_source
from kernelopt.tunables.knobs import semantic_reason
from kernelopt.tuning.kernel_evaluator import autotune_list, pin_config
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.space import Space

# An int8 GEMM as bitsandbytes writes one (breaker16's bnb_int8_mm), its tiles at the launch: the K tile is the
# dot's K, which a GPU compiles only from 32 for 8-bit operands.
_INT8_GEMM = """
import torch
import triton
import triton.language as tl


@triton.jit
def _mm(A, B, C, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(A + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(B + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=torch.int32, device=a.device)
    _mm[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)
    return c
"""


@pytest.mark.parametrize(("dtype", "bits"), [("int8", 8), ("fp8", 8), ("fp16", 16), ("bf16", 16), ("fp32", 32)])
def test_the_least_k_of_a_dot_is_triton_s_own_rule(dtype: str, bits: int) -> None:
    """Triton's NVIDIA backend (``min_dot_size``) is the rule: what our interpreter refuses and the space's floor
    read (:func:`dot_min_k`) agree with it for every operand width a tuned GEMM meets."""
    import triton.language as tl
    from triton.backends.nvidia.compiler import min_dot_size

    operand = {"int8": tl.int8, "fp8": tl.float8e4nv, "fp16": tl.float16, "bf16": tl.bfloat16, "fp32": tl.float32}
    assert dot_min_k(bits) == min_dot_size(None)(operand[dtype], operand[dtype])[2]


@pytest.mark.parametrize(("dtype", "original", "least"), [("int8", 64, 32), ("fp16", 64, 32), (None, 16, 16)])
def test_an_int8_dot_s_k_tile_starts_at_32_in_the_space(dtype: str | None, original: int, least: int) -> None:
    """Seen on an H100 on 2026-12-06 (docs/gpu-runs/2026-12-06-h100-k): ``tune`` on breaker16's bnb_int8_mm searched
    ``BLOCK_K: [16, 32, 64, 128, 256]`` for an int8 ``tl.dot``, and a candidate at 16 failed to compile (sm_90 needs
    K >= 32 for 8-bit operands). The K tile of a dot kernel now starts at 32 wherever the original holds it at 32 or
    more, whatever the entries' width (wrongkernel27, v138: the int8 operands the original may take need it), and
    the knob's legality says why; a K tile the original holds at 16 starts at 16 for an unknown dtype."""
    source = _INT8_GEMM.replace("BLOCK_K=64)", f"BLOCK_K={original})")
    found = discover_source(source)
    space = space_from_tunables(found, held_options={}, source=source, limits=ResourceLimits.portable(dtype))
    k = next(knob for knob in space.knobs if knob.name == "BLOCK_K")
    assert min(k.values) == least
    assert [min(knob.values) for knob in space.knobs if knob.name in ("BLOCK_M", "BLOCK_N")] == [16, 16]
    legal = next(t for t in found if t.name == "BLOCK_K").legality
    why = legal.source if legal is not None else ""
    assert "8-bit operands" in (why or "") and f"min_dot_size): at least {least}," in (why or ""), why


_MAMBA = Path(__file__).parent / "data" / "breaker16" / "mamba_chunk_state" / "kernel.py"


@functools.cache
def _mamba_list() -> tuple[str, AutotuneSpace, Space]:
    source = _MAMBA.read_text()
    found = discover_source(source)
    space = space_from_tunables(found, held_options={}, source=source)
    listed = autotune_list(space.kernel, None, found)
    assert listed is not None
    return source, listed, space


def _pinned_list(config: dict[str, int]) -> str:
    """mamba_chunk_state's autotune list (Mamba-2's nine configs, a literal list) as ``tune`` pins it to ``config``:
    the line ``configs=[...]`` it writes."""
    source, listed, space = _mamba_list()
    pinned = pin_config(source, config, listed, space.origins, force=True)
    assert pinned is not None and pinned.new_source is not None
    return next(line.strip() for line in pinned.new_source.splitlines() if line.strip().startswith("configs=["))


def test_a_pinned_tile_keeps_the_launch_options_its_authors_gave_it() -> None:
    """breaker16's leftover (l4, docs/faults.md): ``tune`` on the CPU (the interpreter holds the launch options)
    pinned mamba_chunk_state's list to its authors' 128 x 64 x 32 tile with the first config's ``num_warps=8,
    num_stages=3``, not the ``4`` / ``4`` the authors gave that tile, so a GPU ran a pairing nobody wrote or timed.
    The options go with the tile (``kernel_evaluator.pin_base``, one rule for a pin and a keyed list's rows): a tile
    of the list keeps its own; a tile the list does not hold takes the picked (else the first) config's, which the
    session held; a GPU's pick, whose options are knobs, writes its own."""
    tile = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}
    assert _pinned_list(tile) == (
        'configs=[triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32}, num_warps=4, '
        "num_stages=4)],"
    )
    assert _pinned_list({**tile, "BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 64}).endswith("num_warps=2, num_stages=5)],")
    assert _pinned_list({**tile, "BLOCK_SIZE_N": 16}).endswith("num_warps=8, num_stages=3)],")  # no such tile
    assert _pinned_list({**tile, "num_warps": 2, "num_stages": 2}).endswith("num_warps=2, num_stages=2)],")


def _newuser13_report() -> ReportData:
    """newuser13's two versions as their records hold them (docs/faults.md, newuser13's "seen, not changed"): V0
    timed 240.7 ms in its own gate run; V1 17.23 ms in its, where the gate timed V0 again beside it, about 182 ms,
    speedup 11.01x (95 % CI 9.203-17.375), re-timed 9.86x."""
    v0 = IterationRecord(
        version="v0", performance=Performance(latency_us=240_700.0), quality_gate=QualityGate(result=GateResult.PASS)
    )
    comparison = Comparison(
        latency_delta=-90.5,
        speedup=11.01,
        speedup_ci_low=9.203,
        speedup_ci_high=17.375,
        verdict="improvement",
        speedup_retime=9.86,
    )
    v1 = IterationRecord(
        version="v1",
        performance=Performance(latency_us=17_230.0, comparison_with_previous=comparison),
        correctness=Correctness(status=CorrectnessStatus.PASS),
        quality_gate=QualityGate(result=GateResult.PASS),
    )
    return ReportData(name="count_pos", root="/work", versions=[VersionEntry(record=v0), VersionEntry(record=v1)])


def test_the_report_says_which_runs_each_speedup_divides() -> None:
    """newuser13 (2026-12-06): the report read "speedup over V0: 13.97x" and, for the same V1, "Against the previous
    version: ... speedup 11.01x ... re-timed 9.86x", the first V0's median over V1's from two gate runs, the second
    the gate's interleaved timing of both in V1's run (V0 240.7 ms alone, about 182 ms beside V1): two figures for
    one question, and no word of why they differ. Each now says the runs it divides, from one rule
    (``report.model.v0_runs``, ``PREVIOUS_RUNS``), in the summary, the version's lines and the timeline's note."""
    data = _newuser13_report()
    summary = headline(data)
    final = next(line for line in summary if line.startswith("Final V1"))
    # late46 l160: one figure for one question, the gate's interleaved speedup chained from V0 (not two runs' medians)
    assert final.endswith(
        "(speedup over V0: 11.01x: the gates' interleaved speedups chained from V0 to V1, each version timed beside the "
        "best before it)"
    )
    stories = version_stories(data)
    against = next(line for s in stories for line in s.result if line.startswith("Against the previous"))
    assert against.startswith(
        "Against the previous version (both timed alternately in this version's gate run): latency -90.9 %, "
        "speedup 11x (95 % CI 9.2-17.4x)"
    )
    assert "re-timed" in against and "9.86" not in against  # the re-time's own figure not said (verdicts22 x4)
    assert "`speedup vs V0` multiplies the gates' interleaved speedups chained from V0 to the version" in TIMELINE_NOTE
    assert data.speedup(data.versions[1]) == pytest.approx(11.01)


def _found(folder: str) -> dict[str, Tunable]:
    source = (Path(__file__).parent / "data" / folder / "kernel.py").read_text()
    return {t.key: t for t in discover_source(source)}


def test_a_size_of_the_problem_is_said_as_one_and_tune_does_not_list_it() -> None:
    """breaker16's leftover (l3) and breaker15's words: fla_kkt's launch passes ``K=K`` from ``B, T, H, K =
    k.shape`` (the head dimension), and ``tune`` printed "not tuned: ...:K: 'K' is not a simple assignment in
    chunk_scaled_dot_kkt_fwd() (line 65); not a known performance knob, so no override is offered"; liger_embed's
    ``embedding_dim`` was "names a flag or selector". A size unpacked from a tensor's shape, or named as a
    dimension, is now said as a size, and, being no knob, is left off tune's "not tuned" lines as H and BT are."""
    kkt = _found("breaker16/fla_kkt")["chunk_scaled_dot_kkt_fwd_kernel:K"]
    assert kkt.semantic and kkt.refused_reason == (
        "'K' is a size of the problem, unpacked from k.shape in chunk_scaled_dot_kkt_fwd() (line 65): another value "
        "is another problem, not the same one faster"
    )
    prepared = SimpleNamespace(
        tunables=list(_found("breaker16/fla_kkt").values()),
        space=SimpleNamespace(kernel="chunk_scaled_dot_kkt_fwd_kernel"),
    )
    assert [line for line in left_out(prepared) if ":K:" in line or ":H:" in line] == []
    embed = _found("breaker15/liger_embed")["embedding_forward_kernel:embedding_dim"]
    assert embed.semantic and embed.refused_reason == (
        "'embedding_dim' names a size of the problem (a dimension): another value is another problem, not the same "
        "one faster"
    )
    assert semantic_reason("HAS_BIAS", 1) == "'HAS_BIAS' names a flag or selector: it changes what the kernel computes"
    assert "a value the computation reads" in (semantic_reason("eps", 1) or "")


def test_a_launch_that_cannot_finish_in_its_time_counts_its_programs() -> None:
    """newuser13 (2026-12-06): a SHAPES entry of 70000 programs on grid axis 0 (140000 elements, far under the size
    check's 2**22) ran past the 60 s candidate limit in Triton's interpreter, a timeout and no reason. A launch now
    counts its programs as they run: where the time so far and the programs left, each at the interpreter's least
    cost of a program, pass the run's limit, it stops in one line (the original's failure at that entry sets it
    aside, as one of 70000 programs on axis 1 is). The rule never stops a launch whose programs left fit the time
    left at that least cost, so a run that finishes in its time is never refused."""
    grid = (70000, 1, 1)
    line = programs_problem(grid, 3072, 59.0, 2e-5, 60.0)  # 59 + 66928 * 2e-5 = 60.3 s
    assert line == (
        "the grid (70000, 1, 1) has 70000 programs: Triton's interpreter ran 3072 in 59 s (19 ms a program), and the "
        "66928 left take at least 0.02 ms each here, past the 60 s this run is given; a size for a GPU, not the "
        "interpreter"
    )
    assert programs_problem(grid, 3072, 50.0, 2e-5, 60.0) is None  # 50 + 66928 * 2e-5 = 51.3 s: it may finish
    assert programs_problem(grid, 3072, 58.0, 2e-5, None) is None  # no limit given: never judged


def test_the_interpreter_stops_a_launch_past_its_limit_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule in Triton's interpreter itself: a copy of 16384 programs given 0.05 s stops at a count of its
    programs with the line above, long before its programs could all run; the same launch without a limit, or a
    launch of fewer programs than are judged, runs as before."""
    import torch
    import triton
    import triton.language as tl

    from kernelopt.harness.interpreter import INTERPRETER_LIMIT_ENV, patch_interpreter

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    patch_interpreter()

    @triton.jit
    def _copy(x, y, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y + offs, tl.load(x + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.arange(16384, dtype=torch.float32)
    y = torch.zeros_like(x)
    monkeypatch.setenv(INTERPRETER_LIMIT_ENV, "0.05")  # 16384 programs at the least cost of one pass it anywhere
    with pytest.raises(
        Exception, match=r"the grid \(16384, 1, 1\) has 16384 programs: Triton's interpreter ran \d+ in"
    ):
        _copy[(16384,)](x, y, 16384, BLOCK=1)
    _copy[(64,)](x, y, 128, BLOCK=2)  # under the launches judged: runs
    assert torch.equal(y[:128], x[:128] * 2)


# ------------------------------------------------------------------------------------- on a GPU


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_a_gpu_an_int8_dot_compiles_from_the_space_s_least_k(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled): the int8 GEMM above at ``BLOCK_K=16`` fails to compile (sm_90's 8-bit MMA
    needs K >= 32, Triton's ``min_dot_size``), at 32, the space's least K, it compiles and is exact; and ``tune
    --device cuda``'s space on breaker16's bnb_int8_mm starts its ``BLOCK_K`` at 32 (it offered 16 on the H100,
    2026-12-06, and a candidate there failed to compile)."""
    import importlib.util
    import shutil

    import torch

    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    path = tmp_path / "int8_gemm.py"
    path.write_text(_INT8_GEMM.replace("BLOCK_K=64", "BLOCK_K=BK").replace("def run(a, b):", "def run(a, b, BK=64):"))
    spec = importlib.util.spec_from_file_location("int8_gemm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = torch.Generator().manual_seed(0)
    a = torch.randint(-127, 128, (96, 72), generator=g, dtype=torch.int8).cuda()
    b = torch.randint(-127, 128, (72, 80), generator=g, dtype=torch.int8).cuda()
    exact = (a.double().cpu() @ b.double().cpu()).to(torch.int32)
    with pytest.raises(Exception, match=r"K >= 32"):  # Triton's compile error, min_dot_size's words
        module.run(a, b, BK=16)
        torch.cuda.synchronize()
    assert torch.equal(module.run(a, b, BK=32).cpu(), exact)
    folder = Path(shutil.copytree(Path(__file__).parent / "data" / "breaker16" / "bnb_int8_mm", tmp_path / "bnb"))
    space = prepare_folder(TuneRequest(folder=folder, device="cuda")).space
    assert min(next(k for k in space.knobs if k.name == "BLOCK_K").values) == 32
