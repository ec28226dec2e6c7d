"""Tuning leftovers of issue 32, eighth round (tuneleft8).

1. A block that must cover a whole row (one program a row, ``tl.arange(0, BLOCK)`` masked by the row length, no
   loop over the row) was searched through every smaller value, each a wrong result: breaker7's token_quant spent 5
   of its 7 candidates on them, rms_bwd_sm, decode_split's ``BLOCK_DMODEL`` and scan_rec's ``BLOCK_T`` 3 to 4 of 6
   (docs/faults.md, breaker7 k5). The space now starts where the block covers the largest row checked.
2. On the CPU a candidate whose tl.dot operand tiles exceed the shared memory is refused only after it ran in the
   interpreter; larger tiles are refused too, and are now never proposed (or set aside untimed).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from kernelopt.tunables import AutotuneEvaluation, Cover, covered_sizes, discover_source
from kernelopt.tunables.model import ShapeSizes
from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import COMPUTED, Config, Outcome, Result
from kernelopt.tuning.launch import space_from_tunables
from kernelopt.tuning.session import tune
from kernelopt.tuning.space import Space
from kernelopt.tuning.strategies.sampling import ExhaustiveSweep

DATA = Path(__file__).parent / "data"


def _tunables(folder: str) -> list:
    return discover_source((DATA / folder / "kernel.py").read_text())


# --------------------------------------------------------------------- 1. whole-row blocks: the space's lower bound


@pytest.mark.timeout(30)
def test_discovery_reads_which_size_one_block_of_a_knob_must_cover() -> None:
    """The rule is read from the kernel: a range of the block compared with a kernel parameter, nothing stepping by
    the block. A derived range (``HALF = BLOCK // 2``) keeps its scale; a block a loop steps by covers nothing."""
    (block,) = [t for t in _tunables("breaker7/token_quant") if t.name == "BLOCK"]
    assert block.covers == [Cover(kernel="_per_token_quant_int8", block="BLOCK", size="N", test="cols < N")]
    assert (
        block.covers[0].rule()
        == "_per_token_quant_int8 covers N with one block of BLOCK (cols < N) and loops over no N"
    )
    (half,) = [t for t in _tunables("guard_forms/derived_half") if t.name == "BLOCK"]
    assert (half.covers[0].mul, half.covers[0].div) == (1, 2) and half.covers[0].lowest([512, 1024, 2048], 300) == 1024
    assert "a range of BLOCK // 2" in half.covers[0].rule()
    looped = [t for t in _tunables("gpuparity/kstep") if t.covers]  # the K loop steps by KSTEP; tiles of M, N: offsets
    assert looped == []


@pytest.mark.timeout(30)
def test_the_size_each_block_covers_is_the_launch_s_argument_at_each_shape_checked() -> None:
    """``N`` is the launch's argument: the run of the task tells it at each entry (``D`` there), or the entry names
    it; an entry where the kernel did not launch adds nothing."""
    tunables = _tunables("breaker7/token_quant")
    kernel = "_per_token_quant_int8"
    shapes = [{"B": 2, "T": 5, "D": 64}, {"B": 3, "T": 7, "D": 300}, {"B": 1, "T": 1, "D": 5000}]
    told = [ShapeSizes(shape=s, sizes={kernel: {'args["N"]': int(s["D"])}}) for s in shapes[:2]]
    evaluation = AutotuneEvaluation(shape_sizes=told)
    assert covered_sizes(tunables, evaluation, shapes) == {(kernel, "N"): 300}
    assert covered_sizes(tunables, None, [{"N": 40}, {"N": 700}]) == {(kernel, "N"): 700}
    assert covered_sizes(tunables, None, shapes) == {}


@pytest.mark.timeout(30)
def test_the_space_of_a_whole_row_block_starts_where_it_covers_the_largest_row() -> None:
    """token_quant at D 64 and 300: BLOCK 16-256 leave part of the 300-wide rows undone (before: 5 of the session's
    7 candidates, each a wrong result). The computation stays a point of the space, its literal neighbour moved up,
    and one line says why the domain starts where it does."""
    tunables = _tunables("breaker7/token_quant")
    space = space_from_tunables(
        tunables,
        problem_sizes={"B": 3, "T": 7, "D": 300},
        covered={("_per_token_quant_int8", "N"): 300},
        held_options={},
    )
    knob = space.knob("BLOCK")
    assert (
        min(v for v in knob.values if isinstance(v, int)) == 512
        and isinstance(knob.default, int)
        and knob.default >= 512
    )
    assert space.choices(knob)[-1] == COMPUTED
    assert {c["BLOCK"] for c in space.configs()} == {512, COMPUTED}  # 1024+ are larger than the problem
    (note,) = space.domain_notes
    assert note.startswith("BLOCK starts at 512: _per_token_quant_int8 covers N with one block of BLOCK (cols < N)")
    assert "N is up to 300 at the SHAPES entries checked" in note and "(16, 32, 64, 128, 256)" in note
    unbounded = space_from_tunables(tunables, problem_sizes={"B": 3, "T": 7, "D": 300})
    assert min(v for v in unbounded.knob("BLOCK").values if isinstance(v, int)) == 16 and not unbounded.domain_notes


@pytest.mark.timeout(30)
def test_a_literal_block_keeps_its_value_and_loses_only_what_cannot_cover_the_row() -> None:
    """A literal ``BLOCK=1024`` over rows of up to 300: 512 covers them all (written guarded by the guard), 16-256 do
    not; the current value stays a legal value whatever the bound (the fit prunes it as larger than the problem, and
    the session evaluates it first all the same)."""
    tunables = _tunables("guard_forms/tutorial_mask")
    space = space_from_tunables(
        tunables, problem_sizes={"rows": 3, "cols": 300}, covered={("softmax_kernel", "n_cols"): 300}
    )
    assert sorted({c["BLOCK_SIZE"] for c in space.configs()}) == [512]
    assert min(space.knob("BLOCK_SIZE").values) == 512 and 1024 in space.knob("BLOCK_SIZE").values


@pytest.mark.timeout(30)
def test_tunables_says_why_the_search_of_a_whole_row_block_starts_where_it_does() -> None:
    from kernelopt.cli.tunables import cover_lines

    tunables = _tunables("breaker7/token_quant")
    kernel = "_per_token_quant_int8"
    told = AutotuneEvaluation(
        shape_sizes=[ShapeSizes(shape={"D": d}, sizes={kernel: {'args["N"]': d}}) for d in (64, 300)]
    )
    (line,) = cover_lines(tunables, told)
    assert line.startswith(f"{kernel}:BLOCK: {kernel} covers N with one block of BLOCK (cols < N) and loops over no N")
    assert line.endswith("(here N is up to 300 at the SHAPES entries: BLOCK >= 512)")
    (unknown,) = cover_lines(tunables, None)
    assert unknown.endswith("(--reference runs the task to tell it)")


@pytest.mark.timeout(120)
def test_tune_never_proposes_a_row_block_below_the_row(tmp_path: Path) -> None:
    """The space of token_quant as ``tune --device cpu`` builds it (the run of the task tells N at each entry): no
    value below 512 is left to propose."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = Path(shutil.copytree(DATA / "breaker7" / "token_quant", tmp_path / "token_quant"))
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu", out=tmp_path / "out"))
    blocks = {c["BLOCK"] for c in prepared.space.configs()}
    assert blocks == {512, COMPUTED}, blocks
    assert prepared.space.domain_notes and "N is up to 300" in prepared.space.domain_notes[0]


# --------------------------------------------------------------------- 2. a refusal that larger tiles share


class _SharedMemory:
    """The interpreter's tl.dot bound as the bench worker applies it to kstep (``(BLOCK_M + BLOCK_N) * KSTEP`` fp32
    operands against the portable 100 KiB): a refusal flagged ``grows_with_tiles``; what fits is timed, faster with
    larger tiles. Remembers every configuration it was asked to evaluate."""

    LIMIT = 100 * 1024

    def __init__(self) -> None:
        self.asked: list[Config] = []
        self.batches: list[list[Config]] = []

    @classmethod
    def refuses(cls, c: Config) -> bool:
        m, n, k = (int(c[x]) for x in ("BLOCK_M", "BLOCK_N", "KSTEP"))
        return (m + n) * k * 4 > cls.LIMIT

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        out = []
        self.batches.append(list(batch))
        for c in batch:
            self.asked.append(c)
            m, n, k = (int(c[x]) for x in ("BLOCK_M", "BLOCK_N", "KSTEP"))
            if self.refuses(c):
                out.append(
                    Result(config=c.as_dict(), outcome=Outcome.INVALID, reason="tl.dot operands", grows_with_tiles=True)
                )
            else:
                out.append(Result(config=c.as_dict(), outcome=Outcome.OK, latency_us=1e6 / (m * n * k) ** 0.5))
        return out

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        return [r.model_copy(update={"retimed": True}) for r in self.evaluate(batch)]

    def close(self) -> None:
        pass


def _kstep_space() -> Space:
    tunables = [t for t in _tunables("gpuparity/kstep") if t.name not in ("num_warps", "num_stages")]
    return space_from_tunables(tunables, problem_sizes={"m": 4096, "n": 4096, "k": 65536})


@pytest.mark.timeout(30)
def test_larger_tiles_than_a_refused_candidate_are_never_proposed() -> None:
    """kstep (KSTEP spans 16..65536 beside BLOCK_M, BLOCK_N): once a candidate is refused for its tl.dot's shared
    memory, every configuration with each block knob at least its own breaks the bound too. Before, the session
    proposed them and the evaluator ran each before refusing it."""
    space = _kstep_space()
    assert space.block_knobs() == {"BLOCK_M", "BLOCK_N", "KSTEP"}
    ev = _SharedMemory()
    res = tune(space, ev, budget=Budget(40, ManualClock()), rng_seed=3)  # type: ignore[arg-type]
    refused: list[Config] = []  # refused in the batches before
    for batch in ev.batches:
        assert not [(c, r) for c in batch for r in refused if space.larger_tiles(c, r)]
        refused += [c for c in batch if ev.refuses(c)]
    assert refused, "the space must reach past the bound for the test to say anything"
    assert res.best_config is not None and res.evaluations >= 30


@pytest.mark.timeout(30)
def test_a_larger_tile_proposed_before_the_refusal_came_is_set_aside_untimed_with_the_reason() -> None:
    """A strategy that cannot be told (or a seed given before the refusal): the session itself sets such a candidate
    aside, untimed, as it does for an excluded region, naming the refused candidate and why."""
    space = _kstep_space()
    big = Config.of({"BLOCK_M": 64, "BLOCK_N": 64, "KSTEP": 256})
    bigger = Config.of({"BLOCK_M": 128, "BLOCK_N": 64, "KSTEP": 512})
    ev = _SharedMemory()

    class Deaf(ExhaustiveSweep):  # a strategy of a third party, which does not take the session's word
        def avoid(self, rule: object) -> None:
            pass

    deaf = Deaf(space, seeds=[big, bigger], budget=4)
    res = tune(space, ev, budget=Budget(4, ManualClock()), strategy=deaf, batch_size=1)  # type: ignore[arg-type]
    assert bigger not in ev.asked and big in ev.asked
    (aside,) = [r for r in res.results if r.config == bigger.as_dict()]
    assert aside.outcome is Outcome.INVALID and res.screened >= 2
    assert aside.reason == (
        "set aside untimed: its tiles are each at least those of BLOCK_M=64,BLOCK_N=64,KSTEP=256, which was refused "
        "(tl.dot operands)"
    )
    smaller = Config.of({"BLOCK_M": 64, "BLOCK_N": 64, "KSTEP": 128})
    assert not space.larger_tiles(smaller, big) and space.larger_tiles(big, big)
    assert not space.larger_tiles(Config.of({"BLOCK_M": 128, "BLOCK_N": 32, "KSTEP": 512}), big)


# --------------------------------------------------------------------- 3. j5 at load 17: the check's seeds


@pytest.mark.timeout(30)
def test_each_seed_of_a_check_is_a_test_case_on_its_own_clock() -> None:
    """breaker6 j5 at load 17: each of the check's three seeds of stencil_dw's larger entry took 10 s or more in the
    interpreter, and one case clock covered all three: 30 s, TIMEOUT_FAIL, a correct kernel rejected before its
    timing (which plans within its limit and was never reached). A seed is a test case of its own inputs: its call has
    the per-case limit, and the run's limit bounds the seeds together."""
    from kernelopt.harness.progress import LimitKind, Limits, Watchdog

    dog = Watchdog(limits=Limits(startup_s=10, compile_s=20, case_s=2, run_s=5), started_at=100.0)
    dog.feed({"t": 100.0, "event": "phase", "phase": "case", "case": 1, "label": "C=4"})
    dog.feed({"t": 101.5, "event": "phase", "phase": "case", "case": 1, "label": "C=4", "seed": 1})
    assert dog.check(102.9) is None  # 1.5 s and 1.4 s: each seed under 2 s, 2.9 s in all
    dog.feed({"t": 103.0, "event": "phase", "phase": "case", "case": 1, "label": "C=4", "seed": 2})
    t = dog.check(105.1)  # seed 2 ran 2.1 s: a hang of its own
    assert (
        t is not None and t.kind is LimitKind.CASE and "case 1 (C=4), seed 2 ran past the per-case limit" in t.message
    )
    dog = Watchdog(limits=Limits(startup_s=10, compile_s=20, case_s=2, run_s=5), started_at=100.0)
    for s, at in enumerate((100.0, 101.9, 103.8)):
        dog.feed({"t": at, "event": "phase", "phase": "case", "case": 0, "label": "x", "seed": s})
    t = dog.check(105.2)  # 1.9 + 1.9 + 1.4: the run's 5 s, each seed under 2
    assert t is not None and t.kind is LimitKind.RUN


