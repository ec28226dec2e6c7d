"""fla's ``chunk_scaled_dot_kkt_fwd`` on the H100 (kkt18; docs/faults.md).

Seen on 2026-12-06 (main a1108833, H100 80GB HBM3, torch 2.11.0+cu130, Triton 3.6.0): breaker16's GPU test ran the
original as written (its autotuner over ``BK`` in 32/64/128 x ``num_warps`` in 2/4/8 x ``num_stages`` in 2/3/4 picking)
at ``B=4, T=16384, H=16, K=128`` and 75162 of 67108864 elements differed from the reference (worst -0.0988 for 0.0847,
ATOL 0.05), scattered. ``k`` is L2-normalized: TF32 cannot explain 0.18.

Compiled for sm_90 on this CPU machine (``triton.compile`` with ``GPUTarget("cuda", 90, 32)``, Triton 3.6.0), the 27
configs fall in two kinds. Where ``BK < K`` (a K loop: ``BK`` 32 or 64) on a warp group or more (``num_warps`` 4 or 8:
the dot is an asynchronous ``wgmma`` with ``b_kb`` in registers and ``tl.trans(b_k)`` read from the loop's shared
tile), the dot is split along K into ``BK / 8`` wgmmas, each followed by ``wgmma.wait_group BK/8 - 1``; at the end of
the iteration ``BK / 8 - 1`` wgmmas are still reading the tile when the loop's ``cp.async`` of the next K block (or, past
the last one, its masked zero fill) writes into the same buffer: a write-after-read race on shared memory (the PTX and
SASS: ``wgmma.wait_group 7`` (``WARPGROUP.DEPBAR.LE gsb0, 0x7``), ``bar.sync``, then ``cp.async`` / ``LDGSTS`` into the
slot the seven in-flight wgmmas read). Twelve configs (:func:`racy`). The other fifteen cannot race so: ``BK = 128``
(one K block, no loop: every wgmma waited for before the epilogue) or two warps (``mma.sync``, synchronous).

:data:`PTX` keeps the two kinds' loops as compiled. The GPU test runs each of the 27 configs pinned (the heuristics
kept) against a float64 reference and says which are wrong; breaker16's GPU test checks the kernel ``tune`` writes at
a config that cannot race (``BK=128``, four warps) instead of whatever the autotuner picks. The compile for
``--target`` reads the race from the TTGIR (:mod:`kernelopt.harness.wgmma_race`) and ``tune`` refuses to write a pick
that races. And one of today's tune lines (misalign17's "at about 0.0016 s a candidate"): a round the wall time turned
down no longer sets the session's pace.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import load_fresh

FLA = Path(__file__).parent / "data" / "breaker16" / "fla_kkt"
PTX = Path(__file__).parent / "data" / "kkt18"
"""``kkt_bk64_w4_s3.ptx.gz`` (a K loop on four warps, three stages: races) and ``kkt_bk128_w4_s2.ptx.gz`` (one K block:
cannot), fla_kkt's kernel compiled for sm_90 by Triton 3.6.0 here (``H=16, K=128, BT=64``, ``T`` an int)."""

#: the GPU test's sizes: breaker16's GPU size and a smaller T
SIZES = [{"B": 4, "T": 16384, "H": 16, "K": 128}, {"B": 4, "T": 1024, "H": 16, "K": 128}]
#: runs of each config at each size (a race need not show in one)
RUNS = 3


def racy(bk: int, num_warps: int, k: int = 128) -> bool:
    """Whether fla_kkt's config races on sm_90 under Triton 3.6 (the module docstring): a K loop (``bk < k``) of
    asynchronous wgmmas (four warps or more)."""
    return bk < k and num_warps >= 4


def in_flight_at_copy(ptx: str) -> int | None:
    """The wgmmas a loop of ``ptx`` leaves in flight when it issues its first ``cp.async`` (the count of the last
    ``wgmma.wait_group`` before it in the loop's body), ``None`` where no loop issues a copy after a wgmma."""
    head = re.search(r"^(\$L__BB\d+_\d+):.*Loop Header", ptx, re.M)
    if head is None:
        return None
    back = re.compile(rf"\bbra(\.uni)?\s+{re.escape(head.group(1))};")
    body = back.split(ptx[head.end() :], maxsplit=1)[0]
    waits = None
    for line in body.splitlines():
        wait = re.search(r"wgmma\.wait_group\.sync\.aligned (\d+);", line)
        if wait:
            waits = int(wait.group(1))
        elif "cp.async." in line and "wait" not in line and "commit" not in line and waits is not None:
            return waits
    return None


