"""What the H100 run of 2026-12-06 found (plan ``owed``, kernelopt 76330d3, one H100 80GB HBM3), made into CPU tests:
an autotune list pinned as six copies of the pick, a pick written over a current configuration never timed, a
session's wall spent on candidates that could not be written, and a test kernel that does not compile for sm_90."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tunables import AutotuneConfig, discover_source, pin_configs
from kernelopt.tunables.model import AutotuneEvaluation, AutotuneSpace
from kernelopt.tuning.budget import ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.record import SweepFile
from kernelopt.tuning.replay import ReplayEvaluator

DATA = Path(__file__).parent / "data"


def _configs_line(source: str) -> str:
    """The ``configs=`` argument of the decorator (the module docstring may quote the user's)."""
    return re.findall(r"^\s+configs=.*$", source, flags=re.M)[0].strip()


def _attorch_on_cuda() -> tuple[str, AutotuneEvaluation]:
    """attorch_ln's kernel.py and its autotune list as Triton holds it once imported: ``warps_kernel_configs()``,
    six ``triton.Config({}, num_warps=2**i)`` (the evaluation a GPU run gives; its defaults are Triton 3.6's)."""
    source = (DATA / "breaker9" / "attorch_ln" / "kernel.py").read_text()
    kernel = "layer_norm_forward_kernel"
    configs = [AutotuneConfig(num_warps=2**i) for i in range(6)]
    listed = AutotuneSpace(kernel=kernel, key=["batch_dim", "feat_dim"], configs=configs)
    return source, AutotuneEvaluation(spaces={kernel: listed})


def test_a_list_built_by_code_is_pinned_once_in_the_candidate_and_the_written_kernel() -> None:
    """Seen on the H100 on 2026-12-06: attorch_ln's ``configs=warps_kernel_configs()`` (six warps-only configs) was
    tuned jointly with its two heuristics, so the space was not a list space alone and a candidate moved
    ``num_warps`` at each of the six configs: every candidate's kernel.py held SIX copies of
    ``triton.Config({}, num_warps=16, num_stages=3)``, which Triton's autotuner benchmarks at every new key (3.6 s
    to check a candidate, median, against 0.07 s for the other kernels; 7 candidates in the 60 s session). The space
    is built here as prepare_folder builds it for device cuda (the launch options kept, the list evaluated); the
    candidate text the engine times and the final write hold the pick once, without the ``num_stages=3`` the user
    never wrote (Triton's default: the same config)."""
    from kernelopt.tunables import apply_source
    from kernelopt.tuning.candidate import Config
    from kernelopt.tuning.kernel_evaluator import config_changes, current_values, knob_editor
    from kernelopt.tuning.launch import space_from_tunables

    source, evaluation = _attorch_on_cuda()
    found = discover_source(source, evaluation=evaluation)
    space = space_from_tunables(found, kernel="layer_norm_forward_kernel", evaluation=evaluation, source=source)
    assert {"num_warps", "BLOCK_SIZE_BATCH"} <= set(space.names)  # a list knob beside heuristics: not a list space
    current = space.current()
    assert current is not None
    editor = knob_editor(
        source, kernel=space.kernel, evaluation=evaluation, origins=space.origins, writable=True
    )  # the session's editor (tune_folder's)
    candidate = editor(Config.of({**current, "num_warps": 16}))
    assert isinstance(candidate, str)
    assert _configs_line(candidate) == "configs=[triton.Config({}, num_warps=16)],"
    # the final write (_config_edit's route for a space that is not a list space alone)
    best = {**current, "num_warps": 8}
    written = apply_source(
        source,
        config_changes(best, current_values(found), space.origins),
        kernel=space.kernel,
        evaluation=evaluation,
    ).new_source
    assert _configs_line(written) == "configs=[triton.Config({}, num_warps=8)],"
    assert written.count("triton.Config(") == source.count("triton.Config(") + 1  # the pick, once
    # a pick with num_stages other than Triton's default writes it; a list pinned alone leaves the default out too
    staged = editor(Config.of({**current, "num_warps": 4, "num_stages": 2}))
    assert isinstance(staged, str)
    assert _configs_line(staged) == "configs=[triton.Config({}, num_warps=4, num_stages=2)],"
    twice = [AutotuneConfig(num_warps=32), AutotuneConfig(num_warps=32, num_stages=3)]  # one config: its default
    pinned = pin_configs(source, "layer_norm_forward_kernel", twice, evaluation=evaluation)
    assert _configs_line(pinned.new_source) == "configs=[triton.Config({}, num_warps=32)],"


def test_an_option_the_module_names_in_code_stays_written_at_its_default() -> None:
    """The user's text is kept where the option is theirs: a list built by code that names ``num_stages`` (a
    keyword argument, or a key of a dict splatted into the configs) keeps ``num_stages=3`` in the pinned list; a
    docstring's mention does not count."""
    import libcst as cst

    from kernelopt.tunables.edit import unwritten_options

    built = cst.parse_expression("make()")
    for body, unwritten in [
        ('"""num_stages and num_warps are left to Triton."""\n', {"num_warps", "num_stages"}),
        ("def make():\n    return [triton.Config({}, num_warps=w, num_stages=3) for w in (2, 4)]\n", set()),
        ('OPTS = {"num_stages": 3}\n', {"num_warps"}),
    ]:
        assert unwritten_options(body, built) == unwritten, body
    listed = cst.parse_expression("[triton.Config({}, num_warps=4)]")
    assert unwritten_options("", listed) == {"num_stages"}


# ------------------------------------------------------------------------------------- an untimed baseline


class _SlowCurrent:
    """A recorded sweep (the hardware, :class:`~kernelopt.tuning.replay.ReplayEvaluator`) where the current
    configuration runs past the candidate limit when first evaluated, and, re-timed, is timed (``recovers``) or
    runs past the re-time's limit too."""

    def __init__(self, sweep: SweepFile, clock: ManualClock, current: Config, *, recovers: bool) -> None:
        self.inner = ReplayEvaluator(sweep, clock)
        self.current, self.recovers = current, recovers
        self.retimed: list[list[str]] = []

    @staticmethod
    def _late(config: Config, limit_s: int) -> Result:
        why = f"on the SHAPES entry B=64,F=40: checking and timing: no reply within {limit_s} s; the worker's group killed"
        return Result.failed(config, Outcome.RUN_TIMEOUT, why)

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = [r.model_copy(update={"recorded": False}) for r in self.inner.evaluate(batch)]
        return [self._late(c, 60) if c == self.current else r for c, r in zip(batch, out, strict=True)]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        self.retimed.append([c.key() for c in batch])
        out = self.inner.retime(batch)
        if self.recovers:
            return out
        return [self._late(c, 300) if c == self.current else r for c, r in zip(batch, out, strict=True)]

    def close(self) -> None:
        pass


@pytest.mark.parametrize("recovers", [True, False])
def test_a_pick_is_written_only_over_a_current_configuration_that_was_timed(tmp_path: Path, recovers: bool) -> None:
    """Seen on the CPU under load 10 (2026-12-06): ``tune`` of a copy of attorch_ln with ``--budget 3`` printed "best
    BLOCK_SIZE_BATCH=16: 379 ms ...; the current BLOCK_SIZE_BATCH=computed was not timed (run_timeout: on the SHAPES
    entry B=64,F=40: checking and timing: no reply within 60 s); written to kernel.py": a change whose speedup was
    never measured. The current configuration that ran past its limit (or crashed) is timed once more, alone, with
    the re-time's limit; timed, it is the baseline as any other; not timed again, nothing is written, the line
    says why, and a loop does not call the launch converged."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.budget import Budget
    from kernelopt.tuning.record import RecordHeader, SessionRecord, read_sweeps
    from kernelopt.tuning.replay import space_from_sweep
    from kernelopt.tuning.session import judge_gain, tune, untimed_current

    [sweep] = read_sweeps(DATA.parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "rmsnorm_bf16.json")
    space, clock = space_from_sweep(sweep), ManualClock()
    current = space.current()
    assert current is not None
    ev = _SlowCurrent(sweep, clock, current, recovers=recovers)
    record = SessionRecord.open(tmp_path / "record.jsonl", RecordHeader.for_space(space, device="cuda"))
    budget = Budget.default(space.size.count, clock)
    res = tune(space, ev, budget=budget, record=record, rng_seed=7)
    assert ev.retimed[0] == [current.key()]  # timed again alone, before the re-time of the top few
    lines = [
        r
        for r in SessionRecord.open(tmp_path / "record.jsonl", RecordHeader.for_space(space, device="cuda")).results
        if r.key == current.key()
    ]
    assert [r.outcome for r in lines][:1] == [Outcome.RUN_TIMEOUT] and lines[1].retimed  # both kept
    judgement = judge_gain(res)
    if recovers:
        assert res.current_latency_us is not None and untimed_current(res) is None
        assert judgement.gain_pct is not None  # judged against a measured baseline, as any session
        return
    assert res.current_latency_us is None and res.best_latency_us is not None
    assert not judgement.better and judgement.reason == untimed_current(res)
    line = verdict_line(res, judgement, kernel_py="kernel.py", written=False, dry_run=False)
    assert (
        "was not timed (run_timeout: on the SHAPES entry B=64,F=40: checking and timing: no reply within 60 s)" in line
    )
    assert "a change is written only over a measured baseline" in line and line.endswith("kernel.py left unchanged")
    assert "written to" not in line and "\n" not in line


# ------------------------------------------------------------------------------------- what cannot be written

ROWSUM = """import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK_M": 32, "BLOCK_K": 16})], key=["k"])
@triton.jit
def rowsum(x_ptr, y_ptr, m, k, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), tl.float32)
    for kk in range(0, tl.cdiv(k, BLOCK_K)):
        cols = kk * BLOCK_K + tl.arange(0, BLOCK_K)
        acc += tl.sum(tl.load(x_ptr + rows[:, None] * k + cols[None, :], mask=rows[:, None] < m), axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < m)


