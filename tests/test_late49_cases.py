"""late49 (docs/faults.md, "The seconds before a GPU session"): fla_matmul's `tune --device cuda --budget-wall-s 60` on
the H100 of 2026-12-07 19:29 spent 90 s before its session, most of it discovery's run of the task benchmarking its
keyed list of eight at each of its two launches' keys (16 compiles and do_bench runs), and was killed past its wall.

CPU only: Triton's interpreter stands in for the GPU's run (the worker's ``read_module`` in this process, its
``pin_lists`` as ``tune`` passes it on a GPU), the autotuner's benchmark watched at ``Autotuner._bench``. The GPU's
seconds are owed: ``test_on_cuda_l190_...`` below, phase ``late49``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import triton_interpreted

DATA = Path(__file__).parent / "data"

THREE = (
    '@triton.autotune(configs=[triton.Config({"BLOCK": 128, "TAIL": 128}, num_warps=4), '
    'triton.Config({"BLOCK": 64, "TAIL": 64}, num_warps=4), triton.Config({"BLOCK": 256, "TAIL": 256}, num_warps=4)], '
    'key=["n_cols"])'
)


def _read(folder: Path, pin_lists: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], list[str]]:
    """The autotune worker's answer for ``folder`` (in this process, the interpreter standing for the GPU's run), and
    the kernels whose autotuner benchmarked a config during it."""
    from triton.runtime.autotuner import Autotuner

    from kernelopt.harness.first_call import adds_into, calls_differ, first_call_line, kept_outputs, watch_benchmarks
    from kernelopt.tunables.autotune_worker import FirstCallWatch, base_fn, read_module

    benched: list[str] = []
    bench = Autotuner._bench

    def watched(self: Any, *args: Any, **kwargs: Any) -> Any:
        benched.append(base_fn(self).__name__)
        return bench(self, *args, **kwargs)

    monkeypatch.setattr(Autotuner, "_bench", watched)
    watch = FirstCallWatch(watch_benchmarks, kept_outputs, calls_differ, first_call_line, adds_into)
    answer = read_module(folder / "kernel.py", folder / "reference.py", "cpu", None, watch, True, pin_lists)
    return answer, benched


def test_l190_discovery_on_a_gpu_does_not_benchmark_a_keyed_list_to_learn_the_launch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """l190: discovery's first run of the task (as ``tune`` makes it on a GPU: ``pin_lists`` = 8) ran a keyed list of
    2 to 8 configs whole, its autotuner compiling and benchmarking every config at the key (l133 pinned only the runs
    after it): now the list runs pinned to its first config from the first run, no config benchmarked, every entry's
    sizes read as before and no pick claimed as the autotuner's (none was made). A kernel that adds into its output
    (leftovers13's ``tl.atomic_add`` partial sums) keeps its list whole in the first run: only its own benchmark tells
    whether its first call is wrong, and the line still says so. Without ``pin_lists`` (the interpreter's sessions,
    ``tunables``) the list runs as written, benchmarked, as before (``test_leftovers27_cases.py::test_l133_...``)."""
    from kernelopt.tuning.folder import LIST_CURRENT_MOST

    folder = Path(shutil.copytree(DATA / "variants" / "tail_keyed_list", tmp_path / "t"))
    text = (folder / "kernel.py").read_text()
    one = '@triton.autotune(configs=[triton.Config({"BLOCK": 128, "TAIL": 128}, num_warps=4)], key=["n_cols"])'
    (folder / "kernel.py").write_text(text.replace(one, THREE))
    with triton_interpreted():
        pinned, benched = _read(folder, LIST_CURRENT_MOST, monkeypatch)
        assert benched == [], benched
        entries = pinned["shape_sizes"]
        assert [e["shape"] for e in entries] == [{"n_rows": 4, "n_cols": 1024}, {"n_rows": 8, "n_cols": 2048}]
        sizes = [e["sizes"]["rowsum_kernel"] for e in entries]
        assert [(s["n_rows"], s["n_cols"]) for s in sizes] == [(4, 1024), (8, 2048)], sizes
        assert [e["launch_values"]["rowsum_kernel"]["BLOCK"] for e in entries] == [128, 128], entries  # the first
        assert [e["picks"] for e in entries] == [{}, {}] and "best_config" not in pinned["spaces"]["rowsum_kernel"]
        first = DATA / "leftovers13" / "first_call"
        adding, benched = _read(first, LIST_CURRENT_MOST, monkeypatch)
    assert benched.count("partial_sum") == 3, benched  # its three configs, at the first run's key
    assert adding["first_call"] is not None and adding["first_call"].startswith("wrong on its first call only")


def test_l191_the_wall_counts_the_seconds_before_the_session_and_says_so_before_it() -> None:
    """l191: ``tune --budget-wall-s 60`` gave its session the whole 60 s after discovery and the workers' start (90 s
    before fla_matmul's session on the H100 of 2026-12-07 19:29, 40.4 s before la_nodecay's: "86.1 s against its 60 s
    wall"), said only after the run. The command's budget now counts them (``Budget.count_before``, from
    ``tune_folder``'s ``began_s``; the workers' start counted by ``session.tune`` where the command counts): a replayed
    sweep on a manual clock, 35 s of discovery and 10 s of the workers' start in a 60 s wall, ends its session at 15 s
    of its own; the stated wall alone (the loop's budget) runs its 60 s. The line before the session says how long,
    why and what is left; the line after the run counts it in the wall."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.pace import WALL_MARGIN_S, RunWall, before_line
    from kernelopt.tuning.replay import ReplayEvaluator, space_from_sweep
    from kernelopt.tuning.session import StopReason, tune
    from tests.test_tuning_session import sweep

    swept = sweep("layernorm")

    class Starting(ReplayEvaluator):  # the workers' start: 10 s on the session's clock, once; 2 s more a candidate
        started = False

        def evaluate(self, batch: Any) -> Any:
            self.clock.advance(2.0 * len(batch))
            return super().evaluate(batch)

        def start(self, batch_size: int = 1) -> None:
            if not self.started:
                self.started = True
                self.clock.advance(10.0)

    walls = []
    for counted in (True, False):
        clock = ManualClock()
        space = space_from_sweep(swept)
        budget = Budget(space.size.count, clock, 60.0)  # no stall: the wall alone ends it
        if counted:
            budget.count_before(35.0)
        result = tune(space, Starting(swept, clock), budget=budget, rng_seed=7)
        walls.append((budget.before_s, budget.wall_s, result.wall_s, result.stop))
    assert walls[0][:2] == (45.0, 15.0) and walls[0][2] < 15.0 + WALL_MARGIN_S, walls
    assert walls[0][3] is StopReason.WALL_TIME, walls
    assert walls[1][:2] == (None, 60.0) and walls[1][2] > walls[0][2] + 10.0, walls
    spent = Budget(5, ManualClock(), 60.0)
    spent.count_before(90.0)
    assert spent.wall_s == 0.0 and spent.stop() is not None
    assert before_line(35.0, 60.0) == (
        "35.0 s before the session: kernel.py's discovery (a worker imports it and runs the task at its SHAPES "
        "entries); the 60 s wall counts it: 25.0 s left for the session, its workers' start included"
    )
    assert (before_line(90.0, 60.0) or "").endswith(
        "nothing left for the session, which times no candidate (a longer --budget-wall-s times them)"
    )
    assert before_line(0.5, 60.0) is None
    line = RunWall(stated_s=60.0, before_s=45.0, session_s=16.0, checks_s=0.0, after_s=0.2).line() or ""
    assert "45.0 s before the session (kernel.py's discovery and the workers' start, counted in the wall)" in line
    assert "the session 16.0 s," in line, line  # 1 s past its 15 s: within the margin said nowhere


@pytest.mark.gpu
@pytest.mark.timeout(285)
def test_on_cuda_l190_l191_fla_matmul_s_tune_in_a_60_s_wall_ends_near_60_s(tmp_path: Path) -> None:
    """On an NVIDIA GPU (owed: scripts/gpu_late49.sh): late42's tune of breaker25's fla_matmul (``tune --device cuda
    --json --dry-run --budget-wall-s 60``), which on the H100 of 2026-12-07 19:29 spent 90 s before its session
    (discovery benchmarking its list of eight at two keys) and was killed past its wall. Printed: the line said before
    the session, ``run_wall``, ``pace``, the outcomes, the seconds of the whole run. Asserted: discovery and the
    workers' start under 45 s (its list pinned to one config: each launch compiled at each entry, no benchmark), and the
    whole run within the wall and its margin (60 + ``WALL_MARGIN_S`` + 10 s for the plot and the process)."""
    import json
    import os
    import subprocess
    import sys
    import time

    from kernelopt.tuning.pace import WALL_MARGIN_S

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    folder = Path(shutil.copytree(DATA / "breaker25" / "fla_matmul", tmp_path / "fla_matmul"))
    argv = [sys.executable, "-m", "kernelopt", "tune", str(folder), "--device", "cuda", "--json", "--dry-run",
            "--budget-wall-s", "60", "--out", str(tmp_path / "sessions")]  # fmt: skip
    t0 = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=275, env=env)
    seconds = time.monotonic() - t0
    assert done.stdout, done.stderr[-3000:]
    said = json.loads(done.stdout)
    before = [x for x in done.stderr.splitlines() if "before the session: kernel.py's discovery" in x]
    print(f"late49 l190/l191: rc {done.returncode}; the run {seconds:.1f} s; said before: {before}")
    print(
        f"late49 l190/l191: run_wall {said.get('run_wall')}; pace {said.get('pace')}; outcomes {said.get('outcomes')}"
    )
    wall = said.get("run_wall")
    if wall is not None:  # said where the run went past its wall
        assert wall["before_s"] < 45.0, wall
    assert seconds < 60.0 + WALL_MARGIN_S + 10.0, seconds