def test_the_sm90_compile_of_a_k_loop_on_a_warp_group_overwrites_the_tile_its_wgmmas_still_read() -> None:
    """The two kinds of fla_kkt's configs as Triton 3.6 compiled them for sm_90: ``BK=64`` on four warps leaves seven
    wgmmas in flight (each reading ``tl.trans(b_k)`` from the loop's shared tile) when the loop copies the next K
    block into that tile; ``BK=128`` has no K loop and waits for every wgmma. :func:`racy` says the same."""
    raced = gzip.decompress((PTX / "kkt_bk64_w4_s3.ptx.gz").read_bytes()).decode()
    whole = gzip.decompress((PTX / "kkt_bk128_w4_s2.ptx.gz").read_bytes()).decode()
    assert raced.count("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32") == 8  # BK / 8 wgmmas an iteration
    assert in_flight_at_copy(raced) == 7 and racy(64, 4)
    assert "Loop Header" not in whole and whole.count("wgmma.wait_group.sync.aligned 0;") == 1
    assert in_flight_at_copy(whole) is None and not racy(128, 4) and not racy(64, 2)


def _judged(got: Any, want: Any, ref: Any) -> tuple[int, float]:
    """(the elements of ``got`` beyond the reference's ATOL / RTOL of ``want`` (torch.allclose's rule, NaN wrong), the
    largest difference)."""
    import torch

    bad = ~torch.isclose(got, want, atol=ref.ATOL, rtol=ref.RTOL)
    return int(bad.sum()), float((got - want).abs().nan_to_num(float("inf")).max())


@pytest.mark.gpu
@pytest.mark.timeout(600)
def test_on_cuda_each_config_of_fla_kkt_pinned_against_a_float64_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """On an NVIDIA GPU: the original's 27 configs, each pinned in turn (its autotuner given that one config, the
    heuristics kept), :data:`RUNS` runs at each of :data:`SIZES` against the reference computed in float64; then the
    autotuner's own pick, as breaker16's GPU test ran it. Prints each config's wrong elements (the lines the phase
    keeps in tests.txt). The configs that cannot race (:func:`racy`) are right at every size and run, and every
    config found wrong is one that races."""
    import torch

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    ref = load_fresh(FLA / "reference.py", "_kkt18_ref")
    ker = load_fresh(FLA / "kernel.py", "_kkt18_ker")
    tuner = ker.chunk_scaled_dot_kkt_fwd_kernel.fn  # the heuristics wrap the autotuner
    configs = list(tuner.configs)
    assert len(configs) == 27, configs
    wrong: dict[tuple[int, int, int], list[str]] = {}
    for shape in SIZES:
        label = ",".join(f"{k}={v}" for k, v in shape.items())
        torch.manual_seed(0)
        k, beta = ref.get_inputs(**shape, device="cuda")
        want = ref.reference(k.double(), beta.double())  # float64 sums, kept as the reference's fp32 output
        for config in configs:
            key = (config.kwargs["BK"], config.num_warps, config.num_stages)
            tuner.configs = [config]
            for run in range(RUNS):
                got = ker.run(k, beta)
                torch.cuda.synchronize()
                bad, worst = _judged(got, want, ref)
                print(
                    f"kkt18 {label} BK, num_warps, num_stages = {key} run {run}: {bad} wrong of {got.numel()}, largest difference {worst:.4g}"
                )
                if bad:
                    wrong.setdefault(key, []).append(f"{label} run {run}: {bad}")
        tuner.configs = configs
        tuner.cache.clear()
        got = ker.run(k, beta)
        torch.cuda.synchronize()
        bad, worst = _judged(got, want, ref)
        print(f"kkt18 {label} the autotuner's pick {tuner.best_config}: {bad} wrong, largest difference {worst:.4g}")
        del k, beta, want, got
    print(f"kkt18 wrong configs: {wrong}")
    assert all(racy(bk, warps) for bk, warps, _ in wrong), wrong
    assert sum(not racy(c.kwargs["BK"], c.num_warps) for c in configs) == 15


