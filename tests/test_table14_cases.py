"""table14 (2026-12-06; docs/faults.md, "A table's row that fails at write time, fourteenth session"): a per-bucket
table whose written kernel fails its check gives way row by row, as a single pick gives way to its next-best
(rounds13), where the whole table was dropped."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kernelopt.tuning.candidate import COMPUTED, Config, Outcome, Result
from kernelopt.tuning.shapes import ChoiceKind, choose, per_shape, total

DATA = Path(__file__).parent / "data"
CURRENT = {"BLOCK": COMPUTED}


@pytest.fixture(scope="module")
def rownorm_on_the_cpu(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """tests/data/tuning/rownorm prepared for tuning on the CPU (its block computed from ``n_cols`` by a settings
    helper; the entries 100 and 256 columns, where the computation gives 128 and 256)."""
    from kernelopt.tuning.folder import TuneRequest, prepare_folder

    folder = tmp_path_factory.mktemp("table14") / "rownorm"
    shutil.copytree(DATA / "tuning" / "rownorm", folder, ignore=shutil.ignore_patterns(".kernelopt", "__pycache__"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TRITON_INTERPRET", "1")
        yield prepare_folder(TuneRequest(folder=folder, device="cpu"))


def _table_session(prepared: Any, timings: dict[int, tuple[float, float]]) -> Any:
    """A finished session on the row normalize whose re-timed candidates are ``timings`` (BLOCK -> latency on 100
    and 256 columns) beside the current computation's 10 and 100 us, judged as ``tune_folder`` judges a table."""
    from kernelopt.tuning.folder import FolderTuning, judge_choice
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    small, large = (s.label() for s in prepared.shapes)

    def timed(config: dict, a: float, b: float) -> Result:
        return Result(config=config, outcome=Outcome.OK, latency_us=total([a, b]),
                      latency_us_by_shape={small: a, large: b}, retimed=True)  # fmt: skip

    results = [timed(CURRENT, 10.0, 100.0), *(timed({"BLOCK": k}, a, b) for k, (a, b) in timings.items())]
    best = min(results, key=lambda r: r.latency_us or 0.0)
    result = SessionResult(
        best_config=best.config, best_latency_us=best.latency_us, current_config=CURRENT, current_latency_us=110.0,
        results=results, retimed=results, evaluations=len(results), served=0, budget=4, space_size=8, wall_s=1.0,
        stop=StopReason.CANDIDATES, strategy="exhaustive",
    )  # fmt: skip
    shapes = per_shape(results, results, best.config, CURRENT)
    choice = choose(shapes)
    assert choice.kind is ChoiceKind.TABLE, choice
    return judge_choice(FolderTuning(prepared, result, judge_gain(result), per_shape=tuple(shapes), choice=choice))


