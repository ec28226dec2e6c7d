"""rounds13 (2026-12-06; docs/faults.md, "Honest comparisons and the pick's fallbacks, thirteenth session"): each
comparison of the pick with the current configuration reads one round of measurements, where the current's re-time
failed or it was cut slow and never re-timed (``tuning.shapes.same_round``'s rule: never a first measurement against
a re-time)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kernelopt.tuning.budget import ManualClock
from kernelopt.tuning.candidate import Config, Outcome, Result
from kernelopt.tuning.record import SweepFile, read_sweeps
from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep

SWEEP = Path(__file__).parent.parent / "docs" / "gpu-runs" / "2026-12-01-sweeps" / "rmsnorm_bf16.json"


class _QuietRetime:
    """A recorded sweep (:class:`ReplayEvaluator`) whose re-time runs every configuration twice as fast as the first
    round (a quieter machine) but ``slowed`` barely faster, the current configuration's re-time failing (a crashed
    worker)."""

    def __init__(self, sweep: SweepFile, current: Config, slowed: Config | None = None) -> None:
        self.inner, self.current, self.slowed = ReplayEvaluator(sweep, ManualClock()), current, slowed

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        return [r.model_copy(update={"recorded": False}) for r in self.inner.evaluate(batch)]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        out = []
        for c, r in zip(batch, self.inner.retime(batch), strict=True):
            if c == self.current:
                out.append(
                    Result.failed(c, Outcome.WORKER_CRASH, "the worker died").model_copy(update={"retimed": True})
                )
            elif r.latency_us is not None:
                scale = 0.99 if c == self.slowed else 0.5  # no slower than at first: the re-time's round stands
                out.append(r.model_copy(update={"latency_us": r.latency_us * scale, "recorded": False}))
            else:
                out.append(r)
        return out

    def close(self) -> None:
        pass


def test_a_current_configuration_whose_re_time_failed_is_compared_with_the_pick_in_the_first_round() -> None:
    """session._result took the pick's latency from the re-time and the current's, whose re-time failed, from the
    first round: a re-time twice as fast doubled the claimed speedup. The re-time still picks among those it timed
    (here not the first round's fastest, barely faster re-timed), and the pick and the current are compared by
    their first figures."""
    from kernelopt.tuning.budget import Budget
    from kernelopt.tuning.session import judge_gain, tune

    [sweep] = read_sweeps(SWEEP)
    space = space_from_sweep(sweep)
    current = space.current()
    assert current is not None

    def session(slowed: Config | None) -> Any:
        ev = _QuietRetime(sweep, current, slowed)
        return tune(space, ev, budget=Budget.default(space.size.count, ManualClock()), rng_seed=7)

    fastest = session(None)
    first = {Config.of(r.config): r.latency_us for r in fastest.results if r.outcome.ok and not r.cut_slow}
    top = min(first, key=lambda c: first[c] or 0.0)
    assert fastest.best_config is not None and Config.of(fastest.best_config) == top
    res = session(top)
    assert any(r.retimed and r.outcome.ok for r in res.retimed)  # the others were re-timed, at half their figures
    assert res.best_config is not None and Config.of(res.best_config) != top  # the re-time's pick
    picked = Config.of(res.best_config)
    assert res.current_latency_us == first[current] and res.best_latency_us == first[picked]
    assert res.unretimed is not None and "compared by their first round's measurements" in res.unretimed
    gain = judge_gain(res).gain_pct
    assert gain == pytest.approx(((first[current] or 0.0) / (first[picked] or 1.0) - 1) * 100)


def _ran(block: int, latency: float, *, retimed: bool, outcome: Outcome = Outcome.OK) -> Result:
    if outcome is not Outcome.OK:
        return Result.failed(Config.of({"BLOCK": block}), outcome, "the worker died").model_copy(
            update={"retimed": retimed}
        )
    return Result(config={"BLOCK": block}, outcome=outcome, latency_us=latency, retimed=retimed)


def _tuning(first: list[Result], again: list[Result], best: int, current: int) -> Any:
    """A session's judgement as ``tune_folder`` has it (one configuration, ``best`` picked over ``current``), what
    :func:`~kernelopt.tuning.folder._next_picks` reads of it: the results and the request's minimum gain."""
    from kernelopt.tuning.folder import FolderTuning
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain

    mine = next(r for r in [*again, *first] if r.config == {"BLOCK": best} and r.outcome.ok)
    now = next(r for r in first if r.config == {"BLOCK": current})
    result = SessionResult(
        best_config={"BLOCK": best}, best_latency_us=mine.latency_us, current_config={"BLOCK": current},
        current_latency_us=now.latency_us, results=first, retimed=again, evaluations=len(first), served=0,
        budget=20, space_size=20, wall_s=30.0, stop=StopReason.STALLED, strategy="local",
    )  # fmt: skip
    prepared = SimpleNamespace(request=SimpleNamespace(min_gain_pct=2.0))
    return FolderTuning(prepared, result, judge_gain(result))  # type: ignore[arg-type]


def test_a_next_pick_is_not_judged_against_nothing_where_the_current_was_not_re_timed() -> None:
    """folder._next_picks judged a re-timed next pick against the current's latency in the re-time's round: where
    the current's re-time failed that was nothing, and every re-timed pick came out "better" (the current
    configuration did not run). A round without the current offers none: the next picks come from the first round,
    judged against the current's first figure there."""
    from kernelopt.tuning.folder import _next_picks

    first = [_ran(64, 10.0, retimed=False), _ran(128, 12.0, retimed=False), _ran(256, 13.0, retimed=False),
             _ran(32, 11.0, retimed=False)]  # fmt: skip
    again = [_ran(64, 9.0, retimed=True), _ran(128, 11.5, retimed=True), _ran(32, 0.0, retimed=True,
             outcome=Outcome.WORKER_CRASH)]  # fmt: skip
    tuning = _tuning(first, again, 64, 32)
    assert _next_picks(tuning) == []  # 128 and 256 are slower than the current's first 11.0 (before: 128 "better")
    faster = [*first[:3], _ran(32, 14.0, retimed=False)]
    picks = _next_picks(_tuning(faster, again, 64, 32))
    assert [p.result.best_config for p in picks] == [{"BLOCK": 128}, {"BLOCK": 256}]
    assert [p.result.best_latency_us for p in picks] == [12.0, 13.0]  # first-round figures against the first 14.0
    assert all(p.result.current_latency_us == 14.0 for p in picks)
    timed = [*again[:2], _ran(32, 10.5, retimed=True)]  # the current re-timed: the re-time's round, as before
    picks = _next_picks(_tuning(first, timed, 64, 32))
    assert picks == []  # 128's re-timed 11.5 does not beat the current's re-timed 10.5


@pytest.mark.timeout(120)
def test_a_pick_a_rule_refuses_at_write_time_gives_way_to_the_next_best_that_is_checked_and_netted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pid_map_literal (v-series: ``num_pid_n = tl.cdiv(N, 64)`` written inside the kernel beside ``BLOCK_N=64``): the
    session's pick ``BLOCK_N=32`` is refused when its edit is written (the kernel's copy of 64 would disagree), and
    tune kept the current configuration where the next-best, ``BLOCK_M=64``, beats it and can be written. It is
    written instead, checked on every ``SHAPES`` entry and by the net first; a next-best that does not beat the
    current configuration writes nothing, the refusal's line kept."""
    from kernelopt.tuning import folder as tf
    from tests.test_tuning_net import VARIANTS, _evaluator, _session

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder = Path(shutil.copytree(VARIANTS / "pid_map_literal", tmp_path / "pid_map_literal"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    refused, writable = {"BLOCK_M": 32, "BLOCK_N": 32}, {"BLOCK_M": 64, "BLOCK_N": 64}
    current = ({"BLOCK_M": 32, "BLOCK_N": 64}, 20.0)
    with _evaluator(prepared) as evaluator:
        checked: list[str] = []
        check_source = evaluator.check_source

        def on_entries(source: str, config: Config) -> Any:
            checked.append(source)
            return check_source(source, config)

        monkeypatch.setattr(evaluator, "check_source", on_entries)
        done = tf._checked_edit(_session(prepared, [(refused, 10.0), (writable, 11.0)], current), evaluator)
        slower = tf._checked_edit(_session(prepared, [(refused, 10.0), (writable, 21.0)], current), evaluator)
    assert done.edit is not None and "BLOCK_M=64, BLOCK_N=64)" in done.edit.new_source, done.edit_note
    assert done.result.best_config == writable and done.judgement.better
    note = done.edit_note or ""
    assert "still divides by 64 (line 12: tl.cdiv(N, 64))" in note and note.endswith(
        "more than one tile: BLOCK_M=32, BLOCK_N=32 not written; the next-best, BLOCK_M=64, BLOCK_N=64, passes: written instead"
    ), note
    assert checked == [done.edit.new_source]  # the next-best's text, on every SHAPES entry
    assert done.net is not None and done.net.failed is None and "correct at" in done.net.line()
    assert slower.edit is None and not slower.judgement.better and slower.result.best_config == refused
    assert slower.edit_note is not None and slower.edit_note.endswith("not written"), slower.edit_note
    assert "next-best" not in slower.edit_note


KSTEP_DATA = Path(__file__).parent / "data" / "gpuparity" / "kstep"
BOUND = 16 * 65535  # the guard's bound: the grid's axis 1 holds triton.cdiv(N, 16) programs, at most 65535


class _Launches:
    """A stand-in for a kernel (``_mm[grid](...)``) that records each launch's grid and keywords."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, dict[str, Any]]] = []

    def __getitem__(self, grid: Any) -> Any:
        def launch(*args: Any, **kwargs: Any) -> None:
            self.seen.append((grid, kwargs))

        return launch


def _launched(tmp_path: Path, name: str, source: str, n: int) -> tuple[Any, dict[str, Any]]:
    """What ``run`` of ``source`` (kstep's launching function) launches at N = ``n`` (M = 1, K = 16)."""
    import torch

    from tests.conftest import load_fresh

    path = tmp_path / f"{name}.py"
    path.write_text(source)
    module = load_fresh(path, f"_rounds13_{name}")
    module._mm = _Launches()
    module.run(torch.empty(1, 16), SimpleNamespace(shape=(16, n)))
    [seen] = module._mm.seen
    return seen


def test_settings_beside_a_guarded_tile_are_one_block_under_its_condition_and_run_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kstep's pick BLOCK_M=64, BLOCK_N=16, KSTEP=64 (BLOCK_N guarded by the grid's axis-1 limit, the others set under
    the same guard, b96879d8) was written as two blocks under one condition: ``BLOCK_N = 32`` / ``if N <= 16 *
    65535: BLOCK_N = 16`` / ``BLOCK_M, KSTEP = 32, 8`` / ``if N <= 16 * 65535: ...``. It is one fallback line and one
    block, as a Triton user writes it; each side of the bound launches what the two blocks launched, the guard is
    read as before (a later session's current values), and the kernel is right under the interpreter."""
    from kernelopt.tunables import guard_blocks
    from kernelopt.tunables.guard import guarded_values
    from kernelopt.tuning import folder as tf
    from tests.conftest import load_fresh, triton_interpreted

    folder = Path(shutil.copytree(KSTEP_DATA, tmp_path / "kstep"))
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device="cpu"))
    pick = {"BLOCK_M": 64, "BLOCK_N": 16, "KSTEP": 64}
    edit, _ = tf._config_edit(prepared, pick)
    assert edit is not None and edit.new_source is not None
    written = edit.new_source
    with monkeypatch.context() as m:
        m.setattr(tf, "one_block_per_condition", lambda source: source)
        two, _ = tf._config_edit(prepared, pick)
    assert two is not None and two.new_source is not None and two.new_source.count("if N <= 16 * 65535:") == 2
    assert written.count("if N <= 16 * 65535:  # kernelopt: tuned") == 1, written
    assert "    BLOCK_N, BLOCK_M, KSTEP = 32, 32, 8\n    if N <= 16 * 65535:  # kernelopt: tuned\n" in written
    assert "        BLOCK_N, BLOCK_M, KSTEP = 16, 64, 64\n" in written, written
    assert guarded_values(written) == guarded_values(two.new_source) == pick
    for n in (BOUND - 1, BOUND, BOUND + 1, 2 * BOUND):
        assert _launched(tmp_path, "one", written, n) == _launched(tmp_path, "two", two.new_source, n), n
    below, above = _launched(tmp_path, "one", written, BOUND)[1], _launched(tmp_path, "one", written, BOUND + 1)[1]
    assert (below["BLOCK_M"], below["BLOCK_N"], below["KSTEP"]) == (64, 16, 64)
    assert (above["BLOCK_M"], above["BLOCK_N"], above["KSTEP"]) == (32, 32, 8)
    # another test, or a block setting a name the other reads, stays two blocks
    apart = two.new_source.replace(
        "if N <= 16 * 65535:  # kernelopt: tuned\n        BLOCK_M",
        "if N <= 8 * 65535:  # kernelopt: tuned\n        BLOCK_M",
    )
    assert guard_blocks.one_block_per_condition(apart) == apart
    import torch

    (folder / "kernel.py").write_text(written)
    with triton_interpreted():
        kernel = load_fresh(folder / "kernel.py", "_rounds13_kstep")
        a, b = torch.randn(40, 48), torch.randn(48, 24)
        torch.testing.assert_close(kernel.run(a, b), a @ b, rtol=1e-4, atol=1e-4)


def test_a_first_call_failure_is_its_own_class_and_carries_no_other_hint() -> None:
    """harness/hints read a kernel wrong on its first call only ("FirstCallOnly": its line names the autotuner's
    benchmark on the call's own tensors and reset_to_zero) as a raise, so a seed made of permuted rows appended the
    permuted-rows note to it, which explains nothing there. It is its own class, and no hint of the table fits it;
    a raise keeps the permuted note."""
    from kernelopt.harness.hints import FIRST_CALL_ONLY, FailureClass, Hint, failure_class, hint_fits
    from kernelopt.harness.model import Culprit

    assert failure_class(FIRST_CALL_ONLY) is FailureClass.FIRST_CALL
    assert not any(hint_fits(h, FailureClass.FIRST_CALL) for h in Hint)
    assert failure_class("RuntimeError") is FailureClass.RAISED and hint_fits(Hint.PERMUTED, FailureClass.RAISED)
    assert failure_class(FIRST_CALL_ONLY, Culprit.PROBLEM) is FailureClass.REFERENCE  # the culprit first, as before


def _first_call_seen(tmp_path: Path, device: str) -> tuple[Any, Any]:
    """Discovery's evaluation on ``device`` of leftovers13's partial sum as written and with reset_to_zero."""
    from kernelopt.tunables.evaluate import evaluate_autotune

    data = Path(__file__).parent / "data" / "leftovers13" / "first_call"
    wrong = Path(shutil.copytree(data, tmp_path / "wrong"))
    fixed = Path(shutil.copytree(data, tmp_path / "fixed"))
    source = (fixed / "kernel.py").read_text()
    (fixed / "kernel.py").write_text(source.replace('key=["n"],', 'key=["n"],\n    reset_to_zero=["parts_ptr"],'))
    return tuple(
        evaluate_autotune(f / "kernel.py", reference=f / "reference.py", device=device) for f in (wrong, fixed)
    )


@pytest.mark.timeout(120)
def test_discovery_s_run_of_the_task_says_the_original_is_wrong_on_its_first_call(tmp_path: Path) -> None:
    """leftovers13's leftover: tune times an autotune list's configurations each pinned alone, so it never said that
    the kernel as written is wrong on its first call at each new key (V0 and validate do). Discovery's evaluation
    calls the task once in a fresh process: where that call's autotuner benchmarked on its own tensors with nothing
    to undo it, the task is called once more and, the outputs differing, the evaluation carries the line (tune
    prints it); with reset_to_zero the list says nothing."""
    seen, again = _first_call_seen(tmp_path, "cpu")
    assert seen.problem is None, seen.problem
    assert seen.first_call is not None and seen.first_call.startswith("wrong on its first call only"), seen.first_call
    assert 'reset_to_zero=["parts_ptr"]' in seen.first_call
    # the first call held to the next by the gate's comparison and tolerance (reference.py's ATOL / RTOL), said so
    mismatch = "its first call's output, the next call's on the same inputs taken as the reference: output differs"
    assert mismatch in seen.first_call and "atol 0.001, rtol 0.0001, fp32" in seen.first_call, seen.first_call
    assert again.problem is None and again.first_call is None and again.spaces, again


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_a_gpu_discovery_says_the_original_is_wrong_on_its_first_call_and_one_guard_block_runs_right(
    tmp_path: Path,
) -> None:
    """On CUDA, where the autotuner's do_bench runs each config many times on the call's tensors: discovery's run says
    the partial sum is wrong on its first call, and nothing with reset_to_zero. kstep's one guard block, compiled,
    right below its bound at N = 16 * 65535 (BLOCK_N=16, BLOCK_M=64, KSTEP=64; above it the original's KSTEP=8, which
    no GPU compiles, as written)."""
    import torch

    from tests.conftest import load_fresh

    seen, again = _first_call_seen(tmp_path, "cuda")
    assert seen.first_call is not None and "wrong on its first call only" in seen.first_call, seen
    assert again.first_call is None and again.problem is None, again
    source = (KSTEP_DATA / "kernel.py").read_text()
    launch = "    _mm[(triton.cdiv(M, 32), triton.cdiv(N, 32))](a, b, c, M, N, K, BLOCK_M=32, BLOCK_N=32, KSTEP=8)\n"
    assert launch in source
    guarded = (
        "    BLOCK_N, BLOCK_M, KSTEP = 32, 32, 8\n    if N <= 16 * 65535:  # kernelopt: tuned\n"
        "        BLOCK_N, BLOCK_M, KSTEP = 16, 64, 64\n    _mm[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))]"
        "(a, b, c, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, KSTEP=KSTEP)\n"
    )
    (tmp_path / "kstep.py").write_text(source.replace(launch, guarded))
    kernel = load_fresh(tmp_path / "kstep.py", "_rounds13_kstep_gpu")
    for n in (100, BOUND):
        a, b = torch.randn(3, 40, device="cuda"), torch.randn(40, n, device="cuda")
        torch.testing.assert_close(kernel.run(a, b), a @ b, rtol=1e-4, atol=1e-4)
