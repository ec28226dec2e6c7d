"""Today's "seen, not changed" items a user meets (seen21, 2026-12-07): docs/faults.md's u23 and on."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from kernelopt.agents import drive
from kernelopt.loop.journal import IterationState, Journal, RunSettings, RunState
from kernelopt.stagenames import Stage
from kernelopt.workspace import RunLock
from tests.backends_support import make_ws


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
    assert "is gone" in now.interrupted and "the next stage call below continues it" in now.interrupted
    assert now.why.startswith(now.interrupted)
    # the same journal of a CLI run names its resume
    journal.save(RunState(current=it))
    assert f"kernelopt optimize {ws.root} --resume" in (drive.status(ws).interrupted or "")
    # a run paused between two stages (the server's calls), or served by this process now, is running
    journal.save(RunState(current=it, paused=True))
    assert drive.status(ws).running and drive.status(ws).interrupted is None
    journal.save(RunState(current=it))
    with RunLock(ws.root, command="mcp"):  # status answering beside this process's own gate
        assert drive.status(ws).running and drive.status(ws).interrupted is None