@pytest.mark.timeout(120)
def test_a_correct_kernel_whose_seeds_together_pass_the_case_limit_passes_its_check(tmp_path: Path) -> None:
    """A kernel of 0.6 s a call checked on three seeds against a 1.5 s case limit (the run's 5 s): 1.8 s of calls in
    one case was TIMEOUT_FAIL; every seed still runs and is compared. A call past the limit is still a timeout."""
    from kernelopt.harness.gate import check_files
    from kernelopt.harness.settings import HarnessSettings
    from kernelopt.memory.model import CorrectnessStatus

    folder = Path(shutil.copytree(DATA / "tuneleft7" / "slow_call", tmp_path / "slow_call"))
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("CALL_S = 0.25", "CALL_S = 0.6"))
    settings = HarnessSettings(device="cpu", case_timeout_s=1.5, run_timeout_s=5.0, seeds=3)
    report = check_files(kernel, folder / "reference.py", tmp_path / "state", settings=settings)
    assert report.status is CorrectnessStatus.PASS, report.message
    assert report.cases[0].seeds == 3
    kernel.write_text(kernel.read_text().replace("CALL_S = 0.6", "CALL_S = 2.5"))
    report = check_files(kernel, folder / "reference.py", tmp_path / "state2", settings=settings)
    assert report.status is CorrectnessStatus.TIMEOUT_FAIL and "per-case limit of 1.5 s" in (report.message or "")


