"""Today's "seen, not changed" items a user meets (seen21, 2026-12-07): docs/faults.md's u23 and on."""

from __future__ import annotations

import os
import re
import shutil
import signal
from pathlib import Path

import pytest

from kernelopt.agents import drive
from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
from kernelopt.stagenames import Stage
from kernelopt.workspace import RunLock, Workspace
from tests.backends_support import make_ws
from tests.conftest import DATA, check_in_process


def test_u23_a_run_whose_holder_was_killed_is_said_interrupted_with_how_to_continue(tmp_path: Path) -> None:
    ws = make_ws(tmp_path)
    journal = Journal(ws.state_dir)
    it = IterationState(version=1, stage=Stage.GATE, base_commit=ws.head(), good_version=0)
    journal.save(RunState(settings=RunSettings(planner=drive.AGENT, implementer=drive.AGENT), current=it))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server's process in its validate: it holds the workspace, then is killed
        try:
            RunLock(ws.root, command="mcp").acquire()
            os.write(write, b"x")
            signal.pause()
        finally:
            os._exit(0)
    try:
        assert os.read(read, 1) == b"x"
        held = drive.status(ws)
        assert held.running and held.interrupted is None and f"(pid {pid})" in (held.held_by or ""), held
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    now = drive.status(ws)  # main said running: true here, held_by null
    assert not now.running and now.held_by is None and now.next is drive.NextStep.VALIDATE, now
    assert now.interrupted is not None and "interrupted in V1's gate stage" in now.interrupted, now
    assert "ended without rolling that stage back" in now.interrupted
    assert "the next stage call below continues it" in now.interrupted
    assert now.why.startswith(now.interrupted)
    # the same journal of a CLI run names its resume
    journal.save(RunState(current=it))
    assert f"kernelopt optimize {ws.root} --resume" in (drive.status(ws).interrupted or "")
    # a run paused between two stages (the server's calls), one its process rolled back as it stopped (a client's
    # cancel, Ctrl-C: the cancel's own note says so), or one served by this process now is no interrupted run
    for state in (RunState(current=it, paused=True), RunState(current=it, parked=True)):
        journal.save(state)
        assert drive.status(ws).running and drive.status(ws).interrupted is None, state
    journal.save(RunState(current=it))
    with RunLock(ws.root, command="mcp"):  # status answering beside this process's own gate
        assert drive.status(ws).running and drive.status(ws).interrupted is None


SLOW_REFERENCE = DATA / "kernelbench" / "slow_reference"


def test_u24_a_hanging_reference_is_said_not_to_finish_and_the_kernel_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kernelopt.harness.gate import validate
    from kernelopt.memory.model import GateResult

    monkeypatch.setenv("KERNELOPT_DEVICE", "cpu")
    monkeypatch.setenv("KERNELOPT_SEEDS", "1")
    monkeypatch.setenv("TEST_TIMEOUT_SEC", "0.2")  # the checker's limit 2 s
    sleeps = (SLOW_REFERENCE / "reference.py").read_text()
    hangs = sleeps.replace(
        "time.sleep(0.002)", "while True:  # a wait on something that never comes\n            time.sleep(0.05)"
    )
    assert hangs != sleeps
    (tmp_path / "reference.py").write_text(hangs)
    ws = Workspace.create(
        "hang", kernel=SLOW_REFERENCE / "kernel.py", reference=tmp_path / "reference.py", root=tmp_path
    )
    report = validate(ws, 0, previous=None)
    said = report.failure_reason or ""
    assert report.result is not GateResult.PASS, (report.result, said)
    # main said "the problem is too large to check here (lower its size, or raise TEST_TIMEOUT_SEC ...)"
    assert "running the reference (reference.py): it did not finish within the checker's limit of 2 s" in said, said
    assert "the kernel was not judged" in said and "too large" not in said, said


def test_u25_a_failure_over_float64_outputs_near_1e300_says_a_finite_rel_err(tmp_path: Path) -> None:
    """break21's b46 pair (a reference returning ``exp(10 x + 600)`` in float64): the wrong kernel's line said
    ``rel_err nan`` on main, its error's squares and the reference's both past float64's range."""
    right = Path(shutil.copytree(DATA / "break21" / "exp_f64", tmp_path / "right"))
    case = check_in_process(right, "v1").cases[0]
    assert case.rel_err is not None and 0 <= case.rel_err < 1e-6, case
    wrong = Path(shutil.copytree(DATA / "break21" / "exp_f64", tmp_path / "wrong"))
    (wrong / "kernel.py").write_text((wrong / "kernel.py").read_text().replace("10 * x", "9 * x"))
    failure = check_in_process(wrong, "v1").failure
    assert failure is not None and "beyond tolerance" in failure.message, failure
    said = re.search(r"rel_err (\S+),", failure.message)
    assert said is not None and 0.5 < float(said.group(1)) < 1, failure.message  # ||9x - 10x|| / ||10x|| near 1e300


def test_u27_a_nan_of_the_reference_s_own_run_is_the_answer_and_a_new_nan_still_fails(tmp_path: Path) -> None:
    """break21's b47 seen item: an fp16 reference whose own run gives NaN where its float64 run is finite (``inf -
    inf`` after an overflow) failed a kernel reproducing that NaN, "NaN where the reference has none", on main. Now
    the reference's own NaN is an expected answer there; a kernel giving NaN where the reference is finite still
    fails. A kernel giving the float64 run's finite value where the reference's own run is NaN passes too (review21
    r18: u27 first failed it, and ``torch.softmax`` failed so against a reference whose fp16 ``exp`` overflowed)."""
    same = Path(shutil.copytree(DATA / "seen21" / "fp16_nan", tmp_path / "same"))
    result = check_in_process(same, "v1")
    assert result.failure is None, result.failure
    kernels = {
        "every": ("s - s", "(s - s) / (s - s)", "contains NaN where the reference has none (48 of 64 elements"),
        "finite": ("sum(dim=1).half()\n        return s - s", "sum(dim=1)\n        return (s - s).half()", None),
    }
    for name, (old, new, said) in kernels.items():
        folder = Path(shutil.copytree(DATA / "seen21" / "fp16_nan", tmp_path / name))
        (folder / "kernel.py").write_text((folder / "kernel.py").read_text().replace(old, new))
        failure = check_in_process(folder, "v1").failure
        if said is None:  # the float64 run's 0, the exact answer (r18)
            assert failure is None, (name, failure)
        else:
            assert failure is not None and said in failure.message, (name, failure)


def test_u28_tunables_says_a_literal_bound_beside_a_size_may_be_held_by_a_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """leftovers21's l9 seen item: ``kernelopt tunables`` listed such a literal as any other, where ``tune`` may hold
    it in a per-size table with the literal kept above its rows; a literal written at the launch is not so held."""
    from kernelopt.cli.app import main

    assert main(["tunables", str(DATA / "seen21" / "literal_local" / "kernel.py")]) == 0
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert (
        "scale_kernel:BLOCK = 1024 is a literal bound beside n (kernel.py:20): tune tunes it as one value for every "
        "size, or, where the entries' bests differ and n is a size every SHAPES entry gives (a number: no table "
        "buckets on a tensor), as a table by size written after it that keeps the literal above its rows" in said
    ), said
    assert main(["tunables", str(DATA / "tunables" / "softmax_grid_literal.py")]) == 0
    assert "is a literal bound beside" not in "".join(capsys.readouterr())
