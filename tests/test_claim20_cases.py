"""claim20 (2026-12-06; docs/faults.md, "Claims (claim20, 2026-12-06)"): a re-time that reads a configuration ten times
its first measurement or more is taken again, and where it disagrees again the claim is made from the first round.

The H100's breaker19 run (df76e050, 23:18 UTC) tuned LMDeploy's persistent RMS norm (tests/data/breaker19/lmd_rms) and
said "13.1x faster than the current NUM_STAGES=1 (157.5 us)": its re-time read the kernel as written at 149.0 us at
B=2,T=40,H=256, where its first round read 3.76 us and the three others re-timed beside it read 3.56-3.58 us there. The
true gain is about 2 %. That session's record and JSON are kept in docs/gpu-runs/2026-12-06-h100-n/tune/ (its stderr
in tests/data/claim20); the session here replays the record's lines of the four configurations re-timed (every knob
but NUM_STAGES at its computation), first round and re-time, figures as recorded, on the one knob that moved.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Config, Result
from kernelopt.tuning.space import Space, knob_of

RUN = Path(__file__).parent.parent / "docs" / "gpu-runs" / "2026-12-06-h100-n" / "tune"
RECORD = RUN / "lmd_rms_record.jsonl"
STDERR = Path(__file__).parent / "data" / "claim20" / "h100_tune_lmd_rms.txt"
STAGES = "add_rms_norm_kernel:NUM_STAGES"


def _recorded() -> tuple[dict[Config, Result], list[Result]]:
    """The record's first measurements by configuration and its re-time in order, each on the one knob that moved."""
    first: dict[Config, Result] = {}
    retimed: list[Result] = []
    for line in RECORD.read_text().splitlines()[1:]:
        r = Result.model_validate(json.loads(line)["result"])
        if not r.outcome.ok or r.config["BLOCK_N"] != "computed" or r.config["num_warps"] != "computed":
            continue
        r = r.model_copy(update={"config": {STAGES: r.config[STAGES]}})
        if r.retimed:
            retimed.append(r)
        else:
            first[Config.of(r.config)] = r
    return first, retimed


class _Recorded:
    """The record's figures: each configuration's first measurement, then its re-time, the re-times after the first
    ``again`` (default: the record's re-time once more, its outlier repeated)."""

    def __init__(self, again: list[Result] | None = None) -> None:
        self.first, self.retimed = _recorded()
        self.again, self.retimes = again, 0

    def evaluate(self, batch: Sequence[Config]) -> list[Result]:
        return [self.first[c] for c in batch]

    def retime(self, batch: Sequence[Config]) -> list[Result]:
        self.retimes += 1
        pool = self.retimed if self.retimes == 1 or self.again is None else self.again
        by = {Config.of(r.config): r for r in pool}
        return [by[c] for c in batch]

    def close(self) -> None:
        pass


def judge(res):  # type: ignore[no-untyped-def]
    from kernelopt.tuning.session import judge_gain

    return judge_gain(res)


def _session(ev: _Recorded):  # type: ignore[no-untyped-def]
    from kernelopt.tuning.session import tune

    space = Space((knob_of(STAGES, [1, 2, 3, 4], 1),))
    return tune(space, ev, budget=Budget.default(space.size.count, ManualClock()), rng_seed=7)


def test_the_h100_s_outlier_re_time_claims_about_2_percent_not_13x() -> None:
    """Before: "13.1x faster than the current NUM_STAGES=1 (157.5 us)", the current's 149.0 us re-time at one entry
    against every other figure of it and of its neighbours. Now the re-time is taken again; repeated (the worst case),
    the pick and the current are compared by their first round (11.99 against 12.27 us), and every line says so:
    the JSON's verdict, its per-shape table and ``unretimed``; the record keeps both re-times as measured."""
    from kernelopt.cli.tune import verdict_line
    from kernelopt.tuning.shapes import per_shape

    ev = _Recorded()
    res = _session(ev)
    assert ev.retimes == 2  # re-measured before anything was said
    assert res.retimed == [] and res.unretimed is not None
    assert "NUM_STAGES=1 149 us at B=2,T=40,H=256 against 3.758 us at first (39.7x)" in res.unretimed
    assert "compared by their first round's measurements" in res.unretimed
    assert res.best_config == {STAGES: 3} and res.current_latency_us == pytest.approx(12.2706, abs=1e-3)
    assert res.speedup == pytest.approx(12.2706 / 11.9898, rel=1e-3)
    judged = judge(res)
    assert judged.better and judged.gain_pct == pytest.approx(2.34, abs=0.01)
    line = verdict_line(res, judged, kernel_py="kernel.py", written=True, dry_run=False)
    assert "1.02x faster than the current add_rms_norm_kernel:NUM_STAGES=1 (12.27 us)" in line and "13.1x" not in line
    now = {s.shape: s.current_latency_us for s in per_shape(res.results, res.retimed, res.best_config, {STAGES: 1})}
    assert now["B=2,T=40,H=256"] == pytest.approx(3.758, abs=1e-3)


