"""A candidate that fails one ``SHAPES`` entry (issue 32, item 2): checked on every entry before it is timed on any,
the failure named with its entry, no candidate of the stall rule, never proposed again; and ``kernelopt tune`` on
kernels that fail at one entry only (an assert, an out-of-range grid, a NaN at one size, an exception at one
dtype) ends well, with the entry named and nothing wrong written."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.cli.tune import failures_line, refused_line
from kernelopt.tuning.budget import Budget, ManualClock, stalled
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.problem import Problem, ProblemShape
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
from kernelopt.tuning.session import StopReason, tune
from kernelopt.tuning.shape_evaluator import ShapesEvaluator

DATA = Path(__file__).parent / "data" / "shape_failures"
SWEEPS = Path(__file__).resolve().parents[1] / "docs" / "gpu-runs" / "2026-12-01-sweeps"


class FakeShape:
    """One shape's evaluator: the blocks in ``fails`` raise there (as an ``assert n_cols <= BLOCK`` does); every
    request is remembered with whether it timed."""

    ready = None  # its workers' readiness is not known: the entries check one after another

    def __init__(self, fails: set[int], invalid: set[int] | None = None) -> None:
        self.fails = fails
        self.invalid = invalid or set()  # set aside here by the author's screen (an early_config_prune, an assert)
        self.calls: list[tuple[list[int], bool]] = []

    def spawn(self) -> None:
        pass

    def start(self, compile_workers: int = 0) -> object:
        return object()

    def bound(self, limit: object) -> None:
        pass

    def evaluate(self, batch: Sequence[Config], *, timed: bool = True) -> list[Result]:
        self.calls.append(([int(c["BLOCK"]) for c in batch], timed))
        out = []
        for c in batch:
            if c["BLOCK"] in self.fails:
                out.append(Result(config=c.as_dict(), outcome=Outcome.RUN_ERROR, reason="AssertionError", check_s=0.25))
                continue
            if c["BLOCK"] in self.invalid:
                out.append(Result(config=c.as_dict(), outcome=Outcome.INVALID, reason="pruned", check_s=0.25))
                continue
            us = 100.0 / int(c["BLOCK"])
            out.append(
                Result(
                    config=c.as_dict(),
                    outcome=Outcome.OK,
                    latency_us=us if timed else None,
                    samples_us=[us] if timed else [],
                    compile_s=0.5,
                    check_s=0.25,
                    bench_s=2.0 if timed else None,
                )
            )
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return self.evaluate(batch)

    def discard_workers(self) -> None:
        self.calls.append(([], False))  # ([], False): its workers were stopped here

    def never_compile_on(self, label: str) -> None:
        pass  # no compile pool to move off the entry set aside

    def close(self) -> None:
        pass


def _shapes_evaluator(
    tmp_path: Path, fails: Sequence[set[int]], invalid: Sequence[set[int]] = (), *, per_entry: bool = False
) -> tuple[ShapesEvaluator, list[FakeShape]]:
    folder = tmp_path / "f"
    shutil.copytree(DATA / "assert_block", folder)
    problem = Problem.from_folder(folder, device="cpu")
    shapes = [ProblemShape(kwargs={"rows": 4, "cols": n}) for n in (40, 300, 200)[: len(fails)]]
    ev = ShapesEvaluator(problem, shapes, "", lambda c: "", session_dir=tmp_path / "s", per_entry=per_entry)
    fakes = [FakeShape(f, i) for f, i in zip(fails, [*invalid, *[set()] * len(fails)], strict=False)]
    ev.evaluators = fakes  # type: ignore[assignment]
    return ev, fakes


@pytest.mark.timeout(30)
def test_a_candidate_is_checked_on_every_entry_before_it_is_timed_on_any(tmp_path: Path) -> None:
    """Before, the batch went to the first entry checked and timed, what passed to the next: a block that trips
    the kernel's assert at the larger entry was timed at the smaller one first (2026-12-05, CPU, assert_block:
    4.4-5.1 s a failing candidate, 1.0 s after)."""
    ev, (small, large, middle) = _shapes_evaluator(tmp_path, [{16}, {16, 64, 128, 256}, {16, 128}])
    batch = [Config.of({"BLOCK": b}) for b in (64, 512, 16, 128)]
    results = ev.evaluate(batch)
    by = {int(r.config["BLOCK"]): r for r in results}
    # untimed checks on every entry but the last, then the last checked and timed, then the others timed
    assert small.calls == [([64, 512, 16, 128], False), ([], False), ([512], True)]  # ([], False): fresh workers
    assert large.calls == [([64, 512, 128], False), ([512], True)]
    assert middle.calls == [([512], True)]
    timed = [b for f in (small, large, middle) for blocks, t in f.calls if t for b in blocks]
    assert set(timed) == {512}  # nothing that failed an entry was timed anywhere
    assert by[64].reason == "on the SHAPES entry rows=4,cols=300: AssertionError"
    assert by[64].failed_entry == "rows=4,cols=300" and by[64].latency_us is None and by[64].bench_s is None
    assert by[64].check_s == pytest.approx(0.5)  # what it cost: its checks on the two entries it reached
    assert by[16].failed_entry == "rows=4,cols=40" and by[128].failed_entry == "rows=4,cols=300"
    ok = by[512]
    assert ok.outcome is Outcome.OK and ok.failed_entry is None
    assert ok.latency_us_by_shape == pytest.approx({"rows=4,cols=40": 100 / 512, "rows=4,cols=300": 100 / 512,
                                                     "rows=4,cols=200": 100 / 512})  # fmt: skip
    assert ok.bench_s == pytest.approx(6.0) and ok.check_s == pytest.approx(5 * 0.25) and ok.compile_s == 0.5
    assert [r.config for r in results] == [c.as_dict() for c in batch]  # in the batch's order


@pytest.mark.timeout(30)
def test_in_the_interpreter_the_shapes_a_failed_candidate_passed_get_fresh_workers(tmp_path: Path) -> None:
    """CI, 2026-12-05: a GEMM without masks, 32 and 48. BN=64 passed the 32 entry, writing past its buffers in that
    worker's heap, and failed the 48 one; the only legal tile was then timed in the corrupt 32 worker and crashed.
    Now every shape the failed candidate ran on starts its workers again before the next request; a batch in which
    nothing failed keeps them (a worker builds its entry's inputs and reference when it starts)."""
    ev, (small, large, middle) = _shapes_evaluator(tmp_path, [set(), {64}, set()])
    assert ev.interpreted  # a Triton kernel on the CPU
    ev.evaluate([Config.of({"BLOCK": b}) for b in (64, 512)])
    stop = ([], False)
    assert small.calls == [([64, 512], False), stop, ([512], True)]  # fresh before 512 is timed there
    assert large.calls == [([64, 512], False), ([512], True)] and middle.calls == [([512], True)]
    for f in (small, large, middle):
        f.calls.clear()
    ev.evaluate([Config.of({"BLOCK": 256})])
    assert stop not in small.calls + large.calls + middle.calls
    ev.interpreted = False  # on a GPU a kernel's stray write is its own failure (a sticky error restarts its worker)
    ev.evaluate([Config.of({"BLOCK": 64})])
    assert stop not in small.calls + large.calls + middle.calls


@pytest.mark.timeout(30)
def test_a_failure_at_the_last_entry_s_check_is_not_timed_and_one_shape_is_one_request(tmp_path: Path) -> None:
    ev, (small, large) = _shapes_evaluator(tmp_path, [set(), {64}])
    [r] = ev.evaluate([Config.of({"BLOCK": 64})])
    assert small.calls == [([64], False), ([], False)] and large.calls == [([64], True)]
    assert r.failed_entry == "rows=4,cols=300" and r.latency_us is None and r.bench_s is None
    one, (only,) = _shapes_evaluator(tmp_path / "one", [set()])
    [r] = one.evaluate([Config.of({"BLOCK": 64})])
    assert only.calls == [([64], True)] and r.outcome is Outcome.OK and r.failed_entry is None


@pytest.mark.timeout(30)
def test_a_config_set_aside_at_one_entry_is_timed_at_the_others_where_the_session_tunes_per_shape(
    tmp_path: Path,
) -> None:
    """leftovers10: an early_config_prune (or a tl.static_assert) dropping BLOCK=512 at 40 columns set it aside for
    the whole session, though a list keyed by size (the autotuner skips it at 40) could run it at 300 and 200. Per
    entry, it is checked and timed where it is valid: INVALID, naming the entry, with its medians there."""
    ev, (small, large, middle) = _shapes_evaluator(tmp_path, [set()] * 3, [{512}], per_entry=True)
    results = ev.evaluate([Config.of({"BLOCK": b}) for b in (64, 512)])
    assert small.calls == [([64, 512], False), ([64], True)]  # never timed where it was set aside
    assert large.calls == [([64, 512], False), ([64, 512], True)] and middle.calls == [([64, 512], True)]
    ok, part = results
    assert ok.outcome is Outcome.OK and len(ok.latency_us_by_shape) == 3
    assert part.outcome is Outcome.INVALID and part.failed_entry == "rows=4,cols=40" and part.latency_us is None
    assert part.reason == "on the SHAPES entry rows=4,cols=40: pruned"
    assert part.latency_us_by_shape == pytest.approx({"rows=4,cols=300": 100 / 512, "rows=4,cols=200": 100 / 512})
    assert part.bench_s == pytest.approx(4.0) and part.check_s == pytest.approx(4 * 0.25)
    for f in (small, large, middle):
        f.calls.clear()
    again = ev.retime([Config.of({"BLOCK": b}) for b in (64, 512)])
    assert small.calls == [([64], True)] and again[1].latency_us_by_shape == part.latency_us_by_shape
    assert again[1].outcome is Outcome.INVALID and again[1].failed_entry == "rows=4,cols=40"
    # a session that writes one configuration for every size keeps the rule: set aside at one entry, timed nowhere
    whole, fakes = _shapes_evaluator(tmp_path / "whole", [set()] * 3, [{512}])
    [_, r] = whole.evaluate([Config.of({"BLOCK": b}) for b in (64, 512)])
    assert r.outcome is Outcome.INVALID and not r.latency_us_by_shape
    assert 512 not in [b for f in fakes for blocks, timed in f.calls if timed for b in blocks]


@pytest.mark.timeout(30)
def test_a_config_set_aside_at_one_entry_can_be_another_entry_s_own_best_in_the_per_shape_table(
    tmp_path: Path,
) -> None:
    """The session across shapes: BLOCK=512, fastest at 300 and 200 columns and pruned at 40, is those entries' own
    best and the table's row there; the one configuration stays the block valid everywhere; it costs the budget what
    it was timed for."""
    from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape
    from kernelopt.tuning.space import Space, knob_of

    space = Space((knob_of("BLOCK", [64, 512], 64),), origins={})
    tables = {}
    for per_entry in (True, False):
        ev, _ = _shapes_evaluator(tmp_path / str(per_entry), [set()] * 3, [{512}], per_entry=per_entry)
        res = tune(space, ev, budget=Budget(4, ManualClock()), strategy="exhaustive")
        assert res.best_config == {"BLOCK": 64}
        shapes = per_shape(res.results, res.retimed, res.best_config)
        tables[per_entry] = {s.shape: s.best_config for s in shapes}, choose(shapes)
        assert res.screened == (0 if per_entry else 1)  # timed at two entries: a candidate of the budget's
        line = refused_line(res) or ""
        assert line.endswith("1 configuration(s) set aside at a SHAPES entry and timed at the others") is per_entry
    bests, choice = tables[True]
    assert bests == {
        "rows=4,cols=40": {"BLOCK": 64},
        "rows=4,cols=300": {"BLOCK": 512},
        "rows=4,cols=200": {"BLOCK": 512},
    }
    assert choice.kind is ChoiceKind.TABLE and choice.table == bests
    bests, choice = tables[False]
    assert set(map(str, bests.values())) == {"{'BLOCK': 64}"} and choice.kind is ChoiceKind.ONE


def _keyed_table(tmp_path: Path) -> tuple[Path, str]:
    """breaker5's splitk_prune (a list keyed on ``M, K``, its prune dropping ``BLOCK_K * SPLIT_K > K``) written as a
    session across its two entries writes it when each entry has its own best: 32 x 32 x 32 split 1 at K=96, and
    64 x 64 x 64 split 2 at K=200, pruned at K=96 (set aside there, timed at K=200: a partial result). The folder and
    the note."""
    from kernelopt.tuning.folder import FolderTuning, TuneRequest, prepare_folder, shaped_edit
    from kernelopt.tuning.session import SessionResult, judge_gain
    from kernelopt.tuning.shapes import choose, per_shape

    folder = Path(shutil.copytree(DATA.parent / "breaker5" / "splitk_prune", tmp_path / "splitk_prune"))
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    small, large = (s.label() for s in prepared.shapes)
    one = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 1}
    part = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "SPLIT_K": 2}
    a = Result(config=one, outcome=Outcome.OK, latency_us=3.0, latency_us_by_shape={small: 1.0, large: 2.0})
    b = Result(
        config=part, outcome=Outcome.INVALID, reason="pruned", failed_entry=small, latency_us_by_shape={large: 1.0}
    )
    result = SessionResult(
        best_config=one, best_latency_us=3.0, current_config=None, current_latency_us=None, results=[a, b],
        retimed=[], evaluations=2, served=0, budget=2, space_size=2, wall_s=1.0, stop=StopReason.CANDIDATES,
        strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape([a, b], [], one)
    tuning = FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choose(shapes))
    edit, note = shaped_edit(tuning)
    assert edit is not None, note
    (folder / "kernel.py").write_text(edit.new_source)
    return folder, note or ""