def test_a_round_whose_requests_the_wall_time_turned_down_leaves_the_pace_of_the_candidates_that_ran() -> None:
    """misalign17's ``tune --device cuda`` on the H100 (2026-12-06): 14 candidates ran (about 0.2 s each to check and
    time), then a round of 8 was turned down by the wall time in milliseconds, and the json's line read "the wall time
    left (0 s of 60 s, at about 0.0016 s a candidate)": the pace was that round's seconds over candidates that never
    ran. The pace (and the estimate of what fits the wall) is of the candidates that ran."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.replay import space_from_sweep
    from kernelopt.tuning.session import tune
    from tests.test_pace12_cases import Paced, _sweep

    class TurnedDown(Paced):
        """:class:`Paced` (3 s a request) whose requests after the first round are not sent, 13 ms each."""

        def evaluate(self, batch):  # type: ignore[no-untyped-def]
            if self.started and self.limits:
                self.clock.advance(0.013 * len(batch))
                return [Result.failed(c, Outcome.NOT_RUN_BUDGET, "not sent: no time left") for c in batch]
            return super().evaluate(batch)

    s = _sweep()
    clock = ManualClock()
    budget = Budget(8, clock, wall_s=600.0)
    res = tune(space_from_sweep(s), TurnedDown(s, clock, per_s=3.0, hung=set()), budget=budget, batch_size=4,
               rng_seed=1, retime_top=0)  # fmt: skip
    assert [r.outcome for r in res.results].count(Outcome.NOT_RUN_BUDGET) == 4, res.results
    assert budget.candidate_s == 3.0


def _ttgir(name: str) -> str:
    return gzip.decompress((PTX / f"{name}.ttgir.gz").read_bytes()).decode()


def test_a_ring_a_loop_s_async_wgmmas_read_and_its_copies_refill_under_fewer_slots_than_stages_is_read_as_racing() -> (
    None
):
    """:func:`~kernelopt.harness.wgmma_race.racing_tiles` on TTGIR Triton 3.6 compiled for sm_90 here: fla_kkt's K loop
    on four warps, two stages (one slot) and three (two), races; its one K block, and its two warps (``mma.sync``, no
    async wgmma), do not. A plain matmul's K loop at three stages keeps rings of three slots, its first operand loaded
    into registers or not (tests/data/kkt18/mm.py): no race. Of fla_kkt's 27 configs compiled so (2026-12-06), the
    reader names the 12 the PTX shows racing, and the 15 others not (docs/faults.md kkt18)."""
    from kernelopt.harness.wgmma_race import racing_tiles

    assert racing_tiles(_ttgir("kkt_bk64_w4_s3"), 3) == [2]
    assert racing_tiles(_ttgir("kkt_bk32_w4_s2"), 2) == [1]
    assert racing_tiles(_ttgir("kkt_bk128_w4_s2"), 2) == []
    assert racing_tiles(_ttgir("kkt_bk64_w2_s3"), 3) == []
    assert racing_tiles(_ttgir("mm_fp32_s0_ns3"), 3) == [] and racing_tiles(_ttgir("mm_fp32_s1_ns3"), 3) == []
    assert racing_tiles(_ttgir("kkt_bk64_w4_s3"), 2) == []  # a ring of as many slots as stages: the copy lands apart
    assert racing_tiles("", 3) == []


def test_tune_refuses_to_write_a_pick_whose_compile_for_the_target_races(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tune --target sm_90``'s check before the write (``target_check``): a pick whose launch races
    (:attr:`LaunchCompile.races`) is refused whatever kernel.py as it is does (a race is wrong by timing, at any
    size, and the entries' checks may pass it), the line naming the launch; the same launch without a race is
    written. The compiles are stood in by their reports (fla_kkt's BK=64 on four warps, three stages, at K=128)."""
    from kernelopt.harness import target_compile as tc
    from tests.test_leftovers15_cases import stood_in_compiles

    def launch(races: list[int]) -> tc.LaunchCompile:
        return tc.LaunchCompile(kernel="chunk_scaled_dot_kkt_fwd_kernel", shape={"B": 1, "T": 70, "H": 3, "K": 128},
                                signature={}, constexprs={"BK": 64}, divisible=[],
                                options={"num_warps": 4, "num_stages": 3}, races=races)  # fmt: skip

    (tmp_path / "reference.py").write_text("SHAPES = []\n")
    monkeypatch.setattr(tc, "compile_for_target", stood_in_compiles([launch([2])], [launch([2])]))
    checked = tc.target_check("written", tmp_path / "reference.py", tmp_path, "sm_90", "original")
    assert checked.refused, checked
    assert checked.line == (
        "the pick races at B=1,T=70,H=3,K=128 (chunk_scaled_dot_kkt_fwd_kernel: BK=64, num_warps=4, "
        "num_stages=3): its loop's asynchronous wgmmas read a ring of 2 shared tile(s) that the loop's copies, 3 "
        "stages deep, refill while they run (a write-after-read race on shared memory: some elements wrong, by "
        "timing) on sm_90; nothing written"
    )
    monkeypatch.setattr(tc, "compile_for_target", stood_in_compiles([launch([])], [launch([2])]))
    assert not tc.target_check("written", tmp_path / "reference.py", tmp_path, "sm_90", "original").refused
