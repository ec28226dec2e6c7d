"""newuser22: a new user from a fresh clone, and the agent path (docs/faults.md, "A new user, twenty-second round
(newuser22, 2026-12-07)"); n1-n163 are earlier trials'. n165's test is in tests/test_backends_agent_cli.py, beside
the scripted agents' other tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_newuser21_cases import TORCH_2_13_BACKENDS

DATA = Path(__file__).parent / "data"


def test_n164_the_mcp_server_s_gating_tools_refuse_a_misspelt_compile_backend_first(
    ws_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`KERNELOPT_COMPILE_BACKEND=indutor kernelopt mcp --root DIR --device cpu` (newuser21's seen line): the server
    took it, and `profile` gated V0 with a reference whose compile failed ("not timed: its compile failed"), where
    `validate`, `optimize` and `batch` refuse it before anything runs (n156). Now the tools that gate (`profile`,
    `validate`) check it first, by the same rule, and refuse in the CLI's line with nothing run or written."""
    from kernelopt.agents import drive
    from kernelopt.errors import UsageError
    from kernelopt.harness import compile_backend
    from kernelopt.workspace import Workspace

    monkeypatch.setattr(compile_backend, "_LIST", f"print({json.dumps(TORCH_2_13_BACKENDS)!r})")  # torch 2.13's
    compile_backend._torch_backends.cache_clear()
    monkeypatch.setenv("KERNELOPT_COMPILE_BACKEND", "indutor")
    loop = DATA / "loop"
    ws = Workspace.create("add", kernel=loop / "kernel.py", reference=loop / "reference.py", root=ws_root)
    head = ws.head()
    with pytest.raises(UsageError) as said:  # validate's check is the same call, after its stage-order check
        drive.profile(ws, device="cpu")
    assert said.value.one_line() == (
        "KERNELOPT_COMPILE_BACKEND='indutor' is not a torch.compile backend of this torch (did you mean "
        "inductor?); it has aot_eager, cudagraphs, eager, inductor, openxla, tvm (torch._dynamo.list_backends()); "
        "fix it, or unset it for inductor"
    )
    assert ws.head() == head and drive.read_state(ws) is None  # no V0 gated, no run begun
    compile_backend._torch_backends.cache_clear()


def test_n166_a_retune_after_a_guarded_write_says_why_it_is_a_new_session_in_words(tmp_path: Path) -> None:
    """`kernelopt tune DIR --device cpu` run twice on a kernel with a computed `BLOCK` (the trial's row sum of squares):
    the first wrote `if n_cols <= 1000:  # kernelopt: tuned` above the launch, and the second said "a new session: the
    last one's record (...) was made for other the launch tuned, so none of it is served": no sentence, and naming a
    launch the user never changed (its label holds its line, which the written lines moved; the kernel's code, its
    knob values and tuned lines aside, was the same). The line now says which part of what was measured differs, in
    words that read."""
    from kernelopt.tuning.candidate import Outcome, Result
    from kernelopt.tuning.new_session import new_session_line
    from kernelopt.tuning.record import RecordHeader, SessionRecord
    from kernelopt.tuning.replay import space_from_sweep

    from .test_tuning_session import sweep

    space = space_from_sweep(sweep("sumsq"))
    was = {"kernel": "k", "launch": "launch _rowsq_kernel (kernel.py:24)"}
    now = {"kernel": "k", "launch": "launch _rowsq_kernel (kernel.py:26)"}
    earlier = SessionRecord.open(tmp_path / "a" / "record.jsonl", RecordHeader.for_space(space, key_parts=was))
    earlier.append(Result(config=space.default().as_dict(), outcome=Outcome.OK, latency_us=2.0))
    assert new_session_line(earlier, now) == (
        f"a new session: the last one's record ({earlier.path}, 1 configuration(s)) does not match this run in the "
        "launch tuned (its kernel and its line in kernel.py, which lines an earlier tune wrote above it move), so none "
        "of it is served; it is kept there"
    )