@pytest.mark.timeout(120)
def test_a_keyed_list_s_table_holds_an_entry_s_best_its_prune_drops_elsewhere(tmp_path: Path) -> None:
    """The table a per-entry session writes: both entries' bests head the list, the prune wrapped so it still drops
    the K=200 best at K=96 (where the autotuner runs the other), the original configs after them."""
    folder, note = _keyed_table(tmp_path)
    text = (folder / "kernel.py").read_text()
    configs = [line.strip() for line in text.splitlines() if line.strip().startswith("triton.Config(")]
    assert (
        configs[:2]
        == [
            'triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "SPLIT_K": 1}, num_warps=4),',
            'triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "SPLIT_K": 2}, num_warps=4),',
        ]
        and len(configs) == 5
    ), configs
    wrapped = "kept = list(_prune([*head, *rest], named_args, **kwargs))"  # beside the original's other configs
    assert wrapped in text and "return tuned or list(_prune(configs, named_args, **kwargs))" in text, text
    assert "per-bucket table" in note, note


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_a_gpu_a_keyed_list_s_table_with_an_entry_s_pruned_best_is_correct_at_every_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On an NVIDIA GPU (Triton compiled, its autotuner benchmarking what the prune keeps at each key): the table of
    :func:`_keyed_table` is correct at the entries, at K the prune drops the 64 x 2 split below (40, 96, 127) and
    keeps it above (128, 200, 1000, 4096). On the CPU it was right at K=96, 200, 40 and 300 in the interpreter."""
    from tests.gpu_correct import Ran, assert_correct

    def close(ran: Ran) -> bool | str:
        """The error's norm against the output's: fp32 ``tl.dot`` runs in TF32 on the GPU, whose error grows with K
        (at K=4096 an elementwise 2e-2 failed near zero outputs, H100 2026-12-06) while staying near 1e-3 of the
        norm; a K tile missed or summed twice is off by a tenth of it or more."""
        got, want = ran.got.double(), ran.want.double()
        rel = float((got - want).norm() / want.norm())
        return rel < 1e-2 or f"relative error {rel:.3g} of the output's norm"

    folder, _ = _keyed_table(tmp_path)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernel is loaded
    shapes = [{"M": 24, "N": 40, "K": k} for k in (40, 96, 127, 128, 200)] + [
        {"M": 64, "N": 48, "K": 1000},
        {"M": 1000, "N": 768, "K": 4096},
    ]
    assert_correct(folder, shapes, close)


def test_a_keyed_list_whose_config_is_set_aside_at_one_key_is_judged_where_it_runs() -> None:
    """A kernel whose keyed list [16, 32] its static_assert(BLOCK <= N) trims at N=16 (32 is skipped there): the
    list's pick at each key is the fastest of the configs that run there. Before (leftovers10), 32 had no latency at
    N=16, so the session judged nothing against the list and wrote nothing, though N=256's own best (256, set aside at
    N=16 too) was 5.8x faster than the list's pick there (tune on the CPU, 2026-12-06)."""
    from kernelopt.tuning.folder import FolderTuning, judge_against_list
    from kernelopt.tuning.session import SessionResult, judge_gain
    from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape

    small, large = "rows=4,N=16", "rows=4,N=256"

    def aside(block: int, us: float) -> Result:
        return Result(config={"BLOCK": block}, outcome=Outcome.INVALID, reason="its static_assert", failed_entry=small,
                      latency_us_by_shape={large: us})  # fmt: skip

    ok = Result(
        config={"BLOCK": 16}, outcome=Outcome.OK, latency_us=157.0, latency_us_by_shape={small: 17.0, large: 140.0}
    )
    results = [ok, aside(32, 96.0), aside(256, 16.0)]
    result = SessionResult(
        best_config={"BLOCK": 16}, best_latency_us=157.0, current_config={"BLOCK": 16}, current_latency_us=157.0,
        results=results, retimed=[], evaluations=3, served=0, budget=3, space_size=5, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, [], result.best_config, result.current_config)
    choice = choose(shapes)
    assert choice.kind is ChoiceKind.TABLE and choice.table[large] == {"BLOCK": 256}
    tuning = FolderTuning(None, result, judge_gain(result), per_shape=tuple(shapes), choice=choice)  # type: ignore[arg-type]
    assert not tuning.judgement.better  # the one best is the current configuration
    judged = judge_against_list(tuning, [Config.of({"BLOCK": 16}), Config.of({"BLOCK": 32})])
    assert judged.judgement.better and judged.judgement.table, judged.judgement.reason
    assert [s.current_latency_us for s in judged.per_shape] == [17.0, 96.0]  # 32 where it runs, 16 where 32 cannot
    assert "+500.0 % on rows=4,N=256" in judged.judgement.reason


