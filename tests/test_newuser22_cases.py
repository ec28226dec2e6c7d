"""newuser22: a new user from a fresh clone, and the agent path (docs/faults.md, "A new user, twenty-second round
(newuser22, 2026-12-07)"); n1-n163 are earlier trials'. n165's test is in tests/test_backends_agent_cli.py, beside
the scripted agents' other tests."""

from __future__ import annotations

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

    known = (TORCH_2_13_BACKENDS["listed"], TORCH_2_13_BACKENDS["all"])  # torch 2.13's (n156 asks a real child)
    monkeypatch.setattr(compile_backend, "_torch_backends", lambda: known)
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


ROWSQ_TUNED = """import torch
import triton
import triton.language as tl


@triton.jit
def _rowsq_kernel(x_ptr, out_ptr, n_cols, stride, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
        acc += v * v
    tl.store(out_ptr + row, tl.sum(acc, axis=0) * scale)


def run(x, scale):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    BLOCK = min(triton.next_power_of_2(n_cols), 64)
    if n_cols <= 1000:  # kernelopt: tuned
        BLOCK = 1024
    _rowsq_kernel[(n_rows,)](x, out, n_cols, x.stride(0), scale, BLOCK=BLOCK, num_warps=4)
    return out
"""


def test_n167_tunables_names_the_rows_an_earlier_tune_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kernelopt tunables DIR/kernel.py` after `tune DIR` wrote `if n_cols <= 1000:  # kernelopt: tuned` /
    `BLOCK = 1024` (the trial's row sum of squares): the listing said "computed" and "it is tuned where it is computed
    ...: one value for every size, or a table by size", as if it were not tuned yet; the rows were in `--json`'s
    `tuned_table` only. Now one line says them, as they run, and what a new tune does with them."""
    from kernelopt.cli.app import main

    kernel = tmp_path / "kernel.py"
    kernel.write_text(ROWSQ_TUNED)
    assert main(["tunables", str(kernel)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        "_rowsq_kernel:BLOCK is tuned already: the rows an earlier tune wrote after kernel.py:20 (`# kernelopt: tuned`), "
        "which ran BLOCK=1024 where n_cols <= 1000; above 1000, the computation; a new tune is measured against them "
        "and writes its rows in their place"
    ) in lines, lines
    kernel.write_text(ROWSQ_TUNED.replace("    if n_cols <= 1000:  # kernelopt: tuned\n        BLOCK = 1024\n", ""))
    assert main(["tunables", str(kernel)]) == 0
    assert "tuned already" not in capsys.readouterr().out  # no rows, no line


CONFIG_HANDED = """import torch
import triton
import triton.language as tl


@triton.jit
def _twice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def twice(x, config):
    out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, config.kwargs["BLOCK"]),)
    _twice_kernel[grid](x, out, n, num_warps=config.num_warps, **config.kwargs)
    return out


def run(x):
    return twice(x, triton.Config({"BLOCK": 128}, num_warps=4))
"""


def test_n168_a_launch_option_read_from_a_handed_config_is_tabled_by_the_function_s_sizes() -> None:
    """`kernelopt tunables` of a launch taking `num_warps=config.num_warps, **config.kwargs` of a `triton.Config` the
    caller hands in (breaker27's q71 as a user writes it): the `**config.kwargs` line read well ("... a triton.Config
    the caller of twice() hands in (chosen at run time ...): ... pass them at the launch as literals, or under
    @triton.autotune, to tune them"), but `num_warps` was offered as "a table by size, by config": a table keyed on a
    Config object, which no size bound can compare. A setting read as an attribute of a parameter handed in is the
    caller's settings, as one read by a string key already was (configs23): its table is by the function's own sizes
    (`n = x.numel()`), falling back on the caller's config."""
    from kernelopt.tunables.analysis import discover_source

    found = {t.key: t for t in discover_source(CONFIG_HANDED)}
    assert found["_twice_kernel:num_warps"].size_names == ["n"]
    why = found["_twice_kernel:**config.kwargs"].refused_reason or ""
    assert "a triton.Config the caller of twice() hands in" in why and why.endswith("to tune them"), why


def test_n169_a_set_over_earlier_tuned_rows_says_what_it_replaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`kernelopt tunables kernel.py --set _rowsq_kernel:BLOCK=128 --dry-run` over the rows a tune wrote (`if n_cols <=
    1000:  # kernelopt: tuned` / `BLOCK = 1024`): "_rowsq_kernel:BLOCK: None -> 128 at kernel.py:23 (overrides the
    computed ...)", the rows gone from the diff without a word. Now the value before is "computed", and one line says
    the rows the edit replaces; a set over a computation with no rows says no such line."""
    from kernelopt.cli.app import main

    kernel = tmp_path / "kernel.py"
    kernel.write_text(ROWSQ_TUNED)
    assert main(["tunables", str(kernel), "--set", "_rowsq_kernel:BLOCK=128", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        "_rowsq_kernel:BLOCK: the edit replaces the rows an earlier tune wrote after kernel.py:20 (`# kernelopt: "
        "tuned`), which ran BLOCK=1024 where n_cols <= 1000; shown (--dry-run)"
    ) in lines, lines
    assert any(line.startswith("_rowsq_kernel:BLOCK: computed -> 128 at kernel.py:") for line in lines), lines
    kernel.write_text(ROWSQ_TUNED.replace("    if n_cols <= 1000:  # kernelopt: tuned\n        BLOCK = 1024\n", ""))
    assert main(["tunables", str(kernel), "--set", "_rowsq_kernel:BLOCK=128", "--dry-run"]) == 0
    assert "replaces the rows" not in capsys.readouterr().out