def test_a_second_re_time_that_agrees_is_the_round_the_claim_reads() -> None:
    """Taken again, a re-time whose figures agree with the first round's (here the record's re-time with the current's
    first figures in place of its outlier) is the comparison's round: the re-time's pick, NUM_STAGES=2 at 12.01 us,
    1.02x the current's 12.27; nothing said in ``unretimed``."""
    first, retimed = _recorded()
    current = Config.of({STAGES: 1})
    again = [
        first[current].model_copy(update={"retimed": True}) if Config.of(r.config) == current else r for r in retimed
    ]
    ev = _Recorded(again)
    res = _session(ev)
    assert ev.retimes == 2 and res.unretimed is None and res.retimed == again
    assert res.best_config == {STAGES: 2} and res.best_latency_us == pytest.approx(12.0061, abs=1e-3)
    assert res.speedup == pytest.approx(1.022, abs=1e-3)


def test_only_a_re_time_far_above_its_first_figure_is_an_outlier() -> None:
    """:func:`~kernelopt.tuning.session.outliers`: 10x its first figure at one entry is one (the current's 149.0 us
    against 3.76 us), below it none; a re-time far lower than the first stands (load only adds time)."""
    from kernelopt.tuning.session import OUTLIER_FACTOR, outliers

    first, retimed = _recorded()
    [far] = outliers(retimed, list(first.values()))
    assert far.startswith("add_rms_norm_kernel:NUM_STAGES=1 149 us at B=2,T=40,H=256 against 3.758 us at first (39.7x)")
    now = first[Config.of({STAGES: 1})]
    below = now.model_copy(update={"latency_us": now.latency_us * (OUTLIER_FACTOR - 0.5), "latency_us_by_shape": {}})
    faster = now.model_copy(update={"latency_us": now.latency_us / 50, "latency_us_by_shape": {}})
    assert outliers([below], [now]) == [] and outliers([faster], [now]) == []


def claim_problems(said: dict[str, Any], record: Sequence[dict[str, Any]], stderr: str) -> list[str]:
    """What a ``tune --json`` run (its JSON ``said``, its stderr) claims that its session record does not bear out: the
    current configuration's figure in the claim :data:`~kernelopt.tuning.session.OUTLIER_FACTOR` times its first
    measurement or more (in all, or at a ``SHAPES`` entry of the per-shape table), a speedup that is not the ratio of the
    claim's two figures, or a figure the record never measured for its configuration; and a stderr whose verdict is
    not the JSON's. ``[]``: nothing claimed, or every claim measured."""
    from kernelopt.tuning.session import OUTLIER_FACTOR

    problems: list[str] = []
    if f"verdict: {said.get('verdict')}" not in stderr.splitlines():
        problems.append("stderr does not say the JSON's verdict")
    results = [line["result"] for line in record if line.get("kind") == "result" and line["result"]["outcome"] == "ok"]
    now, best, speedup = said.get("current_latency_us"), said.get("best_latency_us"), said.get("speedup")
    if now is None or best is None or speedup is None:
        return problems
    first = next((r for r in results if r["config"] == said["current_config"] and not r["retimed"]), None)
    if first is None:
        return [*problems, "the record has no first measurement of the current configuration"]
    if now >= OUTLIER_FACTOR * first["latency_us"]:
        problems.append(f"the claim's current {now:.4g} us against {first['latency_us']:.4g} us at first")
    for row in said.get("per_shape") or []:
        there, before = row.get("current_latency_us"), first["latency_us_by_shape"].get(row["shape"])
        if there is not None and before and there >= OUTLIER_FACTOR * before:
            problems.append(f"the claim's current {there:.4g} us at {row['shape']} against {before:.4g} us at first")
    if abs(speedup - now / best) > 1e-6 * speedup:
        problems.append(f"speedup {speedup:.4g} is not {now:.4g} / {best:.4g}")
    for what, config, figure in (("current", said["current_config"], now), ("best", said["best_config"], best)):
        measured = [r["latency_us"] for r in results if r["config"] == config]
        if not any(abs(m - figure) <= 1e-9 * figure for m in measured):
            problems.append(f"the {what}'s {figure:.4g} us is none of the record's figures of it {measured}")
    return problems