ASSERTED_LIST = """
import triton
import triton.language as tl


@triton.autotune([triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 64})], key=["N"])
@triton.jit
def add_one(x, N: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= N)
    offs = tl.arange(0, BLOCK)
    tl.store(x + offs, tl.load(x + offs) + 1, mask=offs < N)
"""


@pytest.mark.timeout(60)
def test_in_the_interpreter_an_autotuner_skips_a_config_its_static_assert_refuses(tmp_path: Path) -> None:
    """A list keyed by size holding a config the kernel's ``tl.static_assert`` refuses at one key (what the per-entry
    screen may write): a GPU compile raises CompileTimeAssertionFailure there, which Triton's autotuner skips, and
    runs the other config; Triton's interpreter raised the AssertionError through the autotuner (leftovers10), so the
    CPU's check of such a table failed where the GPU is right. It is skipped in the interpreter too."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    path = tmp_path / "asserted.py"
    path.write_text(ASSERTED_LIST)
    with triton_interpreted():
        module = load_fresh(path, "_asserted_list")
        x = torch.zeros(64)
        module.add_one[(1,)](x, 32)  # BLOCK=64 > N=32 refused there: BLOCK=16 runs (timed once, then the launch)
    assert module.add_one.best_config.kwargs == {"BLOCK": 16}
    assert torch.equal(x[:16], torch.full((16,), 2.0)) and not x[16:].any()


KEYED_ASSERTED = """
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 16}),
        triton.Config({"BLOCK": 256}),
        triton.Config({"BLOCK": 32}),
    ],
    key=["N"],
)
@triton.jit
def _scale_rows(x_ptr, y_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= N)
    row = tl.program_id(0)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < N
        tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=mask) * 2.0, mask=mask)


