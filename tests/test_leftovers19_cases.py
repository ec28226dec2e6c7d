"""leftovers19: the seventeenth session's behaviour leftovers (docs/faults.md, "The seventeenth session's leftovers"):
the search keeps the checks after it their time, the own-target check reads the compile pool's compile, discovery's
nested and indexed launch tuples, and one "no figure" line. Each test is cheap: a recorded sweep on a manual clock,
static discovery, or one line."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kernelopt.tuning.budget import Budget, ManualClock
from kernelopt.tuning.candidate import Outcome, Result
from kernelopt.tuning.pace import WALL_MARGIN_S
from kernelopt.tuning.replay import space_from_sweep
from kernelopt.tuning.session import tune
from kernelopt.tuning.tail_wall import NET_SIZES_KEPT, TAIL_SHARE, TARGET_COMPILE_S, TailCost, TailWall
from tests.test_pace12_cases import Paced, _sweep

DATA = Path(__file__).parent / "data"

# ------------------------------------------------------------------------------- l1: the checks after the search


def test_l1_the_tail_is_estimated_from_the_session_s_fastest_candidate_and_capped() -> None:
    """The estimate reads the fastest passing candidate's own seconds: its check for the net's sizes, across entries
    its check again and its re-time at one entry, its compile (at least the target's own) where a target is named;
    nothing before a candidate passed, never past the share of the wall."""
    fast = Result(config={"B": 1}, outcome=Outcome.OK, latency_us=10.0, check_s=4.0, bench_s=6.0, compile_s=1.0)
    slow = Result(config={"B": 2}, outcome=Outcome.OK, latency_us=20.0, check_s=90.0, bench_s=9.0)
    failed = Result.failed({"B": 3}, Outcome.RUN_TIMEOUT, "no reply within 60 s")
    one = TailCost(entries=1, target=False, wall_s=600.0)
    assert one.need_s([failed]) == 0.0
    assert one.need_s([slow, fast, failed]) == pytest.approx(NET_SIZES_KEPT * 4.0)
    two = TailCost(entries=2, target=True, wall_s=600.0)
    assert two.need_s([slow, fast]) == pytest.approx(NET_SIZES_KEPT * 4.0 + 4.0 + 2 * 10.0 / 2 + TARGET_COMPILE_S)
    assert TailCost(entries=2, target=True, wall_s=40.0).need_s([fast]) == pytest.approx(TAIL_SHARE * 40.0)


@pytest.mark.parametrize("kept", [True, False])
def test_l1_a_wall_bounded_session_leaves_its_checks_the_time_they_cost(kept: bool) -> None:
    """breaker18's h2 (inductor_scan, 2026-12-06 19:06 UTC): a session bounded by its 600 s wall spent it on its
    rounds and re-time, and the checks after it found no time: nothing written ("a rerun resumes"). Candidates of 40 s
    here (a check of 10 s, a timing of 30 s, two entries): the search now ends early enough that its checks fit at
    what this session's candidates cost (the entries' check, the net's sizes, the re-time at one entry), within the
    wall; without the tail, only the margin is left."""
    s = _sweep()
    space, clock = space_from_sweep(s), ManualClock()
    ev = Paced(s, clock, per_s=40.0, hung=set())
    cost = TailCost(entries=2, target=False, wall_s=600.0)
    budget = Budget(100, clock, wall_s=600.0)
    res = tune(space, ev, budget=budget, rng_seed=1, batch_size=4, tail=cost.need_s if kept else None)
    need = cost.need_s(res.results)
    assert need == pytest.approx(10.0 * NET_SIZES_KEPT + 10.0 + 2 * 40.0 / 2)  # 70 s
    assert res.retimed and res.best_config is not None
    wall = TailWall.of(budget)
    if kept:
        assert res.wall_s <= 600.0 - need and wall.left_s() >= need + WALL_MARGIN_S
        assert wall.cut("the written edit's check on the SHAPES entries", 10.0) is None
    else:
        assert wall.left_s() < need


# ------------------------------------------------------------------------- l2: the own-target check's compile


def test_l2_the_own_target_check_reads_the_session_s_compiles_and_says_how_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session on an NVIDIA GPU compiles its pick for the GPU's own target before the write; its compile pool and
    bench workers compiled that pick for that GPU already, into the session's Triton cache, which the check's compile
    process did not read (the pick compiled twice, about 5 s on the H100). The process is now given that cache (the
    same key: Triton serves it), each launch read from it is marked, and the line says how many. Here the process is
    stood in for (its environment caught, its report a launch Triton served from the cache); the cache hit itself is
    Triton's (``python3 benchmarks/own_target_cache.py``; the GPU phase gpu_leftovers19 on the H100)."""
    from kernelopt import proc
    from kernelopt.harness.target_compile import REPORT_MARK, LaunchCompile, TargetReport
    from kernelopt.tuning.compile_pool import CACHE_DIR
    from kernelopt.tuning.folder import TuneRequest, target_checked
    from tests.test_target18_cases import on_gpu

    envs: list[dict[str, str]] = []

    def compiled(argv, *, timeout_s, env=None, **_):  # type: ignore[no-untyped-def]
        envs.append(dict(env or {}))
        launch = LaunchCompile(kernel="add_kernel", shape={"n": 16384}, signature={"n": "i32"}, constexprs={"BLOCK": 512},
                               divisible=["n"], options={"num_warps": 4}, cached=True)  # fmt: skip
        report = TargetReport(folder=str(argv[-1]), launches=[launch])
        return proc.CommandResult(
            tuple(map(str, argv)), 0, REPORT_MARK + report.model_dump_json() + "\n", "", 0.1, False
        )

    monkeypatch.setattr(proc, "run_command", compiled)
    on_gpu(monkeypatch)
    folder = DATA / "tuning" / "add"
    base = (folder / "kernel.py").read_text()
    session = tmp_path / "session"
    prepared = SimpleNamespace(request=TuneRequest(folder=folder, device="cuda"), base_source=base,
                               problem=SimpleNamespace(reference_py=folder / "reference.py"), session_dir=session)  # fmt: skip
    checked = target_checked(prepared, base.replace("BLOCK=1024", "BLOCK=512"))  # type: ignore[arg-type]
    assert checked is not None and not checked.refused
    assert [e.get("TRITON_CACHE_DIR") for e in envs] == [str(session / CACHE_DIR)]
    assert ": 1 distinct launch(es) of add_kernel at the SHAPES entries, 1 of them read from the session's own " in (
        checked.line
    )


def test_l2_the_compile_process_hears_which_launches_triton_read_from_its_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The compile process tells a launch served from the cache by Triton's own word (``knobs.compilation.listener``,
    called by ``triton.compile`` with ``cache_hit``)."""
    import triton

    from kernelopt.harness.target_compile import _heard_cache_hits

    monkeypatch.setattr(triton.knobs.compilation, "listener", None)  # restored after: this process is pytest's
    hits = _heard_cache_hits()
    listener = triton.knobs.compilation.listener
    assert listener is not None
    listener(src=None, metadata={}, metadata_group={}, times=None, cache_hit=True)
    listener(src=None, metadata={}, metadata_group={}, times=None, cache_hit=False)
    assert hits == [True, False]
