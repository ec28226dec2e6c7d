"""This session's "seen, not changed" items a user meets (docs/faults.md, "This session's seen items (seen19)"):
each a test on real input, on the CPU."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import guard_edit
from kernelopt.tunables.user_lines import in_user_lines, user_line
from kernelopt.tuning.candidate import Outcome, Result
from tests.test_pace12_cases import Paced, _sweep

DATA = Path(__file__).parent / "data"


def test_s1_a_guard_note_names_the_line_as_the_user_s_file_has_it() -> None:
    """Seen on 2026-12-06 (breaker19's d5): the guard's note on flag_splitkv said "line 298", the line of the text the
    edit would write (one tuned line inserted above it); the user's kernel.py has it at 297. Every line a note names
    is the user's: a line the edit kept by its number there, a line the edit adds by the user's line above it."""
    base = (DATA / "breaker19" / "flag_splitkv" / "kernel.py").read_text()
    tiles = "        BLOCK_M, BLOCK_N, num_stages, num_warps = config\n"
    guarded = guard_edit(base, base.replace(tiles, tiles + "        BLOCK_N = 64  # kernelopt: tuned\n"))
    assert guarded.note is not None and "(line 297 counts triton.cdiv(N, BLOCK_N) whole tiles" in guarded.note
    assert "triton.cdiv(triton.cdiv(N, BLOCK_N), S)" in base.splitlines()[297 - 1]
    # a net's or a check's traceback line of the edited text (``checks.first_line``: "(kernel.py:N)")
    before = "a = 1\nb = 2\nc = 3\n"
    after = "a = 1\nif n <= 64:  # kernelopt: tuned\n    a = 2\nb = 20\nc = 3\n"
    assert [user_line(before, after, n) for n in range(1, 6)] == [1, None, None, 2, 3]
    said = in_user_lines("RuntimeError: boom (kernel.py:5); line 3 tests n", before, after)
    assert said == "RuntimeError: boom (kernel.py:3); a line the edit adds after line 1 tests n", said
    assert in_user_lines("IndexError (kernel.py:2)", before, after) == (
        "IndexError (kernel.py:1 (a line the edit adds below it))"
    )
    assert in_user_lines("line 3 is as it was", before, before) == "line 3 is as it was"


def test_s2_a_list_a_function_chooses_by_a_condition_is_not_pinned_over_its_other_branch() -> None:
    """Seen on 2026-12-06 (breaker19): the matmul tutorial's ``configs=get_autotune_config()`` returns the CUDA list
    ``if is_cuda():`` and the HIP list ``else:``; ``tune`` on the CPU pinned the list, and the written kernel.py ran
    the configs tuned for CUDA on AMD too, the HIP list gone. The list is not pinned (``folder._checked`` refuses the
    write with this line, as every rule's refusal); a literal list, or a helper that only builds one, still is."""
    from kernelopt.tunables.branched_list import branched_list

    source = (DATA / "breaker19" / "tut_matmul" / "kernel.py").read_text()
    why = branched_list(source, "matmul_kernel")
    assert why is not None and why.startswith(
        "matmul_kernel's autotune list is get_autotune_config() (line 59), which chooses its list by `if is_cuda():`"
        " (line 50): a pinned list would run the configs tuned here where that test chooses another list too"
    ), why
    assert source.splitlines()[50 - 1].strip() == "if is_cuda():"
    # one list for every platform: pinned as before (a loop's filter under an `if` returns nothing there)
    built = source.replace(
        "def get_autotune_config():\n    if is_cuda():\n        return get_cuda_autotune_config()\n    else:\n"
        "        return get_hip_autotune_config()\n",
        "def get_autotune_config():\n    out = []\n    for c in get_cuda_autotune_config():\n        if c.num_warps"
        " <= 8:\n            out.append(c)\n    return out\n",
    )
    assert built != source and branched_list(built, "matmul_kernel") is None
    literal = source.replace("configs=get_autotune_config(),", "configs=get_cuda_autotune_config(),")
    assert literal != source and branched_list(literal, "matmul_kernel") is None
    # late19 z4: the same choice written otherwise was pinned, the HIP list gone: a name bound to the chooser's call,
    # a conditional expression in the decorator or in the chooser's return, a module `if` binding the name
    chooser = "def get_autotune_config():\n    if is_cuda():\n        return get_cuda_autotune_config()\n    else:\n"
    chooser += "        return get_hip_autotune_config()\n"
    either = "get_cuda_autotune_config() if is_cuda() else get_hip_autotune_config()"
    module_if = (
        "if is_cuda():\n    CONFIGS = get_cuda_autotune_config()\nelse:\n    CONFIGS = get_hip_autotune_config()\n"
    )
    for written, chose in [
        ((chooser, chooser + "\n\nCONFIGS = get_autotune_config()\n"), "if is_cuda():"),
        (("configs=get_autotune_config(),", f"configs={either},"), "... if is_cuda() else ..."),
        ((chooser, f"def get_autotune_config():\n    return {either}\n"), "... if is_cuda() else ..."),
        ((chooser, chooser + "\n\n" + module_if), "if is_cuda():"),
    ]:
        variant = source.replace(*written)
        if "CONFIGS =" in variant:
            variant = variant.replace("configs=get_autotune_config(),", "configs=CONFIGS,")
        assert variant != source
        why = branched_list(variant, "matmul_kernel")
        assert why is not None and f"which chooses its list by `{chose}`" in why, (written, why)


class _SlowRetime(Paced):  # type: ignore[misc]
    """:class:`Paced` whose re-time runs three times its plan (a loaded machine), cut at its limit as a worker is."""

    def retime(self, batch):  # type: ignore[no-untyped-def]
        from kernelopt.tuning.pace import LEAST_REQUEST_S

        limit = self.limit.seconds(300.0)
        self.clock.advance(min(3 * len(batch) * self.per_s, LEAST_REQUEST_S if limit is None else limit))
        return [Result.failed(c, Outcome.RUN_TIMEOUT, "no reply within the re-time's limit") for c in batch]


def test_s3_a_re_time_cut_at_its_limit_leaves_the_checks_their_reserve_and_the_margin() -> None:
    """Seen on 2026-12-06 (breaker19, ``optimize --device cpu --max-iters 1`` on dao_rotary, load 9): V1's session
    kept 3.68 s for the checks after it (leftovers19's tail, given to the loop's session as to ``tune``'s), planned the
    re-time of 5 picks at 12.3 s each in the 68.9 s left, ran it three times slower, and cut it at the wall's margin
    less the 3.68 s (its record: the re-time at the second entry "no reply within 19.0659 s"); the worker's kill and
    the host's work on the pick then took them, and the written edit's check of 0.18 s found "0 s left": ten minutes
    of tuning kept nothing. Where checks follow the session, the re-time ends before them and half the margin (here
    candidates of 2 s, two entries: 3.5 s kept; the kill and the edit stood in for by 4 s of the clock)."""
    from kernelopt.tuning.budget import Budget, ManualClock
    from kernelopt.tuning.pace import RETIME_MARGIN_SHARE, WALL_MARGIN_S
    from kernelopt.tuning.replay import space_from_sweep
    from kernelopt.tuning.session import tune
    from kernelopt.tuning.tail_wall import TailCost, TailWall

    s = _sweep()
    clock = ManualClock()
    ev = _SlowRetime(s, clock, per_s=2.0, hung=set())
    cost = TailCost(entries=2, target=False, wall_s=60.0)
    budget = Budget(100, clock, wall_s=60.0)
    res = tune(space_from_sweep(s), ev, budget=budget, rng_seed=1, batch_size=4, tail=cost.need_s)
    need = cost.need_s(res.results)
    assert need == pytest.approx(0.5 * 2 + 0.5 + 2 * 2.0 / 2)  # the net's two checks, the entries' check, a re-time
    assert res.best_config is not None and all(not r.outcome.ok for r in res.retimed)  # the re-time was cut
    wall = TailWall.of(budget)
    assert wall.left_s() >= need + (1 - RETIME_MARGIN_SHARE) * WALL_MARGIN_S - 1e-9, wall.left_s()
    clock.advance(4.0)  # the re-time's worker killed, the pick judged and its edit made
    assert wall.cut("the written edit's check on the SHAPES entries", 0.5) is None


def _fault_net(tmp_path: Path, device: str, *, alone: bool = True) -> tuple[Any, int, int, float]:
    """The net of a written ``BLOCK = 128`` on tests/data/gpufind19/fault (a kernel raising "CUDA error: misaligned
    address" at every odd n, as the original does) from its one entry n=256: the verdict, the first bench worker's
    starts during the net, the worker of its own's (``alone``; off: the net as before s4), and the net's seconds."""
    import shutil
    import time

    from kernelopt.tuning.folder import FolderTuning, TuneRequest, _cast_net, prepare_folder
    from kernelopt.tuning.session import SessionResult, StopReason, judge_gain
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    folder = Path(shutil.copytree(DATA / "gpufind19" / "fault", tmp_path / "fault"))
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace('SHAPES = [{"n": 256}, {"n": 257}]', 'SHAPES = [{"n": 256}]'))
    with pytest.MonkeyPatch.context() as mp:
        if device == "cpu":
            mp.setenv("TRITON_INTERPRET", "1")
        else:
            mp.delenv("TRITON_INTERPRET", raising=False)
        prepared = prepare_folder(TuneRequest(folder=folder, device=device))
        base = prepared.base_source
        best = {"BLOCK": 128}
        by = {s.label(): 1.0 for s in prepared.shapes}
        won = Result(config=best, outcome=Outcome.OK, latency_us=1.0, latency_us_by_shape=by, retimed=True)
        result = SessionResult(
            best_config=best, best_latency_us=1.0, current_config=None, current_latency_us=None, results=[won],
            retimed=[won], evaluations=1, served=0, budget=1, space_size=1, wall_s=1.0, stop=StopReason.CANDIDATES,
            strategy="exhaustive",
        )  # fmt: skip
        tuning = FolderTuning(prepared, result, judge_gain(result))
        with ShapesEvaluator(
            prepared.problem, prepared.shapes, base, lambda c: base, session_dir=prepared.session_dir,
            env={**prepared.env, **({"TRITON_INTERPRET": "1"} if device == "cpu" else {})},
        ) as ev:  # fmt: skip
            ev.start()
            if not alone:
                ev.check_alone = None  # type: ignore[method-assign,assignment]
            primary = ev.evaluators[0]
            before = primary.bench_starts
            t0 = time.monotonic()
            net = _cast_net(tuning, ev, base.replace("BLOCK = 64", "BLOCK = 128"), {})
            seconds = time.monotonic() - t0
            return net, primary.bench_starts - before, primary.aside_starts, seconds


def test_s4_a_size_likely_to_fault_runs_in_a_worker_of_its_own(tmp_path: Path) -> None:
    """Seen on 2026-12-06 (gpufind19): on a kernel that faults at odd sizes (bnb_int8_mm's misaligned address at an odd
    M), each odd size of the net faulted the written kernel and then the original in the net's one bench worker, and
    each fault started that worker again (a Python, torch, Triton and CUDA context: about 10 s on an H100); on this
    stand-in, main at 63f18dd8 started it 9 times in one net. A run where a fault is likely (the original faulted at a
    size of the same alignment, or the written kernel's failure there is such a fault) goes to a worker of its own,
    spawned again at once after a fault: the first worker starts once, at the first fault, where nothing was known."""
    net, primary, aside, _ = _fault_net(tmp_path, "cpu")
    said = net.line()
    assert "correct at n=320, n=258, n=128, n=64, n=1024, n=254" in said, said
    assert "skipped n=257 (n=257: the original fails there too: run_error: " in said and "misaligned address" in said
    assert primary == 1 and aside >= 1, (primary, aside)


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_the_net_s_faults_run_in_a_worker_of_their_own_and_what_that_saves(tmp_path: Path) -> None:
    """s4 on an NVIDIA GPU (Triton compiled): the same net with the worker of its own off (as before) and on. Each
    fault of the stand-in is the CUDA error's words only (the context stays usable), so this measures the workers'
    starts the net waits on: before, the first worker's; now the other worker's, spawned again at once. The line
    "seen19 s4" in tests.txt keeps the figures (the first worker's starts, the other's, the net's seconds)."""
    before, first_before, _, s_before = _fault_net(tmp_path / "before", "cuda", alone=False)
    after, first_after, aside, s_after = _fault_net(tmp_path / "after", "cuda")
    print(
        f"seen19 s4: before: first worker started {first_before} times in the net, {s_before:.2f} s; now: first "
        f"worker {first_after}, its own worker {aside}, {s_after:.2f} s"
    )
    verdicts = [[(c.kind, c.shape.label() if c.shape else None, c.passed) for c in n.checks] for n in (before, after)]
    assert verdicts[0] == verdicts[1], (before.line(), after.line())  # the same verdict at every size
    assert first_before >= 5 and first_after == 1 and aside >= 1, (first_before, first_after, aside)