def run(x):
    y = torch.empty_like(x)
    _scale_rows[(x.shape[0],)](x, y, x.shape[1])
    return y
"""

KEYED_ASSERTED_REFERENCE = """
import torch

ATOL = 1e-6
RTOL = 1e-6
SHAPES = [{"rows": 4, "N": 16}, {"rows": 4, "N": 256}]


def get_inputs(rows=4, N=256, device="cpu"):
    return [torch.randn(rows, N, device=device)]


def reference(x):
    return x * 2.0
"""


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_a_keyed_table_whose_config_a_static_assert_refuses_at_one_key_is_correct(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table ``tune`` wrote on the CPU for a [16, 32] list with ``tl.static_assert(BLOCK <= N)`` at N 16 and 256
    (docs/faults.md, leftovers10 m1c): ``[16, 256, 32]`` keyed on N. On a GPU Triton's autotuner skips what the assert
    refuses (CompileTimeAssertionFailure) at each key, as the interpreter now does: right at N = 16, 17, 40, 100, 256,
    300 and 4096."""
    from tests.gpu_correct import Ran, assert_correct

    def exact(ran: Ran) -> bool:
        import torch

        return bool(torch.allclose(ran.got, ran.want, atol=ran.ref.ATOL, rtol=ran.ref.RTOL))

    (tmp_path / "kernel.py").write_text(KEYED_ASSERTED)
    (tmp_path / "reference.py").write_text(KEYED_ASSERTED_REFERENCE)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # compiled for the GPU where the kernel is loaded
    assert_correct(tmp_path, [{"rows": 3, "N": n} for n in (16, 17, 40, 100, 256, 300, 4096)], exact)