def test_the_claim_check_finds_the_h100_s_13x_claim_untrue_of_its_record() -> None:
    """The GPU proof's check (:func:`claim_problems`) on what the H100 wrote (breaker19's ``tune_lmd_rms.json``, its
    record and its stderr): the current's 157.5 us in all and 149.0 us at B=2,T=40,H=256 against 12.27 and 3.758 us at
    first, and a text that never said the verdict."""
    said = json.loads((RUN / "tune_lmd_rms.json").read_text())
    record = [json.loads(line) for line in RECORD.read_text().splitlines()]
    assert claim_problems(said, record, STDERR.read_text()) == [
        "stderr does not say the JSON's verdict",
        "the claim's current 157.5 us against 12.27 us at first",
        "the claim's current 149 us at B=2,T=40,H=256 against 3.758 us at first",
    ]


@pytest.mark.gpu
@pytest.mark.timeout(235)
def test_on_cuda_lmd_rms_s_claim_is_what_its_record_measured(tmp_path: Path) -> None:
    """On an NVIDIA GPU, twice: ``tune --device cuda --json --budget-wall-s 60`` on breaker19's lmd_rms (a copy), its
    claim checked against its own session record (:func:`claim_problems`) and under 1.5x (every NUM_STAGES the H100
    timed was within 5 % of the others). tests.txt keeps a "claim20" line a run: the claim, the record's re-times (one
    round, or two where the first read an outlier) and ``unretimed``."""
    problems = {}
    for run in (1, 2):
        folder = Path(shutil.copytree(Path(__file__).parent / "data" / "breaker19" / "lmd_rms", tmp_path / f"w{run}"))
        out = tmp_path / f"sessions{run}"
        argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--budget-wall-s",
                "60", "--out", str(out)]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=110)
        assert done.returncode == 0, done.stderr[-3000:]
        said = json.loads(done.stdout)
        record = [json.loads(line) for line in Path(said["record"]).read_text().splitlines()]
        lines = [line["result"] for line in record if line.get("kind") == "result"]
        retimes = sum(1 for r in lines if r["retimed"])
        timed = [(r["retimed"], r.get("timing")) for r in lines if r["config"] == said["current_config"]]
        print(
            f"claim20 run {run}: {said['verdict']}; re-timed lines {retimes}; the current's timers (re-timed, how) "
            f"{timed}; unretimed: {said['unretimed']}"
        )
        problems[run] = claim_problems(said, record, done.stderr)
        if said.get("speedup") is not None and said["speedup"] >= 1.5:
            problems[run].append(f"speedup {said['speedup']:.3g}x")
    assert problems == {1: [], 2: []}, problems


def test_an_estimate_the_host_outran_is_taken_again_behind_a_spin_that_covers_it() -> None:
    """:func:`~kernelopt.harness.timers.covering_spin_us`: ten calls queued in 1500 us of host work behind the
    estimate's 2000 us spin may have left the GPU waiting inside the window (the estimate then reads the host's pace):
    taken again behind 3000 us; 800 us is covered (no second estimate); a spin at the bound is not widened."""
    from kernelopt.harness.timers import ESTIMATE_SPIN_US, MAX_SPIN_US, covering_spin_us

    assert covering_spin_us(1500.0, ESTIMATE_SPIN_US) == 3000.0
    assert covering_spin_us(800.0, ESTIMATE_SPIN_US) is None
    assert covering_spin_us(10 * MAX_SPIN_US, ESTIMATE_SPIN_US) == MAX_SPIN_US
    assert covering_spin_us(10 * MAX_SPIN_US, MAX_SPIN_US) is None


HOST_WORK = {"a fast launch": 20.0, "a slow wrapper": 300.0, "a call that waits on the GPU": 0.0}