def run(x):
    y = torch.empty(x.shape[0], device=x.device)
    rowsum[lambda meta: (triton.cdiv(x.shape[0], meta["BLOCK_M"]),)](x, y, x.shape[0], x.shape[1])
    return y
"""


def test_a_value_the_guard_cannot_write_leaves_the_space_before_any_proposal() -> None:
    """Seen on the H100 on 2026-12-06: 14 of grouped_gemm's 34 candidates were "invalid: cannot be written:
    BLOCK_SIZE_K=32 does not divide every size the original BLOCK_SIZE_K=16 handled" (an autotune list's tile stepping
    a K loop of unmasked loads, which a decorator cannot guard by a size): proposed, edited and set aside, while the
    session's 60 s ran out. The guard is asked once per value before the session (here the same form, a K loop
    without a mask in K, its rows masked): K's values that cannot be written leave the space and the fit rules say
    so; the masked BLOCK_M keeps every value; no configuration of the space is one the editor refuses."""
    from kernelopt.tuning.kernel_evaluator import Refusal, knob_editor
    from kernelopt.tuning.launch import space_from_tunables
    from kernelopt.tuning.writable import writable_space

    found = discover_source(ROWSUM)
    space = space_from_tunables(found, kernel="rowsum", source=ROWSUM, problem_sizes={"m": 100, "k": 64})
    editor = knob_editor(ROWSUM, kernel=space.kernel, origins=space.origins, writable=True)
    narrowed = writable_space(space, editor, found)
    assert space.size.count == 12 and narrowed.size.count == 4
    assert narrowed.knob("BLOCK_M").values == space.knob("BLOCK_M").values
    assert narrowed.knob("BLOCK_K").values == (16,)  # 128 and 256 fit no move, and divide 16 no more than 32 does
    rule = narrowed.fit_rules[-1]
    assert rule.startswith("cannot be written: BLOCK_K = 32, 64, 128, 256 (BLOCK_K=32 does not divide every size the")
    assert rule in narrowed.domain_notes and narrowed.fingerprint != space.fingerprint
    refused = [c for c in space.configs() if isinstance(editor(c), Refusal)]
    assert refused and not [c for c in narrowed.configs() if isinstance(editor(c), Refusal)]
    assert {c["BLOCK_K"] for c in refused} == {32, 64}


# ------------------------------------------------------------------------------------- compiled for sm_90, no GPU


@pytest.mark.timeout(300)
def test_a_test_kernel_that_cannot_compile_for_sm_90_is_found_without_a_gpu(tmp_path: Path) -> None:
    """Seen on the H100 on 2026-12-06: tests/data/variants/tile_lse_zero's original failed in Triton's
    TritonGPUOptimizeThreadLocality pass ("PassManager::run failed") at every size, a test defect found only once
    device time was spent (the lead's fix runs the GPU test on a twin). Each launch of kernel.py on the reference's
    inputs (built on the CPU) is bound and specialized by Triton's own JIT code for an sm_90 target and compiled to
    a cubin, here, with no GPU: the original fails there with N's divisibility 16 known, as on the H100; the twin
    compiles."""
    import shutil

    from kernelopt.harness.target_compile import compile_for_target
    from tests.conftest import skip_without
    from tests.test_variants_cases import _running_max_as_a_tile

    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    original = DATA / "variants" / "tile_lse_zero"
    twin = Path(shutil.copytree(original, tmp_path / "twin"))
    (twin / "kernel.py").write_text(_running_max_as_a_tile((twin / "kernel.py").read_text()))
    failed, compiled = compile_for_target([original, twin], "sm_90")
    assert failed.problem is None and compiled.problem is None
    [launch] = failed.launches
    assert launch.kernel == "tile_lse" and launch.error == "RuntimeError: PassManager::run failed"
    assert launch.signature == {
        "x_ptr": "*fp32", "y_ptr": "*fp32", "M": "i32", "N": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr"
    }  # fmt: skip
    assert (
        launch.constexprs == {"BLOCK_M": 16, "BLOCK_N": 32} and "N" in launch.divisible and "M" not in launch.divisible
    )
    assert compiled.launches and not compiled.failed


@pytest.mark.timeout(300)
def test_tune_with_a_target_writes_no_pick_its_gpu_cannot_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tune --device cpu --target sm_90``: the pick about to be written is compiled for the target first (the same
    launches, :func:`~kernelopt.harness.target_compile.target_check`); tile_lse_zero's BLOCK_M=32 does not compile
    there, nor does the original, and the line says both, the entries joined: not refused for a failure the original
    shares. The compiles are the ones tile_lse_zero gets for sm_90 (its original's line is :data:`FAILS_ON_SM_90`'s,
    ``KERNELOPT_AOT_TESTS=1``); the rule with a real compile is refblame14's
    ``test_a_pick_failing_the_compile_only_where_the_original_fails_it_too_is_not_refused`` (suite27 s62: two compiles
    for sm_90 here, 4.4 CPU-s, proved it a second time). A target that is not ``sm_NN`` is one line, exit 2, before any
    work."""
    from kernelopt.cli.app import main
    from kernelopt.harness import target_compile
    from kernelopt.harness.target_compile import LaunchCompile, TargetReport, target_check

    folder = DATA / "variants" / "tile_lse_zero"
    original = (folder / "kernel.py").read_text()
    pick = original.replace("BLOCK_M=16, BLOCK_N=32)", "BLOCK_M=32, BLOCK_N=32)")
    assert pick != original
    failed = "RuntimeError: PassManager::run failed"

    def compiled(folders: list[Path], target: str, triton_cache: Path | None = None) -> list[TargetReport]:
        assert target == "sm_90" and (folders[0] / "kernel.py").read_text() in (pick, original)
        block = 32 if folders[0].name == "written" else 16
        constexprs = {"BLOCK_M": block, "BLOCK_N": 32}
        launches = [
            LaunchCompile(
                kernel="tile_lse", shape=s, signature={}, constexprs=constexprs, divisible=[], options={}, error=failed
            )
            for s in ({"M": 20, "N": 64}, {"M": 33, "N": 128})
        ]
        return [TargetReport(folder=folders[0].name, launches=launches)]

    monkeypatch.setattr(target_compile, "compile_for_target", compiled)
    checked = target_check(pick, folder / "reference.py", tmp_path, "sm_90", original)
    # the original fails the same compile at both entries: a failure it shares is not the pick's (refblame14 r11)
    assert not checked.refused and checked.line == (
        "compiled for sm_90 before the write: the pick does not compile at M=20,N=64; M=33,N=128 "
        f"(tile_lse: {failed}), nor does kernel.py as it is there (sizes the original "
        "cannot run on sm_90: not the pick's)"
    )
    assert main(["tune", str(folder), "--device", "cpu", "--target", "gfx942"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "kernelopt: error: --target 'gfx942' is not an NVIDIA target: give sm_NN (sm_80, sm_90)"


#: The originals of tests/data that do not compile for sm_90 (Triton 3.6), and the line each fails with. tile_lse_zero:
#: a test of the GPU runs a twin (tests/test_variants_cases.py's _running_max_as_a_tile); kstep: written to fail there
#: (a tl.dot with K = 8, tests/test_gpu_parity.py's case). Found by this test on the 2-core CPU machine, 2026-12-06:
#: 185 folders, 252 s with one worker at load 3-8 (passed, 02:09-02:13 UTC).
FAILS_ON_SM_90 = {
    "variants/tile_lse_zero": "RuntimeError: PassManager::run failed",
    "gpuparity/kstep": "CompilationError: Input shapes should have M >= 1, N >= 1 and K >= 16",
}


@pytest.mark.timeout(3000)
@pytest.mark.skipif(
    __import__("os").environ.get("KERNELOPT_AOT_TESTS") != "1",
    reason="every test kernel compiled for sm_90: minutes of CPU (set KERNELOPT_AOT_TESTS=1; scripts/gpu_gpuleft10.sh)",
)
def test_every_test_kernel_compiles_for_sm_90() -> None:
    """The original kernel of every tests/data folder a test runs (kernel.py beside a reference.py, a Triton kernel),
    each launch on each SHAPES entry compiled for sm_90 as Triton's JIT would specialize it (no GPU needed;
    :mod:`kernelopt.harness.target_compile`): what fails is known (:data:`FAILS_ON_SM_90`), so a new test kernel
    that cannot compile on the H100 is found before device time is spent. The folders go out in chunks, one
    process each, as many at once as the machine has cores."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from kernelopt.harness.target_compile import compile_for_target
    from tests.conftest import skip_without

    skip_without("triton.backends.nvidia.compiler", reason="Triton without its NVIDIA backend")
    folders = sorted(
        p.parent
        for p in DATA.rglob("kernel.py")
        if (p.parent / "reference.py").is_file() and "triton.jit" in p.read_text(encoding="utf-8", errors="replace")
    )
    chunks = [folders[i : i + 6] for i in range(0, len(folders), 6)]
    with ThreadPoolExecutor(max_workers=max(1, (os.cpu_count() or 2) - 1)) as pool:
        reports = [r for done in pool.map(lambda c: compile_for_target(c, timeout_s=1800), chunks) for r in done]
    failed = {
        Path(r.folder).relative_to(DATA).as_posix(): r.problem or next(x.error for x in r.failed)
        for r in reports
        if r.problem is not None or r.failed
    }
    assert failed == FAILS_ON_SM_90, failed
    assert sum(len(r.launches) for r in reports) > len(folders)  # every folder launched at least once, most more


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_the_compile_for_sm_90_without_a_gpu_agrees_with_the_gpu(tmp_path: Path) -> None:
    """On an NVIDIA GPU of compute capability 9.0: what the compile for sm_90 says without a GPU holds on the device.
    tile_lse_zero's original raises its compile failure at its first launch; the twin runs and matches
    ``torch.logsumexp`` at both SHAPES entries."""
    import shutil

    import torch

    from tests.conftest import load_fresh
    from tests.test_variants_cases import _running_max_as_a_tile

    assert torch.cuda.get_device_capability() == (9, 0), "the verdicts are sm_90's"
    original = DATA / "variants" / "tile_lse_zero"
    twin = Path(shutil.copytree(original, tmp_path / "twin"))
    (twin / "kernel.py").write_text(_running_max_as_a_tile((twin / "kernel.py").read_text()))
    x = torch.randn(20, 64, device="cuda")
    with pytest.raises(Exception, match="PassManager::run failed"):
        load_fresh(original / "kernel.py", "_gpuleft10_lse_original").run(x)
    runs = load_fresh(twin / "kernel.py", "_gpuleft10_lse_twin").run
    for m, n in ((20, 64), (33, 128)):
        x = torch.randn(m, n, device="cuda")
        torch.testing.assert_close(runs(x), torch.logsumexp(x, dim=1), atol=1e-4, rtol=1e-4)