class EntryFailing:
    """A recorded sweep in which every configuration with ``BLOCK_K`` in ``fails`` fails one entry."""

    def __init__(self, s: SweepFile, clock: ManualClock, fails: set[int]) -> None:
        self.inner = ReplayEvaluator(s, clock)
        self.fails = fails
        self.asked: list[str] = []

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        self.asked += [c.key() for c in batch]
        out = []
        for r in self.inner.evaluate(batch):
            if r.config.get("BLOCK_K") in self.fails:
                r = Result.failed(r.config, Outcome.RUN_ERROR, "on the SHAPES entry n=96: AssertionError")
                r = r.model_copy(update={"failed_entry": "n=96"})
            out.append(r.model_copy(update={"recorded": False}))
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return self.inner.retime(batch)

    def close(self) -> None:
        pass


@pytest.mark.timeout(60)
def test_a_candidate_that_failed_an_entry_is_no_candidate_of_the_stall_rule_and_never_proposed_again() -> None:
    s = read_sweeps(SWEEPS / "skinny_gemm.json")[0]
    space, clock = space_from_sweep(s), ManualClock()
    ev = EntryFailing(s, clock, fails={64})
    res = tune(space, ev, budget=Budget.default(space.size.count, clock), rng_seed=7)
    assert len(ev.asked) == len(set(ev.asked))  # never proposed (nor evaluated) twice
    failed = [r for r in res.results if r.failed_entry is not None]
    assert failed and all(r.outcome is Outcome.RUN_ERROR and "n=96" in (r.reason or "") for r in failed)

    def stalls_at(count_failed: bool) -> int | None:
        for i in range(1, len(res.results) + 1):
            kept = [r for r in res.results[:i] if count_failed or r.failed_entry is None]
            if stalled([r.latency_us if r.outcome.ok else None for r in kept]):
                return i
        return None

    # counted as failed candidates, the 36 of BLOCK_K=64 would have stalled the session at 112 of its 118
    before = stalls_at(count_failed=True)
    assert before is not None and len(res.results) > before
    assert res.stop is StopReason.CANDIDATES or (res.stop is StopReason.STALLED and stalls_at(False) is not None)
    assert res.best_config is not None and res.best_config.get("BLOCK_K") != 64
    line = failures_line(res) or ""
    assert f"{len(failed)} of them failed a SHAPES entry's check and were timed nowhere" in line