@pytest.mark.parametrize("name", sorted(HOST_WORK))
def test_the_estimate_is_taken_again_only_where_a_longer_spin_covers_the_host(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """:func:`~kernelopt.harness.timers._gpu_batch_us`'s own loop, its GPU played by a clock (review20 r1): a launch of
    20 us of host work a call is estimated once behind the 2000 us spin, as before claim20 (no figure of it changes);
    a wrapper of 300 us a call outruns it and is estimated again behind 6000 us, its host time said; a call that waits
    on the GPU (a copy to the host) makes the host's time follow every spin: one second estimate, then its host time
    said as 0, where the loop had widened the spin to 50 ms (112 ms of spins a callable) and the events' spin to 10 ms a
    sample, a quarter of the samples in the case's budget."""
    import torch

    from kernelopt.harness import timers

    clock = {"now": 0.0, "spin_end": 0.0}
    spins: list[float] = []

    def take(work: Any, calls: int, *, flush: Any, spin_us: float = timers.SPIN_US) -> Any:
        def sample() -> float:
            spins.append(spin_us)
            clock["spin_end"] = clock["now"] + spin_us * 1e-6
            work()
            return 3.0

        return sample

    def fn(_: Any) -> None:
        if HOST_WORK[name]:
            clock["now"] += HOST_WORK[name] * 1e-6
        else:  # waits for the GPU: the spin, then its own 3 us
            clock["now"] = max(clock["now"], clock["spin_end"]) + 3e-6

    monkeypatch.setattr(timers, "_gpu_take", take)
    monkeypatch.setattr(timers, "time", SimpleNamespace(perf_counter=lambda: clock["now"]))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch.cuda, "_sleep", lambda _: None, raising=False)
    gpu_us, host_us = timers._gpu_batch_us(fn, [[None]], 10)
    expected = {
        "a fast launch": ([2000.0], 20.0),
        "a slow wrapper": ([2000.0, 6000.0], 300.0),
        "a call that waits on the GPU": ([2000.0, 2 * (2000.0 + 30.0)], 0.0),
    }[name]
    assert gpu_us == 3.0
    assert (spins, round(host_us, 6)) == (pytest.approx(expected[0]), expected[1])


@pytest.mark.gpu
@pytest.mark.timeout(60)
def test_on_cuda_lmd_rms_s_run_is_timed_as_a_graph_and_its_host_work_kept_out() -> None:
    """On an NVIDIA GPU: lmd_rms's ``run`` (two launches of the RMS norm and a copy a call, 3.76 us of GPU time at
    B=2,T=40,H=256 on the H100) prepared ten times by the gate's sampler: each time a CUDA graph, its estimate under
    ``graph_below_us``, the samples within 2x of one another. tests.txt's "claim20 timer" line keeps the host's time a
    call, the estimates and the methods (the likely cause of the H100's 149.0 us: an estimate that read the host's
    pace, then samples call by call with the host's work inside the window)."""
    import importlib.util
    from collections import Counter

    import torch

    from kernelopt.harness.model import BenchSettings, TimingMethod
    from kernelopt.harness.timers import L2Flusher, _gpu_batch_us, make_sampler

    folder = Path(__file__).parent / "data" / "breaker19" / "lmd_rms"
    spec = importlib.util.spec_from_file_location("claim20_lmd_rms", folder / "kernel.py")
    assert spec is not None and spec.loader is not None
    kernel = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernel)
    ref = importlib.util.spec_from_file_location("claim20_lmd_rms_ref", folder / "reference.py")
    assert ref is not None and ref.loader is not None
    reference = importlib.util.module_from_spec(ref)
    ref.loader.exec_module(reference)
    inputs = reference.get_inputs(2, 40, 256, device="cuda")
    for _ in range(3):
        kernel.run(*inputs)
    torch.cuda.synchronize()
    settings, flusher = BenchSettings(), L2Flusher("cuda")
    estimates = [_gpu_batch_us(kernel.run, [inputs], 10) for _ in range(10)]
    samplers = [make_sampler(kernel.run, [inputs], "cuda", settings, flusher) for _ in range(10)]
    samples = [s.sample() for s in samplers for _ in range(3)]
    methods = Counter(s.method.value for s in samplers)
    print(
        f"claim20 timer: host {statistics.median(h for _, h in estimates):.1f} us a call; 10-call estimates "
        f"{min(g for g, _ in estimates):.2f}-{max(g for g, _ in estimates):.2f} us; methods {dict(methods)}; samples "
        f"{min(samples):.2f}-{max(samples):.2f} us"
    )
    assert all(g < settings.graph_below_us for g, _ in estimates), estimates
    assert methods == Counter({TimingMethod.CUDA_GRAPH.value: 10}), methods
    assert max(samples) < 2 * min(samples), samples