@pytest.mark.timeout(120)
def test_a_full_timing_plans_its_samples_within_what_its_warm_up_left(tmp_path: Path) -> None:
    """A full timing's samples took 40 % and the claim's re-time 30 % of the whole case limit, after its warm-up and
    the samplers' estimates (nine calls of each callable) had spent their share: at 0.8 s a call against 30 s, 7.2 + 12.8
    + 9.6 s. Scaled down: 0.12 s a call against 5 s, beside the reference (a claim, so a re-time), a full timing by the
    rule, was TIMEOUT_FAIL at 5.1 s (main, 2026-12-05); the shares are now of what the limit leaves (2.9 s)."""
    from kernelopt.harness.gate import bench_files
    from kernelopt.harness.model import BenchSettings
    from kernelopt.harness.settings import HarnessSettings
    from kernelopt.memory.model import CorrectnessStatus

    folder = Path(shutil.copytree(DATA / "tuneleft7" / "slow_call", tmp_path / "slow_call"))
    kernel = folder / "kernel.py"
    kernel.write_text(kernel.read_text().replace("CALL_S = 0.25", "CALL_S = 0.12"))
    settings = HarnessSettings(device="cpu", case_timeout_s=5.0, run_timeout_s=5.0, seeds=1, bench_seconds=5.0)
    report, raw = bench_files(
        kernel,
        folder / "reference.py",
        tmp_path / "state",
        settings=settings,
        bench=BenchSettings(seconds_per_case=5.0, time_reference=True),
    )
    assert report.ok and report.status is CorrectnessStatus.PASS, report.message
    assert raw is not None and raw.timings[0].reduced is None  # a full timing, not a reduced one