@pytest.mark.timeout(300)
def test_tune_never_times_a_block_that_trips_the_kernel_s_assert_at_one_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """assert_block: one block per row and ``assert n_cols <= BLOCK`` at the launch, SHAPES of 40 and 300 columns.
    Blocks 64-256 pass at 40 columns and trip the assert at 300: before, each was timed at 40 columns first. The
    space no longer offers them (a block that must cover the row starts at the row, tuneleft8): the bound is left
    out here, to see the failures it would have been."""
    import json

    import kernelopt.tuning.folder as folder_module
    from kernelopt.cli.app import main

    monkeypatch.setattr(folder_module, "covered_sizes", lambda *a, **k: {})

    folder = tmp_path / "f"
    shutil.copytree(DATA / "assert_block", folder)
    before = (folder / "kernel.py").read_text()
    code = main(["tune", str(folder), "--device", "cpu", "--repetitions", "3", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    lines = [json.loads(line) for line in Path(doc["record"]).read_text().splitlines()]
    results = [x["result"] for x in lines if x.get("kind") == "result" and not x["result"]["retimed"]]
    failed = {r["config"]["BLOCK"]: r for r in results if r["outcome"] != "ok"}
    assert {64, 128, 256} <= set(failed)
    for block in (64, 128, 256):
        r = failed[block]
        assert r["failed_entry"] == "rows=4,cols=300" and r["bench_s"] is None and r["latency_us"] is None
        assert r["reason"].startswith("on the SHAPES entry rows=4,cols=300: raised while running: AssertionError")
    assert all(r["config"]["BLOCK"] >= 512 for r in results if r["outcome"] == "ok")
    assert (folder / "kernel.py").read_text() == before or doc["best_config"]["BLOCK"] >= 512


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_a_gpu_a_block_that_trips_the_assert_at_one_entry_is_compiled_and_checked_never_timed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a GPU the primary shape's evaluator compiles in the pool and the check on each entry comes before any
    timing, as on the CPU; num_warps is a knob there, so every warp count of a block under 300 fails the same way
    (the space's bound for a block that must cover the row left out, as on the CPU)."""
    import json

    import kernelopt.tuning.folder as folder_module
    from kernelopt.cli.app import main

    monkeypatch.setattr(folder_module, "covered_sizes", lambda *a, **k: {})

    folder = tmp_path / "f"
    shutil.copytree(DATA / "assert_block", folder)
    code = main(["tune", str(folder), "--device", "cuda", "--budget", "24", "--dry-run", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert doc["shapes"] == ["rows=4,cols=40", "rows=4,cols=300"] and "num_warps" in doc["knobs"]
    lines = [json.loads(line) for line in Path(doc["record"]).read_text().splitlines()]
    results = [x["result"] for x in lines if x.get("kind") == "result" and not x["result"]["retimed"]]
    small = [r for r in results if 40 <= r["config"]["BLOCK"] < 300]
    assert small and all(r["failed_entry"] == "rows=4,cols=300" and r["bench_s"] is None for r in small)
    assert all(r["outcome"] != "ok" for r in small) and doc["best_config"]["BLOCK"] >= 512


# --------------------------------------------------------------------- tunables' words for a block saved on ctx


@pytest.mark.timeout(60)
def test_tunables_says_a_backward_block_comes_from_the_forward_through_ctx(capsys: pytest.CaptureFixture[str]) -> None:
    """ctx_softmax (tests/data/breaker3): the backward is launched with ``BLOCK_SIZE=ctx.BLOCK_SIZE``. ``tunables``
    said "_softmax_bwd:BLOCK_SIZE is computed (ctx.BLOCK_SIZE); it is tuned where it is computed (kernel.py:48):
    one value for every size, or a table by size, by ctx that falls back on the computation", and ``tune`` then
    refused it because no SHAPES entry names ``ctx``. Now the line says where the value comes from (the forward
    saved it on ctx at kernel.py:39) and what is tuned (the forward's knob), and the knob is not offered alone."""
    from kernelopt.cli.app import main
    from kernelopt.tunables import discover_source

    path = Path(__file__).parent / "data" / "breaker3" / "ctx_softmax" / "kernel.py"
    found = {t.key: t for t in discover_source(path.read_text())}
    block, warps = found["_softmax_bwd:BLOCK_SIZE"], found["_softmax_bwd:num_warps"]
    assert not block.editable and not warps.editable and block.computed is None
    assert block.refused_reason == (
        "it comes from the forward pass: this launch reads ctx.BLOCK_SIZE, which forward() saved at kernel.py:39 "
        "(ctx.BLOCK_SIZE = BLOCK_SIZE); what is tuned is the forward's knob _softmax_fwd:BLOCK_SIZE, and this launch "
        "takes its tuned value through ctx (tuned here on its own, the two passes would disagree)"
    )
    assert "forward() saved at kernel.py:40 (ctx.num_warps = num_warps)" in (warps.refused_reason or "")
    assert found["_softmax_fwd:BLOCK_SIZE"].editable and found["_softmax_fwd:BLOCK_SIZE"].tuned_at == "kernel.py:34"
    assert main(["tunables", str(path)]) == 0
    err = " ".join(capsys.readouterr().err.split())  # the console folds long lines
    assert "_softmax_bwd:BLOCK_SIZE is not editable: it comes from the forward pass: this launch reads" in err
    assert "by ctx" not in err
    # saved from an expression no forward launch reads: nothing tunes it, and the line says so
    other = path.read_text().replace("ctx.BLOCK_SIZE = BLOCK_SIZE", "ctx.BLOCK_SIZE = triton.next_power_of_2(n_cols)")
    moved = {t.key: t for t in discover_source(other)}["_softmax_bwd:BLOCK_SIZE"]
    assert (
        "(ctx.BLOCK_SIZE = triton.next_power_of_2(n_cols)); no launch of forward() reads it as a knob, so nothing "
        "tunes it: it stays as forward() computes it" in (moved.refused_reason or "")
    )


# ------------------------------------------------------------------------------------ a SHAPES built by code

REFERENCE = """import torch

{shapes}


def get_inputs(rows=4, cols=300, device="cpu"):
    return [torch.randn(rows, cols, device=device)]


def reference(x):
    return x / (x.abs().amax(dim=1, keepdim=True) + 1e-6)
"""
GOOD = "SHAPES = [dict(rows=4, cols=n) for n in (40, 300)]"
BAD = {
    "a dict": ("def make_shapes():\n    return dict(rows=4, cols=300)\n\n\nSHAPES = make_shapes()", "not dict ({'rows': 4, 'cols': 300})"),
    "empty": ("SHAPES = [dict(rows=4, cols=n) for n in ()]", "SHAPES is empty: give it one dict"),
    "a number": ('SHAPES = int("5")', "not int (5)"),
    "numbers": ("SHAPES = [n for n in (40, 300)]", "not list of int (40)"),
}  # fmt: skip


def _problem(tmp_path: Path, shapes: str) -> Path:
    folder = tmp_path / "p"
    shutil.copytree(DATA / "assert_block", folder)
    (folder / "reference.py").write_text(REFERENCE.format(shapes=shapes))
    return folder


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("text", "by_code"),
    [
        ('SHAPES = [{"n": 4096}, {"n": 2**10}]', False),
        ('SHAPES = ({"n": 4096},)', False),
        ("N = 4\n", False),
        (GOOD, True),
        ("SHAPES = make_shapes()", True),
        ('if FAST:\n    SHAPES = [{"n": 4}]\nelse:\n    SHAPES = [{"n": 8}]', True),
        ('SHAPES = [{"n": 4}]\nSHAPES += [{"n": 8}]', True),
        ('SHAPES: list = [{"n": 4}]', True),
    ],
)
def test_a_shapes_built_by_code_is_told_from_a_literal_by_its_text(tmp_path: Path, text: str, by_code: bool) -> None:
    from kernelopt.kernelsource import shapes_built_by_code

    path = tmp_path / "reference.py"
    path.write_text(text + "\n")
    assert shapes_built_by_code(path) is by_code


@pytest.mark.timeout(120)
def test_a_shapes_built_by_code_is_read_once_and_refused_by_the_literal_s_rule(tmp_path: Path) -> None:
    from kernelopt.errors import InputFileError
    from kernelopt.harness.infer import shapes_by_code
    from kernelopt.kernelsource import check_reference
    from kernelopt.tuning.problem import reference_shapes

    good = _problem(tmp_path / "good", GOOD) / "reference.py"
    assert reference_shapes(good, device="cpu") == [{"rows": 4, "cols": 40}, {"rows": 4, "cols": 300}]
    literal = DATA / "assert_block" / "reference.py"  # a literal is read from the text, no child
    assert shapes_by_code(literal) is None and reference_shapes(literal) == [{"rows": 4, "cols": 40}, {"rows": 4, "cols": 300}]  # fmt: skip
    for name, (text, words) in BAD.items():
        bad = _problem(tmp_path / name.replace(" ", "_"), text) / "reference.py"
        check_reference(bad)  # the text alone cannot tell
        with pytest.raises(InputFileError) as caught:
            reference_shapes(bad, device="cpu")
        line = caught.value.one_line()
        assert "\n" not in line and words in line and "SHAPES" in line, (name, line)
    broken = _problem(tmp_path / "broken", GOOD + "\nimport not_a_module_here") / "reference.py"
    assert shapes_by_code(broken) is None  # does not import: the run that imports it says why
    # a torch.dtype in an entry: the gate takes it (it indexes the module's entries), a tuning session's bench
    # workers cannot be handed it (they crashed: "the bench worker did not start: ValidationError ... ProblemShape")
    dtyped = _problem(tmp_path / "dtyped", "SHAPES = [dict(rows=4, cols=n, dtype=torch.float16) for n in (40, 300)]")
    assert shapes_by_code(dtyped / "reference.py") is None
    with pytest.raises(InputFileError) as caught:
        reference_shapes(dtyped / "reference.py", device="cpu")
    line = caught.value.one_line()
    assert "SHAPES[0] holds dtype=torch.float16 (torch.dtype): a tuning session hands each SHAPES entry" in line
    assert 'dtype="float16"' in line and "validate and optimize's gate take the entry as it is" in line
    tupled = tmp_path / "tupled.py"  # a tuple of integers is handed on as itself (net11: the net moves its numbers)
    tupled.write_text('SHAPES = [{"size": (4, 40)}]\n\n\ndef get_inputs(size=(4, 40)):\n    return []\n')
    assert reference_shapes(tupled) == [{"size": (4, 40)}]
    floats = tmp_path / "floats.py"  # one of anything else: the same line (it was "internal error: ValidationError")
    floats.write_text('SHAPES = [{"size": (4, 0.5)}]\n\n\ndef get_inputs(size=(4, 0.5)):\n    return []\n')
    with pytest.raises(InputFileError, match=r"SHAPES\[0\] holds size=\(4, 0.5\) \(tuple\): a tuning session"):
        reference_shapes(floats)


@pytest.mark.timeout(240)
def test_every_command_refuses_a_bad_shapes_built_by_code_in_one_line_before_it_makes_or_runs_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, a literal bad SHAPES was refused at ``init``, a built one only once the worker imported it: ``init``
    made the workspace, ``validate`` ran the gate to "reference.py fails, not the kernel: ... loading: ...",
    ``tune`` said "timed on get_inputs()'s defaults" first."""
    from kernelopt.cli.app import main

    text, words = BAD["a dict"]
    folder = _problem(tmp_path / "bad", text)
    kernel = (folder / "kernel.py").read_text()
    root = tmp_path / "root"
    runs = {
        "init": ["init", "w", "--kernel", str(folder / "kernel.py"), "--reference", str(folder / "reference.py"),
                 "--root", str(root)],
        "tune": ["tune", str(folder), "--device", "cpu"],
        "optimize": ["optimize", str(folder), "--device", "cpu", "--root", str(root)],
    }  # fmt: skip
    for name, argv in runs.items():
        assert main(argv) == 2, name
        err = capsys.readouterr().err
        assert words in err and len([ln for ln in err.splitlines() if "SHAPES" in ln]) == 1, (name, err)
        assert not root.exists() and (folder / "kernel.py").read_text() == kernel, name
    # validate: a workspace whose reference.py was built well, then changed to a bad SHAPES by code
    good = _problem(tmp_path / "good", GOOD)
    assert main(["init", "w", "--kernel", str(good / "kernel.py"), "--reference", str(good / "reference.py"),
                 "--root", str(root)]) == 0  # fmt: skip
    ws = root / "kernel_opt_w"
    (ws / "reference.py").write_text(REFERENCE.format(shapes=text))
    capsys.readouterr()
    assert main(["validate", str(ws), "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert words in err and "loading" not in err and not list(ws.glob(".kernelopt/validate/*.json"))
    assert main(["optimize", str(ws), "--device", "cpu"]) == 2  # an existing workspace: before the loop
    err = capsys.readouterr().err
    assert words in err and not list(ws.glob("memory/v*.json"))
    # batch: the problem is an ERROR row with the line, the good one beside it runs
    problems = tmp_path / "problems"
    shutil.copytree(folder, problems / "bad")
    shutil.copytree(good, problems / "good")
    from kernelopt.batch.problems import folder_items

    rows = {i.problem: i for i in folder_items(problems)}
    assert rows["bad"].defect is not None and words in rows["bad"].defect and rows["bad"].problem_fault
    assert rows["good"].defect is None


@pytest.mark.timeout(300)
def test_a_good_shapes_built_by_code_is_checked_on_every_entry_by_tune_validate_and_optimize(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, ``tune`` read only a literal SHAPES: a built one was "timed on get_inputs()'s defaults", one entry
    checked, and the fit rule "a tile is no larger than the problem" knew no size (10 of 13 blocks fit, not 6).
    ``validate`` and ``optimize`` check both entries as they did. (The bound of a block that must cover the row,
    which leaves 512 alone here, is left out: the blocks below it show the entries are read.)"""
    import json

    import kernelopt.tuning.folder as folder_module
    from kernelopt.cli.app import main

    monkeypatch.setattr(folder_module, "covered_sizes", lambda *a, **k: {})

    monkeypatch.setenv("KERNELOPT_BENCH_S", "0.05")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    folder = _problem(tmp_path, GOOD)
    code = main(["tune", str(folder), "--device", "cpu", "--budget", "3", "--repetitions", "3", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    assert (
        doc["shapes"] == ["rows=4,cols=40", "rows=4,cols=300"]
        and "2 shapes, each candidate checked on every one" in err
    )
    assert "space 6 of 13 fit" in err
    root = tmp_path / "root"
    assert main(["optimize", str(folder), "--device", "cpu", "--max-iters", "0", "--root", str(root)]) == 0
    ws = root / "kernel_opt_p"
    v0 = json.loads((ws / "memory" / "v0.json").read_text())
    assert set(v0["performance"]["latency_us_by_shape"]) == {"rows=4,cols=40", "rows=4,cols=300"}
    assert v0["correctness"]["status"] == "PASS"
    capsys.readouterr()
    assert main(["validate", str(ws), "--version", "0", "--device", "cpu", "--no-previous"]) == 0
    assert "2 case(s)" in capsys.readouterr().out