def _checked_failing(prepared: Any, tuning: Any, rows: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list]:
    """``_checked_edit`` of ``tuning`` in the session's own workers on the CPU, where a written kernel holding one of
    ``rows`` (a table's row, as written) fails on the 100-column entry (as a row fails only on a GPU: its check runs
    the written text, which no candidate ran), every other text checked for real; and the texts checked."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import _evaluator

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    small = prepared.shapes[0].label()
    checked: list[str] = []
    with _evaluator(prepared) as evaluator:
        check_source = evaluator.check_source

        def on_entries(source: str, config: Config) -> Result:
            checked.append(source)
            if any(row in source for row in rows):
                why = f"on the SHAPES entry {small}: wrong_result: 3 of 800 elements differ"
                return Result.failed(config, Outcome.WRONG_RESULT, why).model_copy(update={"failed_entry": small})
            return check_source(source, config)

        monkeypatch.setattr(evaluator, "check_source", on_entries)
        return tf._checked_edit(tuning, evaluator), checked


ROW_100 = "if n_cols <= 100:  # kernelopt: tuned\n            block = 256\n"


def refusing_row(monkeypatch: pytest.MonkeyPatch, row: str) -> list[str]:
    """tune's guard refusing every text that holds ``row`` (a table's row, as written), as a tile a size must divide is
    refused (a guard's refusal, not a check's failure); the texts it refused, as they come."""
    from kernelopt.tunables.guard import Guarded
    from kernelopt.tuning import folder as tf

    guard_edit, refused = tf.guard_edit, []

    def refusing(old: str, new: str, **kw: object) -> Guarded:
        if row in new:
            refused.append(new)
            return Guarded(None, "block=256 must divide n_cols (a guard cannot be written here)")
        return guard_edit(old, new, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(tf, "guard_edit", refusing)
    return refused


ROW_256 = "n_cols <= 256:  # kernelopt: tuned\n            block = 512\n"


@pytest.mark.timeout(120)
def test_a_table_row_that_fails_at_write_time_gives_way_to_its_bucket_s_next_best(
    rownorm_on_the_cpu: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """256 is the best block on 100 columns (5 us), 512 on 256 (60 us): the table ``100: 256, 256: 512``. Its written
    kernel fails on 100 columns; the row for 100 gives way to its bucket's next-best timed there (512, 8 us, which
    merges with the next row), the table is checked again on every entry and by the net, and written, its gain
    judged by what it now runs (+25 % on 100 columns, not the failed row's +100 %). It is correct at 512 and 1000
    columns too, where the original computation serves."""
    from tests.test_tuning_shapes import _correct_at, _written_copy

    tuning = _table_session(rownorm_on_the_cpu, {256: (5.0, 100.0), 512: (8.0, 60.0)})
    assert tuning.judgement.better and "+100.0 % on n_rows=8,n_cols=100" in tuning.judgement.reason
    done, checked = _checked_failing(rownorm_on_the_cpu, tuning, [ROW_100], monkeypatch)
    assert done.edit is not None, done.edit_note
    text = done.edit.new_source
    assert "if n_cols <= 256:  # kernelopt: tuned\n            block = 512\n" in text and ROW_100 not in text, text
    assert len(checked) == 2 and ROW_100 in checked[0] and checked[1] == text  # the second table checked again
    note = done.edit_note or ""
    assert note.startswith(
        "the edit to write failed its check (wrong_result: on the SHAPES entry n_rows=8,n_cols=100: wrong_result: 3 of "
        "800 elements differ): the row n_cols <= 100: BLOCK=256 not written; its bucket's next-best passes: BLOCK tuned "
        "in a table over n_cols up to 256"
    ), note
    assert done.judgement.better and "+25.0 % on n_rows=8,n_cols=100" in done.judgement.reason, done.judgement
    assert done.net is not None and done.net.failed is None and "correct at" in done.net.line(), done.net
    assert {r for r, _ in done.failed_rows} == {"n_rows=8,n_cols=100"}
    assert _correct_at(_written_copy(text, tmp_path)) == {"100": True, "256": True, "512": True, "1000": True}


@pytest.mark.timeout(120)
def test_a_table_whose_rows_fail_until_only_the_computation_is_left_writes_nothing(
    rownorm_on_the_cpu: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same table, where every text with a 512 row fails too: the row for 100 gives way to 512, which fails; the
    merged row then gives way at both entries to the original's computation (the next timed there), a table that
    gives every shape the computation's values: no gain, nothing written, the first check's line kept."""
    tuning = _table_session(rownorm_on_the_cpu, {256: (5.0, 100.0), 512: (8.0, 60.0)})
    before = rownorm_on_the_cpu.base_source
    done, checked = _checked_failing(rownorm_on_the_cpu, tuning, [ROW_100, ROW_256], monkeypatch)
    assert done.edit is None and not done.judgement.better
    assert len(checked) == 2 and ROW_100 in checked[0] and ROW_256 in checked[1]
    assert done.edit_note is not None and done.edit_note.endswith("3 of 800 elements differ): nothing written")
    assert rownorm_on_the_cpu.base_source == before


def test_a_size_the_net_failed_at_is_served_by_the_row_at_or_above_it(rownorm_on_the_cpu: Any) -> None:
    """The net's sizes are no entry: a failure at 1 column (a table's least size) or at 200 is the row that serves
    it, the row for 100 or for 256; one past the table (300 columns) is the original's computation, no row to give
    way, so the table is dropped as before."""
    from kernelopt.tuning.folder import _next_table
    from kernelopt.tuning.problem import ProblemShape

    tuning = _table_session(rownorm_on_the_cpu, {256: (5.0, 100.0), 512: (8.0, 60.0)})
    one, row = _next_table(tuning, ProblemShape(kwargs={"n_rows": 8, "n_cols": 1}))
    assert row == "n_cols <= 100: BLOCK=256" and one.failed_rows == (
        ("n_rows=8,n_cols=100", Config.of({"BLOCK": 256})),
    )
    both, row = _next_table(tuning, ProblemShape(kwargs={"n_rows": 8, "n_cols": 200}))
    assert row == "n_cols <= 256: BLOCK=512" and [label for label, _ in both.failed_rows] == ["n_rows=8,n_cols=256"]
    assert _next_table(tuning, ProblemShape(kwargs={"n_rows": 8, "n_cols": 300})) is None


class _GpuEntry:
    """A ``SHAPES`` entry's evaluator on a GPU (a fake of :class:`KernelEvaluator`, as tests/test_shape_failures.py's):
    its first call of a candidate compiles it for the entry's own specialization (the H100's scaled_mm, 2026-12-06), and a
    timing request times what its check kept loaded (no second check: ``check_s`` ``None``); ``meet``: a barrier its untimed checks wait at, which only entries checking at the same time pass."""

    def __init__(self, meet: threading.Barrier | None, free_bytes: int = 80 * 1024**3) -> None:
        from kernelopt.tuning.problem import MemoryNeed

        need = MemoryNeed(inputs_bytes=1024**2, outputs_bytes=1024**2)
        self.ready = SimpleNamespace(need=need, free_bytes=free_bytes)
        self.meet, self.calls, self.sources = meet, [], []

    def spawn(self) -> None:
        pass

    def start(self, compile_workers: int = 0) -> object:
        return self.ready

    def evaluate(self, batch: Sequence[Config], *, timed: bool = True) -> list[Result]:
        self.calls.append(([int(c["BLOCK"]) for c in batch], timed))
        if self.meet is not None and not timed:
            self.meet.wait()  # BrokenBarrierError after its timeout: the other entry never checked beside it
        us = 1.0 if timed else None
        return [Result(config=c.as_dict(), outcome=Outcome.OK if c["BLOCK"] != 16 else Outcome.WRONG_RESULT,
                       latency_us=us, samples_us=[us] if us else [], check_s=None if timed else 1.5,
                       bench_s=0.1 if timed else None)
                for c in batch]  # fmt: skip

    def check_source(self, source: str, config: Config) -> Result:
        self.sources.append(source)
        if self.meet is not None:
            self.meet.wait()
        return Result(config=config.as_dict(), outcome=Outcome.OK, check_s=1.5)


def _entries(tmp_path: Path, meet: threading.Barrier | None, free_bytes: int = 80 * 1024**3) -> tuple[Any, list]:
    """A session's evaluator across three entries on a GPU, each entry's evaluator a :class:`_GpuEntry` (the
    primary's untimed checks meet no one: it checks first, alone)."""
    from tests.test_shape_failures import _shapes_evaluator

    ev, _ = _shapes_evaluator(tmp_path, [set(), set(), set()])
    ev.interpreted = False  # a GPU's session: each entry's first call compiles
    fakes = [_GpuEntry(None, free_bytes), _GpuEntry(meet, free_bytes), _GpuEntry(meet, free_bytes)]
    ev.evaluators = fakes
    return ev, fakes


@pytest.mark.timeout(60)
def test_on_a_gpu_the_entries_after_the_primary_check_a_batch_at_once(tmp_path: Path) -> None:
    """The H100 (2026-12-06): scaled_mm's check took 44.7 s of its 60 s wall, each entry's bench worker compiling
    each candidate for its own specialization one entry after another. Now the primary checks the batch first, then
    the other entries check what passed at once (the two wait at one barrier: one after another, it would break),
    and only then is anything timed, each entry's worker timing what it kept loaded from its check."""
    ev, (primary, middle, large) = _entries(tmp_path, threading.Barrier(2, timeout=20))
    assert ev.together()
    results = ev.evaluate([Config.of({"BLOCK": b}) for b in (64, 16, 128)])
    assert primary.calls == [([64, 16, 128], False), ([64, 128], True)]
    assert middle.calls == [([64, 128], False), ([64, 128], True)]  # only what passed the primary
    assert large.calls == [([64, 128], False), ([64, 128], True)]
    by = {int(r.config["BLOCK"]): r for r in results}
    assert by[16].failed_entry == primary_label(ev) and by[16].outcome is Outcome.WRONG_RESULT
    assert by[64].outcome is Outcome.OK and len(by[64].latency_us_by_shape) == 3
    assert by[64].check_s == pytest.approx(3 * 1.5)  # its checks on every entry, each counted once
    # the written kernel's check: the primary first, then the others at once
    checked = ev.check_source("text", Config.of({"BLOCK": 64}))
    assert checked.outcome.ok and [f.sources for f in (primary, middle, large)] == [["text"]] * 3


def primary_label(ev: Any) -> str:
    return ev.labels[0]


@pytest.mark.timeout(60)
def test_entries_that_do_not_fit_the_device_together_check_one_after_another(tmp_path: Path) -> None:
    """Three entries whose bench workers at their peak (4 x 2 MiB each here) do not fit the device's free memory
    together check one after another, the last's check joined to its timing, as before."""
    ev, (primary, middle, large) = _entries(tmp_path, None, free_bytes=20 * 1024**2)
    assert not ev.together()
    ev.evaluate([Config.of({"BLOCK": b}) for b in (64, 128)])
    assert primary.calls == [([64, 128], False), ([64, 128], True)]
    assert middle.calls == [([64, 128], False), ([64, 128], True)] and large.calls == [([64, 128], True)]


# ------------------------------------------------------------------------------ tunables --set, tune's fit rules


def _l2norm(tmp_path: Path) -> Path:
    """A copy of tests/data/breaker12/fla_l2norm with one entry of each of its two kernels (as tablebound13's test)."""
    folder = Path(shutil.copytree(DATA / "breaker12" / "fla_l2norm", tmp_path / "fla_l2norm"))
    reference = folder / "reference.py"
    text = reference.read_text()
    line = next(x for x in text.splitlines() if x.startswith("SHAPES = "))
    reference.write_text(text.replace(line, 'SHAPES = [{"B": 1, "T": 9, "D": 100}, {"B": 1, "T": 2, "D": 600}]'))
    return folder


@pytest.mark.timeout(120)
def test_tunables_set_refuses_a_block_pointer_tile_tune_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """fla's l2norm holds ``tl.make_block_ptr(..., (BT, BD), ...)`` with ``BD`` computed from D (128 at D = 100). tune
    never proposes ``BT = 512`` on one warp there (tablebound13: 2048 elements a thread, past the registers and the
    authors' own 512); ``tunables --set`` wrote it as asked. With ``--gpu`` and ``--reference`` it is now refused as
    tune refuses it: one line naming the entry and the tile, exit 2, the file untouched (one run of the task: a tile
    that fits is written as before, tests/test_tunables.py)."""
    from kernelopt.cli.app import main

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = _l2norm(tmp_path)
    kernel = folder / "kernel.py"
    before = kernel.read_text()
    argv = ["tunables", str(kernel), "--reference", str(folder / "reference.py"), "--device", "cpu", "--gpu", "H100"]
    code = main([*argv, "--set", "l2norm_fwd_kernel.configs[4].BT=512"])
    _, err = capsys.readouterr()
    errors = [x for x in err.splitlines() if x.startswith("kernelopt: error:")]
    assert code == 2 and kernel.read_text() == before, (code, err)
    assert len(errors) == 1 and "the new configuration cannot fit: at B=1, T=9, D=100 the block pointer's " in errors[0]
    assert "block_shape (BT, BD) = (512, 128) holds 65536 elements on 1 warp: 2048 a thread" in errors[0], errors
    assert "were not checked against the registers" not in err  # it was: the entries' tiles were known


@pytest.mark.timeout(120)
def test_tunables_set_says_why_a_tile_was_not_checked_without_a_run_of_the_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``--reference`` the tiles' second side (BD, computed from D) is not known, nor the registers without
    ``--gpu``: the set is shown as asked, and one note says the tile fit was not estimated and what it needs."""
    from kernelopt.cli.app import main

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    kernel = _l2norm(tmp_path) / "kernel.py"
    code = main(["tunables", str(kernel), "--set", "l2norm_fwd_kernel.configs[4].BT=512", "--dry-run"])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert (
        "l2norm_fwd_kernel's block pointer tiles (BT, BD) were not checked against the registers, as tune checks them "
        "(a tile that certainly spills is refused): that needs --gpu (its registers) and --reference (a run of the "
        "task: the tiles' sides at its SHAPES entries); shown (--dry-run)"
    ) in err, err


# ------------------------------------------------------------------------------ fla's BK and BV


def _outputs_right(folder: Path, sizes: list[dict[str, int]]) -> dict[str, bool]:
    """The folder's kernel.py against its reference (output and final state) at each of ``sizes``, loaded afresh in
    Triton's interpreter."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    out = {}
    with triton_interpreted():
        ref = load_fresh(folder / "reference.py", "_table14_fla_ref")
        ker = load_fresh(folder / "kernel.py", "_table14_fla_ker")
        for size in sizes:
            inputs = ref.get_inputs(**size)
            got, want = ker.run(*inputs), ref.reference(*inputs)
            label = ",".join(f"{k}={v}" for k, v in size.items())
            out[label] = all(torch.allclose(g, w, atol=1e-4, rtol=1e-4) for g, w in zip(got, want, strict=True))
    return out


@pytest.mark.timeout(180)
def test_fla_s_bk_and_bv_are_computed_tiles_and_the_written_kernel_is_right_at_sizes_not_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fla's ``fused_recurrent_fwd`` (tests/data/breaker13/fla_recurrent) computes ``BK, BV = min(next_power_of_2(K),
    64), min(next_power_of_2(V), 64)``: tiles its programs step by (``i_v * BV + tl.arange(0, BV)``) and mask against
    K and V, each K block writing a partial output that torch sums (``o = q.new_empty(NK, *v.shape)`` then ``o =
    o.sum(0)``). Breaker13 f4: BV was "not a known performance knob" (no block name) and BK "sizes a tensor
    fused_recurrent_fwd() returns" (the summed axis read as returned); tune had no knob. Both are now computed
    settings, tuned where they are computed; a pick of BK=16, BV=32 is written as a table over the sizes checked, the
    computation the fallback above them, and the kernel is right at sizes no entry names (K = 40 in three partial
    sums, V = 200 in seven blocks, K = 130 past the table)."""
    from kernelopt.tunables import discover
    from kernelopt.tunables.model import TunableKind
    from kernelopt.tuning.folder import TuneRequest, prepare_folder, shaped_edit
    from tests.test_tuning_net import _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(DATA / "breaker13" / "fla_recurrent", tmp_path / "fla_recurrent"))
    found = {t.name: t for t in discover(folder / "kernel.py")}
    for name in ("BK", "BV"):
        assert found[name].kind is TunableKind.COMPUTED_SETTING and found[name].editable, found[name]
    assert not found["K"].semantic  # the axis K's blocks size is summed before the return
    prepared = prepare_folder(TuneRequest(folder=folder, device="cpu"))
    assert prepared.space.names == ("BK", "BV")
    tuning = _session(prepared, [({"BK": 16, "BV": 32}, 1.0)], (prepared.space.current().as_dict(), 2.0))
    edit, note = shaped_edit(tuning)
    assert edit is not None and note is not None and "BK, BV tuned in a table over K up to 96" in note, note
    written = edit.new_source
    assert "    if K <= 96:  # kernelopt: tuned\n        BK = 16\n        BV = 32\n" in written, edit.diff
    assert "BK, BV = min(triton.next_power_of_2(K), 64), min(triton.next_power_of_2(V), 64)" in written
    (folder / "kernel.py").write_text(written)
    sizes = [{"B": 1, "T": 3, "H": 2, "K": 40, "V": 70}, {"B": 2, "T": 2, "H": 1, "K": 8, "V": 200},
             {"B": 1, "T": 2, "H": 1, "K": 130, "V": 33}]  # fmt: skip
    assert all(_outputs_right(folder, sizes).values()), _outputs_right(folder, sizes)


# ------------------------------------------------------------------------------ the re-time's share of the wall


def test_a_candidate_that_hangs_in_the_last_round_leaves_the_re_time_its_share() -> None:
    """scaled_mm on the H100 (2026-12-06 08:22): candidates of about 5 s (a compile on each entry), a 60 s wall; the
    rounds left the re-time its share when they chose how many to send, but a last round's request could run to the
    wall's end, and it did: 0.18 s left, the top 8 not re-timed, nothing written. Here the ninth candidate (the last
    round's) never answers: its request ends where the re-time's share begins, its reason says so, and the session
    re-times its picks within the wall and the margin."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.replay import space_from_sweep
    from kernelopt.tuning.session import tune
    from tests.test_pace12_cases import WALL_MARGIN_S, HangsAt, _sweep

    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = HangsAt(s, clock, per_s=5.0, hung=set(), at=9)
    res = tune(space, ev, budget=Budget(100, clock, wall_s=60.0), rng_seed=1, batch_size=4)
    [cut] = [r for r in res.results if r.outcome is Outcome.RUN_TIMEOUT]
    assert "cut at the end of the session's wall time (60 s, less the 15 s kept for the re-time)" in (cut.reason or "")
    assert len(res.retimed) >= 3 and res.unretimed is not None and "fits the re-time of 3" in res.unretimed
    assert res.wall_s <= 60.0 + WALL_MARGIN_S