# --------------------------------------------------------------------- 4. tune's output


@pytest.mark.timeout(30)
def test_a_verdict_over_several_shapes_says_its_figures_are_their_sum() -> None:
    """token_quant's verdict said "best BLOCK=512: 262.8 ms, 1.08x faster than the current BLOCK=computed
    (282.9 ms)": the sum of one run at each of its two SHAPES entries, read as one call's time (the table above it says
    "sum of 2 shapes"; the line a user copies did not)."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    by = {"D=64": 47660.0, "D=300": 215140.0}
    best = Result(config={"BLOCK": 512}, outcome=Outcome.OK, latency_us=262800.0, latency_us_by_shape=by)
    result = SessionResult(
        best_config={"BLOCK": 512}, best_latency_us=262800.0, current_config={"BLOCK": COMPUTED},
        current_latency_us=282900.0, results=[best], retimed=[], evaluations=2, served=0, budget=2, space_size=2,
        wall_s=75.0, stop=StopReason.CANDIDATES, strategy="local",
    )  # fmt: skip
    line = verdict_line(result, judge_gain(result), kernel_py="kernel.py", written=False, dry_run=True)
    assert line.startswith("best BLOCK=512: 262.8 ms for its 2 shapes together, 1.08x faster than the current")
    one = result.model_copy(update={"results": [best.model_copy(update={"latency_us_by_shape": {}})]})
    assert "together" not in verdict_line(one, judge_gain(one), kernel_py="kernel.py", written=False, dry_run=True)


@pytest.mark.timeout(30)
def test_smaller_tiles_than_one_whose_dot_is_too_short_are_never_proposed() -> None:
    """kstep as written (KSTEP=8) fails as a GPU compile would: a tl.dot needs K >= 16. Each candidate with KSTEP=8
    ran before it failed (4 of a budget of 10 on the CPU, 2026-12-05); the K only shrinks with the tiles, so every
    configuration whose block knobs are each at most a failed one's fails too, and is no longer proposed."""
    space = _kstep_space()

    class ShortDot(_SharedMemory):
        def evaluate(self, batch: Sequence[Config]) -> list[Result]:
            out = super().evaluate(batch)
            short = [
                Result.failed(r.config, Outcome.RUN_ERROR, "tl.dot with K = 8").model_copy(
                    update={"shrinks_with_tiles": True}
                )
                if int(r.config["KSTEP"]) < 16
                else r
                for r in out
            ]
            return short

    ev = ShortDot()
    written = Config.of({"BLOCK_M": 32, "BLOCK_N": 32, "KSTEP": 8})
    tune(space, ev, budget=Budget(40, ManualClock()), seeds=[written], rng_seed=5)  # type: ignore[arg-type]
    failed: list[Config] = []
    for batch in ev.batches:
        assert not [(c, r) for c in batch for r in failed if space.larger_tiles(r, c)]
        failed += [c for c in batch if int(c["KSTEP"]) < 16]
    assert written in failed