def test_each_figure_says_how_it_was_timed_and_an_outlier_names_both_methods() -> None:
    """The bench worker's timing method reaches the record (``Result.timing``): on the CPU the sampler's
    ``cpu_perf_counter`` for each callable timed together; across entries one method where all agree, else each
    entry's; and an outlier timed by another method than its first figure says both (the H100's record could not tell
    a graph from one call a sample)."""
    import torch

    from kernelopt.tuning.bench_worker import BenchPlan, time_callables
    from kernelopt.tuning.session import outliers
    from kernelopt.tuning.shapes import merge

    methods: list[str] = []
    x = torch.ones(64)
    time_callables([torch.relu, torch.neg], [x], "cpu", BenchPlan(repetitions=2), flusher=None, graph_bytes=0,
                   order=[0, 1, 1, 0], methods=methods)  # fmt: skip
    assert methods == ["cpu_perf_counter", "cpu_perf_counter"]

    first, retimed = _recorded()
    now = first[Config.of({STAGES: 1})]
    again = next(r for r in retimed if r.config == {STAGES: 1})
    a, b, c = now.latency_us_by_shape
    parts = [
        (s, now.model_copy(update={"timing": "cuda_graph", "latency_us": now.latency_us_by_shape[s]}))
        for s in (a, b, c)
    ]
    assert merge(Config.of({STAGES: 1}), parts).timing == "cuda_graph"
    mixed = [(a, again.model_copy(update={"timing": "cuda_events", "latency_us": 149.04})), *parts[1:]]
    assert merge(Config.of({STAGES: 1}), mixed).timing == f"{a}: cuda_events; {b}: cuda_graph; {c}: cuda_graph"
    [far] = outliers(
        [again.model_copy(update={"timing": "cuda_events"})], [now.model_copy(update={"timing": "cuda_graph"})]
    )
    assert far.endswith("(39.7x; timed cuda_events, at first cuda_graph)")


@pytest.mark.gpu
@pytest.mark.timeout(60)
def test_on_cuda_a_call_that_waits_on_the_gpu_takes_one_second_estimate_and_the_short_spin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On an NVIDIA GPU (review20 r1): a wrapper that sizes its launch by a count read back from the GPU (``.item()``,
    MoE routing's way) waits for every spin queued before it, so its host time follows the spin. Its estimate is taken
    twice (2000 us, then twice the first host time) and says no host work, and its sampler's spins are the 100 us of
    before claim20: main's loop had doubled the spin to 50 ms and given each sample a 10 ms spin."""
    import torch

    from kernelopt.harness import timers
    from kernelopt.harness.model import BenchSettings

    x = torch.randn(1 << 22, device="cuda")

    def waits(x: Any) -> Any:
        return x[: int((x[:1024] > 0).sum().item()) * 64] * 2.0

    for _ in range(3):
        waits(x)
    torch.cuda.synchronize()
    spins: list[float] = []
    take = timers._gpu_take

    def recorded(work: Any, calls: int, *, flush: Any, spin_us: float = timers.SPIN_US) -> Any:
        spins.append(spin_us)
        return take(work, calls, flush=flush, spin_us=spin_us)

    monkeypatch.setattr(timers, "_gpu_take", recorded)
    gpu_us, host_us = timers._gpu_batch_us(waits, [[x]], 10)
    estimate, spins[:] = list(spins), []
    sampler = timers.make_sampler(waits, [[x]], "cuda", BenchSettings(), timers.L2Flusher("cuda"))
    print(
        f"review20 waits: estimate spins {[round(s) for s in estimate]} us, {gpu_us:.2f} us a call, host {host_us} us; "
        f"sampler {sampler.method.value}, its spins {sorted({round(s) for s in spins})} us, warnings {sampler.warnings}"
    )
    assert estimate[0] == timers.ESTIMATE_SPIN_US and len(estimate) == 2 and host_us == 0.0, estimate
    assert spins[2:] and max(spins[2:]) == timers.SPIN_US, spins
